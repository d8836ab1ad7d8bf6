"""What a fitted beta-binomial predicts for the runs, and Pearson's check of it against them.

:func:`outcome_chances` is the chance of each number of passes of a task, and
:func:`expected_counts` the tasks expected at each, summed over tasks of any runs;
:func:`goodness_of_fit` compares the tasks observed at each (n, c) with those
the model expects, pooling neighbouring outcome cells until each pool expects
``POOL`` tasks (docs/uncertainty.md, "The beta-binomial fit", says how and
what it finds). No draws: the same data give the same p-value, in time linear
in the cells.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from passk_lab._betabinom import beta_shapes
from passk_lab._typing import Floats, Ints

__all__ = [
    "POOL",
    "UNTESTED",
    "GoodnessOfFit",
    "chi2_sf",
    "expected_counts",
    "goodness_of_fit",
    "outcome_chances",
]

POOL = 2.0  # expected tasks a pool of outcome cells needs in the goodness-of-fit check


class GoodnessOfFit(NamedTuple):
    """Pearson's chi-squared check of a fitted model against the (n, c) histogram of tasks.

    Attributes
    ----------
    statistic : float
        ``sum (observed - expected)^2 / expected`` over the pools of outcome
        cells; NaN where the fit is not identified.
    df : int
        Pools less one, less the parameters fitted; 0 when there are too
        few pools to test anything.
    p_value : float
        Upper tail of chi-squared with `df` degrees of freedom; NaN when
        ``df == 0``.
    """

    statistic: float
    df: int
    p_value: float


UNTESTED = GoodnessOfFit(math.nan, 0, math.nan)


def chi2_sf(statistic: float, df: int) -> float:
    """Return the upper tail of chi-squared with a whole number `df` >= 1 of degrees of freedom.

    The regularised upper incomplete gamma function at half-integers, as a
    finite sum: ``exp(-y) sum_{j<m} y^j / j!`` for ``df = 2m``, and ``erfc(sqrt(y))``
    plus ``exp(-y) sum_{0<j<=m} y^(j - 1/2) / Gamma(j + 1/2)`` for ``df = 2m + 1``,
    ``y = statistic / 2``; each term from its logarithm, so none overflows.

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 12), round(chi2_sf(2.0, 2), 12)
    (0.05, 0.367879441171)
    """
    if statistic <= 0.0:
        return 1.0
    y = statistic / 2.0
    log_y = math.log(y)
    half, odd = divmod(df, 2)
    if odd:
        terms = [j - 0.5 for j in range(1, half + 1)]
        head = math.erfc(math.sqrt(y))
    else:
        terms = [float(j) for j in range(half)]
        head = 0.0
    return head + math.fsum(math.exp(t * log_y - y - math.lgamma(t + 1.0)) for t in terms)


def _cell_chances(theta: Floats, widths: Ints) -> tuple[Floats, Ints, Ints]:
    """Every outcome cell of every n in `widths`: its chance, n and c, n by n, c = 0..n.

    ``theta = (pi0, pi1, mu, rho)``; the beta-binomial's product of ratios from
    cumulative sums of ``log a_i``, ``log b_i`` and ``log d_i``.
    """
    pi0, pi1, mu, rho = (float(value) for value in theta)
    top = int(widths.max())
    i = np.arange(top, dtype=np.float64)
    zero = np.zeros(1)
    log_a = np.concatenate([zero, np.cumsum(np.log(mu * (1.0 - rho) + i * rho))])
    log_b = np.concatenate([zero, np.cumsum(np.log((1.0 - mu) * (1.0 - rho) + i * rho))])
    log_d = np.concatenate([zero, np.cumsum(np.log((1.0 - rho) + i * rho))])
    log_factorial = np.concatenate([zero, np.cumsum(np.log(np.arange(1.0, top + 1)))])
    n = np.repeat(widths, widths + 1)
    c = np.arange(len(n)) - np.repeat(np.cumsum(widths + 1) - (widths + 1), widths + 1)
    log_chance = (
        log_factorial[n]
        - log_factorial[c]
        - log_factorial[n - c]
        + log_a[c]
        + log_b[n - c]
        - log_d[n]
    )
    chance = (1.0 - pi0 - pi1) * np.exp(log_chance) + pi0 * (c == 0) + pi1 * (c == n)
    return chance, n, c


def goodness_of_fit(theta: Floats, cells: tuple[Ints, Ints, Ints], fitted: int) -> GoodnessOfFit:
    """Pearson's statistic over pooled outcome cells, of a model fitting `fitted` parameters.

    The cells of each n, at every c from 0 to n, are ordered by the model's
    mid-distribution value ``P(C < c | n) + P(c | n) / 2`` (within one n, by
    c), and neighbours pooled until each pool expects at least ``POOL``
    tasks; the degrees of freedom are the pools less one, less `fitted`.
    """
    n, c, tasks = cells
    widths, where = np.unique(n, return_inverse=True)
    per_width = np.bincount(where, weights=tasks)
    chance, cell_n, cell_c = _cell_chances(theta, widths)
    block = np.searchsorted(widths, cell_n)
    starts = np.cumsum(widths + 1) - (widths + 1)
    observed = np.bincount(starts[where] + c, weights=tasks, minlength=len(chance))
    expected = chance * per_width[block]
    running_chance = np.cumsum(chance)
    before = np.concatenate([[0.0], running_chance])[starts]  # the chance of earlier blocks
    middle = running_chance - chance / 2.0 - before[block]  # P(C < c | n) + P(c | n) / 2
    order = np.lexsort((cell_c, cell_n, middle))
    running = np.cumsum(expected[order])
    total = running[-1]
    ends: list[int] = []
    reached = 0.0
    while total - reached >= POOL:  # greedy pools of at least POOL expected tasks
        end = int(np.searchsorted(running, reached + POOL, side="left"))
        ends.append(end)
        reached = running[end]
    if not ends:
        return UNTESTED
    ends[-1] = len(running) - 1  # what is left joins the last pool
    cuts = np.array(ends) + 1
    pooled_expected = np.diff(np.concatenate([[0.0], running[cuts - 1]]))
    pooled_observed = np.add.reduceat(observed[order], np.concatenate([[0], cuts[:-1]]))
    statistic = float(((pooled_observed - pooled_expected) ** 2 / pooled_expected).sum())
    df = len(cuts) - 1 - fitted
    if df < 1:
        return GoodnessOfFit(statistic, 0, math.nan)
    return GoodnessOfFit(statistic, df, chi2_sf(statistic, df))


def outcome_chances(mean: float, icc: float, runs: int) -> Floats:
    """Return the chance that a task passes 0, 1, ..., `runs` of its runs, under the model.

    Binomial at ``icc = 0``, beta-binomial otherwise; normalised to sum to 1.

    Examples
    --------
    >>> outcome_chances(0.5, 0.0, 2).tolist()
    [0.25, 0.5, 0.25]
    """
    from scipy import stats  # 0.5 s to import; the curve does not need it

    outcomes = np.arange(runs + 1)
    if icc == 0.0:
        chances = stats.binom.pmf(outcomes, runs, mean)
    else:
        alpha, beta = beta_shapes(mean, icc)
        chances = stats.betabinom.pmf(outcomes, runs, alpha, beta)
    return np.asarray(chances / chances.sum(), dtype=np.float64)


def expected_counts(
    n: Ints,
    tasks: Ints,
    successes: Ints,
    mean: float,
    icc: float,
    zero_share: float = 0.0,
    one_share: float = 0.0,
) -> Floats:
    """Return the tasks expected with each number of `successes`: the sum of P(c | n) over tasks.

    Under the beta-binomial of `mean` and `icc` (the binomial at ``icc = 0``),
    with point masses `zero_share` at no pass and `one_share` at every pass;
    NaN where `icc` is NaN (not identified). `n` and `tasks` are cells.

    Examples
    --------
    >>> expected_counts(np.array([2]), np.array([8]), np.arange(3), 0.5, 0.0).tolist()
    [2.0, 4.0, 2.0]
    """
    from scipy import stats  # 0.5 s to import: not on the path of a curve

    c = successes[:, None]
    if icc == 0 or mean in (0.0, 1.0):
        chances = stats.binom.pmf(c, n, mean)
    elif np.isnan(icc):
        return np.full(len(successes), np.nan)
    else:
        chances = stats.betabinom.pmf(c, n, *beta_shapes(mean, icc))
    shares = zero_share + one_share
    chances = (1.0 - shares) * chances + zero_share * (c == 0) + one_share * (c == n)
    return np.asarray(chances @ tasks, dtype=np.float64)
