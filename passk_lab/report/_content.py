"""What a report holds, computed once from one tally: its tables, its sentences, its figures.

:func:`build` runs every statistic of the report on the tally of its input
and returns a frozen :class:`Content`: the tables written as files, the
tables and sentences the page shows, and the figures to draw. Writing the
report is then only putting that content into files
(:mod:`passk_lab.report._page`) and one HTML page (:mod:`passk_lab.report._html`).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._choices import ErrorPolicy, IntervalMethod
from passk_lab._data.costs import task_costs
from passk_lab._labels import interval_label
from passk_lab._numbers import level_text
from passk_lab._warnings import NoEstimateWarning
from passk_lab.estimators import error_sensitivity, reliability_curve
from passk_lab.heterogeneity import fit_betabinom, success_counts
from passk_lab.report._board import Board, board_section
from passk_lab.report._costs import CostPart, cost_parts, cost_table
from passk_lab.report._figures import Figure
from passk_lab.report._folder import slugs
from passk_lab.report._inputs import Input, agent_errors, coverage, describing, extent, group_states
from passk_lab.report._prose import group_name, headline, ks_words, method_words, plural
from passk_lab.report._shown import CurveTables, FitTables, curve_tables, errors_table, fit_tables
from passk_lab.report._tables import labelled, metadata

__all__ = ["Content", "Options", "build"]

_MEASURED = [
    *("pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"),
    *("pass_at_k", "pass_at_k_low", "pass_at_k_high"),
]
"""The curve's measurements: those of a k asked for, not of a k only predicted."""
_ERRORED_RUNS = {"fail": "counted as failures", "exclude": "left out"}


@dataclass(frozen=True)
class Options:
    """The report's statistical options, checked: as :func:`~passk_lab.reliability_curve`'s."""

    by: list[str]
    errors: ErrorPolicy
    confidence_level: float
    method: IntervalMethod
    n_resamples: int
    rng: int | np.random.Generator | None
    asked: list[int]  # the ks measured
    predicted: list[int]  # the ks past them, predicted only

    def statistics(self) -> dict[str, Any]:
        """Return the keywords every statistic of the report takes."""
        return {
            "errors": self.errors,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "rng": self.rng,
        }


@dataclass(frozen=True)
class Content:
    """Everything a report says, ready to be written: tables, sentences (HTML), figures.

    Attributes
    ----------
    title : str
        The page's heading and title.
    headlines : tuple of str
        A sentence a reader can quote, one per group.
    facts : tuple of (str, str)
        What the input is: its name, its runs, the columns that describe it.
    coverage : DataFrame or None
        Per group, the tasks and runs every table counts (with groups only).
    notes : tuple of str
        Sentences under the input: the agent's own errors, no errors, no heatmap.
    board : Board or None
        The leaderboard section, with two or more groups.
    figures : tuple of Figure
        The page's figures after the leaderboard's: the decay curve, then
        each group's outcome heatmap and histogram.
    curve, fit : CurveTables, FitTables
        The curve, its predictions and the beta-binomial fit as shown.
    counts : DataFrame
        The success counts as shown.
    errors : tuple of (str, DataFrame) or None
        A sentence and the errored runs' table, when some run errored.
    costs : tuple of CostPart
        The Cost section's parts; empty without cost columns.
    methods : tuple of (str, str)
        How the figures were computed, said once.
    tables : dict of str to DataFrame
        Every table the report writes as CSV and Markdown, by file name.
    """

    title: str
    headlines: tuple[str, ...]
    facts: tuple[tuple[str, str], ...]
    coverage: pd.DataFrame | None
    notes: tuple[str, ...]
    board: Board | None
    figures: tuple[Figure, ...]
    curve: CurveTables
    fit: FitTables
    counts: pd.DataFrame
    errors: tuple[str, pd.DataFrame] | None
    costs: tuple[CostPart, ...]
    methods: tuple[tuple[str, str], ...]
    tables: dict[str, pd.DataFrame]

    @property
    def all_figures(self) -> tuple[Figure, ...]:
        """Return every figure of the report: the decay curve, the leaderboard's, the groups'."""
        ranked = self.board.figures if self.board is not None else ()
        return (*self.figures[:1], *ranked, *self.figures[1:])


