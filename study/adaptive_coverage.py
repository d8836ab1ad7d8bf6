"""The simulation study of the adaptive evaluation: the runs it saves and its coverage.

Drives the adaptive evaluation's own procedure (:func:`passk_lab._sequential.procedure`)
with drawn outcomes and measures how many runs it needs to reach a chosen
half-width, against the fixed design that guarantees that half-width, and
how often the interval it reports at its stop holds the truth.

Run from the repository root::

    python study/adaptive_coverage.py --quick   # seconds: prints the tables (writes to --out)
    nice python study/adaptive_coverage.py --jobs 2   # docs/coverage/adaptive/*.csv, tables.md

Every replicate of every cell draws from its own generator, seeded by
``--seed``, the cell's index and the replicate's, so the study repeats
exactly in any order and over any number of processes (``--jobs``, 2 by
default).

The model
---------
A pool of 100,000 tasks (so that no evaluation runs out of tasks). Task i has
the per-run pass rate ``p_i ~ Beta`` of mean ``mean`` and intra-task
correlation ``icc`` (shapes ``mean (1 - icc) / icc`` and
``(1 - mean)(1 - icc) / icc``; ``p_i = mean`` at icc 0), drawn as the Beta
quantile of ``u_i ~ U(0, 1)``; its runs are independent Bernoulli(``p_i``).
The truth is the population's pass^k, ``E[p^k] = prod_{j < k} (alpha + j) /
(alpha + beta + j)`` (``mean^k`` at icc 0), or pass@k, ``1 - E[(1 - p)^k]``.
Two agents share each task's ``u_i``, so their rates on a task are
correlated, each with its own mean (and the one icc); the truth is the
difference of their population values.

A task's rate is drawn when the procedure first asks for one of its runs,
with all of its possible runs' outcomes at once (a batch's first runs are
one array draw); the procedure makes every decision, the study only answers
the runs it asks for.

The design
----------
pass^5 or pass@5 (k = 5) at a 0.95 level; 5 first runs per task and no more
(``evaluate_until``'s default), or with ``--most 20`` at most 20 (the
procedure's two-stage plans; tables in ``extra_runs/``), 10 tasks per batch;
the evaluation stops
when the interval after a batch has half-width ``(high - low) / 2`` at most
0.05 or 0.1, or, for two agents, also when the interval of the difference
excludes 0 (the sign is decided). One agent reports
:func:`passk_lab._sequential.sequential_interval` on every task so far; two
agents the betting confidence sequence of the paired differences.

It is compared with the fixed design that guarantees the half-width without
knowing p: 5 runs on each of T tasks, T the fewest tasks with which the
Clopper-Pearson interval on the tasks (what the library reports at k runs per
task) has half-width at most h whatever the count of tasks passing. For
reference, the fixed design that knows p: :func:`passk_lab.plan_evaluation`'s
total runs at 5 runs per task (assurance 0.8), an oracle no user has (for
pass@5 at mean m, pass^5's plan at 1 - m: at 5 runs per task the tasks'
values are 0 or 1 and Clopper-Pearson is symmetric).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

import passk_lab as pk
from passk_lab._betabinom import beta_shapes
from passk_lab._interval import clopper_pearson
from passk_lab._sequential import Design, Job, Outcome, Stop, procedure, target_limits
from passk_lab._two_stage import Statistic

sys.path.append(str(Path(__file__).resolve().parent))  # study/_markdown.py, when a test loads this
import _markdown

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "coverage" / "adaptive"
LEVEL = 0.95
BAR = 0.93
"""Every cell's coverage must reach this."""
RATIO_BAR = 0.7
"""The mean over cells of the runs over the guaranteed fixed design's must be at most this."""
SIGN_BAR = 0.025
"""The share of evaluations stopped with the wrong sign, per side, must not exceed this."""
K, FIRST, MOST, BATCH, POOL = 5, 5, 20, 10, 100_000
MEANS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
ICCS = (0.0, 0.1, 0.2, 0.4)
PAIRS = ((0.8, 0.8), (0.8, 0.75), (0.8, 0.7), (0.6, 0.5))
PAIR_ICC = 0.2
LABELS: dict[Statistic, str] = {"pass_pow_k": f"pass^{K}", "pass_at_k": f"pass@{K}"}
PARTS = (LABELS["pass_pow_k"], LABELS["pass_at_k"], "two agents")
REPLICATES = {PARTS[0]: 400, PARTS[1]: 200, PARTS[2]: 100}
"""Replicates per cell of the full run, per part: 7 minutes on two cores (12 with --most 20)."""
QUICK_REPLICATES = 8


