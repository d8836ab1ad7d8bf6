"""The coverage study of the library's default intervals.

Simulates evaluations with a known truth and measures how often the library's
intervals contain it, and how wide they are, exactly as the public functions
compute them: the curve's pass^k, pass@k and band ``p̂^k`` and pass@1's
interval through :func:`passk_lab.interval_coverage`, the paired difference
of :func:`passk_lab.compare` through the library's own per-task statistics
and paired interval (checked equal to ``pk.compare`` on every run).

Run from the repository root::

    python study/coverage.py --quick   # CI-sized: prints the tables, writes nothing
    python study/coverage.py           # the full grid: docs/coverage/*.csv and tables.md

Every cell has its own seed (from its settings), so a run repeats exactly on
the same numpy and scipy, in any order and over any number of processes
(``--jobs``, 2 by default).

The grids
---------
* curve: task rates Beta with mean 0.05, 0.3, 0.7, 0.95, 0.99 and icc 0, 0.1,
  0.3, 0.5 (icc 0: every task has the mean), and three mixtures (70% of tasks
  at 0.97 + 30% at 0.1; 30% at 1 + 70% at 0.6; 50% at 0.02 + 50% at 0.9);
  20, 40 and 150 tasks; 3 runs (k = 1, 2, 3), 10 runs (k = 1, 5, 10) and 2
  to 10 runs drawn per task (k = 1, 5, 10); the curve's ``"auto"`` and
  pass@1's ``"auto"`` and ``"clustered"``.
* pass@1: truths 0.005, 0.02, 0.1, 0.5, 0.9, 0.98, 0.995, icc 0, 0.1, 0.3,
  0.5, 20, 40 and 150 tasks, 3 and 10 runs.
* compare: a shared task difficulty on the logit scale, N(0, sigma) with
  sigma 0.5, 1.5, 3; agent B at logit -4 (floor), 0 (middle), 3 (ceiling),
  agent A 0, 0.3 or 1 above; 20, 40 and 150 tasks; 5 runs each, or 5 for A
  and 3 for B; pass@1, pass^k and pass@k at k = 3 and 5 (k = 5 with 5 runs
  on both sides).
* bootstrap: the curve's ``"bca"`` and ``"percentile"`` beside ``"auto"`` on
  the same evaluations, at 0.95, on a smaller grid (icc 0 and 0.3, and the
  mixtures; 20 and 150 tasks).

The curve, pass@1 and compare grids run at the levels 0.95, 0.8, 0.9 and
0.99, on the same evaluations at every level. A cell's bar is its level
minus 0.02 (0.93 at 0.95); a cell is significantly below it when the exact
binomial chance of so few covered evaluations at coverage = bar is below
0.01.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

import passk_lab as pk
from passk_lab._interval_policy import Statistics
from passk_lab._mean_intervals import paired_interval

sys.path.append(str(Path(__file__).resolve().parent))  # study/_markdown.py, when a test loads this
import _markdown

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "coverage"
LEVELS = (0.95, 0.8, 0.9, 0.99)
MARGIN = 0.02
"""A cell's bar is its level minus this: 0.93 at 0.95."""
SIGNIFICANCE = 0.01
"""A cell is significantly below its bar when the binomial chance of its count is below this."""
SLACK = 1e-12
"""A limit this share of the truth's distance to 0 or 1 from it covers it (interval_coverage's)."""
DEFAULT = "auto"


@dataclass(frozen=True)
class Population:
    """A population of task rates, by the keywords :func:`passk_lab.interval_coverage` takes."""

    name: str
    model: dict[str, Any] = field(hash=False)


@dataclass(frozen=True)
class Scheme:
    """Runs per task (one count, or counts drawn uniformly) and the k values reported."""

    name: str
    runs: int | tuple[int, ...]
    ks: tuple[int, ...]


