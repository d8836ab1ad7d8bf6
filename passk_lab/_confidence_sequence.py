"""An anytime-valid confidence sequence for a bounded mean, by betting.

An adaptive evaluation looks at its interval after every batch of tasks and
stops when it is narrow enough. A fixed-sample interval (Clopper-Pearson, a
normal interval) is valid at one sample size chosen in advance; checked after
every batch, it excludes the true mean at some look far more often than its
level allows: on 2,000 seeded sequences of 500 Bernoulli values looked at
after each one, a 95% Clopper-Pearson interval missed the mean at some look
in 36% of them at p = 0.5 and 28% at p = 0.1, this sequence in 3.9% and 3.2%.
A confidence sequence is a sequence of intervals that all hold at once: with
probability at least ``confidence_level`` the mean lies in every one of them,
so the evaluation may peek after every batch, stop by any rule it likes
(narrow enough, out of budget, a result it wants) and report the interval at
the stop as it is.

That costs width. Bets tuned for one sample size give an interval about
``sqrt(2 log(2 / alpha)) / z`` (1.39 at 95%) as wide as a fixed-sample
interval at that size; the bets here are tuned for no one size (they shrink
as ``1 / sqrt(t log t)``), so the ratio grows slowly with t. Measured at 95%
on 200 seeded Bernoulli sequences, the mean width of :func:`betting_interval`
after the first t values over that of Clopper-Pearson on those t:

=====  =========  =========
t      p = 0.5    p = 0.1
=====  =========  =========
100    1.48       1.31
400    1.78       1.52
1600   2.12       1.85
=====  =========  =========

The sequence is the hedged-capital betting confidence sequence of
Waudby-Smith and Ramdas ("Estimating means of bounded random variables by
betting", JRSS-B 2023, Theorem 3 and Section 4), with the predictable plug-in
bets and the defaults of the authors' ``confseq`` package (``hedged_cs``:
``theta = 1/2``, truncation ``c = 1/2``, one pseudo-observation at mean 1/2 and
variance 1/4). For values ``x_1, x_2, ...`` in [0, 1] whose mean given the
past is a fixed ``m`` (tasks drawn independently, each value an unbiased
estimate for its task), the capital after ``t`` values is

``K_t(m) = max(1/2 prod_i (1 + l+_i (x_i - m)), 1/2 prod_i (1 - l-_i (x_i - m)))``

with ``l+_i = min(l_i, c / m)``, ``l-_i = min(l_i, c / (1 - m))`` and the bets
``l_i = sqrt(2 log(2 / alpha) / (s2_{i-1} i log(1 + i)))``, where
``mu_j = (1/2 + x_1 + ... + x_j) / (j + 1)`` and
``s2_{i-1} = (1/4 + sum_{j < i} (x_j - mu_j)^2) / i``. Under the mean ``m``,
``K_t(m)`` is at most ``(K+_t + K-_t) / 2``, a nonnegative martingale
starting at 1, so by Ville's inequality it ever reaches ``1 / alpha`` with
probability at most ``alpha``;
``{m : K_t(m) < 1 / alpha}`` is the confidence sequence, and its running
intersection over t (the means never excluded so far) is what is reported.
Each factor is monotone in ``m``, so every set is an interval.

The limits are found on a grid of :data:`GRID_STEPS` + 1 candidate means
spaced ``(high - low) / GRID_STEPS`` apart: the outermost candidates never
excluded, widened by one step and clipped to ``[low, high]``. They are
therefore conservative by less than one step, ``3.1e-5`` of the range (6.1e-5
for differences in [-1, 1]). The log-capital is computed in log space.
:func:`betting_interval` bisects the grid (16 passes over both sides of the
values: 2,000 values in about 2 ms, 10,000 in about 5 ms, on one core of a
shared machine); :func:`betting_intervals` does the same for many sequences
at once (2,000 sequences of 500 values in about 0.5 to 0.8 s);
:func:`betting_sequence` evaluates the grid against every prefix in chunks of
4 MiB (work in grid points x values: about 0.5 s for 500 values), for plots and checks.

A running intersection empties when the sequence has excluded the mean at
some prefix (probability at most ``1 - confidence_level``; since the later
intervals close in on the mean, a long enough run ends every such miss this
way: 5 of the 2,000 sequences of 500 Bernoulli(0.1) values above) or when the
mean changed during the run. The guarantee is about the runs that never miss,
on which the intersection is never empty, so whatever is reported then keeps
it; these functions hold the limits of the last prefix whose intersection was
not empty, so that the intervals stay nested, and warn.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import numpy.typing as npt

from passk_lab._checks import confidence
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import EmptySequenceWarning, warn

__all__ = ["GRID_STEPS", "betting_interval", "betting_intervals", "betting_sequence"]

GRID_STEPS = 2**15
"""The candidate means are ``low + j (high - low) / GRID_STEPS`` for ``j = 0 ... GRID_STEPS``."""

_TRUNCATION = 0.5  # c: bets at most c / m (c / (1 - m)), so capital never falls below 1 - c
_CHUNK_CELLS = 2**19  # cells (grid or rows x values) computed at once: 4 MiB of floats


def _unit_values(
    values: npt.ArrayLike, low: object, high: object, ndim: int
) -> tuple[Floats, float, float]:
    """Return `values` (`ndim` dimensions) rescaled from ``[low, high]`` to [0, 1], and bounds."""
    bounds = []
    for name, bound in (("low", low), ("high", high)):
        if isinstance(bound, bool) or not isinstance(bound, numbers.Real):
            raise TypeError(f"{name} must be a finite number, got {bound!r}")
        if not math.isfinite(bound):
            raise ValueError(f"{name} must be a finite number, got {bound}")
        bounds.append(float(bound))
    lower, upper = bounds
    if not lower < upper:
        raise ValueError(
            f"low must be below high, got low = {lower} and high = {upper}; give the range "
            f"the values can take, such as low=-1, high=1 for differences of values in [0, 1]"
        )
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"values must be an array of numbers, got {values!r}") from None
    if array.ndim != ndim:
        shape = "one sequence" if ndim == 1 else "one sequence per row"
        raise ValueError(
            f"values must have {ndim} dimension(s) ({shape}), got an array of shape {array.shape}"
        )
    bad = np.argwhere(~((array >= lower) & (array <= upper)))  # NaN fails both tests
    if bad.size:
        first = tuple(int(index) for index in bad[0])
        where = ", ".join(str(index) for index in first)
        raise ValueError(
            f"values[{where}] = {array[first]} is not a number in [{lower}, {upper}] "
            f"({len(bad)} such value(s)); the confidence sequence holds only for values "
            f"in [low, high]: drop or fix those values, or give the range they can take"
        )
    return (array - lower) / (upper - lower), lower, upper


def _bets(x: Floats, alpha: float) -> Floats:
    """Return the predictable plug-in bets ``l_1 ... l_t`` of values `x` in [0, 1] (last axis)."""
    t = np.arange(1, x.shape[-1] + 1, dtype=np.float64)
    mu = (0.5 + np.cumsum(x, axis=-1)) / (t + 1.0)
    squares = np.cumsum((x - mu) ** 2, axis=-1)
    before = np.concatenate([np.zeros((*x.shape[:-1], 1)), squares[..., :-1]], axis=-1)
    variance = (0.25 + before) / t
    bets: Floats = np.sqrt(2.0 * math.log(2.0 / alpha) / (variance * t * np.log1p(t)))
    return bets


def _log_capital(x: Floats, bets: Floats, m: Floats) -> Floats:
    """Return the log of the betting-up capital ``prod (1 + l+_i (x_i - m))`` after every prefix.

    `x`, `bets` (..., t) and `m` (..., 1) broadcast; the result has their shape.
    """
    # at m = 0 the bound c / m is infinite: the tiny floor leaves the bet as it is
    capital: Floats = np.minimum(bets, _TRUNCATION / np.maximum(m, 1e-300))
    capital *= x - m
    np.log1p(capital, out=capital)
    return np.cumsum(capital, axis=-1, out=capital)


def _first_kept(x: Floats, bets: Floats, threshold: float) -> Ints:
    """Return, per row of `x`, the first grid index whose betting-up capital never reached it.

    The capital falls as the candidate mean rises, so the grid points excluded
    by some prefix are those below the returned index; the last grid point,
    ``m = 1``, is never excluded (every factor is at most 1 there).
    """
    excluded = np.full((x.shape[0], 1), -1, dtype=np.int64)  # -1: below the grid
    kept = np.full((x.shape[0], 1), GRID_STEPS, dtype=np.int64)
    while np.any(kept - excluded > 1):
        middle = (excluded + kept) // 2
        reached = _log_capital(x, bets, middle / GRID_STEPS).max(axis=-1, keepdims=True)
        out = reached >= threshold
        excluded = np.where(out, middle, excluded)
        kept = np.where(out, kept, middle)
    return kept[:, 0]


def _grid_limits(first_low: Ints, first_high: Ints) -> tuple[Ints, Ints]:
    """Return the reported grid limits from the first kept indices from below and from above."""
    return np.maximum(first_low - 1, 0), np.minimum(GRID_STEPS - first_high + 1, GRID_STEPS)


def _scaled(grid: Ints, lower: float, upper: float) -> Floats:
    """Return grid indices as candidate means in ``[lower, upper]``."""
    means: Floats = np.minimum(lower + grid * ((upper - lower) / GRID_STEPS), upper)
    return means


def _warn_empty(position: str, alpha: float) -> None:
    warn(
        EmptySequenceWarning(
            f"the confidence sequence is empty from values[{position}] on: every mean has been "
            f"excluded by some prefix. A sequence misses the mean with probability at most "
            f"{alpha:g}, and a miss ends this way once the intervals close in on the mean; or the "
            f"mean changed during the run (a model, task set or grader that changed), and no "
            f"confidence sequence for one mean applies. The limits are held at those before "
            f"values[{position}]; a larger confidence_level makes a miss rarer.",
            position=position,
        )
    )


def _prefix_limits(x: Floats, bets: Floats, length: int, threshold: float) -> tuple[Ints, Ints]:
    """Return the grid limits of each row of `x` (rows x values) after its first `length` values."""
    if length == 0:
        return np.zeros(len(x), dtype=np.int64), np.full(len(x), GRID_STEPS, dtype=np.int64)
    prefix, prefix_bets = x[:, :length], bets[:, :length]
    first = _first_kept(
        np.concatenate([prefix, 1.0 - prefix]),
        np.concatenate([prefix_bets, prefix_bets]),
        threshold,
    )
    return _grid_limits(first[: len(x)], first[len(x) :])


def _interval_limits(x: Floats, alpha: float, one: bool) -> tuple[Ints, Ints]:
    """Return the grid limits of each row of `x` (rows x values, in [0, 1]) after its last value.

    A row whose running intersection is empty gets those of its longest prefix
    that is not, with a warning (whose position leaves out the row if `one`).
    """
    threshold = math.log(2.0 / alpha)  # max(K+, K-) / 2 reaches 1 / alpha: one side 2 / alpha
    bets = _bets(x, alpha)
    grid_low = np.empty(len(x), dtype=np.int64)
    grid_high = np.empty(len(x), dtype=np.int64)
    rows = max(_CHUNK_CELLS // (2 * x.shape[1]), 1)  # both sides of a chunk in a few MiB
    for start in range(0, len(x), rows):
        chunk = slice(start, start + rows)
        grid_low[chunk], grid_high[chunk] = _prefix_limits(
            x[chunk], bets[chunk], x.shape[1], threshold
        )
    for row in np.flatnonzero(grid_low >= grid_high):  # a row whose intersection emptied
        values, row_bets = x[row : row + 1], bets[row : row + 1]
        shortest_empty, longest_kept = x.shape[1], 0
        while shortest_empty - longest_kept > 1:
            middle = (shortest_empty + longest_kept) // 2
            middle_low, middle_high = _prefix_limits(values, row_bets, middle, threshold)
            if middle_low[0] >= middle_high[0]:
                shortest_empty = middle
            else:
                longest_kept = middle
        _warn_empty(f"{shortest_empty - 1}" if one else f"{row}, {shortest_empty - 1}", alpha)
        held_low, held_high = _prefix_limits(values, row_bets, longest_kept, threshold)
        grid_low[row], grid_high[row] = held_low[0], held_high[0]
    return grid_low, grid_high


def betting_interval(
    values: npt.ArrayLike,
    confidence_level: float,
    *,
    low: float = 0.0,
    high: float = 1.0,
) -> tuple[float, float]:
    """Return the betting confidence sequence for the mean of `values`, after the last one.

    The limits are the running intersection over every prefix of the values,
    so they hold whenever the caller stopped, by whatever rule (see the module
    docstring). They are grid points ``low + j (high - low) / GRID_STEPS``,
    conservative by less than one step.

    Parameters
    ----------
    values : array_like of float
        The values in the order they were observed, each in ``[low, high]``,
        sharing one mean given the past (independent tasks, each value an
        unbiased estimate for its task).
    confidence_level : float
        The chance, in (0, 1), that every interval of the sequence holds the mean.
    low, high : float, default 0.0 and 1.0
        The range the values can take (-1 and 1 for per-task differences).

    Returns
    -------
    tuple of float
        The lower and upper limit; ``(low, high)`` for no values.

    Raises
    ------
    ValueError
        If a value is NaN or outside ``[low, high]`` (naming the first one),
        `low` is not below `high`, or `confidence_level` is not in (0, 1).

    Warns
    -----
    RuntimeWarning
        If the running intersection becomes empty (the sequence missed the
        mean at some prefix, or the mean changed; see the module docstring);
        the limits are then those of the longest prefix whose intersection is
        not empty.

    Examples
    --------
    >>> low, high = betting_interval([1, 0, 1, 1] * 50, 0.95)  # 200 values, mean 0.75
    >>> round(low, 3), round(high, 3)
    (0.645, 0.843)

    Per-task differences in [-1, 1], the same values rescaled:

    >>> low, high = betting_interval([1, -1, 1, 1] * 50, 0.95, low=-1, high=1)
    >>> round(low, 3), round(high, 3)
    (0.289, 0.687)
    """
    level = confidence(confidence_level)
    x, lower, upper = _unit_values(values, low, high, 1)
    if x.size == 0:
        return lower, upper
    grid_low, grid_high = _interval_limits(x[None, :], 1.0 - level, True)
    limits = _scaled(np.concatenate([grid_low, grid_high]), lower, upper)
    return float(limits[0]), float(limits[1])


def betting_intervals(
    values: npt.ArrayLike,
    confidence_level: float,
    *,
    low: float = 0.0,
    high: float = 1.0,
) -> tuple[Floats, Floats]:
    """Return :func:`betting_interval` of each row of `values`, computed together.

    For simulation studies: many sequences of one length at the cost of a
    few calls on long arrays instead of one call each.

    Parameters
    ----------
    values : array_like of float, shape (sequences, values)
        One sequence per row, each value in ``[low, high]``.
    confidence_level : float
        The chance, in (0, 1), that every interval of a sequence holds its mean.
    low, high : float, default 0.0 and 1.0
        The range the values can take.

    Returns
    -------
    lower, upper : numpy.ndarray of float
        The limits of each row; ``low`` and ``high`` for rows of no values.

    Raises
    ------
    ValueError
        As :func:`betting_interval`, naming the row and position of the first bad value.

    Warns
    -----
    RuntimeWarning
        As :func:`betting_interval`, for each row whose intersection becomes empty.

    Examples
    --------
    >>> lower, upper = betting_intervals([[1, 0, 1, 1] * 50, [0, 0, 1, 0] * 50], 0.95)
    >>> lower.round(3).tolist(), upper.round(3).tolist()
    ([0.645, 0.152], [0.843, 0.352])
    """
    level = confidence(confidence_level)
    x, lower, upper = _unit_values(values, low, high, 2)
    if x.shape[1] == 0:
        return np.full(len(x), lower), np.full(len(x), upper)
    grid_low, grid_high = _interval_limits(x, 1.0 - level, False)
    return _scaled(grid_low, lower, upper), _scaled(grid_high, lower, upper)


def betting_sequence(
    values: npt.ArrayLike,
    confidence_level: float,
    *,
    low: float = 0.0,
    high: float = 1.0,
) -> tuple[Floats, Floats]:
    """Return the betting confidence sequence for the mean of `values`, after every prefix.

    Element ``t`` is :func:`betting_interval` of ``values[: t + 1]``: the
    running intersection, so the intervals are nested. This evaluates every
    grid point against every prefix (chunked, so memory stays a few MiB), time
    proportional to the number of values times :data:`GRID_STEPS`; use
    :func:`betting_interval` for the interval at one stop.

    Parameters
    ----------
    values : array_like of float
        The values in the order they were observed, each in ``[low, high]``.
    confidence_level : float
        The chance, in (0, 1), that every interval of the sequence holds the mean.
    low, high : float, default 0.0 and 1.0
        The range the values can take.

    Returns
    -------
    lower, upper : numpy.ndarray of float
        The limits after each value; empty arrays for no values.

    Raises
    ------
    ValueError
        As :func:`betting_interval`.

    Warns
    -----
    RuntimeWarning
        If the running intersection becomes empty; the limits from there on
        are held at those before.

    Examples
    --------
    >>> lower, upper = betting_sequence([1, 0, 1, 1] * 50, 0.95)
    >>> lower[[9, 49, 199]].round(3).tolist(), upper[[9, 49, 199]].round(3).tolist()
    ([0.318, 0.556, 0.645], [0.997, 0.895, 0.843])
    """
    level = confidence(confidence_level)
    x, lower, upper = _unit_values(values, low, high, 1)
    if x.size == 0:
        return np.empty(0), np.empty(0)
    alpha = 1.0 - level
    threshold = math.log(2.0 / alpha)  # max(K+, K-) / 2 reaches 1 / alpha: one side 2 / alpha
    bets = _bets(x, alpha)
    sides = np.stack([x, 1.0 - x])
    ends = _first_kept(sides, bets, threshold)  # grid points at or past these are never out
    first = np.zeros((2, x.size), dtype=np.int64)
    rows = max(_CHUNK_CELLS // x.size, 1)
    for side in range(2):
        for start in range(0, int(ends[side]), rows):
            grid = np.arange(start, min(start + rows, int(ends[side])))[:, None] / GRID_STEPS
            reached = np.maximum.accumulate(_log_capital(sides[side], bets, grid), axis=1)
            first[side] += (reached >= threshold).sum(axis=0)
    grid_low, grid_high = _grid_limits(first[0], first[1])
    empty = np.flatnonzero(grid_low >= grid_high)
    if empty.size:
        position = int(empty[0])
        _warn_empty(str(position), alpha)
        held = (grid_low[position - 1], grid_high[position - 1]) if position else (0, GRID_STEPS)
        grid_low[position:], grid_high[position:] = held
    return _scaled(grid_low, lower, upper), _scaled(grid_high, lower, upper)
