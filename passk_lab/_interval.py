"""The interval every statistic returns, and the distributions intervals are made from.

:class:`ConfidenceInterval` is the result type of every interval in the
package. :func:`z_value` is the one place the two-sided normal critical value
is computed, from :func:`normal_quantile`; :func:`normal_cdf` is its inverse.
:func:`normal_interval` and :func:`pass_at_1_errors` are the normal interval of
a mean over tasks and the standard errors of pass@1 it uses.
:func:`beta_quantile` and :func:`clopper_pearson` are the beta quantiles and
the Clopper-Pearson limits every binomial-type interval uses;
:func:`binomial_limits` the five intervals of a proportion, for
:func:`~passk_lab.binomial_ci` and the interval policy alike.

The normal functions come from the standard library (``math.erfc`` and
:class:`statistics.NormalDist`, both accurate to a few units in the last
place); the beta quantiles from :mod:`scipy.special` (about 0.2 s to
import, where :mod:`scipy.stats` takes 0.5 s more), imported on first use.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from passk_lab._choices import BinomialMethod
from passk_lab._typing import Floats, Ints

__all__ = [
    "ConfidenceInterval",
    "beta_quantile",
    "binomial_limits",
    "clopper_pearson",
    "normal_cdf",
    "normal_interval",
    "normal_quantile",
    "pass_at_1_errors",
    "z_value",
]

_STANDARD_NORMAL = NormalDist()


class ConfidenceInterval(NamedTuple):
    """Lower and upper confidence limits: floats, or arrays of the inputs' shape."""

    low: float | Floats
    high: float | Floats


def z_value(confidence_level: float) -> float:
    """Return the two-sided standard normal critical value, 1.96 at 0.95.

    Examples
    --------
    >>> round(z_value(0.95), 4)
    1.96
    """
    return -float(normal_quantile(np.array([(1.0 - confidence_level) / 2.0]))[0])


def normal_cdf(x: npt.ArrayLike) -> Floats:
    """Return the standard normal distribution function at every `x` (NaN stays NaN).

    Examples
    --------
    >>> normal_cdf([0.0, -1.959963984540054]).round(6).tolist()
    [0.5, 0.025]
    """
    values = np.asarray(x, dtype=np.float64)
    return np.array([0.5 * math.erfc(-value / math.sqrt(2.0)) for value in values.flat]).reshape(
        values.shape
    )


def normal_quantile(p: npt.ArrayLike) -> Floats:
    """Return the standard normal quantile at every `p` in (0, 1); NaN where `p` is NaN.

    Examples
    --------
    >>> normal_quantile([0.5, 0.975]).round(6).tolist()
    [0.0, 1.959964]
    """
    values = np.asarray(p, dtype=np.float64)
    return np.array(
        [
            math.nan if math.isnan(value) else _STANDARD_NORMAL.inv_cdf(value)
            for value in values.flat
        ]
    ).reshape(values.shape)


