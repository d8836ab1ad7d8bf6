"""Study: which interval for pass^k and pass@k holds its level.

Every simulated evaluation (a task set) is held as counts of tasks per (n, c)
cell of a fixed grid, so many task sets are one matrix
``counts[replicate, cell]``. The estimate of a statistic is the mean over the
counted tasks (those with at least k runs) of the per-task unbiased values
``C(c, k) / C(n, k)`` (pass^k) and ``1 - C(n - c, k) / C(n, k)`` (pass@k);
the truth is the population value for a new task, ``E[p^k]`` and
``1 - E[(1 - p)^k]``, with p drawn from the task-difficulty distribution.

The candidates are written out here from their definitions: task bootstraps
(BCa, percentile; the library's resampling helpers), the old default of the
library (``old_default``: Wilson on the tasks where every counted task has
exactly k runs, BCa elsewhere, and the Wilson interval of the tasks where BCa
collapsed to a point at 0 or 1), a Bayesian bootstrap, Wilson and
Clopper-Pearson on an effective number of tasks (with and without
pseudo-tasks), logit and arcsine t intervals, Hoeffding and empirical
Bernstein bounds, binomial intervals on the tasks at k = n, and a parametric
bootstrap under the fitted beta-binomial. ``cp@k=n_else_cp_neff_floor`` is
the rule the library now ships as ``"auto"``: ``cp@k=n_else_cp_neff`` (its
earlier form) with the effective n kept at least the counted tasks;
``--quick`` checks that it gives the library's limits.

Usage, from the repository root::

    python study/curve_candidates.py --quick          # checks and a small grid, ~20 s
    python study/curve_candidates.py --part equal3    # full grid, n = 3
    python study/curve_candidates.py --part equal10   # full grid, n = 10
    python study/curve_candidates.py --part unequal   # full grid, n ~ U{2..10}
    python study/curve_candidates.py --part levels    # levels 0.8 and 0.99, bootstraps too
    python study/curve_candidates.py --part levels_all  # closed forms at 0.8, 0.99, whole grid
    python study/curve_candidates.py --part betabinom   # parametric bootstrap
    python study/curve_candidates.py --report         # Markdown tables from the parts' CSVs

Each part is seeded per cell and writes ``docs/coverage/candidates/<part>.csv.gz``,
one row per (cell, method, level); ``--report`` prints the tables of
docs/coverage/candidates.md from whichever parts exist.
"""

from __future__ import annotations

import argparse
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

import passk_lab as pk
from passk_lab._betabinom import beta_shapes
from passk_lab._bootstrap import (
    acceleration,
    bca_levels,
    quantile_limits,
    resample_cells,
    tails,
    task_bootstrap,
    weighted_means,
)
from passk_lab._data.cells import products
from passk_lab._mean_intervals import TaskMoments, effective_n_interval
from passk_lab.heterogeneity import fit_cells

OUT = Path(__file__).resolve().parent.parent / "docs" / "coverage" / "candidates"
BAR = 0.93  # the coverage a 0.95 interval must reach in every cell, up to noise
KEY = ["population", "T", "runs", "statistic", "k"]
Limits = tuple[np.ndarray, np.ndarray]


