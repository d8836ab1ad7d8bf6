"""The report's costs: what k runs of a task cost, and what a task passing all of them costs.

When a runs table has ``cost_<name>`` columns, :func:`cost_table` is the
``costs`` file (the curve's cost columns at its ks) and :func:`cost_parts` the
page's Cost section: per group and cost a heading, a sentence and a table, or
only a sentence where too few runs recorded the cost to price anything;
:func:`cost_figures` draws, for two groups or more, each group's pass^k against
its cost.
"""

from __future__ import annotations

import html
from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._curve import with_costs
from passk_lab._data.costs import COST_PREFIX
from passk_lab._data.rules import is_dask_frame
from passk_lab._data.tally import Tally
from passk_lab._labels import label
from passk_lab.report._figures import Figure
from passk_lab.report._prose import group_name, num, plural
from passk_lab.report._tables import labelled

__all__ = ["CostPart", "cost_figures", "cost_parts", "cost_table"]

Priced = dict[tuple[Hashable, ...], tuple[int, dict[str, int]]]
"""Per group: its runs, and per cost column how many of them recorded a cost."""


@dataclass(frozen=True)
class CostPart:
    """One group's and one cost's part of the Cost section.

    Attributes ``heading`` (plain text), ``said`` (a sentence, as HTML),
    ``table`` (the costs over the ks, as the page shows them; None where too
    few runs recorded the cost) and ``notes`` (what a cell that holds words
    or nothing means, as HTML; one a kind, where the table has such a cell).
    """

    heading: str
    said: str
    table: pd.DataFrame | None
    notes: tuple[str, ...] = ()


def cost_table(curve: pd.DataFrame, summary: Tally, costs: pd.DataFrame) -> pd.DataFrame:
    """Return the report's cost table: per group and k of the curve, pass^k and what it costs."""
    shown = curve[[*summary.by, "k", "pass_pow_k", "n_tasks"]].copy()
    return with_costs(shown, summary, costs).drop(columns="n_tasks")


def _amount(value: float) -> str:
    """Return a cost as a reader reads it: three significant digits, whole numbers from 1,000."""
    return f"{num(value, ',.0f')}" if abs(value) >= 1000 else f"{num(value, '.3g')}"


NO_PASS = "no task passed"
"""The cost per task passing all k runs where none did: a cost over a pass^k of 0."""
NO_COST = "no cost"
"""pass^k per unit of cost where k runs cost nothing: pass^k over 0."""


def _cost_text(value: float) -> str:
    """Return a cost (or pass^k per cost) for a table cell: as :func:`_amount`, or empty for NaN.

    The cells where a division by 0 makes a value infinite or NaN say why in
    words instead (:data:`NO_PASS`, :data:`NO_COST`).

    >>> [_cost_text(value) for value in (12345.6, 0.5, float("nan"))]
    ['12,346', '0.5', '']
    """
    return "" if np.isnan(value) else _amount(value)


def _cell_notes(shown: pd.DataFrame, unit: str) -> tuple[str, ...]:
    """Return what the words and the blanks of a cost table mean, for those it holds."""
    cells = {str(cell) for column in shown.columns for cell in shown[column]}
    unit = html.escape(unit)
    notes = []
    if NO_PASS in cells:
        notes.append(
            f"\N{LEFT DOUBLE QUOTATION MARK}{NO_PASS}\N{RIGHT DOUBLE QUOTATION MARK}: at that k "
            "no task passed all k of its runs (pass<sup>k</sup> is 0), so no task's passing "
            "can be priced."
        )
    if NO_COST in cells:
        notes.append(
            f"\N{LEFT DOUBLE QUOTATION MARK}{NO_COST}\N{RIGHT DOUBLE QUOTATION MARK}: k runs of "
            f"a task cost nothing in {unit}, so pass<sup>k</sup> per {unit} has no bound."
        )
    if "" in cells:
        notes.append(f"A blank: no task counted at that k recorded a cost in {unit}.")
    return tuple(notes)


def _reading(rows: pd.DataFrame, name: str, group: str) -> str:
    """Return the sentence under a cost table, as HTML: what a task passing all k runs costs.

    The sentence reads the largest k with a cost; `group` names the rows'
    group (``model a``), or is empty without groups.
    """
    unit = html.escape(name.removeprefix(COST_PREFIX))
    where = html.escape(group)
    priced = rows[np.isfinite(rows[name].to_numpy(dtype=np.float64))]
    if priced.empty:
        return f"No task{f' of {where}' if group else ''} recorded a cost in {unit}."
    row = priced.iloc[-1]
    k, cost, share = int(row["k"]), float(row[name]), float(row["pass_pow_k"])
    runs = "1 run" if k == 1 else f"{k} runs"
    every = "its 1 run" if k == 1 else f"all {k} runs"
    start = f"For {where}, at k = {k}" if group else f"At k = {k}"
    if share == 0:
        return (
            f"{start}, no task passes {every} (pass<sup>{k}</sup> is 0), so no cost per such "
            f"task can be given; {runs} of a task cost {_amount(cost)} {unit}."
        )
    return (
        f"{start}, each task that passes {every} costs "
        f"{_amount(cost / share)} in {unit}: {runs} of a task cost {_amount(cost)} {unit}, and "
        f"pass<sup>{k}</sup> is {num(share, '.3g')}."
    )


