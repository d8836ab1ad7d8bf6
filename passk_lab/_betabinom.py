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

**The zero/one-inflated model.** A share ``pi0`` of tasks never pass and a
share ``pi1`` always pass; the rest, ``w = 1 - pi0 - pi1``, follow the
beta-binomial. A task's likelihood is ``w P(c | n) + pi0 [c = 0] + pi1 [c =
n]``, and pass^k is ``pi1 + w E[p^k]``. Its four parameters are fitted by the
same projected Newton ascent, in ``(pi0, pi1, mu, rho)``, with the chances of
no pass and of every pass in n runs summed from the same ratios for every n at
once.

**The goodness-of-fit check.** Pearson's chi-squared statistic over the (n, c)
outcome cells, each n's cells at every c from 0 to n, expected counts
``N_n P(c | n)``. The cells are ordered by the model's mid-distribution value
``P(C < c | n) + P(c | n) / 2`` (within one n, by c), and neighbours pooled
until each pool expects at least ``_POOL`` tasks; the degrees of freedom are the
pools less one, less the parameters fitted off their edge (a share or an icc
at 0 is not counted). No draws: the same data give the same p-value, in time
linear in the cells.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TypeAlias

import numpy as np
import pandas as pd

from passk_lab._checks import confidence, positive_int
from passk_lab._choices import FIT_MODELS, FitModel
from passk_lab._interval import ConfidenceInterval
from passk_lab._summary import Shown, p_value_text, summary_html, summary_repr
from passk_lab._typing import Bools, Floats, Ints

__all__ = [
    "MODELS",
    "BetaBinomialFit",
    "GoodnessOfFit",
    "Model",
    "beta_shapes",
    "chi2_sf",
    "fit_cells",
    "outcome_chances",
]

Model: TypeAlias = FitModel
MODELS: tuple[Model, ...] = FIT_MODELS

_EDGE = 1e-12  # distance kept from mu = 0, mu = 1 and rho = 1, where the likelihood has poles
_LOWER = np.array([_EDGE, 0.0])  # the box of (mu, rho) searched
_UPPER = np.array([1.0 - _EDGE, 1.0 - _EDGE])
_MAX_STEPS = 200  # Newton steps from one start; about 20 reach the maximum to 1e-15
_NO_DERIVATIVE = np.empty(0)  # what _derivatives returns when not asked for them
_POOL = 2.0  # expected tasks a pool of outcome cells needs in the goodness-of-fit check
_LEVEL = 0.05  # of the goodness-of-fit flag and of the choice of the inflated model


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


def _model_pow_k(theta: Floats, ks: Ints) -> Floats:
    """``pi1 + (1 - pi0 - pi1) E[p^k]`` at ``theta = (pi0, pi1, mu, rho)``."""
    pi0, pi1, mu, rho = (float(value) for value in theta)
    if pi0 == 0.0 and pi1 == 0.0:
        return _pow_k(mu, rho, ks)
    return pi1 + (1.0 - pi0 - pi1) * _pow_k(mu, rho, ks)


@dataclass(frozen=True, eq=False)
class _Ends:
    """The inflated model's data: mixed tasks' counts, and tasks with no pass / every pass by n."""

    mixed: _Counts  # tasks with at least one pass and one failure
    zeros: Floats  # tasks of n runs with no pass, at index n - 1
    fulls: Floats  # tasks of n runs that passed every run, at index n - 1

    @property
    def tasks(self) -> float:
        return float(self.mixed.mixed + self.zeros.sum() + self.fulls.sum())


def _end_parts(n: Ints, c: Ints) -> tuple[Floats, Floats, Floats]:
    """Per cell: whether its tasks are mixed, and one-hot rows by n of no-pass / all-pass tasks."""
    width = int(n.max())
    by_n = (n[:, None] - 1 == np.arange(width)).astype(np.float64)
    return (
        ((c > 0) & (c < n)).astype(np.float64),
        by_n * (c == 0)[:, None],
        by_n * (c == n)[:, None],
    )