def populations(means: Sequence[float], iccs: Sequence[float], mixtures: bool) -> list[Population]:
    """Return the Beta populations of every mean and icc, and the study's three mixtures."""
    found = [
        Population(f"Beta({mean}, icc {icc})", {"p": mean, "icc": icc})
        for mean in means
        for icc in iccs
    ]
    if mixtures:
        found += [
            Population("70% at 0.97 + 30% at 0.1", {"mixture": [(0.7, 0.97), (0.3, 0.1)]}),
            Population("30% at 1 + 70% at 0.6", {"mixture": [(0.3, 1.0), (0.7, 0.6)]}),
            Population("50% at 0.02 + 50% at 0.9", {"mixture": [(0.5, 0.02), (0.5, 0.9)]}),
        ]
    return found


SCHEMES = {
    "3 runs": Scheme("3 runs", 3, (1, 2, 3)),
    "10 runs": Scheme("10 runs", 10, (1, 5, 10)),
    "2-10 runs": Scheme("2-10 runs", tuple(range(2, 11)), (1, 5, 10)),
}


@dataclass(frozen=True)
class Grid:
    """Every setting of one run of the study, and its replicates."""

    curve: list[tuple[Population, Scheme, int]]
    pass_at_1: list[tuple[float, float, int, int]]  # truth, icc, tasks, runs
    compare: list[dict[str, Any]]
    bootstrap: list[tuple[Population, Scheme, int]]
    levels: tuple[float, ...]
    replicates: int
    pass_at_1_replicates: int
    compare_replicates: int
    bootstrap_replicates: int
    resamples: int


def grid(quick: bool) -> Grid:
    """Return the full grid, or the quick one: its hardest cells, at 0.95, fewer replicates."""
    if quick:
        hard = populations((0.05, 0.99), (0.5,), mixtures=True) + populations(
            (0.7,), (0.0,), mixtures=False
        )
        schemes = [SCHEMES["10 runs"], SCHEMES["2-10 runs"]]
        return Grid(
            curve=[(population, scheme, 20) for population in hard for scheme in schemes],
            pass_at_1=[(truth, icc, 20, 3) for truth in (0.005, 0.995) for icc in (0.0, 0.5)],
            compare=compare_cells((0.5, 1.5), ("ceiling",), ("large",), (20, 40)),
            bootstrap=[(populations((0.3,), (0.0,), False)[0], SCHEMES["10 runs"], 20)],
            levels=(0.95,),
            replicates=200,
            pass_at_1_replicates=400,
            compare_replicates=400,
            bootstrap_replicates=100,
            resamples=500,
        )
    every = populations((0.05, 0.3, 0.7, 0.95, 0.99), (0.0, 0.1, 0.3, 0.5), mixtures=True)
    some = populations((0.05, 0.3, 0.7, 0.95, 0.99), (0.0, 0.3), mixtures=True)
    return Grid(
        curve=[
            (population, scheme, tasks)
            for population in every
            for scheme in SCHEMES.values()
            for tasks in (20, 40, 150)
        ],
        pass_at_1=[
            (truth, icc, tasks, runs)
            for truth in (0.005, 0.02, 0.1, 0.5, 0.9, 0.98, 0.995)
            for icc in (0.0, 0.1, 0.3, 0.5)
            for tasks in (20, 40, 150)
            for runs in (3, 10)
        ],
        compare=compare_cells(
            (0.5, 1.5, 3.0),
            ("floor", "middle", "ceiling"),
            ("equal", "small", "large"),
            (20, 40, 150),
        ),
        bootstrap=[
            (population, scheme, tasks)
            for population in some
            for scheme in SCHEMES.values()
            for tasks in (20, 150)
        ],
        levels=LEVELS,
        replicates=400,
        pass_at_1_replicates=1000,
        compare_replicates=2000,
        bootstrap_replicates=400,
        resamples=1000,
    )


def seed_of(*parts: object) -> int:
    """Return a cell's seed, from its settings (the same in any order and process)."""
    return zlib.crc32("|".join(map(str, parts)).encode())


# ---------------------------------------------------------------- curve, pass@1, bootstrap


