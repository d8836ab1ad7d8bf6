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
the tasks run so far. Tasks that passed or failed every first run tell least
by running again, so the plans it picks go on with the mixed ones.

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
from typing import Literal, TypeAlias

import numpy as np
from scipy import special

from passk_lab._data.cells import products
from passk_lab._typing import Bools, Floats, Ints

__all__ = ["STATISTICS", "Statistic", "TwoStagePlan", "choose_plan"]

Statistic: TypeAlias = Literal["pass_pow_k", "pass_at_k"]
STATISTICS: tuple[Statistic, ...] = ("pass_pow_k", "pass_at_k")

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
        values = products(n, c, ks) if statistic == "pass_pow_k" else 1.0 - products(n, n - c, ks)
        on = n != self.first
        if np.any(on):
            if not self.extends or np.any(n[on] != self.total):
                raise ValueError(f"a task ended at {set(n[on].tolist())} runs, not {self}")
            for c_end in np.unique(c[on]).tolist():
                rows = on & (c == c_end)
                values[rows] = [self._share(int(c_end), int(k), statistic) for k in ks.tolist()]
        return values

    def _share(self, c: int, k: int, statistic: Statistic) -> float:
        """Return the share of allowed paths to ``(total, c)`` in the event, as 1 - for pass@k."""
        rest = self.total - self.first
        paths = event = 0
        for c1 in range(self.low, self.high + 1):
            later = math.comb(rest, c - c1) if 0 <= c - c1 <= rest else 0
            paths += math.comb(self.first, c1) * later
            if statistic == "pass_pow_k" and c1 >= k:
                event += math.comb(self.first - k, c1 - k) * later
            elif statistic == "pass_at_k" and c1 <= self.first - k:
                event += math.comb(self.first - k, c1) * later
        share = event / paths
        return share if statistic == "pass_pow_k" else 1.0 - share


def _log_chances(mean: float, icc: float, n: int) -> Floats:
    """``log E[p^c (1 - p)^(n - c)]`` for c = 0..n, p ~ Beta of `mean` and `icc` (one path)."""
    c = np.arange(n + 1, dtype=np.float64)
    if icc <= 0.0:
        binomial: Floats = c * np.log(mean) + (n - c) * np.log1p(-mean)
        return binomial
    scale = (1.0 - icc) / icc
    alpha, beta = mean * scale, (1.0 - mean) * scale
    logs: Floats = special.betaln(alpha + c, beta + n - c) - special.betaln(alpha, beta)
    return logs


def _binomials(n: int) -> Floats:
    return np.array([math.comb(n, c) for c in range(n + 1)], dtype=np.float64)


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
    event_first = (
        products(np.full(first + 1, first), np.arange(first + 1), np.array([k]))[:, 0]
        if statistic == "pass_pow_k"
        else products(np.full(first + 1, first), first - np.arange(first + 1), np.array([k]))[:, 0]
    )
    log_first = _log_chances(mean, icc, first)
    chance_first = _binomials(first) * np.exp(log_first)  # P(c1), c1 = 0..first
    target = float(chance_first @ event_first)  # E[estimate] of the event
    best = TwoStagePlan.fixed(first)
    # a plan that goes on must promise _GAIN fewer runs than the fixed one
    best_score = (float(chance_first @ event_first**2) - target**2) * first * (1.0 - _GAIN)
    totals = sorted({min(most, math.ceil(first * m)) for m in _MULTIPLES} | {most})
    lows, highs = np.triu_indices(first + 1)  # every [low, high] with low <= high
    for total in totals:
        if total <= first:
            continue
        rest = total - first
        c = np.arange(total + 1)
        # ways[c1, c]: paths with c1 first passes and c in all
        later = np.array(
            [
                [math.comb(rest, e - c1) if 0 <= e - c1 <= rest else 0 for e in c]
                for c1 in range(first + 1)
            ],
            dtype=np.float64,
        )
        ways = _binomials(first)[:, None] * later
        if statistic == "pass_pow_k":
            hits = (
                np.array(
                    [math.comb(first - k, c1 - k) if c1 >= k else 0 for c1 in range(first + 1)],
                    dtype=np.float64,
                )[:, None]
                * later
            )
        else:
            hits = (
                np.array(
                    [math.comb(first - k, c1) if c1 <= first - k else 0 for c1 in range(first + 1)],
                    dtype=np.float64,
                )[:, None]
                * later
            )
        paths = np.cumsum(np.vstack([np.zeros(total + 1), ways]), axis=0)
        events = np.cumsum(np.vstack([np.zeros(total + 1), hits]), axis=0)
        paths_in = paths[highs + 1] - paths[lows]  # plans x c
        events_in = events[highs + 1] - events[lows]
        inside = np.cumsum(np.concatenate([[0.0], chance_first]))
        going = inside[highs + 1] - inside[lows]  # P(goes on), per plan
        staying = np.cumsum(np.concatenate([[0.0], chance_first * event_first**2]))
        stays = staying[-1] - (staying[highs + 1] - staying[lows])  # E[Y^2; stopped]
        one_path = np.exp(_log_chances(mean, icc, total))
        with np.errstate(invalid="ignore", divide="ignore"):
            squares = np.where(paths_in > 0, events_in**2 / paths_in, 0.0) @ one_path
        scores = (stays + squares - target**2) * (first + rest * going)
        plan = int(np.argmin(scores))
        if scores[plan] < best_score:
            best_score = float(scores[plan])
            best = TwoStagePlan(first, total, int(lows[plan]), int(highs[plan]))
    return best
