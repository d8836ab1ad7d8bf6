"""Runs and counts: every run of every task as a cell, and how many tasks passed how often."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Hashable
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.container import BarContainer
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, StepPatch
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import ScaledTranslation

from passk_lab._checks import check_size
from passk_lab._data.costs import COST_PREFIX
from passk_lab._data.rules import display
from passk_lab.outcomes import RUN_STATES, outcome_matrix
from passk_lab.plots._style import (
    MOST_TICKS,
    PALETTE,
    axes_of,
    integer_ticks,
    literal,
    require_table,
)
from passk_lab.plots._text import legend_width, make_room, points, text_width

__all__ = ["outcome_heatmap", "success_histogram"]

_STATES = {  # code: (label, colour); the heatmap's categories in legend order
    4: ("passed", "#0072B2"),
    1: ("failed", "#F5C6A5"),
    2: ("errored", "#D55E00"),
    3: ("timed out", "#7A3E9D"),
    0: ("no run", "#FFFFFF"),
}
_CODES = {name: code for code, (name, _) in _STATES.items()}
_MOST_BARS = 200
"""The most counts a success histogram draws as bars; past it, one filled outline of them all.

A bar is an artist: 20,001 of them (tasks of 20,000 runs) took 20 s to draw, and each is
thinner than a pixel anyway.
"""
_CELL_BYTES = 16
"""Bytes a heatmap holds per (task, run) cell: its int64 code and matplotlib's float64 copy."""

_MOST_MARKERS = 50
"""The most counts the success histogram marks one by one; past them its lines are plain."""

_READABLE = 8.0
"""The smallest size, in points, at which the heatmap writes task ids unless told to write all."""

_LINE_SPACING = 1.3
"""The height a label takes, as a multiple of its size: the size and the gap to the next."""

_MOST_SKIPPED = 5
"""The most rows the heatmap passes over from one labelled row to the next; past it, none."""


def _state_codes(states: pd.DataFrame) -> np.ndarray:
    """Codes of every (task, run) cell of ``outcome_matrix(..., states=True)``; see ``_STATES``."""
    codes = np.empty(states.shape, dtype=np.int64)
    for column, (_, values) in enumerate(states.items()):
        # each category's code, and last "no run" (0) for a missing cell, whose position is -1
        lookup = np.array([*(_CODES[state] for state in values.cat.categories), 0])
        codes[:, column] = lookup[values.cat.codes.to_numpy()]
    return codes


def _is_states(frame: pd.DataFrame) -> bool:
    """Whether `frame` is an outcome matrix of states, one task per row."""
    return list(frame.index.names) == ["task"] and all(
        isinstance(dtype, pd.CategoricalDtype) and tuple(dtype.categories) == RUN_STATES
        for dtype in frame.dtypes
    )


def _row_labels(row_height: float) -> tuple[int, float]:
    """Return every how many rows a task id fits at a readable size, and that size in points.

    `row_height` is in points; 0 rows when labelling every few rows would still not fit.
    The size is the y tick labels' size of matplotlib's settings, and no less than 8 pt
    when rows are passed over.
    """
    wanted = _tick_size()
    if min(wanted, row_height / _LINE_SPACING) >= _READABLE:
        return 1, wanted
    size = max(wanted, _READABLE)
    every = math.ceil(size * _LINE_SPACING / row_height)
    return (every if every <= _MOST_SKIPPED else 0), size


def _tick_size() -> float:
    """Return the size in points of the y tick labels that matplotlib's settings now give."""
    return points("ytick.labelsize")


def _mark_passes(ax: Axes, passes: np.ndarray, runs: np.ndarray | None, every_row: float) -> float:
    """Mark the tasks' passes on the right of `ax`, a count per group that fits; return its width.

    `passes` runs down the rows, and `runs` (None when every task has as many) with them; a
    group (tasks alike in both) is written at its middle, ``"2"`` or ``"2 of 3"``, one label
    every `every_row` rows at least, and when every group has its label a tick inside the
    Axes parts each from the next. The width is in points, from the Axes' edge to the far
    side of the axis label.
    """
    changes = passes[1:] != passes[:-1]
    if runs is not None:
        changes |= runs[1:] != runs[:-1]
    starts = np.flatnonzero(np.r_[True, changes])
    ends = np.r_[starts[1:], len(passes)]
    middles, labels, last = [], [], -np.inf
    for start, end in zip(starts, ends, strict=True):
        middle = (start + end - 1) / 2
        if middle - last >= every_row:
            middles.append(middle)
            labels.append(
                f"{int(passes[start])}" + ("" if runs is None else f" of {int(runs[start])}")
            )
            last = middle
    right = ax.secondary_yaxis("right")
    right.set_yticks(middles, labels)
    if len(middles) == len(starts):
        right.set_yticks(ends[:-1] - 0.5, minor=True)
    right.tick_params(axis="y", which="major", length=0)
    right.tick_params(
        axis="y", which="minor", direction="in", length=plt.rcParams["ytick.major.size"] * 2
    )
    right.set_ylabel("runs passed")
    label_size = points("axes.labelsize")
    widest = max((text_width(label, _tick_size()) for label in labels), default=0.0)
    pads = float(plt.rcParams["ytick.major.pad"]) + float(plt.rcParams["axes.labelpad"])
    return pads + widest + label_size * _LINE_SPACING


