r"""The ledger: an evaluation's record on disk, one JSON line per finished run.

:func:`passk_lab.evaluate` with ``ledger=PATH`` writes a JSON Lines file. The
first line is the **header**: what was evaluated and when (the model or agent
name, the date, the seed, the package version, the task ids, k, the time
limits and any user metadata). Every later line is one finished **run**,
appended and flushed the moment the run ends, so a crash loses at most the
runs in flight:

``task``, ``run``
    the task's id and the run's index (0 to k - 1);
``passed``
    the verdict of ``Task.passes`` on the run's result, false when the run or
    the verdict raised;
``error_type``, ``error_message``, ``error_kind``
    what was raised, if anything, and whose failure it was: ``"agent"`` (the
    run or its verdict raised), ``"timeout"`` (the run ran out of time) or
    ``"infrastructure"`` (an exception named as infrastructure kept failing
    after its retries);
``timed_out``, ``attempts``, ``started_at``, ``duration_s``
    whether the run ran out of time, how many attempts it took, when it
    started (ISO 8601, UTC) and how long it took, verdict and retries included;
``cost``
    only when the run recorded one: an object of names to numbers >= 0, such
    as ``{"usd": 0.25, "tokens": 1000}``, in the order the run gave them.

A resumed evaluation first writes a **resumption** line, ``{"resumed": DATE,
"passk_lab": VERSION, "k": K, "tasks_added": [...], "adaptive": ...}``: who
continued the ledger and when, with the k it runs to (never below the one
before) and the tasks it adds, so an evaluation can grow after it finished.
Every run line is checked against the header in force when it was written
(its task among the tasks then, its run below the k then); the header
:func:`read_ledger` returns is the effective one, as of the last resumption,
with the resumptions listed under ``"resumptions"``.

This is format version 2. A version-1 ledger (no resumption lines, no
``adaptive`` field in its header) reads as before; resuming one appends
version-2 lines to it, which is how a version-1 ledger grows.

:func:`read_ledger` reads it back as the runs table :func:`passk_lab.evaluate`
returns, with the header beside it. Reading and resuming check every field of
every line in one place (:func:`_record` and :func:`_header`), so a line that
reads one way reads the same way everywhere, and a wrong one is refused with
its file, line and field. The runs are first checked a column at a time
(:func:`_runs_at_once`), which accepts only what those checks accept; a
ledger it does not accept whole is read again line by line, and the first
wrong line named.

An evaluation holds an exclusive lock (``fcntl.flock``) on the ledger file
itself for as long as it runs, and only appends to it; a second evaluation on
the same file is refused at once. The lock is on the ledger, not on a lock
file beside it, so there is no second file to leave behind or to delete by
mistake while an evaluation runs, and the operating system drops it when the
process ends, however it ends (a killed evaluation leaves no stale lock).

Every text a ledger or a runs table receives (error messages, task ids, the
model, metadata) is made encodable first: a lone surrogate, as
:func:`os.listdir` gives for a file name that is not UTF-8, is written as its
backslash escape (``"\udcff"``), which :func:`encodable` does.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import math
import numbers
import operator
import os
import re
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

import numpy as np
import pandas as pd

from passk_lab._choices import ERROR_KINDS
from passk_lab._files import check_regular, encodable, not_utf8
from passk_lab._warnings import ReadWarning, warn

__all__ = ["Ledger", "read_ledger"]

FORMAT = "passk_lab.ledger"
FORMAT_VERSION = 2
_READ_VERSIONS = (1, 2)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_NAIVE = _EPOCH.replace(tzinfo=None)
_JSON_BOOL = {False: "false", True: "true"}
# What a resumed evaluation must share with its ledger: the settings that change what a run
# means (not the date or version). Refused rather than recorded per resumption: the header
# then describes every run, and a reader never has to ask which settings a run was made
# under. What may grow is k and the tasks (a resumption line records both), since a new run
# or a new task changes no run already made; the adaptive settings are the driver's to check.
_MATCHED = ("model", "seed", "timeout_ms", "run_timeout_ms", "metadata")
_DAMAGED = "the ledger is damaged"
_WHAT = "ledger file"  # what a refused path should have been


class RunRecord(NamedTuple):
    """One finished run, as the harness keeps it and the ledger writes it."""

    task: Hashable
    run: int
    passed: bool
    error_type: str | None
    error_message: str | None
    error_kind: str | None
    timed_out: bool
    attempts: int
    started_at_us: int  # microseconds since the Unix epoch, UTC
    duration_s: float
    cost: Mapping[str, float] | None  # names to numbers >= 0, as cost_of returns them


class Ledger(NamedTuple):
    """A ledger read back: its runs table and its header.

    Attributes
    ----------
    runs : pandas.DataFrame
        The runs, in the header's task order then run order, with the columns
        of :attr:`passk_lab.EvalResult.runs`.
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


