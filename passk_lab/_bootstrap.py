"""The task bootstrap over the (n, c) cells, and the two-level bootstrap that redraws runs too.

Tasks are the independent units, so tasks are resampled with replacement; a
resample of T tasks is one multinomial draw of T over the (n, c) cells, so
the cost does not depend on T.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from passk_lab._checks import check_size, confidence
from passk_lab._choices import BOOTSTRAP_METHODS, BootstrapMethod
from passk_lab._interval import ConfidenceInterval, normal_cdf, normal_quantile, z_value
from passk_lab._typing import Bools, Floats, Ints

__all__ = [
    "BOOTSTRAP_METHODS",
    "BootstrapMethod",
    "acceleration",
    "bca_levels",
    "quantile_limits",
    "resample_cells",
    "tails",
    "task_bootstrap",
    "two_level_bootstrap",
    "weighted_means",
]

_REPLICATE_BYTES = 16
"""Bytes per resample and column of a bootstrap: the float64 replicate and its sorted copy."""


def weighted_means(weights: Ints, values: Floats) -> Floats:
    """Task-weighted means of cell values, per resample (rows) and column; NaN if none counted.

    `weights` is resamples x cells (tasks drawn from each cell); `values` is
    cells x columns, NaN where a cell is not counted for a column.
    """
    counted = np.isfinite(values)
    if counted.all():  # every task counts for every column: divide by the tasks drawn
        drawn = weights.sum(axis=1, dtype=np.float64)[:, None]
        means_all: Floats = (np.asarray(weights, dtype=np.float64) @ values) / drawn
        return means_all
    # one float product for the sums and the counts: cheaper than two, or than int @ float
    both = np.asarray(weights, dtype=np.float64) @ np.hstack(
        [np.where(counted, values, 0.0), counted]
    )
    totals, tasks = both[:, : values.shape[1]], both[:, values.shape[1] :]
    means: Floats = np.divide(totals, tasks, out=np.full(totals.shape, np.nan), where=tasks > 0)
    return means


def quantile_limits(
    replicates: Floats, estimate: Floats, low_q: Floats, high_q: Floats
) -> ConfidenceInterval:
    """Quantiles of each column's replicates that are not NaN; NaN where the estimate is NaN.

    Replicates are means of values in [0, 1], NaN where a resample counted no
    task. One sort of every column (NaN sorts last), then numpy's ``"linear"``
    quantile of the part before the NaN, the numbers :func:`numpy.quantile`
    gives column by column.
    """
    ordered = np.sort(replicates.T, axis=1)
    size = np.isfinite(ordered).sum(axis=1)
    counted = np.isfinite(estimate) & (size > 0)
    low, high = (
        np.where(counted, _linear_quantile(ordered, size, np.where(counted, q, 0.0)), np.nan)
        for q in (low_q, high_q)
    )
    return ConfidenceInterval(low, high)


def _linear_quantile(ordered: Floats, size: Ints, q: Floats) -> Floats:
    """Quantile `q` of the first `size` values of each sorted row, as :func:`numpy.quantile`."""
    virtual = (size - 1) * q
    previous = np.floor(virtual)
    gamma = virtual - previous
    last = np.maximum(size - 1, 0)
    before = np.where(virtual >= size - 1, last, np.maximum(previous, 0)).astype(np.intp)
    after = np.where(virtual >= size - 1, last, previous + 1).astype(np.intp)
    rows = np.arange(len(ordered))
    a, b = ordered[rows, before], ordered[rows, after]
    difference = b - a
    # numpy's _lerp: from below for gamma < 0.5, from above otherwise
    value: Floats = np.where(gamma >= 0.5, b - difference * (1 - gamma), a + difference * gamma)
    return value


def acceleration(tasks: Ints, values: Floats) -> Floats:
    """BCa acceleration from the jackknife over tasks, computed once per cell.

    Leaving out one task of cell j changes a column's mean to
    ``(S - v_j) / (N - 1)``; tasks of a cell that is not counted for the
    column leave it unchanged.
    """
    counted = np.isfinite(values)
    weight = tasks[:, None] * counted
    total = (weight * np.where(counted, values, 0.0)).sum(axis=0)
    size = weight.sum(axis=0)
    estimate = np.divide(total, size, out=np.full(total.shape, np.nan), where=size > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        left_out = np.where(counted, (total - values) / (size - 1), estimate)
    mean = (tasks[:, None] * left_out).sum(axis=0) / tasks.sum()
    gap = mean - left_out
    spread = (tasks[:, None] * gap**2).sum(axis=0)
    skew = (tasks[:, None] * gap**3).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        acceleration = skew / (6.0 * spread**1.5)
    return np.where(np.isfinite(acceleration), acceleration, 0.0)


def bca_levels(
    replicates: Floats, estimate: Floats, acceleration: Floats, level: float
) -> tuple[Floats, Floats]:
    """Return the BCa percentiles (Efron and Tibshirani 1993, eq. 14.10), per column."""
    finite = np.isfinite(replicates)
    size = finite.sum(axis=0)
    # a resample that reproduces the data's mean is a tie, whatever the last bits of the sums
    tie = 1e-12 * np.maximum(np.abs(estimate), 1.0)
    below = (replicates < estimate - tie).sum(axis=0) + (replicates <= estimate + tie).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = below / (2.0 * size)
    # a resample never below (or above) the estimate would make the bias correction infinite
    share = np.clip(share, 0.5 / np.maximum(size, 1), 1 - 0.5 / np.maximum(size, 1))
    bias = normal_quantile(share)
    z = z_value(level)
    levels = []
    for zq in (-z, z):
        shifted = bias + zq
        levels.append(normal_cdf(bias + shifted / (1.0 - acceleration * shifted)))
    return levels[0], levels[1]


def tails(level: float, columns: int) -> tuple[Floats, Floats]:
    tail = (1.0 - level) / 2.0
    return np.full(columns, tail), np.full(columns, 1.0 - tail)


_BLOCK = 4_000_000  # resamples x cells held in memory at once


def _blocks(n_resamples: int, cells: int) -> list[int]:
    """Split `n_resamples` into blocks of at most ``_BLOCK / cells`` resamples."""
    size = max(1, _BLOCK // max(cells, 1))
    return [min(size, n_resamples - start) for start in range(0, n_resamples, size)]


def _check_replicates(n_resamples: int, columns: int) -> None:
    """Refuse a bootstrap whose replicates, resamples x columns, would not fit the budget."""
    check_size(
        "the bootstrap's replicates",
        (n_resamples, columns),
        _REPLICATE_BYTES,
        "ask for fewer resamples (n_resamples) or fewer ks",
        names=("resamples", "statistics"),
        keywords=("n_resamples", "ks"),
    )


def resample_cells(tasks: Ints, n_resamples: int, rng: np.random.Generator) -> Ints:
    total = int(tasks.sum())
    weights: Ints = rng.multinomial(total, tasks / total, size=n_resamples)
    return weights


def task_bootstrap(
    tasks: Ints,
    values: Floats,
    *,
    method: BootstrapMethod = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: np.random.Generator,
) -> ConfidenceInterval:
    """Bootstrap interval of task-weighted means of cell values, resampling tasks.

    Parameters
    ----------
    tasks : ndarray of int, shape (cells,)
        How many tasks each cell holds.
    values : ndarray of float, shape (cells, columns)
        Each cell's value for each statistic; NaN where the cell's tasks are
        not counted (a task with fewer runs than k).
    method : {"percentile", "bca"}
        Percentile interval, or bias-corrected and accelerated (Efron 1987;
        the acceleration from the jackknife over tasks).
    n_resamples : int
        Bootstrap resamples.
    confidence_level : float
        In (0, 1).
    rng : numpy.random.Generator
        The source of the multinomial draws.

    Returns
    -------
    ConfidenceInterval
        Arrays with one limit per column; NaN where no task is counted.

    Notes
    -----
    Resampling T tasks with replacement and tallying them by cell is a
    multinomial draw of T over the cells' shares, so a resample costs time in
    the number of cells, whatever the number of tasks. Percentiles use linear
    interpolation, as :func:`scipy.stats.bootstrap` does.

    Examples
    --------
    >>> import numpy as np
    >>> tasks = np.array([30, 70])  # 30 tasks failed, 70 passed
    >>> values = np.array([[0.0], [1.0]])
    >>> low, high = task_bootstrap(tasks, values, rng=np.random.default_rng(0))
    >>> float(low[0]), float(high[0])
    (0.6, 0.78)
    """
    level = confidence(confidence_level)
    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"method must be one of {', '.join(BOOTSTRAP_METHODS)}; got {method!r}")
    _check_replicates(n_resamples, values.shape[1])
    replicates = np.concatenate(
        [
            weighted_means(resample_cells(tasks, size, rng), values)
            for size in _blocks(n_resamples, len(tasks))
        ]
    )
    estimate = weighted_means(tasks[None, :], values)[0]
    if method == "percentile":
        return quantile_limits(replicates, estimate, *tails(level, values.shape[1]))
    low_q, high_q = bca_levels(replicates, estimate, acceleration(tasks, values), level)
    return quantile_limits(replicates, estimate, low_q, high_q)


def two_level_bootstrap(
    n: Ints,
    c: Ints,
    tasks: Ints,
    values_of: Callable[[Ints, Ints], Floats],
    *,
    counted: Bools | None = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: np.random.Generator,
) -> ConfidenceInterval:
    """Percentile interval from resampling tasks, then the runs within each resampled task.

    A resampled task with n runs and c passes gets new passes drawn from
    Binomial(n, c/n). Task resampling alone already carries run-to-run noise
    (each task's value is computed from its own noisy runs), so this adds it a
    second time: the intervals are wider than the task bootstrap's and
    conservative. It answers "what if the runs had come out differently too".

    Redrawing runs from a task's observed rate moves values that are not
    linear in c: a task's pass^k estimate ``C(c, k) / C(n, k)`` becomes, on
    average, the plug-in ``(c / n)^k``, which is larger. The replicates are
    therefore shifted back by that expected move, computed exactly for each
    resample of tasks (and clipped to [0, 1]), before the percentiles are
    taken.

    Parameters
    ----------
    n, c, tasks : ndarray of int, shape (cells,)
        The (n, c) cells and how many tasks each holds.
    values_of : callable
        ``values_of(n, c)`` returns every cell's values, shape (cells, columns),
        NaN where not counted.
    counted : ndarray of bool, shape (cells, columns), optional
        Which cells count for each column, where that is more than
        `values_of` says (a leaderboard counts a task only where every agent
        has k runs): a cell not counted stays so when its runs are redrawn.
    n_resamples : int
        Bootstrap resamples.
    confidence_level : float
        In (0, 1).
    rng : numpy.random.Generator
        The source of the draws.

    Returns
    -------
    ConfidenceInterval
        Arrays with one limit per column.
    """
    from scipy import stats  # 0.5 s to import: not on the path of the default intervals

    level = confidence(confidence_level)
    chances = []
    for cell in range(len(n)):
        chance = stats.binom.pmf(np.arange(n[cell] + 1), n[cell], c[cell] / n[cell])
        chances.append(chance / chance.sum())
    redrawn_n = np.repeat(n, n + 1)
    redrawn_c = np.concatenate([np.arange(size + 1) for size in n])
    values = values_of(redrawn_n, redrawn_c)
    _check_replicates(n_resamples, values.shape[1])
    observed = values_of(n, c)
    if counted is not None:
        values = np.where(np.repeat(counted, n + 1, axis=0), values, np.nan)
        observed = np.where(counted, observed, np.nan)
    # each cell's value once its runs are redrawn, on average: (c/n)^k for pass^k
    starts = np.concatenate([[0], np.cumsum(n + 1)])
    expected = np.stack(
        [
            chance @ values[start:end]
            for chance, start, end in zip(chances, starts[:-1], starts[1:], strict=True)
        ]
    )
    blocks = []
    for size in _blocks(n_resamples, len(redrawn_n)):
        weights = resample_cells(tasks, size, rng)
        redrawn = np.concatenate(
            [rng.multinomial(weights[:, cell], chance) for cell, chance in enumerate(chances)],
            axis=1,
        )
        moved = weighted_means(redrawn, values) - weighted_means(weights, expected - observed)
        blocks.append(np.clip(moved, 0.0, 1.0))
    replicates = np.concatenate(blocks)
    estimate = weighted_means(tasks[None, :], observed)[0]
    return quantile_limits(replicates, estimate, *tails(level, values.shape[1]))
