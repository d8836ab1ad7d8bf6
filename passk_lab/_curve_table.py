"""The curve table: one row per (group, k), its values, intervals and predictions.

:func:`curve_table` lays out what :func:`~passk_lab._curve.curve_values`
measures beside the intervals of :mod:`passk_lab._interval_policy` and the
predictions of the beta-binomial fit (:mod:`passk_lab.heterogeneity`); the
rows past the ks a group measures are the model's alone (``predicted``), and
only they get the fit's bootstrap band.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab._curve import curve_values
from passk_lab._curve_checks import check_curve_size, warn_dropped, warn_few, warn_rejected
from passk_lab._data.cells import Cells
from passk_lab._interval_policy import IntervalSpec, curve_intervals
from passk_lab._typing import Bools, Floats, Ints
from passk_lab.heterogeneity import BetaBinomialFit, fit_cells

__all__ = ["MODEL_BAND_RESAMPLES", "curve_table"]

MODEL_BAND_RESAMPLES = 1000
"""The most bootstrap resamples of the beta-binomial band (each one a fit): fewer when the
curve's ``n_resamples`` is smaller. A thousand refits of the plain model take about half a
second, so a curve's band costs that per group, and only when it has rows to predict."""

_LIMITS = (
    "pass_pow_k_low",
    "pass_pow_k_high",
    "pass_at_k_low",
    "pass_at_k_high",
    "p_pow_k_low",
    "p_pow_k_high",
    "betabinom_pow_k",
    "betabinom_pow_k_low",
    "betabinom_pow_k_high",
    "betabinom_fit_pvalue",
)
"""The columns of a curve that need an interval specification: the intervals and predictions."""
_BAND = ("betabinom_pow_k_low", "betabinom_pow_k_high")
"""The columns of the beta-binomial band, set on the predicted rows once every interval is."""


def curve_table(
    cells: Cells,
    group_ks: list[Ints],
    spec: IntervalSpec | None = None,
    predict_to: int = 0,
    *,
    common_tasks: bool = False,
) -> pd.DataFrame:
    """Return the curve: one row per (group, k), intervals and predictions only with `spec`.

    Each group also gets rows for the k above its own up to `predict_to`, which
    warn of no missing estimate. With `common_tasks`, a group counts only its
    tasks with at least the largest asked k runs that some task has, at every
    k, and measures no k above that; otherwise each k counts the tasks with at
    least k runs, and with `spec` a warning says when a k counts fewer tasks
    than the first k does. A row whose k is past the last k its group measures
    (its most runs, or with `common_tasks` the common k) is ``predicted``; with
    `spec`, the beta-binomial fit's bootstrap band is set on those rows alone,
    after every interval is drawn, so that predictions change no interval.

    Parameters
    ----------
    cells : Cells
        The cells.
    group_ks : list of numpy.ndarray of int
        The asked ks of every group (:func:`~passk_lab._curve_checks.group_ks`).
    spec : IntervalSpec, optional
        The intervals; without it the interval and prediction columns are NaN
        and no warning but a missing estimate's is given.
    predict_to : int
        The largest k of the predictions (0: none past the asked ks).
    common_tasks : bool
        Count every k on the same tasks.

    Returns
    -------
    DataFrame
        :func:`~passk_lab.reliability_curve`'s columns, costs aside.

    Raises
    ------
    ValueError
        If the curve would not fit the memory budget.

    Examples
    --------
    >>> from passk_lab._curve import cells_of
    >>> counts = pd.DataFrame({"task": [0, 1], "n": [4, 2], "c": [3, 1]})
    >>> cells = cells_of(counts, None, "fail")
    >>> curve_table(cells, [np.arange(1, 5)], predict_to=5)[["k", "pass_pow_k", "n_tasks",
    ...                                                       "predicted"]]
       k  pass_pow_k  n_tasks  predicted
    0  1       0.625        2      False
    1  2       0.250        2      False
    2  3       0.250        1      False
    3  4       0.000        1      False
    4  5         NaN        0       True
    """
    asked_ks = group_ks
    check_curve_size(cells, asked_ks, predict_to, spec is not None)
    group_ks = [np.union1d(ks, np.arange(ks.max() + 1, predict_to + 1)) for ks in group_ks]
    all_ks = np.unique(np.concatenate(group_ks))
    asked = np.stack([np.isin(all_ks, ks) for ks in asked_ks])
    common = _common_ks(cells, asked_ks) if common_tasks else None
    pow_k, at_k, at_1, counted = curve_values(cells, all_ks, asked, common)
    if spec is not None:  # a curve of its own, not error_sensitivity's columns
        if common is None:
            warn_dropped(cells, counted, all_ks, asked_ks)
        warn_few(cells, counted, all_ks, asked_ks)
    n_tasks = np.add.reduceat(cells.tasks, cells.starts)
    last = cells.max_n() if common is None else common  # the last k each group measures
    parts: list[pd.DataFrame] = []
    bands: list[tuple[pd.DataFrame, BetaBinomialFit, Bools]] = []
    for group, ks in enumerate(group_ks):
        columns = np.searchsorted(all_ks, ks)
        limits: dict[str, Floats] = {name: np.full(len(ks), np.nan) for name in _LIMITS}
        methods: list[str] = [""] * len(ks)
        fit = None
        if spec is not None:
            rows = _counted_rows(cells, group, common)
            measured = np.isfinite(pow_k[group, columns])
            limits, methods, fit = _limits(cells, group, rows, ks, spec, measured)
        values = {
            "pass_pow_k": pow_k[group, columns],
            "pass_at_k": at_k[group, columns],
            "p_pow_k": at_1[group] ** ks,
            "n_tasks": counted[group, columns].astype(np.int64),
        }
        predicted = ks > last[group]
        part = _part(cells, group, ks, values | limits, methods, n_tasks[group], predicted)
        parts.append(part)
        if fit is not None and predicted.any():
            bands.append((part, fit, predicted))
    if spec is not None:  # after every interval, which may draw from the same rng
        for part, fit, predicted in bands:
            _model_band(part, fit, predicted, spec)
    return pd.concat(parts, ignore_index=True)


