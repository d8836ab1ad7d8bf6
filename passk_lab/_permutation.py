"""The exact paired sign-flip test of two agents' pass^k or pass@k on the same tasks.

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
exact when both agents have the same runs on each task; with unequal runs a
``d_i`` is only centred at 0, not symmetric, and the test is approximate
(``study/leaderboard_coverage.py`` measures it).

Each ``d_i`` is a whole multiple of ``1 / L`` (``L`` the least common
multiple of the tasks' ``C(n, k)``), so the distribution lives on an integer
lattice and the two-sided p-value ``P(|S| >= |s|)`` is computed exactly
there. Where that lattice would be too large, the p-value is a Monte Carlo
one, ``(1 + hits) / (1 + resamples)``, which is valid at any number of
resamples.

With one run per task on each side and k = 1, the test is McNemar's exact
test: the tasks where exactly one agent passed are the discordant pairs, and
A's share of them is Binomial(discordant, 1/2) under the null.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

import numpy as np
from scipy import special

from passk_lab._data.cells import products
from passk_lab._typing import Floats, Ints

__all__ = ["PermutationTest", "permutation_test"]

Metric = Literal["pass_pow_k", "pass_at_k"]

_LATTICE = 1 << 20
"""The most points of the lattice of the statistic that the exact distribution is computed on."""


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
    if metric == "pass_pow_k":
        differences = _per_task(n_a, c_a, k) - _per_task(n_b, c_b, k)
    else:  # pass@k = 1 - C(n - c, k) / C(n, k)
        differences = _per_task(n_b, n_b - c_b, k) - _per_task(n_a, n_a - c_a, k)
    # a difference that is 0 on the lattice is 0 (pass^4 of 5/6 and of 8/10 differ in float noise)
    nonzero = np.rint(np.abs(differences) * scale) > 0
    sizes, counts = np.unique(np.abs(differences[nonzero]), return_counts=True)
    observed = float(differences.sum())
    points = 2.0 * float((sizes * counts).sum()) * scale + 1.0
    if points <= _LATTICE:
        single = bool(np.all(n_a == 1) and np.all(n_b == 1) and k == 1)
        return PermutationTest(
            _exact(sizes, counts, observed, scale), "mcnemar_exact" if single else "sign_flip_exact"
        )
    return PermutationTest(
        _monte_carlo(sizes, counts, observed, n_resamples, rng),
        f"sign_flip_monte_carlo ({n_resamples})",
    )


def _per_task(n: Ints, good: Ints, k: int) -> Floats:
    """Return ``C(good, k) / C(n, k)`` per task (every ``n >= k``)."""
    values: Floats = products(n, good, np.array([k], dtype=np.int64))[:, 0]
    return values


def _exact(sizes: Floats, counts: Ints, observed: float, scale: int) -> float:
    """Return the exact two-sided p-value on the lattice of whole multiples of ``1 / scale``.

    The tasks whose difference has size ``u`` (``count`` of them) add
    ``u (2 B - count)`` with ``B ~ Binomial(count, 1/2)``: a binomial on a
    stride of ``2 u``, added to the distribution so far by one shifted copy
    per value of ``B``.
    """
    steps = np.rint(sizes * scale).astype(np.int64)
    total = np.ones(1)
    for size, count in zip(steps.tolist(), counts.tolist(), strict=True):
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
    low = -int((steps * counts).sum())
    sums = np.arange(low, low + len(total))
    threshold = abs(round(observed * scale))
    return float(min(1.0, total[np.abs(sums) >= threshold].sum()))


def _monte_carlo(
    sizes: Floats, counts: Ints, observed: float, n_resamples: int, rng: np.random.Generator
) -> float:
    """Return the Monte Carlo two-sided p-value, ``(1 + hits) / (1 + resamples)``."""
    sums = np.zeros(n_resamples)
    for size, count in zip(sizes.tolist(), counts.tolist(), strict=True):
        sums += size * (2.0 * rng.binomial(count, 0.5, size=n_resamples) - count)
    hits = np.count_nonzero(np.abs(sums) >= abs(observed) - 1e-9)
    return float((1 + hits) / (1 + n_resamples))