# --------------------------------------------------------------------------------------
# Task-difficulty distributions and run schemes
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Population:
    """A task-difficulty distribution: draws of p and the exact truths."""

    name: str
    kind: str  # "beta", "point" (icc 0) or "mixture"
    mean: float = 0.0
    icc: float = 0.0
    points: tuple[tuple[float, float], ...] = ()  # (weight, p) of a mixture

    def draw(self, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        """Return task rates of the given shape."""
        if self.kind == "point":
            return np.full(size, self.mean)
        if self.kind == "beta":
            return rng.beta(*self.shapes(), size=size)
        weights = np.array([w for w, _ in self.points])
        rates = np.array([p for _, p in self.points])
        return rates[rng.choice(len(rates), size=size, p=weights / weights.sum())]

    def shapes(self) -> tuple[float, float]:
        """Return the beta shapes of the mean and icc."""
        scale = (1.0 - self.icc) / self.icc
        return self.mean * scale, (1.0 - self.mean) * scale

    def truth(self, k: int) -> tuple[float, float]:
        """Return (pass^k, pass@k) of a new task."""
        if self.kind == "point":
            return self.mean**k, 1.0 - (1.0 - self.mean) ** k
        if self.kind == "beta":
            a, b = self.shapes()
            base = special.betaln(a, b)
            return (
                float(np.exp(special.betaln(a + k, b) - base)),
                float(-np.expm1(special.betaln(a, b + k) - base)),
            )
        weights = np.array([w for w, _ in self.points])
        weights = weights / weights.sum()
        rates = np.array([p for _, p in self.points])
        return float(weights @ rates**k), float(1.0 - weights @ (1.0 - rates) ** k)


def _populations(quick: bool = False) -> list[_Population]:
    means: tuple[float, ...] = (0.05, 0.3, 0.7, 0.95, 0.99)
    iccs: tuple[float, ...] = (0.0, 0.1, 0.3, 0.5)
    if quick:
        means, iccs = (0.3, 0.95), (0.0, 0.3)
    out = [
        _Population(f"Beta(m={mean},icc={icc})", "point" if icc == 0 else "beta", mean, icc)
        for mean in means
        for icc in iccs
    ]
    out.append(_Population("mix 70%@0.97+30%@0.1", "mixture", points=((0.7, 0.97), (0.3, 0.1))))
    if not quick:
        out.append(_Population("mix 30%@1+70%@0.6", "mixture", points=((0.3, 1.0), (0.7, 0.6))))
        out.append(_Population("mix 50%@0.02+50%@0.9", "mixture", points=((0.5, 0.02), (0.5, 0.9))))
    return out


@dataclass(frozen=True)
class _Scheme:
    """Runs per task (drawn uniformly from `runs`) and the k values of the curve."""

    name: str
    runs: tuple[int, ...]
    ks: tuple[int, ...]

    def grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the (n, c) cells and the lookup ``index[n, c]`` of a cell."""
        ns: list[int] = []
        cs: list[int] = []
        for n in sorted(set(self.runs)):
            ns += [n] * (n + 1)
            cs += list(range(n + 1))
        n_cells, c_cells = np.array(ns, dtype=np.int64), np.array(cs, dtype=np.int64)
        top = max(self.runs)
        index = np.full((top + 1, top + 1), -1, dtype=np.int64)
        index[n_cells, c_cells] = np.arange(len(n_cells))
        return n_cells, c_cells, index


SCHEMES = {
    "equal3": _Scheme("n=3", (3,), (1, 2, 3)),
    "equal10": _Scheme("n=10", (10,), (1, 5, 10)),
    "unequal": _Scheme("n~U{2..10}", tuple(range(2, 11)), (1, 5, 10)),
}


def _simulate(
    pop: _Population, scheme: _Scheme, tasks: int, reps: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``counts[replicate, cell]`` of `reps` task sets of `tasks` tasks, and the cells."""
    n_cells, c_cells, index = scheme.grid()
    rates = pop.draw((reps, tasks), rng)
    runs = np.asarray(scheme.runs)[rng.integers(0, len(scheme.runs), size=(reps, tasks))]
    passes = rng.binomial(runs, rates)
    flat = index[runs, passes] + len(n_cells) * np.arange(reps)[:, None]
    counts = np.bincount(flat.ravel(), minlength=reps * len(n_cells)).reshape(reps, -1)
    return counts, n_cells, c_cells


# --------------------------------------------------------------------------------------
# Cell values and moment summaries (vectorised over replicates)
# --------------------------------------------------------------------------------------


def _cell_values(n: np.ndarray, c: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Cells x columns: pass^k for every k, then pass@k for every k (NaN where n < k)."""
    return np.hstack([products(n, c, ks), 1.0 - products(n, n - c, ks)])


def _cell_blocks(n: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Cells x columns: ``n // k``, the disjoint blocks of k runs a task holds."""
    one = n[:, None] // ks[None, :]
    return np.hstack([one, one]).astype(np.float64)


@dataclass
class _Moments:
    """Per replicate and column: counted tasks N, mean m, sample variance s2, blocks cap."""

    N: np.ndarray
    m: np.ndarray
    s2: np.ndarray
    cap: np.ndarray
    exact_k: np.ndarray  # every counted task has exactly k runs (values are 0 or 1)
    ones: np.ndarray  # tasks with value 1


def _moments(
    counts: np.ndarray, values: np.ndarray, blocks: np.ndarray, n_cells: np.ndarray, kcols
) -> _Moments:
    counted = np.isfinite(values).astype(np.float64)
    v = np.nan_to_num(values)
    w = counts.astype(np.float64)
    tasks = w @ counted
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (w @ v) / tasks
        s2 = np.maximum(w @ v**2 - tasks * mean**2, 0.0) / (tasks - 1)
    exact_cells = (n_cells[:, None] == kcols[None, :]).astype(np.float64) * counted
    exact_k = (w @ exact_cells) == tasks
    ones = w @ (v == 1.0).astype(np.float64)
    return _Moments(tasks, mean, s2, w @ blocks, exact_k, ones)


# --------------------------------------------------------------------------------------
# Closed-form candidates (vectorised over replicates)
# --------------------------------------------------------------------------------------


def _quantile(level: float, df: np.ndarray | None = None) -> np.ndarray:
    tail = 1.0 - (1.0 - level) / 2.0
    if df is None:
        return np.asarray(stats.norm.ppf(tail))
    return np.asarray(stats.t.ppf(tail, np.maximum(df, 1.0)))


def _effective_n(mo: _Moments, edge: str = "cap") -> np.ndarray:
    """Design-effect sample size ``m (1 - m) / Var(m)``, at most the disjoint blocks of k runs.

    ``Var(m) = s2 / N``. Where the values do not vary the blocks take its place
    (``edge="cap"``), or the tasks where every value is 0 or every value is 1
    (``edge="tasks"``: the binomial of the tasks, as if each were one trial).
    """
    var = mo.s2 / mo.N
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = mo.m * (1.0 - mo.m) / var
    raw = np.where((var > 0) & (mo.m * (1 - mo.m) > 0) & np.isfinite(raw), raw, np.inf)
    capped = np.minimum(raw, np.maximum(mo.cap, 1.0))
    if edge == "tasks":
        capped = np.where(mo.m * (1 - mo.m) > 0, capped, mo.N)
    return capped


def _wilson(share: np.ndarray, n: np.ndarray, q: np.ndarray) -> Limits:
    q2 = q * q
    denom = 1.0 + q2 / n
    centre = (share + q2 / (2 * n)) / denom
    half = q / denom * np.sqrt(np.maximum(share * (1 - share), 0.0) / n + q2 / (4 * n * n))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def _clopper_pearson(x: np.ndarray, n: np.ndarray, level: float) -> Limits:
    alpha = 1 - level
    low = np.where(x > 0, stats.beta.ppf(alpha / 2, np.maximum(x, 1e-300), n - x + 1), 0.0)
    high = np.where(x < n, stats.beta.ppf(1 - alpha / 2, x + 1, np.maximum(n - x, 1e-300)), 1.0)
    return low, high


def _augmented(mo: _Moments, prior: float = 0.5) -> _Moments:
    """Return the moments with `prior` pseudo-tasks at 0 and at 1 in the variance, same mean.

    A sample that misses a rare tail (no failing task among 20 near the
    ceiling) still carries some spread.
    """
    n2 = mo.N + 2 * prior
    m2 = (mo.m * mo.N + prior) / n2
    squares = mo.s2 * (mo.N - 1) + mo.N * mo.m**2 + prior
    s2 = np.maximum(squares - n2 * m2**2, 0.0) / (n2 - 1)
    return _Moments(mo.N, mo.m, s2 * (n2 - 1) / (mo.N - 1) * mo.N / n2, mo.cap, mo.exact_k, mo.ones)


def _wilson_neff(mo: _Moments, level: float) -> Limits:
    """Wilson on the effective n with the normal quantile."""
    return _wilson(mo.m, _effective_n(mo), _quantile(level))


def _wilson_neff_t(mo: _Moments, level: float, edge: str = "cap") -> Limits:
    """Wilson on the effective n with the t quantile on N - 1 degrees of freedom."""
    return _wilson(mo.m, _effective_n(mo, edge), _quantile(level, mo.N - 1))


def _wilson_neff_t_aug(mo: _Moments, level: float) -> Limits:
    """As wilson_neff_t, the variance with half a pseudo-task at 0 and at 1."""
    return _wilson_neff_t(_augmented(mo), level)


def _wilson_neff_t_aug_edge(mo: _Moments, level: float) -> Limits:
    """As wilson_neff_t_aug; n_eff the tasks where every value is 0 or every value is 1."""
    return _wilson_neff_t(_augmented(mo, 0.5), level, edge="tasks")


def _wilson_neff_t_aug1_edge(mo: _Moments, level: float) -> Limits:
    """As wilson_neff_t_aug_edge with one pseudo-task at 0 and one at 1."""
    return _wilson_neff_t(_augmented(mo, 1.0), level, edge="tasks")


def _cp_neff_aug1_edge(mo: _Moments, level: float) -> Limits:
    """Clopper-Pearson at ``m n`` of n trials, n the effective n of wilson_neff_t_aug1_edge."""
    n = _effective_n(_augmented(mo, 1.0), edge="tasks")
    return _clopper_pearson(mo.m * n, n, level)


def _cp_neff_floor(mo: _Moments, level: float) -> Limits:
    """As cp_neff_aug1_edge, the effective n at least the counted tasks N.

    A mean of N values in [0, 1] varies at most as a proportion of N trials
    does; without the floor, far from 1/2 at few tasks the pseudo-tasks alone
    make the effective n small.
    """
    n = np.maximum(_effective_n(_augmented(mo, 1.0), edge="tasks"), mo.N)
    return _clopper_pearson(mo.m * n, n, level)


def _binomial_tasks(mo: _Moments, level: float, kind: str) -> Limits:
    """Binomial interval of the tasks with value 1 of N; NaN unless every task has k runs."""
    x, n = mo.ones, mo.N
    alpha = 1 - level
    if kind == "wilson":
        low, high = _wilson(x / n, n, _quantile(level))
    elif kind == "cp":
        low, high = _clopper_pearson(x, n, level)
    else:  # Jeffreys, with the end conventions of Brown, Cai and DasGupta
        low = np.where(x > 0, stats.beta.ppf(alpha / 2, x + 0.5, n - x + 0.5), 0.0)
        high = np.where(x < n, stats.beta.ppf(1 - alpha / 2, x + 0.5, n - x + 0.5), 1.0)
    return np.where(mo.exact_k, low, np.nan), np.where(mo.exact_k, high, np.nan)


def _at_k_else(mo: _Moments, level: float, other: Callable[[_Moments, float], Limits]) -> Limits:
    """Clopper-Pearson on the tasks where every counted task has k runs, `other` elsewhere."""
    low_b, high_b = _binomial_tasks(mo, level, "cp")
    low_o, high_o = other(mo, level)
    return np.where(mo.exact_k, low_b, low_o), np.where(mo.exact_k, high_b, high_o)


def _shrunk_variance(mo: _Moments) -> tuple[np.ndarray, np.ndarray]:
    """Return the centre shrunk by half a pseudo-trial at 0 and 1 (n_eff scale), and a variance.

    The variance is at least that of a binomial of the blocks at the centre.
    """
    n_eff = _effective_n(mo)
    shrunk = (mo.m * n_eff + 0.5) / (n_eff + 1.0)
    var = np.maximum(mo.s2 / mo.N, shrunk * (1 - shrunk) / np.maximum(mo.cap, 1.0))
    return shrunk, np.where(np.isfinite(n_eff), var, np.nan)


def _logit_t(mo: _Moments, level: float) -> Limits:
    """Return a t interval on the logit scale about the shrunk centre; 0 (1) at estimate 0 (1)."""
    shrunk, var = _shrunk_variance(mo)
    se = np.sqrt(var) / (shrunk * (1 - shrunk))
    q = _quantile(level, mo.N - 1)
    centre = special.logit(shrunk)
    low, high = special.expit(centre - q * se), special.expit(centre + q * se)
    return np.where(mo.m <= 0, 0.0, low), np.where(mo.m >= 1, 1.0, high)


def _arcsine_t(mo: _Moments, level: float) -> Limits:
    """Return a t interval on the arcsine-square-root scale, the same centre and variance."""
    shrunk, var = _shrunk_variance(mo)
    se = np.sqrt(var) / (2.0 * np.sqrt(shrunk * (1 - shrunk)))
    q = _quantile(level, mo.N - 1)
    centre = np.arcsin(np.sqrt(shrunk))
    low = np.sin(np.clip(centre - q * se, 0, np.pi / 2)) ** 2
    high = np.sin(np.clip(centre + q * se, 0, np.pi / 2)) ** 2
    return np.where(mo.m <= 0, 0.0, low), np.where(mo.m >= 1, 1.0, high)


def _hoeffding(mo: _Moments, level: float) -> Limits:
    """Hoeffding's bound for a mean of values in [0, 1]."""
    half = np.sqrt(np.log(2 / (1 - level)) / (2 * mo.N))
    return np.clip(mo.m - half, 0, 1), np.clip(mo.m + half, 0, 1)


def _emp_bernstein(mo: _Moments, level: float) -> Limits:
    """Maurer and Pontil's (2009) empirical Bernstein bound, alpha / 2 on each side."""
    log_term = np.log(4 / (1 - level))
    half = np.sqrt(2 * mo.s2 * log_term / mo.N) + 7 * log_term / (3 * (mo.N - 1))
    return np.clip(mo.m - half, 0, 1), np.clip(mo.m + half, 0, 1)


MOMENT_METHODS: dict[str, Callable[[_Moments, float], Limits]] = {
    "wilson_neff": _wilson_neff,
    "wilson_neff_t": _wilson_neff_t,
    "wilson_neff_t_aug": _wilson_neff_t_aug,
    "logit_t": _logit_t,
    "arcsine_t": _arcsine_t,
    "hoeffding": _hoeffding,
    "emp_bernstein": _emp_bernstein,
    "wilson_tasks@k=n": lambda mo, level: _binomial_tasks(mo, level, "wilson"),
    "cp_tasks@k=n": lambda mo, level: _binomial_tasks(mo, level, "cp"),
    "jeffreys_tasks@k=n": lambda mo, level: _binomial_tasks(mo, level, "jeffreys"),
    "cp@k=n_else_wilson_neff_t": lambda mo, level: _at_k_else(mo, level, _wilson_neff_t),
    "cp@k=n_else_wilson_neff_t_aug": lambda mo, level: _at_k_else(mo, level, _wilson_neff_t_aug),
    "wilson_neff_t_aug_edge": _wilson_neff_t_aug_edge,
    "wilson_neff_t_aug1_edge": _wilson_neff_t_aug1_edge,
    "cp@k=n_else_aug_edge": lambda mo, level: _at_k_else(mo, level, _wilson_neff_t_aug_edge),
    "cp@k=n_else_aug1_edge": lambda mo, level: _at_k_else(mo, level, _wilson_neff_t_aug1_edge),
    "cp_neff_aug1_edge": _cp_neff_aug1_edge,
    "cp@k=n_else_cp_neff": lambda mo, level: _at_k_else(mo, level, _cp_neff_aug1_edge),
    "cp@k=n_else_cp_neff_floor": lambda mo, level: _at_k_else(mo, level, _cp_neff_floor),
}
EARLIER = "cp@k=n_else_cp_neff"  # the library's "auto" before the floor at N tasks
RECOMMENDED = "cp@k=n_else_cp_neff_floor"  # the library's "auto"


# --------------------------------------------------------------------------------------
# Resampling candidates (one replicate at a time)
# --------------------------------------------------------------------------------------


def _task_bootstraps(
    tasks: np.ndarray, values: np.ndarray, level: float, n_resamples: int, rng
) -> tuple[Limits, Limits]:
    """BCa and percentile task-bootstrap limits from one set of resamples.

    The computation of ``passk_lab._bootstrap.task_bootstrap`` (its own
    helpers, in its order), the resamples shared by the two methods;
    :func:`_check_bootstrap` holds it to the library's.
    """
    replicates = weighted_means(resample_cells(tasks, n_resamples, rng), values)
    estimate = weighted_means(tasks[None, :], values)[0]
    percentile = quantile_limits(replicates, estimate, *tails(level, values.shape[1]))
    low_q, high_q = bca_levels(replicates, estimate, acceleration(tasks, values), level)
    bca = quantile_limits(replicates, estimate, low_q, high_q)
    return (bca.low, bca.high), (percentile.low, percentile.high)


def _bayes_bootstrap(
    tasks: np.ndarray, values: np.ndarray, level: float, n_resamples: int, rng, prior=0.5
) -> Limits:
    """Percentile interval of the Dirichlet posterior mean, `prior` pseudo-tasks at 0 and 1.

    The tasks of a cell share a Gamma(tasks) weight (a sum of Gamma(1)
    weights). At an estimate of 0 (1) the lower (upper) limit is 0 (1), the
    Jeffreys convention of Brown, Cai and DasGupta.
    """
    counted = np.isfinite(values)
    v = np.where(counted, values, 0.0)
    g = rng.gamma(np.broadcast_to(tasks.astype(np.float64), (n_resamples, len(tasks))))
    g0 = rng.gamma(prior, size=(n_resamples, 1))
    g1 = rng.gamma(prior, size=(n_resamples, 1))
    means = (g @ v + g1) / (g @ counted.astype(np.float64) + g0 + g1)
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail], axis=0)
    none = counted.T @ tasks == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = (tasks @ v) / (tasks @ counted)
    low = np.where(estimate <= 0, 0.0, low)
    high = np.where(estimate >= 1, 1.0, high)
    return np.where(none, np.nan, low), np.where(none, np.nan, high)