def _ends(n: Ints, c: Ints, weights: Floats) -> _Ends:
    """Return the inflated model's data for cells holding `weights` tasks each."""
    mixed, zeros, fulls = _end_parts(n, c)
    counts = _Counts(*((weights * mixed) @ part for part in _indicators(n, c)))
    return _Ends(counts, weights @ zeros, weights @ fulls)


def _end_terms(theta: Floats, ends: _Ends, *, hessian: bool) -> tuple[float, Floats, Floats]:
    """Return ``sum_n Z_n log(pi0 + w F0_n) + O_n log(pi1 + w F1_n)`` and its derivatives.

    ``Z_n`` and ``O_n`` are the tasks of n runs with no pass and with every
    pass, ``F0_n`` and ``F1_n`` the beta-binomial's chances of those, ``log
    F0_n = log(1 - mu) + sum_{0<i<n} log(b_i / d_i)`` and ``log F1_n = log(mu) +
    sum_{0<i<n} log(a_i / d_i)``: cumulative sums over i, for every n at once,
    of the terms and (with `hessian`) of their derivatives in mu and rho. The
    derivatives are in ``(pi0, pi1, mu, rho)``.
    """
    pi0, pi1, mu, rho = (float(value) for value in theta)
    weight = 1.0 - pi0 - pi1
    zeros_at, fulls_at = np.flatnonzero(ends.zeros), np.flatnonzero(ends.fulls)
    width = int(max(zeros_at.max(initial=0), fulls_at.max(initial=0))) + 1
    i = np.arange(1.0, width)
    a = mu * (1.0 - rho) + i * rho
    b = (1.0 - mu) * (1.0 - rho) + i * rho
    d = 1.0 + (i - 1.0) * rho
    log_d = np.log(d)
    terms = [np.log(b) - log_d, np.log(a) - log_d]
    firsts = [math.log(1.0 - mu), math.log(mu)]
    if hessian:
        a_rho, b_rho, d_rho = i - mu, i - 1.0 + mu, i - 1.0  # d a_i / d rho, ...
        a_mu, b_mu = (1.0 - rho) / a, -(1.0 - rho) / b  # d log a_i / d mu, ...
        dd = (d_rho / d) ** 2
        terms += [
            *(b_mu, b_rho / b - d_rho / d, -(b_mu**2), 1.0 / b - b_mu * b_rho / b),
            -((b_rho / b) ** 2) + dd,
            *(a_mu, a_rho / a - d_rho / d, -(a_mu**2), -1.0 / a - a_mu * a_rho / a),
            -((a_rho / a) ** 2) + dd,
        ]
        firsts += [-1.0 / (1.0 - mu), 0.0, -1.0 / (1.0 - mu) ** 2, 0.0, 0.0]
        firsts += [1.0 / mu, 0.0, -1.0 / mu**2, 0.0, 0.0]
    start = np.array(firsts)[:, None]
    table = np.concatenate([start, start + np.cumsum(np.array(terms), axis=1)], axis=1)
    count = np.concatenate([ends.zeros[zeros_at], ends.fulls[fulls_at]])
    chance = np.exp(np.concatenate([table[0, zeros_at], table[1, fulls_at]]))
    at_zero = np.arange(len(count)) < len(zeros_at)
    h = np.where(at_zero, pi0, pi1) + weight * chance
    value = float(count @ np.log(h))
    if not hessian:
        return value, _NO_DERIVATIVE, _NO_DERIVATIVE
    s_mu, s_rho, s_mumu, s_murho, s_rhorho = np.concatenate(
        [table[2:7, zeros_at], table[7:12, fulls_at]], axis=1
    )
    beta_part = weight * chance
    first = np.stack([at_zero - chance, ~at_zero - chance, beta_part * s_mu, beta_part * s_rho])
    q = count / h
    gradient = first @ q
    second = -(first * (q / h)) @ first.T
    cross = -(chance * np.stack([s_mu, s_rho])) @ q  # d^2 h / (d share d mu), ... over h
    second[:2, 2:] += cross
    second[2:, :2] += cross[:, None]
    inner = (
        beta_part * np.stack([s_mumu + s_mu * s_mu, s_murho + s_mu * s_rho, s_rhorho + s_rho**2])
    ) @ q
    second[2:, 2:] += np.array([[inner[0], inner[1]], [inner[1], inner[2]]])
    return value, gradient, second


