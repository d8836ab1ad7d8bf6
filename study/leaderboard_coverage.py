"""The coverage study of the leaderboard's simultaneous rank intervals.

Simulates many agents on the same tasks with a known truth and measures how
often :func:`passk_lab.leaderboard`'s rank intervals hold every agent's true
rank at once, how wide they are, and how often :func:`passk_lab.pairwise`'s
adjusted tests declare a difference where there is none.

Run from the repository root::

    python study/leaderboard_coverage.py --quick   # seconds: prints the tables (writes to --out)
    python study/leaderboard_coverage.py           # docs/coverage/leaderboard/*.csv, tables.md

Every cell draws from its own generator, seeded by ``--seed`` and the cell's
index, so a cell repeats exactly alone (``--cell``), in any order and over
any number of processes (``--jobs``, 2 by default).

The model
---------
Task i has a difficulty ``theta_i ~ N(0, sigma)`` on the logit scale shared by
every agent, agent j an offset ``m_j``, and the pair an interaction
``u_ij ~ N(0, tau)``: agent j passes a run of task i with chance
``expit(theta_i + m_j + u_ij)``, its runs independent given the task. Agent
j's true value is the mean over the population of tasks of ``p^k`` (pass^k),
by Gauss-Hermite quadrature over ``theta + u ~ N(0, sqrt(sigma^2 + tau^2))``;
its true rank is one more than the number of agents with a strictly higher
true value, so agents with equal offsets tie.

The grid: 5 and 12 agents; 40 and 80 tasks; sigma 1.5 and 0.5; tau 0 and 0.5;
the offsets ``equal`` (all 0: the complete null), ``spread`` (evenly from -1
to 1), ``clusters`` (the first half at +0.5, the rest at -0.5, tied within a
cluster) and ``leader`` (one at +1.5, the rest tied at 0). Every agent runs
every task 5 times (k = 1 and 5); in the ``3 or 5 runs`` cells (sigma 1.5,
tau 0) every second agent has 3 runs on the first third of the tasks (k = 1
and 3). The rank intervals are at 0.95 and a cell's bar is 0.93.

What is measured
----------------
* ``leaderboard``: the library's rank intervals. The exact paired sign-flip
  p-values of every pair come from one vectorised computation per k (the
  law of the sum of the tasks' signed differences on one integer lattice,
  through its Fourier transform), then the library's Holm adjustment and
  ranks; on the first replicate of every cell they are checked equal to
  :func:`passk_lab.leaderboard`'s (and, in the complete-null cells, the
  p-values to :func:`passk_lab.pairwise`'s).
* ``percentile bootstrap``: the baseline many use: resample tasks with
  replacement, rank the agents in each resample, and take the 2.5% and 97.5%
  quantiles of each agent's rank, agent by agent.
* ``max-t bootstrap``: a simultaneous bootstrap: a pair is ordered when its
  paired difference over its bootstrap standard error exceeds the 95%
  quantile of the largest such ratio over all pairs in the resamples; ranks
  from those decisions as the library makes them.
* The family-wise error in the complete-null cells: the share of data sets in
  which any pair's p-value, Holm-, Benjamini-Hochberg- or not adjusted, is at
  most 0.05. With tau = 0 every pair has equal chances on every task; with
  tau = 0.5 the population means are equal but the per-task chances differ
  (the two agents' outcomes on a task drawn from the population are still as
  likely either way round, the sign-flip test's null hypothesis). With
  unequal runs a task's difference is centred but not symmetric, and the
  test is approximate.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

import passk_lab as pk
from passk_lab._data.cells import products
from passk_lab._pair_tests import adjusted_p_values
from passk_lab._permutation import permutation_test
from passk_lab._ranks import rank_intervals

sys.path.append(str(Path(__file__).resolve().parent))  # study/_markdown.py, when a test loads this
import _markdown

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "coverage" / "leaderboard"
LEVEL = 0.95
ALPHA = 1.0 - LEVEL
BAR = 0.93
"""Every cell's simultaneous coverage must reach this."""
METHODS = ("leaderboard", "percentile bootstrap", "max-t bootstrap")
ADJUSTMENTS = ("holm", "bh", "none")
CONFIGS = ("equal", "spread", "clusters", "leader")
EQUAL_RUNS, UNEQUAL_RUNS = "5 runs", "3 or 5 runs"
MOST_RUNS = 5

