"""G-Pass@k_tau: the chance that at least a share tau of k runs pass, from the (n, c) cells.

For a task with `n` runs of which `c` passed, ``1 <= k <= n`` and a threshold
``tau`` in (0, 1], G-Pass@k_tau (Liu et al. 2025) is the chance that at least
``m = ceil(tau * k)`` of `k` runs drawn without replacement from the task's `n`
passed: the hypergeometric survival function
``sum_{j >= m} C(c, j) C(n - c, k - j) / C(n, k)``. ``tau = 1`` is pass^k and
any ``tau <= 1 / k`` is pass@k (:mod:`passk_lab.estimators`); the values in
between say how far an agent that passes some of k runs passes most of them.
Like them, it is computed once per distinct ``(n, c)`` pair, and the dataset's
value is the mean over the tasks with ``n >= k``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import partial
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd

from passk_lab._checks import positive_int
from passk_lab._choices import IntervalMethod
from passk_lab._curve import cells_of
from passk_lab._data.cells import Cells
from passk_lab._data.rules import By, ErrorPolicy
from passk_lab._data.tally import TallyInput
from passk_lab._interval_policy import IntervalSpec, MeanIntervals, Redraw, mean_intervals
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import (
    UNSET,
    FewTasksWarning,
    NoEstimateWarning,
    by_keyword,
    renamed,
    warn,
)

__all__ = ["g_pass_at_k"]

Tau: TypeAlias = float | Literal["mean"]
"""A threshold: the share of the k runs that must pass, or ``"mean"`` for mG-Pass@k."""


@by_keyword(3)
def g_pass_at_k(
    runs: TallyInput,
    ks: int | Iterable[int] | None = None,
    tau: float | str | Iterable[float | str] | None = None,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    k: int | Iterable[int] = UNSET,
) -> pd.DataFrame:
    """Estimate G-Pass@k_tau: the share of tasks that pass at least ``ceil(tau * k)`` of k runs.

    G-Pass@k_tau is the metric of Liu et al. (2025). A task with `n` runs of
    which `c` passed contributes the chance that at least
    ``m = ceil(tau * k)`` of `k` runs drawn without replacement from its `n`
    passed, ``sum_{j = m}^{min(c, k)} C(c, j) C(n - c, k - j) / C(n, k)``,
    and the tasks with ``n >= k`` are averaged. ``tau = 1`` is pass^k
    (:func:`~passk_lab.pass_pow_k`), any ``tau <= 1 / k`` is pass@k
    (:func:`~passk_lab.pass_at_k`), and the value never rises as `tau` does.
    docs/leaderboards.md ("G-Pass@k") defines mG-Pass@k and the intervals.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or Dask DataFrame
        Whatever :func:`~passk_lab.tally` takes.
    ks : int or sequence of int, optional
        Runs drawn, each ``>= 1``; at least one task must have that many
        runs. By default 1 to the most runs a task has.
    tau : float, "mean", or a sequence of them
        The share of the k runs that must pass, each in (0, 1]. It is read
        as the decimal it prints as, so ``tau = 0.28`` at ``k = 25`` asks for
        7 runs (binary floating point would make ``0.28 * 25`` a little more
        than 7, and its ceiling 8). ``"mean"`` gives mG-Pass@k.
    by : str or list of str, optional
        Grouping columns: rows per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        Of the intervals, in (0, 1).
    method : str
        The intervals, any of :func:`~passk_lab.reliability_curve`'s: each
        value is a mean over tasks of per-task values in [0, 1], as pass^k
        is. ``"auto"``: Clopper-Pearson on the tasks where every counted task
        has exactly k runs (each value is then 0 or 1), on an effective
        number of tasks elsewhere.
    n_resamples : int
        Resamples of a bootstrap `method`.
    rng : int, numpy.random.Generator or None
        Seed or generator of a bootstrap `method`.
    k : int or sequence of int
        The old name of `ks`; deprecated, it goes in the next release.

    Returns
    -------
    DataFrame
        One row per (group, k, tau), the ks and taus sorted (``"mean"``
        last): ``[*by, k, tau, g_pass_at_k, g_pass_at_k_low,
        g_pass_at_k_high, n_tasks]``; ``n_tasks`` counts the tasks with at
        least `k` runs. The ``tau`` column holds floats, and is of object
        dtype when ``"mean"`` is asked. ``attrs`` holds ``errors``,
        ``confidence_level`` and ``method``.

    Raises
    ------
    ValueError
        If a `k` is more runs than any task has (the message names the
        largest k there is), a `tau` is outside (0, 1], or `method` is not
        one of the curve's.
    TypeError
        If a `k` is not an integer, or a `tau` neither a number nor
        ``"mean"`` (or not given).

    Warns
    -----
    FewTasksWarning, NoEstimateWarning
        Where one task of a group has `k` runs (no interval), or none (no estimate).

    References
    ----------
    J. Liu et al., "Are Your LLMs Capable of Stable Reasoning?", 2025, arXiv:2412.13147.

    Examples
    --------
    >>> import passk_lab as pk
    >>> runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    >>> pk.g_pass_at_k(runs, 5, [0.2, 0.8, 1.0, "mean"]).round(3)
       k   tau  g_pass_at_k  g_pass_at_k_low  g_pass_at_k_high  n_tasks
    0  5   0.2         1.00            0.912             1.000       40
    1  5   0.8         0.85            0.702             0.943       40
    2  5   1.0         0.45            0.293             0.615       40
    3  5  mean         0.52            0.357             0.680       40

    mG-Pass@5 is ``(2 / 5) * (0.85 + 0.45)``.
    """
    spec = IntervalSpec.of(method, confidence_level, n_resamples, rng)
    asked = renamed("k", "ks", k, ks)
    if tau is None:
        raise TypeError("g_pass_at_k needs tau, the share of the k runs that must pass")
    taus = _taus(tau)
    cells = cells_of(runs, by, errors)
    most = int(cells.n.max())
    values_ks = _ks(asked, most)
    values, column_ks, column_taus = _task_values(cells.n, cells.c, values_ks, taus)
    redrawn = partial(_values_only, ks=values_ks, taus=taus)
    parts: list[pd.DataFrame] = []
    ends = [*cells.starts[1:], len(cells.n)]
    for group, (start, end) in enumerate(zip(cells.starts, ends, strict=True)):
        rows = slice(int(start), int(end))
        n, c, tasks = cells.n[rows], cells.c[rows], cells.tasks[rows]
        found = mean_intervals(values[rows], n, tasks, column_ks, spec, redraw=Redraw(c, redrawn))
        _warn_few(cells, group, found.tasks, column_ks)
        parts.append(_group_table(cells, group, found, column_ks, column_taus))
    table = pd.concat(parts, ignore_index=True)
    table.attrs.update(errors=errors, confidence_level=spec.confidence_level, method=spec.method)
    return table


def _ks(ks: object, most: int) -> Ints:
    """Return the asked ks, sorted and without repeats (1 to `most` by default), each reached."""
    if ks is None:
        values = set(range(1, most + 1))
    elif isinstance(ks, str) or not isinstance(ks, Iterable):
        values = {positive_int("k", ks)}
    else:
        values = {positive_int("k", each) for each in ks}
        if not values:
            raise ValueError("ks is empty; give at least one number of runs to draw")
    if max(values) > most:
        raise ValueError(
            f"k = {max(values)} is more runs than any task has: the largest k available is "
            f"{most}, the most runs of a task; ask for k up to {most}, or run the tasks more "
            f"times"
        )
    return np.array(sorted(values), dtype=np.int64)


def _taus(tau: object) -> list[Tau]:
    """Return the asked thresholds, the numbers sorted and without repeats, ``"mean"`` last."""
    asked = [tau] if isinstance(tau, (str, numbers.Real)) or not isinstance(tau, Iterable) else tau
    numbers_asked: set[float] = set()
    mean = False
    for each in asked:
        if isinstance(each, str) and each == "mean":
            mean = True
            continue
        if isinstance(each, bool) or not isinstance(each, numbers.Real):
            raise TypeError(
                f"tau must be a number in (0, 1] (the share of the k runs that must pass) or "
                f"'mean' (mG-Pass@k), got {each!r}"
            )
        value = float(each)
        if not 0.0 < value <= 1.0:  # NaN fails this test too
            raise ValueError(
                f"tau must be in (0, 1], the share of the k runs that must pass (1 for pass^k, "
                f"1/k or less for pass@k), got {value}"
            )
        numbers_asked.add(value)
    if not numbers_asked and not mean:
        raise ValueError("tau is empty; give at least one share in (0, 1], or 'mean'")
    ordered: list[Tau] = [*sorted(numbers_asked)]
    return [*ordered, "mean"] if mean else ordered


def _needed(k: int, tau: Tau) -> range:
    """Return the m whose chances ``P(at least m of k pass)`` the value at (k, tau) sums."""
    if tau == "mean":
        return range((k + 1) // 2 + 1, k + 1)
    least = math.ceil(Fraction(str(tau)) * k)  # tau as printed: 0.28 * 25 is 7
    return range(least, least + 1)


def _task_values(n: Ints, c: Ints, ks: Ints, taus: Sequence[Tau]) -> tuple[Floats, Ints, list[Tau]]:
    """Return the value of every cell (rows) at every (k, tau) (columns), NaN where ``n < k``."""
    from scipy.stats import hypergeom  # scipy.stats is slow to import: only when asked

    columns: list[Floats] = []
    for k in map(int, ks):
        counted = n >= k  # the rows held are those of the tasks counted: no more than the runs
        wanted = sorted({m for tau in taus for m in _needed(k, tau)})
        at_least = np.zeros((int(counted.sum()), k + 1))  # column m: P(at least m of k pass)
        if wanted:  # mG-Pass@1 sums nothing
            draws = np.asarray(wanted)
            at_least[:, draws] = hypergeom.sf(
                draws[None, :] - 1, n[counted, None], c[counted, None], k
            )
        for tau in taus:
            weight = 2.0 / k if tau == "mean" else 1.0
            column = np.full(len(n), np.nan)
            column[counted] = weight * at_least[:, list(_needed(k, tau))].sum(axis=1)
            columns.append(column)
    values = np.stack(columns, axis=1)
    column_ks = np.repeat(ks, len(taus))
    return values, column_ks, [tau for _ in ks for tau in taus]


def _group_table(
    cells: Cells, group: int, found: MeanIntervals, ks: Ints, taus: list[Tau]
) -> pd.DataFrame:
    """Return one group's rows: its values and intervals at every (k, tau), its by columns first."""
    part = pd.DataFrame(
        {
            "k": ks,
            "tau": pd.Series(taus, dtype=object if "mean" in taus else np.float64),
            "g_pass_at_k": found.mean,
            "g_pass_at_k_low": found.low,
            "g_pass_at_k_high": found.high,
            "n_tasks": found.tasks.astype(np.int64),
        }
    )
    for name in reversed(cells.by):
        part.insert(0, name, cells.groups[name].iloc[group])
    return part


