"""The whole report: every table, every plot and one self-contained ``report.html``.

:func:`write_report` checks its input once -- it reduces it to the per-task
tally -- and computes every table from that tally, so it takes whatever the
estimators take: a runs table, a tally, an outcome matrix or a Dask
DataFrame. Only the outcome heatmap needs the runs themselves; it is drawn
for a pandas runs table and left out, with a sentence saying so, otherwise.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._checks import positive_int
from passk_lab._choices import RESAMPLING_METHODS
from passk_lab._curve import with_costs
from passk_lab._data.costs import COST_PREFIX, task_costs
from passk_lab._data.grid import grid_frame, run_grid
from passk_lab._data.rules import (
    By,
    ErrorPolicy,
    by_columns,
    display,
    is_dask_frame,
    table_kind,
)
from passk_lab._data.tally import Tally, as_tally
from passk_lab._errors import with_keywords
from passk_lab._interval_policy import IntervalMethod
from passk_lab._labels import INTERVAL_LABELS, LABELS, interval_label, interval_name, label
from passk_lab._summary import level_text, p_value_text
from passk_lab._version import __version__
from passk_lab._warnings import (
    NoEstimateWarning,
    TasksLeftOutWarning,
    UnequalRunsWarning,
    UnmatchedTasksWarning,
    warn,
)
from passk_lab.estimators import error_sensitivity, reliability_curve
from passk_lab.heterogeneity import fit_betabinom, success_counts
from passk_lab.ranking import ranks_and_tests
from passk_lab.report._tables import export, html_text, labelled, metadata, settled, to_html

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["write_report"]


MANIFEST = ".passk-report.json"
"""The file, in a report's folder, that lists what the report wrote: it makes the folder ours."""
_SLUG_LIMIT = 56
"""The most characters of a group's part of a file name: success_histogram-<slug>.png, the
longest name, stays within 80 characters on every file system."""
_HASH_LENGTH = 10
"""Hex digits of the hash that sets apart groups whose names a file name cannot keep."""
_EVERY_K = 20
"""A report shows every k up to this; above it, only the ks of a 1-2-5 series (see _shown_ks)."""


def _num(value: float, spec: str) -> str:
    """Return `value` in the format `spec`, first to 12 significant digits: no float noise."""
    return format(settled(value), spec)


def _shown_ks(most: int, last: int | None = None) -> list[int]:
    """Return the ks a report shows when a task has at most `most` runs, predictions included.

    Every k up to :data:`_EVERY_K`; above it 50, 100, 200, 500, 1000, ...;
    and `most` and `last` (by default twice `most`, at least 10) themselves,
    so that a table stays a few dozen rows however many runs a task has.

    >>> _shown_ks(5)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> _shown_ks(300)[18:]
    [19, 20, 50, 100, 200, 300, 500, 600]
    """
    last = max(2 * most, 10) if last is None else last
    series = (step * 10**power for power in range(1, len(str(last))) for step in (1, 2, 5))
    shown = {*range(1, min(_EVERY_K, last) + 1), *series, max(most, 1), last}
    return sorted(k for k in shown if k <= last)


def _slugs(keys: list[tuple[Hashable, ...]], by: list[str]) -> list[str]:
    """Return one file-name part per group: unique, at most _SLUG_LIMIT characters.

    A group's ``name-value`` text keeps letters, digits, ``.``, ``=`` and
    ``-``, the rest turned into ``_``. Where that changed the text, cut it
    short or gave two groups one name -- upper and lower case counted as one,
    as macOS and Windows count them -- a hash of the group's values follows,
    so that ``gpt 4`` and ``gpt/4``, or ``GPT-4`` and ``gpt-4``, write two
    files each.
    """
    texts = [
        "-".join(f"{name}-{value}" for name, value in zip(by, key, strict=True)) for key in keys
    ]
    plain = [re.sub(r"[^A-Za-z0-9.=-]+", "_", text) for text in texts]
    taken = Counter(slug.lower() for slug in plain)  # GPT_4 and gpt_4: one file on macOS
    slugs = []
    for key, text, slug in zip(keys, texts, plain, strict=True):
        if slug == text and len(slug) <= _SLUG_LIMIT and taken[slug.lower()] == 1:
            slugs.append(slug)
            continue
        digest = hashlib.sha1(repr(key).encode("utf-8")).hexdigest()[:_HASH_LENGTH]
        slugs.append(f"{slug[: _SLUG_LIMIT - _HASH_LENGTH - 1]}-{digest}")
    return slugs


def _ours(folder: Path) -> set[str]:
    """Return the files an earlier report in `folder` listed in its manifest (none if no list)."""
    try:
        listed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {name for name in listed if isinstance(name, str) and Path(name).name == name}