def curve_cell(
    population: Population, scheme: Scheme, tasks: int, levels: tuple[float, ...], replicates: int
) -> pd.DataFrame:
    """Coverage of the curve's and pass@1's default intervals in one cell, at every level."""
    seed = seed_of("curve", population.name, scheme.name, tasks)
    parts = [
        pk.interval_coverage(
            tasks,
            scheme.runs,
            **population.model,
            ks=scheme.ks,
            methods=[DEFAULT, "clustered"],
            confidence_level=level,
            n_replicates=replicates,
            rng=seed,
        ).assign(level=level)
        for level in levels
    ]
    return pd.concat(parts).assign(population=population.name, runs=scheme.name, tasks=tasks)


def pass_at_1_cell(
    truth: float, icc: float, tasks: int, runs: int, levels: tuple[float, ...], replicates: int
) -> pd.DataFrame:
    """Coverage of pass_at_1_se's default and clustered intervals in one cell, at every level."""
    seed = seed_of("pass@1", truth, icc, tasks, runs)
    parts = [
        pk.interval_coverage(
            tasks,
            runs,
            p=truth,
            icc=icc,
            ks=[1],
            methods=[DEFAULT, "clustered"],
            confidence_level=level,
            n_replicates=replicates,
            rng=seed,
        ).assign(level=level)
        for level in levels
    ]
    table = pd.concat(parts)
    table = table[table["statistic"] == "pass_at_1"]
    return table.assign(population=f"Beta({truth}, icc {icc})", runs=f"{runs} runs", tasks=tasks)


def bootstrap_cell(
    population: Population, scheme: Scheme, tasks: int, replicates: int, resamples: int
) -> pd.DataFrame:
    """Measure the curve's BCa and percentile intervals beside its default, on the same tasks."""
    table = pk.interval_coverage(
        tasks,
        scheme.runs,
        **population.model,
        ks=scheme.ks,
        methods=[DEFAULT, "bca", "percentile"],
        confidence_level=0.95,
        n_replicates=replicates,
        n_resamples=resamples,
        rng=seed_of("bootstrap", population.name, scheme.name, tasks),
    )
    table = table[table["statistic"] != "pass_at_1"]
    return table.assign(level=0.95, population=population.name, runs=scheme.name, tasks=tasks)


# ---------------------------------------------------------------- compare

_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(200)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()
_REGIMES = {"floor": -4.0, "middle": 0.0, "ceiling": 3.0}
_GAPS = {"equal": 0.0, "small": 0.3, "large": 1.0}


def compare_cells(
    sigmas: Iterable[float],
    regimes: Iterable[str],
    gaps: Iterable[str],
    task_counts: Iterable[int],
) -> list[dict[str, Any]]:
    """Return the compare grid's cells: difficulty spread, regime, gap, tasks and runs (A, B)."""
    return [
        {"sigma": sigma, "regime": regime, "gap": gap, "tasks": tasks, "runs": runs}
        for sigma in sigmas
        for regime in regimes
        for gap in gaps
        for tasks in task_counts
        for runs in ((5, 5), (5, 3))
    ]


