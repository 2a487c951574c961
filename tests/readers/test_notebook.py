"""Jupyter notebooks: the code cells are read as one Python module, in cell order, and each finding
points at the line of the .ipynb file that holds its code. IPython's own lines are no Python; a cell
that does not parse is left out and said so; nothing in a notebook is edited. Generated over where the
prompt's pieces stand (one cell, or a template in one cell and the code that fills it in a later one)
and over IPython lines around them, each with a clean twin that shows no score."""

from __future__ import annotations

import json

import pytest

from promptlint.engine.config import build
from promptlint.engine.lint import fix_text, lint_text

CONFIG = build({"today": "2026-12-02"}, "test")

TEMPLATE = 'TEMPLATE = """Answer from the sources only.\n\nSources:\n{context}\n\nQuestion: {question}"""\n'
BUILD = (
    "def build(question, hits):\n"
    "    blocks = []\n"
    "    for i, hit in enumerate(hits, 1):\n"
    '        blocks.append(f"[{i}] {hit.title} (score: {hit.score:.2f})\\n{hit.text}")\n'
    '    return TEMPLATE.format(context="\\n\\n".join(blocks), question=question)\n'
)
IPYTHON = {"none": [], "magic": ["%pip install -q openai\n"], "shell": ["!ls data\n"], "cell magic": ["%%capture\n", "!pip install x\n"]}
LAYOUTS = {"one cell": [TEMPLATE + "\n" + BUILD], "two cells": [TEMPLATE, BUILD]}


def _notebook(cells: list[str], before: list[str]) -> str:
    sources = ([before] if before else []) + [code.splitlines(keepends=True) for code in cells]
    body = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# RAG demo\n"]}]
            + [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": lines} for lines in sources],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(body, indent=1)


def _line_of(notebook: str, fragment: str) -> int:
    return next(number for number, line in enumerate(notebook.split("\n"), 1) if fragment in line)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("ipython", sorted(IPYTHON))
def test_a_prompt_built_in_notebook_cells_is_read_and_placed_in_the_file(layout, ipython):
    notebook = _notebook(LAYOUTS[layout], IPYTHON[ipython])
    findings = [f for f in lint_text(notebook, path="demo.ipynb", config=CONFIG) if f.code == "PL102"]
    assert [(f.code, f.line) for f in findings] == [("PL102", _line_of(notebook, "(score: {hit.score:.2f})"))]
    # Reported, never edited.
    assert findings[0].fix is None and fix_text(notebook, path="demo.ipynb", config=CONFIG) == notebook


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("ipython", sorted(IPYTHON))
def test_the_clean_twin_in_a_notebook_is_clean(layout, ipython):
    cells = [code.replace(" (score: {hit.score:.2f})", "") for code in LAYOUTS[layout]]
    assert [f.code for f in lint_text(_notebook(cells, IPYTHON[ipython]), path="demo.ipynb", config=CONFIG) if f.code == "PL102"] == []


def test_a_cell_that_does_not_parse_is_left_out_and_the_rest_is_read():
    notebook = _notebook(["def broken(:\n", TEMPLATE + "\n" + BUILD], [])
    assert [f.code for f in lint_text(notebook, path="demo.ipynb", config=CONFIG) if f.code in ("PL102", "PL900")] == ["PL102"]


@pytest.mark.parametrize("magic", ["pip install -q openai\n", "conda install -y faiss-cpu\n"])
def test_a_magic_run_without_its_percent_sign_is_no_python_and_the_cell_is_read(magic):
    # IPython runs `pip install x` as `%pip install x` (automagic): the rest of the cell is the notebook's code.
    notebook = _notebook([magic + TEMPLATE + "\n" + BUILD], [])
    assert [(f.code, f.line) for f in lint_text(notebook, path="demo.ipynb", config=CONFIG) if f.code in ("PL102", "PL900")] == [
        ("PL102", _line_of(notebook, "(score: {hit.score:.2f})"))]


def test_a_notebook_that_is_not_json_is_a_syntax_error_on_its_line():
    findings = lint_text('{"cells": [\n  {"cell_type": "code",\n  oops}\n]}\n', path="demo.ipynb", config=CONFIG)
    assert [(f.code, f.line) for f in findings] == [("PL900", 3)]


# A chain run with verbose=True logs each prompt it sends; the code holds no prompt of its own (the chain builds it).
CHAIN_CODE = 'chain = RetrievalQA.from_chain_type(llm, retriever=retriever, verbose=True)\nchain.run("How long do refunds take?")\n'
LOGGED = ("Answer from the sources only.\n\nSources:\n[1] Refund policy (score: 0.91)\nRefunds are paid within 14 days of the return.\n\n"
          "[2] Shipping guide (score: 0.62)\nParcels ship within two working days.\n\nQuestion: How long do refunds take?")
COLOURS = {"plain": ("", ""), "coloured": ("\x1b[32;1m\x1b[1;3m", "\x1b[0m")}


def _logged_notebook(prompts: list[str], colour: str, marker: str = "Prompt after formatting:", code: str = CHAIN_CODE) -> str:
    opening, reset = COLOURS[colour]
    log = "".join(f"\n\n> Entering new StuffDocumentsChain chain...\n{marker}\n{opening}{p}{reset}\n\n> Finished chain.\n" for p in prompts)
    output = {"name": "stdout", "output_type": "stream", "text": log.splitlines(keepends=True)}
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [output], "source": code.splitlines(keepends=True)}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


@pytest.mark.parametrize("colour", sorted(COLOURS))
@pytest.mark.parametrize("times", [1, 3])
def test_a_prompt_a_chain_logged_is_read_where_the_output_holds_it(colour, times):
    # Logged again by a retry, the same prompt is one prompt: its findings are not repeated.
    notebook = _logged_notebook([LOGGED] * times, colour)
    found = [(f.code, f.line) for f in lint_text(notebook, path="demo.ipynb", config=CONFIG) if f.code == "PL102"]
    assert found == [("PL102", _line_of(notebook, "(score: 0.91)")), ("PL102", _line_of(notebook, "(score: 0.62)"))]
    assert fix_text(notebook, path="demo.ipynb", config=CONFIG) == notebook
    # The twin: the same text printed with no chain's marker over it is output, not a prompt.
    assert lint_text(_logged_notebook([LOGGED] * times, colour, marker="Result:"), path="demo.ipynb", config=CONFIG) == []


def test_two_logged_prompts_are_read_apart_and_the_code_s_own_prompt_comes_first():
    other = LOGGED.replace("How long do refunds take?", "When do parcels ship?")
    notebook = _logged_notebook([LOGGED, other], "coloured")
    assert len([f for f in lint_text(notebook, path="demo.ipynb", config=CONFIG) if f.code == "PL102"]) == 4
    # Where the code holds a prompt, that prompt is read, and the log of it is not read again.
    built = _logged_notebook([LOGGED], "coloured", code=TEMPLATE + "\n" + BUILD)
    found = [(f.code, f.line) for f in lint_text(built, path="demo.ipynb", config=CONFIG) if f.code == "PL102"]
    assert found == [("PL102", _line_of(built, "(score: {hit.score:.2f})"))]
