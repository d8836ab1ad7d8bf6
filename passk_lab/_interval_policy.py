"""The interval policy: which interval each statistic of a curve gets, computed once for all.

A curve reports, per k, pass^k and pass@k, and pass@1 beside them.
:class:`Statistics` holds their per-cell values by name, and is the one
place that lays them side by side for the bootstrap and takes them apart
again. :func:`curve_intervals` applies the policy an :class:`IntervalSpec`
names and returns a :class:`CurveIntervals` of one set of :class:`Limits`
per statistic, so that the
estimators, the comparison and the coverage study read intervals by name,
never by column position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias

import numpy as np

from passk_lab._bootstrap import task_bootstrap, two_level_bootstrap
from passk_lab._checks import confidence, positive_int
from passk_lab._choices import INTERVAL_METHODS
from passk_lab._data.cells import products
from passk_lab._typing import Floats, Ints
from passk_lab.intervals import BinomialMethod, binomial_ci

__all__ = [
    "INTERVAL_METHODS",
    "CurveIntervals",
    "IntervalMethod",
    "IntervalSpec",
    "Limits",
    "Statistics",
    "curve_intervals",
]

IntervalMethod: TypeAlias = Literal[
    "auto",
    "wilson",
    "clopper_pearson",
    "jeffreys",
    "agresti_coull",
    "wald",
    "percentile",
    "bca",
    "two-level",
]
Resampling: TypeAlias = Literal["percentile", "bca", "two-level"]

_CHOICES: dict[IntervalMethod, tuple[BinomialMethod | None, Resampling]] = {
    "auto": ("wilson", "bca"),
    "wilson": ("wilson", "bca"),
    "clopper_pearson": ("clopper_pearson", "bca"),
    "jeffreys": ("jeffreys", "bca"),
    "agresti_coull": ("agresti_coull", "bca"),
    "wald": ("wald", "bca"),
    "percentile": (None, "percentile"),
    "bca": (None, "bca"),
    "two-level": (None, "two-level"),
}
"""Per method: the binomial interval where every counted task has exactly k runs, and the
bootstrap everywhere else."""


@dataclass(frozen=True)
class IntervalSpec:
    """How a curve's intervals are computed: the method, the level and the resampling."""

    method: IntervalMethod
    binomial: BinomialMethod | None  # where every counted task has exactly k runs
    bootstrap: Resampling  # for every other row
    confidence_level: float
    n_resamples: int
    rng: np.random.Generator

    @classmethod
    def of(
        cls,
        method: object,
        confidence_level: float,
        n_resamples: int,
        rng: int | np.random.Generator | None,
    ) -> IntervalSpec:
        """Check the curve's interval arguments and return the spec they name."""
        chosen = next((name for name in _CHOICES if name == method), None)
        if chosen is None:
            raise ValueError(f"method must be one of {', '.join(INTERVAL_METHODS)}; got {method!r}")
        binomial, bootstrap = _CHOICES[chosen]
        return cls(
            method=chosen,
            binomial=binomial,
            bootstrap=bootstrap,
            confidence_level=confidence(confidence_level),
            n_resamples=positive_int("n_resamples", n_resamples),
            rng=np.random.default_rng(rng),
        )


class Statistics(NamedTuple):
    """A curve's statistics by name: per cell (rows) and k (columns), or one value per k.

    NaN marks a cell that is not counted for a k (it has fewer than k runs).
    """

    pass_pow_k: Floats
    pass_at_k: Floats
    pass_at_1: Floats  # one column: k = 1

    @classmethod
    def of(cls, n: Ints, c: Ints, ks: Ints) -> Statistics:
        """Return every cell's pass^k and pass@k for every k, and its pass@1, ``c / n``."""
        one = np.ones(1, dtype=np.int64)
        return cls(products(n, c, ks), 1.0 - products(n, n - c, ks), products(n, c, one))

    def stacked(self) -> Floats:
        """Return the statistics side by side, cells x columns, for one bootstrap of all."""
        return np.hstack(self)

    def split(self, columns: Floats) -> Statistics:
        """Take one value per column of :meth:`stacked` apart into the statistics again."""
        width = self.pass_pow_k.shape[1]
        return Statistics(columns[:width], columns[width : 2 * width], columns[2 * width :])


