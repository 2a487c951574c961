"""The command line: the only module that prints, writes prompt files, and chooses exit codes.

Files are read here, or in worker processes through engine/parallel.py (check) and audit/run.py.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
import sys
from collections import Counter
from pathlib import Path

import click

from .. import DISTRIBUTION
from ..engine import baseline, files, parallel, registry
from ..engine.cache import Cache
from ..engine.cache import FOLDER as CACHE_FOLDER
from ..engine.config import Config, ConfigError, Resolver
from ..model.findings import Applicability, Finding
from ..output import report
from ..readers import document as documents
from ..readers import formats

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _selectors(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


class Failure(click.ClickException):
    """A one-line error; exit 2 like every failure to run (1 means findings)."""

    exit_code = EXIT_ERROR


def _resolver(config_path: str | None, select: str | None, ignore: str | None) -> Resolver:
    for option, value in (("--select", select), ("--ignore", ignore)):
        unknown = next((s for s in _selectors(value) if not registry.by_selector(s)), None)
        if unknown is not None:
            raise Failure(f"{option}: unknown rule selector '{unknown}' (see 'promptlint rules')")
    return Resolver(Path(config_path) if config_path else None, select=_selectors(select), ignore=_selectors(ignore))


def _targets(paths: tuple[Path, ...], config_path: str | None, select: str | None, ignore: str | None, gitignore: bool = True) -> tuple[list[tuple[Path, Config]], int]:
    """Each file to work on, with the config of its folder; and how many folders could not be read.

    Every config is read before any file is touched, so a bad one stops the run
    with nothing written. A folder that cannot be read is one line, and the
    files found elsewhere are still linted.
    """
    unreadable: list[OSError] = []
    paths = list(paths) or [Path(".")]
    try:
        configs = _resolver(config_path, select, ignore)
        targets = [(path, configs.for_folder(path.parent)) for path in files.expand(paths, configs.wants, unreadable.append, gitignore)]
    except ConfigError as exc:
        raise Failure(str(exc)) from None
    for exc in unreadable:
        click.echo(f"error: {exc.filename}: cannot read: {exc.strerror or exc}", err=True)
    if not targets and not unreadable:
        # As ruff does: a walk that finds nothing to check says so, and is no error.
        click.echo(f"warning: {_nothing_to_check(paths, configs)}", err=True)
    return targets, len(unreadable)


def _nothing_to_check(folders: list[Path], configs: Resolver) -> str:
    """Why a walk of ``folders`` took no file: what a walk takes, and how to take more."""
    under = ", ".join(folder.as_posix().rstrip("/") + "/" for folder in folders)
    include = configs.for_folder(folders[0]).include
    if include != files.DEFAULT_INCLUDE:
        return f"No prompt files found under {under} (no file matches the config's include: {', '.join(include) or 'none'})"
    suffixes = [glob.removeprefix("*") for glob in formats.IN_PROMPT_FOLDERS]
    listed = ", ".join(suffixes[:-1]) + " and " + suffixes[-1]
    folders_named = ", ".join(f"{name}/" for name in formats.PROMPT_FOLDERS[:-1]) + f" or {formats.PROMPT_FOLDERS[-1]}/"
    return f"No prompt files found under {under} (a folder walk takes {listed} only under {folders_named}; name the files or set include)"


def _failures(unreadable: int, unwritten: int = 0) -> list[str]:
    """The summary's account of what could not be done ("1 file could not be read")."""
    counts = ((unreadable, "read"), (unwritten, "written"))
    return [f"{report.plural(n, 'file')} could not be {verb}" for n, verb in counts if n]


