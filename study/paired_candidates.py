"""Study: which interval for a paired difference and for pass@1 holds its level.

Paired differences (``--part paired``): task i has a shared difficulty logit
``theta_i ~ N(0, sigma)``; agent A passes a run of task i with probability
``expit(theta_i + m_A)``, agent B with ``expit(theta_i + m_B)``, runs
independent given the task. The per-task values are the unbiased estimates
(pass^k: ``C(c, k) / C(n, k)``; pass@k: ``1 - C(n - c, k) / C(n, k)``) and
``d_i = v_i(A) - v_i(B)``; the truth is the difference for a new task,
``E[v(A)] - E[v(B)]``, by Gauss-Hermite quadrature over theta. The
candidates: the task bootstrap (BCa, percentile; the library's
``task_bootstrap``), the plain t interval, the t interval with pseudo-tasks
(``t_floor``, weight 1/2 at -1 and +1 and 1 at 0: the library's default
before ``mover_cp_parts``; ``t_floor_quarter`` with weight 1/4), Newcombe's
hybrid score interval on effective numbers of tasks, Bayesian bootstraps with
and without pseudo-tasks, and the MOVER combination of the effective-n
Clopper-Pearson intervals of the positive and the negative part of d
(``mover_cp_parts``: the library's ``paired_interval``). ``--quick`` and
``--report`` also print the exact coverage of ``t_floor`` and
``mover_cp_parts`` where the agents rarely disagree.

pass@1 (``--part pass1``): T tasks of n runs, task rates Beta(mean p, icc).
The candidates: the clustered normal interval (the old default), Wilson,
Jeffreys and logit intervals on a design-effect effective n, the t interval
and Wilson with pseudo-tasks, and Clopper-Pearson on the effective n with one
pseudo-task at 0 and one at 1 (``cp_neff``), and that effective n kept at
least the tasks (``cp_neff_floor``: the library's rule).

Planning for assurance, the third part of the first version of this study,
is ``study/planning_assurance.py``.

Usage, from the repository root::

    python study/paired_candidates.py --quick                  # checks, small grids, ~15 s
    python study/paired_candidates.py --part paired            # 162 cells x 400 sets, ~6 min
    python study/paired_candidates.py --part paired --level 0.9 --reps 200   # (and 0.99)
    python study/paired_candidates.py --part pass1             # 168 cells x 4000 sets, ~15 s
    python study/paired_candidates.py --part pass1 --level 0.9               # (and 0.99)
    python study/paired_candidates.py --report                 # tables from the parts' CSVs

A part writes ``docs/coverage/candidates/<part>_<level>.csv.gz``, one row per
(cell, statistic, method); the seed (``--seed``, 17) fixes every draw.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

import passk_lab as pk
from passk_lab._bootstrap import task_bootstrap
from passk_lab._mean_intervals import TaskMoments, effective_n_interval, paired_interval

OUT = Path(__file__).resolve().parent.parent / "docs" / "coverage" / "candidates"
Limits = tuple[np.ndarray, np.ndarray]
GH_X, GH_W = np.polynomial.hermite_e.hermegauss(200)
GH_W = GH_W / GH_W.sum()


# ---------------------------------------------------------------- model and truth
def _truth(sigma: float, m: float, metric: str, k: int) -> float:
    p = special.expit(sigma * GH_X + m)
    v = p**k if metric == "pass_pow_k" else 1 - (1 - p) ** k
    return float(GH_W @ v)


def _per_task(n, c, metric: str, k: int) -> np.ndarray:
    """Return the unbiased per-task estimates; NaN where n < k."""
    n = np.asarray(n)
    c = np.asarray(c)
    with np.errstate(invalid="ignore", divide="ignore"):
        if metric == "pass_pow_k":
            v = special.comb(c, k) / special.comb(n, k)
        else:
            v = 1 - special.comb(n - c, k) / special.comb(n, k)
    return np.where(n >= k, v, np.nan)


def _statistics(n_a: int, n_b: int, ks=(1, 3, 5)) -> list[tuple[str, int]]:
    out = [("pass_at_1", 1)]
    for k in ks:
        if k != 1 and k <= min(n_a, n_b):
            out += [("pass_pow_k", k), ("pass_at_k", k)]
    return out


def _metric(name: str) -> str:
    return "pass_pow_k" if name != "pass_at_k" else name


# ---------------------------------------------------------------- paired candidates
def _wilson(m, n, z) -> Limits:
    centre = (m + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(m * (1 - m) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _n_effective(v: np.ndarray, cap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the mean and the design-effect effective n of per-task values, in [1, cap]."""
    tasks = len(v)
    m = v.mean(axis=0)
    s2 = v.var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ne = np.where(s2 > 0, m * (1 - m) / (s2 / tasks), cap)
    ne = np.where(m * (1 - m) > 0, ne, cap)
    return m, np.clip(ne, 1.0, cap)