def _betabinom_bootstrap(
    n_cells, c_cells, counts_r, values, level: float, n_resamples: int, rng
) -> Limits:
    """Percentile interval of the estimate under the fitted beta-binomial (parametric bootstrap).

    (mean, icc) of the plain beta-binomial (no zero/one inflation) fitted to
    the replicate's cells by the library's fit_cells; each run-count group's
    tasks redrawn from the fit (binomial at icc 0).
    """
    keep = counts_r > 0
    fit = fit_cells(n_cells[keep], c_cells[keep], counts_r[keep], model="betabinom")
    a, b = beta_shapes(fit.mean, fit.icc)
    weights = np.zeros((n_resamples, len(n_cells)), dtype=np.int64)
    for size in np.unique(n_cells):
        here = n_cells == size
        group = int(counts_r[here].sum())
        if group == 0:
            continue
        if not np.isfinite(a) or not np.isfinite(b) or fit.icc <= 0:
            pmf = stats.binom.pmf(c_cells[here], size, fit.mean)
        else:
            pmf = stats.betabinom.pmf(c_cells[here], size, a, b)
        pmf = np.nan_to_num(pmf)
        weights[:, here] = rng.multinomial(group, pmf / pmf.sum(), size=n_resamples)
    means = weighted_means(weights, values)
    tail = (1 - level) / 2
    # a column no resample counts stays NaN (and out of the coverage)
    counted = np.isfinite(means).any(axis=0)
    low, high = np.full(means.shape[1], np.nan), np.full(means.shape[1], np.nan)
    low[counted] = np.nanquantile(means[:, counted], tail, axis=0)
    high[counted] = np.nanquantile(means[:, counted], 1 - tail, axis=0)
    return low, high