# --- text ----------------------------------------------------------------------------------


def _encodable_json(value: Any) -> Any:
    """Return a JSON value with every text in it (keys too) made :func:`encodable`."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, Mapping):
        return {
            encodable(key) if isinstance(key, str) else key: _encodable_json(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_encodable_json(item) for item in value]
    return value


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
    columns = list(zip(*records, strict=True)) if records else [()] * len(RunRecord._fields)
    return _frame(dict(zip(RunRecord._fields, columns, strict=True)))


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


# --- writing -------------------------------------------------------------------------------


def utc_iso(microseconds: int) -> str:
    """Return the ISO 8601 UTC time `microseconds` after the Unix epoch."""
    seconds, fraction = divmod(microseconds, 1_000_000)
    return f"{_utc_second(seconds)}.{fraction:06d}+00:00"


@functools.lru_cache(maxsize=1)  # the runs that start within one second share its text
def _utc_second(seconds: int) -> str:
    return (_EPOCH_NAIVE + dt.timedelta(seconds=seconds)).isoformat(timespec="seconds")


def json_id(task_id: Hashable, position: int) -> int | str:
    """Return a task id as JSON keeps it exactly (an int or a str), or refuse it."""
    if isinstance(task_id, str):
        return task_id
    if isinstance(task_id, numbers.Integral) and not isinstance(task_id, bool):
        return int(task_id)
    raise TypeError(
        f"tasks[{position}] has the id {task_id!r} ({type(task_id).__name__}); a ledger "
        "records task ids as text or integers, so give the Task an int or str id"
    )


def header(
    *,
    model: str | None,
    seed: int | None,
    version: str,
    k: int,
    tasks: Sequence[Hashable],
    timeout_ms: float | None,
    run_timeout_ms: float | None,
    metadata: Mapping[str, Any] | None,
    started_us: int,
    adaptive: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the header of an evaluation, as a new ledger's first line records it.

    `adaptive` is the adaptive driver's record of its settings (None for
    :func:`passk_lab.evaluate`).
    """
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "model": None if model is None else encodable(model),
        "date": utc_iso(started_us),
        "seed": seed,
        "passk_lab": version,
        "k": k,
        "tasks": list(tasks),
        "timeout_ms": timeout_ms,
        "run_timeout_ms": run_timeout_ms,
        "metadata": _encodable_json(dict(metadata or {})),
        "adaptive": None if adaptive is None else _encodable_json(dict(adaptive)),
    }