def _newcombe(va: np.ndarray, vb: np.ndarray, caps: np.ndarray, z: float) -> Limits:
    """Return Newcombe's (1998, method 10) hybrid score interval of the paired difference.

    Each agent's Wilson interval is on its design-effect effective n, and the
    correlation of the per-task values takes the place of the 2x2 table's phi.
    """
    ma, na = _n_effective(va, caps)
    mb, nb = _n_effective(vb, caps)
    la, ua = _wilson(ma, na, z)
    lb, ub = _wilson(mb, nb, z)
    with np.errstate(invalid="ignore", divide="ignore"):
        ca = va - ma
        cb = vb - mb
        r = (ca * cb).sum(0) / np.sqrt((ca**2).sum(0) * (cb**2).sum(0))
    r = np.where(np.isfinite(r), r, 0.0)
    d = ma - mb
    low = d - np.sqrt(
        np.maximum((ma - la) ** 2 - 2 * r * (ma - la) * (ub - mb) + (ub - mb) ** 2, 0)
    )
    high = d + np.sqrt(
        np.maximum((ua - ma) ** 2 - 2 * r * (ua - ma) * (mb - lb) + (mb - lb) ** 2, 0)
    )
    return np.clip(low, -1, 1), np.clip(high, -1, 1)


def _t_plain(d: np.ndarray, level: float) -> Limits:
    tasks = len(d)
    se = d.std(axis=0, ddof=1) / math.sqrt(tasks)
    q = stats.t.ppf(0.5 + level / 2, tasks - 1)
    m = d.mean(0)
    return m - q * se, m + q * se


def _t_floor(d: np.ndarray, level: float, w: float = 0.5) -> Limits:
    """Return the t interval of the mean difference with Agresti-Min-type pseudo-tasks.

    Weight w on d = +1 and on d = -1 and 2w on d = 0 (w = 1/2 adds two
    tasks), so the variance is never 0.
    """
    tasks = len(d)
    size = tasks + 4 * w
    m = d.sum(0) / size
    var = ((d**2).sum(0) + 2 * w) / size - m**2
    se = np.sqrt(var / size)
    q = stats.t.ppf(0.5 + level / 2, tasks - 1)
    return np.clip(m - q * se, -1, 1), np.clip(m + q * se, -1, 1)


def _mover_cp_parts(d: np.ndarray, cap: np.ndarray, exact: np.ndarray, level: float) -> Limits:
    """Return the MOVER interval of the mean difference from its positive and negative parts.

    ``d = d+ - d-`` with ``d+ = max(d, 0)`` and ``d- = max(-d, 0)``, two
    values in [0, 1] per task; each part's mean m gets :func:`_cp_neff_values`
    with the floor, [l, u], and the method of variance estimates recovery
    (Zou and Donner 2008) combines them with the correlation r of the parts
    over the tasks (0 where a part has no spread)::

        low  = d - sqrt((m+ - l+)^2 + (u- - m-)^2 - 2 r (m+ - l+)(u- - m-))
        high = d + sqrt((u+ - m+)^2 + (m- - l-)^2 - 2 r (u+ - m+)(m- - l-))

    clipped to [-1, 1]: the library's ``paired_interval`` written out. `d`
    is tasks x statistics, `cap` each statistic's blocks of k runs,
    `exact` where both sides have exactly k runs.
    """
    plus, minus = np.maximum(d, 0).T, np.maximum(-d, 0).T
    lp, up = _cp_neff_values(plus, cap, exact, level, floor=True)
    lm, um = _cp_neff_values(minus, cap, exact, level, floor=True)
    mp, mm = plus.mean(1), minus.mean(1)
    gp, gm = plus - mp[:, None], minus - mm[:, None]
    spread = np.sqrt((gp**2).sum(1) * (gm**2).sum(1))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(spread > 0, (gp * gm).sum(1) / spread, 0.0)
    low = mp - mm - np.sqrt((mp - lp) ** 2 + (um - mm) ** 2 - 2 * r * (mp - lp) * (um - mm))
    high = mp - mm + np.sqrt((up - mp) ** 2 + (mm - lm) ** 2 - 2 * r * (up - mp) * (mm - lm))
    return np.clip(low, -1, 1), np.clip(high, -1, 1)


