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
    curve_options,
    guard_argument,
    k_argument,
    output_arguments,
)
from passk_lab.cli._output import emit, plain, shown
from passk_lab.cli._parsing import Parser

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["add_analyze", "add_report"]


def add_analyze(parser: Parser) -> None:
    """Add the command ``analyze`` to `parser`'s commands."""
    analyze = parser.add_command(
        "analyze",
        _analyze,
        help="print pass^k, pass@k and p^k for every k, with intervals, from a runs file",
        description=(
            "Read runs -- a runs table (CSV, JSON Lines or Parquet; columns task, run and passed "
            "or reward), a table of per-task counts, or another harness's results or logs -- and "
            "print the reliability curve with confidence intervals, one row per k. The "
            "table and Markdown show it as the report does (pass^k, pass@k, one column per "
            "interval); CSV and JSON have every column under its library name. With --by, the "
            "table prints one block per group under a heading such as 'model = a'; Markdown, CSV "
            "and JSON print one table, the groups in its first columns."
        ),
    )
    input_arguments(analyze)
    k_argument(analyze, "1 to the most runs of any task")
    output_arguments(analyze)
    curve_arguments(analyze, "none beyond the ks asked")


def add_report(parser: Parser) -> None:
    """Add the command ``report`` to `parser`'s commands."""
    report = parser.add_command(
        "report",
        _report,
        help="write the tables, the plots and a self-contained report.html for a runs file",
        description=(
            "Read runs as analyze does and write into DIR (report/ and the name of RUNS_FILE "
            "by default), and say where: the reliability curve, the "
            "beta-binomial fit, the success counts and (when runs record errors) both error "
            "readings as CSV and Markdown; the decay curve, outcome heatmap and success histogram "
            "as PNG and SVG; and report.html, which holds all of them and opens with no network. "
            "With --by and two or more groups, it also ranks them as agents: the leaderboard "
            "and every pair's test as CSV and Markdown, and for three or more the forest and "
            "the map of the pairs."
        ),
    )
    input_arguments(report)
    k_argument(
        report,
        "every k up to 20, then 50, 100, 200, 500, 1000, ... and the most runs of any task",
    )
    report.add_argument(
        "--out",
        metavar="DIR",
        help="folder to write into, made if missing (default: report/NAME, NAME the name of "
        "RUNS_FILE less its suffix: report/runs for runs.csv); new, empty or an earlier report's: "
        "its .passk-report.json lists what it wrote, and files it wrote that this report does "
        "not are removed",
    )
    report.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that holds other files, replacing those with the report's names",
    )
    guard_argument(report)
    report.add_argument(
        "--title",
        help="the report's heading (default: 'Reliability report: ' and the name of RUNS_FILE)",
    )
    curve_arguments(
        report, "without --k twice the most runs of any task, at least 10; with it the largest k"
    )


def _analyze(args: argparse.Namespace) -> int:
    """Print the reliability curve of RUNS_FILE."""
    from passk_lab.estimators import reliability_curve

    curve = reliability_curve(read_runs(args), ks=args.k, **curve_options(args))
    emit(_by_group(curve, args) if args.by and args.to == "table" else shown(curve, args))
    return 0


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