@dataclass(frozen=True)
class Cell:
    """One setting of the study: one agent's mean, or two agents' means."""

    index: int
    statistic: Statistic
    half_width: float
    means: tuple[float, ...]
    icc: float

    @property
    def agents(self) -> int:
        """The agents evaluated: 1, or 2 for a difference."""
        return len(self.means)

    @property
    def part(self) -> str:
        """The part of the study the cell belongs to (its replicates are the part's)."""
        return PARTS[2] if self.agents == 2 else LABELS[self.statistic]


@dataclass(frozen=True)
class Settings:
    """The cells of one run of the study, how many replicates each part draws, and the seed."""

    cells: list[Cell]
    replicates: dict[str, int]
    seed: int
    most: int = FIRST  # runs a task may get: evaluate_until's default, no task goes on


def grid(quick: bool) -> list[Cell]:
    """Return the full grid's cells, or the quick grid's (four cells at half-width 0.1)."""
    settings: list[tuple[Statistic, float, tuple[float, ...], float]]
    if quick:
        settings = [
            ("pass_pow_k", 0.1, (0.7,), 0.2),
            ("pass_pow_k", 0.1, (0.9,), 0.4),
            ("pass_at_k", 0.1, (0.5,), 0.1),
            ("pass_pow_k", 0.1, (0.6, 0.5), PAIR_ICC),
        ]
    else:
        settings = [
            ("pass_pow_k", half_width, (mean,), icc)
            for half_width in (0.05, 0.1)
            for mean in MEANS
            for icc in ICCS
        ]
        settings += [("pass_at_k", 0.05, (mean,), icc) for mean in MEANS for icc in ICCS]
        settings += [("pass_pow_k", 0.05, pair, PAIR_ICC) for pair in PAIRS]
    return [Cell(index, *setting) for index, setting in enumerate(settings)]


# ---------------------------------------------------------------- truths and fixed designs


def truth(statistic: Statistic, mean: float, icc: float, k: int = K) -> float:
    """Return the population's pass^k, ``E[p^k]``, or pass@k, ``1 - E[(1 - p)^k]``."""
    if icc == 0:
        return mean**k if statistic == "pass_pow_k" else 1.0 - (1.0 - mean) ** k
    alpha, beta = beta_shapes(mean, icc)
    j = np.arange(k)
    if statistic == "pass_pow_k":
        return float(np.prod((alpha + j) / (alpha + beta + j)))
    return 1.0 - float(np.prod((beta + j) / (alpha + beta + j)))


def cell_truth(cell: Cell) -> float:
    """Return the cell's truth: the agent's value, or the first agent's less the second's."""
    values = [truth(cell.statistic, mean, cell.icc) for mean in cell.means]
    return values[0] if cell.agents == 1 else values[0] - values[1]


def worst_half_width(tasks: int, level: float = LEVEL) -> float:
    """Return the largest Clopper-Pearson half-width on `tasks` tasks, over every count passing."""
    low, high = clopper_pearson(np.arange(tasks + 1), np.full(tasks + 1, tasks), level)
    return float(np.max((high - low) / 2.0))


@cache
def guaranteed_tasks(half_width: float, level: float = LEVEL) -> int:
    """Return the fewest tasks whose Clopper-Pearson half-width is at most `half_width` always."""
    tasks = 1
    while worst_half_width(tasks, level) > half_width:
        tasks += 1
    return tasks


@cache
def oracle_runs(statistic: Statistic, half_width: float, mean: float, icc: float) -> int:
    """Return the runs of ``pk.plan_evaluation``'s fixed design at k runs per task, knowing p."""
    p = mean if statistic == "pass_pow_k" else 1.0 - mean
    plan = pk.plan_evaluation(half_width, p=p, k=K, icc=icc, runs_per_task=K)
    return int(plan["total_runs"].iloc[0])