def run_line(record: RunRecord) -> str:
    """Return the ledger line of one run, newline included.

    The line is ``json.dumps`` of the record's fields with compact separators,
    ``started_at`` after ``duration_s``, and ``cost`` last and only when the run
    has one, written out field by field (each field's type is known, so no
    generic encoder is needed).
    """
    task, error_type, message, kind, cost = (
        record.task,
        record.error_type,
        record.error_message,
        record.error_kind,
        record.cost,
    )
    return (
        f'{{"task":{json.dumps(task) if isinstance(task, str) else task},"run":{record.run},'
        f'"passed":{_JSON_BOOL[record.passed]},'
        f'"error_type":{"null" if error_type is None else json.dumps(error_type)},'
        f'"error_message":{"null" if message is None else json.dumps(message)},'
        f'"error_kind":{"null" if kind is None else json.dumps(kind)},'
        f'"timed_out":{_JSON_BOOL[record.timed_out]},"attempts":{record.attempts},'
        f'"duration_s":{record.duration_s!r},"started_at":"{utc_iso(record.started_at_us)}"'
        + ("}\n" if cost is None else f',"cost":{json.dumps(cost, separators=(",", ":"))}}}\n')
    )


def open_ledger(
    path: str | os.PathLike[str],
    new_header: dict[str, Any],
    *,
    resume: bool,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[IO[str], list[RunRecord], dict[str, Any]]:
    """Open a ledger to append runs to; return it, the runs it holds, and its effective header.

    The returned file holds an exclusive lock on the ledger until it is closed;
    if another evaluation holds it, the ledger is refused at once. A new ledger
    gets `new_header`. With `resume`, an existing ledger must record the same
    model, seed, time limits and metadata; `new_header`'s k may be larger than
    the ledger's and its tasks may add to the ledger's (never drop one). With
    `check` None the adaptive settings must be equal too; otherwise
    ``check(header)`` is called with the ledger's effective header, under the
    lock and before anything is written, and refuses it by raising
    ValueError. A half-written last line is cut off (with a warning), then a
    resumption line is written, before any run.
    """
    try:
        first_line = json.dumps(new_header, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"metadata must hold only JSON values (text, numbers, bools, None, and lists and "
            f"dicts of them) to go in a ledger: {exc}"
        ) from None
    target = Path(path)
    # Before the open, which would wait forever on a FIFO. A file put in its place between
    # the two is not guarded against: that is the user racing their own evaluation.
    with contextlib.suppress(FileNotFoundError):  # none yet: the open creates it
        check_regular(target, _WHAT)
    handle = target.open("a", encoding="utf-8")  # append only: nothing written is rewritten
    try:
        records, kept_header = _take(handle, target, first_line, resume=resume, check=check)
    except BaseException:
        handle.close()  # and with it the lock
        raise
    return (
        handle,
        records,
        {**new_header, "resumptions": []} if kept_header is None else kept_header,
    )


def _take(
    handle: IO[str],
    target: Path,
    first_line: str,
    *,
    resume: bool,
    check: Callable[[dict[str, Any]], None] | None,
) -> tuple[list[RunRecord], dict[str, Any] | None]:
    """Lock the ledger open in `handle`, check it, and return its runs and its header."""
    import fcntl  # POSIX only: here, so that reading a ledger needs no lock anywhere

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ValueError(
            f"the ledger {str(target)!r} is in use: another evaluation holds it and is "
            "writing runs to it now; wait until that evaluation ends (then resume=True runs "
            "whatever it left undone), or give this evaluation a new ledger path"
        ) from None
    with target.open("rb") as reader:  # read under the lock: no writer is half-way through
        content = reader.read()
    if content and not resume:
        raise ValueError(
            f"the ledger {str(target)!r} already exists; pass resume=True to finish the "
            "evaluation it records, or give a new path"
        )
    parsed = _parse(content, target) if content else None
    if parsed is None or parsed.header is None:
        os.ftruncate(handle.fileno(), 0)  # nothing complete: an empty or half-written header
        handle.write(first_line)
        handle.flush()
        return [], None
    new_header = json.loads(first_line)  # as the ledger would give it back
    resumption = _resumption(parsed.header, new_header, target, check)
    os.ftruncate(handle.fileno(), parsed.complete_bytes)  # drop a half-written last line
    handle.write(json.dumps(resumption) + "\n")
    handle.flush()
    return parsed.records, _after(parsed.header, resumption)


def _resumption(
    ledger: dict[str, Any],
    new: dict[str, Any],
    target: Path,
    check: Callable[[dict[str, Any]], None] | None,
) -> dict[str, Any]:
    """Return the resumption line of `new` continuing the `ledger` header, or refuse it."""
    where = f"cannot resume from {str(target)!r}"
    differences = [
        f"{key}: the ledger has {_shown(ledger[key])}, this evaluation has {_shown(new[key])}"
        for key in _MATCHED
        if ledger[key] != new[key]
    ]
    if check is None and ledger["adaptive"] != new["adaptive"]:
        if new["adaptive"] is None:
            raise ValueError(
                f"{where}: this ledger records an adaptive evaluation; resume it with "
                "evaluate_until"
            )
        if ledger["adaptive"] is None:
            raise ValueError(
                f"{where}: this ledger records an evaluation of fixed k, not an adaptive one; "
                "resume it with evaluate"
            )
        differences.append(
            f"adaptive: the ledger has {ledger['adaptive']!r}, this evaluation has "
            f"{new['adaptive']!r}"
        )
    if differences:
        raise ValueError(
            f"{where}: it records another evaluation ("
            + "; ".join(differences)
            + "). Resume with the ledger's settings, or give a new ledger path for new ones"
        )
    if check is not None:
        check(ledger)
    if new["k"] < ledger["k"]:
        raise ValueError(
            f"{where} with k = {new['k']}: the ledger already has k = {ledger['k']} runs per "
            f"task, and a ledger grows but never shrinks; resume with k >= {ledger['k']}, or "
            "give a new ledger path for a smaller evaluation"
        )
    tasks = set(new["tasks"])
    missing = [task for task in ledger["tasks"] if task not in tasks]
    if missing:
        raise ValueError(
            f"{where}: the ledger has {len(missing)} task(s) this evaluation lacks "
            f"({', '.join(map(repr, missing[:3]))}{', ...' if len(missing) > 3 else ''}); a "
            "ledger grows but never loses a task, so pass every task it has (and any new "
            "ones), or give a new ledger path"
        )
    known = set(ledger["tasks"])
    return {
        "resumed": new["date"],
        "passk_lab": new["passk_lab"],
        "k": new["k"],
        "tasks_added": [task for task in new["tasks"] if task not in known],
        "adaptive": new["adaptive"],
    }


def _shown(value: object) -> str:
    if isinstance(value, list) and len(value) > 6:
        return f"{len(value)} tasks [{', '.join(map(repr, value[:3]))}, ...]"
    if isinstance(value, list):
        return f"{len(value)} tasks {value!r}"
    return repr(value)


# --- reading -------------------------------------------------------------------------------


class _Parsed(NamedTuple):
    header: dict[str, Any] | None
    runs: dict[str, Sequence[Any]]  # the fields of RunRecord, in its order, as columns
    complete_bytes: int  # length of the file up to the end of its last complete line

    @property
    def records(self) -> list[RunRecord]:
        return list(map(RunRecord._make, zip(*self.runs.values(), strict=True)))


def _parse(content: bytes, path: Path) -> _Parsed:
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
        return _Parsed(None, _columns([]), 0)
    head = _header(_json_line(lines[0], 1, path), path)
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
        return _Parsed(head, _columns(records), complete_bytes)
    return _Parsed(at_once[1], at_once[0], complete_bytes)


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
                head = _resumed(head, contents[start], start + 2, path)
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
            head = _resumed(head, content, number, path)
            tasks, k = head["tasks"], head["k"]
            known = set(tasks)
            continue
        record = _record(content, number, path)
        key = (record.task, record.run)
        if record.task not in known or not 0 <= record.run < k:
            raise ValueError(
                f"line {number} of {path} records run {record.run} of task {record.task!r}, "
                f"which the header's {len(tasks)} tasks x k = {k} do not include; {_DAMAGED}"
            )
        if key in seen:
            raise ValueError(
                f"line {number} of {path} records run {record.run} of task {record.task!r} "
                f"a second time; {_DAMAGED} (were two evaluations writing to it?)"
            )
        seen.add(key)
        records.append(record)
    return records, head


def _json_line(line: str, number: int, path: Path) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as exc:  # and a number of too many digits, or nesting
        raise ValueError(f"line {number} of {path} is not JSON ({exc}); {_DAMAGED}") from None


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


def _wrong(path: Path, number: int, what: str, name: str, value: object, expected: str) -> str:
    return (
        f"line {number} of {path} is not {what}: its field {name!r} is {value!r} "
        f"({type(value).__name__}), not {expected}; {_DAMAGED}"
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: object) -> bool:
    return isinstance(value, str) or _is_int(value)


def finite_number(value: object) -> float | None:
    """Return a number (not a bool) as a finite float; None if it is not one.

    An integer can be past every float: ``10**400 < math.inf`` holds, yet
    ``float(10**400)`` overflows, so the test is made of the float.

    Examples
    --------
    >>> finite_number(2), finite_number(0.5), finite_number(True)
    (2.0, 0.5, None)
    >>> finite_number(10**400), finite_number(float("inf")), finite_number(float("nan"))
    (None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def cost_of(cost: object) -> dict[str, float]:
    """Return a run's cost as a ledger records it, or raise ValueError saying what is wrong.

    A cost is a mapping of names (text) to finite numbers >= 0 (not bools);
    integers stay integers, other numbers become floats, names are made
    :func:`encodable`, and the order is kept.

    Examples
    --------
    >>> cost_of({"usd": 0.25, "tokens": 1000})
    {'usd': 0.25, 'tokens': 1000}
    >>> cost_of({"usd": -1})
    Traceback (most recent call last):
    ...
    ValueError: its field 'usd' is -1 (int), not a finite number >= 0
    """
    if not isinstance(cost, Mapping):
        raise ValueError(
            f"it is {brief_repr(cost)} ({type(cost).__name__}), not a mapping of names to numbers"
        )
    checked: dict[str, float] = {}
    for name, value in cost.items():
        if not isinstance(name, str):
            raise ValueError(f"its name {brief_repr(name)} ({type(name).__name__}) is not text")
        if not _is_duration(value):
            raise ValueError(
                f"its field {name!r} is {brief_repr(value)} ({type(value).__name__}), "
                "not a finite number >= 0"
            )
        checked[encodable(name)] = (
            int(value) if isinstance(value, numbers.Integral) else float(value)
        )
    return checked


def brief_repr(value: object) -> str:
    """Return ``repr(value)`` for a message, cut short, or a stand-in if repr raises."""
    try:
        text = repr(value)
    except Exception:
        text = f"<a {type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _is_time_limit(value: object) -> bool:
    return value is None or ((number := finite_number(value)) is not None and number > 0)


def _is_duration(value: object) -> bool:
    return (number := finite_number(value)) is not None and number >= 0


def _is_utc_time(value: object) -> bool:
    try:
        moment = dt.datetime.fromisoformat(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return moment.utcoffset() is not None


# The header's fields: what each must be, as a test and in words.
_HEADER_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("model", lambda value: value is None or isinstance(value, str), "text or null"),
    ("date", _is_utc_time, "an ISO 8601 time with its UTC offset"),
    ("seed", lambda value: value is None or _is_int(value), "an integer or null"),
    ("passk_lab", lambda value: isinstance(value, str), "the version as text"),
    ("k", lambda value: _is_int(value) and value >= 1, "a positive integer"),
    (
        "tasks",
        lambda value: isinstance(value, list) and all(map(_is_id, value)),
        "a list of task ids (text or integers)",
    ),
    ("timeout_ms", _is_time_limit, "a positive number of milliseconds or null"),
    ("run_timeout_ms", _is_time_limit, "a positive number of milliseconds or null"),
    ("metadata", lambda value: isinstance(value, dict), "an object"),
    ("adaptive", lambda value: value is None or isinstance(value, dict), "an object or null"),
)
_HEADER_FIX = "restore the header from a copy, or start a new ledger"


def _check_fields(
    line: dict[str, Any],
    fields: tuple[tuple[str, Any, str], ...],
    path: Path,
    number: int,
    what: str,
    fix: str,
) -> None:
    """Refuse the first of `fields` that `line` lacks or holds wrongly, naming it and `fix`."""
    for name, valid, expected in fields:
        if name not in line:
            raise ValueError(
                f"line {number} of {path} is not {what}: it has no field {name!r}; "
                f"{_DAMAGED}: {fix}"
            )
        if not valid(line[name]):
            raise ValueError(_wrong(path, number, what, name, line[name], expected) + f": {fix}")


def _header(head: Any, path: Path) -> dict[str, Any]:
    """Check a ledger's first line field by field and return it, its texts encodable."""
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise ValueError(
            f"{path} is not a passk_lab ledger: its first line is not a header with "
            f'"format": "{FORMAT}"'
        )
    version = head.get("format_version")
    if not (_is_int(version) and version in _READ_VERSIONS):
        raise ValueError(
            f"{path} is a ledger of format version {version!r}; this passk_lab reads versions "
            f"{' and '.join(map(str, _READ_VERSIONS))}, so upgrade passk_lab to read it"
        )
    if version == 1:  # written before adaptive evaluations: none
        head = {**head, "adaptive": head.get("adaptive")}
    _check_fields(head, _HEADER_FIELDS, path, 1, "a ledger header", _HEADER_FIX)
    checked: dict[str, Any] = _encodable_json(head)
    repeated = _repeated(checked["tasks"])
    if repeated:
        raise ValueError(
            f"line 1 of {path} is not a ledger header: its field 'tasks' names {repeated[0]!r} "
            f"more than once; {_DAMAGED}: {_HEADER_FIX}"
        )
    return {**checked, "resumptions": []}


def _repeated(tasks: Sequence[Hashable]) -> list[Hashable]:
    return [task for task, count in Counter(tasks).items() if count > 1]


# A resumption line's fields, in the order it writes them: what each must be, as a test and in
# words (that k does not shrink and the tasks added are new is checked by _resumed).
_RESUMPTION_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("resumed", _is_utc_time, "an ISO 8601 time with its UTC offset"),
    ("passk_lab", lambda value: isinstance(value, str), "the version as text"),
    ("k", lambda value: _is_int(value) and value >= 1, "a positive integer"),
    (
        "tasks_added",
        lambda value: isinstance(value, list) and all(map(_is_id, value)),
        "a list of task ids (text or integers)",
    ),
    ("adaptive", lambda value: value is None or isinstance(value, dict), "an object or null"),
)
_RESUMPTION_FIX = "restore that line from a copy of the ledger, or start a new ledger"


