"""Reading a ledger back: :func:`read_ledger`, the parsing of its lines, and the runs table.

:func:`parse` reads a ledger's bytes into its effective header and its runs,
checked: a column at a time first (:func:`_runs_at_once`, which accepts only
what the line-by-line checks of :mod:`passk_lab.harness._ledger_format`
accept), and, when that does not accept the whole file, line by line, to name
the first wrong line. A resumed evaluation parses its ledger the same way.
:func:`runs_frame` is the runs table of :class:`~passk_lab.EvalResult`, for a
ledger read back and an evaluation's own runs alike. docs/ledger.md describes
the format.
"""

from __future__ import annotations

import json
import math
import operator
import os
import re
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from passk_lab._choices import ERROR_KINDS
from passk_lab._files import check_regular, encodable, not_utf8
from passk_lab._summary import Shown, summary_html, summary_repr
from passk_lab._warnings import ReadWarning, warn
from passk_lab.harness._ledger_format import (
    DAMAGED,
    LEDGER_FILE,
    RunRecord,
    checked_header,
    checked_resumption,
    checked_run,
    cost_of,
)
from passk_lab.harness._task import date_text

__all__ = ["Ledger", "Parsed", "cost_totals", "parse", "read_ledger", "runs_frame"]


class Ledger(NamedTuple):
    """A ledger read back: its runs table and its header.

    Attributes
    ----------
    runs : pandas.DataFrame
        The runs, in the header's task order then run order, with the columns
        of ``EvalResult.runs``.
    header : dict
        What the evaluation recorded about itself: ``model``, ``date``,
        ``seed``, ``passk_lab`` (the version), ``k``, ``tasks``,
        ``timeout_ms``, ``run_timeout_ms``, ``metadata`` and ``adaptive``
        (the adaptive driver's settings, None for :func:`passk_lab.evaluate`),
        with ``k``, ``tasks`` and ``adaptive`` as of the last resumption; and
        ``resumptions``, the list of resumption lines (``resumed``, the date;
        ``passk_lab``; ``k``; ``tasks_added``; ``adaptive``), empty if none.
    """

    runs: pd.DataFrame
    header: dict[str, Any]

    def __repr__(self) -> str:
        """Return one line: the runs recorded (never the table), their tasks, k, model, resumptions.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> import passk_lab as pk
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "coin.jsonl"
        >>> _ = pk.evaluate(pk.coin_tasks(p=0.85, tasks=40, seed=42), k=5, model="c", ledger=path)
        >>> pk.read_ledger(path)
        Ledger(runs=<200 rows>, tasks=40, k=5, model='c', resumptions=0)
        """
        header = self.header
        fields: list[tuple[str, object]] = [
            ("runs", Shown(f"<{len(self.runs)} rows>")),
            ("tasks", self._tasks_run()),
            ("k", header.get("k")),
        ]
        if header.get("model") is not None:
            fields.append(("model", str(header["model"])))
        fields.append(("resumptions", len(header.get("resumptions") or [])))
        if header.get("adaptive"):
            fields.append(("adaptive", True))
        return summary_repr(type(self).__name__, fields)

    def _repr_html_(self) -> str:
        """Return the ledger as an HTML table, for Jupyter: what it records, not the runs.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> import passk_lab as pk
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "coin.jsonl"
        >>> _ = pk.evaluate(pk.coin_tasks(p=0.85, tasks=40, seed=42), k=5, ledger=path)
        >>> "runs planned (tasks x k)" in pk.read_ledger(path)._repr_html_()
        True
        """
        header = self.header
        adaptive = bool(header.get("adaptive"))
        listed = len(header.get("tasks") or [])
        rows: list[tuple[str, object]] = [("runs recorded", len(self.runs))]
        if not adaptive and isinstance(header.get("k"), int):
            rows.append(("runs planned (tasks x k)", listed * header["k"]))
        rows += [
            ("tasks with a run", self._tasks_run()),
            ("tasks in the pool" if adaptive else "tasks planned", listed),
            ("k of the target" if adaptive else "runs per task (k)", header.get("k")),
        ]
        rows += [
            (name, date_text(header[name]) if name == "date" else header[name])
            for name in ("model", "date", "seed")
            if header.get(name) is not None
        ]
        rows.append(("resumptions", len(header.get("resumptions") or [])))
        if adaptive:
            rows.append(("adaptive", "yes: resume it with evaluate_until"))
        note = "pk.reliability_curve(ledger.runs) gives pass@1 and pass^k with their intervals."
        return summary_html(type(self).__name__, rows, [] if adaptive else [note])

    def _tasks_run(self) -> int:
        """Return the tasks that have a run in the ledger."""
        return int(self.runs["task"].nunique()) if "task" in self.runs else 0


# --- the runs table ------------------------------------------------------------------------


