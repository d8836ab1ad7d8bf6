"""What a report holds, computed once from one tally: its tables, its sentences, its figures.

:func:`build` runs every statistic of the report on the tally of its input
and returns a frozen :class:`Content`: the tables written as files, the
tables and sentences the page shows, and the figures to draw. Writing the
report is then only putting that content into files
(:mod:`passk_lab.report._page`) and one HTML page (:mod:`passk_lab.report._html`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._choices import ErrorPolicy, IntervalMethod
from passk_lab._data.costs import task_costs
from passk_lab._labels import LABELS, interval_label, label
from passk_lab._numbers import level_text
from passk_lab._warnings import NoEstimateWarning, TasksLeftOutWarning
from passk_lab.estimators import error_sensitivity, reliability_curve
from passk_lab.heterogeneity import fit_betabinom, success_counts
from passk_lab.report._board import Board, board_section
from passk_lab.report._captions import pairs_caption
from passk_lab.report._costs import CostPart, cost_figures, cost_parts, cost_table
from passk_lab.report._explained import blank_intervals, fit_terms, interval_blanks, unidentified
from passk_lab.report._figures import Figure
from passk_lab.report._inputs import Input, agent_errors, coverage, describing, extent
from passk_lab.report._parts import Part, curve_figure, group_parts
from passk_lab.report._prose import group_name, headline, ks_words, listed, method_words, plural
from passk_lab.report._shown import CurveTables, FitTables, curve_tables, errors_table, fit_tables
from passk_lab.report._tables import metadata

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
    curve_figure : Figure
        The decay curve, after the leaderboard.
    parts : tuple of Part
        Each group's part: its runs, its tasks by runs passed and their counts.
    group_word : str
        What the page calls a group: the grouping column's name when it is
        one word (``model``), else ``group``.
    captions : dict of str to str
        The caption of a figure (HTML), by its name, where it has one.
    curve, fit : CurveTables, FitTables
        The curve, its predictions and the beta-binomial fit as shown.
    predicted : tuple of (DataFrame, DataFrame)
        The predictions' table split in two: its rows at a k the curve
        measures for the group, and the rest, which models alone give (past
        the group's runs, or at a k not asked).
    beyond_said : str
        Why no measurement stands beside the second part (HTML).
    fit_terms : tuple of (str, str)
        What each column of the fit's table is (HTML), by its label.
    explained : dict of str to tuple of str
        Per section (``curve``, ``predictions``, ``errors``), why a cell of
        its table is blank, where one is (HTML).
    errors : tuple of (str, DataFrame) or None
        A sentence and the errored runs' table, when some run errored.
    costs : tuple of CostPart
        The Cost section's parts; empty without cost columns.
    cost_figures : tuple of Figure
        Per cost, each group's pass^k against its cost; none for one group.
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
    curve_figure: Figure
    parts: tuple[Part, ...]
    group_word: str
    captions: dict[str, str]
    curve: CurveTables
    fit: FitTables
    predicted: tuple[pd.DataFrame, pd.DataFrame]
    beyond_said: str
    fit_terms: tuple[tuple[str, str], ...]
    explained: dict[str, tuple[str, ...]]
    errors: tuple[str, pd.DataFrame] | None
    costs: tuple[CostPart, ...]
    cost_figures: tuple[Figure, ...]
    methods: tuple[tuple[str, str], ...]
    tables: dict[str, pd.DataFrame]

    @property
    def all_figures(self) -> tuple[Figure, ...]:
        """Return every figure of the report: the board's, the decay curve, the groups', costs'."""
        ranked = self.board.figures if self.board is not None else ()
        groups = (item for part in self.parts for item in part.figures)
        return (*ranked, self.curve_figure, *groups, *self.cost_figures)


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
    with warnings.catch_warnings():  # the ks past a group's runs are its predictions,
        warnings.simplefilter("ignore", NoEstimateWarning)
        warnings.simplefilter("ignore", TasksLeftOutWarning)  # and the curve's table says it
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


def _pass_at_1(counted: pd.DataFrame, codes: npt.NDArray[np.intp], groups: int) -> list[float]:
    """Return each group's pass@1: the mean over its tasks with a run of each one's share passed."""
    ran = counted["n"].to_numpy() > 0
    share = counted["c"].to_numpy() / np.where(ran, counted["n"].to_numpy(), 1)
    return [
        float(share[(codes == group) & ran].mean()) if ((codes == group) & ran).any() else np.nan
        for group in range(groups)
    ]


