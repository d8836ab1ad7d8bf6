"""Measured coverage: how often each interval method contains the truth it estimates.

An interval labelled 95% should contain the true value in 95% of evaluations.
:func:`interval_coverage` simulates many evaluations from a known model of
task difficulty -- every task with the same per-run rate, rates drawn from a
Beta distribution, or a finite mixture of rates -- with the same or unequal
runs per task, computes every interval exactly as
:func:`~passk_lab.reliability_curve` and :func:`~passk_lab.pass_at_1_se` do,
and counts.

The truth is the model's value for a new task from the same population, not
for the simulated tasks: ``E[p^k]`` for pass^k, ``1 - E[(1 - p)^k]`` for
pass@k, ``E[p]`` for pass@1, and ``(E[p])^k`` for the curve's band ``p̂^k``
(the independent-runs prediction of pass^k, which differs from pass^k when
tasks differ).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from passk_lab._betabinom import beta_shapes
from passk_lab._checks import confidence, k_values, positive_int, probability
from passk_lab._goodness_of_fit import outcome_chances
from passk_lab._interval_policy import INTERVAL_METHODS, IntervalSpec, curve_intervals
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import UNSET, renamed
from passk_lab.intervals import PassAt1SE

__all__ = ["COVERAGE_METHODS", "interval_coverage"]

_PASS_AT_1_METHODS: tuple[str, ...] = ("auto", "clustered", "naive")
"""The methods of :meth:`~passk_lab.PassAt1SE.confidence_interval`."""

COVERAGE_METHODS: tuple[str, ...] = (*INTERVAL_METHODS, "clustered", "naive")
"""Every method :func:`interval_coverage` measures: the curve's, and pass@1's normal intervals."""

_CURVE_STATISTICS = ("pass_pow_k", "pass_at_k", "p_pow_k")
_SLACK = 1e-12
"""A limit within this share of the truth's distance to 0 or 1 covers it: a bootstrap limit
on the truth itself (a mean of the tasks' values, such as 1/20) can land an ulp off it."""
_SCORES = (
    "coverage",
    "coverage_se",
    "mean_width",
    "median_width",
    "zero_width",
    "miss_low",
    "miss_high",
)


class _Population(NamedTuple):
    """Task rates: a finite mixture of (share, rate), or a Beta (mean, icc) with ``icc > 0``."""

    shares: Floats
    rates: Floats
    icc: float  # > 0 only for a Beta population of mean rates[0]

    def chances(self, runs: int) -> Floats:
        """Return the chance that a task with `runs` runs passes 0, 1, ..., `runs` of them."""
        if self.icc > 0.0:
            return outcome_chances(float(self.rates[0]), self.icc, runs)
        parts = [outcome_chances(float(rate), 0.0, runs) for rate in self.rates]
        mixed: Floats = self.shares @ np.array(parts)
        return mixed

    def truths(self, ks: Ints) -> dict[str, Floats]:
        """Return every statistic's value for a new task, per k (pass@1 at k = 1)."""
        mean = float(self.shares @ self.rates)
        if self.icc > 0.0:
            from scipy import special  # a curve imports no scipy; the study may

            alpha, beta = beta_shapes(mean, self.icc)
            base = special.betaln(alpha, beta)
            pow_k = np.exp(special.betaln(alpha + ks, beta) - base)
            at_k = -np.expm1(special.betaln(alpha, beta + ks) - base)
        else:
            pow_k = self.shares @ self.rates[:, None] ** ks
            at_k = 1.0 - self.shares @ (1.0 - self.rates[:, None]) ** ks
        return {
            "pass_pow_k": np.asarray(pow_k, dtype=np.float64),
            "pass_at_k": np.asarray(at_k, dtype=np.float64),
            "p_pow_k": mean ** ks.astype(np.float64),
            "pass_at_1": np.array([mean]),
        }


def _population(
    p: float | None, icc: float, mixture: Sequence[tuple[float, float]] | None
) -> _Population:
    """Check the model arguments and return the population they name."""
    correlation = probability("icc", icc)
    if mixture is None:
        rate = probability("p", 0.85 if p is None else p)
        if not 0.0 < rate < 1.0:
            raise ValueError(
                f"p must be strictly between 0 and 1, got {rate}; for tasks that always pass "
                f"or always fail, give them as a share of mixture=[(share, rate), ...]"
            )
        if correlation >= 1.0:
            raise ValueError("icc must be below 1 (at 1 every task always passes or always fails)")
        return _Population(np.ones(1), np.array([rate]), correlation)
    if p is not None or correlation != 0.0:
        raise ValueError(
            "give the task rates either as p= and icc= (a Beta population) or as mixture=, not both"
        )
    if isinstance(mixture, str) or not isinstance(mixture, Iterable):
        raise TypeError(f"mixture must be a list of (share, rate) pairs, got {mixture!r}")
    pairs = list(mixture)
    if not pairs or any(not isinstance(pair, Sequence) or len(pair) != 2 for pair in pairs):
        raise ValueError(
            f"mixture must be a non-empty list of (share, rate) pairs, such as "
            f"[(0.3, 1.0), (0.7, 0.6)] for 30% of tasks that always pass and 70% at 0.6; "
            f"got {mixture!r}"
        )
    shares = np.array([probability("mixture share", share) for share, _ in pairs])
    rates = np.array([probability("mixture rate", rate) for _, rate in pairs])
    if np.any(shares <= 0.0) or abs(shares.sum() - 1.0) > 1e-9:
        raise ValueError(
            f"the shares of mixture must be positive and add up to 1, got "
            f"{shares.tolist()} (sum {shares.sum():g}); give every component's share of the tasks"
        )
    return _Population(shares, rates, 0.0)


def _tasks(n_tasks: object) -> int:
    """Return the tasks of an evaluation, at least 2."""
    tasks = positive_int("n_tasks", n_tasks)
    if tasks < 2:
        raise ValueError(
            "n_tasks must be at least 2: the intervals are claims about a population of tasks, "
            "and one task says nothing about the next one"
        )
    return tasks


def _ks(ks: Iterable[int] | None, most: int) -> Ints:
    """Return the asked ks (1 to `most` by default), each at most `most`."""
    values = k_values(ks, most)
    if values.max() > most:
        raise ValueError(f"ks must be at most the most runs a task has, {most}; got {values.max()}")
    return values


def _run_counts(runs_per_task: object) -> tuple[Ints, Floats]:
    """Return the distinct runs per task and the chance of each (drawn uniformly per task)."""
    if runs_per_task is None:
        raise TypeError("interval_coverage needs runs_per_task, the runs of every task")
    if isinstance(runs_per_task, Iterable) and not isinstance(runs_per_task, str):
        asked = [positive_int("runs_per_task", runs) for runs in runs_per_task]
        if not asked:
            raise ValueError(
                "runs_per_task is empty; give the runs of every task, or a list of run counts "
                "to draw from, such as range(2, 11)"
            )
    else:
        asked = [positive_int("runs_per_task", runs_per_task)]
    runs, times = np.unique(np.array(asked, dtype=np.int64), return_counts=True)
    return runs, times / times.sum()


def _methods(methods: Sequence[str]) -> list[str]:
    """Check the methods and return them in order, without repeats."""
    if isinstance(methods, str) or not isinstance(methods, Iterable):
        raise TypeError(f"methods must be a list of method names, got {methods!r}")
    chosen = list(dict.fromkeys(methods))
    unknown = [method for method in chosen if method not in COVERAGE_METHODS]
    if unknown or not chosen:
        hint = (
            "; the p̂^k band is now measured for every curve method (statistic p_pow_k)"
            if "analytic" in unknown
            else ""
        )
        raise ValueError(
            f"methods must be a non-empty list of {', '.join(COVERAGE_METHODS)}; "
            f"got {unknown or chosen}{hint}"
        )
    return chosen


def _score(
    low: Floats, high: Floats, truth: Floats, defined: Bools
) -> list[dict[str, float | int]]:
    """Return, per column, the coverage and widths over the replicates where it is defined."""
    rows: list[dict[str, float | int]] = []
    for column, value in enumerate(truth):
        scored = defined[:, column]
        count = int(scored.sum())
        row: dict[str, float | int] = dict.fromkeys(_SCORES, np.nan)
        if count:
            slack = _SLACK * min(value, 1.0 - value)
            lows, highs = low[scored, column] - slack, high[scored, column] + slack
            width = high[scored, column] - low[scored, column]
            coverage = float(np.mean((lows <= value) & (value <= highs)))
            row = {
                "coverage": coverage,
                "coverage_se": float(np.sqrt(coverage * (1.0 - coverage) / count)),
                "mean_width": float(np.mean(width)),
                "median_width": float(np.median(width)),
                "zero_width": float(np.mean(width <= 0.0)),
                "miss_low": float(np.mean(value < lows)),
                "miss_high": float(np.mean(value > highs)),
            }
        rows.append(row | {"n_replicates": count, "n_undefined": len(scored) - count})
    return rows


def interval_coverage(
    n_tasks: int,
    runs_per_task: int | Sequence[int] | None = None,
    *,
    confidence_level: float = 0.95,
    methods: Sequence[str] = ("auto", "percentile", "bca", "two-level", "clustered"),
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    p: float | None = None,
    icc: float = 0.0,
    mixture: Sequence[tuple[float, float]] | None = None,
    ks: Iterable[int] | None = None,
    n_replicates: int = 1000,
    n_runs: int | None = UNSET,
) -> pd.DataFrame:
    """Simulate evaluations from a known model and measure each interval's coverage and width.

    Every simulated evaluation is `n_tasks` tasks drawn from one population
    of per-run pass rates, each run `runs_per_task` times; its intervals are
    computed exactly as the curve and :meth:`~passk_lab.PassAt1SE.confidence_interval`
    compute them, and scored against the population's value for a new task.

    Parameters
    ----------
    n_tasks : int
        Tasks per evaluation, at least 2.
    runs_per_task : int or sequence of int
        Runs of every task, or run counts that each task draws one of
        uniformly (``range(2, 11)``: 2 to 10 runs). A k counts only the tasks
        with at least k runs, as in the curve.
    confidence_level : float
        Nominal level, in (0, 1).
    methods : sequence of str
        Any of ``passk_lab.coverage.COVERAGE_METHODS``: the curve's methods, each measured
        for pass^k, pass@k and the band p̂^k at every k; and pass@1's
        (``"auto"``, ``"clustered"``, ``"naive"``): ``"auto"`` measures both.
    n_resamples : int
        Bootstrap resamples per interval (bootstrap methods only).
    rng : int, numpy.random.Generator or None
        Seed or generator of everything random here; the evaluations are
        drawn first, so a seed gives the same ones whatever the methods.
    p : float, optional
        Mean per-run pass rate, in (0, 1); 0.85 if neither `p` nor `mixture`
        is given.
    icc : float
        Intra-task correlation in [0, 1): 0 gives every task the rate `p`;
        above 0 task rates are Beta with mean `p` and this correlation.
    mixture : sequence of (share, rate), optional
        Task rates in place of `p` and `icc`: ``[(0.3, 1.0), (0.7, 0.6)]`` is
        30% of tasks that always pass, 70% that pass a run with chance 0.6.
    ks : sequence of int, optional
        The k values, each at most the largest run count; by default 1 to it.
    n_replicates : int
        Simulated evaluations (the coverage's standard error is about 0.007 at 1000).
    n_runs : int, optional
        The old name of `runs_per_task`; deprecated, it goes in the next release.

    Returns
    -------
    DataFrame
        One row per method, statistic and k: ``[method, statistic, k, truth,
        coverage, coverage_se, mean_width, median_width, zero_width, miss_low,
        miss_high, n_replicates, n_undefined]``. ``statistic`` is
        ``pass_pow_k``, ``pass_at_k``, ``p_pow_k`` (the band, whose truth is
        ``(E[p])^k``) or ``pass_at_1`` (k = 1). An interval covers the truth
        when ``low <= truth <= high`` (up to rounding); ``zero_width`` is the
        share of intervals that are a point; ``miss_low`` (``miss_high``) the
        share that lie entirely above (below) the truth. A replicate in which
        a k counts fewer than 2 tasks has a NaN interval by design: it is
        counted in ``n_undefined``, not scored as a miss.

    Raises
    ------
    ValueError
        For a model, k, method or count outside its range, naming it.

    Examples
    --------
    >>> table = interval_coverage(40, 5, p=0.7, icc=0.2, ks=[1, 5], methods=["auto"],
    ...                           n_replicates=200, rng=0)
    >>> table[["statistic", "k"]].to_numpy().tolist()
    [['pass_pow_k', 1], ['pass_pow_k', 5], ['pass_at_k', 1], ['pass_at_k', 5],
     ['p_pow_k', 1], ['p_pow_k', 5], ['pass_at_1', 1]]
    >>> bool(table["coverage"].between(0.9, 1.0).all()), int(table["zero_width"].sum())
    (True, 0)

    Unequal runs: pass^10 counts the tasks with 10 runs, about one in nine:

    >>> unequal = interval_coverage(20, range(2, 11), p=0.7, ks=[10], methods=["auto"],
    ...                             n_replicates=100, rng=0)
    >>> row = unequal.iloc[0]
    >>> row["statistic"], int(row["n_replicates"] + row["n_undefined"])
    ('pass_pow_k', 100)
    >>> bool(row["n_undefined"] > 0)
    True
    """
    tasks = _tasks(n_tasks)
    runs, run_chances = _run_counts(renamed("n_runs", "runs_per_task", n_runs, runs_per_task))
    population = _population(p, icc, mixture)
    level = confidence(confidence_level)
    replicates = positive_int("n_replicates", n_replicates)
    values_ks = _ks(ks, int(runs.max()))
    chosen = _methods(methods)
    generator = np.random.default_rng(rng)
    n, c, counts = _evaluations(population, tasks, (runs, run_chances), replicates, generator)
    specs: dict[str, IntervalSpec] = {
        method: IntervalSpec.of(method, level, n_resamples, generator)
        for method in chosen
        if method in INTERVAL_METHODS
    }
    at_1 = [method for method in chosen if method in _PASS_AT_1_METHODS]
    limits = _replicate_limits((n, c, counts), values_ks, specs, at_1, level)
    counted = counts @ (n[:, None] >= values_ks[None, :])
    return _scored(limits, population.truths(values_ks), counted, values_ks)


def _evaluations(
    population: _Population,
    tasks: int,
    runs: tuple[Ints, Floats],
    replicates: int,
    generator: np.random.Generator,
) -> tuple[Ints, Ints, Ints]:
    """Draw `replicates` evaluations of `tasks` tasks: every (n, c) cell, and its tasks in each.

    `runs` holds the run counts a task draws from and the chance of each.
    """
    sizes, size_chances = runs
    n = np.repeat(sizes, sizes + 1)
    c = np.concatenate([np.arange(size + 1) for size in sizes])
    chances = np.concatenate(
        [
            share * population.chances(int(size))
            for size, share in zip(sizes, size_chances, strict=True)
        ]
    )
    counts: Ints = generator.multinomial(tasks, chances / chances.sum(), size=replicates)
    return n, c, counts


def _replicate_limits(
    cells: tuple[Ints, Ints, Ints],
    ks: Ints,
    specs: dict[str, IntervalSpec],
    at_1: list[str],
    level: float,
) -> dict[tuple[str, str], Floats]:
    """Return every (method, statistic)'s limits, ``2 x replicates x ks``, of every evaluation.

    `cells` holds the (n, c) outcome cells and each replicate's tasks in
    them (replicates x cells).
    """
    n, c, counts = cells
    replicates = len(counts)
    limits: dict[tuple[str, str], Floats] = {
        (method, statistic): np.full((2, replicates, len(ks)), np.nan)
        for method in specs
        for statistic in _CURVE_STATISTICS
    } | {(method, "pass_at_1"): np.full((2, replicates, 1), np.nan) for method in at_1}
    for replicate in range(replicates):
        keep = counts[replicate] > 0
        drawn = (n[keep], c[keep], counts[replicate, keep].astype(np.int64))
        for method, spec in specs.items():
            intervals = curve_intervals(*drawn, ks, spec)
            limits[method, "pass_pow_k"][:, replicate] = intervals.pass_pow_k
            limits[method, "pass_at_k"][:, replicate] = intervals.pass_at_k
            limits[method, "p_pow_k"][:, replicate] = [
                limit[0] ** ks for limit in intervals.pass_at_1
            ]
        if at_1:
            summary = PassAt1SE.from_cells(*drawn)
            for se_method in at_1:
                interval = summary.confidence_interval(level, se_method)  # type: ignore[arg-type]
                limits[se_method, "pass_at_1"][:, replicate, 0] = interval
    return limits


def _scored(
    limits: dict[tuple[str, str], Floats],
    truths: dict[str, Floats],
    counted: Ints,
    ks: Ints,
) -> pd.DataFrame:
    """Return the coverage table: every (method, statistic, k)'s scores against its truth.

    `counted` is replicates x ks, the tasks each replicate counts at each k:
    a k with fewer than two has no interval of pass^k or pass@k.
    """
    replicates = len(counted)
    defined = {
        "pass_pow_k": counted >= 2,
        "pass_at_k": counted >= 2,
        "p_pow_k": np.ones((replicates, len(ks)), dtype=bool),
        "pass_at_1": np.ones((replicates, 1), dtype=bool),
    }
    rows = []
    for (name, statistic), (low, high) in limits.items():
        column_ks = ks if statistic != "pass_at_1" else np.ones(1, dtype=np.int64)
        scores = _score(low, high, truths[statistic], defined[statistic])
        for k, truth, score in zip(column_ks, truths[statistic], scores, strict=True):
            rows.append(
                {"method": name, "statistic": statistic, "k": int(k), "truth": float(truth)} | score
            )
    return pd.DataFrame(rows)