_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(200)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class Cell:
    """One setting of the study."""

    index: int
    agents: int
    tasks: int
    config: str
    sigma: float
    tau: float
    runs: str
    ks: tuple[int, ...]


@dataclass(frozen=True)
class Settings:
    """The cells of one run of the study, and how much each one draws."""

    cells: list[Cell]
    replicates: int
    resamples: int
    checks: int
    seed: int


def grid(quick: bool) -> list[Cell]:
    """Return the full grid's cells, or the quick grid's (5 agents, 40 tasks, three cells)."""
    if quick:
        settings = [
            (5, 40, "equal", 1.5, 0.0, EQUAL_RUNS),
            (5, 40, "clusters", 0.5, 0.5, EQUAL_RUNS),
            (5, 40, "leader", 1.5, 0.0, UNEQUAL_RUNS),
        ]
    else:
        settings = [
            (agents, tasks, config, sigma, tau, EQUAL_RUNS)
            for agents in (12, 5)
            for tasks in (80, 40)
            for sigma in (1.5, 0.5)
            for tau in (0.0, 0.5)
            for config in CONFIGS
        ] + [
            (agents, tasks, config, 1.5, 0.0, UNEQUAL_RUNS)
            for agents in (12, 5)
            for tasks in (80, 40)
            for config in CONFIGS
        ]
    return [
        Cell(index, *setting, ks=(1, 5) if setting[-1] == EQUAL_RUNS else (1, 3))
        for index, setting in enumerate(settings)
    ]