def _bayes_boot(d: np.ndarray, level: float, rng, draws: int, pseudo: float = 0.5) -> Limits:
    """Return the Bayesian bootstrap interval with pseudo-tasks at d = +1 and d = -1.

    Dirichlet(1, ..., 1, pseudo, pseudo) weights over the tasks and the two
    pseudo-tasks; the equal-tailed posterior interval.
    """
    tasks = len(d)
    g = rng.standard_gamma(np.r_[np.ones(tasks), pseudo, pseudo], size=(draws, tasks + 2))
    w = g / g.sum(1, keepdims=True)
    means = w @ np.vstack([d, np.ones(d.shape[1]), -np.ones(d.shape[1])])
    a = (1 - level) / 2
    return np.quantile(means, a, axis=0), np.quantile(means, 1 - a, axis=0)


def _bayes_boot_plain(d: np.ndarray, level: float, rng, draws: int) -> Limits:
    w = rng.dirichlet(np.ones(len(d)), size=draws)
    a = (1 - level) / 2
    means = w @ d
    return np.quantile(means, a, axis=0), np.quantile(means, 1 - a, axis=0)


def _library_boot(d: np.ndarray, method, level: float, rng, resamples: int) -> Limits:
    """Return the library's paired task bootstrap, on cells of identical rows of d."""
    cells, counts = np.unique(d, axis=0, return_counts=True)
    low, high = task_bootstrap(
        counts.astype(np.int64),
        cells,
        method=method,
        n_resamples=resamples,
        confidence_level=level,
        rng=rng,
    )
    return np.asarray(low), np.asarray(high)


def _grid(quick: bool) -> Iterator[dict[str, object]]:
    sigmas = [1.5] if quick else [0.5, 1.5, 3.0]
    regimes = {"floor": -4.0, "middle": 0.0, "ceiling": 3.0}  # agent B's logit offset
    gaps = {"equal": 0.0, "small": 0.3, "large": 1.0}  # A = B + gap on the logit scale
    tasks = [20, 40] if quick else [20, 40, 150]
    runs = [(5, 5), (5, 3)]
    for s, (regime, mb), (gap, g), t, (na, nb) in itertools.product(
        sigmas, regimes.items(), gaps.items(), tasks, runs
    ):
        yield {
            "sigma": s,
            "regime": regime,
            "m_b": mb,
            "gap": gap,
            "m_a": mb + g,
            "tasks": t,
            "runs_a": na,
            "runs_b": nb,
        }


