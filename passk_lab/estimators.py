"""pass@1, pass^k and pass@k for every k, from the per-task (n, c) cells.

For a task with `n` runs of which `c` passed, and ``1 <= k <= n``, pass^k
(:func:`pass_pow_k`) is ``C(c, k) / C(n, k)`` and pass@k (:func:`pass_at_k`)
is ``1 - C(n - c, k) / C(n, k)``; the dataset's value is the mean over the
tasks with ``n >= k``, NaN with a warning where none has (never 1.0). Each is
computed once per distinct ``(n, c)`` pair, for every k at once, so the cost
after the tally does not grow with the number of runs. docs/curve.md explains
the estimators, the curve's columns and its intervals.

Every function takes what :func:`~passk_lab.tally` takes: a runs table, an
outcome matrix, a tally (a table or a ``Tally``) or a Dask DataFrame.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from passk_lab._checks import positive_int
from passk_lab._curve import (
    by_group,
    cells_of,
    curve_values,
    means,
    with_costs,
)
from passk_lab._curve_checks import group_ks, warn_empty
from passk_lab._curve_table import curve_table
from passk_lab._data.cells import Cells
from passk_lab._data.costs import task_costs
from passk_lab._data.rules import By, ErrorPolicy
from passk_lab._data.tally import Tally, TallyInput, as_tally
from passk_lab._errors import with_keywords
from passk_lab._interval_policy import IntervalMethod, IntervalSpec
from passk_lab._warnings import by_keyword

__all__ = [
    "analytic_pow_k",
    "error_sensitivity",
    "pass_at_1",
    "pass_at_k",
    "pass_pow_k",
    "plugin_pow_k",
    "reliability_curve",
]


@by_keyword(2)
def pass_pow_k(
    runs: TallyInput, k: int, *, by: By = None, errors: ErrorPolicy = "fail"
) -> float | pd.Series:
    """Estimate pass^k: the share of tasks that pass all k of k independent runs.

    Each task contributes ``C(c, k) / C(n, k)``, unbiased for ``p^k`` of that
    task, and the tasks with ``n >= k`` are averaged. When every task has
    exactly ``n = k`` runs this is the share of tasks that passed all of them,
    the source harness's ``allK / tasks``.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs, an outcome matrix or a tally: whatever :func:`~passk_lab.tally` takes.
    k : int
        Runs that must all pass, ``>= 1``.
    by : str or list of str, optional
        Grouping columns: one value per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    float or pandas.Series
        The estimate; a Series indexed by group with `by`. NaN, with a
        ``NoEstimateWarning``, when no task has `k` runs.

    Raises
    ------
    ValueError
        If `k` is not a positive integer, or the runs break a rule of
        :func:`~passk_lab.tally` (the message names the fix).

    Examples
    --------
    >>> import passk_lab as pk
    >>> runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    >>> pass_pow_k(runs, 5)
    0.45
    >>> round(pass_pow_k(runs, 2), 4)
    0.735
    """
    ks = np.array([positive_int("k", k)])
    cells = cells_of(runs, by, errors)
    return by_group(cells, curve_values(cells, ks)[0][:, 0], "pass_pow_k")


@by_keyword(2)
def pass_at_k(
    runs: TallyInput, k: int, *, by: By = None, errors: ErrorPolicy = "fail"
) -> float | pd.Series:
    """Estimate pass@k: the share of tasks that pass at least one of k runs.

    Each task contributes ``1 - C(n - c, k) / C(n, k)`` (Chen et al. 2021),
    unbiased for ``1 - (1 - p)^k``; tasks with ``n >= k`` are averaged.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs, an outcome matrix or a tally: whatever :func:`~passk_lab.tally` takes.
    k : int
        Runs drawn, ``>= 1``.
    by : str or list of str, optional
        Grouping columns: one value per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    float or pandas.Series
        The estimate; a Series indexed by group with `by`. NaN, with a
        ``NoEstimateWarning``, when no task has `k` runs.

    Raises
    ------
    ValueError
        If `k` is not a positive integer, or the runs break a rule of
        :func:`~passk_lab.tally`.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"task": ["a", "b"], "n": [10, 10], "c": [1, 0]})
    >>> pass_at_k(counts, 1), pass_at_k(counts, 10)
    (0.05, 0.5)
    """
    ks = np.array([positive_int("k", k)])
    cells = cells_of(runs, by, errors)
    return by_group(cells, curve_values(cells, ks)[1][:, 0], "pass_at_k")


@by_keyword(1)
def pass_at_1(
    runs: TallyInput, *, by: By = None, errors: ErrorPolicy = "fail"
) -> float | pd.Series:
    """Estimate pass@1: the mean over tasks of the share of runs that passed, ``c / n``.

    Tasks weigh equally, however many runs each has (the source harness's
    ``single / tasks``). pass@1 is both :func:`pass_pow_k` and
    :func:`pass_at_k` at k = 1.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs, an outcome matrix or a tally: whatever :func:`~passk_lab.tally` takes.
    by : str or list of str, optional
        Grouping columns: one value per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    float or pandas.Series
        The estimate; a Series indexed by group with `by`.

    Raises
    ------
    ValueError
        If the runs break a rule of :func:`~passk_lab.tally`.

    Examples
    --------
    >>> import passk_lab as pk
    >>> pass_at_1(pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42))
    0.86
    """
    cells = cells_of(runs, by, errors)
    return by_group(cells, curve_values(cells, np.array([1]))[2], "pass_at_1")


@by_keyword(2)
def analytic_pow_k(
    runs: TallyInput, k: int, *, by: By = None, errors: ErrorPolicy = "fail"
) -> float | pd.Series:
    """Return ``pass@1 ** k``: pass^k if every run of every task passed with one chance p.

    This is the independent-runs prediction, with p estimated by the pooled
    :func:`pass_at_1`. Real tasks differ in difficulty, so the measured pass^k
    usually sits above it: the same tasks keep passing and the same keep failing.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs, an outcome matrix or a tally: whatever :func:`~passk_lab.tally` takes.
    k : int
        The power, ``>= 1``; any k, beyond the observed runs too.
    by : str or list of str, optional
        Grouping columns: one value per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    float or pandas.Series
        The prediction; a Series indexed by group with `by`.

    Raises
    ------
    ValueError
        If `k` is not a positive integer, or the runs break a rule of
        :func:`~passk_lab.tally`.

    Examples
    --------
    >>> import passk_lab as pk
    >>> round(analytic_pow_k(pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42), 5), 4)
    0.4704
    """
    power = positive_int("k", k)
    p = pass_at_1(runs, by=by, errors=errors)
    return p**power


@by_keyword(2)
def plugin_pow_k(
    runs: TallyInput, k: int, *, by: By = None, errors: ErrorPolicy = "fail"
) -> float | pd.Series:
    """Return the plug-in mean over tasks of ``(c / n) ** k``, for comparison only.

    **Biased**: ``(c / n)^k`` overestimates a task's ``p^k`` on average
    (Jensen's inequality), most when n is close to k; docs/curve.md works an
    example. Use :func:`pass_pow_k`, which is unbiased; this exists to show
    the difference. Every task with ``n >= 1`` is averaged, for any k.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs, an outcome matrix or a tally: whatever :func:`~passk_lab.tally` takes.
    k : int
        The power, ``>= 1``.
    by : str or list of str, optional
        Grouping columns: one value per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    float or pandas.Series
        The plug-in value; a Series indexed by group with `by`.

    Raises
    ------
    ValueError
        If `k` is not a positive integer, or the runs break a rule of
        :func:`~passk_lab.tally`.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"task": [0, 1, 2, 3], "n": 2, "c": [0, 1, 1, 2]})
    >>> plugin_pow_k(counts, 2), pass_pow_k(counts, 2)
    (0.375, 0.25)
    """
    power = positive_int("k", k)
    cells = cells_of(runs, by, errors)
    share = np.divide(cells.c, cells.n, out=np.full(len(cells.n), np.nan), where=cells.n > 0)
    values, counted = means(cells, (share**power)[:, None])
    warn_empty(cells, counted, np.ones(1, dtype=np.int64))
    return by_group(cells, values[:, 0], "plugin_pow_k")


_CURVE_COLUMNS = (
    "k",
    "pass_pow_k",
    "pass_pow_k_low",
    "pass_pow_k_high",
    "pass_at_k",
    "pass_at_k_low",
    "pass_at_k_high",
    "p_pow_k",
    "p_pow_k_low",
    "p_pow_k_high",
    "betabinom_pow_k",
    "betabinom_pow_k_low",
    "betabinom_pow_k_high",
    "betabinom_fit_pvalue",
    "n_tasks",
    "n_tasks_excluded",
    "n_runs_excluded",
    "interval_method",
    "predicted",
)
"""The columns of a reliability curve after its groups' (costs aside)."""


