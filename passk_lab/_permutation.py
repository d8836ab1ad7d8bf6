"""The paired sign-flip test of two agents' pass^k or pass@k on the same tasks.

The statistic is the sum over tasks of the difference of the agents' per-task
unbiased estimates, ``S = sum_i d_i`` with ``d_i = v_a(i) - v_b(i)``. If the
two agents are alike -- on every task both pass a run with the same chance,
or, more widely, the pair of agents' outcomes on a task drawn from the
population is as likely either way round -- each ``d_i`` is as likely to be
``+|d_i|`` as ``-|d_i|``, and the null distribution of ``S`` given the
``|d_i|`` is that of ``sum_i s_i |d_i|`` with independent fair signs. It
uses the spread of the observed differences, so an agent-by-task
interaction (two agents as good on average, each better on other tasks)
widens it as it widens the truth's: the test is of the population the tasks
were drawn from, as the intervals of :func:`~passk_lab.compare` are. It is
exact when that symmetry holds, which it does when both agents have the
same runs on each task and are exchangeable (equal population means alone
do not make it so: a skewed agent-by-task difference is not symmetric).
With unequal runs a ``d_i`` is only centred at 0, not symmetric, and the
test is approximate (``study/leaderboard_coverage.py`` measures it): its
name says so, ``sign_flip_approximate``.

Each ``d_i`` is a whole multiple of ``1 / L`` (``L`` the least common
multiple of the tasks' ``C(n, k)``), so the distribution lives on an integer
lattice and the two-sided p-value ``P(|S| >= |s|)`` is computed exactly
there (``sign_flip_exact``). Where that lattice would be too large, the
p-value is a Monte Carlo one (``sign_flip_monte_carlo``),
``(1 + hits) / (1 + resamples)``, which is valid at any number of resamples.

With one run per task on each side and k = 1, the test is McNemar's exact
test: the tasks where exactly one agent passed are the discordant pairs, and
A's share of them is Binomial(discordant, 1/2) under the null.

What a number of tasks can show at all: of the ``2**m`` sign patterns of the
``m`` tasks whose difference is not 0, only the two with every sign alike
reach ``|S| = sum_i |d_i|``, so no p-value is below ``2 / 2**m``
(:func:`smallest_p_value`), whatever the runs; it is reached when every task
that differs favours one agent. :func:`tasks_to_separate` is the fewest tasks
for which that floor, times an adjustment's factor, is within a level.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import special

from passk_lab._choices import Metric
from passk_lab._typing import Floats, Ints

__all__ = ["PermutationTest", "permutation_test", "smallest_p_value", "tasks_to_separate"]


_LATTICE = 1 << 20
"""The most points of the lattice of the statistic that the exact distribution is computed on."""

_SIGNS_PER_BINOMIAL = 10
"""Drawing one binomial costs about as much as drawing this many fair signs."""

_SIGN_BLOCK = 1 << 19
"""The most signs drawn at once in a Monte Carlo test (8 MiB as the floats they are summed as)."""


class PermutationTest(NamedTuple):
    """A two-sided p-value and the name of the test that gave it."""

    p_value: float
    test: str


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
    ``2**20`` points, Monte Carlo with `n_resamples` draws from `rng` beyond.

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
    runs = np.unique(np.concatenate([n_a, n_b])).tolist()
    scale = math.lcm(*(math.comb(int(n), k) for n in runs))
    if metric == "pass_pow_k":  # d = C(c_a, k) / C(n_a, k) - C(c_b, k) / C(n_b, k)
        steps = _difference_steps(n_a, c_a, n_b, c_b, k, scale)
    else:  # pass@k = 1 - C(n - c, k) / C(n, k)
        steps = _difference_steps(n_b, n_b - c_b, n_a, n_a - c_a, k, scale)
    sizes = [abs(step) for step in steps if step]
    points = 2 * sum(sizes) + 1
    if points <= _LATTICE:  # exact, in whole numbers of 1 / scale
        lattice, counts = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
        return PermutationTest(_exact(lattice, counts, sum(steps)), _name(n_a, n_b, k))
    largest = max(sizes, default=1)  # in units of the largest difference: no float underflows
    magnitudes, counts = np.unique(
        np.asarray([size / largest for size in sizes], dtype=np.float64), return_counts=True
    )
    return PermutationTest(
        _monte_carlo(magnitudes, counts, sum(steps) / largest, n_resamples, rng),
        f"sign_flip_monte_carlo ({n_resamples})",
    )


def _name(n_a: Ints, n_b: Ints, k: int) -> str:
    """Return the name of an exact-lattice test: McNemar's, exact, or approximate (unequal runs)."""
    if not np.array_equal(n_a, n_b):
        return "sign_flip_approximate"
    return "mcnemar_exact" if k == 1 and bool(np.all(n_a == 1)) else "sign_flip_exact"


