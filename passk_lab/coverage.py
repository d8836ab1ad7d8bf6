"""Measured coverage: how often each interval method contains the truth it estimates.

An interval labelled 95% should contain the true value in 95% of evaluations.
:func:`interval_coverage` simulates many evaluations from a known model --
every task with the same per-run rate, or rates drawn from a Beta
distribution -- computes every interval exactly as
:func:`~passk_lab.reliability_curve` and :func:`~passk_lab.pass_at_1_se` do,
and counts.

The truth is the model's own value for a new task: ``E[p^k]`` for pass^k and
``1 - E[(1 - p)^k]`` for pass@k (``p^k`` and ``1 - (1 - p)^k`` for identical
tasks). The analytic band ``p̂^k`` is scored against the true pass^k, which it
misses when tasks differ: that is the point of measuring it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

import numpy as np
import pandas as pd

from passk_lab._betabinom import beta_shapes, outcome_chances
from passk_lab._checks import confidence, k_values, positive_int, probability
from passk_lab._interval import normal_interval, pass_at_1_errors
from passk_lab._interval_policy import INTERVAL_METHODS, IntervalSpec, curve_intervals
from passk_lab._typing import Floats
from passk_lab._warnings import UNSET, renamed
from passk_lab.intervals import BINOMIAL_METHODS, BinomialMethod, binomial_ci

__all__ = ["COVERAGE_METHODS", "interval_coverage"]

COVERAGE_METHODS: tuple[str, ...] = (*INTERVAL_METHODS, "analytic", "clustered", "naive")


def _truth(p: float, icc: float, ks: np.ndarray) -> tuple[Floats, Floats]:
    """Return the model's pass^k and pass@k of a new task, for every k."""
    if icc == 0.0:
        return p**ks, 1.0 - (1.0 - p) ** ks
    from scipy import special  # not needed by a curve, which imports no scipy

    alpha, beta = beta_shapes(p, icc)
    base = special.betaln(alpha, beta)
    return (
        np.exp(special.betaln(alpha + ks, beta) - base),
        1.0 - np.exp(special.betaln(alpha, beta + ks) - base),
    )


