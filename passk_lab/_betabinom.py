"""The beta-binomial model of task difficulty: its likelihood, its fit, its predictions.

If every run of every task passed with one chance p, pass^k would be p^k. Real
tasks differ: some nearly always pass, some nearly never, so the same tasks
keep passing and pass^k falls much more slowly. The beta-binomial model puts a
number on that.

**What the model assumes.** Each task i has its own chance ``p_i`` of passing a
run, drawn independently from one Beta(alpha, beta) distribution over tasks;
given ``p_i``, the task's runs are independent and pass with chance ``p_i``
(no learning, no drift between runs, no dependence between tasks). Then a task's
passes ``c`` out of ``n`` runs are BetaBinomial(n, alpha, beta), and the share
of tasks that pass all k runs is ``E[p^k] = B(alpha + k, beta) / B(alpha, beta)``,
defined for any k -- beyond the runs observed too. The plain binomial model (one
p for all tasks) is its limit as the intra-task correlation goes to 0.

Parameterised by the mean ``mu = alpha / (alpha + beta)`` and the intra-task
correlation ``rho = 1 / (alpha + beta + 1)``, the likelihood of a task is a
product of ratios with no Gamma functions: with ``a_i = mu (1 - rho) + i rho``,
``b_i = (1 - mu)(1 - rho) + i rho`` and ``d_i = (1 - rho) + i rho``,
``P(c | n) = C(n, c) prod_{i<c} a_i prod_{i<n-c} b_i / prod_{i<n} d_i``, exact
at ``rho = 0`` (binomial) and cheap to sum over the (n, c) cells.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from passk_lab._checks import confidence, positive_int
from passk_lab._interval import ConfidenceInterval
from passk_lab._typing import Bools, Floats, Ints

__all__ = ["BetaBinomialFit", "beta_shapes", "fit_cells", "outcome_chances"]

_EDGE = 1e-12  # distance kept from mu = 0, mu = 1 and rho = 1, where the likelihood has poles
_LOWER = np.array([_EDGE, 0.0])  # the box of (mu, rho) searched
_UPPER = np.array([1.0 - _EDGE, 1.0 - _EDGE])
_MAX_STEPS = 200  # Newton steps from one start; about 20 reach the maximum to 1e-15
_NO_DERIVATIVE = np.empty(0)  # what _derivatives returns when not asked for them


@dataclass(frozen=True, eq=False)
class _Counts:
    """Tasks with more than i passes (A), failures (B) and runs (D), for i = 0, 1, ..."""

    passes: Floats
    failures: Floats
    runs: Floats

    @property
    def mixed(self) -> float:
        """Tasks with at least one pass and one failure."""
        return float(self.passes[0] + self.failures[0] - self.runs[0])


def _indicators(n: Ints, c: Ints) -> tuple[Floats, Floats, Floats]:
    """Per cell and i < max n: ``c > i``, ``n - c > i``, ``n > i``."""
    i = np.arange(int(n.max()))
    return (
        (c[:, None] > i).astype(np.float64),
        ((n - c)[:, None] > i).astype(np.float64),
        (n[:, None] > i).astype(np.float64),
    )


def _derivatives(
    mu: float, rho: float, counts: _Counts, *, hessian: bool
) -> tuple[float, Floats, Floats]:
    """Return the log-likelihood in (mu, rho), and its gradient and Hessian if `hessian`.

    Every term is ``count * log(x)`` with ``x`` one of ``mu``, ``1 - mu``,
    ``1 - rho``, ``a_i``, ``b_i``, ``d_i``: linear in each parameter, with
    ``d^2 a_i / (d mu d rho) = -1`` and ``d^2 b_i / (d mu d rho) = 1``. Inside
    the box kept by ``_EDGE`` every ``x`` is positive, so no term needs a guard.
    """
    passes, failures, runs = counts.passes, counts.failures, counts.runs
    mixed = counts.mixed
    i = np.arange(1.0, len(runs))
    p, f, r = passes[1:], failures[1:], runs[1:]
    a = mu * (1.0 - rho) + i * rho
    b = (1.0 - mu) * (1.0 - rho) + i * rho
    d = 1.0 + (i - 1.0) * rho
    value = float(
        passes[0] * np.log(mu)
        + failures[0] * np.log(1.0 - mu)
        + mixed * np.log(1.0 - rho)
        + p @ np.log(a)
        + f @ np.log(b)
        - r @ np.log(d)
    )
    if not hessian:
        return value, _NO_DERIVATIVE, _NO_DERIVATIVE
    pa, fb, rd = p / a, f / b, r / d
    a_rho, b_rho, d_rho = i - mu, i - 1.0 + mu, i - 1.0  # d a_i / d rho, ...
    gradient = np.array(
        [
            passes[0] / mu - failures[0] / (1.0 - mu) + (1.0 - rho) * float((pa - fb).sum()),
            -mixed / (1.0 - rho) + float(pa @ a_rho + fb @ b_rho - rd @ d_rho),
        ]
    )
    paa, fbb = pa / a, fb / b
    mu_mu = (
        -passes[0] / mu**2
        - failures[0] / (1.0 - mu) ** 2
        - (1.0 - rho) ** 2 * float((paa + fbb).sum())
    )
    rho_rho = -mixed / (1.0 - rho) ** 2 + float(
        -(paa @ a_rho**2) - fbb @ b_rho**2 + (rd / d) @ d_rho**2
    )
    mu_rho = float(-pa.sum() + fb.sum() - (1.0 - rho) * (paa @ a_rho - fbb @ b_rho))
    return value, gradient, np.array([[mu_mu, mu_rho], [mu_rho, rho_rho]])


def _ascent_step(gradient: Floats, hessian: Floats, free: Bools) -> Floats:
    """Newton's step in the free parameters; a scaled gradient step where the fit is not concave."""
    step = np.zeros(2)
    if free.all():
        (h11, h12), (_, h22) = hessian
        det = h11 * h22 - h12 * h12
        if h11 < 0 and det > 0:  # negative definite: Newton's step goes uphill
            g1, g2 = gradient
            step[0] = -(h22 * g1 - h12 * g2) / det
            step[1] = -(h11 * g2 - h12 * g1) / det
            return step
    for index in np.flatnonzero(free):
        curvature = hessian[index, index]
        scale = -1.0 / curvature if curvature < 0 else 1.0 / max(abs(curvature), 1.0)
        step[index] = gradient[index] * scale
    return step