def _common_ks(cells: Cells, asked_ks: list[Ints]) -> Ints:
    """Return, per group, the largest asked k its tasks reach (their most runs if none is)."""
    return np.array(
        [
            ks[ks <= most].max() if np.any(ks <= most) else most
            for ks, most in zip(asked_ks, cells.max_n(), strict=True)
        ]
    )


def _counted_rows(cells: Cells, group: int, common: Ints | None) -> Ints:
    """Return the cells a group's intervals count: all of them, or those with the common runs."""
    ends = [*cells.starts[1:], len(cells.n)]
    rows = np.arange(cells.starts[group], ends[group])
    return rows if common is None else rows[cells.n[rows] >= common[group]]


def _part(
    cells: Cells,
    group: int,
    ks: Ints,
    values: dict[str, Floats],
    methods: list[str],
    tasks: int,
    predicted: Bools,
) -> pd.DataFrame:
    """Return a group's rows: its labels, `values` in the curve's order, and what they count."""
    columns = [
        *("pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"),
        *("pass_at_k", "pass_at_k_low", "pass_at_k_high"),
        *("p_pow_k", "p_pow_k_low", "p_pow_k_high"),
        *("betabinom_pow_k", *_BAND, "betabinom_fit_pvalue"),
    ]
    counted = values["n_tasks"]
    part = pd.DataFrame(
        {
            "k": ks,
            **{name: values[name] for name in columns},
            "n_tasks": counted,
            "n_tasks_excluded": tasks - counted,
            "n_runs_excluded": cells.n_runs_excluded[group],
            "interval_method": pd.array(
                [
                    None if np.isnan(value) else name
                    for value, name in zip(values["pass_pow_k"], methods, strict=True)
                ],
                dtype="str",
            ),
            "predicted": predicted,
        }
    )
    for name in reversed(cells.by):
        part.insert(0, name, cells.groups[name].iloc[group])
    return part


def _limits(
    cells: Cells,
    group: int,
    rows: Ints,
    ks: Ints,
    spec: IntervalSpec,
    measured: Bools,
) -> tuple[dict[str, Floats], list[str], BetaBinomialFit | None]:
    """Return a group's :data:`_LIMITS` columns at its ks, its interval methods and its fit.

    The intervals are of the cells `rows` (the group's counted tasks), NaN
    where the value is not `measured`; the beta-binomial fit is of those
    cells with runs (None without any), its band left NaN for :func:`_model_band`.
    """
    n, c, tasks = cells.n[rows], cells.c[rows], cells.tasks[rows]
    intervals = curve_intervals(n, c, tasks, ks, spec)
    limits: dict[str, Floats] = {name: np.full(len(ks), np.nan) for name in _LIMITS}
    ends = (*intervals.pass_pow_k, *intervals.pass_at_k)
    for name, limit in zip(_LIMITS[:4], ends, strict=True):
        limits[name] = np.where(measured, limit, np.nan)
    for name, limit in zip(("p_pow_k_low", "p_pow_k_high"), intervals.pass_at_1, strict=True):
        limits[name] = limit[0] ** ks
    fit = None
    if np.any(n > 0):
        runs = n > 0
        fit = fit_cells(n[runs], c[runs], tasks[runs])
        limits["betabinom_pow_k"] = np.asarray(fit.pow_k(ks), dtype=np.float64)
        limits["betabinom_fit_pvalue"] = np.full(len(ks), fit.goodness_of_fit.p_value)
        if fit.rejected and ks.max() > n.max():
            warn_rejected(cells, group, fit.goodness_of_fit.p_value, int(n.max()))
    return limits, intervals.methods, fit


def _model_band(
    part: pd.DataFrame, fit: BetaBinomialFit, predicted: Bools, spec: IntervalSpec
) -> None:
    """Set the fit's bootstrap band on the `predicted` rows of a group's `part`, in place.

    Each resample of tasks is refitted (:meth:`BetaBinomialFit.confidence_interval`),
    drawn from the curve's generator, at most :data:`MODEL_BAND_RESAMPLES` of them.
    """
    band = fit.confidence_interval(
        part["k"].to_numpy()[predicted],
        confidence_level=spec.confidence_level,
        n_resamples=min(spec.n_resamples, MODEL_BAND_RESAMPLES),
        rng=spec.rng,
    )
    for name, values in zip(_BAND, band, strict=True):
        part.loc[predicted, name] = values