def _inflated_derivatives(
    theta: Floats, ends: _Ends, *, hessian: bool
) -> tuple[float, Floats, Floats]:
    """Log-likelihood of the inflated model at ``theta = (pi0, pi1, mu, rho)``, with derivatives."""
    weight = 1.0 - float(theta[0]) - float(theta[1])
    if weight <= _EDGE:
        return -math.inf, _NO_DERIVATIVE, _NO_DERIVATIVE
    mixed = ends.mixed.mixed
    beta = _derivatives(float(theta[2]), float(theta[3]), ends.mixed, hessian=hessian)
    end_value, end_gradient, end_hessian = _end_terms(theta, ends, hessian=hessian)
    value = beta[0] + mixed * math.log(weight) + end_value
    if not hessian:
        return value, _NO_DERIVATIVE, _NO_DERIVATIVE
    gradient = end_gradient
    gradient[:2] -= mixed / weight
    gradient[2:] += beta[1]
    second = end_hessian
    second[:2, :2] -= mixed / weight**2
    second[2:, 2:] += beta[2]
    return value, gradient, second


_INFLATED_LOWER = np.array([0.0, 0.0, _EDGE, 0.0])
_INFLATED_UPPER = np.array([1.0, 1.0, 1.0 - _EDGE, 1.0 - _EDGE])


def _newton_step(gradient: Floats, hessian: Floats, free: Bools) -> Floats:
    """Newton's step in the free parameters; a scaled gradient step where the fit is not concave."""
    step = np.zeros(len(gradient))
    index = np.flatnonzero(free)
    if not index.size:
        return step
    try:  # negative definite: Newton's step goes uphill
        lower = np.linalg.cholesky(-hessian[np.ix_(index, index)])
    except np.linalg.LinAlgError:
        curvature = np.diag(hessian)[index]
        scale = 1.0 / np.maximum(np.abs(curvature), 1.0)
        negative = curvature < 0
        scale[negative] = -1.0 / curvature[negative]
        step[index] = gradient[index] * scale
        return step
    step[index] = np.linalg.solve(lower.T, np.linalg.solve(lower, gradient[index]))
    return step


def _maximise_inflated(ends: _Ends, starts: Iterable[Floats]) -> tuple[Floats, float]:
    """Return ``(pi0, pi1, mu, rho)`` and the log-likelihood at the inflated model's maximum.

    The projected Newton ascent of :func:`_maximise` in four parameters: a
    parameter at a bound of the box with its gradient pointing out stays
    there (a share at 0 is the plain beta-binomial's end), the others take
    Newton's step, and a backtracking line search keeps every step uphill
    and the beta-binomial's share ``1 - pi0 - pi1`` positive.
    """
    best: tuple[Floats, float] | None = None
    for start in starts:
        theta = np.clip(start, _INFLATED_LOWER, _INFLATED_UPPER)
        value, gradient, hessian = _inflated_derivatives(theta, ends, hessian=True)
        for _ in range(_MAX_STEPS):
            free = ~(
                ((theta <= _INFLATED_LOWER) & (gradient < 0))
                | ((theta >= _INFLATED_UPPER) & (gradient > 0))
            )
            step = _newton_step(gradient, hessian, free)
            length, moved = 1.0, False
            while length > 1e-12:
                trial = np.clip(theta + length * step, _INFLATED_LOWER, _INFLATED_UPPER)
                # the full step is usually taken: its derivatives are the next iteration's
                found = _inflated_derivatives(trial, ends, hessian=length == 1.0)
                if found[0] >= value + 1e-4 * float(gradient @ (trial - theta)):
                    moved = True
                    break
                length /= 2.0
            if not moved:
                break
            change = found[0] - value
            theta = trial
            if length < 1.0:
                found = _inflated_derivatives(theta, ends, hessian=True)
            value, gradient, hessian = found
            if (
                change <= 1e-15 * max(1.0, abs(value))
                and float(np.abs(step).max()) * length < 1e-10
            ):
                break
        if best is None or value > best[1]:
            best = (theta, value)
    assert best is not None
    return best