def cost_totals(records: Sequence[RunRecord]) -> dict[str, float]:
    """Return, per cost name in order of first appearance, the sum over the runs that recorded it.

    Examples
    --------
    >>> run = RunRecord("t", 0, True, None, None, None, False, 1, 0, 0.1, {"usd": 0.25})
    >>> cost_totals([run, run._replace(run=1, cost=None), run._replace(run=2)])
    {'usd': 0.5}
    """
    names = dict.fromkeys(name for record in records if record.cost for name in record.cost)
    return {
        name: math.fsum(
            record.cost[name] for record in records if record.cost and name in record.cost
        )
        for name in names
    }


def runs_frame(records: Sequence[RunRecord]) -> pd.DataFrame:
    """Return the runs table of :class:`passk_lab.EvalResult` for `records`, in their order."""
    return _frame(_columns(records))


def _frame(field: Mapping[str, Sequence[Any]]) -> pd.DataFrame:
    """Return the runs table of the runs whose fields are the columns `field`."""
    empty = not len(field["run"])
    error = [
        None if kind is None else kind + (f": {message}" if message else "")
        for kind, message in zip(field["error_type"], field["error_message"], strict=True)
    ]
    started = np.array(field["started_at_us"], dtype="int64").view("datetime64[us]")
    frame = pd.DataFrame(
        {
            "task": pd.Series(field["task"], dtype="object" if empty else None),
            "run": np.array(field["run"], dtype="int64"),
            "passed": np.array(field["passed"], dtype="bool"),
            "error": pd.Series(error, dtype="str"),
            "error_kind": pd.Categorical(field["error_kind"], categories=ERROR_KINDS),
            "timed_out": np.array(field["timed_out"], dtype="bool"),
            "attempts": np.array(field["attempts"], dtype="int64"),
            "started_at": pd.Series(started).dt.tz_localize("UTC"),
            "duration_s": np.array(field["duration_s"], dtype="float64"),
        }
    )
    costs = field["cost"]
    if costs.count(None) == len(costs):  # no run recorded a cost: no cost columns
        return frame
    names = dict.fromkeys(name for cost in costs if cost is not None for name in cost)
    for name in names:
        frame[f"cost_{name}"] = np.array(
            [math.nan if cost is None else cost.get(name, math.nan) for cost in costs],
            dtype="float64",
        )
    return frame


# --- reading -------------------------------------------------------------------------------


class Parsed(NamedTuple):
    """A ledger's content, checked: its effective header, its runs, and where its lines end."""

    header: dict[str, Any] | None  # None: no complete header line
    runs: dict[str, Sequence[Any]]  # the fields of RunRecord, in its order, as columns
    complete_bytes: int  # length of the file up to the end of its last complete line

    @property
    def records(self) -> list[RunRecord]:
        """Return the runs as records, in the ledger's order."""
        return list(map(RunRecord._make, zip(*self.runs.values(), strict=True)))


def parse(content: bytes, path: Path) -> Parsed:
    """Return the ledger `content` (the bytes of `path`) checked, or refuse its first wrong line.

    A half-written last line (the evaluation stopped while writing it) is left
    out with a :class:`~passk_lab.ReadWarning`; ``complete_bytes`` then ends
    before it, where a resumed evaluation cuts the file.
    """
    complete_bytes = content.rfind(b"\n") + 1
    if complete_bytes < len(content):
        warn(
            ReadWarning(
                f"{path}: ignored a half-written last line (the evaluation stopped while writing "
                f"it); that run was not recorded, and a resumed evaluation runs it again",
                path=path,
            )
        )
    try:
        text = content[:complete_bytes].decode("utf-8")
    except UnicodeDecodeError as error:
        raise not_utf8(path, content, error) from None
    lines = text.splitlines()
    if not lines:
        return Parsed(None, _columns([]), 0)
    head = checked_header(_json_line(lines[0], 1, path), path)
    try:
        contents = list(map(json.loads, lines[1:]))
    except (ValueError, RecursionError):
        contents = _json_lines(lines[1:], head, path)  # raises
    # A resumption line holds the key "resumed"; a text without it has none (the quick test).
    resumed = [] if '"resumed"' not in text else _resumption_lines(contents)
    # Likewise a run's cost, unless a key is written with \u escapes (then every line is asked).
    costs = '"cost"' in text or "\\u" in text
    at_once = _at_once(contents, resumed, head, path, costs=costs)
    if at_once is None:  # a line fails a check: find the first, and say what is wrong with it
        records, head = _runs_line_by_line(contents, head, path)
        return Parsed(head, _columns(records), complete_bytes)
    return Parsed(at_once[1], at_once[0], complete_bytes)


