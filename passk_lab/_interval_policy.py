"""The interval policy: which interval a mean over tasks gets, written once for every statistic.

Every interval of a mean over tasks of per-task values in [0, 1] -- pass^k,
pass@k, pass@1, G-Pass@k, a leaderboard's estimates, outcome consistency, the
planned and the sequential intervals -- comes from here. An
:class:`IntervalSpec` names the method; :func:`mean_intervals` applies it to
one statistic's per-cell values and returns :class:`MeanIntervals`. A curve
reports, per k, pass^k and pass@k, and pass@1 beside them:
:class:`Statistics` holds their per-cell values by name, and is the one place
that lays them side by side for the bootstrap and takes them apart again;
:func:`curve_intervals` bootstraps them in one pass and returns a
:class:`CurveIntervals` of one set of :class:`Limits` per statistic, so that
the estimators, the comparison and the coverage study read intervals by
name, never by column position.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from passk_lab._bootstrap import task_bootstrap, two_level_bootstrap
from passk_lab._checks import confidence, positive_int
from passk_lab._choices import INTERVAL_METHODS, BinomialMethod, IntervalMethod, Resampling
from passk_lab._data.cells import pass_at_k_values, pass_pow_k_values
from passk_lab._errors import with_keywords
from passk_lab._interval import ConfidenceInterval, binomial_limits
from passk_lab._mean_intervals import TaskMoments, effective_n_interval
from passk_lab._typing import Floats, Ints

__all__ = [
    "INTERVAL_METHODS",
    "CurveIntervals",
    "IntervalMethod",
    "IntervalSpec",
    "Limits",
    "MeanIntervals",
    "Redraw",
    "Statistics",
    "curve_intervals",
    "mean_intervals",
]

_CHOICES: dict[IntervalMethod, tuple[BinomialMethod, Resampling | None]] = {
    "auto": ("clopper_pearson", None),
    "wilson": ("wilson", None),
    "clopper_pearson": ("clopper_pearson", None),
    "jeffreys": ("jeffreys", None),
    "agresti_coull": ("agresti_coull", None),
    "wald": ("wald", None),
    "percentile": ("clopper_pearson", "percentile"),
    "bca": ("clopper_pearson", "bca"),
    "two-level": ("clopper_pearson", "two-level"),
}
"""Per method: the binomial interval where every counted task has exactly k runs, and the
bootstrap (None: none; the effective-n interval where the binomial one does not apply).
A bootstrap applies at every k, and gives way to the closed-form intervals where it has no
width."""


@dataclass(frozen=True)
class IntervalSpec:
    """How a curve's intervals are computed: the method, the level and the resampling."""

    method: IntervalMethod
    binomial: BinomialMethod  # closed form, where every counted task has exactly k runs
    bootstrap: Resampling | None  # every k, where it has width; None: closed form only
    confidence_level: float
    n_resamples: int
    rng: np.random.Generator

    @classmethod
    def of(
        cls,
        method: object,
        confidence_level: float,
        n_resamples: int = 10_000,
        rng: int | np.random.Generator | None = None,
    ) -> IntervalSpec:
        """Check the interval arguments of a call and return the spec they name.

        Examples
        --------
        >>> spec = IntervalSpec.of("wilson", 0.9)
        >>> spec.binomial, spec.bootstrap, spec.confidence_level
        ('wilson', None, 0.9)
        """
        chosen = next((name for name in _CHOICES if name == method), None)
        if chosen is None:
            raise with_keywords(
                ValueError(f"method must be one of {', '.join(INTERVAL_METHODS)}; got {method!r}"),
                "method",
            )
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
        return cls(
            pass_pow_k_values(n, c, ks), pass_at_k_values(n, c, ks), pass_pow_k_values(n, c, one)
        )

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


def _bootstrap(
    statistics: Statistics,
    n: Ints,
    c: Ints,
    tasks: Ints,
    ks: Ints,
    spec: IntervalSpec,
    method: Resampling,
) -> list[tuple[Floats, Floats]]:
    """Return every statistic's (lower, upper) limits per k by the bootstrap `method`."""
    if method == "two-level":
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
            statistics.stacked(),
            method=method,
            n_resamples=spec.n_resamples,
            confidence_level=spec.confidence_level,
            rng=spec.rng,
        )
    lows, highs = statistics.split(np.asarray(low)), statistics.split(np.asarray(high))
    return list(zip(lows, highs, strict=True))


def _limits(
    moments: TaskMoments, spec: IntervalSpec, resampled: tuple[Floats, Floats] | None
) -> tuple[Limits, list[str]]:
    """Return one statistic's limits per column, and the method that made each, by the policy.

    The spec's bootstrap interval where it names one and the interval has
    width; otherwise, where every counted task has exactly k runs, the spec's
    binomial interval of the tasks, and elsewhere the effective-n interval.
    NaN where fewer than two tasks are counted.
    """
    low, high = effective_n_interval(moments, spec.confidence_level)
    used = np.where(moments.exact, spec.binomial, "effective_n").astype(object)
    if spec.binomial != "clopper_pearson" and moments.exact.any():
        exact = np.flatnonzero(moments.exact & (moments.tasks >= 2))
        successes = np.round(moments.mean[exact] * moments.tasks[exact])
        low[exact], high[exact] = binomial_limits(
            successes, moments.tasks[exact], spec.confidence_level, spec.binomial
        )
    if resampled is not None:
        boot_low, boot_high = resampled
        kept = boot_high > boot_low
        low, high = np.where(kept, boot_low, low), np.where(kept, boot_high, high)
        used = np.where(kept, str(spec.bootstrap), used + f" ({spec.bootstrap}: no width)")
    used = np.where(moments.tasks >= 2, used, "none (fewer than 2 tasks)")
    return Limits(low, high), [str(name) for name in used]