def _check_by_names(by: Iterable[str]) -> None:
    """Refuse a grouping column named as one of the curve's own columns."""
    clash = [name for name in by if name in _CURVE_COLUMNS]
    if clash:
        raise with_keywords(
            ValueError(
                f"by names {', '.join(map(repr, clash))}, which the curve has a column of its own "
                f"for: rename that column of the runs, say to '{clash[0]}_group', and give "
                f"by='{clash[0]}_group'"
            ),
            "by",
        )


def reliability_curve(
    runs: TallyInput,
    ks: Iterable[int] | None = None,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    predict_to: int | None = None,
    common_tasks: bool = False,
) -> pd.DataFrame:
    """Return pass^k and pass@k with intervals, and the curves that predict them, for every k.

    docs/curve.md explains every column, the intervals each `method` gives,
    the tasks each k counts, the predictions and the costs.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs, an outcome matrix or a tally: whatever :func:`~passk_lab.tally` takes.
    ks : sequence of int, optional
        The k values (sorted, without repeats). By default 1 to the largest
        number of runs of any task in the group.
    by : str or list of str, optional
        Grouping columns: one curve per group.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`
        (and counted in ``n_runs_excluded``).
    confidence_level : float
        Of every interval, in (0, 1).
    method : str
        The intervals of pass^k and pass@k: ``"auto"`` (the default, closed
        form, no resampling), a binomial method (``"wilson"``,
        ``"clopper_pearson"``, ``"jeffreys"``, ``"agresti_coull"``,
        ``"wald"``), or a bootstrap (``"percentile"``, ``"bca"``,
        ``"two-level"``). Only ``"auto"`` holds its level in every regime
        measured (docs/uncertainty.md).
    n_resamples : int
        Bootstrap resamples; they cost time in the number of distinct (n, c)
        pairs, not in tasks.
    rng : int, numpy.random.Generator or None
        Seed or generator of the bootstrap (the default intervals draw nothing).
    predict_to : int, optional
        Add rows for every k above the asked ones up to this, for the
        predictions (``p_pow_k``, ``betabinom_pow_k``) beyond the observed
        runs; a k no task reaches gets NaN measurements there, without a
        warning. A row whose k is past every task's runs (with
        `common_tasks`, past the common k) has ``predicted`` True: no run
        measured it, its numbers are the models' alone, and
        ``betabinom_pow_k_low`` and ``betabinom_pow_k_high`` hold the fit's
        bootstrap interval there
        (:meth:`~passk_lab.BetaBinomialFit.confidence_interval`: each resample
        refitted, at most 1,000 of them, drawn from `rng` after every other
        interval). They are NaN on measured rows, and a curve with no
        predicted row refits nothing.
    common_tasks : bool
        Count every k on the same tasks: those with at least the largest asked
        k runs (per group). By default each k counts the tasks with at least k
        runs, with a warning when a k counts fewer tasks than the first k.

    Returns
    -------
    DataFrame
        One row per (group, k): ``[*by, k, pass_pow_k, pass_pow_k_low,
        pass_pow_k_high, pass_at_k, pass_at_k_low, pass_at_k_high, p_pow_k,
        p_pow_k_low, p_pow_k_high, betabinom_pow_k, betabinom_pow_k_low,
        betabinom_pow_k_high, betabinom_fit_pvalue, n_tasks, n_tasks_excluded,
        n_runs_excluded, interval_method, predicted]``, then,
        for a runs table with ``cost_<name>`` columns, ``cost_<name>``,
        ``cost_<name>_per_pass_pow_k`` and ``pass_pow_k_per_<name>`` per cost.
        ``attrs`` holds ``n_tasks`` (distinct task ids), with `by` also
        ``n_groups`` and ``tasks_per_group``, then ``runs_per_task``,
        ``errors``, ``confidence_level``, ``method``, ``n_resamples`` and
        ``common_tasks``.

    Raises
    ------
    ValueError
        If an argument is out of range, the runs break a rule of
        :func:`~passk_lab.tally`, a `by` column is named as a column of the
        curve, or a ``cost_<name>`` column holds something other than finite
        costs ``>= 0``; the message names the fix.
    TypeError
        If `common_tasks` is not a bool.

    Examples
    --------
    >>> import passk_lab as pk
    >>> curve = reliability_curve(pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42))
    >>> curve[["k", "pass_pow_k", "pass_at_k", "p_pow_k", "betabinom_pow_k"]].round(4)
       k  pass_pow_k  pass_at_k  p_pow_k  betabinom_pow_k
    0  1       0.860      0.860   0.8600           0.8600
    1  2       0.735      0.985   0.7396           0.7396
    2  3       0.625      1.000   0.6361           0.6361
    3  4       0.530      1.000   0.5470           0.5470
    4  5       0.450      1.000   0.4704           0.4704
    """
    spec = IntervalSpec.of(method, confidence_level, n_resamples, rng)
    last = 0 if predict_to is None else positive_int("predict_to", predict_to)
    summary = as_tally(runs, by, errors=errors)
    _check_by_names(summary.by)
    costs = task_costs(runs, summary.by)  # checked before the curve is computed
    cells = Cells.from_tally(summary)
    if not isinstance(common_tasks, bool):
        raise TypeError(f"common_tasks must be True or False, got {common_tasks!r}")
    curve = curve_table(cells, group_ks(cells, ks), spec, last, common_tasks=common_tasks)
    if costs is not None:
        with_costs(curve, summary, costs)
    curve.attrs.update(_task_extent(summary, cells))
    curve.attrs.update(
        runs_per_task=[int(cells.n.min()), int(cells.n.max())],
        errors=errors,
        confidence_level=spec.confidence_level,
        method=spec.method,
        n_resamples=spec.n_resamples,
        common_tasks=common_tasks,
    )
    return curve