def _origin(folder: Path) -> str | None:
    """Return the input an earlier report in `folder` recorded in its manifest, if any."""
    try:
        origin = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["source"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return origin if isinstance(origin, str) else None


def _claim(folder: Path, names: list[str], force: bool, origin: str | None) -> set[str]:
    """Make sure `folder` may take the report's `names`; return what an earlier report wrote.

    A missing or empty folder, or one with a manifest of an earlier report
    whose files are the only ones that `names` would replace, is the
    report's; any other is refused unless `force`.
    """
    if folder.exists() and not folder.is_dir():
        raise with_keywords(
            ValueError(f"out={str(folder)!r} is a file, not a folder; give a folder to write into"),
            "out",
        )
    folder.mkdir(parents=True, exist_ok=True)
    present = {path.name for path in folder.iterdir()}
    ours = _ours(folder)
    theirs = sorted((set(names) if MANIFEST in present else present) - ours - {MANIFEST})
    theirs = [name for name in theirs if name in present]
    earlier = _origin(folder) if MANIFEST in present else None
    if earlier is not None and origin is not None and earlier != origin and not force:
        raise with_keywords(
            ValueError(
                f"out={str(folder)!r} holds the report of {earlier}, not of {origin}; give another "
                "folder (--out), or force=True (--force) to replace that report"
            ),
            "out",
            "force",
        )
    if theirs and not force:
        shown = ", ".join(theirs[:5]) + (f" and {len(theirs) - 5} more" if len(theirs) > 5 else "")
        raise with_keywords(
            ValueError(
                f"out={str(folder)!r} holds files no passk_lab report wrote ({shown}); give an "
                f"empty or new folder, or force=True (--force) to write over them"
            ),
            "out",
            "force",
        )
    return ours & present


def _write_manifest(folder: Path, names: list[str], origin: str | None) -> None:
    manifest = {"passk_lab": __version__, "source": origin, "files": sorted(names)}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def _with_group(frame: pd.DataFrame, by: list[str], key: Iterable[Hashable]) -> pd.DataFrame:
    """Put a group's labels in front of a table about that group."""
    for name, value in reversed(list(zip(by, key, strict=True))):
        frame.insert(0, name, [value] * len(frame))
    return frame


def _checked(runs: object, by: By, errors: ErrorPolicy) -> tuple[Tally, pd.DataFrame | None]:
    """Check the input once: its tally under `errors`, and for a runs table every run's state.

    A pandas runs table gives both from one check (:func:`run_grid`); any
    other input gives its tally, and no states.
    """
    if isinstance(runs, pd.DataFrame) and "run" in runs.columns:
        grid = run_grid(runs, by_columns(by), 1.0, states=True)
        return grid.tally.under(errors), grid_frame(grid)
    return as_tally(runs, by, errors=errors), None


def _group_states(states: pd.DataFrame, rows: npt.NDArray[np.bool_], by: list[str]) -> pd.DataFrame:
    """One group's states, indexed by task, with the run indices that group has."""
    part = states[rows]
    if by:
        part = part.droplevel(tuple(by))
    return part.loc[:, part.notna().any().to_numpy()]


def _extent(counted: pd.DataFrame, by: list[str]) -> dict[Hashable | None, Any]:
    """Return the tasks and the runs per task (fewest, most) of a tally table, as ``attrs``.

    With groups, a task two groups ran is one task: the count of ids, with the groups and the
    fewest and most tasks of one, as :func:`~passk_lab.reliability_curve` records them.
    """
    runs: dict[Hashable | None, Any] = {
        "runs_per_task": [int(counted["n"].min()), int(counted["n"].max())]
    }
    if not by:
        return {"n_tasks": len(counted), **runs}
    per = counted.groupby(by, sort=False, dropna=False)["task"].nunique()
    return {
        "n_tasks": int(counted["task"].nunique()),
        "n_groups": len(per),
        "tasks_per_group": [int(per.min()), int(per.max())],
        **runs,
    }


_LIST_LIMIT = 10
"""The most task ids the leaderboard section names when it says which tasks it dropped."""


@dataclass(frozen=True)
class _Ranking:
    """The report's leaderboard section: its tables (none when it has none) and what it says."""

    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def plotted(self) -> list[str]:
        """Return the names of the section's plots: the forest and the map, for three or more.

        Two agents are one pair: the section's sentence gives its difference, interval and
        test, which the two plots would only draw again.
        """
        board = self.tables.get("leaderboard")
        if board is None or int((board["k"] == board["k"].max()).sum()) < 3:
            return []
        return ["leaderboard_forest", "pairwise_heatmap"]


def _listed(values: list[str]) -> str:
    """Join the first :data:`_LIST_LIMIT` of `values` for a sentence: ``a, b and 3 more``."""
    shown = values[:_LIST_LIMIT]
    rest = len(values) - len(shown)
    if rest:
        return f"{', '.join(shown)} and {rest} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _agent_name(row: pd.Series, by: list[str]) -> str:
    """Return an agent's name for a sentence: its value, or its values joined by `` / ``."""
    return " / ".join(str(display(row[name])) for name in by)


def _ranking(
    counted: pd.DataFrame,
    codes: npt.NDArray[np.intp],
    by: list[str],
    ks: list[int],
    **options: Any,
) -> _Ranking | None:
    """Rank the groups as agents on the tasks they share, at the report's `ks` that they reach.

    None when there are fewer than two groups; a ranking with no tables, and a
    note that says why, when the groups share no task. Tasks only some groups
    ran are dropped (the board lists them), and a note names them. The pairs
    are the board's own tests: its metric, on the tasks every agent has k runs
    of (``common_tasks=True``), with the same options.
    """
    agents = int(codes.max()) + 1 if len(codes) else 0
    if agents < 2:
        return None
    per_task = counted.groupby("task", sort=False)["n"].agg(["size", "min"])
    shared = per_task[per_task["size"] == agents]  # a tally has a row per agent and task
    who = f"the {agents} groups of {', '.join(by)}"
    if shared.empty:
        return _Ranking(
            notes=[
                f"No leaderboard: {who} share no task, and a leaderboard ranks agents on the "
                "same tasks."
            ]
        )
    reached = [k for k in ks if k <= int(shared["min"].max())]
    if not reached:
        return _Ranking(notes=[f"No leaderboard: no task has a run of every one of {who}."])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the dropped tasks and the counts per k: the page says them
        warnings.simplefilter("ignore", UnmatchedTasksWarning)
        warnings.simplefilter("ignore", TasksLeftOutWarning)
        board, pairs = ranks_and_tests(
            counted, by, reached, metric="pass_pow_k", unmatched="drop", **options
        )
    dropped = [str(task) for task in board.attrs["dropped_tasks"]]
    notes = []
    if dropped:
        notes.append(
            f"Ranked on the {len(shared)} tasks every agent ran; the {len(dropped)} that "
            f"some agent lacks are left out: {_listed(dropped)}."
        )
    for record in caught:
        if isinstance(record.message, UnequalRunsWarning):  # the page says it, under the reading
            message = str(record.message)
            notes.append(f"{message[0].upper()}{message[1:]}.")
        elif isinstance(record.message, Warning):
            warn(record.message)
    return _Ranking(tables={"leaderboard": board, "pairwise": pairs}, notes=notes)


def _how(test: str) -> str:
    """Return how a pair's test was computed, from pairwise's ``test``, for a sentence."""
    if test == "mcnemar_exact":
        return "McNemar's exact test"
    if test == "sign_flip_exact":
        return "computed exactly"
    if test == "sign_flip_approximate":
        return "computed exactly on its lattice, approximate as the agents' runs differ"
    return f"Monte Carlo, {test.removeprefix('sign_flip_monte_carlo (').rstrip(')')} draws"


def _at(metric: str, k: int) -> str:
    """Return a metric at one k in HTML: ``pass<sup>5</sup>``, ``pass@5``."""
    return (
        html_text(LABELS[metric]).replace("<sup>k</sup>", f"<sup>{k}</sup>").replace("@k", f"@{k}")
    )


def _reading(board: pd.DataFrame, pairs: pd.DataFrame, by: list[str]) -> str:
    """Return what the board says at its largest k, as HTML: who is in tie group 1, and why.

    Tie group 1 holds the agents no agent is shown to beat; the sentences name
    them, the agents shown worse than the best, and those shown worse only
    than some other agent. With two agents, the sentence gives their
    difference and its test instead. `pairs` holds the board's tests
    (``pairwise(..., metrics=[metric], common_tasks=True)``).
    """
    k = int(board["k"].max())
    rows = board[board["k"] == k].sort_values("rank", kind="stable")
    keys = [row[by[0]] if len(by) == 1 else tuple(row[by]) for _, row in rows.iterrows()]
    names = {
        key: html.escape(_agent_name(row, by))
        for key, (_, row) in zip(keys, rows.iterrows(), strict=True)
    }
    first = dict(zip(keys, rows["tie_group"].to_numpy() == 1, strict=True))
    level = board.attrs["confidence_level"]
    metric = board.attrs["metric"]
    tests = pairs[(pairs["metric"] == metric) & (pairs["k"] == k)]
    best = keys[0]
    if len(keys) == 2:
        pair = tests.iloc[0]
        sign = 1 if pair["a"] == best else -1
        ends = sorted(sign * pair[["difference_low", "difference_high"]].to_numpy(dtype=float))
        verdict = (
            "does not tell them apart: both are in tie group 1"
            if all(first.values())
            else "tells them apart"
        )
        return (
            f"At k = {k}, {names[best]}'s {_at(metric, k)} "
            f"exceeds {names[keys[1]]}'s by {_num(sign * pair['difference'], '.3f')} "
            f"({level_text(level)} CI "
            f"[{_num(ends[0], '.3f')}, {_num(ends[1], '.3f')}]); the paired sign-flip test (p = "
            f"{p_value_text(pair['p_value'])}, {_how(pair['test'])}) {verdict}."
        )
    by_tests = (
        f"the paired sign-flip tests, Holm-adjusted over the pairs at the {level_text(level)} level"
    )
    if all(first.values()):
        return (
            f"At k = {k}, {by_tests}, tell none of the {len(keys)} agents apart: all share tie "
            "group 1."
        )
    group = [names[key] for key in keys if first[key]]
    told = tests[(tests["p_adjusted"] <= 1 - level) & ((tests["a"] == best) | (tests["b"] == best))]
    beaten = {b if a == best else a for a, b in told[["a", "b"]].itertuples(index=False)}
    worse = [names[key] for key in keys if key in beaten and not first[key]]
    others = [names[key] for key in keys if key not in beaten and not first[key]]
    head = (
        f"{names[best]} is alone in tie group 1 (the agents no agent is shown to beat)"
        if len(group) == 1
        else f"tie group 1 (the agents no agent is shown to beat) holds {_listed(group)}"
    )
    told_apart = []
    if worse:
        told_apart.append(
            f"{_listed(worse)} {'is' if len(worse) == 1 else 'are'} shown worse than the best, "
            f"{names[best]}"
        )
    if others:
        told_apart.append(
            f"{_listed(others)} {'is' if len(others) == 1 else 'are'} shown worse than another "
            f"agent, not than {names[best]}"
        )
    return f"At k = {k}, {head}. By {by_tests}, {'; '.join(told_apart)}."


def _image(heading: str, data: bytes, tag: str) -> list[str]:
    """Return a plot's heading and its PNG inlined, for the page."""
    encoded = base64.b64encode(data).decode("ascii")
    return [
        f"<{tag}>{html_text(heading)}</{tag}>",
        f'<img alt="{html.escape(heading)}" src="data:image/png;base64,{encoded}">',
    ]


def _section(
    ranking: _Ranking,
    by: list[str],
    figure: Callable[..., tuple[str, bytes]],
) -> list[str]:
    """Return the page's leaderboard section: its reading, forest, board and map of pairs.

    `figure` draws and saves a plot as :func:`write_report` does; two agents get no plot
    (:meth:`_Ranking.plotted`).
    """
    from passk_lab import plots

    parts = ['<h2 id="leaderboard">Leaderboard</h2>']
    board = ranking.tables.get("leaderboard")
    if board is None:
        return parts + [f"<p>{html.escape(note)}</p>" for note in ranking.notes]
    pairs = ranking.tables["pairwise"]
    parts += [
        f"<p>{_reading(board, pairs, by)}</p>",
        *(f"<p>{html.escape(note)}</p>" for note in ranking.notes),
    ]
    k = int(board["k"].max())
    agents = int((board["k"] == k).sum())
    metric = LABELS[board.attrs["metric"]]
    table = [
        "<h3>The leaderboard at every k</h3>",
        _table(
            labelled(
                board[
                    [
                        *by,
                        "k",
                        *_metric_columns(board),
                        "n_tasks",
                        "rank",
                        "rank_low",
                        "rank_high",
                        "tie_group",
                    ]
                ]
            )
        ),
    ]
    if not ranking.plotted():
        return [*parts, *table, *_pairs_table(pairs)]
    forest = figure(
        "leaderboard_forest",
        f"{metric} at k = {k}: every agent's estimate, interval, rank and tie group",
        partial(plots.leaderboard_forest, board),
        (6.4, 1.6 + 0.3 * agents),
    )
    heatmap = figure(
        "pairwise_heatmap",
        f"Every pair's difference in {metric} at k = {k}",
        partial(plots.pairwise_heatmap, pairs, board.attrs["metric"]),
        (6.4, 2.2 + 0.3 * agents),
    )
    return [
        *parts,
        *_image(*forest, "h3"),
        *table,
        *_image(*heatmap, "h3"),
        *_pairs_table(pairs),
    ]


def _metric_columns(board: pd.DataFrame) -> list[str]:
    """Return the ranked metric's columns of a board: its estimate and interval."""
    metric = str(board.attrs["metric"])
    return [metric, f"{metric}_low", f"{metric}_high"]


def _pairs_table(pairs: pd.DataFrame) -> list[str]:
    """Return the table of the board's tests, folded: it has a row per k and pair.

    The metric (the ranked one) and the test are said once, above the table;
    the correlation of the pair's task values is in pairwise.csv.
    """
    shown = labelled(pairs.drop(columns=["metric", "test", "correlation"], errors="ignore"))
    for column in ("agent A", "agent B"):  # an agent of two or more columns: a / b
        shown[column] = [
            " / ".join(map(str, map(display, agent))) if isinstance(agent, tuple) else agent
            for agent in shown[column]
        ]
    tests = _listed(sorted({_how(str(test)) for test in pairs["test"]}))
    metric = _listed(sorted({LABELS.get(str(name), str(name)) for name in pairs["metric"]}))
    return [
        '<details id="pairwise"><summary>The tests the ranks come from: every pair at every '
        "k, its difference, interval and paired sign-flip test</summary>",
        f"<p>Each pair's difference in {html_text(metric)}, on the tasks every agent ran k "
        f"times, and its paired sign-flip test: {html.escape(tests)}.</p>",
        _table(shown, wrap=True),
        "</details>",
    ]


def _cost_table(curve: pd.DataFrame, summary: Tally, costs: pd.DataFrame) -> pd.DataFrame:
    """Return the report's cost table: per group and k of the curve, pass^k and what it costs."""
    shown = curve[[*summary.by, "k", "pass_pow_k", "n_tasks"]].copy()
    return with_costs(shown, summary, costs).drop(columns="n_tasks")


def _amount(value: float) -> str:
    """Return a cost as a reader reads it: three significant digits, whole numbers from 1,000."""
    return f"{_num(value, ',.0f')}" if abs(value) >= 1000 else f"{_num(value, '.3g')}"


def _cost_text(value: float) -> str:
    """Return a cost (or pass^k per cost) for a table cell: as :func:`_amount`, ``∞``, or empty."""
    if np.isnan(value):
        return ""
    return "\N{INFINITY}" if np.isinf(value) else _amount(value)


def _cost_reading(rows: pd.DataFrame, name: str, group: str) -> str:
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
        f"pass<sup>{k}</sup> is {_num(share, '.3g')}."
    )