# ---------------------------------------------------------------- simulated runs


def task_rates(cell: Cell, u: np.ndarray) -> np.ndarray:
    """Return the tasks' per-run pass rates, tasks x agents, as Beta quantiles of `u`."""
    rates = np.empty((len(u), cell.agents))
    for agent, mean in enumerate(cell.means):
        if cell.icc == 0:
            rates[:, agent] = mean
        else:
            rates[:, agent] = special.betaincinv(*beta_shapes(mean, cell.icc), u)
    return rates


class Runs:
    """Answers the procedure's runs with drawn outcomes; counts the runs it answered."""

    def __init__(self, cell: Cell, most: int, rng: np.random.Generator) -> None:
        self.cell, self.most, self.rng = cell, most, rng
        self.passed: dict[int, np.ndarray] = {}  # per task: agents x most
        self.answered = 0

    def answer(self, jobs: list[Job]) -> dict[Job, Outcome]:
        """Return every job's outcome, drawing the tasks not seen before (and all their runs)."""
        new = sorted({job.task for job in jobs}.difference(self.passed))
        if new:
            rates = task_rates(self.cell, self.rng.random(len(new)))
            draws = self.rng.random((len(new), self.cell.agents, self.most)) < rates[:, :, None]
            self.passed.update(zip(new, draws, strict=True))
        self.answered += len(jobs)
        return {job: Outcome(bool(self.passed[job.task][job.agent, job.run]), None) for job in jobs}


def design(cell: Cell, seed: int, most: int = MOST) -> Design:
    """Return the adaptive evaluation's design for `cell`."""
    return Design(
        k=K,
        statistic=cell.statistic,
        half_width=cell.half_width,
        confidence_level=LEVEL,
        first=FIRST,
        most=most,
        batch=BATCH,
        pool=POOL,
        seed=seed,
        agents=cell.agents,
    )


def evaluate(
    cell: Cell, plan: Design, rng: np.random.Generator
) -> tuple[Stop, tuple[float, float], Runs]:
    """Run one adaptive evaluation: its stop, the interval it reports there, and its runs."""
    runs = Runs(cell, plan.most, rng)
    steps = procedure(plan)
    with warnings.catch_warnings():
        # an emptied running intersection warns; its held limits are what is reported
        warnings.simplefilter("ignore", RuntimeWarning)
        jobs = next(steps)
        while True:
            try:
                jobs = steps.send(runs.answer(jobs))
            except StopIteration as stopped:
                stop: Stop = stopped.value
                break
        interval = target_limits(plan, stop.ends)
    return stop, interval, runs


def replicate_rng(seed: int, cell: Cell, replicate: int) -> np.random.Generator:
    """Return the generator of one replicate of one cell."""
    return np.random.default_rng(np.random.SeedSequence([seed, cell.index, replicate]))


# ---------------------------------------------------------------- one cell