class Limits(NamedTuple):
    """One statistic's confidence limits, one per k."""

    low: Floats
    high: Floats


class CurveIntervals(NamedTuple):
    """One group's intervals: pass^k and pass@k for every k, pass@1, and the methods used."""

    pass_pow_k: Limits
    pass_at_k: Limits
    pass_at_1: Limits  # one k: 1
    methods: list[str]  # per k: the method of pass^k, and of pass@k where it differs


def _binomial_where_exact(
    values: Floats,
    ks: Ints,
    interval: Limits,
    n: Ints,
    tasks: Ints,
    spec: IntervalSpec,
) -> tuple[Limits, list[str]]:
    """Replace a statistic's bootstrap interval by a binomial one where that is the honest one.

    That is where every counted task has exactly its k runs (the values are
    then 0 or 1, and the statistic a proportion of tasks), and where the
    bootstrap interval collapsed to a point at 0 or 1 (every counted task has
    the value 0, or every one 1: a mean of values in [0, 1] varies at most as
    a proportion does, so the binomial interval of that many tasks is the
    honest width).
    """
    low, high = interval.low.copy(), interval.high.copy()
    used = [str(spec.bootstrap)] * len(ks)
    for column, k in enumerate(ks):
        counted = np.isfinite(values[:, column])
        if not counted.any():
            continue
        exact = spec.binomial is not None and bool(np.all(n[counted] == k))
        collapsed = low[column] == high[column] and low[column] in (0.0, 1.0)
        if exact or collapsed:
            method = spec.binomial or "wilson"
            trials = int(tasks[counted].sum())
            successes = round(float((tasks * values[:, column])[counted].sum()))
            low[column], high[column] = binomial_ci(
                successes, trials, confidence_level=spec.confidence_level, method=method
            )
            used[column] = method
    return Limits(low, high), used


def curve_intervals(n: Ints, c: Ints, tasks: Ints, ks: Ints, spec: IntervalSpec) -> CurveIntervals:
    """Return one group's intervals of pass^k and pass@k (every k) and pass@1, by the policy.

    Every statistic is bootstrapped in one pass over the group's (n, c)
    cells; where the bootstrap is not the honest interval, a binomial one
    replaces it (see :func:`_binomial_where_exact`).
    """
    statistics = Statistics.of(n, c, ks)
    values = statistics.stacked()
    if spec.bootstrap == "two-level":
        low, high = two_level_bootstrap(
            n,
            c,
            tasks,
            lambda redrawn_n, redrawn_c: Statistics.of(redrawn_n, redrawn_c, ks).stacked(),
            n_resamples=spec.n_resamples,
            confidence_level=spec.confidence_level,
            rng=spec.rng,
        )
    else:
        low, high = task_bootstrap(
            tasks,
            values,
            method=spec.bootstrap,
            n_resamples=spec.n_resamples,
            confidence_level=spec.confidence_level,
            rng=spec.rng,
        )
    lows, highs = statistics.split(np.asarray(low)), statistics.split(np.asarray(high))
    one = np.ones(1, dtype=np.int64)
    (pow_k, pow_methods), (at_k, at_methods), (at_1, _) = (
        _binomial_where_exact(values, column_ks, Limits(low, high), n, tasks, spec)
        for values, low, high, column_ks in zip(statistics, lows, highs, (ks, ks, one), strict=True)
    )
    methods = [
        first if first == second else f"{first} (pass@k: {second})"
        for first, second in zip(pow_methods, at_methods, strict=True)
    ]
    return CurveIntervals(pow_k, at_k, at_1, methods)
