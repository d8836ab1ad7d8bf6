"""The plain beta-binomial model: its likelihood in (mu, rho), and the Newton ascent to its maximum.

Each task's chance of passing a run is drawn from one Beta(alpha, beta), and
its runs are independent given that chance. In the mean ``mu = alpha / (alpha
+ beta)`` and the intra-task correlation ``rho = 1 / (alpha + beta + 1)``, the
likelihood of a task with c passes of n runs is a product of ratios, ``C(n, c)
prod_{i<c} a_i prod_{i<n-c} b_i / prod_{i<n} d_i`` with ``a_i = mu (1 - rho) +
i rho``, ``b_i = (1 - mu)(1 - rho) + i rho``, ``d_i = (1 - rho) + i rho``:
exact at ``rho = 0`` (the binomial) and summed over the (n, c) cells through
:class:`Counts`. docs/uncertainty.md ("The beta-binomial fit") derives it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from passk_lab._typing import Bools, Floats, Ints

__all__ = [
    "EDGE",
    "MAX_STEPS",
    "NO_DERIVATIVE",
    "Counts",
    "beta_shapes",
    "derivatives",
    "fit_plain",
    "indicators",
    "pow_k",
]

EDGE = 1e-12  # distance kept from mu = 0, mu = 1 and rho = 1, where the likelihood has poles
_LOWER = np.array([EDGE, 0.0])  # the box of (mu, rho) searched
_UPPER = np.array([1.0 - EDGE, 1.0 - EDGE])
MAX_STEPS = 200  # Newton steps from one start; about 20 reach the maximum to 1e-15
NO_DERIVATIVE = np.empty(0)  # what derivatives returns when not asked for them


@dataclass(frozen=True, eq=False)
class Counts:
    """Tasks with more than i passes (A), failures (B) and runs (D), for i = 0, 1, ..."""

    passes: Floats
    failures: Floats
    runs: Floats

    @property
    def mixed(self) -> float:
        """Tasks with at least one pass and one failure."""
        return float(self.passes[0] + self.failures[0] - self.runs[0])


def indicators(n: Ints, c: Ints) -> tuple[Floats, Floats, Floats]:
    """Per cell and i < max n: ``c > i``, ``n - c > i``, ``n > i``."""
    i = np.arange(int(n.max()))
    return (
        (c[:, None] > i).astype(np.float64),
        ((n - c)[:, None] > i).astype(np.float64),
        (n[:, None] > i).astype(np.float64),
    )


def derivatives(
    mu: float, rho: float, counts: Counts, *, hessian: bool
) -> tuple[float, Floats, Floats]:
    """Return the log-likelihood in (mu, rho), and its gradient and Hessian if `hessian`.

    Every term is ``count * log(x)`` with ``x`` one of ``mu``, ``1 - mu``,
    ``1 - rho``, ``a_i``, ``b_i``, ``d_i``: linear in each parameter, with
    ``d^2 a_i / (d mu d rho) = -1`` and ``d^2 b_i / (d mu d rho) = 1``. Inside
    the box kept by ``EDGE`` every ``x`` is positive, so no term needs a guard.
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
        return value, NO_DERIVATIVE, NO_DERIVATIVE
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


def _maximise(counts: Counts, starts: Iterable[tuple[float, float]]) -> tuple[float, float, float]:
    """Return (mu, rho, log-likelihood) at the maximum, over a few starting points.

    Projected Newton in the box ``[EDGE, 1 - EDGE] x [0, 1 - EDGE]``: a
    parameter at a bound with its gradient pointing out of the box stays
    there (rho = 0 is where the binomial model fits best), the others take
    Newton's step, and a backtracking line search keeps every step uphill.
    The likelihood need not be concave in rho, hence several starts.
    """
    best: tuple[float, float, float] | None = None
    for start in starts:
        theta = np.clip(np.array(start, dtype=np.float64), _LOWER, _UPPER)
        value, gradient, hessian = derivatives(theta[0], theta[1], counts, hessian=True)
        for _ in range(MAX_STEPS):
            free = ~(((theta <= _LOWER) & (gradient < 0)) | ((theta >= _UPPER) & (gradient > 0)))
            step = _ascent_step(gradient, hessian, free)
            length, moved = 1.0, False
            while length > 1e-12:
                trial = np.clip(theta + length * step, _LOWER, _UPPER)
                trial_value = derivatives(trial[0], trial[1], counts, hessian=False)[0]
                if trial_value >= value + 1e-4 * float(gradient @ (trial - theta)):
                    moved = True
                    break
                length /= 2.0
            if not moved:
                break
            change = trial_value - value
            theta = trial
            value, gradient, hessian = derivatives(theta[0], theta[1], counts, hessian=True)
            if (
                change <= 1e-15 * max(1.0, abs(value))
                and float(np.abs(step).max()) * length < 1e-13
            ):
                break
        if best is None or value > best[2]:
            best = (float(theta[0]), float(theta[1]), value)
    assert best is not None
    return best


def fit_plain(counts: Counts, starts: Iterable[tuple[float, float]]) -> tuple[float, float, float]:
    """Return (mu, rho, log-likelihood); rho is NaN where it is not identified."""
    if counts.passes[0] == 0 or counts.failures[0] == 0:  # every run failed, or every run passed
        mu = 0.0 if counts.passes[0] == 0 else 1.0
        return mu, np.nan, 0.0
    if len(counts.runs) < 2:  # one run per task says nothing about correlation
        mu = float(counts.passes[0] / counts.runs[0])
        return mu, np.nan, derivatives(mu, 0.0, counts, hessian=False)[0]
    return _maximise(counts, starts)


def pow_k(mu: float, rho: float, ks: Ints) -> Floats:
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