def _diff(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"))


def _read(path: Path, config: Config) -> documents.Document | None:
    try:
        return documents.read(path, suffix=config.suffix_for(path), lexicon=config.lexicon)
    except documents.UnreadableFile as exc:
        click.echo(f"error: {exc}", err=True)
        return None


def _changed_on_disk(path: Path, doc: documents.Document) -> bool:
    """Whether the file is no longer the text that was read; if so, say so in one line.

    Another program wrote (or deleted) it meanwhile, and writing the fixed text
    would lose that change.
    """
    try:
        changed = path.read_bytes() != doc.original.encode("utf-8")
    except OSError:
        changed = True
    if changed:
        click.echo(f"warning: {doc.path}: changed on disk since it was read; left as it is", err=True)
    return changed


def _write(path: Path, display: str, text: str) -> bool:
    """Write a fixed file; on failure say why in one line (not a traceback) and return False."""
    try:
        files.write_atomic(path, text)
    except OSError as exc:
        click.echo(f"error: {display}: cannot write: {exc.strerror or exc}", err=True)
        return False
    return True


def _load_baseline(path: str) -> Counter[baseline.Key]:
    try:
        return baseline.loads(Path(path).read_text(encoding="utf-8"), path)
    except OSError as exc:
        raise Failure(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise Failure(f"{path}: not valid UTF-8 (byte offset {exc.start})") from None
    except baseline.BaselineError as exc:
        raise Failure(str(exc)) from None


def _write_baseline(path: str, text: str) -> None:
    try:
        files.write_atomic(Path(path), text)
    except OSError as exc:
        raise Failure(f"{path}: cannot write: {exc.strerror or exc}") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=DISTRIBUTION)
def main() -> None:
    """promptlint: find and fix the context anti-patterns that cost RAG answers their correctness."""


config_option = click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Config file for every file (default: the nearest config above each file).")
select_option = click.option("--select", help="Comma-separated rule codes, names or prefixes to run (replaces the default set).")
ignore_option = click.option("--ignore", help="Comma-separated rule codes, names or prefixes to skip.")
gitignore_option = click.option("--respect-gitignore/--no-respect-gitignore", default=True, show_default=True, help="In a folder walk, skip the files .gitignore files name.")
jobs_option = click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores; 1: work in this process).")


STDIN = "-"  # the path that stands for standard input, as in ruff


