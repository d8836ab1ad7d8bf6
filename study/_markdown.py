"""The Markdown tables the studies write: one definition for every study under study/.

A study run as ``python study/<name>.py`` finds this module beside it; a test that
loads a study from its path finds it through the directory the study appends to
``sys.path``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def markdown(table: pd.DataFrame, number: str) -> str:
    """Return `table` as a Markdown table, its floats written with the format spec `number`.

    Parameters
    ----------
    table : pandas.DataFrame
        The rows to write; its columns head the table, its index is left out.
    number : str
        The format spec of every float cell (``".4g"``, ``".3f"``); a NaN is left blank.
        Other cells are written with ``str``.

    Returns
    -------
    str
        The header, the separator and one line per row, joined by newlines.

    Examples
    --------
    >>> table = pd.DataFrame({"method": ["a", "b"], "coverage": [0.95123, float("nan")]})
    >>> print(markdown(table, ".3f"))
    | method | coverage |
    |---|---|
    | a | 0.951 |
    | b |  |
    """

    def cell(value: object) -> str:
        if isinstance(value, float | np.floating):
            return "" if np.isnan(value) else f"{value:{number}}"
        return str(value)

    lines = ["| " + " | ".join(map(str, table.columns)) + " |", "|" + "---|" * len(table.columns)]
    lines += [
        "| " + " | ".join(cell(value) for value in row) + " |"
        for row in table.itertuples(index=False)
    ]
    return "\n".join(lines)


def write_tables(out: Path, tables: dict[str, pd.DataFrame], text: str) -> None:
    r"""Write each table as ``<name>.csv`` (every digit) and `text` as ``tables.md`` in `out`.

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "study"
    >>> write_tables(out, {"cells": pd.DataFrame({"a": [1 / 3]})}, "# tables\n")
    >>> sorted(path.name for path in out.iterdir()), (out / "cells.csv").read_text()
    (['cells.csv', 'tables.md'], 'a\n0.3333333333\n')
    """
    out.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        table.to_csv(out / f"{name}.csv", index=False, float_format="%.10g")
    (out / "tables.md").write_text(text, encoding="utf-8")