def _group_name(by: list[str], key: Iterable[Hashable]) -> str:
    """Return a group as a reader names it: ``model a``, ``model a, domain airline``."""
    return ", ".join(f"{name} {display(value)}" for name, value in zip(by, key, strict=True))


def _priced_runs(
    runs: object, by: list[str], names: list[str]
) -> dict[tuple[Hashable, ...], tuple[int, dict[str, int]]]:
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


def _cost_section(
    table: pd.DataFrame,
    by: list[str],
    priced: dict[tuple[Hashable, ...], tuple[int, dict[str, int]]],
) -> list[str]:
    """Return the page's cost section: per group and cost, its table over the ks and a reading.

    A cost that fewer than half of a group's runs recorded prices nothing:
    its table is left out, and a sentence says how many runs recorded it.
    """
    names = [
        name
        for name in table.columns
        if name.startswith(COST_PREFIX) and not name.endswith("_per_pass_pow_k")
    ]
    parts = ['<h2 id="costs">Cost</h2>']
    groups = table.groupby(by, sort=False) if by else [((), table)]
    for key, rows in groups:
        values = key if isinstance(key, tuple) else (key,)
        group = _group_name(by, values)
        where = f" ({group})" if group else ""
        total, recorded = priced[values]
        for name in names:
            unit = name.removeprefix(COST_PREFIX)
            heading = f"<h3>Cost in {html.escape(unit)}{html.escape(where)}</h3>"
            some = f"{recorded[name]:,} of {_plural(total, 'run')}"
            if 2 * recorded[name] < total:
                parts += [
                    heading,
                    f"<p>Only {some} recorded a cost in {html.escape(unit)}: too few to price "
                    "pass<sup>k</sup>, so no table is shown (costs.csv holds the figures).</p>",
                ]
                continue
            told = (
                f"All {_plural(total, 'run')} recorded a cost."
                if recorded[name] == total
                else f"{some} recorded a cost; a task's cost is the mean of its runs that did."
            )
            columns = ["k", "pass_pow_k", name, f"{name}_per_pass_pow_k", f"pass_pow_k_per_{unit}"]
            shown = labelled(rows[columns].reset_index(drop=True))
            for column in columns[2:]:
                shown[label(column)] = [_cost_text(value) for value in rows[column]]
            parts += [heading, f"<p>{_cost_reading(rows, name, group)} {told}</p>", _table(shown)]
    return parts


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """Return a labelled table with each interval under its estimate: two levels of names.

    ``pass^k`` and ``pass^k 95% CI`` become ``(pass^k, estimate)`` and
    ``(pass^k, 95% CI)``, under one ``pass^k``; other columns have one name.
    """
    level = interval_label(frame)
    names = [str(name) for name in frame.columns]
    pairs: list[tuple[str, str]] = []
    for name in names:
        if name.endswith(f" {level}") and pairs and pairs[-1][0] == name.removesuffix(f" {level}"):
            pairs[-1] = (pairs[-1][0], "estimate")
            pairs.append((pairs[-1][0], level))
        else:
            pairs.append((name, ""))
    shown = frame.copy()
    shown.columns = pd.MultiIndex.from_tuples(pairs)
    return shown


def _table(frame: pd.DataFrame, *, wrap: bool = False) -> str:
    """Return a labelled table for the page: intervals under their estimates, in its box.

    A table with no interval beside its estimate keeps one row of names. With
    `wrap` its text cells (an agent's name) may take more than one line.
    """
    shown = _shown(frame)
    if not any(shown.columns.get_level_values(1)):
        shown = frame
    box = "table wrap" if wrap else "table"
    return f'<div class="{box}">\n{to_html(shown)}\n</div>'


_PREDICTIONS = ["p_pow_k", "p_pow_k_low", "p_pow_k_high", "betabinom_pow_k"]
"""The curve's predictions, in its predictions table."""
_FIT_SHOWN = ["mean", "icc", "alpha", "beta", "fitted_model"]
"""The fit's columns on the page; with groups, its tasks and runs are in the coverage table."""
_FIT_TESTS = ["lr_pvalue", "gof_pvalue"]
_FIT_DETAILS = [
    "zero_share",
    "one_share",
    "log_likelihood",
    "binomial_log_likelihood",
    "lr_statistic",
    "inflation_pvalue",
    "gof_statistic",
    "gof_df",
]
"""The fit's details on the page, folded; whether the fit is rejected its sentence says."""
_MODELS = {"betabinom": "beta-binomial", "inflated": "zero/one-inflated"}