def _values_only(n: Ints, c: Ints, ks: Ints, taus: Sequence[Tau]) -> Floats:
    """Return :func:`_task_values`' values alone: those of redrawn cells, for the bootstrap."""
    return _task_values(n, c, ks, taus)[0]


def _warn_few(cells: Cells, group: int, counted: Floats, ks: Ints) -> None:
    """Warn where a k of the group counts no task (no estimate) or one (no interval)."""
    where = cells.where(group)
    none = np.unique(ks[counted == 0])
    if len(none):
        most = int(cells.n[cells.group == group].max())
        warn(
            NoEstimateWarning(
                f"no estimate of G-Pass@k at k = {', '.join(map(str, none))}{where}: no task "
                f"has that many runs (the most is {most}), so g_pass_at_k and its interval are "
                f"NaN; ask for k up to {most} there, or run its tasks more times",
                ks=none.tolist(),
                most_runs=most,
            )
        )
    single = np.unique(ks[counted == 1])
    if len(single):
        warn(
            FewTasksWarning(
                f"the intervals of G-Pass@k at k = {', '.join(map(str, single))}{where} are "
                f"NaN: one task has that many runs, and one task says nothing about the next "
                f"one; give more tasks k runs, or choose smaller ks",
                ks=single.tolist(),
                tasks=1,
            )
        )