def _predicted(
    shown: pd.DataFrame, curve: pd.DataFrame, by: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split the predictions' table: its rows at a k the curve measures, and those past the runs.

    A row is past the runs where the curve has no measured pass^k for its
    group and k: the ks only predicted, and a group's ks above its most runs.
    """
    keys = [*by, "k"]
    beyond = {
        tuple(key)
        for key in curve.loc[curve["pass_pow_k"].isna(), keys].itertuples(index=False, name=None)
    }
    rows = shown[[label(name) for name in keys]].itertuples(index=False, name=None)
    past = np.array([tuple(row) in beyond for row in rows], dtype=bool)
    return _told(shown[~past]), _told(shown[past])


def _told(table: pd.DataFrame) -> pd.DataFrame:
    """Return a part of the predictions' table without the columns its heading makes idle.

    Its "model-based" column goes where every row says the same (the heading says
    it: model-based alone past the runs, none at the ks measured), and the
    model's band where it is empty throughout (at the ks measured it has none).
    """
    texts = {column: table[column].astype("str") for column in table.columns}
    idle = {
        column
        for column, text in texts.items()
        if (column == LABELS["predicted"] and text.eq(text.iloc[0] if len(text) else "").all())
        or (str(column).startswith(f"{LABELS['betabinom_pow_k']} ") and text.eq("").all())
    }
    return table[[column for column in table.columns if column not in idle]].reset_index(drop=True)


def _beyond_said(curve: pd.DataFrame, asked: list[int], grouped: bool) -> str:
    """Return why no measurement stands beside the predictions past the runs, as HTML."""
    beyond = curve[curve["pass_pow_k"].isna()]
    reasons = []
    if (beyond["n_tasks"] == 0).any():
        reasons.append(f"no task{' of the group' if grouped else ''} has k runs")
    unasked = sorted({int(k) for k in beyond.loc[beyond["n_tasks"] > 0, "k"]})
    if unasked:
        measured = listed([str(k) for k in asked])
        reasons.append(f"the report measures k = {measured} alone")
    return (
        f"No measured pass<sup>k</sup> stands beside these rows: {'; '.join(reasons)}. Each "
        "figure holds only as far as its model describes the runs (the fit below says how "
        "well the beta-binomial does)."
    )


def _starting(table: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """Return the columns of `table` whose labels start with `prefix`."""
    return table[[column for column in table.columns if str(column).startswith(prefix)]]


def _explained(
    shown: CurveTables,
    methods: pd.Series,
    predicted: tuple[pd.DataFrame, pd.DataFrame],
    fit: FitTables,
    errors: tuple[str, pd.DataFrame] | None,
    fits: pd.DataFrame,
    names: list[str],
) -> dict[str, tuple[str, ...]]:
    """Return per section why a cell of its table is blank, where one is.

    `methods` is the measured curve's ``interval_method``, row by row of `shown.measured`.
    """
    notes: dict[str, tuple[str, ...]] = {}
    blank = interval_blanks(shown.measured, methods)
    notes["curve"] = (blank,) if blank else ()
    naive = f"{LABELS['p_pow_k']} "
    band = f"{LABELS['betabinom_pow_k']} "
    said = [
        "An interval of (pass@1)<sup>k</sup> is blank where fewer than 2 tasks count."
        if any(blank_intervals(_starting(table, naive)).any() for table in predicted)
        else None,
        "The beta-binomial's interval is given only past every task's runs, where the model "
        "alone speaks: a blank there is a k whose runs some task has."
        if any(blank_intervals(_starting(table, band)).any() for table in predicted)
        else None,
        unidentified(fits, names, "The beta-binomial prediction"),
    ]
    notes["predictions"] = tuple(text for text in said if text)
    if fit.details.isna().to_numpy().any():
        notes["details"] = (
            "A blank cell is a figure not computed for that fit: a test of the zero/one-inflated "
            "model where that model was not fitted, or a figure of a fit not identified.",
        )
    if errors is not None and errors[1].isna().to_numpy().any():
        notes["errors"] = (
            "A blank: no task has k runs once its errored runs are left out, so there is "
            "nothing to estimate at that k.",
        )
    return notes


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
    captions = {}
    if board is not None:
        tables |= board.tables
        if "pairwise" in board.tables:
            attrs = board.tables["pairwise"].attrs
            metric = str(board.tables["leaderboard"].attrs["metric"])
            k = int(board.tables["leaderboard"]["k"].max())
            captions["pairwise_heatmap"] = pairs_caption(attrs, metric, k)
    level = interval_label(curve)
    groups = _per_group(curve, by, keys)
    headlines = tuple(
        headline(rows, counted[codes == group], name, level)
        for group, (name, rows) in enumerate(zip(names, groups, strict=True))
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
    drawn = cost_figures(tables["curve"], tables["costs"], by) if "costs" in tables else ()
    fits = tables["betabinom"]
    rates = _pass_at_1(counted, codes, len(keys))
    parts = group_parts(given, counts, fits, by, rates)
    figure, captions["decay_curve"] = curve_figure(curve, counted, by, names, options.asked)
    captions |= {part.histogram.name: part.caption for part in parts}
    shown = curve_tables(measured, curve, by)
    fit = fit_tables(fits, by, names)
    predicted = _predicted(shown.predicted, curve, by)
    return Content(
        title=title,
        headlines=headlines,
        facts=facts,
        coverage=covered if by else None,
        notes=_notes(given, errored),
        board=board,
        curve_figure=figure,
        parts=parts,
        group_word=by[0] if len(by) == 1 and re.fullmatch(r"[a-z]+", by[0]) else "group",
        captions=captions,
        curve=shown,
        fit=fit,
        predicted=predicted,
        beyond_said=_beyond_said(curve, options.asked, bool(by)),
        fit_terms=fit_terms(fits, names, rates, [str(column) for column in fit.shown.columns]),
        explained=_explained(
            shown, measured["interval_method"], predicted, fit, errors, fits, names
        ),
        errors=errors,
        costs=costs,
        cost_figures=drawn,
        methods=_methods(curve, board, options, shown_ks),
        tables=tables,
    )