# --------------------------------------------------------------------------------------
# One grid cell
# --------------------------------------------------------------------------------------

BOOTSTRAPS = ("bca", "percentile", "bayes_bootstrap")
ALL_METHODS = ("old_default", *BOOTSTRAPS, *MOMENT_METHODS)


def _resampled(mo, counts, values, level, n_resamples, methods, rng) -> dict[str, Limits]:
    """Return the bootstrap candidates and the old default, replicate by replicate."""
    store = {
        name: (np.full(mo.m.shape, np.nan), np.full(mo.m.shape, np.nan)) for name in BOOTSTRAPS
    }
    want_boot = bool({"old_default", "bca", "percentile"} & set(methods))
    want_bayes = "bayes_bootstrap" in methods
    for r in range(len(counts)):
        keep = counts[r] > 0
        tasks, vals = counts[r, keep], values[keep]
        if want_boot:
            with np.errstate(all="ignore"):
                bca, perc = _task_bootstraps(tasks, vals, level, n_resamples, rng)
            store["bca"][0][r], store["bca"][1][r] = bca
            store["percentile"][0][r], store["percentile"][1][r] = perc
        if want_bayes:
            low, high = _bayes_bootstrap(tasks, vals, level, n_resamples, rng)
            store["bayes_bootstrap"][0][r], store["bayes_bootstrap"][1][r] = low, high
    out = {name: store[name] for name in BOOTSTRAPS if name in methods}
    if "old_default" in methods:
        low_b, high_b = store["bca"]
        with np.errstate(all="ignore"):  # NaN where a k counts no task
            low_w, high_w = _binomial_tasks(mo, level, "wilson")
            low_c, high_c = _wilson(mo.m, mo.N, _quantile(level))
        collapsed = (high_b - low_b <= 0) & ((mo.m == 0) | (mo.m == 1))
        out["old_default"] = (
            np.where(mo.exact_k, low_w, np.where(collapsed, low_c, low_b)),
            np.where(mo.exact_k, high_w, np.where(collapsed, high_c, high_b)),
        )
    return out