def _paired_cell(cell, reps: int, resamples: int, level: float, rng) -> pd.DataFrame:
    """Return coverage and widths of every candidate in one cell, per statistic."""
    s, ma, mb = float(cell["sigma"]), float(cell["m_a"]), float(cell["m_b"])
    tasks, na, nb = int(cell["tasks"]), int(cell["runs_a"]), int(cell["runs_b"])
    z = stats.norm.ppf(0.5 + level / 2)
    stat = _statistics(na, nb)
    true = np.array([_truth(s, ma, _metric(m), k) - _truth(s, mb, _metric(m), k) for m, k in stat])
    caps = np.array([tasks * (min(na, nb) // k) for _, k in stat], float)
    exact = np.array([min(na, nb) == k for _, k in stat])
    rows = []
    for _ in range(reps):
        theta = rng.normal(0, s, tasks)
        ca = rng.binomial(na, special.expit(theta + ma))
        cb = rng.binomial(nb, special.expit(theta + mb))
        va = np.column_stack([_per_task(na, ca, _metric(m), k) for m, k in stat])
        vb = np.column_stack([_per_task(nb, cb, _metric(m), k) for m, k in stat])
        d = va - vb
        est = d.mean(0)
        res = {
            "bca": _library_boot(d, "bca", level, rng, resamples),
            "percentile": _library_boot(d, "percentile", level, rng, resamples),
            "t_plain": _t_plain(d, level),
            "t_floor": _t_floor(d, level),
            "t_floor_quarter": _t_floor(d, level, 0.25),
            "newcombe": _newcombe(va, vb, caps, z),
            "bayes_boot": _bayes_boot(d, level, rng, resamples),
            "bayes_boot_plain": _bayes_boot_plain(d, level, rng, resamples),
            "mover_cp_parts": _mover_cp_parts(d, caps, exact, level),
        }
        for method, (lo, hi) in res.items():
            lo = np.asarray(lo, float)
            hi = np.asarray(hi, float)
            for j, (m, k) in enumerate(stat):
                rows.append((method, m, k, est[j], lo[j], hi[j], true[j]))
    df = pd.DataFrame(rows, columns=["method", "metric", "k", "estimate", "low", "high", "truth"])
    df["covered"] = (df.low <= df.truth + 1e-12) & (df.truth - 1e-12 <= df.high)
    df["width"] = df.high - df.low
    df["zero_width"] = df.width < 1e-12
    out = (
        df.groupby(["method", "metric", "k"], sort=False)
        .agg(
            coverage=("covered", "mean"),
            width=("width", "mean"),
            median_width=("width", "median"),
            zero_width=("zero_width", "mean"),
            truth=("truth", "first"),
            mean_estimate=("estimate", "mean"),
            reps=("covered", "size"),
        )
        .reset_index()
    )
    out["mc_se"] = np.sqrt(out.coverage * (1 - out.coverage) / out.reps)
    for key, val in cell.items():
        out[key] = val
    return out


def run_paired(quick: bool, reps: int, resamples: int, level: float, seed: int) -> pd.DataFrame:
    """Run the paired-difference grid; one row per (cell, statistic, method).

    Parameters
    ----------
    quick : bool
        The small grid (one sigma, 20 and 40 tasks).
    reps : int
        Simulated pairs of evaluations per cell.
    resamples : int
        Bootstrap resamples (and Dirichlet draws).
    level : float
        Confidence level of every interval.
    seed : int
        Seed of the one generator of the whole grid.

    Returns
    -------
    DataFrame
        Coverage, its Monte Carlo SE, mean and median width, zero-width share.
    """
    rng = np.random.default_rng(seed)
    cells = list(_grid(quick))
    start = time.time()
    parts = []
    for i, cell in enumerate(cells):
        parts.append(_paired_cell(cell, reps, resamples, level, rng))
        if i % 20 == 19:
            print(f"paired: cell {i + 1}/{len(cells)}, {time.time() - start:.0f} s", flush=True)
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------- pass@1 candidates
def _cp_neff(c: np.ndarray, n: int, level: float, floor: bool = False) -> Limits:
    """Return Clopper-Pearson on an effective n of the tasks, per replicate (rows of c).

    The passes c of T tasks of n runs each: :func:`_cp_neff_values` of the
    values c/n, at most T n trials, T of them where n = 1.
    """
    return _cp_neff_values(c / n, c.shape[1] * n, np.asarray(n == 1), level, floor)


def _cp_neff_values(v: np.ndarray, cap, exact: np.ndarray, level: float, floor: bool) -> Limits:
    """Return Clopper-Pearson on an effective n of values in [0, 1] (tasks on the last axis).

    Clopper-Pearson at ``m n_eff`` of ``n_eff`` trials;
    ``n_eff = m (1 - m) / Var(m)`` with ``Var(m) = SS / ((T - 1)(T + 2))``,
    SS the squared deviations of the T values and of a pseudo-task at 0 and
    one at 1 from their mean, at most `cap`; T where every value is 0 or 1,
    or where `exact` (each value is one run's outcome). With `floor`, n_eff
    is at least T (a mean of T values in [0, 1] varies at most as a
    proportion of T trials): the library's ``effective_n_interval`` written
    out.
    """
    tasks = v.shape[-1]
    m = v.mean(-1)
    pooled = (tasks * m + 1) / (tasks + 2)
    squares = ((v - pooled[..., None]) ** 2).sum(-1) + pooled**2 + (1 - pooled) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ne = np.minimum(m * (1 - m) / (squares / ((tasks - 1) * (tasks + 2))), cap)
    if floor:
        ne = np.maximum(ne, tasks)
    ne = np.where((m * (1 - m) > 0) & ~exact, ne, tasks)
    x = m * ne
    alpha = 1 - level
    low = np.where(x > 0, stats.beta.ppf(alpha / 2, np.maximum(x, 1e-300), ne - x + 1), 0.0)
    high = np.where(x < ne, stats.beta.ppf(1 - alpha / 2, x + 1, np.maximum(ne - x, 1e-300)), 1.0)
    return low, high


def _pass1_intervals(c: np.ndarray, n: int, level: float) -> dict[str, Limits]:
    """Return every pass@1 candidate for c, replicates x T passes of n runs each."""
    tasks = c.shape[1]
    z = stats.norm.ppf(0.5 + level / 2)
    tq = stats.t.ppf(0.5 + level / 2, tasks - 1)
    v = c / n
    est = v.mean(1)
    se_cl = v.std(1, ddof=1) / np.sqrt(tasks)
    se_nv = np.sqrt(est * (1 - est) / (tasks * n))
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = se_cl**2 / se_nv**2
    undefined = ~np.isfinite(deff)
    out = {"clustered_normal": (np.clip(est - z * se_cl, 0, 1), np.clip(est + z * se_cl, 0, 1))}
    for name, fill in (("conservative", n), ("optimistic", 1.0)):
        ne = tasks * n / np.where(undefined, fill, np.clip(deff, 1.0, n))
        out[f"wilson_neff_{name}"] = _wilson(est, ne, z)
        if name == "conservative":
            out["wilson_neff_t"] = _wilson(est, ne, tq)
            x = est * ne
            lo = np.where(x > 0, stats.beta.ppf((1 - level) / 2, x + 0.5, ne - x + 0.5), 0.0)
            hi = np.where(x < ne, stats.beta.ppf((1 + level) / 2, x + 0.5, ne - x + 0.5), 1.0)
            out["jeffreys_neff"] = (lo, hi)
            se_l = np.sqrt(1 / (x + 0.5) + 1 / (ne - x + 0.5))
            centre = np.log((x + 0.5) / (ne - x + 0.5))
            out["logit_neff"] = (special.expit(centre - z * se_l), special.expit(centre + z * se_l))
    # weight 1/2 on a task with c/n = 1 and on one with c/n = 0
    size = tasks + 1
    m = (v.sum(1) + 0.5) / size
    var = np.maximum(((v**2).sum(1) + 0.5) / size - m**2, 1e-300)
    se = np.sqrt(var / size)
    out["t_floor"] = (np.clip(m - tq * se, 0, 1), np.clip(m + tq * se, 0, 1))
    ne = np.clip(m * (1 - m) / (var / size), tasks, tasks * n)
    out["wilson_neff_aug"] = _wilson(est, ne, z)
    out["wilson_neff_aug_t"] = _wilson(est, ne, tq)
    out["cp_neff"] = _cp_neff(c, n, level)
    out["cp_neff_floor"] = _cp_neff(c, n, level, floor=True)
    return out


def _task_rates(rng, p: float, icc: float, size: tuple[int, int]) -> np.ndarray:
    if icc == 0:
        return np.full(size, p)
    return rng.beta(p * (1 / icc - 1), (1 - p) * (1 / icc - 1), size=size)


def run_pass1(quick: bool, reps: int, level: float, seed: int) -> pd.DataFrame:
    """Run the pass@1 grid; one row per (cell, method).

    Parameters
    ----------
    quick : bool
        The small grid (20 and 150 tasks, icc 0 and 0.3).
    reps : int
        Simulated evaluations per cell.
    level : float
        Confidence level of every interval.
    seed : int
        The generator's seed is ``seed + 2``.

    Returns
    -------
    DataFrame
        Coverage, its Monte Carlo SE, mean and median width, zero-width share.
    """
    rng = np.random.default_rng(seed + 2)
    truths = [0.005, 0.02, 0.1, 0.5, 0.9, 0.98, 0.995]
    task_sizes = [20, 150] if quick else [20, 40, 150]
    iccs = [0.0, 0.3] if quick else [0.0, 0.1, 0.3, 0.5]
    rows = []
    for p, tasks, icc, n in itertools.product(truths, task_sizes, iccs, [3, 10]):
        c = rng.binomial(n, _task_rates(rng, p, icc, (reps, tasks)))
        for method, (lo, hi) in _pass1_intervals(c, n, level).items():
            covered = (lo <= p) & (p <= hi)
            rows.append(
                {
                    "method": method,
                    "truth": p,
                    "tasks": tasks,
                    "icc": icc,
                    "runs": n,
                    "coverage": covered.mean(),
                    "mc_se": np.sqrt(covered.mean() * (1 - covered.mean()) / reps),
                    "width": (hi - lo).mean(),
                    "median_width": np.median(hi - lo),
                    "zero_width": ((hi - lo) < 1e-12).mean(),
                }
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- checks against the library
def _check_library() -> int:
    """Check mover_cp_parts against paired_interval and compare, cp_neff_floor against pass@1's.

    Paired: simulated evaluations of two agents (and a column where they
    always agree) against ``paired_interval`` on the same per-task
    differences, and against the table of ``compare`` on their tallies.
    pass@1's default: ``effective_n_interval`` at k = 1 and the interval of
    ``pass_at_1_se``, on the same tasks.

    Returns the columns checked.
    """
    rng = np.random.default_rng(5)
    checked = 0
    for tasks, level, na, nb, mb in (
        (20, 0.95, 5, 5, 3.0),
        (40, 0.9, 5, 3, 0.0),
        (7, 0.99, 3, 3, -4),
    ):
        theta = rng.normal(0, 1.5, tasks)
        ca = rng.binomial(na, special.expit(theta + mb + 1))
        cb = rng.binomial(nb, special.expit(theta + mb))
        ks = [k for k in (1, 3, 5) if k <= min(na, nb)]
        stat = [("pass_pow_k", k) for k in ks] + [("pass_at_k", k) for k in ks] + [("agree", 1)]
        d = np.column_stack(
            [_per_task(na, ca, m, k) - _per_task(nb, cb, m, k) for m, k in stat[:-1]]
            + [np.zeros(tasks)]
        )
        column_ks = np.array([k for _, k in stat])
        fewer = min(na, nb)
        ours = _mover_cp_parts(d, tasks * (fewer // column_ks), fewer == column_ks, level)
        lib = paired_interval(
            d, np.ones(tasks, dtype=np.int64), np.full(tasks, fewer), column_ks, level
        )
        table = pk.compare(
            pd.DataFrame({"task": range(tasks), "n": na, "c": ca}),
            pd.DataFrame({"task": range(tasks), "n": nb, "c": cb}),
            ks,
            confidence_level=level,
        )
        for label, low, high in (
            ("paired_interval", *lib),
            ("compare", table.difference_low.to_numpy(), table.difference_high.to_numpy()),
        ):
            n_cols = len(low)
            if not (np.allclose(ours[0][:n_cols], low) and np.allclose(ours[1][:n_cols], high)):
                raise AssertionError(
                    f"mover_cp_parts differs from {label} at {tasks} tasks, {level}"
                )
        checked += d.shape[1]
    checks = ((3, [0, 1, 3, 3, 2]), (10, [10] * 6), (1, [0, 1, 1, 0]), (4, [2] * 8))
    checks += ((10, [1] + [0] * 19), (3, [3] * 18 + [2, 1]))  # near the floor and the ceiling
    for n, passes in checks:
        c = np.array([passes])
        tasks = c.shape[1]
        ours = _cp_neff(c, n, 0.95, floor=True)
        moments = TaskMoments.of(
            (c[0] / n)[:, None], np.ones(tasks, dtype=np.int64), np.full(tasks, n), np.array([1])
        )
        tally = pd.DataFrame({"task": range(tasks), "n": n, "c": passes})
        for label, lib in (
            ("effective_n_interval", effective_n_interval(moments, 0.95)),
            ("pass_at_1_se", pk.pass_at_1_se(tally).confidence_interval(0.95)),
        ):
            if not (np.allclose(ours[0], lib[0]) and np.allclose(ours[1], lib[1])):
                raise AssertionError(f"cp_neff_floor differs from {label} on {passes} of {n}")
        checked += 1
    return checked


def rare_disagreement(tasks: int = 40) -> pd.DataFrame:
    """Return the exact coverage of t_floor and mover_cp_parts where the agents rarely disagree.

    Every task has one 0/1 outcome per agent (pass^k or pass@k with k runs on
    each side): d = +1 with chance q+, -1 with chance q-, else 0, so the
    counts of +1 and -1 are trinomial and the coverage of the truth q+ - q-
    is the sum of the chances of the counts whose interval holds it.

    Parameters
    ----------
    tasks : int
        Tasks of an evaluation.

    Returns
    -------
    DataFrame
        Coverage per (q+, q-) and level, each method a column block; the last
        rows are the minimum over q+ in 0.001, 0.002, ..., 0.1.
    """
    up, down = np.array([(a, b) for a in range(tasks + 1) for b in range(tasks + 1 - a)]).T
    d = (np.arange(tasks)[:, None] < up).astype(float)
    d -= (np.arange(tasks)[:, None] >= tasks - down).astype(float)
    levels = (0.8, 0.9, 0.95, 0.99)
    limits = {
        (method, level): interval
        for level in levels
        for method, interval in (
            ("t_floor", _t_floor(d, level)),
            ("mover_cp_parts", _mover_cp_parts(d, np.array(tasks), np.array(True), level)),
        )
    }

    def coverage(q_up: float, q_down: float) -> dict[tuple[str, float], float]:
        chance = stats.multinomial.pmf(
            np.column_stack([up, down, tasks - up - down]), tasks, [q_up, q_down, 1 - q_up - q_down]
        )
        truth = q_up - q_down
        return {
            key: float(chance[(lo <= truth) & (truth <= hi)].sum())
            for key, (lo, hi) in limits.items()
        }

    shown = [(q, 0.0) for q in (0.02, 0.04, 0.06, 0.08, 0.1)] + [(0.05, 0.01), (0.05, 0.05)]
    rows = {f"q+ {a:g}, q- {b:g}": coverage(a, b) for a, b in shown}
    fine = np.round(np.arange(1, 101) / 1000, 3)
    for label, q_down in (("q- 0", 0.0), ("q- 0.01", 0.01)):
        each = [coverage(q, q_down) for q in fine]
        rows[f"min over q+ <= 0.1, {label}"] = {key: min(c[key] for c in each) for key in limits}
    out = pd.DataFrame(rows).T.rename_axis("chances")
    out.columns = [f"{method} {level:g}" for method, level in out.columns]
    return out.round(3)


def no_disagreement(sizes: tuple[int, ...] = (20, 40, 150)) -> pd.DataFrame:
    """Return the half-widths of t_floor and mover_cp_parts where no task disagrees (d = 0).

    mover_cp_parts' is the Clopper-Pearson bound of 0 successes in T trials,
    ``1 - (alpha / 2)^(1 / T)`` (the "rule of three"); t_floor's is
    ``t(T - 1) / (T + 2)``.

    Parameters
    ----------
    sizes : tuple of int
        Tasks of an evaluation.

    Returns
    -------
    DataFrame
        Per tasks and level: each half-width and t_floor's over mover_cp_parts'.
    """
    rows = []
    for tasks, level in itertools.product(sizes, (0.8, 0.9, 0.95, 0.99)):
        d = np.zeros((tasks, 1))
        t_half = float(_t_floor(d, level)[1][0])
        mover_half = float(_mover_cp_parts(d, np.array(tasks), np.array(True), level)[1][0])
        rows.append(
            {
                "tasks": tasks,
                "level": level,
                "t_floor": t_half,
                "mover_cp_parts": mover_half,
                "t_floor / mover_cp_parts": t_half / mover_half,
            }
        )
    return pd.DataFrame(rows).set_index(["tasks", "level"]).round(4)


# ---------------------------------------------------------------- tables
def _md(df: pd.DataFrame, index: bool = True) -> str:
    df = df.reset_index() if index else df
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    for row in df.itertuples(index=False):
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _summary(res: pd.DataFrame, level: float) -> pd.DataFrame:
    bar = level - 0.02
    return (
        res.groupby("method")
        .agg(
            min_coverage=("coverage", "min"),
            mean_coverage=("coverage", "mean"),
            **{f"cells_below_{bar:.2f}": ("coverage", lambda x: int((x < bar).sum()))},
            cells=("coverage", "size"),
            mean_width=("width", "mean"),
            zero_width_share=("zero_width", "mean"),
        )
        .sort_values("min_coverage", ascending=False)
        .round(3)
    )


def paired_tables(res: pd.DataFrame, level: float) -> str:
    """Return the Markdown tables of a paired run: summary, worst cells, minima by regime.

    Parameters
    ----------
    res : DataFrame
        Rows of :func:`run_paired`.
    level : float
        Their confidence level.

    Returns
    -------
    str
        Markdown.
    """
    worst = res.loc[res.groupby("method").coverage.idxmin()]
    columns = ["method", "coverage", "mc_se", "width", "zero_width", "metric", "k", "truth"]
    columns += ["sigma", "regime", "gap", "tasks", "runs_a", "runs_b"]
    runs = res.runs_a.astype(str) + "v" + res.runs_b.astype(str)
    parts = [
        "Summary over all (cell, statistic)",
        _md(_summary(res, level)),
        "Worst cell per method",
        _md(worst[columns].round(4), index=False),
        "Minimum coverage by method x regime",
        _md(res.pivot_table(index="method", columns="regime", values="coverage", aggfunc="min")),
        "Minimum coverage by method x tasks",
        _md(res.pivot_table(index="method", columns="tasks", values="coverage", aggfunc="min")),
        "Minimum coverage by method x runs (a, b)",
        _md(res.assign(runs=runs).pivot_table("coverage", "method", "runs", aggfunc="min")),
        "Mean width by method x tasks",
        _md(res.pivot_table(index="method", columns="tasks", values="width", aggfunc="mean")),
        "Median width ratio of mover_cp_parts, per (cell, statistic)",
        _md(_mover_widths(res)),
    ]
    return "\n\n".join(parts)


def _mover_widths(res: pd.DataFrame) -> pd.DataFrame:
    """Return mover_cp_parts' median width over t_floor's, BCa's and Newcombe's, by tasks.

    The median over (cell, statistic) of the ratio of mean widths, on every
    cell and per number of tasks; BCa's zero-width cells count as an infinite
    ratio.
    """
    cell = ["sigma", "regime", "gap", "tasks", "runs_a", "runs_b", "metric", "k"]
    widths = res.pivot_table(index=cell, columns="method", values="width")
    tasks = widths.index.get_level_values("tasks")
    rows = {}
    for other in ("t_floor", "bca", "newcombe"):
        with np.errstate(divide="ignore"):
            ratio = widths["mover_cp_parts"] / widths[other]
        rows[other] = {"all cells": ratio.median()} | {
            f"{t} tasks": ratio[tasks == t].median() for t in sorted(set(tasks))
        }
    return pd.DataFrame(rows).T.rename_axis("against")


def _floor_widths(res: pd.DataFrame) -> pd.DataFrame:
    """Return cp_neff_floor's median width over cp_neff's and t_floor's, overall and near 0 / 1.

    The median over cells of the ratio of mean widths, on every cell and on
    those with a truth below 0.05 or above 0.95.
    """
    cell = ["truth", "tasks", "icc", "runs"]
    widths = res.pivot_table(index=cell, columns="method", values="width")
    edge = (widths.index.get_level_values("truth") < 0.05) | (
        widths.index.get_level_values("truth") > 0.95
    )
    rows = []
    for other in ("cp_neff", "t_floor"):
        ratio = widths["cp_neff_floor"] / widths[other]
        rows.append(
            {
                "against": other,
                "all cells": ratio.median(),
                "cells": len(ratio),
                "truth < 0.05 or > 0.95": ratio[edge].median(),
                "edge cells": int(edge.sum()),
            }
        )
    return pd.DataFrame(rows).set_index("against")


def pass1_tables(res: pd.DataFrame, level: float) -> str:
    """Return the Markdown tables of a pass@1 run: summary, worst cells, minima by truth.

    Parameters
    ----------
    res : DataFrame
        Rows of :func:`run_pass1`.
    level : float
        Their confidence level.

    Returns
    -------
    str
        Markdown.
    """
    worst = res.loc[res.groupby("method").coverage.idxmin()]
    parts = [
        "Summary over all cells",
        _md(_summary(res, level)),
        "Worst cell per method",
        _md(worst.round(4), index=False),
        "Minimum coverage by method x truth",
        _md(res.pivot_table(index="method", columns="truth", values="coverage", aggfunc="min")),
        "Mean width by method x truth",
        _md(res.pivot_table(index="method", columns="truth", values="width", aggfunc="mean")),
        "Median width ratio of cp_neff_floor, per cell",
        _md(_floor_widths(res)),
    ]
    return "\n\n".join(parts)


def _rare_tables() -> str:
    return "\n\n".join(
        [
            "## Half-widths where no task disagrees",
            _md(no_disagreement()),
            "## Exact coverage, 40 tasks, rare disagreements",
            _md(rare_disagreement()),
        ]
    )


TABLES = {"paired": paired_tables, "pass1": pass1_tables}


def main() -> None:
    """Run the checks and the part asked for, or print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="checks and small grids")
    parser.add_argument("--part", choices=list(TABLES))
    parser.add_argument("--level", type=float, default=0.95, help="of every interval")
    parser.add_argument("--reps", type=int, help="400 (paired) or 4000 (pass1) by default")
    parser.add_argument("--boot", type=int, default=800, help="bootstrap resamples (paired)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--report", action="store_true", help="print the tables of the parts")
    args = parser.parse_args()
    if args.quick:
        start = time.time()
        checked = _check_library()
        print(
            "check: mover_cp_parts equals paired_interval and compare, cp_neff_floor "
            f"effective_n_interval and pass_at_1_se(...).confidence_interval() ({checked} columns)"
        )
        print(f"\n{_rare_tables()}")
        paired = run_paired(True, 40, 400, args.level, args.seed)
        print(f"\n## Paired differences, small grid\n\n{_md(_summary(paired, args.level))}")
        pass1 = run_pass1(True, 500, args.level, args.seed)
        print(f"\n## pass@1, small grid\n\n{_md(_summary(pass1, args.level))}")
        print(f"\nquick run: {time.time() - start:.0f} s")
    if args.part:
        if args.part == "paired":
            res = run_paired(False, args.reps or 400, args.boot, args.level, args.seed)
        else:
            res = run_pass1(False, args.reps or 4000, args.level, args.seed)
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / f"{args.part}_{args.level:g}.csv.gz"
        res.to_csv(
            path, index=False, float_format="%.6g", compression={"method": "gzip", "mtime": 0}
        )
        print(TABLES[args.part](res, args.level))
        print(f"wrote {path} ({len(res)} rows)")
    if args.report:
        print(_rare_tables())
        for path in sorted(OUT.glob("*_*.csv.gz")):
            part, level = path.name.removesuffix(".csv.gz").split("_")
            if part in TABLES:
                print(f"\n## {part}, level {level}\n")
                print(TABLES[part](pd.read_csv(path), float(level)))


if __name__ == "__main__":
    main()