_MEASURED = [
    "pass_pow_k",
    "pass_pow_k_low",
    "pass_pow_k_high",
    "pass_at_k",
    "pass_at_k_low",
    "pass_at_k_high",
]
"""The curve's measurements: those of a k asked for, not of a k only predicted."""


def _curve_tables(measured: pd.DataFrame, curve: pd.DataFrame, by: list[str]) -> list[str]:
    """Return the measured curve's table, and the predictions' table over every k drawn."""
    columns = [*by, "k", "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"]
    columns += ["pass_at_k", "pass_at_k_low", "pass_at_k_high", "n_tasks"]
    shown = labelled(measured[columns].reset_index(drop=True))
    tasks, left_out = measured["n_tasks"].to_numpy(), measured["n_tasks_excluded"].to_numpy()
    if left_out.any():  # the tasks a k counts, of those the group has
        shown[LABELS["n_tasks"]] = [
            f"{n} of {n + out}" for n, out in zip(tasks, left_out, strict=True)
        ]
    methods = [str(name).partition(" (") for name in measured["interval_method"]]
    used = list(dict.fromkeys(method for method, _, _ in methods))
    codes = {method: chr(ord("a") + index) for index, method in enumerate(used)}
    gave_way = any(rest for _, _, rest in methods)
    notes = []
    if len(used) > 1 or gave_way:  # a short mark per row, its method said once below
        shown["interval"] = [f"{codes[method]}{'*' if rest else ''}" for method, _, rest in methods]
        legend = "; ".join(f"{codes[method]}: {interval_name(method)}" for method in used)
        notes.append(f"<p>Intervals: {html.escape(legend)}.</p>")
    elif used:
        notes.append(f"<p>Every interval here is {html.escape(interval_name(used[0]))}.</p>")
    if gave_way:
        notes.append(
            "<p>* The bootstrap interval of pass@k or pass<sup>k</sup> had no width at that k "
            "(every resample gave the same value), and the closed-form interval stands in for "
            "it; curve.csv names it.</p>"
        )
    predicted = labelled(curve[[*by, "k", *_PREDICTIONS]].reset_index(drop=True))
    last = int(measured["k"].max()) if len(measured) else 0
    beyond = (
        f" Both go past the ks measured, to k = {int(curve['k'].max()):,}."
        if curve["k"].max() > last
        else ""
    )
    return [
        f'<h2 id="curve">{_TABLE_HEADINGS["curve"]}</h2>',
        _table(shown),
        *notes,
        '<h2 id="predictions">Predictions: pass<sup>k</sup> if runs were independent, and if '
        "tasks differ</h2>",
        "<p>(pass@1)<sup>k</sup> is what pass<sup>k</sup> would be if every run of every task "
        "passed independently with one chance; the beta-binomial prediction lets tasks differ "
        f"in difficulty (its fit is below).{beyond}</p>",
        _table(predicted),
    ]


def _fit_reading(fit: pd.Series, name: str) -> str:
    """Return what a beta-binomial fit says, as a sentence: how much its tasks differ.

    An inflated fit is read first, its point masses before its Beta part; a fit
    of one run per task (``alpha`` NaN) cannot tell alike tasks from differing
    ones, and says so.
    """
    where = f"{html.escape(name)}: " if name else ""
    alike = not np.isfinite(fit["alpha"]) and not np.isnan(fit["alpha"])
    if fit["fitted_model"] == "inflated":
        never, always = _num(fit["zero_share"], ".0%"), _num(fit["one_share"], ".0%")
        masses = f"{never} of tasks never pass, {always} always pass"
        rest = (
            f"the rest pass alike, each run with chance {_num(fit['mean'], '.3f')}"
            if alike
            else f"the rest differ with ICC {_num(fit['icc'], '.3f')}"
        )
        says = f"{masses}; {rest}"
    elif np.isnan(fit["alpha"]):
        runs = fit["n_runs"] / fit["n_tasks"] if fit["n_tasks"] else 0
        per_task = "1 run per task" if runs == 1 else "these runs"
        says = (
            f"with {per_task} the fit cannot tell whether tasks differ in difficulty: "
            f"pass@1 is {_num(fit['mean'], '.3f')}"
        )
    elif alike:
        says = (
            "the tasks look alike: the best fit is the binomial, every task with one chance "
            f"({_num(fit['mean'], '.3f')}) of passing a run (\N{GREEK SMALL LETTER ALPHA} and "
            "\N{GREEK SMALL LETTER BETA} infinite, ICC 0)"
        )
    elif fit["lr_pvalue"] <= 0.05:
        says = (
            f"tasks differ in difficulty (ICC {_num(fit['icc'], '.3f')}); the binomial, which "
            f"takes them alike, is rejected (p = {p_value_text(fit['lr_pvalue'])})"
        )
    else:
        says = (
            f"tasks may differ (ICC {_num(fit['icc'], '.3f')}), but not measurably more than "
            f"alike tasks would (p = {p_value_text(fit['lr_pvalue'])})"
        )
    if fit["rejected"]:
        says += (
            f"; the fit itself is rejected (p = {p_value_text(fit['gof_pvalue'])}): do not "
            "trust its predictions past the runs measured"
        )
    return f"{where}{says}."


def _shape(value: float) -> str:
    """Return a Beta shape for the fit's table: infinite as the sign, unidentified as a dash."""
    if np.isnan(value):
        return "\N{EM DASH}"
    return "\N{INFINITY}" if np.isinf(value) else _num(value, ".3g")


def _model_name(model: str, alpha: float) -> str:
    """Return the model a fit chose, as a reader knows it: infinite shapes are the binomial."""
    if np.isnan(alpha) and model != "inflated":
        return "\N{EM DASH}"
    if np.isinf(alpha):
        return "zero/one-inflated binomial" if model == "inflated" else "binomial"
    return _MODELS.get(model, model)


def _fit_tables(table: pd.DataFrame, by: list[str], names: list[str]) -> list[str]:
    """Return the fit's section: its table, what each fit says, and the rest folded."""
    counts = [] if by else ["n_tasks", "n_runs"]
    shown = labelled(table[[*by, *counts, *_FIT_SHOWN, *_FIT_TESTS]])
    for column in ("alpha", "beta"):
        shown[LABELS[column]] = [_shape(value) for value in table[column]]
    if (table["fitted_model"] == "inflated").any():  # the Beta part's mean is not the pass rate
        zero, one = table["zero_share"].fillna(0.0), table["one_share"].fillna(0.0)
        shown[LABELS["mean"]] = (one + (1 - zero - one) * table["mean"]).to_numpy()
        shown = shown.rename(columns={LABELS["icc"]: f"{LABELS['icc']} of the rest"})
    shown[LABELS["fitted_model"]] = [
        _model_name(str(model), alpha)
        for model, alpha in zip(table["fitted_model"], table["alpha"], strict=True)
    ]
    inflated = (table["fitted_model"] == "inflated").any()  # else no task is in a point mass
    details = labelled(
        table[[*by, *(name for name in _FIT_DETAILS if inflated or not name.endswith("_share"))]]
    )
    readings = [
        _fit_reading(fit, name) for (_, fit), name in zip(table.iterrows(), names, strict=True)
    ]
    return [
        f'<h2 id="betabinom">{_TABLE_HEADINGS["betabinom"]}</h2>',
        _table(shown.reset_index(drop=True)),
        *(f"<p>{reading[0].upper()}{reading[1:]}</p>" for reading in readings),
        "<details><summary>The fit's likelihoods and tests</summary>",
        _table(details.reset_index(drop=True)),
        "</details>",
    ]