def _resumption_lines(contents: list[Any]) -> list[int]:
    """Return the positions in `contents` of the resumption lines."""
    return [
        index
        for index, content in enumerate(contents)
        if type(content) is dict and "resumed" in content
    ]


def _at_once(
    contents: list[Any], resumed: list[int], head: dict[str, Any], path: Path, *, costs: bool
) -> tuple[dict[str, Sequence[Any]], dict[str, Any]] | None:
    """Return the runs as columns and the effective header, checked a column at a time.

    None if a line might fail a check: :func:`_runs_line_by_line` then finds it.
    The runs between two resumption lines are checked against the header in
    force then, and every run is recorded once in the whole file.
    """
    if not resumed:
        runs = _runs_at_once(contents, set(head["tasks"]), head["k"], costs=costs)
        return None if runs is None else (runs, head)
    parts = []
    for start, stop in zip([-1, *resumed], [*resumed, len(contents)], strict=True):
        if start >= 0:
            try:
                head = checked_resumption(head, contents[start], start + 2, path)
            except ValueError:
                return None
        runs = _runs_at_once(contents[start + 1 : stop], set(head["tasks"]), head["k"], costs=costs)
        if runs is None:
            return None
        parts.append(runs)
    columns: dict[str, Sequence[Any]] = {
        name: [value for part in parts for value in part[name]] for name in parts[0]
    }
    if len(set(zip(columns["task"], columns["run"], strict=True))) < len(columns["run"]):
        return None  # a run recorded twice, in two stretches
    return columns, head


def _columns(records: Sequence[RunRecord]) -> dict[str, Sequence[Any]]:
    """Return the fields of `records` as columns, in the order of :class:`RunRecord`."""
    columns = zip(*records, strict=True) if records else [()] * len(RunRecord._fields)
    return dict(zip(RunRecord._fields, columns, strict=True))


def _runs_line_by_line(
    contents: list[Any], head: dict[str, Any], path: Path
) -> tuple[list[RunRecord], dict[str, Any]]:
    """Check the lines one by one, refusing the first that fails a check.

    Return the runs and the effective header: `head` as the resumption lines
    among `contents` leave it.
    """
    tasks, k = head["tasks"], head["k"]
    known = set(tasks)
    seen: set[tuple[Any, int]] = set()
    records = []
    for number, content in enumerate(contents, start=2):
        if type(content) is dict and "resumed" in content:
            head = checked_resumption(head, content, number, path)
            tasks, k = head["tasks"], head["k"]
            known = set(tasks)
            continue
        record = checked_run(content, number, path)
        key = (record.task, record.run)
        if record.task not in known or not 0 <= record.run < k:
            raise ValueError(
                f"line {number} of {path} records run {record.run} of task {record.task!r}, "
                f"which the header's {len(tasks)} tasks x k = {k} do not include; {DAMAGED}"
            )
        if key in seen:
            raise ValueError(
                f"line {number} of {path} records run {record.run} of task {record.task!r} "
                f"a second time; {DAMAGED} (were two evaluations writing to it?)"
            )
        seen.add(key)
        records.append(record)
    return records, head


def _json_line(line: str, number: int, path: Path) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as exc:  # and a number of too many digits, or nesting
        raise ValueError(f"line {number} of {path} is not JSON ({exc}); {DAMAGED}") from None


def _json_lines(lines: list[str], head: dict[str, Any], path: Path) -> list[Any]:
    """Read the run lines one by one, refusing the first damaged one (JSON or not)."""
    contents = []
    for number, line in enumerate(lines, start=2):
        try:
            contents.append(json.loads(line))
        except (ValueError, RecursionError):
            _runs_line_by_line(contents, head, path)  # a line before it is refused first
            _json_line(line, number, path)
    return contents


def _types(column: Sequence[Any]) -> set[type]:
    return set(map(type, column))


# A time as run_line writes it: what numpy parses as fromisoformat does (both refuse a
# 30 February or a 24th hour; numpy would read the year 0, which datetime has not).
_WRITTEN_TIME = re.compile(r"(?!0000)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00")
_TEXT_OR_NULL = {str, type(None)}
# Each field of a run line, checked for a whole column at once: true only where every value
# of the column passes the field's check in _RUN_FIELDS (json.loads gives these exact types).
_COLUMN_CHECKS: dict[str, Any] = {
    "task": lambda column: _types(column) <= {str, int},
    "run": lambda column: _types(column) <= {int} and min(column, default=0) >= 0,
    "passed": lambda column: _types(column) <= {bool},
    "error_type": lambda column: _types(column) <= _TEXT_OR_NULL,
    "error_message": lambda column: _types(column) <= _TEXT_OR_NULL,
    "error_kind": lambda column: (
        _types(column) <= _TEXT_OR_NULL and set(column) <= {None, *ERROR_KINDS}
    ),
    "timed_out": lambda column: _types(column) <= {bool},
    "attempts": lambda column: _types(column) <= {int} and min(column, default=1) >= 1,
    "duration_s": lambda column: _types(column) <= {int, float},
    "started_at": lambda column: (
        _types(column) <= {str} and all(map(_WRITTEN_TIME.fullmatch, column))
    ),
}

