"""``passk-lab leaderboard`` and ``passk-lab compare``: agents side by side."""

from __future__ import annotations

import argparse
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
from passk_lab.cli._output import emit, main_columns, shown, wrapped
from passk_lab.cli._parsing import Parser

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["add_compare", "add_leaderboard"]


def add_leaderboard(parser: Parser) -> None:
    """Add the command ``leaderboard`` to `parser`'s commands."""
    board = parser.add_command(
        "leaderboard",
        _leaderboard,
        help="rank agents, with simultaneous rank intervals",
        usage="%(prog)s RUNS_FILE --by COLUMN [options]",
        description="Rank the agents at every k with simultaneous rank intervals; test every pair.",
    )
    input_arguments(board)
    by_argument(board, required=True, what="the column that names the agents")
    k_argument(board, "1 to the runs all have")
    board.add_argument(
        "--metric",
        choices=METRICS,
        default="pass_pow_k",
        metavar="METRIC",
        help=" or ".join(METRICS),
    )
    board.add_argument("--pairs", action="store_true", help="print the tests of the pairs alone")
    unmatched_argument(board, "a task not all ran")
    board.add_argument("--wide", action="store_true", help="every column, not the main ones")
    output_arguments(board)
    interval_arguments(board, resamples="draws of a sign-flip test")


def add_compare(parser: Parser) -> None:
    """Add the command ``compare`` to `parser`'s commands."""
    compare = parser.add_command(
        "compare",
        _compare,
        help="two agents task by task: the paired difference",
        usage="%(prog)s RUNS_FILE [RUNS_FILE] [options]",
        description="Compare two agents on their shared tasks: A - B with its paired interval.",
    )
    input_arguments(compare, two_files=True)
    by_argument(compare, what="with one file: the column of the agents")
    compare.add_argument("--a", metavar="VALUE", help="with --by: agent A")
    compare.add_argument("--b", metavar="VALUE", help="with --by: agent B")
    k_argument(compare, "1 to the runs all have")
    unmatched_argument(compare, "a task one lacks")
    output_arguments(compare)
    interval_arguments(
        compare,
        resamples="bootstrap resamples",
        methods=PAIRED_METHODS,
        method="the interval of the difference",
    )


_PAIR_COLUMNS = (
    "a",
    "b",
    "k",
    "value_a",
    "value_b",
    "difference",
    "difference_low",
    "difference_high",
    "n_tasks",
    "p_adjusted",
)
"""The columns of the pairs the plain table and Markdown show without --wide: the metric is
the board's, told above them."""


def _leaderboard(args: argparse.Namespace) -> int:
    """Print the leaderboard and the tests its ranks come from (or the tests alone)."""
    from passk_lab._labels import LABELS
    from passk_lab.ranking import pairwise, ranks_and_tests

    runs = read_runs(args)
    options = {"by": args.by, "ks": args.k, "unmatched": args.unmatched, **interval_options(args)}
    if args.pairs:  # the board's own tests: its metric, on the tasks every agent has k runs of
        pairs = pairwise(runs, metrics=[args.metric], common_tasks=True, **options)
        emit(shown(main_columns(pairs, _PAIR_COLUMNS, args), args))
        return 0
    board, tests = ranks_and_tests(runs, metric=args.metric, **options)
    if args.to in ("csv", "json"):  # one table, that a program reads back
        emit(shown(board, args))
        return 0
    ranked = [*args.by, "k", *_with_interval(args.metric), "n_tasks", "rank", "rank_low"]
    board = main_columns(board, [*ranked, "rank_high", "tie_group"], args)
    note = (
        f"The tests the ranks come from: every pair at {LABELS[args.metric]} on the tasks every "
        "agent has k runs of; A - B is agent A's value less agent B's, and the adjusted p is "
        "Holm's over the pairs at each k"
    )
    tests = main_columns(tests, _PAIR_COLUMNS, args)
    emit(f"{shown(board, args)}\n{wrapped(note)}\n\n{shown(tests, args)}")
    return 0


def _with_interval(name: str) -> list[str]:
    """Return a statistic's column and its interval's: ``[name, name_low, name_high]``."""
    return [name, f"{name}_low", f"{name}_high"]


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
                "COLUMN (e.g. --by model)"
            )
        raise ValueError(
            "compare needs two agents: give two runs files, one agent each, or one file with "
            "--by COLUMN --a VALUE --b VALUE"
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
