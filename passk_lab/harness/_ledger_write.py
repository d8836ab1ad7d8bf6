"""Writing a ledger: its header, its run lines, the lock, and the appends.

:func:`open_ledger` opens a ledger to append to, under an exclusive lock on
the file itself, and writes a new ledger's :func:`header` or a resumed one's
resumption line; :func:`run_line` is the line of one finished run, which the
evaluation appends and flushes as the run ends. docs/ledger.md describes the
format, what survives a crash, and what a resumption may change.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import numbers
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from passk_lab._files import check_regular, encodable
from passk_lab.harness._ledger_format import (
    EPOCH,
    FORMAT,
    FORMAT_VERSION,
    LEDGER_FILE,
    RunRecord,
    after_resumption,
    encodable_json,
)
from passk_lab.harness._ledger_read import parse

__all__ = ["header", "json_id", "open_ledger", "run_line", "utc_iso"]

_EPOCH_NAIVE = EPOCH.replace(tzinfo=None)
_JSON_BOOL = {False: "false", True: "true"}
# What a resumed evaluation must share with its ledger: the settings that change what a run
# means (not the date or version). Refused rather than recorded per resumption: the header
# then describes every run, and a reader never has to ask which settings a run was made
# under. What may grow is k and the tasks (a resumption line records both), since a new run
# or a new task changes no run already made; the adaptive settings are the driver's to check.
_MATCHED = ("model", "seed", "timeout_ms", "run_timeout_ms", "metadata")


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
        "metadata": encodable_json(dict(metadata or {})),
        "adaptive": None if adaptive is None else encodable_json(dict(adaptive)),
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
        check_regular(target, LEDGER_FILE)
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
    parsed = parse(content, target) if content else None
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
    return parsed.records, after_resumption(parsed.header, resumption)


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
