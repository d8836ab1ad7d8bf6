"""The ``passk-lab`` command line."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import textwrap
import warnings
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from passk_lab._choices import FORMATS, INTERVAL_METHODS, PAIRED_METHODS
from passk_lab._errors import keywords_of
from passk_lab._version import __version__

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["main"]


# Every command imports what it needs when it runs: `passk-lab --help` imports no numpy,
# pandas or scipy.


def _reproduce(args: argparse.Namespace) -> int:
    from passk_lab.harness import evaluate
    from passk_lab.simulate import coin_tasks

    result = evaluate(coin_tasks(args.p, args.tasks, args.seed), args.k)
    k = result.k
    rows = [
        ("pass@1", result.pass_at_1, args.p, result.pass_at_1),
        (f"pass^{k}", result.pass_pow_k, args.p**k, result.pass_at_1**k),
    ]
    lines = [
        f"Simulated model right {args.p:.0%} of the time: "
        f"{result.tasks} tasks x {k} runs, seed {args.seed}",
        "",
        f"{'':8}{'measured':>10}{'model p^k':>12}{'pass@1^k':>11}",
        *(
            f"{name:8}{measured:>10.4g}{analytic:>12.4g}{from_measured:>11.4g}"
            for name, measured, analytic, from_measured in rows
        ),
        f"model p^k: the analytic curve at the simulated p = {args.p:g}",
        "pass@1^k:  the same curve at the measured pass@1",
        "",
        f"A run passes {result.pass_at_1:.0%} of the time, yet only {result.pass_pow_k:.0%} "
        f"of tasks pass all {k} runs.",
    ]
    _emit("\n".join(lines) + "\n")
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"coin_p{args.p:g}_tasks{result.tasks}_k{k}_seed{args.seed}.csv"
    result.runs.to_csv(path, index=False)
    _emit(f"Runs written to {path} ({len(result.runs)} rows).\n")
    return 0


def _emit(text: str) -> None:
    """Write `text` to standard output, all of it, or raise BrokenPipeError.

    A write to a pipe whose reader went away part way writes only part of the
    bytes and raises nothing (``TextIOWrapper.write`` drops the count that
    says so); only the next write fails. So the bytes go to the binary buffer
    in a loop that writes what is left until it is all out -- or the write
    after the short one raises. A stream with no binary buffer (a
    ``StringIO``) takes the text as it is.
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