def beta_quantile(q: npt.ArrayLike, a: npt.ArrayLike, b: npt.ArrayLike) -> Floats:
    """Return the `q` quantile of Beta(a, b), broadcast; shapes may be fractional.

    Examples
    --------
    >>> beta_quantile(0.5, 2.0, 2.0).round(6).tolist()
    0.5
    """
    from scipy import special  # the inverse regularised incomplete beta function

    shapes = (np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    quantile: Floats = np.asarray(
        special.betaincinv(*shapes, np.asarray(q, dtype=np.float64)), dtype=np.float64
    )
    return quantile


def clopper_pearson(
    successes: npt.ArrayLike, trials: npt.ArrayLike, confidence_level: float
) -> tuple[Floats, Floats]:
    """Return the Clopper-Pearson limits of `successes` in `trials` (arrays; may be fractional).

    ``low = Beta^-1(alpha / 2; x, n - x + 1)``, 0 at ``x = 0``, and
    ``high = Beta^-1(1 - alpha / 2; x + 1, n - x)``, 1 at ``x = n``: the exact
    binomial interval for whole counts, and its continuous extension for an
    effective number of trials. NaN trials give NaN limits.

    Examples
    --------
    >>> low, high = clopper_pearson([0.0, 5.0], [10.0, 10.0], 0.95)  # (lower, upper) arrays
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.1871], [0.3085, 0.8129])
    """
    x, n = np.broadcast_arrays(
        np.asarray(successes, dtype=np.float64), np.asarray(trials, dtype=np.float64)
    )
    tail = (1.0 - confidence_level) / 2.0
    # the shapes are kept positive where the limit is 0 or 1 and the quantile is not used
    low = np.where(x > 0, beta_quantile(tail, np.maximum(x, 1e-300), n - x + 1.0), 0.0)
    high = np.where(x < n, beta_quantile(1.0 - tail, x + 1.0, np.maximum(n - x, 1e-300)), 1.0)
    invalid = ~np.isfinite(n)
    return np.where(invalid, np.nan, low), np.where(invalid, np.nan, high)


def binomial_limits(
    successes: npt.ArrayLike, trials: npt.ArrayLike, confidence_level: float, method: BinomialMethod
) -> tuple[Floats, Floats]:
    """Return the limits of a binomial proportion by `method`, for checked counts (arrays).

    The methods are :func:`~passk_lab.binomial_ci`'s: ``wilson``,
    ``agresti_coull`` and ``wald`` are clipped to [0, 1]; ``jeffreys`` is 0
    at no successes and 1 at all successes.

    Examples
    --------
    >>> low, high = binomial_limits([0.0, 5.0], [10.0, 10.0], 0.95, "wilson")
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.2366], [0.2775, 0.7634])
    """
    s, t = np.broadcast_arrays(
        np.asarray(successes, dtype=np.float64), np.asarray(trials, dtype=np.float64)
    )
    tail = (1.0 - confidence_level) / 2.0
    z = z_value(confidence_level)
    p = s / t
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "clopper_pearson":
            return clopper_pearson(s, t, confidence_level)
        if method == "jeffreys":
            low = np.where(s == 0, 0.0, beta_quantile(tail, s + 0.5, t - s + 0.5))
            high = np.where(s == t, 1.0, beta_quantile(1.0 - tail, s + 0.5, t - s + 0.5))
            return low, high
        if method == "wilson":
            scale = 1.0 + z**2 / t
            center = (p + z**2 / (2 * t)) / scale
            half = z * np.sqrt(p * (1 - p) / t + z**2 / (4 * t**2)) / scale
        elif method == "agresti_coull":
            size = t + z**2
            center = (s + z**2 / 2) / size
            half = z * np.sqrt(center * (1 - center) / size)
        else:
            center = p
            half = z * np.sqrt(p * (1 - p) / t)
        return np.clip(center - half, 0.0, 1.0), np.clip(center + half, 0.0, 1.0)


def normal_interval(estimate: float, se: float, confidence_level: float) -> ConfidenceInterval:
    """Return ``estimate ± z * se`` clipped to [0, 1], for a proportion or a mean of them."""
    half = z_value(confidence_level) * se
    return ConfidenceInterval(max(estimate - half, 0.0), min(estimate + half, 1.0))


def pass_at_1_errors(n: Ints, c: Ints, tasks: Ints) -> tuple[float, float, float]:
    """Return pass@1, its clustered and its naive standard error, from (n, c) cells (n >= 1).

    The clustered error treats tasks as the units, ``sd(c_i / n_i) / sqrt(T)``;
    the naive one treats every run as independent with the one chance pass@1.
    """
    share = c / n
    total = int(tasks.sum())
    estimate = float((tasks * share).sum() / total)
    spread = float((tasks * (share - estimate) ** 2).sum())
    clustered = np.sqrt(spread / (total * (total - 1))) if total > 1 else np.nan
    naive = np.sqrt(estimate * (1 - estimate) * (tasks / n).sum()) / total
    return estimate, float(clustered), float(naive)
