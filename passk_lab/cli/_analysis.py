"""``passk-lab analyze`` and ``passk-lab report``: the reliability curve of a runs file."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from passk_lab.cli._input import input_arguments, read_runs
from passk_lab.cli._options import (
    curve_arguments,
    curve_interval_arguments,
    curve_options,
    guard_argument,
    k_argument,
    output_arguments,
)
from passk_lab.cli._output import emit, main_columns, plain, shown
from passk_lab.cli._parsing import Parser

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["add_analyze", "add_report"]


def add_analyze(parser: Parser) -> None:
    """Add the command ``analyze`` to `parser`'s commands."""
    analyze = parser.add_command(
        "analyze",
        _analyze,
        help="pass^k and pass@k at every k, from a runs file",
        usage="%(prog)s RUNS_FILE [options]",
        description="Print pass^k and pass@k at every k, with their intervals, from a runs file.",
    )
    input_arguments(analyze)
    k_argument(analyze, "1 to the most runs")
    curve_arguments(analyze)
    analyze.add_argument(
        "--wide", action="store_true", help="every column of the curve, not the main ones"
    )
    output_arguments(analyze)
    curve_interval_arguments(analyze)


def add_report(parser: Parser) -> None:
    """Add the command ``report`` to `parser`'s commands."""
    report = parser.add_command(
        "report",
        _report,
        help="every table and plot, and report.html, in a folder",
        usage="%(prog)s RUNS_FILE [options]",
        description="Write every table and plot of a runs file, and report.html, into a folder.",
    )
    input_arguments(report)
    report.add_argument(
        "--out", metavar="DIR", help="the folder (default: report/ and RUNS_FILE's name)"
    )
    report.add_argument(
        "--force", action="store_true", help="write into a folder that holds other files"
    )
    report.add_argument("--title", metavar="TEXT", help="the report's heading")
    k_argument(report, "1..20, 50, 100, ...")
    curve_arguments(report)
    guard_argument(report)
    curve_interval_arguments(report)


_MAIN_COLUMNS = (
    "k",
    "pass_pow_k",
    "pass_pow_k_low",
    "pass_pow_k_high",
    "pass_at_k",
    "pass_at_k_low",
    "pass_at_k_high",
    "n_tasks",
)
"""The curve's columns the plain table and Markdown show without --wide."""

_PREDICTIONS = ("p_pow_k", "betabinom_pow_k")
"""The predictions they show beside them with --predict-to: the rows beyond the runs hold only
these."""

_PER_PASS_POW_K = "_per_pass_pow_k"
"""The end of a cost's column ``cost_<name>_per_pass_pow_k``: what a task passing all k runs
costs, the one cost column they show."""


def _analyze(args: argparse.Namespace) -> int:
    """Print the reliability curve of RUNS_FILE."""
    from passk_lab.estimators import reliability_curve

    curve = reliability_curve(read_runs(args), ks=args.k, **curve_options(args))
    curve = main_columns(curve, _curve_columns(curve, args), args)
    emit(_by_group(curve, args) if args.by and args.to == "table" else shown(curve, args))
    return 0


def _curve_columns(curve: pd.DataFrame, args: argparse.Namespace) -> list[str]:
    """Return the columns of `curve` the plain table and Markdown show without --wide.

    The groups, k, pass^k and pass@k with their intervals and the tasks; the predictions
    with --predict-to; and each cost's price of a task passing all k runs. Whatever other
    columns the curve has are left for --wide.
    """
    from passk_lab._data.costs import COST_PREFIX

    kept = {*(args.by or ()), *_MAIN_COLUMNS, *(_PREDICTIONS if args.predict_to else ())}
    return [
        name
        for name in map(str, curve.columns)
        if name in kept or (name.startswith(COST_PREFIX) and name.endswith(_PER_PASS_POW_K))
    ]


def _by_group(curve: pd.DataFrame, args: argparse.Namespace) -> str:
    """Return a curve with --by as one block per group: a heading ("model = a"), then its rows.

    Every block has the same columns, lined up as one table, less the group columns.
    """
    from passk_lab._data.rules import display
    from passk_lab.report._tables import labelled

    lines = plain(labelled(curve.drop(columns=args.by)), 3)
    blocks = []
    for key, rows in curve.groupby(args.by, sort=False, dropna=False).indices.items():
        values = key if isinstance(key, tuple) else (key,)
        heading = ", ".join(
            f"{column} = {display(value)}" for column, value in zip(args.by, values, strict=True)
        )
        blocks.append("\n".join([heading, lines[0], *(lines[1 + row] for row in rows)]))
    return "\n\n".join(blocks) + "\n"


def _report(args: argparse.Namespace) -> int:
    """Write the report of RUNS_FILE and say where."""
    from passk_lab.report import write_report

    out = Path(args.out) if args.out is not None else Path("report") / _stem(args.runs_file)
    written = write_report(
        read_runs(args),
        out=out,
        ks=args.k,
        source=Path(os.path.abspath(args.runs_file)),
        title=args.title,
        force=args.force,
        formula_guard=args.formula_guard,
        **curve_options(args),
    )
    page = next(path for path in written if path.name == "report.html")
    emit(f"Wrote {len(written)} files to {out}{os.sep}\nThe report: {page}\n")
    return 0


_WILDCARD = re.compile(r"[*?[]")
"""A glob pattern's wildcards."""


def _stem(path: str) -> str:
    """Return the name of a report of `path`: a file's name less its suffix, a folder's name.

    A glob pattern's name is its last part up to the first wildcard, less the separators it
    ends in (``samples_gsm8k_2024*`` is ``samples_gsm8k_2024``), or, if that leaves nothing
    (``logs/*.jsonl``), its folder's name.

    Examples
    --------
    >>> _stem("runs.csv"), _stem("logs/samples_gsm8k_2024*"), _stem("logs/*.jsonl")
    ('runs', 'samples_gsm8k_2024', 'logs')
    """
    whole = Path(os.path.abspath(path))
    if _WILDCARD.search(whole.name):
        named = _WILDCARD.split(whole.name, maxsplit=1)[0].rstrip("_-. ")
        return named or _stem(str(whole.parent))
    return (whole.name if whole.is_dir() else whole.stem) or "runs"