def _whole(least: int) -> Callable[[str], int]:
    """Return an argparse type: a whole number >= `least` (argparse names the option)."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"takes a whole number >= {least}, got {text!r}")
        return value

    return whole


def _number(low: float, high: float, *, low_in: bool, high_in: bool) -> Callable[[str], float]:
    """Return an argparse type: a number from `low` to `high`, each end in it or not."""
    shown = f"{'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        above = value >= low if low_in else value > low
        below = value <= high if high_in else value < high
        if not (above and below):  # NaN too
            raise argparse.ArgumentTypeError(f"takes a number in {shown}, got {text!r}")
        return value

    return number


def _listed(one: Callable[[str], Any], example: str) -> Callable[[str], list[Any]]:
    """Return an argparse type: one value as `one` reads it, or a list of them (`example`)."""

    def listed(text: str) -> list[Any]:
        try:
            return [one(part) for part in text.split(",")]
        except argparse.ArgumentTypeError as error:
            raise argparse.ArgumentTypeError(f"{error} (one, or a list: {example})") from None

    return listed


def _k_values(text: str) -> Sequence[int]:
    """Parse ``--k``: ``5``, ``1,2,4`` or ``1..8``, a range kept unlisted (the curve sizes it)."""
    try:
        if ".." in text:
            first, last = (int(part) for part in text.split(".."))
            values: Sequence[int] = range(first, last + 1)
            smallest = min(first, last)
        else:
            values = [int(part) for part in text.split(",")]
            smallest = min(values)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"takes a number, a list (1,2,4) or a range (1..8), got {text!r}"
        ) from None
    if smallest < 1:
        raise argparse.ArgumentTypeError(f"needs k >= 1, got {text!r}")
    if not values:  # only a range can be empty: its first k above its last
        raise argparse.ArgumentTypeError(
            f"the range {text!r} is empty; write the smaller k first: {last}..{first}"
        )
    return values


def _read_runs(args: argparse.Namespace, path: str | None = None) -> pd.DataFrame:
    """Read RUNS_FILE (or `path`) as --format, --scorer and --threshold say."""
    from passk_lab.io import read

    file = args.runs_file if path is None else path
    name, counted = _format(args, file)
    given = {keyword: getattr(args, dest, None) for keyword, dest in _READ_OPTIONS.items()}
    options = {
        keyword: value
        for keyword, value in given.items()
        if value is not None and value is not False
    }
    if getattr(args, "by", None) and _takes(name, "by"):
        options["by"] = args.by  # a reader that reads groups reads them as ids, as tally does
    try:
        return read(file, format=name, **options)
    except (TypeError, ValueError) as error:
        if not counted or not _reads_as_runs(file, options):
            raise
        raise type(error)(
            f"{error} (--n and --c read {file} as a table of counts; without them it reads as a "
            "runs table: leave them out)"
        ) from None


def _reads_as_runs(file: str, options: dict[str, Any]) -> bool:
    """Tell whether `file`, refused as a table of counts, reads as a runs table with `options`."""
    from passk_lab.io import read

    kept = {name: value for name, value in options.items() if name not in ("n", "c")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what reading it warns of is not this file's reading
        try:
            read(file, format="table", **kept)
        except (TypeError, ValueError):
            return False
    return True


def _format(args: argparse.Namespace, file: str) -> tuple[str, bool]:
    """Return the format of `file` (--format, else told from its shape), and if --n or --c chose it.

    A table told from its shape is a table of counts when --n or --c names its columns.
    """
    from passk_lab.io import detect_format

    if args.format != "auto":
        return str(args.format), False
    name = detect_format(file)
    counted = name == "table" and (args.n is not None or args.c is not None)
    return ("counts" if counted else name), counted


_READ_OPTIONS = {
    "scorer": "scorer",
    "threshold": "threshold",
    "task": "task",
    "run": "run",
    "passed": "passed",
    "reward": "reward",
    "n": "n",
    "c": "c",
    "metric": "lm_eval_metric",
    "filter": "lm_eval_filter",
    "partial": "partial",
}
"""The options of `_input_arguments` that pass on to the reader: its keyword, the option's dest."""


def _takes(name: str, option: str) -> bool:
    """Tell whether the reader of the format `name` takes `option`."""
    from passk_lab.io._formats import REGISTRY

    return any(row.name == name and option in row.options for row in REGISTRY)


def _interval_options(args: argparse.Namespace) -> dict[str, Any]:
    """Return the keywords every statistic takes, from the options `_interval_arguments` adds."""
    return {
        "errors": args.errors,
        "confidence_level": args.confidence_level,
        "n_resamples": args.resamples,
        "rng": args.seed,
    }


def _curve_options(args: argparse.Namespace) -> dict[str, Any]:
    """Return the reliability curve's keywords, from the options `_curve_arguments` adds."""
    return {
        "by": args.by,
        "method": args.method,
        "predict_to": args.predict_to,
        **_interval_options(args),
    }


def _shown(
    table: pd.DataFrame,
    args: argparse.Namespace,
    *,
    digits: int = 3,
    labels: dict[str, str] | None = None,
) -> str:
    """Return a result table as --to asks.

    CSV and JSON keep the library's names; the plain table and Markdown show it as the report
    does: its labels (and `labels`), each interval in one column, `digits` decimals.
    """
    from passk_lab.report._render import to_markdown
    from passk_lab.report._tables import guard_formulas, labelled

    if args.to == "csv":
        guarded = getattr(args, "formula_guard", False)  # a table of numbers has no text to guard
        return str((guard_formulas(table) if guarded else table).to_csv(index=False))
    if args.to == "json":
        return str(table.to_json(orient="records", indent=2, double_precision=15)) + "\n"
    shown = labelled(table.rename(columns=labels or {}))
    if args.to == "markdown":
        return to_markdown(shown, digits=digits) + "\n"
    return "\n".join(_plain(shown, digits)) + "\n"