def paired_truth(sigma: float, offset: float, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return pass^k and pass@k of a new task at logit ``theta + offset``, theta ~ N(0, sigma)."""
    rates = special.expit(sigma * _NODES + offset)[:, None]
    return _WEIGHTS @ rates**ks, 1.0 - _WEIGHTS @ (1.0 - rates) ** ks


def paired_runs(
    cell: dict[str, Any], replicates: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Return the passes of agents A and B, replicates x tasks, under a shared difficulty."""
    shape = (replicates, cell["tasks"])
    theta = rng.normal(0.0, cell["sigma"], size=shape)
    base = _REGIMES[cell["regime"]]
    runs_a, runs_b = cell["runs"]
    passes_a = rng.binomial(runs_a, special.expit(theta + base + _GAPS[cell["gap"]]))
    passes_b = rng.binomial(runs_b, special.expit(theta + base))
    return passes_a, passes_b


def paired_limits(
    cell: dict[str, Any], passes_a: np.ndarray, passes_b: np.ndarray, ks: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return compare's default limits, replicates x (pass^k per k, then pass@k per k).

    The per-task values are the library's (``Statistics``) and the interval
    its paired interval, each replicate a column of one call.
    """
    replicates, tasks = passes_a.shape
    runs_a, runs_b = cell["runs"]
    first = Statistics.of(np.full(passes_a.size, runs_a), passes_a.ravel(), ks)
    second = Statistics.of(np.full(passes_b.size, runs_b), passes_b.ravel(), ks)
    differences = np.hstack(
        [first.pass_pow_k - second.pass_pow_k, first.pass_at_k - second.pass_at_k]
    )
    columns = differences.reshape(replicates, tasks, -1).transpose(1, 0, 2).reshape(tasks, -1)
    column_ks = np.tile(np.tile(ks, 2), replicates)
    fewer = np.full(tasks, min(runs_a, runs_b))
    low, high = paired_interval(columns, np.ones(tasks, dtype=np.int64), fewer, column_ks, level)
    return np.reshape(low, (replicates, -1)), np.reshape(high, (replicates, -1))


def check_against_compare(
    cell: dict[str, Any], passes_a: np.ndarray, passes_b: np.ndarray, ks: np.ndarray, level: float
) -> None:
    """Raise unless ``pk.compare`` gives the limits of :func:`paired_limits` on replicate 0."""
    low, high = paired_limits(cell, passes_a[:1], passes_b[:1], ks, level)
    tasks = np.arange(passes_a.shape[1])
    runs_a, runs_b = cell["runs"]
    table = pk.compare(
        pd.DataFrame({"task": tasks, "n": runs_a, "c": passes_a[0]}),
        pd.DataFrame({"task": tasks, "n": runs_b, "c": passes_b[0]}),
        ks.tolist(),
        confidence_level=level,
    )
    np.testing.assert_allclose(table["difference_low"], low[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(table["difference_high"], high[0], rtol=1e-9, atol=1e-12)


def score(low: np.ndarray, high: np.ndarray, truth: np.ndarray) -> pd.DataFrame:
    """Coverage and widths per column of replicates x columns limits, as interval_coverage has."""
    slack = SLACK * np.minimum(np.abs(truth), 1.0 - np.abs(truth))
    covered = (low - slack <= truth) & (truth <= high + slack)
    width = high - low
    coverage = covered.mean(axis=0)
    replicates = len(low)
    return pd.DataFrame(
        {
            "truth": truth,
            "coverage": coverage,
            "coverage_se": np.sqrt(coverage * (1.0 - coverage) / replicates),
            "mean_width": width.mean(axis=0),
            "median_width": np.median(width, axis=0),
            "zero_width": (width <= 0.0).mean(axis=0),
            "miss_low": (truth < low - slack).mean(axis=0),
            "miss_high": (truth > high + slack).mean(axis=0),
            "n_replicates": replicates,
            "n_undefined": 0,
        }
    )


def compare_cell(
    cell: dict[str, Any], levels: tuple[float, ...], replicates: int, check: bool = False
) -> pd.DataFrame:
    """Coverage of compare's default interval of A - B in one cell, at every level."""
    rng = np.random.default_rng(seed_of("compare", *cell.values()))
    passes_a, passes_b = paired_runs(cell, replicates, rng)
    ks = np.array([k for k in (1, 3, 5) if k <= min(cell["runs"])], dtype=np.int64)
    base, gap = _REGIMES[cell["regime"]], _GAPS[cell["gap"]]
    truth_a, truth_b = (
        paired_truth(cell["sigma"], base + gap, ks),
        paired_truth(cell["sigma"], base, ks),
    )
    truth = np.concatenate([truth_a[0] - truth_b[0], truth_a[1] - truth_b[1]])
    statistic = ["pass_at_1" if k == 1 else "pass_pow_k" for k in ks] + ["pass_at_k"] * len(ks)
    keep = np.array(
        [name != "pass_at_k" or k > 1 for name, k in zip(statistic, np.tile(ks, 2), strict=True)]
    )
    parts = []
    for level in levels:
        if check:
            check_against_compare(cell, passes_a, passes_b, ks, level)
        low, high = paired_limits(cell, passes_a, passes_b, ks, level)
        part = score(low, high, truth).assign(
            method=DEFAULT, statistic=statistic, k=np.tile(ks, 2), level=level
        )
        parts.append(part[keep])
    runs_a, runs_b = cell["runs"]
    return pd.concat(parts).assign(
        population=f"sigma {cell['sigma']}, {cell['regime']}, gap {cell['gap']}",
        runs=f"{runs_a} v {runs_b} runs",
        tasks=cell["tasks"],
    )


# ---------------------------------------------------------------- running and reporting

COLUMNS = [
    "level",
    "method",
    "statistic",
    "population",
    "runs",
    "tasks",
    "k",
    "truth",
    "coverage",
    "coverage_se",
    "mean_width",
    "median_width",
    "zero_width",
    "miss_low",
    "miss_high",
    "n_replicates",
    "n_undefined",
]


def jobs(settings: Grid) -> dict[str, list[tuple[Callable[..., pd.DataFrame], tuple[Any, ...]]]]:
    """Return every cell's function and arguments, per grid."""
    levels = settings.levels
    return {
        "curve": [
            (curve_cell, (population, scheme, tasks, levels, settings.replicates))
            for population, scheme, tasks in settings.curve
        ],
        "pass_at_1": [
            (pass_at_1_cell, (*cell, levels, settings.pass_at_1_replicates))
            for cell in settings.pass_at_1
        ],
        "compare": [
            (compare_cell, (cell, levels, settings.compare_replicates, index == 0))
            for index, cell in enumerate(settings.compare)
        ],
        "bootstrap": [
            (bootstrap_cell, (*cell, settings.bootstrap_replicates, settings.resamples))
            for cell in settings.bootstrap
        ],
    }


def _run(job: tuple[Callable[..., pd.DataFrame], tuple[Any, ...]]) -> pd.DataFrame:
    function, arguments = job
    return function(*arguments)


def run(settings: Grid, processes: int) -> dict[str, pd.DataFrame]:
    """Run every cell of every grid, over `processes` processes; one table per grid."""
    tables = {}
    for name, cells in jobs(settings).items():
        started = time.perf_counter()
        if processes > 1:
            with ProcessPoolExecutor(processes) as pool:
                parts = list(pool.map(_run, cells, chunksize=4))
        else:
            parts = [_run(cell) for cell in cells]
        tables[name] = pd.concat(parts, ignore_index=True)[COLUMNS]
        seconds = time.perf_counter() - started
        print(f"{name}: {len(cells)} cells in {seconds:.0f} s", file=sys.stderr, flush=True)
    return tables


def bar(level: float | pd.Series) -> Any:
    """Return the coverage a cell at this nominal level must reach: the level minus 0.02."""
    return np.round(level - MARGIN, 10)


def below(table: pd.DataFrame, significance: float = SIGNIFICANCE) -> pd.Series:
    """Return, per row, whether its coverage is significantly below the bar (exact binomial)."""
    covered = np.round(table["coverage"] * table["n_replicates"])
    chance = stats.binom.cdf(covered, table["n_replicates"], bar(table["level"]))
    return pd.Series(chance < significance, index=table.index)


FAMILIES = {
    "pass_pow_k": "pass^k",
    "pass_at_k": "pass@k",
    "p_pow_k": "band p̂^k",
    "pass_at_1": "pass@1",
}


def summary(tables: dict[str, pd.DataFrame], level: float) -> pd.DataFrame:
    """One row per grid, statistic family and method: worst and typical coverage, and width."""
    rows = []
    for name, table in tables.items():
        here = table[(table["level"] == level) & (table["n_replicates"] > 0)]
        for (method, statistic), cells in here.groupby(["method", "statistic"], sort=False):
            worst = cells.loc[cells["coverage"].idxmin()]
            rows.append(
                {
                    "grid": name,
                    "statistic": FAMILIES[str(statistic)],
                    "method": method,
                    "cells": len(cells),
                    "worst": worst["coverage"],
                    "mean": cells["coverage"].mean(),
                    f"below {bar(level):g}": int((cells["coverage"] < bar(level)).sum()),
                    "significantly": int(below(cells).sum()),
                    "median width": cells["median_width"].median(),
                    "zero width": cells["zero_width"].max(),
                    "undefined": int(table.loc[cells.index, "n_undefined"].sum()),
                    "worst cell": describe(worst),
                }
            )
    return pd.DataFrame(rows)


def describe(row: pd.Series) -> str:
    """Name a cell: its statistic, k, population, runs and tasks."""
    return (
        f"{FAMILIES[row['statistic']]} k={row['k']}, {row['population']}, {row['runs']}, "
        f"{row['tasks']} tasks"
    )


def worst_cells(tables: dict[str, pd.DataFrame], count: int) -> pd.DataFrame:
    """Return the `count` default cells nearest their bar (or below it), per grid and level."""
    shown = []
    for name, table in tables.items():
        here = table[(table["method"] == DEFAULT) & (table["n_replicates"] > 0)]
        margin = here["coverage"] - bar(here["level"])
        for _, cells in here.assign(margin=margin).groupby("level", sort=False):
            shown.append(cells.nsmallest(count, "margin").assign(grid=name))
    worst = pd.concat(shown)
    worst["significantly below"] = below(worst)
    return worst[
        [
            "grid",
            "level",
            *COLUMNS[2:9],
            "coverage_se",
            "median_width",
            "n_undefined",
            "significantly below",
        ]
    ]


def exact_coverage(row: pd.Series) -> float:
    """Return the exact coverage of a curve cell where every task has exactly k runs, else NaN.

    There the statistic is the share of the tasks whose value is 1, a
    binomial proportion of the tasks, and the default interval is
    Clopper-Pearson on them: its coverage is a sum over the outcomes.
    """
    scheme = SCHEMES.get(row["runs"])
    if scheme is None or scheme.runs != row["k"] or row["statistic"] not in FAMILIES_OF_K:
        return np.nan
    outcomes = np.arange(row["tasks"] + 1)
    low, high = pk.binomial_ci(
        outcomes, row["tasks"], confidence_level=row["level"], method="clopper_pearson"
    )
    inside = (low <= row["truth"]) & (row["truth"] <= high)
    return float(stats.binom.pmf(outcomes, row["tasks"], row["truth"])[inside].sum())


FAMILIES_OF_K = ("pass_pow_k", "pass_at_k")


def failures(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every default cell below its bar, or with a zero-width interval, and its exact coverage."""
    found = []
    for name, table in tables.items():
        here = table[(table["method"] == DEFAULT) & (table["n_replicates"] > 0)]
        bad = here[(here["coverage"] < bar(here["level"])) | (here["zero_width"] > 0)]
        exact = bad.apply(exact_coverage, axis=1) if len(bad) else []
        found.append(bad.assign(grid=name, significantly=below(bad), exact=exact))
    return pd.concat(found)


def width_ratios(bootstrap: pd.DataFrame) -> pd.DataFrame:
    """Per bootstrap method: coverage against the default's on the same evaluations, and width."""
    keys = ["population", "runs", "tasks", "statistic", "k"]
    default = bootstrap[bootstrap["method"] == DEFAULT].set_index(keys)
    rows = []
    for method, cells in bootstrap.groupby("method", sort=False):
        cells = cells.set_index(keys)
        ratio = cells["median_width"] / default["median_width"]
        holds = cells["coverage"] >= 0.93
        rows.append(
            {
                "method": method,
                "cells": len(cells),
                "worst": cells["coverage"].min(),
                "mean": cells["coverage"].mean(),
                "below 0.93": int((~holds).sum()),
                "zero width (mean share)": cells["zero_width"].mean(),
                "zero width (worst cell)": cells["zero_width"].max(),
                "median width / auto's": ratio.median(),
                "where it holds 0.93": ratio[holds].median(),
            }
        )
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    """Return `table` as a Markdown table, numbers to 4 significant digits."""
    return _markdown.markdown(table, ".4g")


def report(tables: dict[str, pd.DataFrame], settings: Grid) -> str:
    """Return the study's tables as Markdown."""
    parts = [
        "# Coverage of the library's intervals",
        "",
        "Written by `python study/coverage.py` (seeded; the CSV files beside this one hold every "
        f"cell). Replicates per cell: curve {settings.replicates}, pass@1 "
        f"{settings.pass_at_1_replicates}, compare {settings.compare_replicates}, bootstrap "
        f"{settings.bootstrap_replicates} ({settings.resamples} resamples). A cell's bar is its "
        f"level minus {MARGIN}; 'significantly' counts the cells whose exact binomial chance of "
        f"so few covered evaluations at the bar is below {SIGNIFICANCE}. Widths are the median "
        "over cells of each cell's median width. 'undefined' counts the evaluations in which a k "
        "counted fewer than 2 tasks (NaN by design, not scored).",
    ]
    for level in settings.levels:
        parts += ["", f"## Level {level}", "", markdown(summary(tables, level))]
    parts += [
        "",
        "## Default cells below their bar or with zero width",
        "",
        "'exact' is the exact coverage where every task has exactly k runs (Clopper-Pearson on "
        "the tasks, a sum over the binomial outcomes); elsewhere it is blank.",
        "",
    ]
    bad = failures(tables)
    parts.append(
        markdown(bad[["grid", *COLUMNS[:9], "coverage_se", "zero_width", "significantly", "exact"]])
        if len(bad)
        else "None."
    )
    parts += ["", "## Lowest default cells per grid and level (coverage minus bar)", ""]
    parts.append(markdown(worst_cells(tables, 3)))
    curve = tables["curve"]
    default = curve[(curve["level"] == 0.95) & (curve["method"] == DEFAULT)]
    for statistic in ("pass_pow_k", "pass_at_k"):
        rows = default[default["statistic"] == statistic]
        pivot = rows.pivot_table(
            index="population",
            columns=["runs", "tasks"],
            values="coverage",
            aggfunc="min",
            sort=False,
        )
        pivot.columns = [f"{runs}, {tasks}" for runs, tasks in pivot.columns]
        parts += ["", f"## Curve, {FAMILIES[statistic]} at 0.95: lowest coverage over k", ""]
        parts.append(markdown(pivot.reset_index()))
        widths = rows.pivot_table(
            index="population",
            columns=["runs", "tasks"],
            values="median_width",
            aggfunc="max",
            sort=False,
        )
        widths.columns = pivot.columns
        parts += ["", f"## Curve, {FAMILIES[statistic]} at 0.95: widest median width over k", ""]
        parts.append(markdown(widths.reset_index()))
    parts += ["", "## The bootstrap beside the default (same evaluations, 0.95)", ""]
    parts.append(markdown(width_ratios(tables["bootstrap"])))
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
    """Run the study, print its tables, and (full grid) write them to docs/coverage/."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the CI-sized grid; writes nothing")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", type=Path, default=OUTPUT, help="where the full run writes")
    args = parser.parse_args(argv)
    settings = grid(args.quick)
    tables = run(settings, args.jobs)
    text = report(tables, settings)
    print(text)
    if not args.quick:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, table in tables.items():
            table.to_csv(args.out / f"{name}.csv", index=False, float_format="%.10g")
        (args.out / "tables.md").write_text(text, encoding="utf-8")
    return tables


if __name__ == "__main__":
    main()