def _run_cell(
    pop: _Population,
    scheme: _Scheme,
    tasks: int,
    reps: int,
    n_resamples: int,
    levels: tuple[float, ...],
    methods: tuple[str, ...],
    seed: int,
) -> list[dict[str, object]]:
    """Coverage and width of every method in one cell, one row per (statistic, k, method, level)."""
    rng = np.random.default_rng(seed)
    ks = np.asarray(scheme.ks)
    counts, n_cells, c_cells = _simulate(pop, scheme, tasks, reps, rng)
    values = _cell_values(n_cells, c_cells, ks)
    kcols = np.concatenate([ks, ks])
    mo = _moments(counts, values, _cell_blocks(n_cells, ks), n_cells, kcols)
    truths = np.array([pop.truth(int(k)) for k in ks])
    truth_cols = np.concatenate([truths[:, 0], truths[:, 1]])
    defined = mo.N >= 2  # a population claim needs two counted tasks
    rows: list[dict[str, object]] = []
    for level in levels:
        limits: dict[str, Limits] = {}
        for name, method in MOMENT_METHODS.items():
            if name in methods:
                with np.errstate(all="ignore"):
                    limits[name] = method(mo, level)
        if {"old_default", *BOOTSTRAPS} & set(methods):
            limits |= _resampled(mo, counts, values, level, n_resamples, methods, rng)
        if "betabinom_param" in methods:
            low_p, high_p = np.full(mo.m.shape, np.nan), np.full(mo.m.shape, np.nan)
            for r in range(reps):
                with np.errstate(all="ignore"):
                    low_p[r], high_p[r] = _betabinom_bootstrap(
                        n_cells, c_cells, counts[r], values, level, n_resamples, rng
                    )
            limits["betabinom_param"] = (low_p, high_p)
        for name, (low, high) in limits.items():
            for col in range(len(kcols)):
                ok = defined[:, col] & np.isfinite(low[:, col]) & np.isfinite(high[:, col])
                if not ok.any():
                    continue
                truth = truth_cols[col]
                lo, hi = low[ok, col], high[ok, col]
                covered = (lo <= truth + 1e-12) & (truth - 1e-12 <= hi)
                coverage = covered.mean()
                width = hi - lo
                rows.append(
                    {
                        "level": level,
                        "population": pop.name,
                        "T": tasks,
                        "runs": scheme.name,
                        "statistic": "pass^k" if col < len(ks) else "pass@k",
                        "k": int(kcols[col]),
                        "truth": truth,
                        "method": name,
                        "coverage": coverage,
                        "coverage_se": float(np.sqrt(coverage * (1 - coverage) / ok.sum())),
                        "n_covered": int(covered.sum()),
                        "n_defined": int(ok.sum()),
                        "mean_width": width.mean(),
                        "median_width": float(np.median(width)),
                        "zero_width": float((width <= 1e-12).mean()),
                    }
                )
    return rows