def _resumed(
    head: dict[str, Any], content: dict[str, Any], number: int, path: Path
) -> dict[str, Any]:
    """Check the resumption line `content` against the header in force, `head`; return the next.

    The one check of a resumption line: both readings of a ledger go through it.
    """
    what = "a resumption record"
    _check_fields(content, _RESUMPTION_FIELDS, path, number, what, _RESUMPTION_FIX)
    resumption: dict[str, Any] = _encodable_json(content)
    if resumption["k"] < head["k"]:
        raise ValueError(
            f"line {number} of {path} is not {what}: its field 'k' is {resumption['k']}, below "
            f"the k = {head['k']} in force before it (a resumption never lowers k); "
            f"{_DAMAGED}: {_RESUMPTION_FIX}"
        )
    added = resumption["tasks_added"]
    again = [task for task in added if task in set(head["tasks"])] or _repeated(added)
    if again:
        raise ValueError(
            f"line {number} of {path} is not {what}: its field 'tasks_added' adds {again[0]!r}, "
            f"which the ledger already has; {_DAMAGED}: {_RESUMPTION_FIX}"
        )
    return _after(head, resumption)


def _after(head: dict[str, Any], resumption: dict[str, Any]) -> dict[str, Any]:
    """Return the header in force after `resumption`: its k, tasks and adaptive settings."""
    return {
        **head,
        "k": resumption["k"],
        "tasks": [*head["tasks"], *resumption["tasks_added"]],
        "adaptive": resumption["adaptive"],
        "resumptions": [*head["resumptions"], resumption],
    }


