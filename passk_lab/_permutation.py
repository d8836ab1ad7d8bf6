"""The exact paired permutation test of two agents' pass^k or pass@k on the same tasks.

Under the null hypothesis that on every task both agents pass a run with the
same chance, a task's runs are exchangeable between the agents: given that
task i's ``n_a + n_b`` runs hold ``t = c_a + c_b`` passes, agent A's count is
hypergeometric, ``C_a ~ Hypergeom(n_a + n_b, t, n_a)``, whatever the chance
is. The statistic is the sum over tasks of the difference of the per-task
unbiased estimates, ``d_i = v(C_a, n_a) - v(t - C_a, n_b)``, and its null
distribution, conditional on every task's ``t``, is the convolution of the
tasks' distributions. Each ``d_i`` is a whole multiple of ``1 / L`` (``L`` the
least common multiple of the tasks' ``C(n, k)``), so the distribution lives on
an integer lattice and the two-sided p-value ``P(|S| >= |s|)`` is computed
exactly there. Where that lattice would be too large, the p-value is a Monte
Carlo one, ``(1 + hits) / (1 + resamples)``, which is valid at any number of
resamples.

With one run per task on each side and k = 1, the test is McNemar's exact
test: the tasks where exactly one agent passed are the discordant pairs, and
A's share of them is Binomial(discordant, 1/2).
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

import numpy as np

from passk_lab._typing import Floats, Ints

__all__ = ["PermutationTest", "permutation_test"]

Metric = Literal["pass_pow_k", "pass_at_k"]

_LATTICE = 1 << 21
"""The most points of the lattice of the statistic that the exact distribution is computed on."""

_DIRECT = 1 << 22
"""Convolutions whose two lengths multiply to more than this go through the FFT."""


class PermutationTest(NamedTuple):
    """A two-sided p-value and the name of the test that gave it."""

    p_value: float
    test: str


def _values(good: int, runs: int, k: int) -> int:
    """``C(good, k)``: the per-task pass^k estimate times ``C(runs, k)``."""
    return math.comb(good, k) if good >= k else 0


def _outcomes(
    n_a: int, n_b: int, passes: int, k: int, metric: Metric
) -> tuple[Ints, Floats, Floats]:
    """A's possible counts, their null chances, and the difference each gives, for one task."""
    counts = np.arange(max(0, passes - n_b), min(n_a, passes) + 1)
    ways = np.array(
        [math.comb(n_a, j) * math.comb(n_b, passes - j) for j in counts.tolist()], dtype=np.float64
    )
    chances = ways / math.comb(n_a + n_b, passes)
    total_a, total_b = math.comb(n_a, k), math.comb(n_b, k)
    if metric == "pass_pow_k":
        pairs = [(_values(j, n_a, k), _values(passes - j, n_b, k)) for j in counts.tolist()]
        differences = [a / total_a - b / total_b for a, b in pairs]
    else:  # pass@k: 1 - C(n - c, k) / C(n, k) on each side
        pairs = [
            (_values(n_a - j, n_a, k), _values(n_b - passes + j, n_b, k)) for j in counts.tolist()
        ]
        differences = [b / total_b - a / total_a for a, b in pairs]
    return counts, chances, np.asarray(differences, dtype=np.float64)


def _convolve(first: Floats, second: Floats) -> Floats:
    """Return the distribution of the sum of two independent lattice variables."""
    if len(first) * len(second) <= _DIRECT:
        result: Floats = np.convolve(first, second)
        return result
    size = len(first) + len(second) - 1
    length = 1 << (size - 1).bit_length()
    product = np.fft.rfft(first, length) * np.fft.rfft(second, length)
    return np.clip(np.fft.irfft(product, length)[:size], 0.0, None)


def _power(chances: Floats, times: int) -> Floats:
    """Return the distribution of the sum of `times` independent copies (repeated squaring)."""
    result = np.ones(1)
    base = chances
    while times:
        if times & 1:
            result = _convolve(result, base)
        times >>= 1
        if times:
            base = _convolve(base, base)
    return result