# --------------------------------------------------------------------------------------
# The parts of the grid
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    """A part of the study: its cells, replicates, resamples, levels and methods."""

    populations: tuple[_Population, ...]
    schemes: tuple[str, ...]
    tasks: tuple[int, ...]
    reps: int
    n_resamples: int
    levels: tuple[float, ...]
    methods: tuple[str, ...]


def _parts() -> dict[str, _Part]:
    every = tuple(_populations())
    levels_pops = tuple(p for p in every if p.icc in (0.0, 0.3) and p.kind != "mixture")
    levels_pops += tuple(p for p in every if p.kind == "mixture")[:1]
    closed = (
        "cp@k=n_else_aug1_edge",
        "cp@k=n_else_aug_edge",
        "wilson_neff_t_aug1_edge",
        "cp_tasks@k=n",
        EARLIER,
        RECOMMENDED,
    )
    parts = {
        name: _Part(every, (name,), (20, 40, 150), 400, 2000, (0.95,), ALL_METHODS)
        for name in SCHEMES
    }
    parts["levels"] = _Part(
        levels_pops,
        ("equal10",),
        (20, 150),
        400,
        2000,
        (0.8, 0.99),
        ("bca", "wilson_neff_t", "bayes_bootstrap", *closed),
    )
    parts["levels_all"] = _Part(every, tuple(SCHEMES), (20, 40, 150), 400, 0, (0.8, 0.99), closed)
    parts["betabinom"] = _Part(
        every,
        ("equal10", "unequal"),
        (20, 150),
        200,
        1000,
        (0.95,),
        ("betabinom_param", "cp@k=n_else_aug1_edge", EARLIER, RECOMMENDED),
    )
    parts["quick"] = _Part(
        tuple(_populations(quick=True)),
        tuple(SCHEMES),
        (20, 150),
        100,
        500,
        (0.95,),
        ALL_METHODS,
    )
    return parts