def _maximise(counts: _Counts, starts: Iterable[tuple[float, float]]) -> tuple[float, float, float]:
    """Return (mu, rho, log-likelihood) at the maximum, over a few starting points.

    Projected Newton in the box ``[_EDGE, 1 - _EDGE] x [0, 1 - _EDGE]``: a
    parameter at a bound with its gradient pointing out of the box stays
    there (rho = 0 is where the binomial model fits best), the others take
    Newton's step, and a backtracking line search keeps every step uphill.
    The likelihood need not be concave in rho, hence several starts.
    """
    best: tuple[float, float, float] | None = None
    for start in starts:
        theta = np.clip(np.array(start, dtype=np.float64), _LOWER, _UPPER)
        value, gradient, hessian = _derivatives(theta[0], theta[1], counts, hessian=True)
        for _ in range(_MAX_STEPS):
            free = ~(((theta <= _LOWER) & (gradient < 0)) | ((theta >= _UPPER) & (gradient > 0)))
            step = _ascent_step(gradient, hessian, free)
            length, moved = 1.0, False
            while length > 1e-12:
                trial = np.clip(theta + length * step, _LOWER, _UPPER)
                trial_value = _derivatives(trial[0], trial[1], counts, hessian=False)[0]
                if trial_value >= value + 1e-4 * float(gradient @ (trial - theta)):
                    moved = True
                    break
                length /= 2.0
            if not moved:
                break
            change = trial_value - value
            theta = trial
            value, gradient, hessian = _derivatives(theta[0], theta[1], counts, hessian=True)
            if (
                change <= 1e-15 * max(1.0, abs(value))
                and float(np.abs(step).max()) * length < 1e-13
            ):
                break
        if best is None or value > best[2]:
            best = (float(theta[0]), float(theta[1]), value)
    assert best is not None
    return best


def _fit(counts: _Counts, starts: Iterable[tuple[float, float]]) -> tuple[float, float, float]:
    """Return (mu, rho, log-likelihood); rho is NaN where it is not identified."""
    if counts.passes[0] == 0 or counts.failures[0] == 0:  # every run failed, or every run passed
        mu = 0.0 if counts.passes[0] == 0 else 1.0
        return mu, np.nan, 0.0
    if len(counts.runs) < 2:  # one run per task says nothing about correlation
        mu = float(counts.passes[0] / counts.runs[0])
        return mu, np.nan, _derivatives(mu, 0.0, counts, hessian=False)[0]
    return _maximise(counts, starts)


