"""The zero/one-inflated beta-binomial: tasks that never pass and tasks that always pass.

A share ``pi0`` of tasks never pass and a share ``pi1`` always pass; the rest,
``w = 1 - pi0 - pi1``, follow the plain beta-binomial of
:mod:`passk_lab._betabinom`. A task's likelihood is ``w P(c | n) + pi0 [c = 0]
+ pi1 [c = n]``, and pass^k is ``pi1 + w E[p^k]``. Its four parameters
``theta = (pi0, pi1, mu, rho)`` are fitted by the same projected Newton ascent,
with the chances of no pass and of every pass in n runs summed from the same
ratios for every n at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from passk_lab._betabinom import (
    EDGE,
    MAX_STEPS,
    NO_DERIVATIVE,
    Counts,
    derivatives,
    indicators,
    pow_k,
)
from passk_lab._typing import Bools, Floats, Ints

__all__ = [
    "Ends",
    "end_parts",
    "ends_of",
    "fit_inflated",
    "identified",
    "model_pow_k",
    "share_start",
]


def model_pow_k(theta: Floats, ks: Ints) -> Floats:
    """``pi1 + (1 - pi0 - pi1) E[p^k]`` at ``theta = (pi0, pi1, mu, rho)``."""
    pi0, pi1, mu, rho = (float(value) for value in theta)
    if pi0 == 0.0 and pi1 == 0.0:
        return pow_k(mu, rho, ks)
    return pi1 + (1.0 - pi0 - pi1) * pow_k(mu, rho, ks)


@dataclass(frozen=True, eq=False)
class Ends:
    """The inflated model's data: mixed tasks' counts, and tasks with no pass / every pass by n."""

    mixed: Counts  # tasks with at least one pass and one failure
    zeros: Floats  # tasks of n runs with no pass, at index n - 1
    fulls: Floats  # tasks of n runs that passed every run, at index n - 1

    @property
    def tasks(self) -> float:
        return float(self.mixed.mixed + self.zeros.sum() + self.fulls.sum())


def end_parts(n: Ints, c: Ints) -> tuple[Floats, Floats, Floats]:
    """Per cell: whether its tasks are mixed, and one-hot rows by n of no-pass / all-pass tasks."""
    width = int(n.max())
    by_n = (n[:, None] - 1 == np.arange(width)).astype(np.float64)
    return (
        ((c > 0) & (c < n)).astype(np.float64),
        by_n * (c == 0)[:, None],
        by_n * (c == n)[:, None],
    )


def ends_of(n: Ints, c: Ints, weights: Floats) -> Ends:
    """Return the inflated model's data for cells holding `weights` tasks each."""
    mixed, zeros, fulls = end_parts(n, c)
    counts = Counts(*((weights * mixed) @ part for part in indicators(n, c)))
    return Ends(counts, weights @ zeros, weights @ fulls)


def _end_terms(theta: Floats, ends: Ends, *, hessian: bool) -> tuple[float, Floats, Floats]:
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
        return value, NO_DERIVATIVE, NO_DERIVATIVE
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


def _inflatedderivatives(
    theta: Floats, ends: Ends, *, hessian: bool
) -> tuple[float, Floats, Floats]:
    """Log-likelihood of the inflated model at ``theta = (pi0, pi1, mu, rho)``, with derivatives."""
    weight = 1.0 - float(theta[0]) - float(theta[1])
    if weight <= EDGE:
        return -math.inf, NO_DERIVATIVE, NO_DERIVATIVE
    mixed = ends.mixed.mixed
    beta = derivatives(float(theta[2]), float(theta[3]), ends.mixed, hessian=hessian)
    end_value, end_gradient, end_hessian = _end_terms(theta, ends, hessian=hessian)
    value = beta[0] + mixed * math.log(weight) + end_value
    if not hessian:
        return value, NO_DERIVATIVE, NO_DERIVATIVE
    gradient = end_gradient
    gradient[:2] -= mixed / weight
    gradient[2:] += beta[1]
    second = end_hessian
    second[:2, :2] -= mixed / weight**2
    second[2:, 2:] += beta[2]
    return value, gradient, second


_LOWER = np.array([0.0, 0.0, EDGE, 0.0])
_UPPER = np.array([1.0, 1.0, 1.0 - EDGE, 1.0 - EDGE])


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


def _maximise_inflated(ends: Ends, starts: Iterable[Floats]) -> tuple[Floats, float]:
    """Return ``(pi0, pi1, mu, rho)`` and the log-likelihood at the inflated model's maximum.

    The projected Newton ascent of the plain model (:mod:`passk_lab._betabinom`) in four
    parameters: a
    parameter at a bound of the box with its gradient pointing out stays
    there (a share at 0 is the plain beta-binomial's end), the others take
    Newton's step, and a backtracking line search keeps every step uphill
    and the beta-binomial's share ``1 - pi0 - pi1`` positive.
    """
    best: tuple[Floats, float] | None = None
    for start in starts:
        theta = np.clip(start, _LOWER, _UPPER)
        value, gradient, hessian = _inflatedderivatives(theta, ends, hessian=True)
        for _ in range(MAX_STEPS):
            free = ~(((theta <= _LOWER) & (gradient < 0)) | ((theta >= _UPPER) & (gradient > 0)))
            step = _newton_step(gradient, hessian, free)
            length, moved = 1.0, False
            while length > 1e-12:
                trial = np.clip(theta + length * step, _LOWER, _UPPER)
                # the full step is usually taken: its derivatives are the next iteration's
                found = _inflatedderivatives(trial, ends, hessian=length == 1.0)
                if found[0] >= value + 1e-4 * float(gradient @ (trial - theta)):
                    moved = True
                    break
                length /= 2.0
            if not moved:
                break
            change = found[0] - value
            theta = trial
            if length < 1.0:
                found = _inflatedderivatives(theta, ends, hessian=True)
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


def share_start(ends: Ends) -> Floats:
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


def fit_inflated(ends: Ends, starts: list[Floats]) -> tuple[Floats, float]:
    """Return the inflated model's ``(pi0, pi1, mu, rho)`` and log-likelihood (no binomial terms).

    With no task at either end the maximum is the first start with both
    shares at 0 (each share's score there is negative), returned unsearched.
    """
    if not (ends.zeros.any() or ends.fulls.any()):
        plain = np.concatenate([[0.0, 0.0], starts[0][2:]])
        return plain, _inflatedderivatives(plain, ends, hessian=False)[0]
    return _maximise_inflated(ends, starts)


def identified(n: Ints, c: Ints, tasks: Ints) -> bool:
    """Whether the inflated model's four parameters are identified by these cells.

    It needs a task with both a pass and a failure (for the beta part) and at
    least four free outcome chances, ``sum n`` over the distinct n.
    """
    return bool(np.any((c > 0) & (c < n) & (tasks > 0))) and int(np.unique(n).sum()) >= 4