def _seed_of(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


def run_part(name: str) -> pd.DataFrame:
    """Run one part of the grid and return its table (one row per cell, method and level).

    Parameters
    ----------
    name : str
        A key of the parts: ``"equal3"``, ``"equal10"``, ``"unequal"``,
        ``"levels"``, ``"levels_all"``, ``"betabinom"`` or ``"quick"``.

    Returns
    -------
    DataFrame
        Coverage (``n_covered`` of ``n_defined`` task sets with two counted
        tasks), its Monte Carlo SE, the mean and median width and the share
        of zero-width intervals.
    """
    part = _parts()[name]
    start = time.time()
    rows: list[dict[str, object]] = []
    for scheme_name in part.schemes:
        scheme = SCHEMES[scheme_name]
        for pop in part.populations:
            for tasks in part.tasks:
                seed = _seed_of(name, pop.name, scheme.name, tasks)
                rows += _run_cell(
                    pop, scheme, tasks, part.reps, part.n_resamples, part.levels, part.methods, seed
                )
        print(f"{name} {scheme.name}: {time.time() - start:.0f} s", flush=True)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Checks against the library
# --------------------------------------------------------------------------------------


def _check_bootstrap() -> None:
    """Check that the shared-resample bootstrap equals task_bootstrap on the same draws."""
    tasks = np.array([5, 9, 3, 3])
    n = np.array([4, 4, 4, 4])
    values = _cell_values(n, np.array([0, 2, 3, 4]), np.array([1, 2, 4]))
    bca, perc = _task_bootstraps(tasks, values, 0.95, 1000, np.random.default_rng(3))
    for method, ours in (("bca", bca), ("percentile", perc)):
        ref = task_bootstrap(
            tasks, values, method=method, n_resamples=1000, rng=np.random.default_rng(3)
        )
        if not (np.allclose(ours[0], ref.low) and np.allclose(ours[1], ref.high)):
            raise AssertionError(f"{method}: the study's bootstrap is not the library's")


CHECK_SETS = (  # (runs per cell, passes per cell, tasks per cell, ks)
    ((5, 5, 5), (0, 3, 5), (4, 9, 7), (1, 3, 5)),  # every task has 5 runs: binomial at k = 5
    ((4, 6, 8, 8), (1, 6, 2, 7), (6, 5, 8, 3), (1, 2, 4)),  # unequal runs, the effective n
    ((10,), (10,), (20,), (1, 5, 10)),  # every run passes
    ((3, 3), (0, 1), (40, 1), (1, 3)),  # near the floor
    ((4,), (2,), (30,), (1, 2)),  # tasks alike
)


def _check_recommended() -> int:
    """Check that the recommended rule gives the library's limits; return the columns checked.

    Against ``effective_n_interval`` on the same moments and against the
    limits ``reliability_curve`` reports for a tally of the same tasks.
    """
    checked = 0
    for n_, c_, t_, ks_ in CHECK_SETS:
        n, c, t, ks = (np.asarray(x, dtype=np.int64) for x in (n_, c_, t_, ks_))
        values = _cell_values(n, c, ks)
        kcols = np.concatenate([ks, ks])
        mo = _moments(t[None, :], values, _cell_blocks(n, ks), n, kcols)
        with np.errstate(all="ignore"):
            low, high = MOMENT_METHODS[RECOMMENDED](mo, 0.95)
        lib_low, lib_high = effective_n_interval(TaskMoments.of(values, t, n, kcols), 0.95)
        tally = pd.DataFrame(
            {"task": np.arange(t.sum()), "n": np.repeat(n, t), "c": np.repeat(c, t)}
        )
        curve = pk.reliability_curve(tally, ks=ks.tolist())
        curve_low = np.concatenate([curve["pass_pow_k_low"], curve["pass_at_k_low"]])
        curve_high = np.concatenate([curve["pass_pow_k_high"], curve["pass_at_k_high"]])
        for label, ref_low, ref_high in (
            ("effective_n_interval", lib_low, lib_high),
            ("reliability_curve", curve_low, curve_high),
        ):
            if not (np.allclose(low[0], ref_low) and np.allclose(high[0], ref_high)):
                raise AssertionError(
                    f"{RECOMMENDED} differs from {label} on runs {n_}, passes {c_}, tasks {t_}: "
                    f"{low[0]}, {high[0]} against {ref_low}, {ref_high}"
                )
        checked += len(kcols)
    return checked


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


def _md_table(frame: pd.DataFrame, floatfmt: str = ".3f") -> str:
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        cells = [
            ("" if np.isnan(v) else format(v, floatfmt))
            if isinstance(v, float | np.floating)
            else str(v)
            for v in row
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _worst_cell(row: pd.Series) -> str:
    return (
        f"{row.population}, T={row['T']}, {row.runs}, {row.statistic} k={row.k} "
        f"(truth {row.truth:.4g})"
    )


def _surely_below(table: pd.DataFrame, bar: float) -> pd.Series:
    """Cells whose exact one-sided binomial p-value of 'coverage >= bar' is below 0.01."""
    return pd.Series(stats.binom.cdf(table["n_covered"], table["n_defined"], bar) < 0.01)


def summary(table: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Return one row per method: worst cell, cells under the bar, zero widths, width / BCa.

    Parameters
    ----------
    table : DataFrame
        Rows of :func:`run_part` at one level.
    level : float
        The level of the rows; the bar is ``level - 0.02``.

    Returns
    -------
    DataFrame
        Sorted by the cells under the bar, then by the worst coverage.
    """
    bar = level - 0.02
    bca = table[table.method == "bca"].set_index(KEY)
    rows = []
    for method, part in table.groupby("method", sort=False):
        row: dict[str, object] = {
            "method": method,
            "cells": len(part),
            "worst coverage": part.coverage.min(),
            "worst cell": _worst_cell(part.loc[part.coverage.idxmin()]),
            f"cells < {bar:.2f}": int((part.coverage < bar).sum()),
            "surely below (p<0.01)": int(_surely_below(part, bar).sum()),
            "max zero-width share": part.zero_width.max(),
            "mean width": part.mean_width.mean(),
        }
        if len(bca):  # width against BCa where BCa holds the bar
            both = part.set_index(KEY).join(bca[["coverage", "mean_width"]].add_suffix("_bca"))
            held = both[(both.coverage_bca >= bar) & (both.mean_width_bca > 0)]
            row[f"width / BCa (median, where BCa >= {bar:.2f})"] = (
                (held.mean_width / held.mean_width_bca).median() if len(held) else np.nan
            )
        rows.append(row)
    return pd.DataFrame(rows).sort_values(
        [f"cells < {bar:.2f}", "worst coverage"], ascending=[True, False]
    )


def width_ratios(table: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Return the recommended rule's median width over BCa's, the old default's and EARLIER's.

    Parameters
    ----------
    table : DataFrame
        Rows of :func:`run_part` at one level, with ``bca``, ``old_default``
        and the earlier rule.
    level : float
        The level of the rows; a cell counts where the other method holds
        ``level - 0.02`` with a positive width.

    Returns
    -------
    DataFrame
        One row per other method and kind of cell (``k = n``: every counted
        task has exactly k runs, where ``cp_tasks@k=n`` is defined), one
        column per T, and the cells compared.
    """
    bar = level - 0.02
    at_k = table[table.method == "cp_tasks@k=n"].set_index(KEY).index
    ours = table[table.method == RECOMMENDED].set_index(KEY).mean_width
    rows = []
    for other in ("bca", "old_default", EARLIER):
        theirs = table[table.method == other].set_index(KEY)
        held = theirs[(theirs.coverage >= bar) & (theirs.mean_width > 0)]
        ratio = (ours.reindex(held.index) / held.mean_width).rename("ratio").reset_index()
        ratio["cells"] = np.where(held.index.isin(at_k), "k = n", "k < n")
        for kind, part in ratio.groupby("cells"):
            row: dict[str, object] = {"against": other, "cells": kind}
            row |= {f"T = {t}": g.ratio.median() for t, g in part.groupby("T")}
            row |= {"all T": part.ratio.median(), "cells compared": len(part)}
            rows.append(row)
    return pd.DataFrame(rows)


def floor_widths(table: pd.DataFrame, others: tuple[str, ...] = (EARLIER, "bca")) -> pd.DataFrame:
    """Return the recommended rule's median width over other methods', overall and near 0 / 1.

    Parameters
    ----------
    table : DataFrame
        Rows of :func:`run_part` at one level.
    others : tuple of str
        The methods compared, those of them in `table`.

    Returns
    -------
    DataFrame
        One row per other method: the median over cells of the ratio of the
        mean widths, on every cell where the other's mean width is positive
        and on those with a truth below 0.05 or above 0.95, and the cells.
    """
    ours = table[table.method == RECOMMENDED].set_index(KEY).mean_width
    rows = []
    for other in others:
        theirs = table[(table.method == other) & (table.mean_width > 0)].set_index(KEY)
        if theirs.empty:
            continue
        ratio = ours.reindex(theirs.index) / theirs.mean_width
        edge = ((theirs.truth < 0.05) | (theirs.truth > 0.95)).to_numpy()
        rows.append(
            {
                "against": other,
                "all cells": ratio.median(),
                "cells": len(ratio),
                "truth < 0.05 or > 0.95": ratio[edge].median(),
                "edge cells": int(edge.sum()),
            }
        )
    return pd.DataFrame(rows)


def edge_cases(method: str = RECOMMENDED, level: float = 0.95) -> pd.DataFrame:
    """Return the limits of `method` on data that cannot support certainty (every width positive).

    Parameters
    ----------
    method : str
        A key of ``MOMENT_METHODS``.
    level : float
        Confidence level.

    Returns
    -------
    DataFrame
        One row per (example, statistic, k): the tasks counted, the estimate and the limits.
    """
    examples = [
        ("30 tasks, each 2 of 4 runs", [4], [2], [30], [1, 2]),
        ("50 tasks, all 5 runs fail", [5], [0], [50], [1, 3, 5]),
        ("50 tasks, all 5 runs pass", [5], [5], [50], [1, 3, 5]),
        ("20 tasks x 10 runs, all pass", [10], [10], [20], [1, 5, 10]),
        ("one task 96 runs 3 passes + 79 tasks 8 runs", [96, 8], [3, 4], [1, 79], [8, 35]),
    ]
    rows = []
    for label, n_, c_, t_, ks_ in examples:
        n, c, t, ks = (np.asarray(x, dtype=np.int64) for x in (n_, c_, t_, ks_))
        kcols = np.concatenate([ks, ks])
        mo = _moments(t[None, :], _cell_values(n, c, ks), _cell_blocks(n, ks), n, kcols)
        with np.errstate(all="ignore"):
            low, high = MOMENT_METHODS[method](mo, level)
        few = mo.N < 2
        low, high = np.where(few, np.nan, low), np.where(few, np.nan, high)
        for col, k in enumerate(kcols):
            rows.append(
                {
                    "data": label,
                    "statistic": "pass^k" if col < len(ks) else "pass@k",
                    "k": int(k),
                    "tasks counted": int(mo.N[0, col]),
                    "estimate": mo.m[0, col],
                    "low": low[0, col],
                    "high": high[0, col],
                }
            )
    return pd.DataFrame(rows)


def _read(name: str) -> pd.DataFrame:
    path = OUT / f"{name}.csv.gz"
    return pd.read_csv(path) if path.exists() else pd.DataFrame()


def report() -> str:
    """Return the Markdown tables of docs/coverage/candidates.md from the parts' CSVs.

    Returns
    -------
    str
        The summary at 0.95 over the parts present, the other levels, the
        zero-width examples and the parametric bootstrap.
    """
    grid = pd.concat([_read(name) for name in SCHEMES], ignore_index=True)
    if grid.empty:
        raise SystemExit(f"no results in {OUT}: run the parts first (--part equal3, ...)")
    lines = [f"### Level 0.95, {len(grid.groupby(KEY))} cells ({', '.join(grid.runs.unique())})\n"]
    lines.append(_md_table(summary(grid)))
    lines.append(
        f"\nMedian width of {RECOMMENDED} over that of BCa and of the old default, on the "
        "cells where that method holds 0.93:\n"
    )
    lines.append(_md_table(width_ratios(grid), ".2f"))
    lines.append(
        f"\nMedian width of {RECOMMENDED} over that of {EARLIER} (no floor at N) and of BCa, "
        "per grid, on every cell where the other's width is positive:\n"
    )
    ratios = []
    for name in (*SCHEMES, "levels", "levels_all", "betabinom"):
        table = _read(name)
        if table.empty:
            continue
        for level, part in table.groupby("level"):
            ratios.append(floor_widths(part).assign(part=name, level=level))
    lines.append(_md_table(pd.concat(ratios, ignore_index=True), ".3f"))
    for name, title in (
        ("levels", "n = 10, a smaller grid, bootstraps too"),
        ("levels_all", "closed forms, every cell"),
    ):
        table = _read(name)
        for level, part in table.groupby("level"):
            lines.append(f"\n### Level {level}, {title} ({len(part.groupby(KEY))} cells)\n")
            lines.append(_md_table(summary(part, level)))
    lines.append("\n### Data that cannot support certainty, under the recommended rule\n")
    lines.append(_md_table(edge_cases(), ".4f"))
    bb = _read("betabinom")
    if not bb.empty:
        lines.append(
            f"\n### Parametric bootstrap under the fitted beta-binomial ({len(bb.groupby(KEY))} "
            "cells: n = 10 and unequal runs, T in {20, 150}, 200 task sets, 1,000 resamples)\n"
        )
        lines.append(_md_table(summary(bb)))
        worst = bb[bb.method == "betabinom_param"].nsmallest(8, "coverage")
        lines.append("\nIts 8 worst cells:\n")
        columns = [*KEY, "truth", "coverage", "mean_width", "zero_width"]
        lines.append(_md_table(worst[columns], ".4g"))
    return "\n".join(lines)


def main() -> None:
    """Run the checks and the part asked for, or print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="checks and a small grid")
    parser.add_argument("--part", choices=[name for name in _parts() if name != "quick"])
    parser.add_argument("--report", action="store_true", help="print the tables of the parts")
    args = parser.parse_args()
    if args.quick:
        start = time.time()
        _check_bootstrap()
        print("check: the study's BCa and percentile bootstrap equal task_bootstrap's")
        checked = _check_recommended()
        print(
            f"check: {RECOMMENDED} equals effective_n_interval and reliability_curve's limits "
            f"({checked} columns of {len(CHECK_SETS)} task sets)"
        )
        table = run_part("quick")
        print(_md_table(summary(table)))
        print(f"quick run: {time.time() - start:.0f} s")
    if args.part:
        table = run_part(args.part)
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / f"{args.part}.csv.gz"
        table.to_csv(
            path, index=False, float_format="%.6g", compression={"method": "gzip", "mtime": 0}
        )
        print(f"wrote {path} ({len(table)} rows)")
    if args.report:
        print(report())


if __name__ == "__main__":
    main()