def _is_text(value: object) -> bool:
    return value is None or isinstance(value, str)


# A run line's fields, in the order it writes them: what each must be, as a test and in words.
_RUN_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("task", _is_id, "a task id (text or an integer)"),
    ("run", lambda value: _is_int(value) and value >= 0, "an integer >= 0"),
    ("passed", lambda value: isinstance(value, bool), "true or false"),
    ("error_type", _is_text, "text or null"),
    ("error_message", _is_text, "text or null"),
    ("error_kind", lambda value: value is None or value in ERROR_KINDS, f"null or {ERROR_KINDS}"),
    ("timed_out", lambda value: isinstance(value, bool), "true or false"),
    ("attempts", lambda value: _is_int(value) and value >= 1, "an integer >= 1"),
    ("duration_s", _is_duration, "a number of seconds >= 0"),
    ("started_at", _is_utc_time, "an ISO 8601 time with its UTC offset"),
)
_RUN_FIX = "correct that line, or delete it and resume=True runs that run again"
_COST = "an object of names to finite numbers >= 0"


def _record(content: Any, number: int, path: Path) -> RunRecord:
    """Check one run line field by field and return its record, its texts encodable.

    The one check of a run line: :func:`read_ledger` and a resumed evaluation
    both read lines through it.
    """
    if not isinstance(content, dict):
        raise ValueError(
            f"line {number} of {path} is not a run record: it is "
            f"{type(content).__name__}, not an object; {_DAMAGED}: {_RUN_FIX}"
        )
    _check_fields(content, _RUN_FIELDS, path, number, "a run record", _RUN_FIX)
    cost = content.get("cost")  # optional: a run without a cost has no such field
    if cost is not None:
        try:
            cost = cost_of(cost)
        except ValueError:
            raise ValueError(
                _wrong(path, number, "a run record", "cost", content["cost"], _COST)
                + f": {_RUN_FIX}"
            ) from None
    started = dt.datetime.fromisoformat(content["started_at"])
    task, error_type, message = content["task"], content["error_type"], content["error_message"]
    return RunRecord(
        task=encodable(task) if isinstance(task, str) else task,
        run=content["run"],
        passed=content["passed"],
        error_type=None if error_type is None else encodable(error_type),
        error_message=None if message is None else encodable(message),
        error_kind=content["error_kind"],
        timed_out=content["timed_out"],
        attempts=content["attempts"],
        started_at_us=(started - _EPOCH) // dt.timedelta(microseconds=1),
        duration_s=float(content["duration_s"]),
        cost=cost,
    )


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
        columns of :attr:`passk_lab.EvalResult.runs`; and the effective header
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
    check_regular(target, _WHAT)  # a FIFO would block the read, a device never end it
    parsed = _parse(target.read_bytes(), target)
    if parsed.header is None:
        raise ValueError(f"{path} is empty: the evaluation stopped before writing its header")
    position = {task: index for index, task in enumerate(parsed.header["tasks"])}
    runs = _frame(parsed.runs)
    order = np.lexsort(
        [runs["run"].to_numpy(), np.array([position[task] for task in parsed.runs["task"]])]
    )
    return Ledger(runs.take(order).reset_index(drop=True), parsed.header)
