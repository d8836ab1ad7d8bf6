"""``passk-lab leaderboard`` and ``passk-lab compare``: agents side by side."""

from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING

from passk_lab._choices import METRICS, PAIRED_METHODS
from passk_lab.cli._input import input_arguments, read_runs
from passk_lab.cli._options import (
    by_argument,
    interval_arguments,
    interval_options,
    k_argument,
    output_arguments,
    unmatched_argument,
)
from passk_lab.cli._output import emit, shown
from passk_lab.cli._parsing import Parser

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["add_compare", "add_leaderboard"]


def add_leaderboard(parser: Parser) -> None:
    """Add the command ``leaderboard`` to `parser`'s commands."""
    board = parser.add_command(
        "leaderboard",
        _leaderboard,
        help="rank the agents of a runs file by pass^k, with simultaneous rank intervals",
        description=(
            "Read runs as analyze does and rank the agents --by names at every k, on the tasks "
            "they all have: pass^k and pass@k with intervals, the rank with its simultaneous "
            "interval (all agents' at once) and the tie group. The table and Markdown then show "
            "the tests the ranks come from: every pair's difference, interval and "
            "Holm-adjusted paired sign-flip test at the same ks, on the tasks every agent has k "
            "runs of; CSV and JSON hold the leaderboard alone, or with --pairs the pairs alone."
        ),
    )
    input_arguments(board)
    by_argument(board, required=True, what="the column that names the agents (repeat for several)")
    k_argument(board, "1 to the most runs every agent has on a task")
    board.add_argument(
        "--metric",
        choices=METRICS,
        default="pass_pow_k",
        help="what the agents are ranked by, and the pairs' rows shown (default: pass_pow_k)",
    )
    board.add_argument(
        "--pairs",
        action="store_true",
        help="print the pairwise table alone: the tests the ranks come from (every pair at "
        "the ranked metric, on the tasks every agent has k runs of)",
    )
    unmatched_argument(board, "a task that not every agent ran")
    output_arguments(board)
    interval_arguments(
        board,
        resamples="draws of a sign-flip test too large to compute exactly (default: 10000)",
    )


def add_compare(parser: Parser) -> None:
    """Add the command ``compare`` to `parser`'s commands."""
    compare = parser.add_command(
        "compare",
        _compare,
        help="compare two agents task by task: the paired difference in pass^k and pass@k",
        description=(
            "Read runs as analyze does and compare two agents on the tasks they share: two "
            "agents of one file (--by COL --a X --b Y) or two files of one agent each. Prints "
            "both agents' pass^k and pass@k at every k, their difference A - B with its paired "
            "interval, and the correlation of their per-task scores."
        ),
    )
    input_arguments(compare, two_files=True)
    by_argument(compare, what="with one file: the column that names the agents")
    compare.add_argument("--a", metavar="X", help="with --by: the value of agent A")
    compare.add_argument("--b", metavar="Y", help="with --by: the value of agent B")
    k_argument(compare, "1 to the most runs both agents have")
    unmatched_argument(compare, "a task that only one agent ran")
    output_arguments(compare)
    interval_arguments(
        compare,
        resamples="bootstrap resamples of bca and percentile",
        methods=PAIRED_METHODS,
        method="interval of the difference: %(choices)s (default: auto, the agents' "
        "Clopper-Pearson intervals on effective numbers of tasks, combined)",
    )


def _leaderboard(args: argparse.Namespace) -> int:
    """Print the leaderboard and the tests its ranks come from (or the tests alone)."""
    from passk_lab._labels import LABELS
    from passk_lab.ranking import pairwise, ranks_and_tests

    runs = read_runs(args)
    options = {"by": args.by, "ks": args.k, "unmatched": args.unmatched, **interval_options(args)}
    if args.pairs:  # the board's own tests: its metric, on the tasks every agent has k runs of
        emit(shown(pairwise(runs, metrics=[args.metric], common_tasks=True, **options), args))
        return 0
    board, tests = ranks_and_tests(runs, metric=args.metric, **options)
    if args.to in ("csv", "json"):  # one table, that a program reads back
        emit(shown(board, args))
        return 0
    note = (
        f"The tests the ranks come from: every pair at {LABELS[args.metric]} on the tasks every "
        "agent has k runs of; A - B is agent A's value less agent B's, and the adjusted p is "
        "Holm's over the pairs at each k"
    )
    emit(f"{shown(board, args)}\n{textwrap.fill(note, width=100)}\n\n{shown(tests, args)}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    """Print the paired comparison of the two agents."""
    from passk_lab.comparison import compare

    sides, names = _compared(args)
    options = {"method": args.method, **interval_options(args)}
    typed = (f"A ({names[0]})", f"B ({names[1]})")
    table = compare(sides[0], sides[1], ks=args.k, unmatched=args.unmatched, names=typed, **options)
    heading = "" if args.to in ("csv", "json") else f"A: {names[0]}; B: {names[1]}\n\n"
    emit(heading + shown(table, args))
    return 0


def _compared(args: argparse.Namespace) -> tuple[list[pd.DataFrame], list[str]]:
    """Return the two agents' runs that compare names, and how to name each, or refuse."""
    files, by, chosen = args.runs_file, args.by or [], [args.a, args.b]
    if len(files) > 2:
        raise ValueError(
            f"compare takes one runs file (with --by, --a and --b) or two (one agent each), got "
            f"{len(files)}: {' '.join(files)}; give two of them"
        )
    if len(files) == 2:
        if by or any(value is not None for value in chosen):
            raise ValueError(
                "--by, --a and --b pick two agents from one runs file, and two files are one "
                "agent each: leave them out, or give one file"
            )
        return [read_runs(args, path) for path in files], list(files)
    if not by:
        if any(value is not None for value in chosen):
            raise ValueError(
                "--a and --b are values of the column that names the agents: give it with --by "
                "COL (e.g. --by model)"
            )
        raise ValueError(
            "compare needs two agents: give two runs files, one agent each, or one file with "
            "--by COL --a X --b Y"
        )
    if len(by) > 1:
        raise ValueError(
            f"--a and --b are values of one --by column, got {len(by)}: {', '.join(by)}; give one"
        )
    if args.a is None or args.b is None:
        raise ValueError(f"compare --by {by[0]} needs both --a and --b: the two agents to compare")
    if args.a == args.b:
        raise ValueError(f"--a and --b both name {args.a!r}; name two agents")
    runs = read_runs(args, files[0])
    sides = [
        _agent_runs(runs, by[0], value, option) for value, option in zip(chosen, "ab", strict=True)
    ]
    return sides, [f"{by[0]}={value}" for value in chosen]


def _agent_runs(runs: pd.DataFrame, column: str, value: str, option: str) -> pd.DataFrame:
    """Return the runs whose `column` reads `value` (compared as text), or name the values."""
    from passk_lab._data.rules import display

    if column not in runs.columns:
        raise ValueError(
            f"--by {column}: the runs have no column {column!r}; they have "
            f"{', '.join(map(str, runs.columns))}"
        )
    values = {str(display(seen)): seen for seen in runs[column].dropna().unique()}
    if value not in values:
        names = sorted(values)
        listed = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
        raise ValueError(
            f"--{option} {value!r} is not a value of column {column!r}, which holds: {listed}"
        )
    chosen: pd.DataFrame = runs[runs[column] == values[value]]
    return chosen