def _pow_k(mu: float, rho: float, ks: Ints) -> Floats:
    """``E[p^k] = prod_{i<k} a_i / d_i`` for every k; ``mu^k`` at rho = 0."""
    if mu in (0.0, 1.0):
        return np.full(len(ks), mu)
    if np.isnan(rho):
        return np.where(ks == 1, mu, np.nan)
    i = np.arange(1, int(ks.max()))
    ratios = (mu * (1 - rho) + i * rho) / ((1 - rho) + i * rho)
    running = mu * np.concatenate([[1.0], np.cumprod(ratios)])
    values: Floats = running[ks - 1]
    return values


@dataclass(frozen=True)
class BetaBinomialFit:
    """A maximum-likelihood beta-binomial fit of per-task passes, with the binomial beside it.

    Attributes
    ----------
    mean : float
        Mean chance of passing a run, ``mu = alpha / (alpha + beta)``: the
        model's pass@1.
    icc : float
        Intra-task correlation ``rho = 1 / (alpha + beta + 1)``: the
        correlation between two runs of one task; 0 means every task has the
        same chance (the binomial model), 1 that every task always passes or
        always fails. NaN when not identified (every run passed, every run
        failed, or no task has two runs).
    log_likelihood : float
        Maximised log-likelihood, including the binomial coefficients (so it
        equals the sum of :func:`scipy.stats.betabinom.logpmf` over tasks).
    binomial_log_likelihood : float
        The same for the binomial model with one chance ``binomial_mean``.
    binomial_mean : float
        Pooled passes over pooled runs, the binomial model's estimate.
    n_tasks, n_runs : int
        Tasks and runs fitted.

    See Also
    --------
    fit_betabinom : Fit the model to runs.
    """

    mean: float
    icc: float
    log_likelihood: float
    binomial_log_likelihood: float
    binomial_mean: float
    n_tasks: int
    n_runs: int
    cells: tuple[Ints, Ints, Ints] = field(repr=False)  # (n, c, tasks), for the bootstrap

    @property
    def alpha(self) -> float:
        """Beta shape ``alpha = mu (1 - rho) / rho``; inf at rho = 0."""
        return beta_shapes(self.mean, self.icc)[0]

    @property
    def beta(self) -> float:
        """Beta shape ``beta = (1 - mu)(1 - rho) / rho``; inf at rho = 0."""
        return beta_shapes(self.mean, self.icc)[1]

    @property
    def lr_statistic(self) -> float:
        """Likelihood-ratio statistic against the binomial model, ``2 (l_bb - l_binom) >= 0``."""
        return max(2.0 * (self.log_likelihood - self.binomial_log_likelihood), 0.0)

    @property
    def lr_pvalue(self) -> float:
        """P-value of the likelihood-ratio test of the binomial model (rho = 0).

        rho = 0 lies on the edge of the parameter space, so the statistic's
        null distribution is an equal mixture of a point mass at 0 and
        chi-squared with one degree of freedom (Self and Liang 1987): the
        p-value is half the chi-squared tail, and 1 when the statistic is 0.
        """
        statistic = self.lr_statistic
        # the chi-squared tail with one degree of freedom is erfc(sqrt(x / 2))
        return 0.5 * math.erfc(math.sqrt(statistic / 2.0)) if statistic > 0 else 1.0

    def pow_k(self, k: int | Iterable[int]) -> float | Floats:
        """Predict pass^k, ``E[p^k] = B(alpha + k, beta) / B(alpha, beta)``, for any k.

        Parameters
        ----------
        k : int or sequence of int
            One k or several, ``>= 1``; beyond the observed runs too.

        Returns
        -------
        float or numpy.ndarray
        """
        ks = _as_ks(k)
        values = _pow_k(self.mean, self.icc, ks)
        return float(values[0]) if isinstance(k, (int, np.integer)) else values

    def confidence_interval(
        self,
        k: int | Iterable[int],
        *,
        confidence_level: float = 0.95,
        n_resamples: int = 1000,
        rng: int | np.random.Generator | None = None,
    ) -> ConfidenceInterval:
        """Return a percentile interval of the predicted pass^k, refitting each bootstrap resample.

        Parameters
        ----------
        k : int or sequence of int
            One k or several; beyond the observed runs too.
        confidence_level : float
            In (0, 1).
        n_resamples : int
            Bootstrap resamples (each is a fit; 1,000 take about half a second).
        rng : int, numpy.random.Generator or None
            Seed or generator, for reproducible intervals.

        Returns
        -------
        ConfidenceInterval
            Floats for one k, arrays for several.
        """
        level = confidence(confidence_level)
        ks = _as_ks(k)
        generator = np.random.default_rng(rng)
        n, c, tasks = self.cells
        total = int(tasks.sum())
        weights = generator.multinomial(
            total, tasks / total, size=positive_int("n_resamples", n_resamples)
        )
        passes, failures, runs = (weights @ part for part in _indicators(n, c))
        start = (self.mean, 0.0 if np.isnan(self.icc) else self.icc)
        predictions = np.empty((len(weights), len(ks)))
        for row in range(len(weights)):
            counts = _Counts(passes[row], failures[row], runs[row])
            mu, rho, _ = _fit(counts, [start])
            predictions[row] = _pow_k(mu, rho, ks)
        tail = (1.0 - level) / 2.0
        low, high = np.quantile(predictions, [tail, 1.0 - tail], axis=0)
        if isinstance(k, (int, np.integer)):
            return ConfidenceInterval(float(low[0]), float(high[0]))
        return ConfidenceInterval(low, high)

    def to_frame(self) -> pd.DataFrame:
        """Return the fit as a one-row DataFrame, with alpha, beta and the likelihood-ratio test."""
        return pd.DataFrame(
            [
                {
                    "mean": self.mean,
                    "icc": self.icc,
                    "alpha": self.alpha,
                    "beta": self.beta,
                    "log_likelihood": self.log_likelihood,
                    "binomial_log_likelihood": self.binomial_log_likelihood,
                    "lr_statistic": self.lr_statistic,
                    "lr_pvalue": self.lr_pvalue,
                    "n_tasks": self.n_tasks,
                    "n_runs": self.n_runs,
                }
            ]
        )


