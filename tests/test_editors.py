"""The editors: the VS Code extension built and packaged, and Neovim driving `promptlint server`.

Each needs a tool the machine may not have (npm and the npm registry; Neovim): the
test skips and says which. `.ci/run` installs Debian's Neovim where apt works.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

EXTENSION = ROOT / "editors" / "vscode"
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent  # promptlint, with the server extra (a test extra)
PROMPT_TYPES = [".prompt", ".j2", ".jinja", ".prompty", ".hbs", ".mustache", ".prompt.yml"]


def _fence_after(marker: str) -> str:
    return README.split(marker, 1)[1].split("```", 1)[1].split("\n", 1)[1].split("```", 1)[0]


def _example() -> tuple[str, str]:
    """The README's example prompt, and the same with its scores removed (what the fix leaves)."""
    prompt = _fence_after("<!-- example: prompt.txt -->")
    fixed = re.sub(r" \(score: 0\.\d+\)", "", prompt)
    assert fixed.count("score") == 0 and prompt.count("(score: ") == 2
    return prompt, fixed


def _manifest() -> dict:
    return json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))


def test_extension_activates_on_the_prompt_file_types_and_has_its_settings():
    manifest = _manifest()
    assert manifest["main"] == "./out/extension.js"
    assert set(manifest["dependencies"]) == {"vscode-languageclient"}
    assert set(manifest["contributes"]["configuration"]["properties"]) == {"promptlint.path", "promptlint.interpreter", "promptlint.args", "promptlint.globs"}
    # Each file type is a contributed language (so opening one activates the extension) and is in the server's patterns.
    claimed = [p for lang in manifest["contributes"]["languages"] for p in lang.get("extensions", []) + [n.lstrip("*") for n in lang.get("filenamePatterns", [])]]
    assert [t for t in PROMPT_TYPES if t not in claimed] == []
    source = (EXTENSION / "src" / "server.ts").read_text(encoding="utf-8")
    assert [t for t in PROMPT_TYPES if f'"**/*{t}"' not in source] == []
    assert not (EXTENSION / "node_modules").exists() or "node_modules/" in (EXTENSION / ".gitignore").read_text(encoding="utf-8")