@dataclasses.dataclass
class _Tally:
    """What a check run found and did, file by file. The report is written as the files
    come, so no file's text and no finding is kept to the end: only their counts."""

    found: report.Tally
    writer: report.Writer | None  # None when the report is not written file by file (--diff, --statistics, a baseline)
    to_stderr: bool  # standard output holds the fixed text, so the report goes to standard error
    known: Counter | None = None  # the baseline's entries not yet matched
    entries: list | None = None  # with --write-baseline: the keys of every finding
    changed: int = 0  # files fixing changed (with --diff: would change)
    fixed: int = 0  # findings fixing removed (with --diff: would remove)
    unreadable: int = 0  # files and folders that could not be read
    unwritten: int = 0  # fixed files that could not be written
    fixed_stdin: str | None = None  # with --fix on standard input: the text to print instead of writing it
    prompted: int = 0  # files read that hold a prompt (or something broken)
    promptless: int = 0  # files read that hold none: nothing in them was checked
    unnamed_promptless: int = 0  # of those, the files a walk found: skipped with no notice
    folds: report.Folds | None = None  # the causes met so far; None with --no-fold
    folding: bool = False  # the report shows a cause once, and the summary counts causes


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply unsafe fixes (with --fix or --diff).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--output-format", type=click.Choice(report.FORMATS), default="full", show_default=True)
@click.option("--statistics", is_flag=True, help="Print how many findings and tokens each rule has, instead of the findings.")
@click.option("--show-fixes", is_flag=True, help="After the findings, list the fixes they offer and what applies each.")
@click.option("--no-fold", is_flag=True, help="Show a finding met again in other files (a copied template) in each file, not once.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the findings: no summary line.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (still 2 on an error).")
@click.option("--stdin-filename", metavar="NAME", help="Lint standard input (the path '-') as the file NAME; with --fix, print the fixed text.")
@click.option("--show-files", is_flag=True, help="List the files the run would check, one per line, and check nothing.")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False), help="Report only the findings that are not in this baseline file.")
@click.option("--write-baseline", type=click.Path(dir_okay=False), help="Record the current findings in this baseline file; exit 0.")
@gitignore_option
@jobs_option
@click.option("--no-cache", is_flag=True, help=f"Check every file, without reading or writing results in {CACHE_FOLDER}/.")
@config_option
@select_option
@ignore_option
def check(paths, fix, unsafe_fixes, show_diff, output_format, statistics, show_fixes, no_fold, quiet, exit_zero, stdin_filename, show_files, baseline_path, write_baseline, respect_gitignore, jobs, no_cache, config_path, select, ignore):
    """Lint prompt files (or folders of them); '-' is standard input."""
    stdin_name = _stdin_name(paths, stdin_filename)
    if show_files:
        _show_files(paths, stdin_name, (baseline_path, write_baseline), respect_gitignore, config_path, select, ignore)
    if (statistics or show_fixes) and output_format not in report.TEXT_FORMATS:
        raise Failure("--statistics and --show-fixes print text: use them with --output-format full or concise")
    to_stderr = bool(stdin_name and fix and not show_diff)
    # The report is written file by file, unless the run prints something else in its place.
    printed = not (show_diff or write_baseline or statistics)
    tally = _new_tally(output_format if printed else None, to_stderr, show_fixes, not no_fold, statistics, baseline_path, write_baseline)
    threshold = _fix_threshold(fix, show_diff, unsafe_fixes)
    for path, config, named, result in _collect(paths, stdin_name, (baseline_path, write_baseline), threshold, respect_gitignore, jobs, no_cache, tally, config_path, select, ignore):
        _take(tally, path, config, named, result, fix, show_diff, stdin_name)
    failures = _failures(tally.unreadable, tally.unwritten)
    if show_diff:
        if not quiet:
            _echo_summary(_would_fix(tally.fixed, failures) if tally.prompted else _nothing_checked(tally.promptless, failures), err=True)
        sys.exit(_exit_code(failures, tally.changed, exit_zero))
    if tally.fixed_stdin is not None:
        click.echo(tally.fixed_stdin, nl=False)
    if write_baseline:
        _end_baseline(write_baseline, tally.entries, quiet)
        sys.exit(_exit_code(failures, 0, exit_zero))
    _end_report(tally, failures, output_format, statistics, show_fixes, quiet, fix)
    sys.exit(_exit_code(failures, tally.found.findings, exit_zero))


def _new_tally(output_format: str | None, to_stderr: bool, show_fixes: bool, fold: bool, statistics: bool, baseline_path: str | None, write_baseline: str | None) -> _Tally:
    """What a check run counts, with the writer of its report (none without ``output_format``)."""
    folds = report.Folds() if fold else None
    writer = _writer(output_format, to_stderr, folds) if output_format else None
    known = _load_baseline(baseline_path) if baseline_path else None
    tally = _Tally(report.Tally(listing=show_fixes), writer, to_stderr, known, [] if write_baseline else None, folds=folds)
    # --statistics prints text in place of a full or concise report, which fold.
    tally.folding = fold and (statistics or writer is not None and writer.FOLDS)
    return tally


def _writer(output_format: str, to_stderr: bool, folds: report.Folds | None) -> report.Writer:
    """The report's writer, in colour only when it is read on a terminal."""
    # NO_COLOR (no-color.org) turns colour off, and so does output that is not a terminal:
    # asked now, with click's own test, rather than colouring a large report for click.echo
    # to strip again (a tenth of a corpus run's time).
    stream = sys.stderr if to_stderr else sys.stdout
    color = output_format in report.TEXT_FORMATS and not os.environ.get("NO_COLOR") and not click.utils.should_strip_ansi(stream)
    return report.WRITERS[output_format](color, folds)


