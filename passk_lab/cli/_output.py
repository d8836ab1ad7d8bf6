"""What the commands print: tables as --to asks (plain, Markdown, CSV, JSON), all written out."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Hashable
from typing import TYPE_CHECKING

from passk_lab._numbers import fixed

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["emit", "plain", "shown"]


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
        The lines, with no line ends.
    """
    wide: dict[Hashable, int] = {name: len(name) + 1 for name in table.columns}
    text = table.to_string(
        index=False,
        float_format=lambda value: fixed(value, digits),  # as every table writes a number
        na_rep="",  # a value with no estimate: an empty cell, as in Markdown and the report
        col_space=wide,  # the labels hold spaces: set them apart
    )
    return text.splitlines()