def run_cell(cell: Cell, replicates: int, seed: int, most: int = FIRST) -> dict[str, Any]:
    """Run one cell's replicates; its row of the one-agent or the two-agent table."""
    started = time.perf_counter()
    target = cell_truth(cell)
    runs = np.zeros(replicates, dtype=np.int64)
    tasks = np.zeros(replicates, dtype=np.int64)
    limits = np.zeros((replicates, 2))
    reasons = []
    for replicate in range(replicates):
        rng = replicate_rng(seed, cell, replicate)
        stop, interval, _ = evaluate(cell, design(cell, int(rng.integers(2**32)), most), rng)
        runs[replicate], tasks[replicate], limits[replicate] = (
            stop.runs,
            len(stop.ends.tasks),
            interval,
        )
        reasons.append(stop.reason)
    stopped = pd.Series(reasons)
    covered = float(np.mean((limits[:, 0] <= target) & (target <= limits[:, 1])))
    row: dict[str, Any] = {
        "index": cell.index,
        "statistic": LABELS[cell.statistic],
        "half_width": cell.half_width,
    }
    if cell.agents == 1:
        fixed = K * guaranteed_tasks(cell.half_width)
        row |= {
            "mean": cell.means[0],
            "icc": cell.icc,
            "truth": target,
            "fixed_tasks": guaranteed_tasks(cell.half_width),
            "fixed_runs": fixed,
            "oracle_runs": oracle_runs(cell.statistic, cell.half_width, cell.means[0], cell.icc),
            "mean_runs": runs.mean(),
            "runs_ratio": runs.mean() / fixed,
            "runs_saved": 1.0 - runs.mean() / fixed,
            "median_tasks": float(np.median(tasks)),
        }
    else:
        sign = stopped == "sign"
        above = sign & (limits[:, 0] > 0) & (target <= 0)
        below = sign & (limits[:, 1] < 0) & (target >= 0)
        row |= {
            "mean_a": cell.means[0],
            "mean_b": cell.means[1],
            "icc": cell.icc,
            "truth": target,
            "mean_runs": runs.mean(),
            "median_tasks": float(np.median(tasks)),
            "share_sign": float(sign.mean()),
            "wrong_above": float(above.mean()),
            "wrong_below": float(below.mean()),
            "wrong_of_sign": float((above | below).sum() / sign.sum()) if sign.any() else math.nan,
        }
    row |= {
        "share_half_width": float((stopped == "half_width").mean()),
        "coverage": covered,
        "coverage_se": se(covered, replicates),
        "mean_half_width": float(np.mean((limits[:, 1] - limits[:, 0]) / 2.0)),
        "n_replicates": replicates,
        "seconds": time.perf_counter() - started,
    }
    return row


def se(share: float, replicates: int) -> float:
    """Return the Monte Carlo standard error of a share of `replicates` evaluations."""
    return math.sqrt(share * (1.0 - share) / replicates)


def slowest_first(cell: Cell) -> tuple[int, float, bool]:
    """Order cells by their measured cost: two agents, then the narrower half-width, then pass^k.

    Started slowest first, the cells leave no process idle long at the end of a run.
    """
    return -cell.agents, cell.half_width, cell.statistic != "pass_pow_k"


def _run(job: tuple[Cell, int, int, int]) -> dict[str, Any]:
    return run_cell(*job)


def run(settings: Settings, processes: int) -> tuple[dict[str, pd.DataFrame], float]:
    """Run every cell over `processes` processes; the one- and two-agent tables and the seconds."""
    cells = sorted(settings.cells, key=slowest_first)
    jobs = [(cell, settings.replicates[cell.part], settings.seed, settings.most) for cell in cells]
    started = time.perf_counter()
    if processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            rows = list(pool.map(_run, jobs))
    else:
        rows = [_run(job) for job in jobs]
    rows.sort(key=lambda row: int(row["index"]))
    seconds = time.perf_counter() - started
    busy = sum(row.pop("seconds") for row in rows)
    print(
        f"{len(jobs)} cells in {seconds:.0f} s ({busy:.0f} s of work over {processes} process(es))",
        file=sys.stderr,
        flush=True,
    )
    one = [row for row in rows if "mean" in row]
    two = [row for row in rows if "mean_a" in row]
    return {"one_agent": pd.DataFrame(one), "two_agents": pd.DataFrame(two)}, seconds


# ---------------------------------------------------------------- reporting


def markdown(table: pd.DataFrame) -> str:
    """Return `table` as a Markdown table, numbers to 3 decimals."""
    return _markdown.markdown(table, ".3f")


def parts_of(one: pd.DataFrame) -> list[tuple[str, float, pd.DataFrame]]:
    """Return the one-agent cells per statistic and half-width, in the grid's order."""
    keys = one[["statistic", "half_width"]].drop_duplicates()
    return [
        (
            str(statistic),
            float(half_width),
            one[(one["statistic"] == statistic) & (one["half_width"] == half_width)],
        )
        for statistic, half_width in keys.itertuples(index=False)
    ]


