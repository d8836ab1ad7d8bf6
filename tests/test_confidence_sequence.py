"""The betting confidence sequence: the paper's capital process, validity at every look, shape."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable

import numpy as np
import pytest

from passk_lab._confidence_sequence import (
    GRID_STEPS,
    betting_interval,
    betting_intervals,
    betting_sequence,
)
from passk_lab._interval import clopper_pearson


def brute_force_excluded(values: list[float], level: float, m: float) -> list[bool]:
    """Whether the candidate mean `m` is excluded by some prefix, after each value.

    The hedged capital of Waudby-Smith and Ramdas (2023, Theorem 3) in a plain loop:
    K_t(m) = max(1/2 prod (1 + l+_i (x_i - m)), 1/2 prod (1 - l-_i (x_i - m))) with
    l_i = sqrt(2 log(2 / alpha) / (s2_{i-1} i log(1 + i))),
    s2_{i-1} = (1/4 + sum_{j<i} (x_j - mu_j)^2) / i, mu_j = (1/2 + sum_{j'<=j} x_j') / (j + 1),
    l+_i = min(l_i, 1/2 / m), l-_i = min(l_i, 1/2 / (1 - m)); m is out once K_t(m) >= 1 / alpha.
    """
    alpha = 1 - level
    total = squares = 0.0
    up = down = 1.0
    ever = False
    excluded = []
    for i, x in enumerate(values, start=1):
        variance = (0.25 + squares) / i
        bet = math.sqrt(2 * math.log(2 / alpha) / (variance * i * math.log(1 + i)))
        up *= 1 + (min(bet, 0.5 / m) if m > 0 else bet) * (x - m)
        down *= 1 - (min(bet, 0.5 / (1 - m)) if m < 1 else bet) * (x - m)
        ever = ever or max(up / 2, down / 2) >= 1 / alpha
        excluded.append(ever)
        total += x
        squares += (x - (0.5 + total) / (i + 1)) ** 2
    return excluded


def test_the_limits_are_the_outermost_grid_points_a_brute_force_loop_keeps() -> None:
    rng = np.random.default_rng(11)
    values = [*rng.beta(2.0, 5.0, 26).tolist(), 0.0, 1.0, 1.0, 0.0]
    lows, highs = betting_sequence(values, 0.9)
    every = set(range(0, GRID_STEPS + 1, 256))
    excluded: dict[int, list[bool]] = {}  # grid index: out after each prefix, by the loop
    for t in range(len(values)):
        grid_low, grid_high = round(lows[t] * GRID_STEPS), round(highs[t] * GRID_STEPS)
        assert lows[t] == grid_low / GRID_STEPS  # the limits are grid points
        assert highs[t] == grid_high / GRID_STEPS
        assert (lows[t], highs[t]) == betting_interval(values[: t + 1], 0.9)
        near = {grid_low - 1, grid_low, grid_low + 1, grid_high - 1, grid_high, grid_high + 1}
        for j in sorted((every | near) & set(range(GRID_STEPS + 1))):
            if j not in excluded:
                excluded[j] = brute_force_excluded(values, 0.9, j / GRID_STEPS)
            if grid_low < j < grid_high:  # kept by every prefix
                assert not excluded[j][t], (t, j)
            elif (0 < j <= grid_low) or (grid_high <= j < GRID_STEPS):  # one step of widening
                assert excluded[j][t], (t, j)


def bernoulli(p: float) -> Callable[[np.random.Generator], tuple[np.ndarray, float]]:
    def draw(rng: np.random.Generator) -> tuple[np.ndarray, float]:
        return (rng.random((SEQUENCES, LENGTH)) < p).astype(np.float64), p

    return draw


def beta(a: float, b: float) -> Callable[[np.random.Generator], tuple[np.ndarray, float]]:
    def draw(rng: np.random.Generator) -> tuple[np.ndarray, float]:
        return rng.beta(a, b, (SEQUENCES, LENGTH)), a / (a + b)

    return draw


SEQUENCES, LENGTH, LEVEL = 600, 500, 0.95
# the guarantee itself: a miss at any look with chance at most 1 - LEVEL. The draws are seeded,
# so the share is fixed; this sequence's misses run below it, and the same sequence built at
# 90% (a threshold of 1 / alpha per side) misses more often than it on these draws.
ALLOWED = 1 - LEVEL


@pytest.mark.parametrize(
    ("draw", "seed"), [(bernoulli(0.1), 1), (bernoulli(0.5), 2), (beta(2.0, 5.0), 3)]
)
def test_the_sequence_excludes_the_mean_at_any_look_at_most_at_its_level(
    draw: Callable[[np.random.Generator], tuple[np.ndarray, float]], seed: int
) -> None:
    values, mean = draw(np.random.default_rng(seed))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lows, highs = betting_intervals(values, LEVEL)
    # a row whose intersection emptied had excluded the mean by then (on a row that never
    # misses, the mean is in every interval); the others miss if their last interval does
    emptied = {int(re.search(r"values\[(\d+), ", str(w.message)).group(1)) for w in caught}  # type: ignore[union-attr]
    missed = (lows > mean) | (highs < mean)
    missed[list(emptied)] = True
    assert missed.mean() <= ALLOWED


@pytest.mark.parametrize(("p", "seed"), [(0.1, 1), (0.5, 2)])
def test_a_fixed_sample_interval_checked_at_every_look_misses_far_more(p: float, seed: int) -> None:
    values, _ = bernoulli(p)(np.random.default_rng(seed))
    passes = np.cumsum(values, axis=1).astype(np.int64)
    looks = passes * (LENGTH + 1) + np.arange(1, LENGTH + 1)  # (passes, trials) as one number
    distinct, which = np.unique(looks, return_inverse=True)
    lows, highs = clopper_pearson(distinct // (LENGTH + 1), distinct % (LENGTH + 1), LEVEL)
    out = (lows > p) | (highs < p)
    missed = out[which.reshape(looks.shape)].any(axis=1)
    assert missed.mean() > ALLOWED  # the check above fails a rule that is not anytime-valid


@pytest.mark.parametrize(("low", "high"), [(0.0, 1.0), (-1.0, 1.0)])
def test_the_running_intersection_is_nested_and_within_the_range(low: float, high: float) -> None:
    rng = np.random.default_rng(5)
    rows = np.vstack([rng.beta(0.5, 0.5, 200), (rng.random(200) < 0.8).astype(np.float64)])
    rows = low + (high - low) * rows
    batch_lows, batch_highs = betting_intervals(rows, 0.9, low=low, high=high)
    for row, values in enumerate(rows):
        lows, highs = betting_sequence(values, 0.9, low=low, high=high)
        assert np.all(np.diff(lows) >= 0)
        assert np.all(np.diff(highs) <= 0)
        assert np.all((low <= lows) & (lows < highs) & (highs <= high))
        assert (lows[-1], highs[-1]) == betting_interval(values, 0.9, low=low, high=high)
        assert (lows[-1], highs[-1]) == (batch_lows[row], batch_highs[row])
        assert (lows[99], highs[99]) == betting_interval(values[:100], 0.9, low=low, high=high)


def test_a_constant_sequence_closes_in_on_its_value() -> None:
    values = np.full(2000, 0.3)
    limits = [betting_interval(values[:t], 0.95) for t in (10, 100, 1000, 2000)]
    assert all(low < 0.3 < high for low, high in limits)
    widths = [high - low for low, high in limits]
    assert widths == sorted(widths, reverse=True)
    # the variance estimate vanishes, so the bets sit at their truncation c / m: the upper limit
    # m = 0.3 + d is out once t log(1 + d (1/2) / 0.7) passes log(2 / 0.05), d = 0.003 at
    # t = 2000, and the lower one sooner; 0.01 leaves room for the first bets' smaller size
    assert widths[-1] < 0.01
    ones = betting_interval(np.ones(200), 0.95)
    assert ones[1] == 1.0
    assert ones[0] > 0.9


def test_values_in_another_range_give_the_interval_of_the_rescaled_values() -> None:
    rng = np.random.default_rng(8)
    unit = rng.integers(0, 65, 400) / 64  # dyadic: the rescaling is exact both ways
    low, high = betting_interval(unit, 0.95)
    assert betting_interval(2 * unit - 1, 0.95, low=-1, high=1) == pytest.approx(
        (2 * low - 1, 2 * high - 1), abs=1e-12
    )
    assert betting_interval(2 + 4 * unit, 0.95, low=2, high=6) == pytest.approx(
        (2 + 4 * low, 2 + 4 * high), abs=1e-12
    )
    lows, highs = betting_sequence(2 * unit[:50] - 1, 0.95, low=-1, high=1)
    unit_lows, unit_highs = betting_sequence(unit[:50], 0.95)
    np.testing.assert_allclose(lows, 2 * unit_lows - 1, atol=1e-12)
    np.testing.assert_allclose(highs, 2 * unit_highs - 1, atol=1e-12)


def test_no_values_give_the_whole_range() -> None:
    assert betting_interval([], 0.95) == (0.0, 1.0)
    assert betting_interval([], 0.95, low=-1, high=1) == (-1.0, 1.0)
    lows, highs = betting_sequence([], 0.95)
    assert lows.size == highs.size == 0
    lows, highs = betting_intervals(np.empty((2, 0)), 0.95, low=-1, high=1)
    assert lows.tolist() == [-1.0, -1.0]
    assert highs.tolist() == [1.0, 1.0]


def test_a_mean_that_changes_empties_the_intersection_which_is_held_with_a_warning() -> None:
    values = np.concatenate([np.zeros(100), np.ones(100)])
    with pytest.warns(RuntimeWarning, match=r"empty from values\[\d+\] on") as sequence_warning:
        lows, highs = betting_sequence(values, 0.95)
    position = int(re.search(r"values\[(\d+)\]", str(sequence_warning[0].message)).group(1))  # type: ignore[union-attr]
    assert 100 < position < 200
    assert np.all(lows[position:] == lows[position - 1])
    assert np.all(highs[position:] == highs[position - 1])
    assert lows[position - 1] < highs[position - 1]
    with pytest.warns(RuntimeWarning, match=rf"empty from values\[{position}\] on"):
        assert betting_interval(values, 0.95) == (lows[-1], highs[-1])
    with pytest.warns(RuntimeWarning, match=rf"empty from values\[1, {position}\] on"):
        batch = betting_intervals(np.vstack([np.full(200, 0.5), values]), 0.95)
    assert (batch[0][1], batch[1][1]) == (lows[-1], highs[-1])


@pytest.mark.parametrize(
    ("values", "kwargs", "message"),
    [
        ([0.5, 0.2, 0.1, math.nan], {}, r"values\[3\] = nan is not a number in \[0.0, 1.0\]"),
        ([0.5, 1.5, -0.5], {}, r"values\[1\] = 1.5 .* \(2 such value\(s\)\)"),
        (
            [0.5, -2.0],
            {"low": -1, "high": 1},
            r"values\[1\] = -2.0 is not a number in \[-1.0, 1.0\]",
        ),
        ([0.5], {"low": 1, "high": 1}, r"low must be below high"),
        ([0.5], {"high": math.inf}, r"high must be a finite number"),
        ([[0.5]], {}, r"values must have 1 dimension"),
    ],
)
def test_bad_values_are_refused_naming_the_first(
    values: list[float], kwargs: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        betting_interval(values, 0.95, **kwargs)
    with pytest.raises(ValueError, match=message):
        betting_sequence(values, 0.95, **kwargs)


def test_bad_rows_and_levels_are_refused() -> None:
    with pytest.raises(ValueError, match=r"values\[1, 2\] = nan"):
        betting_intervals([[0.1, 0.2, 0.3], [0.1, 0.2, math.nan]], 0.95)
    with pytest.raises(ValueError, match=r"values must have 2 dimension"):
        betting_intervals([0.1, 0.2], 0.95)
    for level in (0.0, 1.0, 95.0, math.nan):
        with pytest.raises(ValueError, match="confidence_level must be strictly between 0 and 1"):
            betting_interval([0.5], level)
    with pytest.raises(TypeError, match="confidence_level must be a number"):
        betting_interval([0.5], True)
    with pytest.raises(TypeError, match="low must be a finite number"):
        betting_interval([0.5], 0.95, low="0")  # type: ignore[arg-type]