def _ordinal(number: int) -> str:
    """Return `number` as an ordinal: ``2`` as ``"2nd"``, ``11`` as ``"11th"``."""
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


_RUN_COLUMNS = ("task", "run", "passed", "reward", "error", "error_kind", "timed_out")
"""The columns of a runs table that say what a run was, not whose or which evaluation's."""


def _repeated_run(runs: pd.DataFrame) -> ValueError | None:
    """Return the heatmap's refusal of a table with a run in several rows, or None if none is.

    One agent's runs have each (task, run) once; several rows of one are
    several agents or evaluations, which the columns that differ among them
    tell apart, or copies. The refusal says how to draw one at a time.
    """
    if not {"task", "run"} <= set(runs.columns):
        return None
    repeated = runs.duplicated(["task", "run"], keep=False).to_numpy()
    if not repeated.any():
        return None
    first = runs.iloc[int(np.argmax(repeated))]
    task, run = first["task"], first["run"]
    rows = runs[repeated & (runs["task"] == task).to_numpy() & (runs["run"] == run).to_numpy()]
    apart = [
        name
        for name in runs.columns
        if name not in _RUN_COLUMNS
        and not str(name).startswith(COST_PREFIX)
        and _varies(rows[name])
    ]
    where = f"run {display(run)!r} of task {display(task)!r} is in {len(rows)} rows"
    if apart:
        name, value = apart[0], display(rows[apart[0]].iloc[0])
        return ValueError(
            f"outcome_heatmap draws one agent's runs, each run in one row, and {where}, told "
            f"apart by {', '.join(map(repr, apart))}; draw one {name} at a time, such as "
            f"outcome_heatmap(runs[runs[{name!r}] == {value!r}]), one heatmap each"
        )
    return ValueError(
        f"outcome_heatmap draws one agent's runs, each run in one row, and {where} that no "
        "column tells apart; if they are copies, drop them (runs.drop_duplicates()), and if "
        "they are runs of two evaluations, draw each evaluation's table on its own"
    )


def _varies(column: pd.Series) -> bool:
    """Whether `column` holds more than one value (missing ones alike); False if unhashable."""
    try:
        return len(column.drop_duplicates()) > 1
    except TypeError:  # lists, dicts: no column to filter by
        return False