def summary(one: pd.DataFrame) -> pd.DataFrame:
    """One row per statistic and half-width: runs ratio, coverage, cells below the bar."""
    rows = []
    for statistic, half_width, cells in parts_of(one):
        worst = cells.iloc[int(np.argmin(cells["coverage"].to_numpy()))]
        below = cells[cells["coverage"] < BAR]
        rows.append(
            {
                "statistic": statistic,
                "half_width": half_width,
                "cells": len(cells),
                "mean runs ratio": cells["runs_ratio"].mean(),
                "mean runs saved": cells["runs_saved"].mean(),
                "worst ratio": cells["runs_ratio"].max(),
                "worst coverage": worst["coverage"],
                "mean coverage": cells["coverage"].mean(),
                f"below {BAR}": len(below),
                "worst cell": f"mean {worst['mean']}, icc {worst['icc']}",
                "stopped by half_width": cells["share_half_width"].min(),
            }
        )
    return pd.DataFrame(rows)


def pivot(cells: pd.DataFrame, value: str) -> pd.DataFrame:
    """Return `value` per mean (rows) and icc (columns) of one statistic and half-width's cells."""
    table = cells.pivot_table(index="mean", columns="icc", values=value, sort=False)
    table.columns = [f"icc {icc}" for icc in table.columns]
    return table.reset_index()


ONE_COLUMNS = [
    "mean",
    "icc",
    "truth",
    "mean_runs",
    "fixed_runs",
    "runs_ratio",
    "runs_saved",
    "oracle_runs",
    "median_tasks",
    "share_half_width",
    "coverage",
    "coverage_se",
    "mean_half_width",
]
TWO_COLUMNS = [
    "mean_a",
    "mean_b",
    "icc",
    "truth",
    "mean_runs",
    "median_tasks",
    "share_half_width",
    "share_sign",
    "wrong_above",
    "wrong_below",
    "wrong_of_sign",
    "coverage",
    "coverage_se",
    "mean_half_width",
]