def _task_extent(summary: Tally, cells: Cells) -> dict[str, int | list[int]]:
    """Return the distinct tasks; with groups also the groups and the tasks per group."""
    if not summary.by:
        return {"n_tasks": int(cells.tasks.sum())}
    per_group = np.bincount(cells.group, weights=cells.tasks, minlength=len(cells.groups))
    return {
        "n_tasks": int(summary.labels["task"].nunique()),
        "n_groups": len(cells.groups),
        "tasks_per_group": [int(per_group.min()), int(per_group.max())],
    }


def error_sensitivity(
    runs: TallyInput, ks: Iterable[int] | None = None, *, by: By = None
) -> pd.DataFrame:
    """Set pass@k and pass^k with errored runs as failures beside the same without them.

    Whether an errored or timed-out run is the agent's failure (``"fail"``, the
    default everywhere) or noise to leave out (``"exclude"``) can move the
    numbers a lot when errors are common; this table shows by how much.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Runs with ``error`` and/or ``timed_out`` columns (without them both
        policies agree), a tally table with ``n_errors`` (its ``n`` counting
        errored runs as failed runs), or a ``Tally``.
    ks : sequence of int, optional
        The k values; by default 1 to the largest n in each group.
    by : str or list of str, optional
        Grouping columns.

    Returns
    -------
    DataFrame
        ``[*by, k, pass_at_k_fail, pass_at_k_exclude, pass_pow_k_fail,
        pass_pow_k_exclude, n_tasks_fail, n_tasks_exclude, n_runs_excluded]``.

    Raises
    ------
    ValueError
        If the runs break a rule of :func:`~passk_lab.tally`, or `ks` holds
        a k that is not a positive integer.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "task": [0, 0, 1, 1], "run": [0, 1, 0, 1], "passed": [True, False, True, True],
    ...     "error": [None, "RateLimitError: 429", None, None],
    ... })
    >>> error_sensitivity(runs)[["k", "pass_pow_k_fail", "pass_pow_k_exclude"]]
       k  pass_pow_k_fail  pass_pow_k_exclude
    0  1             0.75                 1.0
    1  2             0.50                 1.0
    """
    summary = as_tally(runs, by, errors="fail")
    cells = Cells.from_tally(summary)
    ks_per_group = group_ks(cells, ks)
    fail = curve_table(cells, ks_per_group)
    exclude = curve_table(Cells.from_tally(summary.without_errors()), ks_per_group)
    keys = [*summary.by, "k"]
    measures = ["pass_at_k", "pass_pow_k", "n_tasks"]
    table = fail[[*keys, *measures]].merge(
        exclude[[*keys, *measures, "n_runs_excluded"]],
        on=keys,
        how="left",
        suffixes=("_fail", "_exclude"),
        validate="one_to_one",
    )
    order = [f"{measure}_{policy}" for measure in measures for policy in ("fail", "exclude")]
    return table[[*keys, *order, "n_runs_excluded"]]
