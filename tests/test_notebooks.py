"""Execute every notebook under notebooks/: a cell that errors, or a figure that drifts from
the notebook's own assertions, fails the test.

A notebook reads as an analysis: a title with its question, an answer and a conclusion, and
all its assertions in one last code cell, tagged ``checks`` under a "Checks" heading, out of
the reader's way.

A notebook may have one cell tagged ``parameters`` (papermill's convention); a variant runs it
with a cell injected right after that one, the way papermill injects its parameters.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
from conftest import TAU_BENCH
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))

# Parameters injected per notebook: one run per entry (None runs it as committed). Notebooks
# not listed run once, as committed.
VARIANTS: dict[str, list[str | None]] = {
    "02_sweep_k_and_p.ipynb": ["quick = True"],
    "03_real_data.ipynb": ["resamples = 200", "use_shared_data = False; resamples = 200"],
}

# The tau-bench results the real-data notebook reads when they are there (it falls back to the
# published counts otherwise): run without use_shared_data = False, it must have read them.
TAU_BENCH_FILE = TAU_BENCH / "gpt-4o-airline.json"

RUNS = [
    pytest.param(
        path, parameters, id=path.name + (f":{parameters.replace(' ', '')}" if parameters else "")
    )
    for path in NOTEBOOKS
    for parameters in VARIANTS.get(path.name, [None])
]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _parameter_cells(notebook: nbformat.NotebookNode) -> list[int]:
    return [
        index
        for index, cell in enumerate(notebook.cells)
        if "parameters" in cell.get("metadata", {}).get("tags", [])
    ]


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _asserts(cell: nbformat.NotebookNode) -> bool:
    """Whether a code cell checks: an assert statement, or anything from numpy.testing."""
    for node in ast.walk(ast.parse(cell.source)):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "testing":
            return True
        if isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module] if isinstance(node, ast.ImportFrom) else []
            modules += [alias.name for alias in node.names]
            if any(name and "testing" in name.split(".") for name in modules):
                return True
    return False


def _inject(notebook: nbformat.NotebookNode, parameters: str) -> None:
    """Insert `parameters` as a code cell after the ``parameters`` cell, as papermill does."""
    (index,) = _parameter_cells(notebook)
    cell = nbformat.v4.new_code_cell(parameters, metadata={"tags": ["injected-parameters"]})
    notebook.cells.insert(index + 1, cell)


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found under notebooks/"


def test_every_variant_names_a_notebook():
    names = {path.name for path in NOTEBOOKS}
    assert set(VARIANTS) <= names, f"no such notebook: {sorted(set(VARIANTS) - names)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_is_committed_clean(path):
    notebook = _read(path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not any(cell.outputs for cell in code), f"{path.name} has outputs; clear them"
    assert all(cell.execution_count is None for cell in code), f"{path.name}: clear the counts"
    assert notebook.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_at_most_one_parameters_cell(path):
    notebook = _read(path)
    tagged = _parameter_cells(notebook)
    assert len(tagged) <= 1, f"{path.name}: cells {tagged} are all tagged 'parameters'"
    if any(VARIANTS.get(path.name, [None])):
        assert len(tagged) == 1, f"{path.name} gets parameters injected but has no such cell"
    for index in tagged:
        assert notebook.cells[index].cell_type == "code", f"{path.name}: cell {index} is not code"
        tags = notebook.cells[index].metadata["tags"]
        assert tags.count("parameters") == 1, f"{path.name}: cell {index} repeats the tag"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_checks_are_one_last_cell(path):
    cells = _read(path).cells
    code = [index for index, cell in enumerate(cells) if cell.cell_type == "code"]
    asserting = [index for index in code if _asserts(cells[index])]
    tagged = [index for index, cell in enumerate(cells) if "checks" in _tags(cell)]
    assert asserting == code[-1:], f"{path.name}: cells {asserting} assert; only the last may"
    assert tagged == asserting, f"{path.name}: cells {tagged} are tagged 'checks', not {asserting}"
    (index,) = tagged
    assert index == len(cells) - 1, f"{path.name}: the checks cell is not the last cell"
    heading = cells[index - 1]
    assert heading.cell_type == "markdown", f"{path.name}: no markdown cell heads the checks"
    assert heading.source.startswith("## Checks\n"), f"{path.name}: the checks' heading"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_asks_and_answers(path):
    cells = _read(path).cells
    title = cells[0]
    assert title.cell_type == "markdown", f"{path.name}: the first cell is not markdown"
    assert title.source.startswith("# "), f"{path.name}: the first cell has no title"
    assert "?" in title.source, f"{path.name}: the first cell asks no question"
    text = [cell.source for cell in cells if cell.cell_type == "markdown"]
    headings = [source.partition("\n")[0] for source in text]
    assert "## Answer" in headings, f"{path.name}: no '## Answer' section"
    (checks,) = [index for index, heading in enumerate(headings) if heading == "## Checks"]
    assert headings.index("## Answer") < checks, f"{path.name}: the answer comes after the checks"
    assert "**Conclusion:**" in text[checks - 1], f"{path.name}: no conclusion before the checks"


@pytest.mark.slow
@pytest.mark.parametrize(("path", "parameters"), RUNS)
def test_notebook_runs(path, parameters):
    notebook = _read(path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not any(cell.outputs for cell in code), f"{path.name} has outputs; clear them"
    assert all(cell.execution_count is None for cell in code), f"{path.name}: clear the counts"
    if parameters is not None:
        _inject(notebook, parameters)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    reads_shared = "use_shared_data = False" not in (parameters or "")
    if path.name == "03_real_data.ipynb" and reads_shared and TAU_BENCH_FILE.exists():
        printed = "".join(
            output.get("text", "")
            for cell in notebook.cells
            if cell.cell_type == "code"
            for output in cell.outputs
            if output.output_type == "stream"
        )
        assert "runs read from" in printed, "the notebook did not read the shared tau-bench file"