def beta_shapes(mean: float, icc: float) -> tuple[float, float]:
    """Return the Beta shapes ``(alpha, beta)`` of a mean and an intra-task correlation.

    ``alpha = mean (1 - icc) / icc`` and ``beta = (1 - mean)(1 - icc) / icc``:
    both infinite at ``icc = 0`` (every task has the one chance `mean`), NaN
    where `icc` is NaN (not identified).

    Examples
    --------
    >>> [round(shape, 6) for shape in beta_shapes(0.8, 0.2)]
    [3.2, 0.8]
    """
    if np.isnan(icc):
        return np.nan, np.nan
    if icc == 0:
        return np.inf, np.inf
    scale = (1.0 - icc) / icc
    return mean * scale, (1.0 - mean) * scale


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


def _as_ks(k: int | Iterable[int]) -> Ints:
    values = [k] if isinstance(k, (int, np.integer)) else list(k)
    if not values:
        raise ValueError("give at least one k")
    return np.array([positive_int("k", value) for value in values], dtype=np.int64)


def _log_binomial(n: Ints, c: Ints) -> Floats:
    """``log C(n, c)`` for every cell, from ``math.lgamma`` of each whole number once."""
    values, where = np.unique(np.concatenate([n, c, n - c]) + 1, return_inverse=True)
    logs = np.array([math.lgamma(value) for value in values.tolist()])[where]
    size = len(n)
    difference: Floats = logs[:size] - logs[size : 2 * size] - logs[2 * size :]
    return difference


def fit_cells(n: Ints, c: Ints, tasks: Ints) -> BetaBinomialFit:
    """Fit the beta-binomial model to (n, c) cells holding `tasks` tasks each (n >= 1)."""
    counts = _Counts(*(tasks.astype(np.float64) @ part for part in _indicators(n, c)))
    pooled = float((tasks * c).sum() / (tasks * n).sum())
    mu, rho, value = _fit(counts, [(pooled, start) for start in (0.0, 0.2, 0.6)])
    binomial = _derivatives(pooled, 0.0, counts, hessian=False)[0] if 0 < pooled < 1 else 0.0
    constant = float((tasks * _log_binomial(n, c)).sum())
    return BetaBinomialFit(
        mean=mu,
        icc=rho,
        log_likelihood=value + constant,
        binomial_log_likelihood=binomial + constant,
        binomial_mean=pooled,
        n_tasks=int(tasks.sum()),
        n_runs=int((tasks * n).sum()),
        cells=(n, c, tasks),
    )