def _plain(shown: pd.DataFrame, digits: int) -> list[str]:
    """Return the lines of a labelled table as plain text: its header, then one line a row."""
    wide: dict[Hashable, int] = {name: len(name) + 1 for name in shown.columns}
    text = shown.to_string(
        index=False,
        float_format=lambda value: f"{value:.{digits}f}",
        na_rep="",  # a value with no estimate: an empty cell, as in Markdown and the report
        col_space=wide,  # the labels hold spaces: set them apart
    )
    return text.splitlines()


def _analyze(args: argparse.Namespace) -> int:
    from passk_lab.estimators import reliability_curve

    curve = reliability_curve(_read_runs(args), args.k, **_curve_options(args))
    _emit(_by_group(curve, args) if args.by and args.to == "table" else _shown(curve, args))
    return 0


def _by_group(curve: pd.DataFrame, args: argparse.Namespace) -> str:
    """Return a curve with --by as one block per group: a heading ("model = a"), then its rows.

    Every block has the same columns, lined up as one table, less the group columns.
    """
    from passk_lab._data.rules import display
    from passk_lab.report._tables import labelled

    lines = _plain(labelled(curve.drop(columns=args.by)), 3)
    blocks = []
    for key, rows in curve.groupby(args.by, sort=False, dropna=False).indices.items():
        values = key if isinstance(key, tuple) else (key,)
        heading = ", ".join(
            f"{column} = {display(value)}" for column, value in zip(args.by, values, strict=True)
        )
        blocks.append("\n".join([heading, lines[0], *(lines[1 + row] for row in rows)]))
    return "\n\n".join(blocks) + "\n"