class Redraw(NamedTuple):
    """What the two-level bootstrap needs to redraw a statistic's runs: passes and values.

    ``values_of(n, c)`` returns the statistic's per-cell values (cells x
    columns) for any cells, NaN where a cell is not counted.
    """

    c: Ints
    values_of: Callable[[Ints, Ints], Floats]


class MeanIntervals(NamedTuple):
    """Per column: the mean over the counted tasks, the tasks counted, the limits, the methods."""

    mean: Floats
    tasks: Floats
    low: Floats
    high: Floats
    methods: list[str]


def mean_intervals(
    values: Floats,
    n: Ints,
    tasks: Ints,
    ks: Ints,
    spec: IntervalSpec,
    *,
    redraw: Redraw | None = None,
    capped: bool = True,
) -> MeanIntervals:
    """Return the mean of each column of per-cell values in [0, 1] and its interval, by the policy.

    Parameters
    ----------
    values : ndarray of float, shape (cells, columns)
        Each cell's value of the statistic at each column; NaN where the
        cell is not counted.
    n : ndarray of int, shape (cells,)
        Each cell's runs: a column is exact where every counted cell has
        exactly its k runs (each value is then 0 or 1), and the effective
        tasks are capped at the disjoint blocks of k runs.
    tasks : ndarray of int, shape (cells,) or (cells, columns)
        The tasks of each cell.
    ks : ndarray of int, shape (columns,)
        Each column's k.
    spec : IntervalSpec
        The method. The closed-form intervals need nothing more; a task
        bootstrap resamples the cells; the two-level bootstrap also redraws
        their runs, which needs `redraw`.
    redraw : Redraw, optional
        The cells' passes and the statistic's values of redrawn cells, for
        ``method="two-level"``; it redraws the cells with runs.
    capped : bool
        Cap the effective tasks at the blocks of k runs (False: an estimate
        that uses every run of a task, as a two-stage plan's, is worth more).

    Returns
    -------
    MeanIntervals

    Raises
    ------
    ValueError
        If the spec names the two-level bootstrap and no `redraw` is given.

    Examples
    --------
    Thirty tasks of 4 runs, 2 passes each: pass@1 is 0.5 on every task.

    >>> import numpy as np
    >>> found = mean_intervals(
    ...     np.array([[0.5]]), np.array([4]), np.array([30]), np.array([1]),
    ...     IntervalSpec.of("auto", 0.95),
    ... )
    >>> round(float(found.low[0]), 3), round(float(found.high[0]), 3), found.methods
    (0.407, 0.593, ['effective_n'])
    """
    moments = TaskMoments.of(values, tasks, n, ks)
    if not capped:
        moments = moments._replace(blocks=np.full(len(ks), np.inf))
    resampled: ConfidenceInterval | None = None
    if spec.bootstrap == "two-level":
        if redraw is None:
            raise ValueError("the two-level bootstrap needs the runs to redraw (redraw=)")
        rows = n > 0  # a cell without runs has nothing to redraw and is never counted
        resampled = two_level_bootstrap(
            n[rows],
            redraw.c[rows],
            tasks[rows],
            redraw.values_of,
            counted=np.isfinite(values[rows]),
            n_resamples=spec.n_resamples,
            confidence_level=spec.confidence_level,
            rng=spec.rng,
        )
    elif spec.bootstrap is not None:
        resampled = task_bootstrap(
            tasks,
            values,
            method=spec.bootstrap,
            n_resamples=spec.n_resamples,
            confidence_level=spec.confidence_level,
            rng=spec.rng,
        )
    limits, methods = _limits(
        moments,
        spec,
        None if resampled is None else (np.asarray(resampled.low), np.asarray(resampled.high)),
    )
    return MeanIntervals(moments.mean, moments.tasks, limits.low, limits.high, methods)


def curve_intervals(n: Ints, c: Ints, tasks: Ints, ks: Ints, spec: IntervalSpec) -> CurveIntervals:
    """Return one group's intervals of pass^k and pass@k (every k) and pass@1, by the policy.

    The default is closed form (:mod:`passk_lab._mean_intervals`); a bootstrap
    method resamples every statistic in one pass over the group's (n, c)
    cells, and gives way to the closed-form interval where it collapsed to a
    point.
    """
    statistics = Statistics.of(n, c, ks)
    method = spec.bootstrap
    resampled = None if method is None else _bootstrap(statistics, n, c, tasks, ks, spec, method)
    one = np.ones(1, dtype=np.int64)
    (pow_k, pow_methods), (at_k, at_methods), (at_1, _) = (
        _limits(
            TaskMoments.of(values, tasks, n, column_ks),
            spec,
            None if resampled is None else resampled[index],
        )
        for index, (values, column_ks) in enumerate(zip(statistics, (ks, ks, one), strict=True))
    )
    methods = [
        first if first == second else f"{first} (pass@k: {second})"
        for first, second in zip(pow_methods, at_methods, strict=True)
    ]
    return CurveIntervals(pow_k, at_k, at_1, methods)