def report(
    tables: dict[str, pd.DataFrame], settings: Settings, seconds: float, command: str
) -> str:
    """Return the study's tables as Markdown."""
    one, two = tables["one_agent"], tables["two_agents"]
    counts = ", ".join(
        f"{settings.replicates[part]} per {part} cell"
        for part in PARTS
        if any(cell.part == part for cell in settings.cells)
    )
    fixed = pd.DataFrame(
        [
            {
                "half_width": half_width,
                "tasks": guaranteed_tasks(half_width),
                "runs": K * guaranteed_tasks(half_width),
                "worst half-width": worst_half_width(guaranteed_tasks(half_width)),
                "worst at one task fewer": worst_half_width(guaranteed_tasks(half_width) - 1),
            }
            for half_width in sorted(set(one["half_width"]))
        ]
    )
    failing = one[one["coverage"] < BAR].assign(short=lambda rows: BAR - rows["coverage"])
    parts = [
        "# The adaptive evaluation: runs saved and coverage under its stopping rule",
        "",
        f"Written by `{command}` (seed {settings.seed}; the CSV files beside this one hold "
        f"every cell). Replicates: {counts}. The run took {seconds / 60:.1f} minutes of wall "
        "time.",
        "",
        f"The design: {LABELS['pass_pow_k']} or {LABELS['pass_at_k']} at level {LEVEL}; "
        f"{FIRST} first runs per task and at most {settings.most} ("
        + (
            "evaluate_until's default: every task gets its first runs and no more"
            if settings.most == FIRST
            else "the procedure's two-stage plans, chosen from a beta-binomial fit of the "
            "batches before"
        )
        + f"), {BATCH} tasks per batch from "
        f"a pool of {POOL:,} (never exhausted); the evaluation stops when the interval after "
        "a batch has half-width (high - low) / 2 at most the target, or, for two agents, when "
        "the interval of the difference excludes 0. Task rates are Beta of the mean and the "
        "intra-task correlation (icc), runs Bernoulli of the task's rate; two agents' rates "
        "on a task are the Beta quantiles of one shared uniform draw. The truth is the "
        "population's value (E[p^5], or 1 - E[(1 - p)^5]). Coverage is the share of "
        "evaluations whose interval at the stop holds the truth (its Monte Carlo standard "
        f"error about {se(0.95, min(settings.replicates.values())):.3f} at 0.95 with the fewest "
        f"replicates); a cell's bar is {BAR}.",
        "",
        f"The fixed design compared with guarantees the half-width without knowing p: {K} "
        "runs on each of the fewest tasks whose Clopper-Pearson interval on the tasks (what "
        f"the library reports at {K} runs per task) is at most that half-width for every "
        "count of tasks passing. runs_ratio is the adaptive evaluation's mean runs over that "
        f"design's, runs_saved one less it; the bar is a mean ratio of at most {RATIO_BAR}. "
        "oracle_runs is, for reference only, pk.plan_evaluation's total runs at 5 runs per "
        "task (assurance 0.8) with the true mean and icc, which no user knows "
        f"({LABELS['pass_at_k']} at mean m: pass^5's plan at 1 - m, the same at 5 runs per "
        "task).",
        "",
        "## Summary",
        "",
        markdown(summary(one)),
        "",
        "## The guaranteed fixed design",
        "",
        _markdown.markdown(fixed, ".5f"),
        "",
        f"## Cells below {BAR}",
        "",
        markdown(
            failing[["statistic", "half_width", "mean", "icc", "coverage", "coverage_se", "short"]]
        )
        if len(failing)
        else "None.",
    ]
    for statistic, half_width, cells in parts_of(one):
        parts += [
            "",
            f"## {statistic}, half-width {half_width}",
            "",
            "Coverage (rows: mean; columns: icc):",
            "",
            markdown(pivot(cells, "coverage")),
            "",
            "Runs ratio to the guaranteed fixed design:",
            "",
            markdown(pivot(cells, "runs_ratio")),
            "",
            "Every cell:",
            "",
            markdown(cells[ONE_COLUMNS]),
        ]
    if len(two):
        parts += [
            "",
            f"## Two agents, {LABELS['pass_pow_k']} difference, half-width "
            f"{two['half_width'].iloc[0]} or the sign",
            "",
            "truth is agent A's value less agent B's; mean_runs counts both agents' runs. "
            "wrong_above is the share of all evaluations that stopped by the sign with the "
            "interval above 0 where the truth is not, wrong_below the same below 0 (each must "
            f"be at most {SIGN_BAR}), wrong_of_sign the share of the sign stops that were either.",
            "",
            markdown(two[TWO_COLUMNS]),
        ]
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
    """Run the study, print its tables, and write them (the full grid, or wherever --out says)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="four small cells; writes only to --out"
    )
    parser.add_argument("--seed", type=int, default=2026, help="the study's seed (default 2026)")
    parser.add_argument(
        "--replicates",
        type=int,
        help=f"evaluations per cell of every part (full {REPLICATES}; quick {QUICK_REPLICATES})",
    )
    parser.add_argument("--cell", type=int, action="append", help="run only this cell index")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument(
        "--most",
        type=int,
        default=FIRST,
        help=f"runs a task may get (default {FIRST}, evaluate_until's; {MOST}: two-stage plans)",
    )
    parser.add_argument("--out", type=Path, help=f"where to write (full run: {OUTPUT})")
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(arguments)
    if args.most < FIRST:
        parser.error(f"--most must be at least the {FIRST} first runs, got {args.most}")
    cells = grid(args.quick)
    if args.cell:
        cells = [cells[index] for index in args.cell]
    default = dict.fromkeys(PARTS, QUICK_REPLICATES) if args.quick else REPLICATES
    settings = Settings(
        cells=cells,
        replicates={part: args.replicates or default[part] for part in PARTS},
        seed=args.seed,
        most=args.most,
    )
    tables, seconds = run(settings, args.jobs)
    command = " ".join(["python study/adaptive_coverage.py", *arguments])
    text = report(tables, settings, seconds, command)
    print(text)
    full = {FIRST: OUTPUT, MOST: OUTPUT / "extra_runs"}.get(args.most, OUTPUT / f"most_{args.most}")
    out = args.out or (None if args.quick or args.cell else full)
    if out is not None:
        _markdown.write_tables(out, tables, text)
    return tables


if __name__ == "__main__":
    main()
