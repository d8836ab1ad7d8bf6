"""``passk-lab plan``: the questions before the runs (``rate``, ``zero-failure``, ``tasks``)."""

from __future__ import annotations

import argparse
import math
import re
from typing import TYPE_CHECKING

from passk_lab.cli._argument_types import k_values, listed, number_in, probability, whole_number
from passk_lab.cli._options import output_arguments
from passk_lab.cli._output import emit, shown, wrapped
from passk_lab.cli._parsing import Parser

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["add_plan"]

_PLAN_GIVEN = ("target", "p0", "confidence_level", "icc")
"""The columns of the planning tables that hold a value given: shown as it was, not rounded."""

_MOST_ROWS = 100_000
"""The most rows ``plan rate`` prints: a range of ks is not listed before it is counted."""

_MOST_TASKS = 10**8
"""The most tasks ``plan tasks`` searches: a half-width that could need more is refused.

One task's estimate of pass^k lies in [0, 1], so its sd is at most 1/2 and the normal
approximation needs at most ``(z / (2 h))^2`` tasks for a half-width h: at the 95% level,
half-widths below about 1e-4. The plan's time grows with the tasks (about 6 s at this many).
"""

_ICC = number_in(0, 1, low_in=True, high_in=False)
"""The type of an intra-task correlation, in [0, 1)."""


def add_plan(parser: Parser) -> None:
    """Add the command ``plan`` and its questions to `parser`'s commands."""
    plan = parser.add_command(
        "plan",
        None,
        help="before the runs: the rate, runs or tasks a goal needs",
        usage="%(prog)s QUESTION [options]",
        description="Answer a question before the runs, in a table.",
    )
    plan.add_commands(dest="question", metavar="QUESTION")
    _add_rate(plan)
    _add_zero_failure(plan)
    _add_tasks(plan)


def _add_rate(plan: Parser) -> None:
    """Add ``plan rate``: the per-run pass rate a target pass^k needs."""
    rate = plan.add_command(
        "rate",
        _plan_rate,
        help="the per-run pass rate a target pass^k needs",
        usage="%(prog)s --target TARGET --k K [options]",
        description="Print the per-run pass rate p with p^k = the pass^k wanted: target^(1/k).",
    )
    rate.add_argument(
        "--target",
        type=listed(number_in(0, 1, low_in=True, high_in=True), "0.8,0.9"),
        required=True,
        metavar="TARGET",
        help="the pass^k wanted, in [0, 1]; a list: 0.8,0.9",
    )
    rate.add_argument("--k", type=k_values, required=True, metavar="K", help="5, 1,2,4 or 1..8")
    output_arguments(rate, text=False)  # numbers only


def _add_zero_failure(plan: Parser) -> None:
    """Add ``plan zero-failure``: the runs in a row that show a pass rate."""
    zero = plan.add_command(
        "zero-failure",
        _plan_zero_failures,
        help="the runs in a row, none failing, that show a pass rate",
        usage="%(prog)s --p P [options]",
        description="Print how many runs must all pass to show a per-run pass rate of at least p.",
    )
    zero.add_argument(
        "--p",
        type=listed(probability, "0.9,0.95"),
        required=True,
        metavar="P",
        help="the pass rate to show, in (0, 1); a list: 0.9,0.95",
    )
    zero.add_argument(
        "--confidence-level", type=probability, default=0.95, metavar="LEVEL", help="in (0, 1)"
    )
    zero.add_argument(
        "--runs-per-task",
        type=whole_number(1),
        metavar="N",
        help="runs on each task (default: each independent)",
    )
    zero.add_argument(
        "--icc",
        type=_ICC,
        default=0.0,
        metavar="ICC",
        help="intra-task correlation, in [0, 1)",
    )
    output_arguments(zero, text=False)  # numbers only


def _add_tasks(plan: Parser) -> None:
    """Add ``plan tasks``: the tasks that give an interval of pass^k its width."""
    tasks = plan.add_command(
        "tasks",
        _plan_tasks,
        help="the tasks that give an interval of pass^k its width",
        usage="%(prog)s --half-width WIDTH --p P --k K [options]",
        description=(
            "Print, for each number of runs per task, the fewest tasks with which an\n"
            "evaluation's interval of pass^k is no wider than +/- WIDTH."
        ),
    )
    tasks.add_argument(
        "--half-width",
        type=number_in(0, 0.5, low_in=False, high_in=True),
        required=True,
        metavar="WIDTH",
        help="half the interval's width, in (0, 0.5]",
    )
    tasks.add_argument(
        "--p", type=probability, required=True, metavar="P", help="the mean pass rate, in (0, 1)"
    )
    tasks.add_argument(
        "--k", type=whole_number(1), required=True, metavar="K", help="the pass^k to measure"
    )
    tasks.add_argument(
        "--runs-per-task",
        type=listed(whole_number(1), "5,10"),
        metavar="N",
        help="at least k; a list: 5,10 (default: k, 2k, 4k)",
    )
    tasks.add_argument(
        "--icc", type=_ICC, default=0.0, metavar="ICC", help="intra-task correlation, in [0, 1)"
    )
    tasks.add_argument(
        "--confidence-level", type=probability, default=0.95, metavar="LEVEL", help="in (0, 1)"
    )
    chance = tasks.add_mutually_exclusive_group()
    assurance = chance.add_argument(
        "--assurance",
        type=probability,
        default=0.8,
        metavar="CHANCE",
        help="chance the interval is that narrow",
    )
    expected = chance.add_argument(
        "--expected", action="store_true", help="plan the half-width on average instead"
    )
    for action in (assurance, expected):
        tasks.record(action)
    output_arguments(tasks, text=False)  # numbers only