def _difference_steps(
    n_a: Ints, good_a: Ints, n_b: Ints, good_b: Ints, k: int, scale: int
) -> list[int]:
    """Return each task's ``C(good_a, k) / C(n_a, k) - C(good_b, k) / C(n_b, k)`` times `scale`.

    In whole numbers (Python integers, exact at any size): `scale` is a
    multiple of every ``C(n, k)``.
    """

    def scaled(n: Ints, good: Ints) -> list[int]:
        pairs, inverse = np.unique(np.column_stack([n, good]), axis=0, return_inverse=True)
        values = [math.comb(int(g), k) * (scale // math.comb(int(m), k)) for m, g in pairs.tolist()]
        return [values[index] for index in inverse.ravel().tolist()]

    return [a - b for a, b in zip(scaled(n_a, good_a), scaled(n_b, good_b), strict=True)]


def _exact(sizes: Ints, counts: Ints, observed: int) -> float:
    """Return the exact two-sided p-value of the sum `observed` of signed whole-number steps.

    The tasks whose difference has size ``u`` (``count`` of them) add
    ``u (2 B - count)`` with ``B ~ Binomial(count, 1/2)``: a binomial on a
    stride of ``2 u``, added to the distribution so far by one shifted copy
    per value of ``B``.
    """
    total = np.ones(1)
    for size, count in zip(sizes.tolist(), counts.tolist(), strict=True):
        outcomes = np.arange(count + 1)
        chances = np.exp(
            special.gammaln(count + 1)
            - special.gammaln(outcomes + 1)
            - special.gammaln(count - outcomes + 1)
            - count * math.log(2.0)
        )
        grown = np.zeros(len(total) + 2 * size * count)
        for outcome, chance in enumerate(chances.tolist()):
            start = 2 * size * outcome
            grown[start : start + len(total)] += chance * total
        total = grown
    low = -int((sizes * counts).sum())
    sums = np.arange(low, low + len(total))
    return float(min(1.0, total[np.abs(sums) >= abs(observed)].sum()))


def _monte_carlo(
    sizes: Floats, counts: Ints, observed: float, n_resamples: int, rng: np.random.Generator
) -> float:
    """Return the Monte Carlo two-sided p-value, ``(1 + hits) / (1 + resamples)``.

    Few sizes of difference shared by many tasks: one binomial draw per size
    and resample. Many sizes: a fair sign per task and resample, drawn in
    blocks of resamples that keep the signs to a few megabytes. `sizes` and
    `observed` may be in any unit (the p-value does not depend on it).
    """
    sums = np.zeros(n_resamples)
    tasks = int(counts.sum())
    if len(sizes) * _SIGNS_PER_BINOMIAL <= tasks:
        for size, count in zip(sizes.tolist(), counts.tolist(), strict=True):
            sums += size * (2.0 * rng.binomial(count, 0.5, size=n_resamples) - count)
    else:
        magnitudes = np.repeat(sizes, counts)
        block = max(1, _SIGN_BLOCK // tasks)
        for start in range(0, n_resamples, block):
            stop = min(start + block, n_resamples)
            signs = rng.integers(0, 2, size=(stop - start, tasks), dtype=np.int8)
            sums[start:stop] = 2.0 * (signs @ magnitudes) - magnitudes.sum()
    # the sums are of floats: a draw as large as the observed one may fall short by rounding
    slack = 1e-9 * float((sizes * counts).sum())
    hits = np.count_nonzero(np.abs(sums) >= abs(observed) - slack)
    return float((1 + hits) / (1 + n_resamples))


def smallest_p_value(tasks: int) -> float:
    """Return the smallest two-sided p-value the sign-flip test can give on `tasks` tasks.

    ``2 / 2**tasks``: the chance of the two sign patterns with every sign
    alike, the only ones as far from 0 as the observed sum when every task
    favours one agent; 1 for none or one task. Tasks whose difference is 0
    add nothing, so with ties the floor is that of the tasks that differ.

    Parameters
    ----------
    tasks : int
        The tasks counted, ``>= 0``.

    Returns
    -------
    float

    Examples
    --------
    >>> [smallest_p_value(tasks) for tasks in (0, 1, 2, 5, 6)]
    [1.0, 1.0, 0.5, 0.0625, 0.03125]
    """
    return min(1.0, 2.0 ** (1 - tasks))


def tasks_to_separate(level: float, factor: int = 1) -> int:
    """Return the fewest tasks on which ``factor * smallest_p_value(tasks) <= level``.

    The fewest tasks on which a paired sign-flip test, its p-value multiplied
    by `factor` (Holm's first step over that many pairs), can reject at
    `level` at all: with one task fewer no runs can; with these, only runs in
    which every task favours one agent.

    Parameters
    ----------
    level : float
        The level of the tests, in (0, 1).
    factor : int
        What the adjustment multiplies the smallest p-value by (1 for none).

    Returns
    -------
    int

    Examples
    --------
    Six tasks for one pair at 0.05 (2 / 2**6 = 0.031), nine for ten pairs
    (10 * 2 / 2**9 = 0.039):

    >>> tasks_to_separate(0.05), tasks_to_separate(0.05, factor=10)
    (6, 9)
    """
    tasks = max(1, math.ceil(1 + math.log2(factor / level)))
    while tasks > 1 and factor * smallest_p_value(tasks - 1) <= level:  # guard the logarithm
        tasks -= 1
    while factor * smallest_p_value(tasks) > level:
        tasks += 1
    return tasks
