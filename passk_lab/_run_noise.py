"""Each task's run-to-run noise: the variance of its estimate from r runs, estimated without bias.

With ``C ~ Binomial(r, p_i)`` the passes of task ``i`` in one evaluation of r
runs, its estimate is ``f(C)``: ``C / r`` (pass@1), ``C(C, k) / C(r, k)``
(pass^k) or ``1 - C(r - C, k) / C(r, k)`` (pass@k). :func:`task_variances`
estimates ``Var f(C)`` of every (n, c) cell without bias from its observed
runs (U-statistics), for :func:`~passk_lab.noise_floor`; docs/leaderboards.md
("The noise floor, derived") gives the estimator.
"""

from __future__ import annotations

import numpy as np

from passk_lab._data.cells import Cells, pass_at_k_values, pass_pow_k_values, products
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import FewRunsWarning, warn

__all__ = ["CELL_BYTES", "task_variances", "warn_floor"]

CELL_BYTES = 64
"""Bytes the noise floor holds per (row, column) of its (cells + r + 1) x 2r arrays: about
eight float64 arrays at once (the hypergeometric weights of the cells, the estimates of every
run count j at every k, the products of ratios up to 2k, the variances)."""


def task_variances(n: Ints, c: Ints, r: int, ks: Ints, metrics: list[str]) -> Floats:
    """Unbiased estimates of each cell's ``Var f(C)``, ``C ~ Binomial(r, p)``, per column.

    NaN where the cell has fewer than ``max(r, 2k)`` runs.
    """
    from scipy.special import gammaln  # the log binomial coefficients of the weights

    draws = np.arange(r + 1)
    everyone = np.full(r + 1, r, dtype=np.int64)
    pow_k = pass_pow_k_values(everyone, draws, ks)  # f(j) for pass^k (pass@1 at k = 1)
    at_k = pass_at_k_values(everyone, draws, ks)
    shapes = np.where(np.array(metrics) == "pass_at_k", at_k, pow_k)  # (r + 1) x columns

    def log_choose(m: Ints, j: Ints) -> Floats:
        inside = (j >= 0) & (j <= m)
        safe_j = np.clip(j, 0, None)
        safe_m = np.maximum(m, safe_j)
        value = gammaln(safe_m + 1.0) - gammaln(safe_j + 1.0) - gammaln(safe_m - safe_j + 1.0)
        result: Floats = np.where(inside, value, -np.inf)
        return result

    enough = n >= r
    weights = np.full((len(n), r + 1), np.nan)
    nn, cc = n[enough, None], c[enough, None]
    weights[enough] = np.exp(
        log_choose(cc, draws[None, :])
        + log_choose(nn - cc, r - draws[None, :])
        - log_choose(nn, np.full_like(nn, r))
    )
    second = weights @ shapes**2  # the unbiased E[f(C)^2]
    fail = n - c
    squared = np.where(
        np.array(metrics) == "pass_at_k",
        1.0 - 2.0 * products(n, fail, ks) + products(n, fail, 2 * ks),
        pass_pow_k_values(n, c, 2 * ks),
    )
    values: Floats = second - squared  # NaN where n < 2k, from the products
    return values


def warn_floor(cells: Cells, counted: Floats, r: int, ks: Ints, metrics: list[str]) -> None:
    """Warn, naming the group and rows, where fewer than two tasks have the runs a row needs."""
    for group in range(len(cells.groups)):
        short = np.flatnonzero(counted[group] < 2)
        if not len(short):
            continue
        rows = ", ".join(
            f"{metrics[j]} at k = {ks[j]} ({max(r, 2 * int(ks[j]))} runs)" for j in short
        )
        warn(
            FewRunsWarning(
                f"no noise floor{cells.where(group)} with {r} run(s) per comparison for "
                f"{rows}: a task needs max(r, 2k) runs to estimate its run-to-run variance "
                f"without bias, and fewer than two tasks have them, so noise_floor and "
                f"standard_error are NaN; run more tasks that many times, or compare fewer runs",
                needed=max(r, 2 * int(ks[short[0]])),
            )
        )