def _with_group(frame: pd.DataFrame, by: list[str], key: tuple[Hashable, ...]) -> pd.DataFrame:
    """Put a group's labels in front of a table about that group."""
    for name, value in reversed(list(zip(by, key, strict=True))):
        frame.insert(0, name, [value] * len(frame))
    return frame


def _per_group(
    table: pd.DataFrame, by: list[str], keys: list[tuple[Hashable, ...]]
) -> list[pd.DataFrame]:
    """Return each group's rows of a table with the group columns `by`, in the order of `keys`."""
    if not by:
        return [table]
    return [
        table[
            np.logical_and.reduce(
                [table[name] == value for name, value in zip(by, key, strict=True)]
            )
        ]
        for key in keys
    ]


def _statistics(
    given: Input, options: Options
) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], list[pd.DataFrame]]:
    """Return the whole curve (predictions too), the report's tables and each group's counts."""
    by = options.by
    summary = given.summary
    counted = summary.to_frame()
    with warnings.catch_warnings():  # the ks past a group's runs are its predictions
        warnings.simplefilter("ignore", NoEstimateWarning)
        curve = reliability_curve(
            summary,
            [*options.asked, *options.predicted],
            by=by,
            method=options.method,
            **options.statistics(),
        )
    codes, labels = summary.groups()
    fits, counts = [], []
    for group, key in enumerate(labels.itertuples(index=False, name=None)):
        part = summary.group(codes == group)
        fits.append(_with_group(fit_betabinom(part, errors=options.errors).to_frame(), by, key))
        counts.append(_with_group(success_counts(part, errors=options.errors), by, key))
    curve.loc[~curve["k"].isin(options.asked), _MEASURED] = np.nan  # predictions alone
    measured = curve[(curve["n_tasks"] > 0) & curve["k"].isin(options.asked)]
    measured = measured.reset_index(drop=True)
    measured.attrs = dict(curve.attrs)
    tables = {
        "curve": measured,
        "betabinom": pd.concat(fits, ignore_index=True),
        "success_counts": pd.concat(counts, ignore_index=True),
    }
    for name in ("betabinom", "success_counts"):
        tables[name].attrs = {**extent(counted, by), "errors": options.errors}
    recorded = given.recorded
    if recorded.n_errors is not None and recorded.n_errors.sum():
        tables["errors"] = error_sensitivity(recorded, by=by)
        tables["errors"].attrs = extent(recorded.to_frame(), by)
    costs = task_costs(given.runs, given.summary.by)
    if costs is not None:
        tables["costs"] = cost_table(measured, given.summary, costs)
        tables["costs"].attrs = {**extent(counted, by), "errors": options.errors}
    return curve, tables, counts


def _figures(
    given: Input, curve: pd.DataFrame, counts: list[pd.DataFrame], by: list[str]
) -> tuple[Figure, ...]:
    """Return the page's figures: the decay curve, then each group's heatmap and histogram."""
    from passk_lab import plots

    codes, labels = given.summary.groups()
    keys = list(labels.itertuples(index=False, name=None))
    across = f" by {', '.join(by)}" if by else ""
    figures = [
        Figure("decay_curve", f"pass^k against k{across}", partial(plots.decay_curve, curve))
    ]
    suffixes = [f"-{slug}" for slug in slugs(keys, by)] if by else [""]
    for group, (key, suffix, rows) in enumerate(zip(keys, suffixes, counts, strict=True)):
        name = group_name(by, key)
        where = f": {name}" if name else ""
        if given.states is not None:
            states = group_states(given.states, codes == group, by)
            heatmap = partial(plots.outcome_heatmap, states)
            figures.append(Figure(f"outcome_heatmap{suffix}", f"Every run{where}", heatmap))
        histogram = partial(plots.success_histogram, rows)
        figures.append(
            Figure(f"success_histogram{suffix}", f"Tasks by runs passed{where}", histogram)
        )
    return tuple(figures)