def _plan_rate(args: argparse.Namespace) -> int:
    """Print the per-run pass rate each target and k need."""
    from passk_lab.planning import required_p

    if len(args.target) * len(args.k) > _MOST_ROWS:
        raise ValueError(
            f"plan rate prints a row for each target and k: {len(args.target):,} x "
            f"{len(args.k):,} is more than {_MOST_ROWS:,}; ask for fewer ks"
        )
    rows = [
        {"target": target, "k": k, "required_p": required_p(target, k=k)}
        for target in args.target
        for k in args.k
    ]
    _emit_plan(
        rows,
        args,
        "The per-run pass rate p with p^k = the pass^k wanted, if every run were independent; "
        "tasks that differ in difficulty reach it with a lower mean rate.",
    )
    return 0


def _plan_zero_failures(args: argparse.Namespace) -> int:
    """Print the runs in a row, none failing, that show each pass rate."""
    from passk_lab.planning import zero_failure_runs

    if args.icc > 0 and args.runs_per_task is None:
        raise ValueError(
            f"--icc {args.icc:g} needs --runs-per-task, the runs each task gets: with independent "
            "runs (one task, or a fresh task for every run) icc does not matter, so leave it out"
        )
    shared = (
        {} if args.runs_per_task is None else {"icc": args.icc, "runs_per_task": args.runs_per_task}
    )
    rows = []
    for p0 in args.p:
        runs = zero_failure_runs(p0, confidence_level=args.confidence_level, **shared)
        tasks = {} if args.runs_per_task is None else {"n_tasks": runs // args.runs_per_task}
        rows.append(
            {
                "p0": p0,
                "confidence_level": args.confidence_level,
                **shared,
                "zero_failure_runs": runs,
                **tasks,
            }
        )
    if args.runs_per_task is None:
        note = (
            "Runs that must all pass to show, at that confidence, a per-run pass rate of at least "
            "p, the runs independent: all on one task (its rate) or each on a fresh task (the "
            "mean rate); runs that share tasks need --icc and --runs-per-task."
        )
    else:
        note = (
            f"Runs that must all pass, {args.runs_per_task} on each of the tasks, to show at that "
            "confidence a mean per-run pass rate of at least p, if the tasks' rates have that icc."
        )
    _emit_plan(rows, args, note)
    return 0


def _plan_tasks(args: argparse.Namespace) -> int:
    """Print the tasks, for each number of runs per task, that give the interval's width."""
    from statistics import NormalDist

    from passk_lab.planning import plan_evaluation

    z = NormalDist().inv_cdf((1 + args.confidence_level) / 2)
    most = (z / (2 * args.half_width)) ** 2
    if most > _MOST_TASKS:
        raise ValueError(
            f"a half-width of {args.half_width:g} could need up to ~{most:.2g} tasks "
            f"at the {args.confidence_level * 100:g}% level, more than the {_MOST_TASKS:,} it "
            f"searches; ask for a wider --half-width, at least "
            f"{math.ceil(z / (2 * math.sqrt(_MOST_TASKS)) * 1e6) / 1e6:g} at this level"
        )
    plan = plan_evaluation(
        args.half_width,
        p=args.p,
        k=args.k,
        runs_per_task=args.runs_per_task,
        icc=args.icc,
        confidence_level=args.confidence_level,
        assurance=None if args.expected else args.assurance,
    )
    level = f"{args.confidence_level * 100:g}%"
    if args.expected:
        note = (
            f"The tasks whose {level} interval of pass^{args.k} has a half-width of "
            f"{args.half_width:g} on average (a normal approximation: the interval reported is "
            "wider), at a mean per-run pass rate of "
            f"{args.p:g} and an icc of {args.icc:g}."
        )
    else:
        note = (
            f"The fewest tasks with which {args.assurance * 100:g}% of evaluations get "
            f"{_article(level)} {level} "
            f"interval of pass^{args.k} no wider than +/- {args.half_width:g}, at a mean per-run "
            f"pass rate of {args.p:g} and an icc of {args.icc:g}; assurance: the share that do."
        )
    _emit_plan(plan, args, note)
    return 0


def _article(number: str) -> str:
    """Return "an" before a number said with a vowel first (8, 11, 18, 80-89), else "a".

    Examples
    --------
    >>> _article("80%"), _article("95%"), _article("11%"), _article("110%")
    ('an', 'a', 'an', 'a')
    """
    return "an" if re.match(r"8|1[18](?!\d)", number) else "a"


def _emit_plan(
    rows: list[dict[str, float]] | pd.DataFrame, args: argparse.Namespace, note: str
) -> None:
    """Print a plan as --to asks; the plain table and Markdown have `note` under them."""
    import pandas as pd

    from passk_lab._labels import PLAN_LABELS

    table = pd.DataFrame(rows)
    if args.to not in ("csv", "json"):  # the values given, as they were typed
        given = [name for name in _PLAN_GIVEN if name in table.columns]
        table[given] = table[given].map(lambda value: f"{value:.15g}")
    text = shown(table, args, digits=4, labels=PLAN_LABELS)
    if args.to in ("csv", "json"):
        emit(text)
        return
    emit(f"{text}\n{wrapped(note)}\n")
