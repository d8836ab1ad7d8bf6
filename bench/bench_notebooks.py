"""The notebooks, executed as committed, against kernels that run an empty notebook.

A reader opens them in JupyterLab and runs them top to bottom; together they
should take at most 30 s. The baseline is the kernel start-up the same number
of notebooks cost with nothing in them.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from timing import Row

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))
BUDGET = 30.0  # seconds, all notebooks together


def _execute(notebook: nbformat.NotebookNode, folder: Path) -> float:
    started = time.perf_counter()
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": folder}}
    ).execute(stderr=subprocess.DEVNULL)  # the kernel's start-up notices
    return time.perf_counter() - started


def rows() -> list[Row]:
    folder = NOTEBOOKS[0].parent
    each = {path.name: _execute(nbformat.read(path, as_version=4), folder) for path in NOTEBOOKS}
    empty = min(_execute(nbformat.v4.new_notebook(), folder) for _ in range(3))
    result = [
        Row(f"  {name}", "", seconds, "an empty notebook", empty) for name, seconds in each.items()
    ]
    total = sum(each.values())
    label = f"{len(NOTEBOOKS)} empty notebooks"
    result.insert(
        0, Row("notebooks, as committed", "", total, label, empty * len(each), budget=BUDGET)
    )
    return result
