"""Values of pass^k, pass@k and pass@1 from (n, c) cells, and a curve's costs.

The public functions of :mod:`passk_lab.estimators` are thin: each reduces its
input to :class:`~passk_lab._data.cells.Cells` and asks this module for the
means per group (:func:`curve_values`), or :mod:`passk_lab._curve_table` for
the whole curve, whose intervals come from :mod:`passk_lab._interval_policy`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab._curve_checks import warn_empty
from passk_lab._data.cells import Cells, pass_pow_k_values, products
from passk_lab._data.costs import COST_PREFIX
from passk_lab._data.rules import By, ErrorPolicy
from passk_lab._data.tally import Tally, as_tally
from passk_lab._typing import Bools, Floats, Ints

__all__ = [
    "by_group",
    "cells_of",
    "curve_values",
    "means",
    "price_pass_pow_k",
    "with_costs",
]


def means(cells: Cells, values: Floats) -> tuple[Floats, Floats]:
    """Return the task-weighted mean of cell values within each group, and the tasks counted.

    Parameters
    ----------
    cells : Cells
        The cells.
    values : numpy.ndarray
        Cells x columns; NaN where a cell is not counted.

    Returns
    -------
    means : numpy.ndarray
        Groups x columns; NaN where no task counts.
    counted : numpy.ndarray
        Groups x columns: the tasks counted.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = cells_of(pd.DataFrame({"task": [0, 1], "n": [4, 2], "c": [3, 1]}), None, "fail")
    >>> means(cells, np.array([[0.5], [np.nan]]))
    (array([[0.5]]), array([[1.]]))
    """
    counted = cells.group_sum(np.isfinite(values).astype(np.float64))
    totals = cells.group_sum(values)
    means: Floats = np.divide(totals, counted, out=np.full(totals.shape, np.nan), where=counted > 0)
    return means, counted


def curve_values(
    cells: Cells, ks: Ints, asked: Bools | None = None, common: Ints | None = None
) -> tuple[Floats, Floats, Floats, Floats]:
    """Return pass^k, pass@k, pass@1 and the tasks counted, per group (rows) and k (columns).

    pass@1 and pass^1 are the same number, computed once (``1 - mean(1 - c/n)``
    could differ from ``mean(c/n)`` in the last bit). With `common` (one k per
    group), a group counts only its tasks with at least that many runs, and
    measures no k above it.

    Parameters
    ----------
    cells : Cells
        The cells.
    ks : numpy.ndarray of int
        The ks, each ``>= 1``.
    asked : numpy.ndarray of bool, optional
        Groups x ks: the ks a missing estimate is warned of (all by default).
    common : numpy.ndarray of int, optional
        Per group, the k whose tasks every k counts.

    Returns
    -------
    pass_pow_k, pass_at_k : numpy.ndarray
        Groups x ks.
    pass_at_1 : numpy.ndarray
        One per group.
    counted : numpy.ndarray
        Groups x ks: the tasks counted.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = cells_of(pd.DataFrame({"task": [0, 1], "n": [4, 2], "c": [3, 1]}), None, "fail")
    >>> pow_k, at_k, at_1, counted = curve_values(cells, np.array([1, 2]))
    >>> pow_k.tolist(), at_k.tolist(), at_1.tolist(), counted.tolist()
    ([[0.625, 0.25]], [[0.625, 1.0]], [0.625], [[2.0, 2.0]])
    """
    n, c = cells.n, cells.c

    def counted_only(values: Floats, ks: Ints) -> Floats:
        if common is None:
            return values
        limit = common[cells.group]
        kept = (n >= limit)[:, None] & (ks[None, :] <= limit[:, None])
        return np.where(kept, values, np.nan)

    pow_k, counted = means(cells, counted_only(pass_pow_k_values(n, c, ks), ks))
    # pass@k is one minus the mean of C(n - c, k) / C(n, k), not the mean of
    # pass_at_k_values: the two differ in the last bit, and the curve's pass@k is pinned
    at_k = 1.0 - means(cells, counted_only(products(n, n - c, ks), ks))[0]
    at_k[:, ks == 1] = pow_k[:, ks == 1]
    one = np.ones(1, dtype=np.int64)
    at_1 = means(cells, counted_only(pass_pow_k_values(n, c, one), one))[0][:, 0]
    warn_empty(cells, counted, ks, asked)
    return pow_k, at_k, at_1, counted


def by_group(cells: Cells, values: Floats, name: str) -> float | pd.Series:
    """Return one value per group: a float without groups, else a Series indexed by group.

    Parameters
    ----------
    cells : Cells
        The cells the values are of.
    values : numpy.ndarray
        One per group.
    name : str
        The Series' name.

    Returns
    -------
    float or pandas.Series

    Examples
    --------
    >>> import pandas as pd
    >>> cells = cells_of(pd.DataFrame({"task": [0, 1], "n": [4, 2], "c": [3, 1]}), None, "fail")
    >>> by_group(cells, np.array([0.5]), "pass_at_1")
    0.5
    """
    if not cells.by:
        return float(values[0])
    index = (
        pd.Index(cells.groups.iloc[:, 0], name=cells.by[0])
        if len(cells.by) == 1
        else pd.MultiIndex.from_frame(cells.groups)
    )
    return pd.Series(values, index=index, name=name)


def cells_of(runs: object, by: By, errors: ErrorPolicy) -> Cells:
    """Reduce any input the estimators take to its (n, c) cells, the rules applied once.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Whatever :func:`~passk_lab._data.tally.as_tally` takes.
    by : str, list of str or None
        Grouping columns.
    errors : {"fail", "exclude"}
        The error policy.

    Returns
    -------
    Cells

    Raises
    ------
    ValueError
        As :func:`~passk_lab._data.tally.as_tally`.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = cells_of(pd.DataFrame({"task": [0, 1], "n": [4, 2], "c": [3, 1]}), None, "fail")
    >>> cells.n.tolist(), cells.c.tolist()
    ([2, 4], [1, 3])
    """
    return Cells.from_tally(as_tally(runs, by, errors=errors))


def with_costs(curve: pd.DataFrame, summary: Tally, costs: pd.DataFrame) -> pd.DataFrame:
    """Add to a curve, for each cost, what k runs of a task cost and what pass^k costs.

    `costs` holds every task's mean cost per run (``[*by, task, cost_<name>...]``,
    :func:`~passk_lab._data.costs.task_costs`). A row of the curve counts the
    ``n_tasks`` tasks of its group with the most runs under `summary`'s error
    policy -- the tasks with at least k runs, or with ``common_tasks`` at least
    the common k, which are the same tasks since those sets are nested -- and
    gets, per cost name, ``cost_<name>``: k times the mean over those of them
    that recorded a cost; ``cost_<name>_per_pass_pow_k``: that over
    ``pass_pow_k``; ``pass_pow_k_per_<name>``: ``pass_pow_k`` over it.

    Parameters
    ----------
    curve : DataFrame
        A curve, with ``[*by, k, pass_pow_k, n_tasks]`` at least.
    summary : Tally
        The tally it was computed from.
    costs : DataFrame
        Every task's mean cost per run.

    Returns
    -------
    DataFrame
        `curve`, its cost columns added in place after its own.

    Examples
    --------
    >>> import pandas as pd
    >>> from passk_lab._data.costs import task_costs
    >>> runs = pd.DataFrame({"task": ["a", "a"], "run": [0, 1], "passed": [True, False],
    ...                      "cost_usd": [0.1, 0.3]})
    >>> from passk_lab._curve_table import curve_table
    >>> summary = as_tally(runs)
    >>> curve = curve_table(Cells.from_tally(summary), [np.array([1])])
    >>> with_costs(curve, summary, task_costs(runs, ()))[["k", "cost_usd", "pass_pow_k_per_usd"]]
       k  cost_usd  pass_pow_k_per_usd
    0  1       0.2                 2.5
    """
    by = list(summary.by)
    keys = [*by, "task"]
    names = [name for name in costs.columns if name not in keys]
    per_task = summary.labels[keys].merge(costs, on=keys, how="left", validate="one_to_one")
    codes, labels = summary.groups()
    order = np.lexsort((-summary.n, codes))  # each group's tasks, most runs first
    starts = np.searchsorted(codes[order], np.arange(len(labels)))
    if by:
        place = "__group__" + "_".join(by)
        rows = curve[by].merge(labels.assign(**{place: np.arange(len(labels))}), on=by, how="left")
        group = rows[place].to_numpy(dtype=np.intp)
    else:
        group = np.zeros(len(curve), dtype=np.intp)
    first = starts[group]
    last = first + curve["n_tasks"].to_numpy(dtype=np.intp)
    ks = curve["k"].to_numpy(dtype=np.float64)
    for name in names:
        values = per_task[name].to_numpy(dtype=np.float64)[order]
        recorded = ~np.isnan(values)
        total = np.concatenate([[0.0], np.cumsum(np.where(recorded, values, 0.0))])
        count = np.concatenate([[0], np.cumsum(recorded)])
        tasks = count[last] - count[first]
        mean = np.divide(
            total[last] - total[first], tasks, out=np.full(len(curve), np.nan), where=tasks > 0
        )
        curve[name] = ks * mean
        curve[f"{name}_per_pass_pow_k"] = np.nan
        curve[f"pass_pow_k_per_{name.removeprefix(COST_PREFIX)}"] = np.nan
    return price_pass_pow_k(curve)


def price_pass_pow_k(curve: pd.DataFrame) -> pd.DataFrame:
    """Set each cost's ``cost_<name>_per_pass_pow_k`` and ``pass_pow_k_per_<name>`` from its row.

    For a curve whose ``pass_pow_k`` was replaced (the adaptive evaluation's
    estimates): the two columns are ``cost_<name> / pass_pow_k`` and its
    inverse (``inf`` where the divisor is 0, NaN where both are).

    Parameters
    ----------
    curve : DataFrame
        A curve with cost columns.

    Returns
    -------
    DataFrame
        `curve`, its columns set in place.

    Examples
    --------
    >>> import pandas as pd
    >>> curve = pd.DataFrame({"pass_pow_k": [0.5, 0.0], "cost_usd": [2.0, 1.0],
    ...                       "cost_usd_per_pass_pow_k": 0.0, "pass_pow_k_per_usd": 0.0})
    >>> price_pass_pow_k(curve)["cost_usd_per_pass_pow_k"].tolist()
    [4.0, inf]
    """
    pow_k = curve["pass_pow_k"].to_numpy(dtype=np.float64)
    for name in [str(column) for column in curve if f"{column}_per_pass_pow_k" in curve]:
        cost = curve[name].to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            curve[f"{name}_per_pass_pow_k"] = cost / pow_k
            curve[f"pass_pow_k_per_{name.removeprefix(COST_PREFIX)}"] = pow_k / cost
    return curve