def _leaderboard(args: argparse.Namespace) -> int:
    from passk_lab._labels import LABELS
    from passk_lab.ranking import pairwise, ranks_and_tests

    runs = _read_runs(args)
    options = {"by": args.by, "ks": args.k, "unmatched": args.unmatched, **_interval_options(args)}
    if args.pairs:  # the board's own tests: its metric, on the tasks every agent has k runs of
        _emit(_shown(pairwise(runs, metrics=[args.metric], common_tasks=True, **options), args))
        return 0
    board, tests = ranks_and_tests(runs, metric=args.metric, **options)
    if args.to in ("csv", "json"):  # one table, that a program reads back
        _emit(_shown(board, args))
        return 0
    note = (
        f"The tests the ranks come from: every pair at {LABELS[args.metric]} on the tasks every "
        "agent has k runs of; A - B is agent A's value less agent B's, and the adjusted p is "
        "Holm's over the pairs at each k"
    )
    _emit(f"{_shown(board, args)}\n{textwrap.fill(note, width=100)}\n\n{_shown(tests, args)}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from passk_lab.comparison import compare

    sides, names = _compared(args)
    options = {"method": args.method, **_interval_options(args)}
    typed = (f"A ({names[0]})", f"B ({names[1]})")
    table = compare(sides[0], sides[1], args.k, unmatched=args.unmatched, names=typed, **options)
    heading = "" if args.to in ("csv", "json") else f"A: {names[0]}; B: {names[1]}\n\n"
    _emit(heading + _shown(table, args))
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
        return [_read_runs(args, path) for path in files], list(files)
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
    runs = _read_runs(args, files[0])
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
        shown = sorted(values)
        listed = ", ".join(shown[:20]) + (f" and {len(shown) - 20} more" if len(shown) > 20 else "")
        raise ValueError(
            f"--{option} {value!r} is not a value of column {column!r}, which holds: {listed}"
        )
    chosen: pd.DataFrame = runs[runs[column] == values[value]]
    return chosen


def _report(args: argparse.Namespace) -> int:
    from passk_lab.report import write_report

    out = Path(args.out) if args.out is not None else Path("report") / _stem(args.runs_file)
    written = write_report(
        _read_runs(args),
        out,
        ks=args.k,
        source=Path(os.path.abspath(args.runs_file)),
        title=args.title,
        force=args.force,
        formula_guard=args.formula_guard,
        **_curve_options(args),
    )
    page = next(path for path in written if path.name == "report.html")
    _emit(f"Wrote {len(written)} files to {out}{os.sep}\nThe report: {page}\n")
    return 0


_WILDCARD = re.compile(r"[*?[]")
"""A glob pattern's wildcards."""


def _stem(path: str) -> str:
    """Return the name of a report of `path`: a file's name less its suffix, a folder's name.

    A glob pattern's name is its last part up to the first wildcard, less the separators it
    ends in (``samples_gsm8k_2024*`` is ``samples_gsm8k_2024``), or, if that leaves nothing
    (``logs/*.jsonl``), its folder's name.
    """
    whole = Path(os.path.abspath(path))
    if _WILDCARD.search(whole.name):
        named = _WILDCARD.split(whole.name, maxsplit=1)[0].rstrip("_-. ")
        return named or _stem(str(whole.parent))
    return (whole.name if whole.is_dir() else whole.stem) or "runs"


_PLAN_GIVEN = ("target", "p0", "confidence_level", "icc")
"""The columns of the planning tables that hold a value given: shown as it was, not rounded."""


_MOST_ROWS = 100_000
"""The most rows ``plan rate`` prints: a range of ks is not listed before it is counted."""


def _plan_rate(args: argparse.Namespace) -> int:
    from passk_lab.planning import required_p

    if len(args.target) * len(args.k) > _MOST_ROWS:
        raise ValueError(
            f"plan rate prints a row for each target and k: {len(args.target):,} x "
            f"{len(args.k):,} is more than {_MOST_ROWS:,}; ask for fewer ks"
        )
    rows = [
        {"target": target, "k": k, "required_p": required_p(target, k)}
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
        runs = zero_failure_runs(p0, args.confidence_level, **shared)
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


def _article(number: str) -> str:
    """Return "an" before a number said with a vowel first (8, 11, 18, 80-89), else "a"."""
    return "an" if re.match(r"8|1[18](?!\d)", number) else "a"


_MOST_TASKS = 10**8
"""The most tasks ``plan tasks`` searches: a half-width that could need more is refused.

One task's estimate of pass^k lies in [0, 1], so its sd is at most 1/2 and the normal
approximation needs at most ``(z / (2 h))^2`` tasks for a half-width h: at the 95% level,
half-widths below about 1e-4. The plan's time grows with the tasks (about 6 s at this many).
"""


def _plan_tasks(args: argparse.Namespace) -> int:
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
        args.p,
        args.k,
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
    shown = _shown(table, args, digits=4, labels=PLAN_LABELS)
    if args.to in ("csv", "json"):
        _emit(shown)
        return
    _emit(f"{shown}\n{textwrap.fill(note, width=100)}\n")


def _input_arguments(parser: argparse.ArgumentParser, *, two_files: bool = False) -> None:
    """Add RUNS_FILE (one, or with `two_files` one or more) and how to read it."""
    parser.add_argument(
        "runs_file",
        metavar="RUNS_FILE",
        nargs="+" if two_files else None,
        help="a runs table or a table of per-task counts (.csv, .jsonl, .parquet), tau-bench "
        "or tau2-bench results (.json, or a tau2 results folder), a Harbor job folder, HAL upload "
        "files, lm-evaluation-harness sample logs (.jsonl, or their folder), per-task "
        "verdict lists (.json), or an Inspect log (.eval, .json) or log directory"
        + ("; two of them are two agents, one each" if two_files else ""),
    )
    parser.add_argument(
        "--format",
        choices=["auto", *FORMATS],
        default="auto",
        metavar="FORMAT",
        help="of RUNS_FILE: %(choices)s (default: auto, told from its shape: the suffix, the "
        "first record, what a folder holds)",
    )
    parser.add_argument(
        "--task",
        metavar="COL",
        help="runs tables and tables of counts: the column of task ids, when it is not 'task'",
    )
    parser.add_argument(
        "--run",
        metavar="COL",
        help="runs tables: the column that numbers each task's runs, when it is not 'run'",
    )
    parser.add_argument(
        "--passed",
        metavar="COL",
        help="runs tables: the column of verdicts (true or false), when it is not 'passed'",
    )
    parser.add_argument(
        "--reward",
        metavar="NAME",
        help="runs tables: the reward column, a run passing at --threshold; Harbor jobs: the "
        "verifier's reward, when it records several",
    )
    parser.add_argument(
        "--n",
        metavar="COL",
        help="tables of counts: the column of each task's runs, when it is not 'n'",
    )
    parser.add_argument(
        "--c",
        metavar="COL",
        help="tables of counts: the column of each task's passed runs, when it is not 'c'",
    )
    parser.add_argument(
        "--lm-eval-metric",
        metavar="NAME",
        help="lm-evaluation-harness logs: the metric that decides a pass",
    )
    parser.add_argument(
        "--lm-eval-filter",
        metavar="NAME",
        help="lm-evaluation-harness logs: the filter to read, when a log holds several",
    )
    parser.add_argument(
        "--partial",
        action="store_true",
        help="tau2-bench, Harbor, HAL and lm-evaluation-harness: read an evaluation with fewer "
        "trials than it declares "
        "(one that stopped early) instead of refusing it",
    )
    parser.add_argument(
        "--scorer", metavar="NAME", help="Inspect logs: the scorer that decides a pass"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        metavar="X",
        help="runs tables, Inspect, Harbor, HAL and lm-evaluation-harness logs: the reward "
        "(score) a run needs to pass "
        "(default: 1, which needs rewards in [0, 1])",
    )


def _k_argument(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--k", type=_k_values, metavar="KS", help=f"k values: 5, 1,2,4 or 1..8 (default: {default})"
    )


def _output_arguments(parser: argparse.ArgumentParser, *, text: bool = True) -> None:
    """Add --to, what to print, and, if the tables have `text` cells, the CSV's formula guard."""
    parser.add_argument(
        "--to",
        choices=["table", "csv", "markdown", "json"],
        default="table",
        help="what to print (default: a plain table)",
    )
    if text:
        _guard_argument(parser)


def _guard_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help="write CSV text cells as they are; by default one that starts with =, +, -, @, a "
        "tab or a carriage return gets a ' in front, so that a spreadsheet runs no formula",
    )


def _by_argument(
    parser: argparse.ArgumentParser,
    *,
    required: bool = False,
    what: str,
) -> None:
    parser.add_argument("--by", action="append", required=required, metavar="COL", help=what)


def _unmatched_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--unmatched",
        choices=["raise", "drop"],
        default="raise",
        help=f"{what} is refused (default) or dropped, with a warning",
    )