def _notes(given: Input, errored: int) -> tuple[str, ...]:
    """Return the sentences under the input: the agent's own errors, no errors, no heatmap."""
    notes = []
    agents_own = agent_errors(given.runs)
    if agents_own:
        notes.append(
            f"{plural(agents_own, 'run')} ended on the agent's own error (error_kind "
            "'agent'): such a run measured the agent, and counts as a failed run "
            "under either error policy."
        )
    if given.recorded.n_errors is not None and not errored:
        notes.append(f"No{' other' if agents_own else ''} run errored or timed out.")
    if given.states is None:
        notes.append(
            "The outcome heatmap is left out: it draws every run of a pandas runs table, and "
            f"this report was given {given.without_runs}."
        )
    return tuple(notes)


def _methods(
    curve: pd.DataFrame, board: Board | None, options: Options, shown_ks: list[int]
) -> tuple[tuple[str, str], ...]:
    """Return the block that says, once, how every figure of the page was computed."""
    attrs = curve.attrs
    info = {
        "confidence level": level_text(attrs["confidence_level"]),
        "intervals": method_words(str(attrs["method"]), options.n_resamples),
        "errored runs": _ERRORED_RUNS.get(str(attrs["errors"]), str(attrs["errors"])),
        "k": ks_words(shown_ks, options.predicted),
    }
    if board is not None and "leaderboard" in board.tables:
        told = metadata(board.tables["leaderboard"])
        ranking = (
            f"by {told['ranked by']}, paired sign-flip tests, p-values adjusted: "
            f"{told['p-values adjusted']}"
        )
        if "tasks dropped" in told:
            ranking += f"; tasks dropped: {told['tasks dropped']}"
        info["leaderboard"] = ranking
    info["files"] = (
        "beside this page, every table as CSV (every digit; its metadata in # lines) and "
        "Markdown, every figure as PNG and SVG"
    )
    info |= {key: value for key, value in metadata(curve).items() if key in ("passk_lab", "date")}
    return tuple(info.items())


def build(given: Input, options: Options, title: str) -> Content:
    """Compute everything the report of `given` says, under `options`, headed `title`."""
    by = options.by
    curve, tables, counts = _statistics(given, options)
    measured = tables["curve"]
    counted = given.summary.to_frame()
    recorded = given.recorded.to_frame()
    codes, labels = given.summary.groups()
    keys = list(labels.itertuples(index=False, name=None))
    names = [group_name(by, key) for key in keys]
    shown_ks = sorted(set(measured["k"].tolist()))
    board = board_section(given.summary, codes, by, shown_ks, **options.statistics())
    if board is not None:
        tables |= board.tables
    level = interval_label(curve)
    headlines = tuple(
        headline(rows, counted[codes == group], name, level)
        for group, (name, rows) in enumerate(zip(names, _per_group(curve, by, keys), strict=True))
    )
    said, covered = coverage(recorded, counted, by, options.errors)
    facts = (("input", given.kind), ("runs", said), *describing(given.runs, by, given.kind))
    errored = int(recorded["n_errors"].sum()) if "n_errors" in recorded else 0
    errors = None
    if "errors" in tables:
        errors = (
            f"{plural(errored, 'run')} errored or timed out. Counted as failures they pull "
            "pass<sup>k</sup> down; left out, each task counts its other runs.",
            errors_table(tables["errors"], by),
        )
    costs = cost_parts(tables["costs"], given.runs, by) if "costs" in tables else ()
    return Content(
        title=title,
        headlines=headlines,
        facts=facts,
        coverage=covered if by else None,
        notes=_notes(given, errored),
        board=board,
        figures=_figures(given, curve, counts, by),
        curve=curve_tables(measured, curve, by),
        fit=fit_tables(tables["betabinom"], by, names),
        counts=labelled(tables["success_counts"]),
        errors=errors,
        costs=costs,
        methods=_methods(curve, board, options, shown_ks),
        tables=tables,
    )