_FIELDS_OF = operator.itemgetter(*_COLUMN_CHECKS)


def _costs_at_once(contents: list[Any]) -> list[Any] | None:
    """Return the run lines' costs (None where a line has none), or None if one is wrong."""
    checked = []
    for content in contents:
        cost = content.get("cost")
        if cost is not None:
            try:
                cost = cost_of(cost)
            except ValueError:
                return None
        checked.append(cost)
    return checked


def _runs_at_once(
    contents: list[Any], known: set[Hashable], k: int, *, costs: bool
) -> dict[str, Sequence[Any]] | None:
    """Return the run lines' fields as columns, checked a column at a time.

    The quick reading of the runs of one stretch of a ledger, whose `known`
    tasks and `k` are those of the header in force then: None if a line might
    fail a check, and then :func:`_runs_line_by_line` finds it. It accepts
    only what that check accepts, and a time only in the form :func:`run_line`
    writes it. Without `costs` no line holds a cost (the text has no
    ``"cost"`` key).
    """
    try:
        rows = list(map(_FIELDS_OF, contents))
    except (KeyError, TypeError):  # a line without a field, or not an object
        return None
    by_field = zip(*rows, strict=True) if rows else [()] * len(_COLUMN_CHECKS)
    raw: dict[str, Sequence[Any]] = dict(zip(_COLUMN_CHECKS, by_field, strict=True))
    if not all(check(raw[name]) for name, check in _COLUMN_CHECKS.items()):
        return None
    try:
        duration = np.array(raw["duration_s"], dtype="float64")
        started = np.array([text[:26] for text in raw["started_at"]], dtype="datetime64[us]")
    except (OverflowError, ValueError):  # an integer past every float, or no such day
        return None
    if not (np.isfinite(duration).all() and (duration >= 0).all()):
        return None
    tasks = [encodable(task) if type(task) is str else task for task in raw["task"]]
    runs = raw["run"]
    if not all(task in known for task in tasks) or max(runs, default=0) >= k:
        return None
    cost = _costs_at_once(contents) if costs else [None] * len(runs)
    if cost is None:
        return None
    if len(set(zip(tasks, runs, strict=True))) < len(runs):  # a run recorded twice
        return None
    columns = {name: raw[name] for name in RunRecord._fields if name in raw}
    columns["task"] = tasks
    for name in ("error_type", "error_message"):
        columns[name] = [None if text is None else encodable(text) for text in raw[name]]
    columns["started_at_us"] = started.view("int64").tolist()
    columns["duration_s"] = duration.tolist()
    columns["cost"] = cost
    return {name: columns[name] for name in RunRecord._fields}


def read_ledger(path: str | os.PathLike[str]) -> Ledger:
    """Read a ledger written by :func:`passk_lab.evaluate`: its runs and its header.

    Parameters
    ----------
    path : str or path-like
        The ledger file (JSON Lines).

    Returns
    -------
    Ledger
        ``(runs, header)``: the runs table, in task then run order, with the
        columns of ``EvalResult.runs``; and the effective header
        as a dict (the first line's, with ``k``, ``tasks`` and ``adaptive`` as
        of the last resumption, and the ``resumptions`` listed; see
        :class:`Ledger`). Runs not yet recorded (an evaluation stopped part
        way) are absent.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ValueError
        If the file is not a ledger or a line before the last is damaged. A
        half-written last line (the process was killed while writing it) is
        ignored with a warning.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import passk_lab as pk
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ledger.jsonl"
    >>> result = pk.evaluate(pk.coin_tasks(0.85, 40, seed=42), k=5, ledger=path,
    ...                      model="coin-0.85", seed=42)
    >>> runs, header = pk.read_ledger(path)
    >>> header["model"], header["k"], len(runs)
    ('coin-0.85', 5, 200)
    >>> pk.pass_pow_k(runs, 5)
    0.45
    """
    target = Path(path)
    check_regular(target, LEDGER_FILE)  # a FIFO would block the read, a device never end it
    parsed = parse(target.read_bytes(), target)
    if parsed.header is None:
        raise ValueError(f"{path} is empty: the evaluation stopped before writing its header")
    position = {task: index for index, task in enumerate(parsed.header["tasks"])}
    runs = _frame(parsed.runs)
    order = np.lexsort(
        [runs["run"].to_numpy(), np.array([position[task] for task in parsed.runs["task"]])]
    )
    return Ledger(runs.take(order).reset_index(drop=True), parsed.header)
