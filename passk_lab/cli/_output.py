"""What the commands print: tables as --to asks (plain, Markdown, CSV, JSON), all written out.

The plain table and Markdown are for a reader at a terminal: they show a table's main columns,
or with --wide every one, and sentences wrapped to :data:`TEXT_WIDTH`; CSV and JSON, for
programs, hold every column.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

from passk_lab._numbers import fixed

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TEXT_WIDTH", "emit", "main_columns", "plain", "shown", "wrapped"]

TEXT_WIDTH = 79
"""The widest line of a sentence under a table: it fits an 80-column terminal."""


def emit(text: str) -> None:
    """Write `text` to standard output, all of it, or raise BrokenPipeError.

    A write to a pipe whose reader went away part way writes only part of the
    bytes and raises nothing (``TextIOWrapper.write`` drops the count that
    says so); only the next write fails. So the bytes go to the binary buffer
    in a loop that writes what is left until it is all out -- or the write
    after the short one raises. A stream with no binary buffer (a
    ``StringIO``) takes the text as it is.

    Parameters
    ----------
    text : str
        What to print, each line ending in a line end.
    """
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(text)
        out.flush()
        return
    out.flush()  # whatever the text layer holds goes first
    data = memoryview(text.replace("\n", os.linesep).encode(out.encoding, out.errors or "strict"))
    while data:
        data = data[buffer.write(data) :]
        buffer.flush()


def main_columns(
    table: pd.DataFrame, wanted: Iterable[str], args: argparse.Namespace
) -> pd.DataFrame:
    """Return `table` with the columns of `wanted` it has, in its order, unless all are asked for.

    The plain table and Markdown show the main columns; --wide (when the command has it),
    CSV and JSON every one.

    Parameters
    ----------
    table : pandas.DataFrame
        A table the library returned.
    wanted : iterable of str
        Its main columns: those a reader needs first. Any it lacks are left out.
    args : argparse.Namespace
        The parsed arguments: ``to``, and ``wide`` if the command has it.

    Returns
    -------
    pandas.DataFrame
        `table`, or its main columns (its ``attrs`` kept: the confidence level, ...).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"k": [1], "pass_pow_k": [0.5], "interval_method": ["wilson"]})
    >>> args = argparse.Namespace(to="table", wide=False)
    >>> list(main_columns(table, ["pass_pow_k", "k", "cost"], args).columns)
    ['k', 'pass_pow_k']
    >>> list(main_columns(table, ["k"], argparse.Namespace(to="csv")).columns)
    ['k', 'pass_pow_k', 'interval_method']
    """
    if getattr(args, "wide", False) or args.to in ("csv", "json"):
        return table
    kept = set(wanted)
    return table[[name for name in table.columns if name in kept]]


def wrapped(text: str) -> str:
    """Return a sentence for under a table, wrapped to :data:`TEXT_WIDTH` columns."""
    return textwrap.fill(text, width=TEXT_WIDTH)


def shown(
    table: pd.DataFrame,
    args: argparse.Namespace,
    *,
    digits: int = 3,
    labels: dict[str, str] | None = None,
) -> str:
    """Return a result table as --to asks.

    CSV and JSON keep the library's names; the plain table and Markdown show it as the report
    does: its labels (and `labels`), each interval in one column, `digits` decimals.

    Parameters
    ----------
    table : pandas.DataFrame
        A table the library returned.
    args : argparse.Namespace
        The parsed arguments: ``to``, and ``formula_guard`` if the command has it.
    digits : int, default 3
        Decimals of the plain table and Markdown.
    labels : dict of str to str, optional
        Labels of columns the report's labels do not name.

    Returns
    -------
    str
        The text to print, ending in a line end.
    """
    from passk_lab.report._render import to_markdown
    from passk_lab.report._tables import guard_formulas, labelled

    if args.to == "csv":
        guarded = getattr(args, "formula_guard", False)  # a table of numbers has no text to guard
        return str((guard_formulas(table) if guarded else table).to_csv(index=False))
    if args.to == "json":
        return str(table.to_json(orient="records", indent=2, double_precision=15)) + "\n"
    labelled_table = labelled(table.rename(columns=labels or {}))
    if args.to == "markdown":
        return to_markdown(labelled_table, digits=digits) + "\n"
    return "\n".join(plain(labelled_table, digits)) + "\n"


def plain(table: pd.DataFrame, digits: int) -> list[str]:
    """Return the lines of a labelled table as plain text: its header, then one line a row.

    Parameters
    ----------
    table : pandas.DataFrame
        A table with the report's labels.
    digits : int
        Decimals of every number.

    Returns
    -------
    list of str
        The lines, with no line ends and no spaces at their ends (a row whose last cells
        are empty is as long as what it shows).
    """
    wide: dict[Hashable, int] = {name: len(name) + 1 for name in table.columns}
    text = table.to_string(
        index=False,
        float_format=lambda value: fixed(value, digits),  # as every table writes a number
        na_rep="",  # a value with no estimate: an empty cell, as in Markdown and the report
        col_space=wide,  # the labels hold spaces: set them apart
    )
    return [line.rstrip() for line in text.splitlines()]