def _priced_runs(runs: object, by: list[str], names: list[str]) -> Priced:
    """Return per group its runs, and how many of them recorded each cost column."""
    assert isinstance(runs, pd.DataFrame) or is_dask_frame(runs)
    frame: Any = runs
    flags = frame[names].notna().astype("int64").assign(_runs=1)
    for name in by:
        flags[name] = frame[name]
    if by:
        sums = flags.groupby(by, sort=False).sum()
        sums = sums.compute() if is_dask_frame(sums) else sums
        rows = {key if isinstance(key, tuple) else (key,): row for key, row in sums.iterrows()}
    else:
        total = flags.sum()
        rows = {(): total.compute() if is_dask_frame(flags) else total}
    return {
        key: (int(row["_runs"]), {name: int(row[name]) for name in names})
        for key, row in rows.items()
    }


def _part(rows: pd.DataFrame, name: str, group: str, total: int, recorded: int) -> CostPart:
    """Return one group's part for one cost: its table and reading, or why there is none."""
    unit = name.removeprefix(COST_PREFIX)
    heading = f"Cost in {unit}{f' ({group})' if group else ''}"
    some = f"{recorded:,} of {plural(total, 'run')}"
    if 2 * recorded < total:
        return CostPart(
            heading,
            f"Only {some} recorded a cost in {html.escape(unit)}: too few to price "
            "pass<sup>k</sup>, so no table is shown (costs.csv holds the figures).",
            None,
        )
    told = (
        f"All {plural(total, 'run')} recorded a cost."
        if recorded == total
        else f"{some} recorded a cost; a task's cost is the mean of its runs that did."
    )
    columns = ["k", "pass_pow_k", name, f"{name}_per_pass_pow_k", f"pass_pow_k_per_{unit}"]
    shown = labelled(rows[columns].reset_index(drop=True))
    costs, shares = rows[name].to_numpy(np.float64), rows["pass_pow_k"].to_numpy(np.float64)
    shown[label(name)] = [_cost_text(cost) for cost in costs]
    shown[label(columns[3])] = [  # a cost over pass^k
        NO_PASS if share == 0 and np.isfinite(cost) else _cost_text(value)
        for cost, share, value in zip(costs, shares, rows[columns[3]], strict=True)
    ]
    shown[label(columns[4])] = [  # pass^k over a cost
        NO_COST if cost == 0 else _cost_text(value)
        for cost, value in zip(costs, rows[columns[4]], strict=True)
    ]
    notes = _cell_notes(shown[[label(column) for column in columns[2:]]], unit)
    return CostPart(heading, f"{_reading(rows, name, group)} {told}", shown, notes)


def cost_parts(table: pd.DataFrame, runs: object, by: list[str]) -> tuple[CostPart, ...]:
    """Return the page's Cost section: per group and cost, its table over the ks and a reading.

    A cost that fewer than half of a group's runs recorded prices nothing:
    its table is left out, and a sentence says how many runs recorded it.
    """
    names = [
        name
        for name in table.columns
        if name.startswith(COST_PREFIX) and not name.endswith("_per_pass_pow_k")
    ]
    priced = _priced_runs(runs, by, names)
    parts = []
    groups = table.groupby(by, sort=False) if by else [((), table)]
    for key, rows in groups:
        values = key if isinstance(key, tuple) else (key,)
        total, recorded = priced[values]
        for name in names:
            parts.append(_part(rows, name, group_name(by, values), total, recorded[name]))
    return tuple(parts)


def cost_figures(curve: pd.DataFrame, table: pd.DataFrame, by: list[str]) -> tuple[Figure, ...]:
    """Return, per cost, a figure of each group's pass^k against what its runs cost.

    `curve` is the report's measured curve and `table` its cost table
    (:func:`cost_table`); the largest k is drawn. One group is one point,
    which its table says better: none is drawn then.
    """
    from passk_lab import plots

    if not by or curve.groupby(by, sort=False).ngroups < 2:
        return ()
    names = [
        name
        for name in table.columns
        if name.startswith(COST_PREFIX) and not name.endswith("_per_pass_pow_k")
    ]
    costs = table.drop(columns="pass_pow_k")  # the curve's own, with its interval, stays
    priced = curve.merge(costs, on=[*by, "k"], how="left", sort=False)
    k = int(curve["k"].max())
    return tuple(
        Figure(
            f"cost_reliability-{name.removeprefix(COST_PREFIX)}",
            f"pass^k at k = {k} against what a task's {k} runs cost "
            f"({name.removeprefix(COST_PREFIX)})",
            partial(plots.cost_reliability, priced, k, cost=name),
        )
        for name in names
    )