def _share_start(ends: _Ends) -> Floats:
    """Return a start near the observed shares at each end, the beta part at the mixed mean."""
    total = ends.tasks
    mixed = ends.mixed
    return np.array(
        [
            0.9 * float(ends.zeros.sum()) / total,
            0.9 * float(ends.fulls.sum()) / total,
            float(mixed.passes.sum() / mixed.runs.sum()),
            0.05,
        ]
    )


def _fit_inflated(ends: _Ends, starts: list[Floats]) -> tuple[Floats, float]:
    """Return the inflated model's ``(pi0, pi1, mu, rho)`` and log-likelihood (no binomial terms).

    With no task at either end the maximum is the first start with both
    shares at 0 (each share's score there is negative), returned unsearched.
    """
    if not (ends.zeros.any() or ends.fulls.any()):
        plain = np.concatenate([[0.0, 0.0], starts[0][2:]])
        return plain, _inflated_derivatives(plain, ends, hessian=False)[0]
    return _maximise_inflated(ends, starts)


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


_UNTESTED = GoodnessOfFit(math.nan, 0, math.nan)


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


def _goodness_of_fit(theta: Floats, cells: tuple[Ints, Ints, Ints], fitted: int) -> GoodnessOfFit:
    """Pearson's statistic over pooled outcome cells (see the module's notes)."""
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
    while total - reached >= _POOL:  # greedy pools of at least _POOL expected tasks
        end = int(np.searchsorted(running, reached + _POOL, side="left"))
        ends.append(end)
        reached = running[end]
    if not ends:
        return _UNTESTED
    ends[-1] = len(running) - 1  # what is left joins the last pool
    cuts = np.array(ends) + 1
    pooled_expected = np.diff(np.concatenate([[0.0], running[cuts - 1]]))
    pooled_observed = np.add.reduceat(observed[order], np.concatenate([[0], cuts[:-1]]))
    statistic = float(((pooled_observed - pooled_expected) ** 2 / pooled_expected).sum())
    df = len(cuts) - 1 - fitted
    if df < 1:
        return GoodnessOfFit(statistic, 0, math.nan)
    return GoodnessOfFit(statistic, df, chi2_sf(statistic, df))