def _errors_tables(table: pd.DataFrame, by: list[str], errored: int) -> list[str]:
    """Return the errored runs' section: pass^k and pass@k with them failing or left out."""
    policies = {"fail": "errors as failures", "exclude": "errors left out"}
    columns: list[tuple[str, str]] = [(name, "") for name in [*by, "k"]]
    columns += [
        (policies[policy], label(metric))
        for policy in policies
        for metric in ("pass_pow_k", "pass_at_k", "n_tasks")
    ]
    shown = table[[*by, "k"]].copy()
    for policy in policies:
        for metric in ("pass_pow_k", "pass_at_k", "n_tasks"):
            shown[f"{metric}_{policy}"] = table[f"{metric}_{policy}"]
    shown["runs left out"] = table["n_runs_excluded"]
    shown.columns = pd.MultiIndex.from_tuples([*columns, ("runs left out", "")])
    runs = "1 run" if errored == 1 else f"{errored} runs"
    return [
        f'<h2 id="errors">{_TABLE_HEADINGS["errors"]}</h2>',
        f"<p>{runs} errored or timed out. Counted as failures they pull pass<sup>k</sup> down; "
        "left out, each task counts its other runs.</p>",
        f'<div class="table">\n{to_html(shown.reset_index(drop=True))}\n</div>',
    ]


