r"""Two-stage run plans: extra runs for the tasks whose first runs leave most to learn.

An adaptive evaluation gives every task `first` runs, and a task whose first
passes ``c1`` fall in ``[low, high]`` goes on to `total` runs. Which tasks go on
depends on their own outcomes, so the usual per-task estimate
``C(c, k) / C(n, k)`` is no longer unbiased: with a plan that extends only the
tasks that failed a first run, a task with all its runs passing can only be
one that stopped.

The unbiased estimate is the chance of the event given where the task ended
(Girshick, Mosteller and Savage 1946): the share of the paths a plan allows to
the task's end ``(n, c)`` whose first k runs all pass (pass^k), or fail
(1 - pass@k). Every path to one end has the same chance, ``p^c (1 - p)^(n - c)``,
so the share is the conditional chance, unbiased for ``p^k`` by Rao-Blackwell,
and in [0, 1]. A task that stopped after its first runs ends at
``(first, c1)``, where every path is allowed: the share is the usual
``C(c, k) / C(first, k)``. A task that went on ends at ``(total, c)``, reached
by ``N = sum_{c1 = low}^{high} C(first, c1) C(total - first, c - c1)`` paths,
``sum_{c1 >= k} C(first - k, c1 - k) C(total - first, c - c1)`` of them starting
with k passes.

:func:`choose_plan` picks the plan that needs the fewest runs for a given
precision, ``Var(estimate) * E[runs]`` smallest, under a beta-binomial fit of
the tasks run so far. A task that failed every first run has a pass^k near
0 and tells little by running again, so the plans it picks go on with the
tasks that passed some or all of their first runs, where tasks are alike
enough for a task's further runs to count.

Examples
--------
Five first runs; a task that failed one to four of them goes on to 10 runs:

>>> import numpy as np
>>> plan = TwoStagePlan(first=5, total=10, low=1, high=4)
>>> plan.goes_on(np.array([0, 3, 5])).tolist()
[False, True, False]
>>> ends = (np.array([5, 10, 5]), np.array([0, 7, 5]))
>>> plan.estimates(*ends, np.array([5]), "pass_pow_k").ravel().tolist()
[0.0, 0.0, 1.0]

Pass^5 of the task that went on is 0: its first five runs did not all pass, or
it would have stopped. Its pass^2 uses every run:

>>> plan.estimates(*ends, np.array([2]), "pass_pow_k").ravel().round(4).tolist()
[0.0, 0.4182, 1.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from scipy import special

from passk_lab._choices import METRICS, Metric
from passk_lab._data.cells import pass_at_k_values, pass_pow_k_values, products
from passk_lab._typing import Bools, Floats, Ints

__all__ = ["STATISTICS", "Statistic", "TwoStagePlan", "choose_plan"]

Statistic: TypeAlias = Metric
STATISTICS: tuple[Statistic, ...] = METRICS

_GAIN = 0.1
"""The share of runs a plan that goes on must save over the fixed plan, under the fit, to be
chosen: the fit is of the tasks so far, and a small promised saving is within its error."""
_MULTIPLES = (1.5, 2.0, 3.0, 4.0, 6.0, 8.0)
"""Totals a plan considers, as multiples of the first runs rounded up (and the most allowed)."""


@dataclass(frozen=True)
class TwoStagePlan:
    """`first` runs for every task; `total` for a task whose first passes are in [low, high].

    ``total == first`` (or ``low > high``) is the fixed plan: `first` runs each.
    """

    first: int
    total: int
    low: int
    high: int

    @classmethod
    def fixed(cls, first: int) -> TwoStagePlan:
        """Return the plan of `first` runs for every task."""
        return cls(first, first, 1, 0)

    @property
    def extends(self) -> bool:
        """Whether some task goes on past its first runs."""
        return self.total > self.first and self.low <= self.high

    def goes_on(self, passes_first: Ints) -> Bools:
        """Return, per task, whether its first passes send it on to `total` runs."""
        if not self.extends:
            return np.zeros(np.shape(passes_first), dtype=bool)
        return (passes_first >= self.low) & (passes_first <= self.high)

    def estimates(self, n: Ints, c: Ints, ks: Ints, statistic: Statistic) -> Floats:
        """Return each task's unbiased estimate of `statistic` at each k (tasks x ks).

        `n` is `first` or `total` for every task, and every k is at most `first`.
        """
        if np.any(ks > self.first):
            raise ValueError(f"every k must be at most the first runs, {self.first}")
        values = (pass_pow_k_values if statistic == "pass_pow_k" else pass_at_k_values)(n, c, ks)
        on = n != self.first
        if np.any(on):
            if not self.extends or np.any(n[on] != self.total):
                raise ValueError(f"a task ended at {set(n[on].tolist())} runs, not {self}")
            splits = _splits(self.first, self.total)[self.low : self.high + 1]
            ends = np.unique(c[on])
            for column, k in enumerate(ks.tolist()):
                event = _first_event(self.first, int(k), statistic)[self.low : self.high + 1]
                paths = splits[:, ends]
                share = (event @ paths) / paths.sum(axis=0)  # chance of the event at each end
                value = share if statistic == "pass_pow_k" else 1.0 - share
                values[on, column] = value[np.searchsorted(ends, c[on])]
        return values


def _first_event(first: int, k: int, statistic: Statistic) -> Floats:
    """Per count c1 of first passes, the chance the first k runs all pass (pass^k) or all fail."""
    passes = np.arange(first + 1)
    good = passes if statistic == "pass_pow_k" else first - passes
    event: Floats = products(np.full(first + 1, first), good, np.array([k]))[:, 0]
    return event


def _splits(first: int, total: int) -> Floats:
    """Return ``P(c1 of the first runs pass | c of all total pass)``, c1 x c.

    Every path to ``(total, c)`` has the same chance, so the share with ``c1``
    passes among the first runs is hypergeometric: the paths a plan allows to an
    end, and those in an event, are sums of these shares over the allowed ``c1``.
    """
    from scipy import stats

    c1, c = np.arange(first + 1)[:, None], np.arange(total + 1)[None, :]
    shares: Floats = np.asarray(stats.hypergeom.pmf(c1, total, c, first), dtype=np.float64)
    return shares


def _log_chances(mean: float, icc: float, n: int) -> Floats:
    """``log E[p^c (1 - p)^(n - c)]`` for c = 0..n, p ~ Beta of `mean` and `icc` (one path).

    Sums of logs of the ratios ``(alpha + i) / (alpha + beta + i)``, not
    differences of beta functions, so that a fit's icc of 1e-17 (shapes of
    1e17) loses no precision.
    """
    c = np.arange(n + 1, dtype=np.float64)
    if icc <= 0.0:
        binomial: Floats = c * np.log(mean) + (n - c) * np.log1p(-mean)
        return binomial
    scale = (1.0 - icc) / icc
    alpha, beta = mean * scale, (1.0 - mean) * scale
    # E[p^c (1 - p)^(n - c)] = prod_{i < c} (a + i) / (a + b + i)
    #                         * prod_{j < n - c} (b + j) / (a + b + c + j)
    i = np.arange(n, dtype=np.float64)
    passes = np.concatenate([[0.0], np.cumsum(np.log((alpha + i) / (alpha + beta + i)))])
    j = i[None, :]
    fails = np.where(
        j < (n - c)[:, None], np.log((beta + j) / (alpha + beta + c[:, None] + j)), 0.0
    ).sum(axis=1)
    logs: Floats = passes + fails
    return logs


def _log_binomials(n: int) -> Floats:

    c = np.arange(n + 1, dtype=np.float64)
    logs: Floats = (
        special.gammaln(n + 1.0) - special.gammaln(c + 1.0) - special.gammaln(n - c + 1.0)
    )
    return logs


def choose_plan(
    mean: float, icc: float, *, first: int, most: int, k: int, statistic: Statistic
) -> TwoStagePlan:
    """Return the plan with the smallest ``Var(estimate) * E[runs]`` under a beta-binomial law.

    A plan that goes on is chosen only where it promises at least 10% fewer
    runs than the fixed plan of `first` runs each.

    Task rates are Beta with `mean` and intra-task correlation `icc` (0: one
    rate for all). The variance is of one task's estimate of `statistic` at
    `k`, over tasks and runs; for a chosen precision the tasks needed grow
    with it, and the runs with it times the runs a task takes. The plans
    compared: every ``[low, high]`` of first passes, and totals of 1.5, 2, 3,
    4, 6 and 8 times `first`, and `most`, up to `most`.

    Examples
    --------
    Identical tasks (icc 0): a task's runs tell as much about the others as
    a new task's would, so a task goes on unless its first runs say its
    pass^5 is near 0.

    >>> choose_plan(0.85, 0.0, first=5, most=20, k=5, statistic="pass_pow_k")
    TwoStagePlan(first=5, total=20, low=2, high=5)

    Tasks that differ (icc 0.2) around 0.5: only a task that passed four or
    five of its first runs may have a pass^5 worth measuring again.

    >>> choose_plan(0.5, 0.2, first=5, most=20, k=5, statistic="pass_pow_k")
    TwoStagePlan(first=5, total=10, low=4, high=5)

    Around 0.85 they differ so much that the tasks' own spread dominates: no
    task goes on.

    >>> choose_plan(0.85, 0.4, first=5, most=20, k=5, statistic="pass_pow_k").extends
    False
    """
    if not (0.0 < mean < 1.0 and 0.0 <= icc < 1.0):
        return TwoStagePlan.fixed(first)
    event = _first_event(first, k, statistic)  # per c1: the event's chance given c1
    chance_first = np.exp(_log_binomials(first) + _log_chances(mean, icc, first))  # P(c1)
    target = float(chance_first @ event)  # E[estimate]
    best = TwoStagePlan.fixed(first)
    # a plan that goes on must promise _GAIN fewer runs than the fixed one
    best_score = (float(chance_first @ event**2) - target**2) * first * (1.0 - _GAIN)
    totals = sorted({min(most, math.ceil(first * m)) for m in _MULTIPLES} | {most})
    lows, highs = np.triu_indices(first + 1)  # every [low, high] with low <= high
    inside = np.concatenate([[0.0], np.cumsum(chance_first)])
    going = inside[highs + 1] - inside[lows]  # P(goes on), per plan
    kept = np.concatenate([[0.0], np.cumsum(chance_first * event**2)])
    stays = kept[-1] - (kept[highs + 1] - kept[lows])  # E[estimate^2; stopped], per plan
    for total in totals:
        if total <= first:
            continue
        splits = _splits(first, total)  # c1 x c
        paths = np.cumsum(np.vstack([np.zeros(total + 1), splits]), axis=0)
        events = np.cumsum(np.vstack([np.zeros(total + 1), splits * event[:, None]]), axis=0)
        paths_in = paths[highs + 1] - paths[lows]  # plans x c: shares of paths a plan allows
        events_in = events[highs + 1] - events[lows]
        ends = np.exp(_log_binomials(total) + _log_chances(mean, icc, total))  # P(c of total)
        with np.errstate(invalid="ignore", divide="ignore"):
            squares = np.where(paths_in > 0, events_in**2 / paths_in, 0.0) @ ends
        scores = (stays + squares - target**2) * (first + (total - first) * going)
        plan = int(np.argmin(scores))
        if scores[plan] < best_score:
            best_score = float(scores[plan])
            best = TwoStagePlan(first, total, int(lows[plan]), int(highs[plan]))
    return best