@dataclass(frozen=True)
class BetaBinomialFit:
    """A maximum-likelihood beta-binomial fit of per-task passes, with the binomial beside it.

    The fitted model is the plain beta-binomial or its zero/one-inflated
    version (`model`), chosen as :func:`fit_betabinom` says.

    Attributes
    ----------
    mean : float
        Mean chance of passing a run of the beta part, ``mu = alpha / (alpha +
        beta)``: the model's pass@1 in the plain model. With point masses the
        model's pass@1 is ``pow_k(1) = one_share + (1 - zero_share -
        one_share) * mean``.
    icc : float
        Intra-task correlation of the beta part, ``rho = 1 / (alpha + beta +
        1)``: the correlation between two runs of one task; 0 means every
        task has the same chance (the binomial model), 1 that every task
        always passes or always fails. NaN when not identified (every run
        passed, every run failed, or no task has two runs).
    log_likelihood : float
        Maximised log-likelihood of the model chosen, including the binomial
        coefficients (so for the plain model it equals the sum of
        :func:`scipy.stats.betabinom.logpmf` over tasks).
    binomial_log_likelihood : float
        The same for the binomial model with one chance ``binomial_mean``.
    binomial_mean : float
        Pooled passes over pooled runs, the binomial model's estimate.
    n_tasks, n_runs : int
        Tasks and runs fitted.
    model : {"betabinom", "inflated"}
        The model fitted: the plain beta-binomial, or with point masses at
        tasks that never pass and tasks that always pass.
    zero_share, one_share : float
        The inflated model's shares ``pi0`` of tasks that never pass and
        ``pi1`` of tasks that always pass; 0 in the plain model.
    betabinom_log_likelihood : float
        Maximised log-likelihood of the plain beta-binomial (the one
        `lr_pvalue` tests against the binomial).
    inflated_log_likelihood : float
        Maximised log-likelihood of the inflated model: the plain one's when
        no task passed 0 or all of its runs (the shares are then 0); NaN where
        it was not fitted (too few outcome cells or no task with both a pass
        and a failure to identify it, or ``model="betabinom"``).
    goodness_of_fit : GoodnessOfFit
        Pearson's chi-squared check of the model chosen against the (n, c)
        histogram of tasks: ``statistic``, ``df``, ``p_value`` (see Notes).

    See Also
    --------
    fit_betabinom : Fit the model to runs.

    Notes
    -----
    The goodness-of-fit check compares the tasks observed at each (n, c)
    with the tasks the model expects there, ``N_n P(c | n)`` for the ``N_n``
    tasks of n runs, for every c from 0 to n. Cells are ordered by the
    model's mid-distribution value ``P(C < c | n) + P(c | n) / 2`` (within
    one n, by c; across n, cells at the same place in their distributions
    come together) and neighbours are pooled until each pool expects at least
    2 tasks. The statistic is Pearson's sum over pools and its reference is
    chi-squared with the pools less one, less the parameters fitted off the
    edge of their range (the mean; the icc when above 0; each share when
    above 0), degrees of freedom. The cost is linear in the
    cells, with no random draws. Under the model it rejects about 4% of
    fits at 0.05 on 40-150 tasks of 5 or 10 runs, fewer (about 1%) when
    tasks have unequal runs; with 5 runs it finds a mixture (30%
    of tasks always pass, the rest at 0.6) in about half of 80-task sets
    (``study/betabinom_prediction.py`` measures its size and power). With
    too few pools to test (``df == 0``, e.g. a handful of tasks) the p-value
    is NaN and the fit is not `rejected`.
    """

    mean: float
    icc: float
    log_likelihood: float
    binomial_log_likelihood: float
    binomial_mean: float
    n_tasks: int
    n_runs: int
    cells: tuple[Ints, Ints, Ints] = field(repr=False)  # (n, c, tasks), for the bootstrap
    model: Literal["betabinom", "inflated"]
    zero_share: float
    one_share: float
    betabinom_log_likelihood: float
    inflated_log_likelihood: float
    goodness_of_fit: GoodnessOfFit

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
        """Likelihood-ratio statistic of the plain beta-binomial against the binomial, ``>= 0``."""
        return max(2.0 * (self.betabinom_log_likelihood - self.binomial_log_likelihood), 0.0)

    @property
    def lr_pvalue(self) -> float:
        """P-value of the likelihood-ratio test of the binomial model (rho = 0).

        rho = 0 lies on the edge of the parameter space, so the statistic's
        null distribution is an equal mixture of a point mass at 0 and
        chi-squared with one degree of freedom (Self and Liang 1987): the
        p-value is half the chi-squared tail, and 1 when the statistic is 0.
        """
        statistic = self.lr_statistic
        return 0.5 * chi2_sf(statistic, 1) if statistic > 0 else 1.0

    @property
    def inflation_pvalue(self) -> float:
        """P-value of the likelihood-ratio test of the plain model inside the inflated one.

        The plain model is the inflated one with both shares at 0, on the
        edge of the parameter space: the statistic's null distribution is a
        mixture of chi-squared with 0, 1 and 2 degrees of freedom whose
        weights depend on how the two shares' estimates correlate, and the
        weight of 1 is 1/2 whatever the correlation. The p-value takes the
        largest tail of them, ``(chi2_1 + chi2_2) / 2``, so it errs towards
        the plain model. NaN where the inflated model was not fitted.
        """
        if math.isnan(self.inflated_log_likelihood):
            return math.nan
        return _inflation_pvalue(
            2.0 * (self.inflated_log_likelihood - self.betabinom_log_likelihood)
        )

    @property
    def rejected(self) -> bool:
        """Whether the goodness-of-fit check rejects the model at the 0.05 level.

        Predictions past the observed runs rest on the model's shape; when it
        is rejected they are not to be trusted, even where the measured
        pass^k and the model agree inside the runs observed. False when the
        check could not be made (``goodness_of_fit.df == 0``).
        """
        return bool(self.goodness_of_fit.p_value < _LEVEL)

    def pow_k(self, k: int | Iterable[int]) -> float | Floats:
        """Predict pass^k, ``pi1 + (1 - pi0 - pi1) B(alpha + k, beta) / B(alpha, beta)``, for any k.

        In the plain model the shares are 0 and this is ``E[p^k]``.

        Parameters
        ----------
        k : int or sequence of int
            One k or several, ``>= 1``; beyond the observed runs too.

        Returns
        -------
        float or numpy.ndarray
        """
        ks = _as_ks(k)
        values = _model_pow_k(self._theta, ks)
        return float(values[0]) if isinstance(k, (int, np.integer)) else values

    @property
    def _theta(self) -> Floats:
        return np.array([self.zero_share, self.one_share, self.mean, self.icc])

    def confidence_interval(
        self,
        k: int | Iterable[int],
        *,
        confidence_level: float = 0.95,
        n_resamples: int = 1000,
        rng: int | np.random.Generator | None = None,
    ) -> ConfidenceInterval:
        """Return a percentile interval of the predicted pass^k, refitting each bootstrap resample.

        Each resample of tasks is refitted with the model chosen for the data
        (`model`), not chosen again.

        Parameters
        ----------
        k : int or sequence of int
            One k or several; beyond the observed runs too.
        confidence_level : float
            In (0, 1).
        n_resamples : int
            Bootstrap resamples (each is a fit; 1,000 take about half a second
            for the plain model, a few seconds for the inflated one).
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
        ).astype(np.float64)
        predictions = np.empty((len(weights), len(ks)))
        rho = 0.0 if np.isnan(self.icc) else self.icc
        if self.model == "inflated":
            mixed, zeros, fulls = _end_parts(n, c)
            indicators = _indicators(n, c)
            all_zeros, all_fulls = weights @ zeros, weights @ fulls
            for row, resample in enumerate(weights):
                ends = _Ends(
                    _Counts(*((resample * mixed) @ part for part in indicators)),
                    all_zeros[row],
                    all_fulls[row],
                )
                theta, _ = _fit_inflated(ends, [self._theta])
                predictions[row] = _model_pow_k(theta, ks)
        else:
            passes, failures, runs = (weights @ part for part in _indicators(n, c))
            for row in range(len(weights)):
                counts = _Counts(passes[row], failures[row], runs[row])
                mu, rho_fit, _ = _fit(counts, [(self.mean, rho)])
                predictions[row] = _pow_k(mu, rho_fit, ks)
        tail = (1.0 - level) / 2.0
        low, high = np.quantile(predictions, [tail, 1.0 - tail], axis=0)
        if isinstance(k, (int, np.integer)):
            return ConfidenceInterval(float(low[0]), float(high[0]))
        return ConfidenceInterval(low, high)

    def __repr__(self) -> str:
        """Return one line: the model, its parameters, the test against the binomial, the counts.

        With tasks that never and always pass (``model="inflated"``) ``mean``
        and ``icc`` are the Beta part's, and ``pass_at_1`` (after the shares)
        is the model's chance of a pass, :meth:`pow_k` at 1.

        Examples
        --------
        >>> import passk_lab as pk
        >>> pk.fit_betabinom(pk.simulate_coin(seed=42))
        BetaBinomialFit(model='betabinom', mean=0.86, icc=0, alpha=inf, beta=inf,
                        lr_pvalue=1.000, n_tasks=40, n_runs=200)
        """
        fields: list[tuple[str, object]] = [
            ("model", self.model),
            ("mean", self.mean),
            ("icc", self.icc),
            ("alpha", self.alpha),
            ("beta", self.beta),
        ]
        if self.model == "inflated":
            fields += [
                ("zero_share", self.zero_share),
                ("one_share", self.one_share),
                ("pass_at_1", self.pow_k(1)),
            ]
        fields += [
            ("lr_pvalue", Shown(p_value_text(self.lr_pvalue) or "nan")),
            ("n_tasks", self.n_tasks),
            ("n_runs", self.n_runs),
        ]
        return summary_repr(type(self).__name__, fields)

    def _repr_html_(self) -> str:
        """Return the fit as an HTML table, for Jupyter: parameters, likelihoods, tests, counts.

        An infinite alpha and beta (icc 0) read as what they mean, tasks alike.
        With tasks that never and always pass the mean and the icc are labelled
        the Beta part's, and the model's pass@1 (:meth:`pow_k` at 1) follows the
        shares.

        Examples
        --------
        >>> import passk_lab as pk
        >>> "tasks alike" in pk.fit_betabinom(pk.simulate_coin(seed=42))._repr_html_()
        True
        """
        inflated = self.model == "inflated"
        rows: list[tuple[str, object]] = [
            ("model", _MODEL_NAMES[self.model]),
            ("mean of the Beta part (mu)" if inflated else "mean chance of a pass (mu)", self.mean),
            (
                "icc of the Beta part" if inflated else "intra-task correlation (icc)",
                _or_unidentified(self.icc),
            ),
            ("alpha", _shape(self.alpha)),
            ("beta", _shape(self.beta)),
        ]
        if inflated:
            rows += [
                ("share of tasks that never pass", self.zero_share),
                ("share of tasks that always pass", self.one_share),
                ("chance of a pass (pass@1 of the model)", self.pow_k(1)),
            ]
        rows += [
            ("log-likelihood", f"{self.log_likelihood:.2f}"),
            ("binomial log-likelihood", f"{self.binomial_log_likelihood:.2f}"),
        ]
        if self.model == "inflated":
            rows.append(("beta-binomial log-likelihood", f"{self.betabinom_log_likelihood:.2f}"))
        rows.append(("LR test p (binomial, icc 0)", _p_text(self.lr_pvalue)))
        if self.model == "inflated":
            rows.append(("LR test p (no inflation)", _p_text(self.inflation_pvalue)))
        fit = _p_text(self.goodness_of_fit.p_value, "not tested (too few outcome cells)")
        rows += [
            ("goodness-of-fit p", fit + (" (rejected)" if self.rejected else "")),
            ("tasks", self.n_tasks),
            ("runs", self.n_runs),
        ]
        return summary_html(type(self).__name__, rows)

    def to_frame(self) -> pd.DataFrame:
        """Return the fit as a one-row DataFrame: parameters, likelihoods, tests and the check.

        The model fitted is the column ``fitted_model`` (a runs table's
        ``model`` column, naming the agent's model, is often a group key).
        """
        statistic, df, p_value = self.goodness_of_fit
        return pd.DataFrame(
            [
                {
                    "mean": self.mean,
                    "icc": self.icc,
                    "alpha": self.alpha,
                    "beta": self.beta,
                    "fitted_model": self.model,
                    "zero_share": self.zero_share,
                    "one_share": self.one_share,
                    "log_likelihood": self.log_likelihood,
                    "binomial_log_likelihood": self.binomial_log_likelihood,
                    "lr_statistic": self.lr_statistic,
                    "lr_pvalue": self.lr_pvalue,
                    "inflation_pvalue": self.inflation_pvalue,
                    "gof_statistic": statistic,
                    "gof_df": df,
                    "gof_pvalue": p_value,
                    "rejected": self.rejected,
                    "n_tasks": self.n_tasks,
                    "n_runs": self.n_runs,
                }
            ]
        )


_MODEL_NAMES = {
    "betabinom": "beta-binomial",
    "inflated": "beta-binomial with tasks that never and always pass",
}
"""How each model reads in a summary."""


def _or_unidentified(value: float) -> object:
    return "not identified" if math.isnan(value) else value


def _shape(value: float) -> object:
    """Return a Beta shape for a summary: infinite when every task has the one chance."""
    return "\N{INFINITY} (tasks alike)" if math.isinf(value) else _or_unidentified(value)


def _p_text(value: float, missing: str = "not computed") -> str:
    return missing if math.isnan(value) else p_value_text(value)


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


def _identified(n: Ints, c: Ints, tasks: Ints) -> bool:
    """Whether the inflated model's four parameters are identified by these cells.

    It needs a task with both a pass and a failure (for the beta part) and at
    least four free outcome chances, ``sum n`` over the distinct n.
    """
    return bool(np.any((c > 0) & (c < n) & (tasks > 0))) and int(np.unique(n).sum()) >= 4


def _inflation_pvalue(statistic: float) -> float:
    """P-value of the likelihood-ratio statistic of the plain model inside the inflated one.

    The largest tail of the boundary mixture, ``(chi2_1 + chi2_2) / 2``; 1 at a statistic of 0.
    """
    if statistic <= 0:
        return 1.0
    return 0.5 * (chi2_sf(statistic, 1) + chi2_sf(statistic, 2))


def fit_cells(n: Ints, c: Ints, tasks: Ints, *, model: Model = "auto") -> BetaBinomialFit:
    """Fit the model (see :func:`fit_betabinom`) to (n, c) cells of `tasks` tasks each (n >= 1)."""
    if model not in MODELS:
        raise ValueError(
            f"model must be one of {', '.join(map(repr, MODELS))}, got {model!r}: 'auto' "
            "chooses the zero/one-inflated beta-binomial when it fits better"
        )
    counts = _Counts(*(tasks.astype(np.float64) @ part for part in _indicators(n, c)))
    pooled = float((tasks * c).sum() / (tasks * n).sum())
    mu, rho, value = _fit(counts, [(pooled, start) for start in (0.0, 0.2, 0.6)])
    binomial = _derivatives(pooled, 0.0, counts, hessian=False)[0] if 0 < pooled < 1 else 0.0
    constant = float((tasks * _log_binomial(n, c)).sum())
    plain = np.array([0.0, 0.0, mu, rho])
    theta, inflated = plain, math.nan
    chosen: Literal["betabinom", "inflated"] = "betabinom"
    identified = not np.isnan(rho) and _identified(n, c, tasks)
    if model == "inflated" and not identified:
        raise ValueError(
            "the zero/one-inflated model is not identified on these runs: it needs a task "
            "with both a pass and a failure and at least 4 outcome chances (sum of the "
            "distinct runs per task); fit model='betabinom' or 'auto' instead"
        )
    if model != "betabinom" and identified:
        ends = _ends(n, c, tasks.astype(np.float64))
        fitted, inflated_value = _fit_inflated(ends, [plain, _share_start(ends)])
        inflated = inflated_value + constant
        statistic = 2.0 * (inflated_value - value)
        if model == "inflated" or _inflation_pvalue(statistic) < _LEVEL:
            theta, chosen = fitted, "inflated"
    if np.isnan(rho) or mu in (0.0, 1.0):
        check = _UNTESTED
    else:
        check = _goodness_of_fit(theta, (n, c, tasks), 1 + int(np.count_nonzero(theta[[0, 1, 3]])))
    return BetaBinomialFit(
        mean=float(theta[2]),
        icc=float(theta[3]),
        log_likelihood=(inflated if chosen == "inflated" else value + constant),
        binomial_log_likelihood=binomial + constant,
        binomial_mean=pooled,
        n_tasks=int(tasks.sum()),
        n_runs=int((tasks * n).sum()),
        cells=(n, c, tasks),
        model=chosen,
        zero_share=float(theta[0]),
        one_share=float(theta[1]),
        betabinom_log_likelihood=value + constant,
        inflated_log_likelihood=inflated,
        goodness_of_fit=check,
    )