_TABLE_HEADINGS = {
    "curve": "pass<sup>k</sup> and pass@k with intervals",
    "betabinom": "Beta-binomial fit: how much tasks differ",
    "success_counts": "Tasks by runs passed, observed and expected",
    "errors": "Errored runs as failures, or left out",
}
_NO_HEATMAP = (
    "The outcome heatmap is left out: it draws every run of a pandas runs table, and this "
    "report was given {given}."
)
_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
.headline { font-size: 1.15rem; }
div.table { max-width: 100%; overflow-x: auto; margin: 0.5rem 0 1.5rem; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { padding: 0.2rem 0.6rem; border-bottom: 1px solid #ddd; }
td { white-space: nowrap; }
div.wrap td[style$="left"] { white-space: normal; }
th { border-bottom: 2px solid #888; text-align: center; vertical-align: bottom;
     max-width: 10rem; font-weight: 600; }
thead tr:first-child th[colspan] { border-bottom: 1px solid #888; }
img { max-width: 100%; height: auto; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.1rem 1rem; }
dt { color: #555; }
dd { margin: 0; overflow-wrap: anywhere; }
details { margin: 0.5rem 0 1.5rem; }
"""


_RUN_COLUMNS = (
    *("task", "run", "passed", "reward", "error", "error_kind", "timed_out"),
    *("attempts", "started_at", "duration_s"),  # the harness's record of each run
)
"""The runs table's own columns: they hold the runs, not what the runs were of."""
_OUTCOME_WORDS = frozenset({"reason", "status", "outcome", "result", "termination", "exit"})
"""Words that make a column a run's outcome (termination_reason, exit_status): the runs' own."""
_KNOWN_COLUMNS = (
    "model",
    "agent",
    "domain",
    "benchmark",
    "dataset",
    "split",
    "user_model",
    "provider",
    "environment",
)
"""Columns that describe an evaluation by their name: listed when they hold a few values."""
_FEW_VALUES = 5
"""The most values a known column may hold to be listed with the runs of each."""
_VALUE_LIMIT = 60
"""The most characters of a value the page shows."""


def _value_text(value: object) -> str:
    text = str(display(value))
    return (
        text if len(text) <= _VALUE_LIMIT else f"{text[: _VALUE_LIMIT - 1]}\N{HORIZONTAL ELLIPSIS}"
    )


def _describing(runs: object, by: list[str], given: str) -> list[tuple[str, str]]:
    """Return the columns that describe a pandas runs table, each with its values in words.

    A column describes the runs when it is a grouping column, when it holds
    one value in each group (one in all, without groups) -- model, domain,
    the file, a seed -- or when it is one of :data:`_KNOWN_COLUMNS` with at
    most :data:`_FEW_VALUES` values. The runs' own columns (task, run, the
    outcome, errors) and cost columns are not, nor a column that says how a
    run ended -- a name with a word of :data:`_OUTCOME_WORDS`, such as
    ``termination_reason`` -- even when every run ended alike, nor a column of
    floating-point numbers, which measures rather than names, nor one of
    lists or mappings, nor one whose one value is `given`, the input's name,
    which the page says already. A value with others beside it is given with
    its number of runs.
    """
    if not isinstance(runs, pd.DataFrame) or "run" not in runs.columns:
        return []
    described = []
    for name in map(str, runs.columns):
        column = runs[name]
        if name in _RUN_COLUMNS or name.startswith(COST_PREFIX):
            continue
        if _OUTCOME_WORDS & set(re.split(r"[^a-z]+", name.lower())):
            continue
        if pd.api.types.is_float_dtype(column.dtype) or column.isna().all():
            continue
        if not pd.api.types.is_scalar(column.dropna().iloc[0]):  # a logged conversation, say
            continue
        try:
            values = column.value_counts(sort=False, dropna=True)
        except TypeError:  # lists or mappings further down: no value names the runs
            continue
        single = len(values) == 1
        if by and not single:
            pairs = runs[[*by, name]].dropna(subset=[name]).drop_duplicates()
            single = not pairs.duplicated(subset=by).any()
        known = name in _KNOWN_COLUMNS and len(values) <= _FEW_VALUES
        if not (name in by or single or known):
            continue
        if len(values) == 1 and name not in by and str(display(values.index[0])) == given:
            continue
        if len(values) == 1:
            text = _value_text(values.index[0])
        else:
            shown = [f"{_value_text(value)} ({count} runs)" for value, count in values.items()]
            text = _listed(shown)
        described.append((name, text))
    return described


def _given_kind(runs: object) -> str:
    """Return what a report without the runs was given: a tally, an outcome matrix, Dask."""
    if is_dask_frame(runs):
        return "a Dask DataFrame"
    if isinstance(runs, pd.DataFrame) and table_kind(runs.columns, runs.index.names) == "tally":
        return "a tally"
    return "an outcome matrix"


def _agent_errors(runs: object) -> int:
    """Return how many runs of a pandas runs table ended on the agent's own error."""
    if not isinstance(runs, pd.DataFrame) or not {"error", "error_kind"} <= set(runs.columns):
        return 0
    return int((runs["error"].notna() & (runs["error_kind"] == "agent")).sum())


def _input_kind(runs: object, source: str | None) -> str:
    """Return what the report was given, for its input line."""
    if source is not None:
        return source
    if is_dask_frame(runs):
        return "a Dask DataFrame"
    return "a DataFrame" if isinstance(runs, pd.DataFrame) else "an outcome matrix"


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def _per_task(runs: pd.Series) -> str:
    fewest, most = int(runs.min()), int(runs.max())
    return str(most) if fewest == most else f"{fewest} to {most}"


def _coverage(
    recorded: pd.DataFrame, counted: pd.DataFrame, by: list[str], errors: ErrorPolicy
) -> tuple[str, pd.DataFrame]:
    """Return the runs in a sentence, and per group the tasks and runs that its figures count.

    Tasks are told by their ids across groups: 40 tasks that each of two
    models ran are 40 tasks, each run by every group, not 80.
    """
    ran = recorded[recorded["n"] > 0]
    runs = int(ran["n"].sum())
    tasks = ran["task"].nunique()
    errored = int(ran["n_errors"].sum()) if "n_errors" in ran else 0
    told = "counted as failures" if errors == "fail" else "left out"
    tail = f"; {_plural(errored, 'run')} errored or timed out, {told}" if errored else ""
    rows = []
    groups = ran.groupby(by, sort=False) if by else [((), ran)]
    for key, part in groups:
        values = key if isinstance(key, tuple) else (key,)
        kept = counted.loc[part.index]
        kept = kept[kept["n"] > 0]
        row: dict[str, object] = dict(zip(by, values, strict=True))
        row |= {
            "tasks": len(kept),
            "runs": int(kept["n"].sum()),
            "runs per task": _per_task(kept["n"]) if len(kept) else "",
        }
        if errored:  # left out, they are beside the runs counted, not among them
            told = "runs left out" if errors == "exclude" else "errored or timed out"
            row[told] = int(part["n_errors"].sum())
        if errored and errors == "exclude":
            row["tasks left out"] = len(part) - len(kept)
        rows.append(row)
    table = pd.DataFrame(rows)
    if not by:
        per_task = _per_task(ran["n"])
        return (
            f"{_plural(runs, 'run')} of {_plural(tasks, 'task')}, {per_task} per task{tail}",
            table,
        )
    shared = int((ran.groupby("task", sort=False).size() == len(rows)).sum())
    named = _groups_named(by, len(rows))
    if shared == tasks:
        said = f"{_plural(tasks, 'task')}, each run by {named}"
    elif shared == 0:
        said = f"{_plural(tasks, 'task')}; no task is run by {named}"
    else:
        said = f"{_plural(tasks, 'task')}, {shared:,} of them run by {named}"
    return f"{said}; {_plural(runs, 'run')} in all{tail}", table


def _groups_named(by: list[str], count: int) -> str:
    """Return every group as a reader counts them: ``both models``, ``all 6 groups (a, b)``.

    One grouping column whose name is a word gives its plural; others, or two
    or more columns, are ``groups`` with the columns named.
    """
    every = "both" if count == 2 else f"all {count:,}"
    if len(by) == 1 and re.fullmatch(r"[a-z]+", by[0]):
        word = by[0]
        if word.endswith(("s", "x", "ch", "sh")):
            return f"{every} {word}es"
        if word.endswith("y") and word[-2:-1] not in "aeiou":
            return f"{every} {word[:-1]}ies"
        return f"{every} {word}s"
    return f"{every} groups ({', '.join(by)})"


_JOINED_DASH = "\N{EN DASH}\N{WORD JOINER}"
"""An en dash that no line break follows: an interval's ends and "Clopper-Pearson" stay whole."""


def _ci(low: float, high: float) -> str:
    return f"{_num(low, '.2f')}\N{EN DASH}{_num(high, '.2f')}"


def _interval_words(method: str, tasks: int) -> str:
    """Return how an interval was computed, for the headline: ``Wilson on 40 tasks``."""
    used = method.partition(" (")[0]
    if used == "effective_n":
        return f"Clopper\N{EN DASH}Pearson on an effective number of the {tasks:,} tasks"
    if used in ("percentile", "bca", "two-level"):
        return f"{INTERVAL_LABELS[used]} over {tasks:,} tasks"
    return f"{INTERVAL_LABELS.get(used, used)} on {tasks:,} tasks"


def _headline(rows: pd.DataFrame, counted: pd.DataFrame, name: str, level: str) -> str:
    """Return the sentence a reader can quote, as HTML: pass@1, then pass^k at the top k.

    The top k is the largest the curve measures on every task of the group
    (the largest it measures, when none is on every task). When every counted
    task has exactly that many runs, pass^k is the share of tasks that passed
    them all, and the sentence says so.
    """
    ran = counted[counted["n"] > 0]
    measured = rows[(rows["n_tasks"] > 0) & rows["pass_pow_k"].notna()]
    where = f"For {html.escape(name)}, p" if name else "p"
    if measured.empty or ran.empty:
        return f"{where}ass<sup>k</sup> has no estimate: no task has a counted run."
    first = float((ran["c"] / ran["n"]).mean())
    whole = measured[measured["n_tasks"] == len(ran)]
    top = (whole if len(whole) else measured).iloc[-1]
    k, value, tasks = int(top["k"]), float(top["pass_pow_k"]), int(top["n_tasks"])
    if k == 1:
        interval = ""
        if np.isfinite(top["pass_at_k_low"]):
            interval = (
                f" ({level} {_ci(top['pass_at_k_low'], top['pass_at_k_high'])}, "
                f"{_interval_words(str(top['interval_method']), tasks)})"
            )
        return (
            f"{where}ass@1 is {_num(first, '.2f')}{interval}; with one run per task there is no "
            "pass<sup>k</sup> of k above 1."
        )
    exact = bool((ran["n"] == k).all())
    lower = value < first
    if exact:
        share = f"{'yet only' if lower else 'and'} {_num(value, '.0%')} of tasks pass all {k} runs"
    else:
        chance = _num(value, ".2f")
        share = f"{'yet' if lower else 'and'} {k} runs of a task all pass with chance {chance}"
    interval = ""
    if np.isfinite(top["pass_pow_k_low"]):
        interval = (
            f" (pass<sup>{k}</sup> {level} {_ci(top['pass_pow_k_low'], top['pass_pow_k_high'])}, "
            f"{_interval_words(str(top['interval_method']), tasks)})"
        )
    return f"{where}ass@1 is {_num(first, '.2f')}, {share}{interval}."


def _method_words(method: str, n_resamples: int) -> str:
    """Return how the curve's intervals were computed, for the page's methods block."""
    if method in RESAMPLING_METHODS:
        return (
            f"{INTERVAL_LABELS[method]} of the tasks, {n_resamples:,} resamples (closed-form "
            "Clopper\N{EN DASH}Pearson where the bootstrap has no width)"
        )
    binomial = INTERVAL_LABELS["clopper_pearson" if method == "auto" else method]
    return (
        f"{binomial} where every counted task has exactly k runs; elsewhere "
        "Clopper\N{EN DASH}Pearson on an effective number of tasks (the curve table marks which)"
    )


def _ks_words(measured: list[int], predicted: list[int]) -> str:
    def run(ks: list[int]) -> str:
        if ks == list(range(ks[0], ks[-1] + 1)) and len(ks) > 2:
            return f"{ks[0]} to {ks[-1]}"
        return _listed([str(k) for k in ks])

    said = f"measured at k = {run(measured)}" if measured else "none measured"
    return f"{said}; predicted to k = {max(predicted)}" if predicted else said


def _methods(
    curve: pd.DataFrame,
    ranked: dict[str, pd.DataFrame],
    ks: tuple[list[int], list[int]],
    n_resamples: int,
) -> list[str]:
    """Return the block that says, once, how every figure of the page was computed."""
    attrs = curve.attrs
    told = {"fail": "counted as failures", "exclude": "left out"}
    info = {
        "confidence level": level_text(attrs["confidence_level"]),
        "intervals": _method_words(str(attrs["method"]), n_resamples),
        "errored runs": told.get(str(attrs["errors"]), str(attrs["errors"])),
        "k": _ks_words(*ks),
    }
    if "leaderboard" in ranked:
        board = metadata(ranked["leaderboard"])
        ranking = (
            f"by {board['ranked by']}, paired sign-flip tests, p-values adjusted: "
            f"{board['p-values adjusted']}"
        )
        if "tasks dropped" in board:
            ranking += f"; tasks dropped: {board['tasks dropped']}"
        info["leaderboard"] = ranking
    info["files"] = (
        "beside this page, every table as CSV (every digit; its metadata in # lines) and "
        "Markdown, every figure as PNG and SVG"
    )
    info |= {key: value for key, value in metadata(curve).items() if key in ("passk_lab", "date")}
    return [
        '<h2 id="methods">How these figures were computed</h2>',
        "<dl>",
        *(f"<dt>{html.escape(key)}</dt><dd>{html_text(value)}</dd>" for key, value in info.items()),
        "</dl>",
    ]


def _ks(k: Iterable[int] | None, predict_to: int | None, most: int) -> tuple[list[int], list[int]]:
    """Return the report's ks: those the curve measures (up to `most` runs), those it predicts.

    By default every k to :data:`_EVERY_K`, then a 1-2-5 series, predicted to
    twice `most` (at least 10); `k` names the ks instead, and `predict_to`
    extends the predictions to it, on the same series.
    """
    if k is None:
        asked = [each for each in _shown_ks(most) if each <= most]
        last = max(2 * most, 10) if predict_to is None else predict_to
    else:
        if isinstance(k, (str, bytes)) or not isinstance(k, Iterable):
            raise TypeError(f"k must be a sequence of whole numbers such as [1, 5], got {k!r}")
        asked = sorted({positive_int("k", each) for each in k})
        if not asked:
            raise with_keywords(
                ValueError("k is empty: give at least one k, such as k=[1, 5], or leave it out"),
                "k",
            )
        last = asked[-1] if predict_to is None else predict_to
    if predict_to is not None:
        predict_to = positive_int("predict_to", predict_to)
    if predict_to is not None and predict_to < asked[-1]:
        raise with_keywords(
            ValueError(
                f"predict_to={predict_to} is below the report's largest k, {asked[-1]}: give "
                f"predict_to of at least {asked[-1]}, or leave it out"
            ),
            "predict_to",
        )
    predicted = [each for each in _shown_ks(most, last) if each > asked[-1]]
    return asked, predicted


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


def _plot_title(heading: str) -> str:
    """Return a heading as a plot's title: ``^k`` a superscript, every ``$`` shown as it is."""
    return "pass$^k$".join(part.replace("$", r"\$") for part in heading.split("pass^k"))


def _checked_options(source: object, title: object) -> tuple[str | None, str | None]:
    """Return `source` as the page names it, and `title`, or refuse them naming what to give.

    A path is named by its file name (the manifest records the whole path).
    """
    if source is not None and not isinstance(source, (str, Path)):
        raise TypeError(
            f"source names the input, as text or a path (for example the file read), got "
            f"{type(source).__name__}"
        )
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be text, got {type(title).__name__}")
    named = (
        None
        if source is None
        else (source.name or str(source))
        if isinstance(source, Path)
        else source
    )
    if named is not None and not named.strip():
        raise ValueError("source is empty: name the input (for example its file), or leave it out")
    return named, title


def write_report(
    runs: object,
    out: str | Path,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = 0,
    k: Iterable[int] | None = None,
    predict_to: int | None = None,
    source: str | Path | None = None,
    title: str | None = None,
    force: bool = False,
    formula_guard: bool = True,
) -> list[Path]:
    """Write the tables, the plots and one self-contained ``report.html`` for a set of runs.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray or dask.dataframe.DataFrame
        Whatever :func:`~passk_lab.reliability_curve` takes: a runs table (for
        example from :func:`passk_lab.io.read`), a tally ``[*by, task, n, c]``
        (with ``n_errors`` for the error table), an outcome matrix, or a Dask
        DataFrame of runs. It is checked once, when it is reduced to its tally.
    out : str or Path
        The folder to write into; made if missing. A folder that holds files
        is refused unless an earlier report wrote them (its manifest,
        ``.passk-report.json``, lists them) or `force` is true.
    by : str or list of str, optional
        Grouping columns: one curve per group, and per-group heatmaps and
        histograms. Two or more groups are also ranked as agents, in the
        report's leaderboard section (see Notes).
    errors, confidence_level, method, n_resamples, rng
        As in :func:`~passk_lab.reliability_curve`. A tally's ``n`` counts
        the runs under `errors`, as the estimators read it.
    k : sequence of int, optional
        The ks of the curve and its tables, as
        :func:`~passk_lab.reliability_curve`'s `ks`. By default every k up
        to the most runs of a task, thinned past 20 (see Notes).
    predict_to : int, optional
        Extend the predictions (``p_pow_k``, ``betabinom_pow_k``) to this k,
        on the same thinned series: the decay curve draws them and the
        predictions table lists them. By default to twice the most runs (at
        least 10) without `k`, and no further than `k` with it. At least
        the largest k.
    source : str or Path, optional
        The input's name on the page, for example the file it was read
        from (a path is named by its file name); by default the page says
        what it was given ("a DataFrame"). The folder's manifest records it
        (a path whole), and a folder holding the report of another source
        is refused unless `force`, so that a report of ``b/runs.csv`` does
        not silently replace that of ``a/runs.csv``.
    title : str, optional
        The report's heading and page title; by default "Reliability
        report: " and `source`.
    force : bool
        Write into a folder that holds other files, replacing those with the
        report's names; files the report does not write are left alone.
    formula_guard : bool
        Quote the CSV text cells a spreadsheet would run as formulas, as
        :func:`export` does (True by default).

    Returns
    -------
    list of Path
        Every file written: ``curve``, ``betabinom``, ``success_counts`` and
        (when some run errored or timed out) ``errors`` tables as CSV and Markdown,
        each with the metadata of that table, and (when a runs table has
        ``cost_<name>`` columns) the ``costs`` table, and with two or more groups
        sharing tasks the ``leaderboard`` and ``pairwise`` tables too;
        ``decay_curve``, ``outcome_heatmap`` (for a pandas runs table) and
        ``success_histogram`` plots (one per group, the group in the name),
        and for three or more ranked groups ``leaderboard_forest`` and
        ``pairwise_heatmap``, as PNG and SVG; and ``report.html``, which
        inlines every plot and table and needs no network. Besides them,
        the folder's manifest ``.passk-report.json`` lists them; a file an
        earlier report listed and this one does not write (the ``errors``
        tables, a group's plots) is removed, so nothing stale is left beside
        the new report.

    Raises
    ------
    ValueError
        If `out` is a file, or a folder holding files no report wrote
        (without `force`), or a plot would not fit the memory budget; if a
        `k` is not a positive whole number, or `predict_to` is below the
        largest k.
    TypeError
        If `k` is not a sequence, or `source` or `title` not text.

    Notes
    -----
    The page opens with a sentence per group that a reader can quote:
    pass@1, and pass^k at the largest k measured on every task, with its
    interval ("pass@1 is 0.86, yet only 45% of tasks pass all 5 runs
    (pass^5 95% CI 0.29-0.62, Clopper-Pearson on 40 tasks)"). Then the
    input: its name (`source`), its runs and tasks -- tasks told by their
    ids, so 40 tasks that two models ran are 40 tasks, each run by both --
    and the columns that describe the runs: the grouping columns, every
    column that holds one value in each group (model, domain, the file
    read), and ``model``, ``agent``, ``domain``, ``benchmark``,
    ``dataset``, ``split``, ``user_model``, ``provider`` and
    ``environment`` when they hold at most 5 values, each value with its
    runs; floating-point columns, costs and the runs' own columns -- among
    them those that say how a run ended, such as ``termination_reason`` --
    are left out. Runs that ended on the agent's own error (``error_kind``
    ``"agent"``) are counted in a sentence: they are failed runs under
    either error policy. With groups, a table gives each group's tasks, runs and errored
    runs: what every table and figure counts. How the figures were
    computed -- level, intervals, error policy, ks, version, date -- is said
    once, in a block at the end; each CSV and Markdown file also carries
    its own table's metadata.

    A report is for reading, so its curve has a few dozen ks however many
    runs a task has: every k up to 20, above it the 1-2-5 series (50, 100,
    200, 500, 1000, ...), and the most runs of any task. The curve table
    holds the ks some task has runs for; the decay curve also draws the
    predictions (``p_pow_k``, ``betabinom_pow_k``) on the same series up to
    twice the most runs (at least 10). With 5 runs a task that is every k
    from 1 to 5 in the table and predictions to k = 10; with 20,000, the ks
    1 to 20, 50, 100, ..., 10,000 and 20,000, and predictions to 40,000. For
    other ks, give `k` (and `predict_to`). The
    ``success_counts`` table keeps one row per number of runs passed. The
    ``errors`` table and its section are there only when some run errored
    or timed out; when the runs record errors and none did, a sentence says so.

    With two or more groups, the page has a leaderboard: every group
    (all the `by` columns together) is an agent, ranked by pass^k with
    :func:`~passk_lab.leaderboard` at the curve's ks that every agent
    reaches on a shared task. At the largest of them, the page names the
    agents of tie group 1 (those no agent is shown to beat), the agents
    shown worse than the best, and those shown worse only than some other
    agent. Tasks that only some agents ran are
    dropped (``unmatched="drop"``) and named; agents that share no task get
    a sentence saying so instead. Three or more agents also get the forest
    (:func:`~passk_lab.plots.leaderboard_forest`) and the map of every
    pair's difference (:func:`~passk_lab.plots.pairwise_heatmap`) at that
    k; two agents are one pair, whose difference, interval and test the
    sentence gives. The table of the tests the ranks come from is on the
    page, folded: :func:`~passk_lab.pairwise` at the ranked metric, on the
    tasks every agent has k runs of (``common_tasks=True``).

    When a runs table (pandas or Dask) has ``cost_<name>`` columns, the page
    ends with a Cost section: per group and cost, a table over the curve
    table's ks of pass^k, the cost of k runs of a task, the cost per task
    that passes all k runs and pass^k per unit of cost (the curve's cost
    columns, :func:`~passk_lab.reliability_curve`), under a sentence that
    reads the largest k with a cost: "At k = 5, each task that passes all 5
    runs costs 0.333 in usd". The ``costs`` table holds them all. Without
    cost columns there is no such section or table.

    A group's plots carry the group in their names: ``name-value`` with
    every character but letters, digits, ``.``, ``=`` and ``-`` turned into
    ``_``. Where that changes the name, or it is longer than 56 characters,
    or two groups would share it, a hash of the group's values follows, so
    that every group has its own files and no name exceeds 80 characters.
    Each figure file is titled with what it shows and its group, so that it
    reads on its own too.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pk.simulate_coin(seed=42)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_report(runs, folder, k=[1, 5], predict_to=8, source="coin.csv")
    ...     names = [path.name for path in written]
    ...     page = (Path(folder) / "report.html").read_text()
    ...     ks = pd.read_csv(Path(folder) / "curve.csv", comment="#")["k"].tolist()
    >>> names[:2], names[-1], ks
    (['curve.csv', 'curve.md'], 'report.html', [1, 5])
    >>> "<h1>Reliability report: coin.csv</h1>" in page
    True

    A tally gives the same tables, and a report without the outcome heatmap (it has no
    runs to draw): ``decay_curve.png`` and ``success_histogram.png`` are its figures.
    """
    _ks(k, predict_to, 1)  # refused before the runs are read
    named, title = _checked_options(source, title)
    origin = str(source.resolve()) if isinstance(source, Path) else named
    folder = Path(out)
    summary, states = _checked(runs, by, errors)  # the one check of the runs
    costs = task_costs(runs, summary.by)
    groups_by = list(summary.by)
    counted = summary.to_frame()
    recorded = summary.with_errors().to_frame()
    asked, predicted = _ks(k, predict_to, int(recorded["n"].max()))
    with warnings.catch_warnings():  # the ks past a group's runs are its predictions
        warnings.simplefilter("ignore", NoEstimateWarning)
        curve = reliability_curve(
            counted,
            [*asked, *predicted],
            by=by,
            errors=errors,
            confidence_level=confidence_level,
            method=method,
            n_resamples=n_resamples,
            rng=rng,
        )
    codes, labels = summary.groups()
    keys = list(labels.itertuples(index=False, name=None))
    names = [_group_name(groups_by, key) for key in keys]
    fits, counts = [], []
    for group, key in enumerate(keys):
        part = counted[codes == group]
        fits.append(_with_group(fit_betabinom(part, errors=errors).to_frame(), groups_by, key))
        counts.append(_with_group(success_counts(part, errors=errors), groups_by, key))
    curve.loc[~curve["k"].isin(asked), _MEASURED] = np.nan  # predictions alone past the ks asked
    measured = curve[(curve["n_tasks"] > 0) & curve["k"].isin(asked)].reset_index(drop=True)
    measured.attrs = dict(curve.attrs)
    tables = {
        "curve": measured,
        "betabinom": pd.concat(fits, ignore_index=True),
        "success_counts": pd.concat(counts, ignore_index=True),
    }
    tables["betabinom"].attrs = {**_extent(counted, groups_by), "errors": errors}
    tables["success_counts"].attrs = {**_extent(counted, groups_by), "errors": errors}
    errored = int(recorded["n_errors"].sum()) if "n_errors" in recorded else 0
    if errored:
        tables["errors"] = error_sensitivity(recorded, by=by)
        tables["errors"].attrs = _extent(recorded, groups_by)
    if costs is not None:
        tables["costs"] = _cost_table(tables["curve"], summary, costs)
        tables["costs"].attrs = {**_extent(counted, groups_by), "errors": errors}
    shown_ks = sorted(set(measured["k"].tolist()))
    ranking = _ranking(
        counted,
        codes,
        groups_by,
        shown_ks,
        errors=errors,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=rng,
    )
    ranked = ranking.tables if ranking is not None else {}
    slugs = [f"-{slug}" for slug in _slugs(keys, groups_by)] if groups_by else [""]
    plotted = ["decay_curve", *(ranking.plotted() if ranking is not None else [])]
    for suffix in slugs:
        plotted += [f"outcome_heatmap{suffix}"] if states is not None else []
        plotted.append(f"success_histogram{suffix}")
    files = [f"{name}{ending}" for name in [*tables, *ranked] for ending in (".csv", ".md")]
    files += [f"{name}{ending}" for name in plotted for ending in (".svg", ".png")]
    files.append("report.html")
    earlier = _claim(folder, files, force, origin)
    _write_manifest(
        folder, [*earlier, *files], origin
    )  # a report cut short leaves a folder still ours
    from matplotlib.figure import Figure  # plots are drawn only once the folder is the report's

    from passk_lab import plots

    written: list[Path] = []
    for name, table in {**tables, **ranked}.items():
        written += [
            export(table, folder / f"{name}.csv", formula_guard=formula_guard),
            export(table, folder / f"{name}.md"),
        ]

    def figure(
        name: str,
        heading: str,
        draw: Callable[..., Axes],
        size: tuple[float, float] | None = None,
    ) -> tuple[str, bytes]:
        with plots.style():
            fig = Figure(figsize=size)
            ax = draw(ax=fig.add_subplot())
            if not ax.get_title():  # a file opened alone says what it shows, above any legend
                fig.suptitle(_plot_title(heading))
            for suffix in (".svg", ".png"):
                fig.savefig(folder / f"{name}{suffix}")
                written.append(folder / f"{name}{suffix}")
        return heading, (folder / f"{name}.png").read_bytes()

    across = f" by {', '.join(groups_by)}" if groups_by else ""
    images = [figure("decay_curve", f"pass^k against k{across}", partial(plots.decay_curve, curve))]
    section: list[str] = []
    if ranking is not None:
        section = _section(ranking, groups_by, figure)
    for group, (count, suffix, where) in enumerate(zip(counts, slugs, names, strict=True)):
        where = f": {where}" if where else ""
        if states is not None:
            part = _group_states(states, codes == group, groups_by)
            images.append(
                figure(
                    f"outcome_heatmap{suffix}",
                    f"Every run{where}",
                    partial(plots.outcome_heatmap, part),
                )
            )
        images.append(
            figure(
                f"success_histogram{suffix}",
                f"Tasks by runs passed{where}",
                partial(plots.success_histogram, count),
            )
        )

    heading = (
        title
        if title is not None
        else (f"Reliability report: {named}" if named is not None else "Reliability report")
    )
    level = interval_label(curve)
    headlines = [
        _headline(rows, counted[codes == group], name, level).replace("\N{EN DASH}", _JOINED_DASH)
        for group, (name, rows) in enumerate(
            zip(names, _per_group(curve, groups_by, keys), strict=True)
        )
    ]
    said, covered = _coverage(recorded, counted, groups_by, errors)
    given = _input_kind(runs, named)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{html.escape(heading)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{html.escape(heading)}</h1>",
        *(f'<p class="headline">{line}</p>' for line in headlines),
        "<dl>",
        f"<dt>input</dt><dd>{html.escape(given)}</dd>",
        f"<dt>runs</dt><dd>{html.escape(said)}</dd>",
        *(
            f"<dt>{html.escape(name)}</dt><dd>{html.escape(text)}</dd>"
            for name, text in _describing(runs, groups_by, given)
        ),
        "</dl>",
    ]
    if groups_by:
        parts += [
            '<h2 id="coverage">What each group covers</h2>',
            "<p>Every table and figure below counts, for each group, these tasks and runs.</p>",
            _table(covered),
        ]
    agents_own = _agent_errors(runs)
    if agents_own:
        parts.append(
            f"<p>{_plural(agents_own, 'run')} ended on the agent's own error (error_kind "
            "'agent'): such a run measured the agent, and counts as a failed run "
            "under either error policy.</p>"
        )
    if "n_errors" in recorded and not errored:
        other = " other" if agents_own else ""
        parts.append(f"<p>No{other} run errored or timed out.</p>")
    if states is None:
        parts.append(f"<p>{_NO_HEATMAP.format(given=_given_kind(runs))}</p>")
    parts += section
    for caption, data in images:
        parts += _image(caption, data, "h2")
    parts += _curve_tables(tables["curve"], curve, groups_by)
    parts += _fit_tables(tables["betabinom"], groups_by, names)
    parts += [
        f'<h2 id="success_counts">{_TABLE_HEADINGS["success_counts"]}</h2>',
        _table(labelled(tables["success_counts"])),
    ]
    if errored:
        parts += _errors_tables(tables["errors"], groups_by, errored)
    if costs is not None:
        cost_names = [name for name in costs.columns if name.startswith(COST_PREFIX)]
        priced = _priced_runs(runs, groups_by, cost_names)
        parts += _cost_section(tables["costs"], groups_by, priced)
    parts += _methods(curve, ranked, (shown_ks, predicted), n_resamples)
    parts += ["</body>", "</html>"]
    report = folder / "report.html"
    report.write_text("\n".join(parts) + "\n", encoding="utf-8")
    written.append(report)
    for stale in sorted(earlier - set(files)):
        (folder / stale).unlink(missing_ok=True)
    _write_manifest(folder, files, origin)
    return written