def _interval_arguments(
    parser: argparse.ArgumentParser,
    *,
    resamples: str,
    methods: Sequence[str] = (),
    method: str = "",
) -> None:
    """Add --errors and the interval options.

    --confidence-level, --method among `methods` (helped as `method`; none when there are no
    methods), --resamples (helped as `resamples`) and --seed.
    """
    parser.add_argument(
        "--errors",
        choices=["fail", "exclude"],
        default="fail",
        help="an errored or timed-out run is a failure (default) or left out",
    )
    parser.add_argument(
        "--confidence-level",
        type=_number(0, 1, low_in=False, high_in=False),
        default=0.95,
        metavar="LEVEL",
        help="of every interval, in (0, 1) (default: 0.95)",
    )
    if methods:
        parser.add_argument(
            "--method", choices=methods, default="auto", metavar="METHOD", help=method
        )
    parser.add_argument("--resamples", type=_whole(1), default=10_000, metavar="N", help=resamples)
    parser.add_argument(
        "--seed",
        type=_whole(0),
        default=0,
        help="seed of the resamples (default: 0, so a file always prints the same figures)",
    )


def _curve_arguments(parser: argparse.ArgumentParser, predicted: str) -> None:
    """Add --by, --predict-to (its default helped as `predicted`) and the interval options."""
    _by_argument(parser, what="grouping column (repeat for several): one curve per group")
    parser.add_argument(
        "--predict-to",
        type=_whole(1),
        metavar="K",
        help="predict (pass@1)^k and beta-binomial pass^k up to this k, beyond the runs "
        f"measured (default: {predicted})",
    )
    _interval_arguments(
        parser,
        resamples="bootstrap resamples",
        methods=INTERVAL_METHODS,
        method="interval of pass^k and pass@k: %(choices)s (default: auto, Clopper-Pearson on "
        "the tasks where every task has k runs, else on the effective number of tasks)",
    )


