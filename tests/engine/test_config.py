"""Configuration, end to end through the command line: where a config is found,
what each key does, and the exact one-line error for every bad key or value.

Every test builds its own tree under tmp_path. The prompt below has one finding
of each of two rules on the same line, so a test can see one rule silenced or
left unfixed while the other is not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from promptlint.cli.commands import main
from promptlint.engine import config as config_module
from promptlint.engine import files, registry
from promptlint.engine.config import load
from promptlint.engine.lint import lint_text

PROMPT = (
    "Answer from the sources.\n"
    "\n"
    "[1] Shipping FAQ \u2014 Delivery (score: 0.91) (source: Confluence)\n"
    "Standard delivery takes 3-5 working days.\n"
    "\n"
    "Question: How long does delivery take?\n"
)
SCORE = "3:37: PL102 [retrieval-score] Source 1 shows its retrieval score ('score: 0.91'); the model reads it as an instruction to defer to the top hit"
SYSTEM = "3:52: PL202 [source-system-name] Source 1 names its source system ('Confluence'), which tells the model nothing about the answer"
BOTH = "select: [PL102, PL202]\ntoday: 2026-12-02\n"


def run(*args: str):
    result = CliRunner().invoke(main, list(args), prog_name="promptlint")
    # Every outcome, errors included, must be an exit code, never an exception.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def concise(*args: str) -> list[str]:
    # Each file's own findings: the tests put one prompt under several configs (no folding of copies).
    return run("check", "--output-format", "concise", "--no-fold", *args).stdout.splitlines()


def codes(*args: str) -> dict[str, list[str]]:
    """Rule codes found in each file."""
    found: dict[str, list[str]] = {}
    for record in json.loads(run("check", "--output-format", "json", *args).stdout):
        found.setdefault(record["path"], []).append(record["code"])
    return found


# ---- discovery ----


def test_config_is_found_walking_up_from_each_file(tmp_path, monkeypatch):
    write(tmp_path / "project" / ".promptlint.yaml", "select: [PL102]\ntoday: 2026-12-02\n")
    write(tmp_path / "project" / "a" / "b" / "p.txt", PROMPT)
    # From the project, from the file's own folder, and from a folder outside the project.
    monkeypatch.chdir(tmp_path / "project")
    assert concise("a/b/p.txt") == [f"a/b/p.txt:{SCORE}"]
    monkeypatch.chdir(tmp_path / "project" / "a" / "b")
    assert concise("p.txt") == [f"p.txt:{SCORE}"]
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert concise("../project/a/b/p.txt") == [f"../project/a/b/p.txt:{SCORE}"]


def test_yaml_beats_yml_beats_pyproject_in_one_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "p.txt", PROMPT)
    write(tmp_path / "pyproject.toml", '[tool.promptlint]\nselect = ["PL202"]\n')
    assert concise("p.txt") == [f"p.txt:{SYSTEM}"]
    write(tmp_path / ".promptlint.yml", "select: [PL102, PL202]\n")
    assert concise("p.txt") == [f"p.txt:{SCORE}", f"p.txt:{SYSTEM}"]
    write(tmp_path / ".promptlint.yaml", "select: [PL102]\n")
    assert concise("p.txt") == [f"p.txt:{SCORE}"]


def test_a_pyproject_without_the_table_is_passed_over(tmp_path, monkeypatch):
    write(tmp_path / ".promptlint.yaml", "select: [PL202]\n")
    write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "x"\n')
    write(tmp_path / "sub" / "p.txt", PROMPT)
    monkeypatch.chdir(tmp_path)
    assert concise("sub/p.txt") == [f"sub/p.txt:{SYSTEM}"]


def test_the_nearest_config_wins_for_each_file_and_each_is_read_once(tmp_path, monkeypatch):
    write(tmp_path / ".promptlint.yaml", "select: [PL102]\n")
    write(tmp_path / "sub" / "pyproject.toml", '[tool.promptlint]\nselect = ["PL202"]\n')
    for name in ("top.prompt", "also.prompt", "sub/inner.prompt", "sub/deeper/more.prompt", "other/x.prompt"):
        write(tmp_path / name, PROMPT)
    reads: list[Path] = []
    real_read = config_module.read

    def counted(path: Path):
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(config_module, "read", counted)
    monkeypatch.chdir(tmp_path)
    assert codes(".") == {
        "also.prompt": ["PL102"],
        str(Path("other/x.prompt")): ["PL102"],
        str(Path("sub/deeper/more.prompt")): ["PL202"],
        str(Path("sub/inner.prompt")): ["PL202"],
        "top.prompt": ["PL102"],
    }
    assert sorted(reads) == [tmp_path / ".promptlint.yaml", tmp_path / "sub" / "pyproject.toml"]


def test_config_option_overrides_every_discovered_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", "select: [PL102]\n")
    write(tmp_path / "sub" / ".promptlint.yaml", "select: [PL102]\n")
    write(tmp_path / "p.txt", PROMPT)
    write(tmp_path / "sub" / "p.txt", PROMPT)
    write(tmp_path / "conf" / "only-system.yaml", "select: [PL202]\n")
    write(tmp_path / "conf" / "tool.toml", '[tool.promptlint]\nselect = ["PL202"]\n')
    for config in ("conf/only-system.yaml", "conf/tool.toml"):
        assert concise("--config", config, "p.txt", "sub/p.txt") == [f"p.txt:{SYSTEM}", f"{Path('sub/p.txt')}:{SYSTEM}"]


def test_command_line_selection_goes_on_top_of_each_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", "select: [PL102, PL202]\n")
    write(tmp_path / "sub" / ".promptlint.yaml", "select: [PL102, PL202]\nignore: PL201\n")
    write(tmp_path / "p.txt", PROMPT)
    write(tmp_path / "sub" / "p.txt", PROMPT)
    assert concise("--ignore", "retrieval-score", "p.txt", "sub/p.txt") == [f"p.txt:{SYSTEM}", f"{Path('sub/p.txt')}:{SYSTEM}"]
    assert concise("--select", "retrieval-score", "p.txt", "sub/p.txt") == [f"p.txt:{SCORE}", f"{Path('sub/p.txt')}:{SCORE}"]


# ---- per-file-ignores ----


def test_per_file_ignores_silence_exactly_the_named_rule_in_exactly_the_matching_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # The globs are relative to the config's folder (project/), not to where the command runs.
    write(
        tmp_path / "project" / ".promptlint.yaml",
        BOTH + "include: ['*.txt', '*.md', '*.prompt']\nper-file-ignores:\n  'legacy/*.txt': [retrieval-score]\n  '*.md': [PL2]\n  'deep/**/last.txt': [PL102, PL202]\n",
    )
    for name in ("legacy/a.txt", "legacy/b.prompt", "legacy/nested/c.txt", "notes.md", "other/a.txt", "deep/last.txt", "deep/x/y/last.txt"):
        write(tmp_path / "project" / name, PROMPT)
    # Files where both rules are off have no findings, so no entry.
    assert codes("project") == {
        str(Path("project/legacy/a.txt")): ["PL202"],
        str(Path("project/legacy/b.prompt")): ["PL102", "PL202"],
        str(Path("project/legacy/nested/c.txt")): ["PL102", "PL202"],
        str(Path("project/notes.md")): ["PL102"],
        str(Path("project/other/a.txt")): ["PL102", "PL202"],
    }


def test_per_file_ignores_apply_to_files_named_on_the_command_line(tmp_path, monkeypatch):
    write(tmp_path / ".promptlint.yaml", BOTH + "per-file-ignores:\n  'legacy/*.txt': [PL102]\n")
    write(tmp_path / "legacy" / "a.txt", PROMPT)
    monkeypatch.chdir(tmp_path / "legacy")
    assert concise("a.txt") == [f"a.txt:{SYSTEM}"]


# ---- fixable / unfixable ----


@pytest.mark.parametrize("setting", ["unfixable: [retrieval-score]", "fixable: [PL2]", "fixable: [ALL]\nunfixable: [PL1]"])
def test_a_rule_that_is_not_fixable_is_reported_and_left_by_fix(tmp_path, monkeypatch, setting):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", BOTH + setting + "\n")
    prompt = write(tmp_path / "p.txt", PROMPT)
    before = run("check", "p.txt")
    assert before.stdout.endswith("Found 2 findings, 1 fixable with --fix (saves 6 tokens).\n")
    result = run("check", "--fix", "--output-format", "concise", "p.txt")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"p.txt:{SCORE}"]
    assert result.stderr == "Found 2 findings (1 fixed, 1 remaining).\n"
    assert prompt.read_text(encoding="utf-8") == PROMPT.replace(" (source: Confluence)", "")
    # Nothing left to fix: a second run changes nothing.
    assert run("check", "--fix", "p.txt").exit_code == 1
    assert prompt.read_text(encoding="utf-8") == PROMPT.replace(" (source: Confluence)", "")


# ---- include / exclude ----


def test_include_and_exclude_decide_what_a_folder_walk_takes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", BOTH + "include: ['*.txt', '*.tmpl']\nexclude: [drafts, 'legacy/*.txt', 'skip-*']\n")
    # A nested config governs its own folder, with globs relative to it.
    write(tmp_path / "prompts" / ".promptlint.yaml", BOTH + "exclude: ['old/**']\n")
    tree = [
        "a.txt",
        "b.tmpl",
        "c.md",  # not included here
        "drafts/d.txt",  # an excluded folder is not entered
        "docs/skip-me.txt",  # a glob without "/" matches a name at any depth
        "legacy/e.txt",
        "legacy/f.tmpl",
        "legacy/deeper/g.txt",  # 'legacy/*.txt' names files directly in legacy/
        "prompts/h.md",  # the default include again, in a prompt folder, under its own config
        "prompts/old/i.md",
        "prompts/old/deep/j.md",
    ]
    for name in tree:
        write(tmp_path / name, PROMPT)
    assert sorted(codes(".")) == [str(Path(p)) for p in ("a.txt", "b.tmpl", "legacy/deeper/g.txt", "legacy/f.tmpl", "prompts/h.md")]


def test_exclude_does_not_apply_to_a_file_named_on_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", BOTH + "exclude: [drafts]\n")
    write(tmp_path / "drafts" / "d.txt", PROMPT)
    assert codes(".") == {}
    assert codes("drafts/d.txt") == {str(Path("drafts/d.txt")): ["PL102", "PL202"]}


# ---- bad keys and values: one line naming the file, the key and what was expected; exit 2 ----

BAD_YAML = [
    ("selct: [PL102]\n", "unknown setting 'selct' (expected one of: select, extend-select, ignore, per-file-ignores, fixable, unfixable, include, exclude, rules, today, tokens, templates, file-types)"),
    ("select: 5\n", "'select' must be a list of rule codes, names or prefixes"),
    ("select: ['']\n", "'select' must be a list of rule codes, names or prefixes"),
    ("select: [PL999]\n", "'select': unknown rule selector 'PL999'"),
    ("extend-select: [no-such-rule]\n", "'extend-select': unknown rule selector 'no-such-rule'"),
    ("ignore: {PL102: true}\n", "'ignore' must be a list of rule codes, names or prefixes"),
    ("per-file-ignores: ['*.md']\n", "'per-file-ignores' must map globs to lists of rule codes, names or prefixes"),
    ("per-file-ignores: {'*.md': [PL999]}\n", "'per-file-ignores' for '*.md': unknown rule selector 'PL999'"),
    ("per-file-ignores: {'*.md': 3}\n", "'per-file-ignores' for '*.md' must be a list of rule codes, names or prefixes"),
    ("per-file-ignores: {1: [PL102]}\n", "'per-file-ignores': a glob must be a non-empty string, got 1"),
    ("fixable: [PL7]\n", "'fixable': unknown rule selector 'PL7'"),
    ("unfixable: true\n", "'unfixable' must be a list of rule codes, names or prefixes"),
    ("include: '*.txt'\n", "'include' must be a list of globs"),
    ("exclude: [drafts, 3]\n", "'exclude' must be a list of globs"),
    ("rules: [PL102]\n", "'rules' must map rule names to their options"),
    ("rules: {PL999: {}}\n", "rules: unknown rule 'PL999'"),
    ("rules: {retrieval-score: 3}\n", "rules.retrieval-score must be a mapping of options"),
    ("rules:\n  retrieval-score:\n    bogus: 1\n", "rules.retrieval-score: unknown option 'bogus' (options: none)"),
    ("rules: {retrieval-score: {extend-labls: [x]}}\n", "rules.retrieval-score.extend-labls: unknown word list (expected extend-labels, extend-announced, extend-asked-to-score)"),
    ("rules: {retrieval-score: {extend-labels: x}}\n", "rules.retrieval-score.extend-labels must be a list of strings"),
    ("rules: {context-budget: {budget: lots}}\n", "rules.context-budget.budget must be a number, got 'lots'"),
    ("rules: {context-budget: {budget: -1}}\n", "rules.context-budget.budget must not be negative"),
    ("today: soon\n", "'today' must be a date (YYYY-MM-DD), got 'soon'"),
    ("today: 2026-12-02 10:00:00\n", "'today' must be a date (YYYY-MM-DD), got '2026-12-02 10:00:00'"),
    ("today: 20\n", "'today' must be a date (YYYY-MM-DD), got '20'"),
    ("tokens: cl100k_base\n", "'tokens' must be a mapping (expected keys: encoding)"),
    ("tokens: {model: gpt-4}\n", "tokens: unknown setting 'model' (expected one of: encoding)"),
    ("tokens: {encoding: o200k_base}\n", "tokens.encoding: unsupported encoding 'o200k_base' (supported: cl100k_base)"),
    ("file-types: [jinja]\n", "'file-types' must map globs to file types (text, jinja, json, jsonl, prompty, python, javascript, yaml, notebook)"),
    ("file-types: {'*.md': handlebars}\n", "file-types.*.md: unknown file type 'handlebars' (expected one of: text, jinja, json, jsonl, prompty, python, javascript, yaml, notebook)"),
    ("templates: [hits]\n", "'templates' must be a mapping (expected keys: sources, content, question, prompts)"),
    ("templates: {loop: hits}\n", "templates: unknown setting 'loop' (expected one of: sources, content, question, prompts)"),
    ("templates: {question: 3}\n", "templates.question must be a list of variable names"),
    ("templates: {sources: ['']}\n", "templates.sources must be a list of variable names"),
    ("- select\n", "expected a mapping of settings at the top level"),
]


@pytest.mark.parametrize(("text", "error"), BAD_YAML, ids=[e.split(" ")[0] for _, e in BAD_YAML])
def test_bad_setting_is_one_line_naming_file_and_key(tmp_path, monkeypatch, text, error):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "bad.yaml", text)
    write(tmp_path / "p.txt", PROMPT)
    for command in ("check", "format", "config"):
        result = run(command, "--config", "bad.yaml", "p.txt")
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: bad.yaml: {error}\n")
    assert (tmp_path / "p.txt").read_text(encoding="utf-8") == PROMPT


def test_the_error_list_covers_every_key():
    covered = {text.split(":")[0] for text, _ in BAD_YAML}
    assert set(config_module.TOP_KEYS) <= covered


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("bad.yaml", "select: [PL102\n", "bad.yaml:2:1: invalid YAML: expected ',' or ']', but got '<stream end>'"),
        ("bad.yaml", "today: 2026-13-45\n", "bad.yaml: invalid YAML: month must be in 1..12"),
        ("bad.toml", "[tool.promptlint\n", "bad.toml: invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 17)"),
        ("bad.toml", '[tool.promptlint]\nselct = ["PL102"]\n', "bad.toml: unknown setting 'selct' (expected one of: select, extend-select, ignore, per-file-ignores, fixable, unfixable, include, exclude, rules, today, tokens, templates, file-types)"),
        ("bad.toml", "[tool.promptlint]\ntoday = 2026-12-02T10:00:00\n", "bad.toml: 'today' must be a date (YYYY-MM-DD), got '2026-12-02 10:00:00'"),
        ("bad.toml", "[tool]\npromptlint = 3\n", "bad.toml: [tool.promptlint] must be a table of settings"),
        ("bad.toml", '[tool.other]\nx = 1\n', "bad.toml: no [tool.promptlint] table"),
    ],
)
def test_unreadable_config_file_is_one_line(tmp_path, monkeypatch, name, text, error):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / name, text)
    write(tmp_path / "p.txt", PROMPT)
    result = run("check", "--config", name, "p.txt")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {error}\n")


def test_a_missing_config_file_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "p.txt", PROMPT)
    result = run("check", "--config", "nope.yaml", "p.txt")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "Error: nope.yaml: cannot read config: [Errno 2] No such file or directory: 'nope.yaml'\n"


def test_a_bad_discovered_config_stops_the_run_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", BOTH)
    first = write(tmp_path / "a" / "p.txt", PROMPT)
    write(tmp_path / "b" / "pyproject.toml", "[tool.promptlint]\nignore = [3]\n")
    write(tmp_path / "b" / "p.txt", PROMPT)
    result = run("check", "--fix", ".")
    where = tmp_path / "b" / "pyproject.toml"
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {where}: 'ignore' must be a list of rule codes, names or prefixes\n")
    assert first.read_text(encoding="utf-8") == PROMPT


# ---- promptlint config ----


def _shown_rules(**overrides: dict) -> dict:
    return {r.name: {**r.options, **overrides.get(r.name, {})} for r in registry.all_rules()}


def test_config_command_prints_the_resolved_settings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "pyproject.toml",
        "[tool.promptlint]\n"
        'select = ["PL1"]\n'
        'extend-select = ["chunk-ordinal"]\n'
        'ignore = ["PL105"]\n'
        'unfixable = ["PL106", "PL203"]\n'
        'exclude = ["drafts"]\n'
        "today = 2026-12-02\n"
        '"per-file-ignores" = { "legacy/*.txt" = ["retrieval-score", "PL103"] }\n'
        'templates = { sources = ["hits"], question = "user_query" }\n'
        "[tool.promptlint.rules]\n"
        "context-budget = { budget = 1200 }\n"
        'retrieval-score = { extend-labels = ["hit quality"] }\n',
    )
    every = [r.code for r in registry.all_rules()]
    fixable = [c for c in every if c not in ("PL106", "PL203")]
    selected = [c for c in every if c.startswith("PL1") and c != "PL105"] + ["PL203"]
    result = run("config")
    assert result.exit_code == 0
    head, rules = result.stdout.split("rules:\n")
    assert head.splitlines() == [
        f"source: {tmp_path / 'pyproject.toml'}",
        f"select: [{', '.join(selected)}]",
        "per-file-ignores:",
        "  legacy/*.txt: [PL102, PL103]",
        f"fixable: [{', '.join(fixable)}]",
        "unfixable: [PL106, PL203]",
        "include: " + yaml.safe_dump(list(files.DEFAULT_INCLUDE), default_flow_style=True, width=2**31).strip(),
        "exclude: [drafts]",
        "today: 2026-12-02",
        "tokens: {encoding: cl100k_base}",
        "file-types: {}",
        "templates:",
        "  sources: [hits]",
        "  content: []",
        "  question: [user_query]",
        "  prompts: []",
    ]
    assert "  context-budget: {budget: 1200}\n" in rules
    assert yaml.safe_load(result.stdout)["rules"] == _shown_rules(**{"context-budget": {"budget": 1200}, "retrieval-score": {"extend-labels": ["hit quality"]}, "rewritten-question": {"original-question": "user_query"}})


def test_config_command_for_a_file_shows_what_runs_on_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".promptlint.yaml", BOTH + "per-file-ignores: {'legacy/*.txt': [PL102]}\n")
    write(tmp_path / "legacy" / "a.txt", PROMPT)
    shown = yaml.safe_load(run("config", "legacy/a.txt").stdout)
    assert (shown["source"], shown["select"]) == (str(tmp_path / ".promptlint.yaml"), ["PL202"])
    shown = yaml.safe_load(run("config", "legacy").stdout)
    assert shown["select"] == ["PL102", "PL202"]


def test_config_command_without_a_config_shows_the_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shown = yaml.safe_load(run("config", "--config", write(tmp_path / "c.yaml", "today: 2026-12-02\n").name).stdout)
    assert shown["source"] == "c.yaml"
    result = run("config", ".")
    assert result.exit_code == 0
    shown = yaml.safe_load(result.stdout)
    assert shown["source"] == "defaults"
    assert shown["select"] == [r.code for r in registry.all_rules() if r.default]
    assert shown["per-file-ignores"] == {}
    assert shown["unfixable"] == []
    assert shown["rules"] == _shown_rules()


def test_file_types_pick_how_a_file_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    template = 'Answer from the sources.\n{% for doc in documents|sort(attribute="updated_at") %}\n[{{ loop.index }}] {{ doc.title }}\n{{ doc.content }}\n{% endfor %}\nQuestion: {{ question }}\n'
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "qa.md").write_text(template, encoding="utf-8")
    (tmp_path / "prompts" / "qa.tmpl").write_text(template, encoding="utf-8")
    runner = CliRunner()
    # As Markdown text, the loop is not read: nothing is found; a .tmpl file is not walked.
    assert runner.invoke(main, ["check", "--output-format", "concise", "prompts"]).stdout == ""
    (tmp_path / ".promptlint.yaml").write_text("today: 2026-12-02\nfile-types:\n  'prompts/*.md': jinja\n  '*.tmpl': jinja\n", encoding="utf-8")
    result = runner.invoke(main, ["check", "--output-format", "concise", "--no-fold", "prompts"])
    message = "PL302 [chronological-order] The sources are sorted by date; chronological order ignores relevance (0.87 vs 0.91 for rank order)"
    assert result.stdout.splitlines() == [f"{Path('prompts/qa.md')}:2:15: {message}", f"{Path('prompts/qa.tmpl')}:2:15: {message}"]
    # The Python API reads a text by the same config.
    config = load(None)
    assert [f.code for f in lint_text(template, path="prompts/qa.md", config=config)] == ["PL302"]
    assert [f.code for f in lint_text(template, path="notes/qa.md", config=config)] == []