def _fix_threshold(fix: bool, show_diff: bool, unsafe_fixes: bool) -> Applicability | None:
    """The least safe fix to apply; None when the run applies none."""
    if not (fix or show_diff):
        return None
    return Applicability.UNSAFE if unsafe_fixes else Applicability.SAFE


def _end_baseline(path: str, entries: list, quiet: bool) -> None:
    _write_baseline(path, baseline.dumps(entries))
    if not quiet:
        click.echo(f"Wrote {len(entries)} finding(s) to {path}", err=True)


def _end_report(tally: _Tally, failures: list[str], output_format: str, statistics: bool, show_fixes: bool, quiet: bool, fix: bool) -> None:
    """The end of the report (or the statistics in its place), the fixes listed, and the summary line."""
    if statistics:
        click.echo(report.statistics(tally.found), nl=False, err=tally.to_stderr)
    else:
        click.echo(tally.writer.end(), nl=False, err=tally.to_stderr)
    if show_fixes:
        click.echo(report.fixes(tally.found), nl=False, err=tally.to_stderr)
    # The summary is for people: after the full report, on stderr beside lines a tool
    # reads, and never inside a JSON or XML document.
    if not quiet and output_format in ("full", "concise", "github"):
        # "All checks passed!" only when something was checked.
        line = report.summary(tally.found, tally.fixed if fix else None, failures) if tally.prompted else _nothing_checked(tally.promptless, failures)
        _echo_summary(_coverage(tally) + line, err=tally.to_stderr or output_format != "full")


def _coverage(tally: _Tally) -> str:
    """What was read, when a walk skipped files that held no prompt without a notice, so that
    "clean" is told from "not looked at"."""
    if not (tally.prompted and tally.unnamed_promptless):
        return ""
    read = tally.prompted + tally.promptless
    return f"Checked {report.plural(read, 'file')}: {tally.prompted} held a prompt, {tally.promptless} held none.\n"


def _nothing_checked(promptless: int, failures: list[str]) -> str:
    """The summary of a run that checked no prompt: the files that held none, and what failed;
    empty when no file was found at all (the walk's warning has said so)."""
    parts = [f"No prompt found in {report.plural(promptless, 'file')}; nothing was checked"] if promptless else []
    return "; ".join(parts + failures) + "." if parts or failures else ""


def _echo_summary(line: str, err: bool) -> None:
    if line:
        click.echo(line, err=err)


def _exit_code(failures: list[str], found: int, exit_zero: bool) -> int:
    """2 when something could not be read or written; else 1 when something was ``found`` (a
    finding, or with --diff a file to fix), unless --exit-zero; else 0."""
    if failures:
        return EXIT_ERROR
    return EXIT_FINDINGS if found and not exit_zero else EXIT_CLEAN


def _stdin_name(paths: tuple[Path, ...], stdin_filename: str | None) -> str | None:
    """The name standard input is reported under, when it is what is checked; else None.

    `-` alone is standard input, named by --stdin-filename or `-`; --stdin-filename
    without a path means `-` too.
    """
    if any(str(path) == STDIN for path in paths) and len(paths) > 1:
        raise Failure("'-' (standard input) cannot be checked with other paths")
    if stdin_filename and paths and str(paths[0]) != STDIN:
        raise Failure("--stdin-filename lints standard input: give no path, or '-'")
    if stdin_filename or paths:
        return stdin_filename or (STDIN if str(paths[0]) == STDIN else None)
    return None


def _check_targets(paths, baselines, respect_gitignore, config_path, select, ignore) -> tuple[list[tuple[Path, Config]], int]:
    """What `check` works on: the files of ``paths`` with their configs, less the baseline files; and the folders not read."""
    targets, unreadable = _targets(paths, config_path, select, ignore, respect_gitignore)
    # A baseline is JSON, which a folder walk would otherwise lint as a chat file.
    skipped = {Path(p).resolve() for p in baselines if p}
    if not skipped:
        return targets, unreadable  # no baseline to leave out: resolving every path (a system call a folder of it) is for nothing
    return [(path, config) for path, config in targets if path.resolve() not in skipped], unreadable