def outcome_heatmap(
    runs: pd.DataFrame,
    *,
    ax: Axes | None = None,
    threshold: float = 1.0,
    task_labels: bool | None = None,
) -> Axes:
    """Draw every run as a cell, tasks down (most passes at the top) and runs across.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    runs : DataFrame
        One agent's runs table (filter a grouped table to one group first);
        ``error`` and ``timed_out`` columns, when present, mark those runs.
        Or its ``outcome_matrix(runs, states=True)``, indexed by task alone,
        drawn as it is.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.
    threshold : float
        The reward a run needs to pass, when the table has ``reward``.
    task_labels : bool, optional
        Label the rows with task ids. By default (None) as many as can be
        read: every row when each has room for a label of 8 pt or more,
        else every 2nd, 3rd, 4th or 5th row (counted from the top, as
        drawn) at 8 pt, and none when even every 5th has no room. True
        labels every row, smaller if need be; False labels none.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> fig, ax = plt.subplots(figsize=(6, 4))
    >>> ax = outcome_heatmap(pk.simulate_coin(seed=42), ax=ax)
    >>> ax.images[0].get_array().shape  # 40 tasks x 5 runs
    (40, 5)
    >>> ax.get_ylabel().splitlines()[0]
    '40 tasks, most passes first'
    >>> plt.close(fig)
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a DataFrame, got {type(runs).__name__}")
    try:
        matrix = (
            runs if _is_states(runs) else outcome_matrix(runs, threshold=threshold, states=True)
        )
    except ValueError as error:
        repeated = _repeated_run(runs)
        if repeated is None:
            raise
        raise repeated from error
    if matrix.empty:
        raise ValueError(
            f"the outcome matrix has {matrix.shape[0]} tasks and {matrix.shape[1]} runs; pass "
            f"one with at least one run of one task"
        )
    check_size(
        "the outcome heatmap",
        matrix.shape,
        _CELL_BYTES,
        "draw a sample of the tasks or of the runs (a runs table filtered first)",
        names=("tasks", "runs"),
    )
    codes = _state_codes(matrix)
    passes = (codes == 4).sum(axis=1)
    runs_done = (codes != 0).sum(axis=1)
    unequal = len(np.unique(runs_done)) > 1
    order = np.lexsort((runs_done if unequal else np.zeros_like(passes), -passes))
    codes = codes[order]
    ax = axes_of(ax)
    colors = ListedColormap([_STATES[code][1] for code in range(5)])
    ax.imshow(
        codes,
        cmap=colors,
        norm=BoundaryNorm(np.arange(-0.5, 5.5), 5),
        aspect="auto",
        interpolation="nearest",
    )
    ax.grid(False)
    runs_drawn = len(matrix.columns)
    ticks = np.asarray(MaxNLocator(nbins=MOST_TICKS, integer=True).tick_values(0, runs_drawn - 1))
    shown = ticks[(ticks >= 0) & (ticks <= runs_drawn - 1)].astype(np.int64)
    ax.set_xticks(shown, [literal(run) for run in matrix.columns[shown]])
    tasks = len(matrix)
    row_height = ax.bbox.height * 72 / ax.figure.dpi / tasks  # in points
    every, size = _row_labels(row_height)
    if task_labels:
        every, size = 1, min(size, row_height / _LINE_SPACING)
    elif task_labels is not None:
        every = 0
    if every:
        labelled = np.arange(0, tasks, every)
        ax.set_yticks(labelled, [literal(task) for task in matrix.index[order[labelled]]])
        ax.tick_params(axis="y", labelsize=size)
    else:
        ax.set_yticks([])
    which = {0: "\nids not labelled", 1: ""}.get(every, f"\nevery {_ordinal(every)} labelled")
    ax.set_ylabel(f"{tasks} task{'s' if tasks != 1 else ''}, most passes first{which}")
    ax.set_xlabel("run")
    width = _mark_passes(
        ax,
        passes[order],
        runs_done[order] if unequal else None,
        _tick_size() * _LINE_SPACING / row_height,
    )
    present = set(np.unique(codes).tolist()) | {1, 4}
    names = [name for code, (name, _) in _STATES.items() if code in present]
    make_room(ax, width + legend_width(names))
    ax.legend(
        handles=[
            Patch(facecolor=color, edgecolor="0.6", label=name)
            for code, (name, color) in _STATES.items()
            if code in present
        ],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        bbox_transform=ax.transAxes + ScaledTranslation(width / 72, 0, ax.figure.dpi_scale_trans),
    )
    return ax


def success_histogram(counts: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Draw how many tasks passed 0, 1, ..., n of their runs, against the models' expectations.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    counts : DataFrame
        What :func:`~passk_lab.success_counts` returns.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Bars are the tasks observed (past 200 counts, one filled outline of
    them); circles the binomial expectation, every task passing a run with
    one chance, the pooled pass rate; squares the beta-binomial fit, each
    task with a chance of its own. Bars taller than the circles at both
    ends mean heterogeneity: some tasks nearly always pass and some nearly
    never do. The key names each number in words, and says why two pass
    rates a reader would compare differ. It sits beside the Axes, clear of
    the bars; in a figure with no layout engine, the figure's right margin
    is widened when it would not fit.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
    >>> fig, ax = plt.subplots()
    >>> ax = success_histogram(pk.success_counts(counts), ax=ax)
    >>> [int(bar.get_height()) for bar in ax.patches]
    [2, 1, 0, 1, 2]
    >>> print(ax.get_legend().get_texts()[1].get_text())
    binomial: one pass rate for every
    task, pass@1 = 0.500
    >>> plt.close(fig)
    """
    frame = require_table(
        counts, ["successes", "n_tasks", "binomial", "betabinom"], "success_counts"
    )
    ax = axes_of(ax)
    successes = frame["successes"].to_numpy()
    observed = frame["n_tasks"].to_numpy()
    bars: BarContainer | StepPatch
    if len(successes) <= _MOST_BARS:
        bars = ax.bar(successes, observed, width=0.7, color="0.75", label="tasks observed")
    else:  # one outline, not a bar per count: a bar each is an artist each
        edges = np.append(successes - 0.5, successes[-1] + 0.5)
        bars = ax.stairs(observed, edges, fill=True, color="0.75", label="tasks observed")
    figure = ax.get_figure(root=True)
    room = _KEY_SHARE * 72 * (figure.get_figwidth() if figure is not None else 6.4)
    binomial, betabinom, note = _model_labels(frame.attrs, room)
    few = len(successes) <= _MOST_MARKERS  # a marker a count, while they stay apart
    handles: list[Artist] = [bars]  # what was seen, first
    handles += ax.plot(
        successes,
        frame["binomial"].to_numpy(),
        "o--" if few else "--",
        color=PALETTE[0],
        label=binomial,
    )
    fitted = frame["betabinom"].to_numpy(dtype=np.float64)
    if np.isfinite(fitted).any():  # a fit not identified draws nothing, and is not keyed
        handles += ax.plot(
            successes, fitted, "s:" if few else ":", color=PALETTE[1], lw=2.2, label=betabinom
        )
        if note:
            handles.append(Line2D([], [], ls="none", label=note))
    if len(successes) <= MOST_TICKS:
        ax.set_xticks(successes)
    else:
        integer_ticks(ax)
        ax.set_xlim(successes.min() - 0.5, successes.max() + 0.5)
    ax.set_xlabel(f"runs passed (of {int(successes.max())})")
    ax.set_ylabel("tasks")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # a count of tasks
    ax.set_ylim(bottom=0)
    make_room(ax, legend_width([str(handle.get_label()) for handle in handles]))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax


