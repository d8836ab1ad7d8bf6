"""The interval every statistic returns, and the normal-approximation interval of a mean.

:class:`ConfidenceInterval` is the result type of every interval in the
package. :func:`z_value` is the one place the two-sided normal critical value
is computed; :func:`normal_interval` and :func:`pass_at_1_errors` are the
normal interval of a mean over tasks and the standard errors of pass@1 it
uses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import special

from passk_lab._typing import Floats, Ints

__all__ = ["ConfidenceInterval", "normal_interval", "pass_at_1_errors", "z_value"]


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
    # the same bits as scipy.stats.norm.isf((1 - level) / 2), without importing scipy.stats
    return -float(special.ndtri((1.0 - confidence_level) / 2.0))


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