def _show_files(paths, stdin_name, baselines, respect_gitignore, config_path, select, ignore) -> None:
    """List the files `check` would take, one per line, as ruff's --show-files does; and exit."""
    targets, unreadable = _check_targets((Path(stdin_name),) if stdin_name else paths, baselines, respect_gitignore, config_path, select, ignore)
    for path, _ in targets:
        click.echo(path.as_posix())
    sys.exit(_exit_code(_failures(unreadable), 0, exit_zero=False))


def _collect(paths, stdin_name, baselines, threshold, respect_gitignore, jobs, no_cache, tally, config_path, select, ignore):
    """Each file to check, with its config, whether the command line named it, and its result."""
    named_paths = (Path(stdin_name),) if stdin_name else paths
    targets, tally.unreadable = _check_targets(named_paths, baselines, respect_gitignore, config_path, select, ignore)
    if stdin_name:
        data = sys.stdin.buffer.read()
        results = [parallel.check_bytes(data, stdin_name, config, threshold) for _, config in targets]
    else:
        cache = None if no_cache else Cache(Path(CACHE_FOLDER))
        results = parallel.check_files(targets, threshold, cache, jobs or parallel.default_jobs())
    named = set(named_paths)
    for (path, config), result in zip(targets, results):
        yield path, config, path in named, result


def _take(tally: _Tally, path: Path, config: Config, named: bool, result: parallel.Checked, fix: bool, show_diff: bool, stdin_name: str | None) -> None:
    """Count one file's result; with --fix, write the fixed file (or keep standard input's text to print)."""
    doc = result.doc
    if doc is None:
        click.echo(f"error: {result.unreadable}", err=True)
        tally.unreadable += 1
        return
    _notices(path, config, named, result)
    if result.no_prompt:
        tally.promptless += 1
        tally.unnamed_promptless += not named
    else:
        tally.prompted += 1
    if result.fixed is not None and not show_diff and not stdin_name:
        result = _write_fixed(tally, path, config, result)
    if result.fixed is not None:
        if show_diff:
            click.echo(_diff(doc.path, doc.original, result.fixed), nl=False)
        tally.changed += 1
        tally.fixed += result.fixed_findings
    if stdin_name and fix and not show_diff:
        tally.fixed_stdin = doc.original if result.fixed is None else result.fixed
    # Findings are placed in the text the rules read (no BOM, LF newlines), so show that one.
    text = doc.as_read(result.fixed) if (result.fixed is not None and not show_diff) else doc.raw
    _report_file(tally, doc.path, text, result.findings)


def _notices(path: Path, config: Config, named: bool, result: parallel.Checked) -> None:
    """What the user is told of a file that was read: a warning, no prompt in it, what no reader reads."""
    if result.error:
        click.echo(f"warning: {result.error}", err=True)
    # A file the reader could not read at all says why instead (see Document.unread).
    if result.no_prompt and not result.doc.unread and named:
        # A walk takes files to look for prompts in them; many hold none, and the summary counts them.
        click.echo(f"notice: {result.doc.path}: no prompt found, skipped", err=True)
    for note in result.doc.unread:
        click.echo(f"notice: {result.doc.path}: {note}", err=True)


def _write_fixed(tally: _Tally, path: Path, config: Config, result: parallel.Checked) -> parallel.Checked:
    """Write a fixed file. The result to report is the fixed one, or, when the file could not
    be written (or changed since it was read), the file as read, checked again."""
    doc = result.doc
    unwritten = _changed_on_disk(path, doc)
    if not unwritten and not _write(path, doc.path, result.fixed):
        tally.unwritten += 1
        unwritten = True
    if unwritten:
        # The file was not fixed, so report the findings in the text that was read.
        return parallel.check_bytes(doc.original.encode("utf-8"), doc.path, config, None)
    return result