def _model_labels(attrs: dict[Hashable, Any], room: float) -> tuple[str, str, str]:
    """Return the key's words for the binomial and the fit, and a note on why two rates differ.

    Each pass rate is named, and where two a reader would compare differ as
    written (the pooled rate and pass@1; the fit's mean and pass@1), the key
    says why; the note is empty when they agree. Two rates equal but for
    rounding error are written alike. The lines are as long as fit in `room`
    points, 32 characters at most.
    """
    pooled, pass_at_1 = _number(attrs, "binomial_mean"), _number(attrs, "pass_at_1")
    if pooled is not None and pass_at_1 is not None and math.isclose(pooled, pass_at_1):
        pooled = pass_at_1
    binomial = "binomial: one pass rate"
    if pooled is not None:
        if pass_at_1 is None or f"{pooled:.3f}" == f"{pass_at_1:.3f}":
            binomial += f", pass@1{_IS}{pooled:.3f}"
        else:  # tasks with more runs count more in the pool
            binomial += (
                f", {pooled:.3f}{_IS}all passes \N{DIVISION SIGN} all runs "
                f"(pass@1 {pass_at_1:.3f} weighs tasks equally)"
            )
    mean, icc = _number(attrs, "fit_pass_at_1"), _number(attrs, "icc")
    if mean is not None and pass_at_1 is not None and math.isclose(mean, pass_at_1):
        mean = pass_at_1
    shares = [
        f"{share:.0%} {which} pass"
        for which, share in (
            ("never", _number(attrs, "zero_share")),
            ("always", _number(attrs, "one_share")),
        )
        if attrs.get("model") == "inflated" and share
    ]
    rho = "" if icc is None else f"run-to-run correlation \N{GREEK SMALL LETTER RHO}{_IS}{icc:.2f}"
    if rho and not shares and f"{icc:.2f}" == "0.00":  # its line lies on the binomial's
        fit = f"beta-binomial fit: {rho}, tasks alike: the binomial's line"
        mean = None  # the binomial's rate, said once
    else:
        fit = "beta-binomial fit: a pass rate per task"
        if shares:
            fit += ", " + " and ".join(shares).replace(" pass and", " and")
        if mean is not None:
            fit += f"; mean pass rate {mean:.3f}"
        if rho:
            fit += f"; {rho}" + (" in the rest" if shares else "")
    note = ""
    if mean is not None and pass_at_1 is not None and f"{mean:.3f}" != f"{pass_at_1:.3f}":
        note = f"{mean:.3f} is not pass@1 ({pass_at_1:.3f}): the fit matches the whole histogram"
    for width in range(_LONGEST, _SHORTEST - 1, -1):
        labels = [textwrap.fill(text, width) for text in (binomial, fit, note)]
        if legend_width(labels) <= room:
            break
    return labels[0], labels[1], labels[2]


_LONGEST, _SHORTEST = 32, 16
"""The most and the fewest characters a line of the success histogram's key holds."""

_KEY_SHARE = 0.45
"""The share of its figure's width the success histogram's key may take, if its lines allow."""


_IS = "\N{NO-BREAK SPACE}=\N{NO-BREAK SPACE}"
"""An equals sign that a line of the key does not break at."""


def _number(attrs: dict[Hashable, Any], name: str) -> float | None:
    """Return ``attrs[name]`` if it is a number that is not NaN, else None."""
    value = attrs.get(name)
    return float(value) if isinstance(value, float | int) and value == value else None
