"""Fitting the beta-binomial to (n, c) cells: the plain model, the inflated one, the choice.

:func:`fit_parameters` fits the plain beta-binomial (:mod:`passk_lab._betabinom`)
and, where the cells identify it, the zero/one-inflated one
(:mod:`passk_lab._betabinom_inflated`), chooses between them by a
likelihood-ratio test at ``LEVEL``, and checks the model chosen
(:mod:`passk_lab._goodness_of_fit`): every field of a
:class:`~passk_lab.BetaBinomialFit` but its cells. :func:`refitted_pow_k`
refits resamples of the cells, for the fit's bootstrap interval.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple, TypeAlias

import numpy as np

from passk_lab._betabinom import Counts, derivatives, fit_plain, indicators, pow_k
from passk_lab._betabinom_inflated import (
    Ends,
    end_parts,
    ends_of,
    fit_inflated,
    identified,
    model_pow_k,
    share_start,
)
from passk_lab._choices import FIT_MODELS, FitModel
from passk_lab._goodness_of_fit import UNTESTED, GoodnessOfFit, chi2_sf, goodness_of_fit
from passk_lab._typing import Floats, Ints

__all__ = [
    "LEVEL",
    "MODELS",
    "Fitted",
    "Model",
    "fit_parameters",
    "inflation_pvalue",
    "refitted_pow_k",
]

Model: TypeAlias = FitModel
MODELS: tuple[Model, ...] = FIT_MODELS
LEVEL = 0.05  # of the goodness-of-fit flag and of the choice of the inflated model


class Fitted(NamedTuple):
    """Parameters, likelihoods and check of a fit: a BetaBinomialFit but for its cells."""

    mean: float
    icc: float
    log_likelihood: float
    binomial_log_likelihood: float
    binomial_mean: float
    n_tasks: int
    n_runs: int
    model: Literal["betabinom", "inflated"]
    zero_share: float
    one_share: float
    betabinom_log_likelihood: float
    inflated_log_likelihood: float
    goodness_of_fit: GoodnessOfFit


def _log_binomial(n: Ints, c: Ints) -> Floats:
    """``log C(n, c)`` for every cell, from ``math.lgamma`` of each whole number once."""
    values, where = np.unique(np.concatenate([n, c, n - c]) + 1, return_inverse=True)
    logs = np.array([math.lgamma(value) for value in values.tolist()])[where]
    size = len(n)
    difference: Floats = logs[:size] - logs[size : 2 * size] - logs[2 * size :]
    return difference


def inflation_pvalue(statistic: float) -> float:
    """P-value of the likelihood-ratio statistic of the plain model inside the inflated one.

    The largest tail of the boundary mixture, ``(chi2_1 + chi2_2) / 2``; 1 at a statistic of 0.
    """
    if statistic <= 0:
        return 1.0
    return 0.5 * (chi2_sf(statistic, 1) + chi2_sf(statistic, 2))


def fit_parameters(n: Ints, c: Ints, tasks: Ints, model: Model = "auto") -> Fitted:
    """Fit the model `model` names to (n, c) cells of `tasks` tasks each (n >= 1), and check it.

    ``"auto"`` takes the inflated model where the likelihood-ratio test of
    the plain one inside it rejects at ``LEVEL`` (:func:`inflation_pvalue`).

    Raises
    ------
    ValueError
        If `model` is not one of :data:`MODELS`, or is ``"inflated"`` where
        the cells do not identify it.

    Examples
    --------
    >>> n, c, tasks = np.array([4, 4, 4, 4]), np.array([0, 1, 3, 4]), np.array([2, 1, 1, 2])
    >>> found = fit_parameters(n, c, tasks)
    >>> found.model, round(found.mean, 4), round(found.icc, 4)
    ('betabinom', 0.5, 0.6447)
    """
    if model not in MODELS:
        raise ValueError(
            f"model must be one of {', '.join(map(repr, MODELS))}, got {model!r}: 'auto' "
            "chooses the zero/one-inflated beta-binomial when it fits better"
        )
    counts = Counts(*(tasks.astype(np.float64) @ part for part in indicators(n, c)))
    pooled = float((tasks * c).sum() / (tasks * n).sum())
    mu, rho, value = fit_plain(counts, [(pooled, start) for start in (0.0, 0.2, 0.6)])
    binomial = derivatives(pooled, 0.0, counts, hessian=False)[0] if 0 < pooled < 1 else 0.0
    constant = float((tasks * _log_binomial(n, c)).sum())
    plain = np.array([0.0, 0.0, mu, rho])
    theta, inflated = plain, math.nan
    chosen: Literal["betabinom", "inflated"] = "betabinom"
    inflatable = not np.isnan(rho) and identified(n, c, tasks)
    if model == "inflated" and not inflatable:
        raise ValueError(
            "the zero/one-inflated model is not identified on these runs: it needs a task "
            "with both a pass and a failure and at least 4 outcome chances (sum of the "
            "distinct runs per task); fit model='betabinom' or 'auto' instead"
        )
    if model != "betabinom" and inflatable:
        ends = ends_of(n, c, tasks.astype(np.float64))
        fitted, inflated_value = fit_inflated(ends, [plain, share_start(ends)])
        inflated = inflated_value + constant
        statistic = 2.0 * (inflated_value - value)
        if model == "inflated" or inflation_pvalue(statistic) < LEVEL:
            theta, chosen = fitted, "inflated"
    if np.isnan(rho) or mu in (0.0, 1.0):
        check = UNTESTED
    else:
        check = goodness_of_fit(theta, (n, c, tasks), 1 + int(np.count_nonzero(theta[[0, 1, 3]])))
    return Fitted(
        mean=float(theta[2]),
        icc=float(theta[3]),
        log_likelihood=(inflated if chosen == "inflated" else value + constant),
        binomial_log_likelihood=binomial + constant,
        binomial_mean=pooled,
        n_tasks=int(tasks.sum()),
        n_runs=int((tasks * n).sum()),
        model=chosen,
        zero_share=float(theta[0]),
        one_share=float(theta[1]),
        betabinom_log_likelihood=value + constant,
        inflated_log_likelihood=inflated,
        goodness_of_fit=check,
    )


def refitted_pow_k(
    cells: tuple[Ints, Ints, Ints],
    theta: Floats,
    model: Literal["betabinom", "inflated"],
    weights: Floats,
    ks: Ints,
) -> Floats:
    """Return the predicted pass^k of every resample (rows) at every k, each refitted by `model`.

    `weights` holds each resample's tasks per cell (resamples x cells); each
    refit starts from ``theta = (pi0, pi1, mu, rho)``, the fit to the cells,
    and fits the model chosen for them (not chosen again).
    """
    n, c, _ = cells
    predictions = np.empty((len(weights), len(ks)))
    if model == "inflated":
        mixed, zeros, fulls = end_parts(n, c)
        parts = indicators(n, c)
        all_zeros, all_fulls = weights @ zeros, weights @ fulls
        for row, resample in enumerate(weights):
            ends = Ends(
                Counts(*((resample * mixed) @ part for part in parts)),
                all_zeros[row],
                all_fulls[row],
            )
            refitted, _ = fit_inflated(ends, [theta])
            predictions[row] = model_pow_k(refitted, ks)
        return predictions
    rho = 0.0 if np.isnan(theta[3]) else float(theta[3])
    passes, failures, runs = (weights @ part for part in indicators(n, c))
    for row in range(len(weights)):
        counts = Counts(passes[row], failures[row], runs[row])
        mu, rho_fit, _ = fit_plain(counts, [(float(theta[2]), rho)])
        predictions[row] = pow_k(mu, rho_fit, ks)
    return predictions