def _report_file(tally: _Tally, path: str, text: str, findings: list[Finding]) -> None:
    """Count a file's findings (recorded for --write-baseline, or less those a baseline knows)
    and write its part of the report."""
    if tally.entries is not None:
        tally.entries.extend(baseline.keys(findings, text))
    elif tally.known is not None:
        findings = baseline.new_findings(findings, text, tally.known)
    # After the baseline: a finding it knows is no first place for a copy in another file.
    firsts = tally.folds.mark(findings) if tally.folds is not None and tally.entries is None else None
    if tally.writer is not None:
        part = tally.writer.file(path, text, findings, firsts)
        if part:
            # click strips ANSI codes from what goes to a pipe or a file, by a regular expression over the
            # whole part (the 139 MB of the bench corpus's report): a part with no escape character has none.
            click.echo(part, nl=False, err=tally.to_stderr, color=None if "\x1b" in part else True)
    tally.found.add(findings, firsts if tally.folding else None)


def _would_fix(count: int, failures: list[str]) -> str:
    head = f"Would fix {report.plural(count, 'finding')}" if count else "No fixes available"
    return "; ".join([head, *failures]) + "."


@main.command()
@click.argument("logs", nargs=-1, required=True)  # paths, or URLs (s3://...) that a Path would mangle
@click.option("--field", "field_path", metavar="A.B.C", help="Dotted path to the prompt in each record (its first key: the Parquet column): messages, a chat request, or a prompt string (default: the record).")
@click.option("--format", "report_format", type=click.Choice(("table", "json", "html")), default="table", show_default=True)
@click.option("--output", "-o", "output_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to this file instead of standard output.")
@click.option("--examples", type=click.IntRange(min=0), default=5, show_default=True, help="Worst examples shown per rule.")
@click.option("--engine", type=click.Choice(("local", "dask")), default="local", show_default=True, help="local: worker processes on this machine; dask: a Dask cluster, a split of a log per task.")
@click.option("--scheduler", metavar="ADDRESS", help="With --engine dask: join the running cluster at this address (default: start a local cluster of --jobs workers).")
@jobs_option
@config_option
@select_option
@ignore_option
def audit(logs, field_path, report_format, output_path, examples, engine, scheduler, jobs, config_path, select, ignore):
    """Report what each rule costs across logs of requests: JSONL (.gz, .zst), Parquet, folders or globs of them."""
    from ..audit import run as auditing  # the command's own machinery, loaded by it alone
    from ..audit.cluster import ClusterError
    from ..audit.logs import MissingExtra, partitions, shown, size_of
    from ..output import auditreport

    if scheduler and engine != "dask":
        raise click.UsageError("--scheduler needs --engine dask")
    try:
        config = _resolver(config_path, select, ignore).for_folder(Path.cwd())
    except ConfigError as exc:
        raise Failure(str(exc)) from None
    try:
        logs = partitions(list(logs))
        # A progress bar for a person at a terminal; nothing in a pipe or a CI log.
        bar = click.progressbar(length=sum(map(size_of, logs)), label="Auditing", file=sys.stderr) if sys.stderr.isatty() else None
        with bar or contextlib.nullcontext():
            tally = auditing.audit(
                logs, config, field_path=field_path, jobs=jobs or parallel.default_jobs(), examples=examples, engine=engine, scheduler=scheduler, progress=bar.update if bar else None
            )
    except OSError as exc:
        raise Failure(f"{exc.filename}: cannot read: {exc.strerror or exc}") from None
    except (MissingExtra, ClusterError) as exc:
        raise Failure(str(exc)) from None
    names = [shown(log) for log in logs]
    shown = auditreport.RENDERERS[report_format](auditreport.as_data(tally, names))
    if output_path is None:
        click.echo(shown, nl=False)
    else:
        try:
            files.write_atomic(output_path, shown)
        except OSError as exc:
            raise Failure(f"{output_path}: cannot write: {exc.strerror or exc}") from None
        click.echo(f"Wrote {output_path}", err=True)
    # The report holds what was read; what could not be is said here, and fails the run.
    problems = auditreport.problems(tally, names, field_path)
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    if problems:
        sys.exit(EXIT_ERROR)