def permutation_test(
    n_a: Ints,
    c_a: Ints,
    n_b: Ints,
    c_b: Ints,
    k: int,
    metric: Metric,
    *,
    n_resamples: int,
    rng: np.random.Generator,
) -> PermutationTest:
    """Return the two-sided p-value of no difference in `metric` at `k` between two agents.

    `n_a`, `c_a`, `n_b`, `c_b` hold each counted task's runs and passes (every
    ``n >= k``). Exact on the lattice of the statistic where it has at most
    ``2**21`` points, Monte Carlo with `n_resamples` draws from `rng` beyond.

    Examples
    --------
    Eight tasks of one run each: A passed six, B two, and they disagree on
    four tasks, all four won by A. McNemar's exact test gives 2 / 2**4.

    >>> import numpy as np
    >>> one = np.ones(8, dtype=np.int64)
    >>> a = np.array([1, 1, 1, 1, 1, 1, 0, 0])
    >>> b = np.array([1, 1, 0, 0, 0, 0, 0, 0])
    >>> permutation_test(one, a, one, b, 1, "pass_pow_k", n_resamples=0, rng=None)
    PermutationTest(p_value=0.125, test='mcnemar_exact')
    """
    joint = np.column_stack([n_a, n_b, c_a + c_b, c_a])
    cells, tasks = np.unique(joint, axis=0, return_counts=True)
    groups: dict[tuple[int, int, int], list[tuple[int, int]]] = {}
    for (runs_a, runs_b, passes, good), count in zip(cells.tolist(), tasks.tolist(), strict=True):
        groups.setdefault((runs_a, runs_b, passes), []).append((good, count))
    observed = 0.0
    spread: list[tuple[Floats, Floats, int]] = []  # per group: chances, differences, tasks
    for (runs_a, runs_b, passes), members in groups.items():
        counts, chances, differences = _outcomes(runs_a, runs_b, passes, k, metric)
        observed += sum(differences[good - counts[0]] * count for good, count in members)
        if np.ptp(differences) > 0:
            spread.append((chances, differences, sum(count for _, count in members)))
    single = bool(np.all(n_a == 1) and np.all(n_b == 1) and k == 1)
    scale = math.lcm(*{math.comb(int(n), k) for n in np.unique(np.concatenate([n_a, n_b]))})
    points = sum(np.ptp(differences) * scale * count for _, differences, count in spread) + 1
    if points <= _LATTICE:
        return PermutationTest(
            _exact(spread, observed, scale), "mcnemar_exact" if single else "permutation_exact"
        )
    return PermutationTest(
        _monte_carlo(spread, observed, n_resamples, rng), f"permutation_monte_carlo ({n_resamples})"
    )


def _exact(spread: list[tuple[Floats, Floats, int]], observed: float, scale: int) -> float:
    """Return the exact two-sided p-value on the lattice of whole multiples of ``1 / scale``."""
    total = np.ones(1)
    low = 0
    for chances, differences, count in spread:
        steps = np.rint(differences * scale).astype(np.int64)
        dense = np.zeros(int(steps.max() - steps.min()) + 1)
        np.add.at(dense, steps - steps.min(), chances)
        total = _convolve(total, _power(dense, count))
        low += int(steps.min()) * count
    sums = np.arange(low, low + len(total))
    threshold = abs(round(observed * scale))
    return float(min(1.0, total[np.abs(sums) >= threshold].sum()))


def _monte_carlo(
    spread: list[tuple[Floats, Floats, int]],
    observed: float,
    n_resamples: int,
    rng: np.random.Generator,
) -> float:
    """Return the Monte Carlo two-sided p-value, ``(1 + hits) / (1 + resamples)``."""
    sums = np.zeros(n_resamples)
    for chances, differences, count in spread:
        sums += rng.multinomial(count, chances, size=n_resamples) @ differences
    hits = np.count_nonzero(np.abs(sums) >= abs(observed) - 1e-9)
    return (1 + hits) / (1 + n_resamples)
