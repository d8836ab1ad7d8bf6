"""Closed-form intervals for a mean over tasks of per-task values in [0, 1], and of a difference.

pass^k, pass@k and pass@1 are means over tasks of per-task values in [0, 1]
(``C(c, k) / C(n, k)``, ``1 - C(n - c, k) / C(n, k)``, ``c / n``); a paired
comparison is a mean of per-task differences in [-1, 1]. The intervals here
were chosen by their measured coverage (``study/coverage.py`` and
docs/uncertainty.md), not by name:

* :func:`effective_n_interval` -- the default of a curve and of pass@1: a
  Clopper-Pearson interval on an effective number of tasks. Where every
  counted task has exactly k runs, each value is 0 or 1 and the statistic is a
  proportion of tasks: Clopper-Pearson on the tasks. Elsewhere the number of
  trials is ``n_eff = m (1 - m) / Var(m)``, the variance taken with one
  pseudo-task at 0 and one at 1 added (so that a sample that misses a rare
  tail still has spread), kept between the tasks themselves (values in
  [0, 1] vary at most as 0 / 1 values do, so a mean of N of them is worth at
  least N trials) and the disjoint blocks of k runs the tasks hold.
* :func:`paired_interval` -- the default of a comparison: the effective-n
  intervals of the positive and of the negative part of the per-task
  differences, combined by the method of variance estimates recovery, so that
  it keeps its level where the agents rarely disagree and is never a point.

Both need two counted tasks: a population claim from one task is NaN.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from passk_lab._interval import clopper_pearson
from passk_lab._typing import Bools, Floats, Ints

__all__ = ["TaskMoments", "effective_n_interval", "paired_interval"]


class TaskMoments(NamedTuple):
    """Per column: the tasks counted, their mean, the spread, and what bounds the trials."""

    tasks: Floats  # tasks counted
    mean: Floats
    squares: Floats  # sum over the counted tasks of (value - mean)^2
    blocks: Floats  # sum over the counted tasks of floor(n / k): disjoint blocks of k runs
    exact: Bools  # every counted task has exactly k runs (each value is 0 or 1)

    @classmethod
    def of(cls, values: Floats, tasks: Ints, n: Ints, ks: Ints) -> TaskMoments:
        """Return the moments of each column of cell `values` (NaN: not counted) at its k.

        `tasks` holds the tasks of each cell, one count per cell for every
        column, or one per cell and column (cells x columns).
        """
        counted = np.isfinite(values)
        per_column = tasks if tasks.ndim == 2 else tasks[:, None]
        weight = np.where(counted, per_column, 0).astype(np.float64)
        count = weight.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (weight * np.where(counted, values, 0.0)).sum(axis=0) / count
        gaps = np.where(counted, values - mean, 0.0)
        squares = (weight * gaps**2).sum(axis=0)
        blocks = (weight * (n[:, None] // ks[None, :])).sum(axis=0)
        exact = ~np.any(counted & (n[:, None] != ks[None, :]), axis=0)
        return cls(count, mean, squares, blocks, exact)


def _effective_tasks(moments: TaskMoments) -> Floats:
    """Return the trials of each column's Clopper-Pearson interval: N, or the effective n.

    ``Var(m) = SS / ((N - 1)(N + 2))`` with SS the squared deviations of the N
    values and one pseudo-task at 0 and one at 1 from their mean;
    ``n_eff = m (1 - m) / Var(m)``, at least N (no mean of N values in [0, 1]
    varies more than a proportion of N trials: far from 1/2 with few tasks
    the pseudo-tasks alone would claim it does) and at most the blocks of k
    runs; N where every counted task has exactly k runs.
    """
    count, mean = moments.tasks, moments.mean
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = (count * mean + 1.0) / (count + 2.0)
        squares = moments.squares + count * (mean - pooled) ** 2 + pooled**2 + (1.0 - pooled) ** 2
        variance = squares / ((count - 1.0) * (count + 2.0))
        effective = np.clip(mean * (1.0 - mean) / variance, count, moments.blocks)
    trials: Floats = np.where(moments.exact, count, effective)
    return trials


def effective_n_interval(moments: TaskMoments, confidence_level: float) -> tuple[Floats, Floats]:
    """Return each column's Clopper-Pearson limits at ``m * n`` of ``n`` effective tasks.

    NaN where fewer than two tasks are counted. The Clopper-Pearson limits come
    from beta quantiles, so a fractional number of successes and trials is fine.

    Examples
    --------
    Thirty tasks that each passed 2 of 4 runs: pass@1 is 0.5 on every task,
    which cannot show it is 0.5 for a new task; the interval says how much
    the runs can.

    >>> import numpy as np
    >>> values = np.array([[0.5]])
    >>> moments = TaskMoments.of(values, np.array([30]), np.array([4]), np.array([1]))
    >>> low, high = effective_n_interval(moments, 0.95)
    >>> round(float(low[0]), 3), round(float(high[0]), 3)
    (0.407, 0.593)
    """
    trials = _effective_tasks(moments)
    low, high = clopper_pearson(moments.mean * trials, trials, confidence_level)
    few = ~(moments.tasks >= 2)
    return np.where(few, np.nan, low), np.where(few, np.nan, high)


def paired_interval(
    differences: Floats, tasks: Ints, n: Ints, ks: Ints, confidence_level: float
) -> tuple[Floats, Floats]:
    """Return each column's interval of the mean of per-task differences in [-1, 1].

    A difference d is its positive part minus its negative part,
    ``d = max(d, 0) - max(-d, 0)``, two values in [0, 1]. Each part's mean
    gets the effective-n interval (:func:`effective_n_interval`, `n` the
    fewer runs of the two sides in each cell, for the blocks of k runs), and
    the two are combined by the method of variance estimates recovery (Zou
    and Donner 2008; Newcombe 1998 for paired proportions), with the
    correlation r of the parts over the tasks (at most 0: a task's
    difference is either positive or negative)::

        low  = d - sqrt((m+ - l+)^2 + (u- - m-)^2 - 2 r (m+ - l+)(u- - m-))
        high = d + sqrt((u+ - m+)^2 + (m- - l-)^2 - 2 r (u+ - m+)(m- - l-))

    clipped to [-1, 1]. Where the agents rarely disagree, each part is a rare
    event, and its Clopper-Pearson limits are what keep the level. NaN where
    fewer than two tasks count.

    Examples
    --------
    Twenty tasks where both agents always pass: the difference is 0, and twenty
    tasks cannot show that it is exactly 0 for a new task (a disagreement on
    one task in eight would show in no task with chance 7%).

    >>> import numpy as np
    >>> low, high = paired_interval(
    ...     np.array([[0.0]]), np.array([20]), np.array([5]), np.array([5]), 0.95
    ... )
    >>> round(float(low[0]), 3), round(float(high[0]), 3)
    (-0.168, 0.168)
    """
    positive, negative = np.maximum(differences, 0.0), np.maximum(-differences, 0.0)
    above, below = TaskMoments.of(positive, tasks, n, ks), TaskMoments.of(negative, tasks, n, ks)
    above_low, above_high = effective_n_interval(above, confidence_level)
    below_low, below_high = effective_n_interval(below, confidence_level)
    counted = np.isfinite(differences)
    weight = np.where(counted, tasks[:, None], 0).astype(np.float64)
    gaps = np.where(counted, (positive - above.mean) * (negative - below.mean), 0.0)
    spread = np.sqrt(above.squares * below.squares)
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = np.where(spread > 0, (weight * gaps).sum(axis=0) / spread, 0.0)
    centre = above.mean - below.mean
    lower_gap, upper_gap = above.mean - above_low, below_high - below.mean
    low = centre - np.sqrt(lower_gap**2 + upper_gap**2 - 2.0 * correlation * lower_gap * upper_gap)
    upper_gap, lower_gap = above_high - above.mean, below.mean - below_low
    high = centre + np.sqrt(upper_gap**2 + lower_gap**2 - 2.0 * correlation * upper_gap * lower_gap)
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