@main.command("format")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", "check_only", is_flag=True, help="Exit 1 if any file would be reformatted; write nothing.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@click.option("--unsafe-fixes", "unsafe", is_flag=True, help="Also apply the fixes check classes as unsafe (group and renumber the sources, ...).")
@click.option("--stdin-filename", metavar="NAME", help="Format standard input (the path '-') as the file NAME, and print the formatted text.")
@gitignore_option
@config_option
def format_command(paths, check_only, show_diff, unsafe, stdin_filename, respect_gitignore, config_path):
    """Rewrite the sources block of each prompt with the canonical renderer; '-' is standard input."""
    from ..engine.formatting import format_document  # the renderer is loaded only by this command

    stdin_name = _stdin_name(paths, stdin_filename)
    targets, unreadable = _targets((Path(stdin_name),) if stdin_name else paths, config_path, None, None, respect_gitignore)
    preview = check_only or show_diff  # nothing is written
    counts = Counter(unreadable=unreadable)
    for path, config in targets:
        doc = _stdin_document(stdin_name, config) if stdin_name else _read(path, config)
        if doc is None:
            counts["unreadable"] += 1
            continue
        counts["prompted" if doc.holds_prompt else "promptless"] += 1
        result = format_document(doc, config, unsafe)
        for reason in (*result.kept, *result.notes):
            click.echo(f"{doc.path}: {reason}", err=True)
        _formatted(path, doc, result.text, counts, check_only, show_diff, stdin_name)
    failures = _failures(counts["unreadable"], counts["unwritten"])
    if counts["prompted"]:
        line = _format_summary(counts["changed"], counts["reformatted"], counts["kept"], failures, preview)
    else:
        line = _nothing_checked(counts["promptless"], failures)
    # Beside the Would reformat lines; never inside a diff or the formatted text.
    _echo_summary(line, err=not check_only or bool(stdin_name))
    sys.exit(_exit_code(failures, counts["changed"] if preview else 0, exit_zero=False))


def _stdin_document(name: str, config: Config) -> documents.Document | None:
    """Standard input's document, read as the file ``name``; None (said why) when it is not text."""
    try:
        return documents.parse(sys.stdin.buffer.read(), name, config.suffix_for(name), config.lexicon)
    except documents.UnreadableFile as exc:
        click.echo(f"error: {exc}", err=True)
        return None


def _formatted(path: Path, doc: documents.Document, new: str | None, counts: Counter, check_only: bool, show_diff: bool, stdin_name: str | None) -> None:
    """Show, print or write one file's formatted text (None: it is already formatted), and count it."""
    if new is None:
        counts["kept"] += doc.holds_prompt
        if stdin_name and not (check_only or show_diff):
            click.echo(doc.original, nl=False)
        return
    counts["changed"] += 1
    if show_diff:
        click.echo(_diff(doc.path, doc.original, new), nl=False)
    elif check_only:
        click.echo(f"Would reformat: {doc.path}")
    elif stdin_name:
        # Standard input is never written back: its formatted text is the output.
        click.echo(new, nl=False)
        counts["reformatted"] += 1
    elif _changed_on_disk(path, doc):
        return
    elif _write(path, doc.path, new):
        click.echo(f"Reformatted: {doc.path}", err=True)
        counts["reformatted"] += 1
    else:
        counts["unwritten"] += 1