def offsets(config: str, agents: int) -> np.ndarray:
    """Return the agents' offsets on the logit scale under a configuration."""
    if config == "equal":
        return np.zeros(agents)
    if config == "spread":
        return np.linspace(-1.0, 1.0, agents)
    if config == "clusters":
        return np.where(np.arange(agents) < (agents + 1) // 2, 0.5, -0.5)
    if config == "leader":
        return np.where(np.arange(agents) == 0, 1.5, 0.0)
    raise ValueError(f"config must be one of {CONFIGS}, got {config!r}")


def true_values(cell: Cell) -> np.ndarray:
    """Return every agent's population pass^k, ks x agents, by Gauss-Hermite quadrature.

    Computed once per distinct offset, so that agents with equal offsets have
    equal values to the last bit (and tie).
    """
    spread = math.hypot(cell.sigma, cell.tau)
    distinct, agent = np.unique(offsets(cell.config, cell.agents), return_inverse=True)
    rates = special.expit(spread * _NODES[:, None] + distinct)
    return np.stack([(_WEIGHTS @ rates**k)[agent] for k in cell.ks])


def ranks_of(values: np.ndarray) -> np.ndarray:
    """Return one more than the number of agents with a strictly higher value, per row."""
    return 1 + (values[..., None, :] > values[..., :, None]).sum(axis=-1)


def runs_per_task(cell: Cell) -> np.ndarray:
    """Return every agent's runs per task, tasks x agents."""
    n = np.full((cell.tasks, cell.agents), MOST_RUNS, dtype=np.int64)
    if cell.runs == UNEQUAL_RUNS:
        n[: round(cell.tasks / 3), 1::2] = 3
    return n


def simulate(cell: Cell, n: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return one evaluation's passes, tasks x agents."""
    theta = rng.normal(0.0, cell.sigma, size=(cell.tasks, 1))
    interaction = rng.normal(0.0, cell.tau, size=n.shape) if cell.tau > 0 else 0.0
    chances = special.expit(theta + offsets(cell.config, cell.agents) + interaction)
    passes: np.ndarray = rng.binomial(n, chances)
    return passes


# ---------------------------------------------------------------- the sign-flip tests


@cache
def scaled_estimates(runs: tuple[int, ...], k: int) -> np.ndarray:
    """Return ``steps[n, c]``: ``C(c, k) / C(n, k)`` times a whole number, for every n in `runs`.

    The multiplier is the least common multiple of the ``C(n, k)``, so every
    step is a whole number and so is every difference of two.
    """
    scale = math.lcm(*(math.comb(n, k) for n in runs))
    steps = np.zeros((max(runs) + 1, max(runs) + 1), dtype=np.int64)
    for n in runs:
        for c in range(n + 1):
            steps[n, c] = math.comb(c, k) * scale // math.comb(n, k)
    return steps


@cache
def sign_flip_transforms(largest: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the transforms of a fair sign times 0 to `largest` steps on a circle of `length`.

    A task whose difference is ``+-m`` steps, either sign as likely, has the
    discrete Fourier transform ``cos(w m)``; returned are its log magnitude
    (a huge negative for 0) and whether it is negative, sizes x frequencies,
    so that the transform of a sum over tasks, a product of powers, is one
    matrix product.
    """
    frequencies = 2.0 * np.pi * np.arange(length // 2 + 1) / length
    waves = np.cos(np.outer(np.arange(largest + 1), frequencies))
    with np.errstate(divide="ignore"):
        logs = np.maximum(np.log(np.abs(waves)), -1e300)
    return logs, (waves < 0).astype(np.float64)


def pair_p_values(n: np.ndarray, c: np.ndarray, k: int, pairs: np.ndarray) -> np.ndarray:
    """Return the exact two-sided sign-flip p-value of every pair at k, tasks given.

    The same test as :func:`passk_lab._permutation.permutation_test` (checked
    equal on every cell's first replicate), for all pairs at once, on a
    circle long enough that no pair's sum wraps around.
    """
    steps = scaled_estimates(tuple(int(value) for value in np.unique(n)), k)
    per_task = steps[n, c]
    differences = per_task[:, pairs[:, 0]] - per_task[:, pairs[:, 1]]
    sizes = np.abs(differences)
    observed = differences.sum(axis=0)
    length = 1 << (2 * int(sizes.sum(axis=0).max()) + 2).bit_length()
    logs, odd = sign_flip_transforms(int(steps.max()), length)
    count = len(logs)
    keys = sizes + count * np.arange(len(pairs))
    tally = np.bincount(keys.ravel(), minlength=len(pairs) * count).reshape(len(pairs), count)
    spectrum = np.exp(tally @ logs) * (1.0 - 2.0 * (np.rint(tally @ odd) % 2))
    law = np.clip(np.fft.irfft(spectrum, length, axis=1), 0.0, None)
    index = np.arange(length)
    sums = np.where(index < length // 2, index, index - length)
    far = np.abs(sums)[None, :] >= np.abs(observed)[:, None]
    p_values: np.ndarray = np.minimum(1.0, (law * far).sum(axis=1))
    return p_values


# ---------------------------------------------------------------- one evaluation


def all_pairs(agents: int) -> np.ndarray:
    """Every pair of agents, in the library's order."""
    return np.array([(a, b) for a in range(agents) for b in range(a + 1, agents)])


def library_ranks(
    estimates: np.ndarray, p_values: np.ndarray, pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the leaderboard's rank low, high and tie group from one k's raw p-values."""
    better = orders(estimates, adjusted_p_values(p_values, "holm") <= ALPHA, pairs)
    _, low, high, group = rank_intervals(estimates, better)
    return low, high, group


def orders(estimates: np.ndarray, declared: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Return ``better[i, j]``: pair (i, j) is declared ordered and i's estimate is higher."""
    better = np.zeros((len(estimates),) * 2, dtype=bool)
    for (first, second), ordered in zip(pairs.tolist(), declared.tolist(), strict=True):
        if ordered:
            higher = estimates[first] > estimates[second]
            better[(first, second) if higher else (second, first)] = True
    return better


def resample(tasks: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Return how often each task is drawn in each resample of the tasks with replacement."""
    drawn = rng.integers(0, tasks, size=(resamples, tasks)) + tasks * np.arange(resamples)[:, None]
    weights: np.ndarray = np.bincount(drawn.ravel(), minlength=resamples * tasks)
    return weights.reshape(resamples, tasks)


def bootstrap_ranks(
    values: np.ndarray, pairs: np.ndarray, weights: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Return the percentile bootstrap's rank limits and the max-t bootstrap's limits and groups.

    `values` holds the per-task estimates, tasks x agents, and `weights` each
    resample's draws of every task, resamples x tasks.
    """
    estimates = values.mean(axis=0)
    drawn = np.round(weights @ values / weights.sum(axis=1, keepdims=True), 12)
    ranks = ranks_of(drawn)
    low, high = np.quantile(ranks, [0.025, 0.975], axis=0, method="inverted_cdf")
    first, second = pairs[:, 0], pairs[:, 1]
    difference = estimates[first] - estimates[second]
    differences = drawn[:, first] - drawn[:, second]
    se = differences.std(axis=0, ddof=1)
    safe = np.where(se > 0, se, 1.0)
    largest = np.max(np.abs(differences - difference) / safe, axis=1)
    critical = np.quantile(largest, LEVEL, method="inverted_cdf")
    declared = np.where(se > 0, np.abs(difference) / safe > critical, np.abs(difference) > 1e-12)
    _, t_low, t_high, group = rank_intervals(estimates, orders(estimates, declared, pairs))
    return (low, high), (t_low, t_high, group)


def evaluate(
    n: np.ndarray, c: np.ndarray, cell: Cell, resamples: int, rng: np.random.Generator
) -> dict[str, Any]:
    """Return one evaluation's raw p-values, estimates and every method's rank limits, per k.

    The bootstrap resamples are drawn once and shared by the ks.
    """
    pairs = all_pairs(cell.agents)
    found: dict[str, Any] = {"p_values": [], "estimates": [], "limits": []}
    weights = resample(len(n), resamples, rng)
    for k in cell.ks:
        counted = n.min(axis=1) >= k
        here_n, here_c = n[counted], c[counted]
        values = products(here_n.ravel(), here_c.ravel(), np.array([k])).reshape(here_n.shape)
        estimates = values.mean(axis=0)
        p_values = pair_p_values(here_n, here_c, k, pairs)
        low, high, group = library_ranks(estimates, p_values, pairs)
        percentile, max_t = bootstrap_ranks(values, pairs, weights[:, counted])
        found["p_values"].append(p_values)
        found["estimates"].append(estimates)
        found["limits"].append(
            {
                "leaderboard": (low, high, group),
                "percentile bootstrap": (*percentile, None),
                "max-t bootstrap": max_t,
            }
        )
    return found


def tally(n: np.ndarray, c: np.ndarray) -> pd.DataFrame:
    """Return the evaluation as a tally frame: model, task, n, c."""
    tasks, agents = n.shape
    return pd.DataFrame(
        {
            "model": np.tile([f"agent {j:02d}" for j in range(agents)], tasks),
            "task": np.repeat(np.arange(tasks), agents),
            "n": n.ravel(),
            "c": c.ravel(),
        }
    )


def check_against_library(
    n: np.ndarray, c: np.ndarray, cell: Cell, found: dict[str, Any], check_pairwise: bool
) -> None:
    """Raise unless ``pk.leaderboard`` (and ``pk.pairwise``) agree with this evaluation's."""
    runs = tally(n, c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        board = pk.leaderboard(runs, ks=list(cell.ks), rng=0)
        table = pk.pairwise(runs, ks=list(cell.ks), adjust=None, rng=0) if check_pairwise else None
    for column, k in enumerate(cell.ks):
        here = board[board["k"] == k].sort_values("model")
        low, high, group = found["limits"][column]["leaderboard"]
        for name, mine in (("rank_low", low), ("rank_high", high), ("tie_group", group)):
            if not np.array_equal(here[name].to_numpy(), mine):
                raise AssertionError(f"{name} differs from pk.leaderboard's at k = {k} in {cell}")
        np.testing.assert_allclose(here["pass_pow_k"], found["estimates"][column], rtol=1e-12)
        if table is not None:
            rows = table[(table["metric"] == "pass_pow_k") & (table["k"] == k)]
            np.testing.assert_allclose(rows["p_value"], found["p_values"][column], atol=1e-9)
            if not rows["test"].str.endswith("exact").all():
                raise AssertionError(f"pk.pairwise used a Monte Carlo test in {cell}")
        counted = n.min(axis=1) >= k
        n_a, c_a, n_b, c_b = n[counted, 0], c[counted, 0], n[counted, 1], c[counted, 1]
        first = permutation_test(n_a, c_a, n_b, c_b, k, "pass_pow_k", n_resamples=1, rng=None)
        np.testing.assert_allclose(first.p_value, found["p_values"][column][0], atol=1e-9)


# ---------------------------------------------------------------- one cell


def run_cell(cell: Cell, replicates: int, resamples: int, checks: int, seed: int) -> dict[str, Any]:
    """Run one cell: its coverage rows and (complete null) its family-wise error rows."""
    started = time.perf_counter()
    rng = np.random.default_rng([seed, cell.index])
    truth = true_values(cell)
    ranks = ranks_of(truth)
    n = runs_per_task(cell)
    shape = (len(cell.ks), len(METHODS), replicates)
    covered = np.zeros(shape, dtype=bool)
    width = np.zeros(shape)
    groups = np.full(shape, np.nan)
    rejected = np.zeros((len(cell.ks), len(ADJUSTMENTS), replicates), dtype=bool)
    for replicate in range(replicates):
        c = simulate(cell, n, rng)
        found = evaluate(n, c, cell, resamples, rng)
        if replicate < checks:
            check_against_library(n, c, cell, found, cell.config == "equal")
        for column in range(len(cell.ks)):
            for place, method in enumerate(METHODS):
                low, high, group = found["limits"][column][method]
                covered[column, place, replicate] = np.all(
                    (low <= ranks[column]) & (ranks[column] <= high)
                )
                width[column, place, replicate] = np.mean(high - low)
                if group is not None:
                    groups[column, place, replicate] = group.max()
            p_values = found["p_values"][column]
            for place, adjust in enumerate(ADJUSTMENTS):
                adjusted = p_values if adjust == "none" else adjusted_p_values(p_values, adjust)
                rejected[column, place, replicate] = np.any(adjusted <= ALPHA)
    settings = {key: value for key, value in asdict(cell).items() if key != "ks"}
    coverage = [
        settings
        | {
            "k": k,
            "method": method,
            "coverage": covered[column, place].mean(),
            "coverage_se": se(covered[column, place].mean(), replicates),
            "mean_width": width[column, place].mean(),
            "mean_tie_groups": groups[column, place].mean(),
            "true_groups": len(np.unique(truth[column])),
            "n_replicates": replicates,
        }
        for column, k in enumerate(cell.ks)
        for place, method in enumerate(METHODS)
    ]
    fwer = [
        settings
        | {
            "k": k,
            "adjust": adjust,
            "fwer": rejected[column, place].mean(),
            "fwer_se": se(rejected[column, place].mean(), replicates),
            "n_replicates": replicates,
        }
        for column, k in enumerate(cell.ks)
        for place, adjust in enumerate(ADJUSTMENTS)
        if cell.config == "equal"
    ]
    return {"coverage": coverage, "fwer": fwer, "seconds": time.perf_counter() - started}


def se(share: float, replicates: int) -> float:
    """Return the Monte Carlo standard error of a share of `replicates` evaluations."""
    return math.sqrt(share * (1.0 - share) / replicates)


def _run(job: tuple[Cell, int, int, int, int]) -> dict[str, Any]:
    return run_cell(*job)


def run(settings: Settings, processes: int) -> dict[str, pd.DataFrame]:
    """Run every cell over `processes` processes; the coverage and family-wise error tables."""
    jobs = [
        (cell, settings.replicates, settings.resamples, settings.checks, settings.seed)
        for cell in settings.cells
    ]
    started = time.perf_counter()
    if processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            parts = list(pool.map(_run, jobs))
    else:
        parts = [_run(job) for job in jobs]
    seconds = time.perf_counter() - started
    busy = sum(part["seconds"] for part in parts)
    print(
        f"{len(jobs)} cells x {settings.replicates} replicates in {seconds:.0f} s "
        f"({busy:.0f} s of work over {processes} process(es))",
        file=sys.stderr,
        flush=True,
    )
    return {
        "coverage": pd.DataFrame([row for part in parts for row in part["coverage"]]),
        "fwer": pd.DataFrame([row for part in parts for row in part["fwer"]]),
    }


# ---------------------------------------------------------------- reporting


def markdown(table: pd.DataFrame) -> str:
    """Return `table` as a Markdown table, numbers to 3 decimals."""
    return _markdown.markdown(table, ".3f")


def describe(row: pd.Series) -> str:
    """Name a cell: agents, tasks, runs, offsets, sigma, tau and k."""
    return (
        f"{row['agents']} agents, {row['tasks']} tasks, {row['runs']}, {row['config']}, "
        f"sigma {row['sigma']}, tau {row['tau']}, k = {row['k']}"
    )


def summary(coverage: pd.DataFrame) -> pd.DataFrame:
    """One row per method and tau: worst and mean coverage, cells below the bar, width."""
    rows = []
    for (method, tau), cells in coverage.groupby(["method", "tau"], sort=False):
        worst = cells.loc[cells["coverage"].idxmin()]
        rows.append(
            {
                "method": method,
                "tau": tau,
                "cells": len(cells),
                "worst": worst["coverage"],
                "mean": cells["coverage"].mean(),
                f"below {BAR}": int((cells["coverage"] < BAR).sum()),
                "mean width": cells["mean_width"].mean(),
                "worst cell": describe(worst),
            }
        )
    return pd.DataFrame(rows)


def pivot(coverage: pd.DataFrame, method: str, value: str) -> pd.DataFrame:
    """Return one method's `value` per cell: rows the model, columns agents x tasks."""
    here = coverage[coverage["method"] == method]
    table = here.pivot_table(
        index=["runs", "config", "sigma", "tau", "k"],
        columns=["agents", "tasks"],
        values=value,
        sort=False,
    )
    table.columns = [f"{agents} x {tasks}" for agents, tasks in table.columns]
    return table.reset_index()


def side_by_side(coverage: pd.DataFrame) -> pd.DataFrame:
    """Every method's coverage and width per configuration and tau, over the other settings."""
    rows = coverage.groupby(["config", "tau", "method"], sort=False).agg(
        cells=("coverage", "size"),
        worst=("coverage", "min"),
        mean=("coverage", "mean"),
        mean_width=("mean_width", "mean"),
    )
    return rows.reset_index()


def fwer_table(fwer: pd.DataFrame) -> pd.DataFrame:
    """Return the family-wise error per null cell and k: Holm, BH and none, and Holm's se."""
    table = fwer.pivot_table(
        index=["runs", "sigma", "tau", "agents", "tasks", "k"],
        columns="adjust",
        values="fwer",
        sort=False,
    )[list(ADJUSTMENTS)]
    errors = fwer[fwer["adjust"] == "holm"].set_index(table.index.names)["fwer_se"]
    table["holm se"] = errors
    return table.reset_index()


def report(tables: dict[str, pd.DataFrame], settings: Settings) -> str:
    """Return the study's tables as Markdown."""
    coverage, fwer = tables["coverage"], tables["fwer"]
    library = coverage[coverage["method"] == "leaderboard"]
    failing = library[library["coverage"] < BAR]
    parts = [
        "# Simultaneous coverage of the leaderboard's rank intervals",
        "",
        "Written by `python study/leaderboard_coverage.py` (seed "
        f"{settings.seed}; the CSV files beside this one hold every cell). {settings.replicates} "
        f"evaluations per cell, {settings.resamples} bootstrap resamples each; rank intervals at "
        f"{LEVEL}, a cell's bar {BAR}. Coverage is the share of evaluations in which every "
        "agent's interval holds its true rank; its Monte Carlo standard error is "
        f"about {se(0.95, settings.replicates):.3f} at 0.95. Width is the mean over agents and "
        "evaluations of rank_high - rank_low; tie groups the mean number of the leaderboard's "
        "groups (the truth's count is true_groups).",
        "",
        "## Summary",
        "",
        markdown(summary(coverage)),
        "",
        f"## Leaderboard cells below {BAR}",
        "",
        markdown(
            failing[
                [
                    "agents",
                    "tasks",
                    "runs",
                    "config",
                    "sigma",
                    "tau",
                    "k",
                    "coverage",
                    "coverage_se",
                ]
            ]
        )
        if len(failing)
        else "None.",
        "",
        "## Leaderboard: simultaneous coverage (columns: agents x tasks)",
        "",
        markdown(pivot(coverage, "leaderboard", "coverage")),
        "",
        "## Leaderboard: mean rank interval width",
        "",
        markdown(pivot(coverage, "leaderboard", "mean_width")),
        "",
        "## Leaderboard: mean number of tie groups",
        "",
        markdown(pivot(coverage, "leaderboard", "mean_tie_groups")),
        "",
        "## The methods side by side, per configuration and tau",
        "",
        markdown(side_by_side(coverage)),
        "",
        "## Percentile bootstrap: simultaneous coverage",
        "",
        markdown(pivot(coverage, "percentile bootstrap", "coverage")),
        "",
        "## Max-t bootstrap: simultaneous coverage",
        "",
        markdown(pivot(coverage, "max-t bootstrap", "coverage")),
        "",
        f"## Family-wise error under the complete null (any p <= {ALPHA:.2f})",
        "",
        markdown(fwer_table(fwer)) if len(fwer) else "No complete-null cell in this grid.",
    ]
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
    """Run the study, print its tables, and write them (the full grid, or wherever --out says)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="three small cells; writes only to --out"
    )
    parser.add_argument("--seed", type=int, default=2026, help="the study's seed (default 2026)")
    parser.add_argument("--replicates", type=int, help="evaluations per cell (1000; quick 40)")
    parser.add_argument("--resamples", type=int, help="bootstrap resamples (500; quick 200)")
    parser.add_argument("--cell", type=int, action="append", help="run only this cell index")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", type=Path, help=f"where to write (full run: {OUTPUT})")
    args = parser.parse_args(argv)
    cells = grid(args.quick)
    if args.cell:
        cells = [cells[index] for index in args.cell]
    settings = Settings(
        cells=cells,
        replicates=args.replicates or (40 if args.quick else 1000),
        resamples=args.resamples or (200 if args.quick else 500),
        checks=1,
        seed=args.seed,
    )
    tables = run(settings, args.jobs)
    text = report(tables, settings)
    print(text)
    out = args.out or (None if args.quick or args.cell else OUTPUT)
    if out is not None:
        _markdown.write_tables(out, tables, text)
    return tables


if __name__ == "__main__":
    main()