def interval_coverage(
    n_tasks: int,
    runs_per_task: int | None = None,
    *,
    p: float = 0.85,
    icc: float = 0.0,
    ks: Iterable[int] | None = None,
    methods: Sequence[str] = ("auto", "percentile", "bca", "two-level", "analytic", "clustered"),
    confidence_level: float = 0.95,
    n_replicates: int = 1000,
    n_resamples: int = 2000,
    rng: int | np.random.Generator | None = None,
    n_runs: int | None = UNSET,
) -> pd.DataFrame:
    """Simulate evaluations from a known model and measure each interval's coverage and width.

    Parameters
    ----------
    n_tasks, runs_per_task : int
        Tasks per evaluation and runs per task.
    p : float
        Mean per-run pass rate, in (0, 1).
    icc : float
        Intra-task correlation in [0, 1): 0 gives every task the rate `p`;
        above 0 task rates are Beta with mean `p` and this correlation.
    ks : sequence of int, optional
        The k values, each ``<= runs_per_task``; by default 1 to `runs_per_task`.
    methods : sequence of str
        Any of :func:`~passk_lab.reliability_curve`'s methods (``"auto"``,
        ``"percentile"``, ``"bca"``, ``"two-level"``, and the binomial
        methods, which apply only at ``k = runs_per_task``), ``"analytic"`` (the
        p̂^k band) and ``"clustered"`` / ``"naive"`` (normal intervals of
        pass@1 from :func:`~passk_lab.pass_at_1_se`, k = 1 only).
    confidence_level : float
        Nominal level, in (0, 1).
    n_replicates : int
        Simulated evaluations; the coverage's standard error is about
        ``sqrt(0.95 * 0.05 / n_replicates)``.
    n_resamples : int
        Bootstrap resamples per interval.
    rng : int, numpy.random.Generator or None
        Seed or generator of everything random here.
    n_runs : int, optional
        The old name of `runs_per_task`; deprecated, it goes in the next release.

    Returns
    -------
    DataFrame
        ``[method, statistic, k, truth, coverage, coverage_se, mean_width,
        n_replicates]``: one row per method, statistic (``pass_pow_k``,
        ``pass_at_k``) and k it applies to.

    Examples
    --------
    >>> table = interval_coverage(40, 5, methods=["auto"], n_replicates=200, rng=0)
    >>> table.columns.tolist()
    ['method', 'statistic', 'k', 'truth', 'coverage', 'coverage_se', 'mean_width', 'n_replicates']
    >>> bool(table["coverage"].between(0.85, 1.0).all())
    True
    """
    tasks = positive_int("n_tasks", n_tasks)
    asked = renamed("n_runs", "runs_per_task", n_runs, runs_per_task)
    if asked is None:
        raise TypeError("interval_coverage needs runs_per_task, the runs of every task")
    runs = positive_int("runs_per_task", asked)
    rate = probability("p", p)
    if not 0.0 < rate < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {rate}")
    correlation = probability("icc", icc)
    if correlation >= 1.0:
        raise ValueError("icc must be below 1 (at 1 every task always passes or always fails)")
    level = confidence(confidence_level)
    replicates = positive_int("n_replicates", n_replicates)
    values_ks = k_values(ks, runs)
    if values_ks.max() > runs:
        raise ValueError(f"ks must be at most runs_per_task = {runs}, got {values_ks.max()}")
    unknown = [method for method in methods if method not in COVERAGE_METHODS]
    if unknown or not methods:
        raise ValueError(
            f"methods must be a non-empty list of {', '.join(COVERAGE_METHODS)}; got {unknown}"
        )
    generator = np.random.default_rng(rng)
    true_pow, true_at = _truth(rate, correlation, values_ks)
    chances = outcome_chances(rate, correlation, runs)
    n = np.full(runs + 1, runs, dtype=np.int64)
    c = np.arange(runs + 1, dtype=np.int64)
    hits: dict[tuple[str, str, int], list[tuple[float, float]]] = {}

    def record(method: str, statistic: str, k: int, low: float, high: float) -> None:
        hits.setdefault((method, statistic, k), []).append((low, high))

    specs = {
        method: IntervalSpec.of(method, level, n_resamples, generator)
        for method in methods
        if method in INTERVAL_METHODS and method not in BINOMIAL_METHODS
    }
    if "analytic" in methods and "auto" not in specs:
        specs["auto"] = IntervalSpec.of("auto", level, n_resamples, generator)
    for _ in range(replicates):
        counts = generator.multinomial(tasks, chances)
        keep = counts > 0
        cells = (n[keep], c[keep], counts[keep].astype(np.int64))
        for method, spec in specs.items():
            intervals = curve_intervals(*cells, values_ks, spec)
            if method in methods:
                for column, k in enumerate(values_ks):
                    for statistic in ("pass_pow_k", "pass_at_k"):
                        low, high = getattr(intervals, statistic)
                        record(method, statistic, int(k), low[column], high[column])
            if method == "auto" and "analytic" in methods:
                low, high = intervals.pass_at_1
                for k in values_ks:
                    record("analytic", "pass_pow_k", int(k), low[0] ** k, high[0] ** k)
        for method in methods:
            if method in BINOMIAL_METHODS and runs in values_ks:
                trials = int(counts.sum())
                for statistic, successes in (
                    ("pass_pow_k", counts[runs]),
                    ("pass_at_k", trials - counts[0]),
                ):
                    interval = binomial_ci(
                        successes,
                        trials,
                        confidence_level=level,
                        method=cast("BinomialMethod", method),
                    )
                    record(method, statistic, runs, float(interval.low), float(interval.high))
            if method in ("clustered", "naive") and 1 in values_ks:
                estimate, clustered, naive = pass_at_1_errors(*cells)
                se = clustered if method == "clustered" else naive
                low, high = normal_interval(estimate, se, level)
                record(method, "pass_at_1", 1, float(low), float(high))
    truths = {"pass_pow_k": dict(zip(values_ks, true_pow, strict=True))}
    truths["pass_at_k"] = dict(zip(values_ks, true_at, strict=True))
    truths["pass_at_1"] = {1: float(true_pow[values_ks == 1][0]) if 1 in values_ks else np.nan}
    rows = []
    for (method, statistic, k), limits in hits.items():
        low, high = np.array(limits).T
        truth = float(truths[statistic][k])
        covered = (low <= truth + 1e-12) & (truth - 1e-12 <= high)
        coverage = float(covered.mean())
        rows.append(
            {
                "method": method,
                "statistic": statistic,
                "k": k,
                "truth": truth,
                "coverage": coverage,
                "coverage_se": float(np.sqrt(coverage * (1 - coverage) / len(low))),
                "mean_width": float(np.mean(high - low)),
                "n_replicates": len(low),
            }
        )
    return pd.DataFrame(rows)