def _format_summary(changed: int, reformatted: int, kept: int, failures: list[str], preview: bool) -> str:
    """The closing line of `format`: how many files were (or would be) reformatted or left, and what failed."""
    done, kept_as = ("would be reformatted", "already formatted") if preview else ("reformatted", "left unchanged")
    counts = [f"{report.plural(changed if preview else reformatted, 'file')} {done}"] if changed else []
    counts += [f"{report.plural(kept, 'file')} {kept_as}"] if kept or not (changed or failures) else []
    return "; ".join(([", ".join(counts)] if counts else []) + failures) + "."


@main.command()
@click.option("--debounce", type=click.FloatRange(min=0), default=0.3, show_default=True, metavar="SECONDS", help="Lint an edited document once typing has paused this long.")
def server(debounce):
    """Speak the Language Server Protocol on standard input and output, for editors."""
    try:
        from .server import serve  # pygls, an optional extra, is loaded by this command alone
    except ModuleNotFoundError as exc:
        if exc.name not in ("pygls", "lsprotocol") and not (exc.name or "").startswith(("pygls.", "lsprotocol.")):
            raise
        raise Failure(f"promptlint server needs pygls: pip install '{DISTRIBUTION}[server]'") from None
    # The protocol's exit code: 1 when the client said exit without asking to shut down first.
    sys.exit(0 if serve(debounce) else 1)


@main.command()
@click.argument("selector")
def rule(selector):
    """Show the documentation of one rule (by code or name)."""
    found = registry.get(selector)
    if found is None:
        raise Failure(f"unknown rule '{selector}' (see 'promptlint rules')")
    click.echo(f"# {found.name} ({found.code})\n")
    click.echo(f"Fix: {found.fix}. Severity: {found.severity.name.lower()}. {found.default_sentence}\n")
    click.echo(found.doc)


@main.command()
def rules():
    """List every rule."""
    for r in registry.all_rules():
        flag = " (off by default)" if not r.default else f" (silent until {r.needs} is set)" if r.needs else ""
        click.echo(f"{r.code}  {r.name:<28} {r.fix:<12} {r.summary}{flag}")


@main.command("config")
@click.argument("path", default=Path("."), type=click.Path(exists=True, path_type=Path))
@config_option
@select_option
@ignore_option
def config_command(path, config_path, select, ignore):
    """Show the settings for PATH (a file or folder; default: here) as YAML, and the file they come from."""
    try:
        configs = _resolver(config_path, select, ignore)
        # For a file, what runs on it: its folder's config less its per-file-ignores.
        config = configs.for_folder(path) if path.is_dir() else configs.for_folder(path.parent).for_file(path)
    except ConfigError as exc:
        raise Failure(str(exc)) from None
    click.echo(config.as_yaml(), nl=False)


@main.command("docs")
@click.option("--check", "check_only", is_flag=True, help="Exit 1 if a generated file is stale; write nothing.")
def docs_command(check_only):
    """Generate the rule pages (docs/rules/) and the README's rule table from the rules (run in the checkout's root)."""
    # A maintainers' command: the other commands do not load the generator.
    from . import docs

    readme = Path("README.md")
    try:
        readme_text = readme.read_text(encoding="utf-8")
    except OSError as exc:
        raise Failure(f"{readme}: cannot read: {exc.strerror or exc}") from None
    try:
        wanted = {Path(path): text for path, text in docs.pages().items()} | {readme: docs.with_rules_table(readme_text)}
    except ValueError as exc:
        raise Failure(f"{readme}: {exc}") from None
    stale = [path for path, text in wanted.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]
    # A page of a rule that is gone (renamed, removed) would stay on the site.
    orphans = sorted(set(Path(docs.RULES_DIR).glob("*.md")) - set(wanted))
    for path in stale + orphans:
        if check_only:
            click.echo(f"Stale: {path} (run 'promptlint docs')")
        elif path in orphans:
            path.unlink()
            click.echo(f"Removed: {path}", err=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            files.write_atomic(path, wanted[path])
            click.echo(f"Wrote: {path}", err=True)
    stale += orphans
    sys.exit(EXIT_FINDINGS if check_only and stale else EXIT_CLEAN)