NPM = shutil.which("npm")
# What npm says when it has no network: the build cannot run here, which is not the extension's fault.
OFFLINE = re.compile(r"\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The extension copied out of the checkout (node_modules never lands in it), installed from its lock file, compiled and packaged."""
    if NPM is None:
        pytest.skip("npm is not installed: the VS Code extension cannot be built here")
    work = tmp_path_factory.mktemp("vscode") / "vscode"
    shutil.copytree(EXTENSION, work, ignore=shutil.ignore_patterns("node_modules", "out", "*.vsix"))
    for step in (
        [NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        [NPM, "run", "--silent", "compile"],
        [NPM, "exec", "--", "vsce", "package", "--allow-missing-repository", "--skip-license", "--out", "promptlint.vsix"],
    ):
        result = subprocess.run(step, cwd=work, capture_output=True, text=True, timeout=600)
        if result.returncode and OFFLINE.search(result.stderr):
            pytest.skip(f"the npm registry cannot be reached: {OFFLINE.search(result.stderr).group()}")
        assert result.returncode == 0, f"{' '.join(step[1:3])}: {result.stdout}{result.stderr}"
    return work


def test_extension_packages_to_a_vsix(built):
    with zipfile.ZipFile(built / "promptlint.vsix") as vsix:
        names = set(vsix.namelist())
        packaged = json.loads(vsix.read("extension/package.json"))
    assert {"extension/out/extension.js", "extension/out/server.js", "extension/readme.md", "extension.vsixmanifest"} <= names
    assert "extension/node_modules/vscode-languageclient/package.json" in names
    # Sources, build config and the build tools stay out of the package.
    assert not [n for n in names if n.endswith(".ts") or "node_modules/typescript/" in n or "node_modules/@vscode/vsce/" in n]
    assert packaged["contributes"] == _manifest()["contributes"]


def _node(built: Path, expression: str):
    script = f"const s = require('./out/server.js'); console.log(JSON.stringify({expression}));"
    result = subprocess.run(["node", "-e", script], cwd=built, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_extension_starts_the_configured_command(built):
    settings = {"path": "", "interpreter": "", "args": ["--debounce", "0.5"], "globs": ["**/prompts/**/*.txt", "**/*.prompt"]}
    assert _node(built, f"s.serverCommand({json.dumps(settings)})") == {"command": "promptlint", "args": ["server", "--debounce", "0.5"]}
    assert _node(built, f"s.serverCommand({json.dumps(settings | {'path': '/opt/bin/promptlint'})})")["command"] == "/opt/bin/promptlint"
    patterns = _node(built, f"s.documentPatterns({json.dumps(settings)})")
    assert patterns == [f"**/*{t}" for t in (".prompt", ".prompty", ".j2", ".jinja", ".jinja2", ".hbs", ".mustache", ".prompt.yml", ".prompt.yaml")] + ["**/prompts/**/*.txt"]

    # The interpreter's command is a real server: it answers an editor's initialize.
    command = _node(built, f"s.serverCommand({json.dumps(settings | {'interpreter': sys.executable, 'args': []})})")
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    frames = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(body), body) for body in (json.dumps(r).encode() for r in requests))
    result = subprocess.run([command["command"], *command["args"]], input=frames, capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    replies = [json.loads(body) for body in re.split(rb"Content-Length: \d+\r\n(?:[\w-]+: [^\r]*\r\n)*\r\n", result.stdout) if body]
    assert replies[0]["id"] == 1 and replies[0]["result"]["serverInfo"]["name"] == "promptlint"
    assert replies[1] == {"id": 2, "jsonrpc": "2.0", "result": None}


def test_docs_give_the_readmes_neovim_recipes():
    page = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    for marker in ("<!-- neovim-0.11 -->", "<!-- neovim-0.7 -->"):
        assert f"```lua\n{_fence_after(marker)}```" in page


NVIM = shutil.which("nvim")
# Drives the editor once the README's recipe has attached the server: waits for the
# diagnostics, asks for the code actions on the first one's line, applies its quick
# fix, saves, and writes what it saw for the test to read.
DRIVE = r"""
local buf = vim.api.nvim_get_current_buf()
local report = {}
vim.wait(30000, function() return #vim.diagnostic.get(buf) >= 2 end, 50)
local diagnostics = vim.diagnostic.get(buf)
table.sort(diagnostics, function(a, b) return a.lnum < b.lnum end)
for _, d in ipairs(diagnostics) do table.insert(report, "diagnostic " .. d.lnum .. " " .. d.message:sub(1, 40)) end
local first = diagnostics[1]
if first then
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = first.lnum, character = 0 }, ["end"] = { line = first.lnum + 1, character = 0 } },
    context = { diagnostics = {} },
  }
  local answers = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 20000) or {}
  for _, answer in pairs(answers) do
    for _, action in ipairs(answer.result or {}) do
      table.insert(report, "action " .. action.title)
      if action.title:match("^Fix PL102") and action.edit then
        vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      end
    end
  end
  vim.cmd("write")
end
vim.fn.writefile(report, vim.env.PROMPTLINT_REPORT)
vim.cmd("qa!")
"""


@pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (.ci/run installs Debian's neovim where apt works)")
def test_neovim_recipe_gets_diagnostics_and_applies_a_quick_fix(tmp_path):
    prompt, fixed = _example()
    (tmp_path / "answer.prompt").write_text(prompt, encoding="utf-8")
    # The README's recipe for Neovim 0.7 to 0.10 (Debian's is 0.7), as written.
    (tmp_path / "init.lua").write_text(_fence_after("<!-- neovim-0.7 -->"), encoding="utf-8")
    (tmp_path / "drive.lua").write_text(DRIVE, encoding="utf-8")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "PROMPTLINT_REPORT": str(tmp_path / "report.txt"), "HOME": str(tmp_path)}
    result = subprocess.run(
        [NVIM, "--headless", "-i", "NONE", "-u", "init.lua", "answer.prompt", "-c", "luafile drive.lua"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    report = (tmp_path / "report.txt").read_text(encoding="utf-8").splitlines() if (tmp_path / "report.txt").exists() else []
    assert report[:2] == ["diagnostic 2 [retrieval-score] Source 1 shows its ret", "diagnostic 5 [retrieval-score] Source 2 shows its ret"], result.stderr
    assert "action Fix PL102: Remove the score" in report
    assert (tmp_path / "answer.prompt").read_text(encoding="utf-8") == prompt.replace(" (score: 0.91)", "")
    assert fixed == prompt.replace(" (score: 0.91)", "").replace(" (score: 0.74)", "")
