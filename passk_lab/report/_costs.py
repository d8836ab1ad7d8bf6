"""The report's costs: what k runs of a task cost, and what a task passing all of them costs.

When a runs table has ``cost_<name>`` columns, :func:`cost_table` is the
``costs`` file (the curve's cost columns at its ks) and :func:`cost_parts` the
page's Cost section: per group and cost a heading, a sentence and a table, or
only a sentence where too few runs recorded the cost to price anything.
"""

from __future__ import annotations

import html
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._curve import with_costs
from passk_lab._data.costs import COST_PREFIX
from passk_lab._data.rules import is_dask_frame
from passk_lab._data.tally import Tally
from passk_lab._labels import label
from passk_lab._numbers import INFINITY
from passk_lab.report._prose import group_name, num, plural
from passk_lab.report._tables import labelled

__all__ = ["CostPart", "cost_parts", "cost_table"]

Priced = dict[tuple[Hashable, ...], tuple[int, dict[str, int]]]
"""Per group: its runs, and per cost column how many of them recorded a cost."""


@dataclass(frozen=True)
class CostPart:
    """One group's and one cost's part of the Cost section.

    Attributes ``heading`` (plain text), ``said`` (a sentence, as HTML) and
    ``table`` (the costs over the ks, as the page shows them; None where too
    few runs recorded the cost).
    """

    heading: str
    said: str
    table: pd.DataFrame | None


def cost_table(curve: pd.DataFrame, summary: Tally, costs: pd.DataFrame) -> pd.DataFrame:
    """Return the report's cost table: per group and k of the curve, pass^k and what it costs."""
    shown = curve[[*summary.by, "k", "pass_pow_k", "n_tasks"]].copy()
    return with_costs(shown, summary, costs).drop(columns="n_tasks")


def _amount(value: float) -> str:
    """Return a cost as a reader reads it: three significant digits, whole numbers from 1,000."""
    return f"{num(value, ',.0f')}" if abs(value) >= 1000 else f"{num(value, '.3g')}"


def _cost_text(value: float) -> str:
    """Return a cost (or pass^k per cost) for a table cell: as :func:`_amount`, ``∞``, or empty."""
    if np.isnan(value):
        return ""
    return INFINITY if np.isinf(value) else _amount(value)


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
    for column in columns[2:]:
        shown[label(column)] = [_cost_text(value) for value in rows[column]]
    return CostPart(heading, f"{_reading(rows, name, group)} {told}", shown)


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