class _Parser(argparse.ArgumentParser):
    """A parser that keeps, for each option it is given, its dest and its longest spelling.

    ``options`` lets a message that names a keyword of the library (``run``,
    ``n_resamples``) name the option that sets it here (``--run``,
    ``--resamples``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: dict[str, str] = {}
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.keep(action)
        return action

    def keep(self, action: argparse.Action) -> None:
        """Keep an option added elsewhere (in a group of options) among :attr:`options`."""
        if action.option_strings and action.dest not in ("help", "version"):
            self.options[action.dest] = max(action.option_strings, key=len)


class _Help(argparse.HelpFormatter):
    """Help that says every option's default: "(default: X)" after a help that does not."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if not _shows_default(action) or "default" in text:
            return action.help
        return f"{text} (default: %(default)s)"


def _shows_default(action: argparse.Action) -> bool:
    """Tell whether an option has a default to show: a value it takes when left out."""
    return (
        bool(action.option_strings)
        and action.nargs != 0
        and action.default
        not in (
            None,
            argparse.SUPPRESS,
        )
    )


def _command(
    commands: argparse._SubParsersAction[_Parser],
    name: str,
    handler: Callable[[argparse.Namespace], int] | None,
    **options: Any,
) -> _Parser:
    """Add the command `name`, run by `handler` (None: it has commands of its own)."""
    parser = commands.add_parser(name, formatter_class=_Help, **options)
    assert isinstance(parser, _Parser)  # a subcommand's parser is of its parent's class
    if handler is not None:
        parser.set_defaults(handler=handler, prog=parser.prog, options=parser.options)
    return parser


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="passk-lab",
        description="Measure how reliably an agent does a job: pass@1 next to pass^k.",
        formatter_class=_Help,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    reproduce = _command(
        commands,
        "reproduce",
        _reproduce,
        help="run the source's simulated model (a seeded coin) and print pass@1 and pass^k",
        description=(
            "Evaluate a simulated model that passes each run with probability P, "
            "print pass@1 and pass^k beside the analytic p^k, and write every run to a CSV."
        ),
    )
    reproduce.add_argument("--p", type=float, default=0.85, help="per-run pass probability")
    reproduce.add_argument("--tasks", type=_whole(1), default=40, help="number of tasks")
    reproduce.add_argument("-k", "--k", type=_whole(1), default=5, help="runs per task")
    reproduce.add_argument("--seed", type=int, default=42, help="seed of the mulberry32 stream")
    reproduce.add_argument(
        "--out", default="data", metavar="DIR", help="directory for the runs CSV (default: data)"
    )

    analyze = _command(
        commands,
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
    _input_arguments(analyze)
    _k_argument(analyze, "1 to the most runs of any task")
    _output_arguments(analyze)
    _curve_arguments(analyze, "none beyond the ks asked")

    report = _command(
        commands,
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
    _input_arguments(report)
    _k_argument(
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
    _guard_argument(report)
    report.add_argument(
        "--title",
        help="the report's heading (default: 'Reliability report: ' and the name of RUNS_FILE)",
    )
    _curve_arguments(
        report, "without --k twice the most runs of any task, at least 10; with it the largest k"
    )

    board = _command(
        commands,
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
    _input_arguments(board)
    _by_argument(board, required=True, what="the column that names the agents (repeat for several)")
    _k_argument(board, "1 to the most runs every agent has on a task")
    board.add_argument(
        "--metric",
        choices=["pass_pow_k", "pass_at_k"],
        default="pass_pow_k",
        help="what the agents are ranked by, and the pairs' rows shown (default: pass_pow_k)",
    )
    board.add_argument(
        "--pairs",
        action="store_true",
        help="print the pairwise table alone: the tests the ranks come from (every pair at "
        "the ranked metric, on the tasks every agent has k runs of)",
    )
    _unmatched_argument(board, "a task that not every agent ran")
    _output_arguments(board)
    _interval_arguments(
        board,
        resamples="draws of a sign-flip test too large to compute exactly (default: 10000)",
    )

    compare = _command(
        commands,
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
    _input_arguments(compare, two_files=True)
    _by_argument(compare, what="with one file: the column that names the agents")
    compare.add_argument("--a", metavar="X", help="with --by: the value of agent A")
    compare.add_argument("--b", metavar="Y", help="with --by: the value of agent B")
    _k_argument(compare, "1 to the most runs both agents have")
    _unmatched_argument(compare, "a task that only one agent ran")
    _output_arguments(compare)
    _interval_arguments(
        compare,
        resamples="bootstrap resamples of bca and percentile",
        methods=PAIRED_METHODS,
        method="interval of the difference: %(choices)s (default: auto, the agents' "
        "Clopper-Pearson intervals on effective numbers of tasks, combined)",
    )
    _plan_arguments(commands)
    return parser


def _plan_arguments(commands: argparse._SubParsersAction[_Parser]) -> None:
    """Add ``plan`` and its questions: ``rate``, ``zero-failure`` and ``tasks``."""
    plan = _command(
        commands,
        "plan",
        None,
        help="plan an evaluation: the pass rate a target needs, the runs that show a rate, the "
        "tasks an interval needs",
        description=(
            "Answer a question before the runs: what per-run pass rate a target pass^k needs "
            "(rate), how many runs in a row must pass to show a pass rate (zero-failure), and "
            "how many tasks and runs per task give an interval of pass^k as narrow as wanted "
            "(tasks). Each prints a table, as --to asks."
        ),
    )
    questions = plan.add_subparsers(dest="question", required=True, metavar="QUESTION")
    probability = _number(0, 1, low_in=False, high_in=False)
    rate = _command(
        questions,
        "rate",
        _plan_rate,
        help="the per-run pass rate a target pass^k needs: target^(1/k)",
        description=(
            "Print the per-run pass rate p with p^k = the pass^k wanted, for every target and "
            "k: what independent runs need. Tasks that differ in difficulty reach the target "
            "with a lower mean rate (the same tasks keep passing)."
        ),
    )
    rate.add_argument(
        "--target",
        type=_listed(_number(0, 1, low_in=True, high_in=True), "0.8,0.9"),
        required=True,
        metavar="PASS_POW_K",
        help="the pass^k wanted, in [0, 1]: one, or a list (0.8,0.9)",
    )
    rate.add_argument(
        "--k",
        type=_k_values,
        required=True,
        metavar="KS",
        help="runs that must all pass: 5, 1,2,4 or 1..8",
    )
    _output_arguments(rate, text=False)  # numbers only

    zero = _command(
        questions,
        "zero-failure",
        _plan_zero_failures,
        help="how many runs in a row, none failing, show a pass rate of at least p",
        description=(
            "Print how many runs must all pass to show, at a confidence level, a per-run pass "
            "rate of at least p. With independent runs (the default) that is the smallest n "
            "with p^n <= 1 - confidence: the runs of one task show that task's rate, runs on a "
            "fresh task each the mean rate. Runs that share tasks show the mean rate only with "
            "more of them: give --runs-per-task and the tasks' intra-task correlation --icc."
        ),
    )
    zero.add_argument(
        "--p",
        type=_listed(probability, "0.9,0.95"),
        required=True,
        help="the pass rate to show, in (0, 1): one, or a list (0.9,0.95)",
    )
    zero.add_argument(
        "--confidence-level", type=probability, default=0.95, metavar="LEVEL", help="in (0, 1)"
    )
    zero.add_argument(
        "--icc",
        type=_number(0, 1, low_in=True, high_in=False),
        default=0.0,
        help="intra-task correlation of the tasks' pass rates, in [0, 1); above 0 it needs "
        "--runs-per-task",
    )
    zero.add_argument(
        "--runs-per-task",
        type=_whole(1),
        metavar="R",
        help="runs each task gets (default: every run independent, one task or a fresh one each)",
    )
    _output_arguments(zero, text=False)  # numbers only

    tasks = _command(
        questions,
        "tasks",
        _plan_tasks,
        help="how many tasks, and runs per task, give an interval of pass^k of a chosen width",
        description=(
            "Print, for each number of runs per task, the fewest tasks with which an evaluation "
            "gets a confidence interval of pass^k no wider than +/- the half-width, with a "
            "chance (the assurance) under a model: each task's per-run pass rate drawn around "
            "the mean p, its spread the intra-task correlation icc (0: every task has rate p). "
            "The interval is the one analyze reports by default."
        ),
    )
    tasks.add_argument(
        "--half-width",
        type=_number(0, 0.5, low_in=False, high_in=True),
        required=True,
        metavar="H",
        help="half the interval's width wanted, in (0, 0.5]; one that could need more than "
        "100,000,000 tasks (below about 1e-4 at the 95%% level) is refused",
    )
    tasks.add_argument(
        "--p", type=probability, required=True, help="the guessed mean per-run pass rate, in (0, 1)"
    )
    tasks.add_argument("--k", type=_whole(1), required=True, help="the pass^k to measure")
    tasks.add_argument(
        "--runs-per-task",
        type=_listed(_whole(1), "5,10"),
        metavar="RS",
        help="runs per task to plan for, each at least k: one, or a list (5,10) (default: k, 2k "
        "and 4k)",
    )
    tasks.add_argument(
        "--icc",
        type=_number(0, 1, low_in=True, high_in=False),
        default=0.0,
        help="guessed intra-task correlation of the tasks' pass rates, in [0, 1); 0 for "
        "identical tasks",
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
        help="the chance, in (0, 1), that an evaluation's interval is that narrow",
    )
    expected = chance.add_argument(
        "--expected",
        action="store_true",
        help="plan the half-width on average instead (a normal approximation; the interval "
        "reported is wider, so it often misses)",
    )
    for action in (assurance, expected):
        tasks.keep(action)
    _output_arguments(tasks, text=False)  # numbers only


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``passk-lab`` command line and return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        0 on success; 2 when the arguments, the input or its size are refused (one line on
        stderr says why, a closed pipe too: the reader of the output went away); 130 on
        Ctrl-C.

    Examples
    --------
    The per-run pass rate that pass^k = 0.9 needs at k = 1 and 5, as CSV:

    >>> main(["plan", "rate", "--target", "0.9", "--k", "1,5", "--to", "csv"])
    target,k,required_p
    0.9,1,0.9
    0.9,5,0.9791483623609768
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    command = str(args.prog)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                status: int = args.handler(args)
                sys.stdout.flush()  # a closed pipe shows here, not at exit
            except BrokenPipeError:
                raise
            except _REFUSED as exc:
                error: str | None = _with_options(_message(exc), keywords_of(exc), args)
            else:
                error = None
    except BrokenPipeError:  # the reader went away (| head): no more output, as Python's docs say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"{command}: error: the output was closed before it was all written", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    # what the readers and estimators warned of, as plain lines, each once (a leaderboard's
    # table of pairs warns of the same dropped tasks as the leaderboard)
    said = dict.fromkeys(
        _with_options(
            str(warning.message),
            keywords_of(warning.message) if isinstance(warning.message, Warning) else (),
            args,
        )
        for warning in caught
    )
    for message in said:
        print(f"{command}: warning: {message}", file=sys.stderr)
    if error is not None:
        parser.exit(2, f"{command}: error: {error}\n")
    return status


_KEYWORD_DESTS = {**_READ_OPTIONS, "n_resamples": "resamples", "rng": "seed"}
"""The library's keywords whose options have another dest than the keyword itself."""


def _with_options(text: str, keywords: Sequence[str], args: argparse.Namespace) -> str:
    """Return a message of the library with the options that set the keywords it names.

    Each of `keywords` (what a refusal or a warning names as its fix, see
    :func:`passk_lab._errors.keywords_of`) that the command has an option for
    is told once at the end: " (on the command line: run= is --run)".
    """
    options: dict[str, str] = getattr(args, "options", {})
    told = [
        f"{keyword}= is {options[dest]}"
        for keyword in dict.fromkeys(keywords)
        if (dest := _KEYWORD_DESTS.get(keyword, keyword)) in options
    ]
    return f"{text} (on the command line: {', '.join(told)})" if told else text


_REFUSED = (
    TypeError,
    ValueError,
    ImportError,
    OSError,
    OverflowError,
    RecursionError,
    MemoryError,
)
"""What a command's input or its size can cause: each is told in one line and exits 2.

Anything else is a fault in passk_lab itself and keeps its traceback.
"""


def _message(error: BaseException) -> str:
    """One line for an error a command refused: an OSError's reason and file, else its text."""
    if isinstance(error, OSError) and error.strerror:
        files = [str(name) for name in (error.filename, error.filename2) if name is not None]
        return ": ".join([*files, error.strerror])
    if isinstance(error, MemoryError):
        return "out of memory; give a smaller input, fewer ks or fewer resamples"
    if isinstance(error, RecursionError):
        return "the input is nested too deeply to read"
    text = " ".join(str(error).split())  # one line, however the message was wrapped
    return text or type(error).__name__
