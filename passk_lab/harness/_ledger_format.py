"""The ledger's lines: what each holds, and the one check of every field of every line.

A ledger is a JSON Lines file: a header, then one line per finished run, with
a resumption line wherever an evaluation was continued. This module says what
each line must hold (:data:`FORMAT`, :data:`FORMAT_VERSION`, :class:`RunRecord`)
and checks a line as it is read back: :func:`checked_header`,
:func:`checked_resumption` and :func:`checked_run` are the only checks of a
line, for :func:`~passk_lab.read_ledger` and a resumed evaluation alike, so
a line that reads one way reads the same way everywhere, and a wrong one is
refused with its file, line and field. docs/ledger.md describes every field.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from passk_lab._choices import ERROR_KINDS
from passk_lab._files import encodable

__all__ = [
    "DAMAGED",
    "EPOCH",
    "FORMAT",
    "FORMAT_VERSION",
    "LEDGER_FILE",
    "RunRecord",
    "after_resumption",
    "brief_repr",
    "checked_header",
    "checked_resumption",
    "checked_run",
    "cost_of",
    "encodable_json",
    "finite_number",
]

FORMAT = "passk_lab.ledger"
"""The header's ``format``: what tells a ledger from any other JSON Lines file."""
FORMAT_VERSION = 2
"""The version this passk_lab writes (2: with resumption lines and ``adaptive``)."""
_READ_VERSIONS = (1, 2)

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
"""What a run's ``started_at_us`` counts microseconds from."""
DAMAGED = "the ledger is damaged"
"""How every refusal of a line says what is wrong with the file."""
LEDGER_FILE = "ledger file"
"""What a path refused before it is opened should have been."""


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


def encodable_json(value: Any) -> Any:
    """Return a JSON value with every text in it (keys too) made :func:`encodable`."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, Mapping):
        return {
            encodable(key) if isinstance(key, str) else key: encodable_json(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [encodable_json(item) for item in value]
    return value


def _wrong(path: Path, number: int, what: str, name: str, value: object, expected: str) -> str:
    return (
        f"line {number} of {path} is not {what}: its field {name!r} is {value!r} "
        f"({type(value).__name__}), not {expected}; {DAMAGED}"
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
                f"line {number} of {path} is not {what}: it has no field {name!r}; {DAMAGED}: {fix}"
            )
        if not valid(line[name]):
            raise ValueError(_wrong(path, number, what, name, line[name], expected) + f": {fix}")


def checked_header(head: Any, path: Path) -> dict[str, Any]:
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
    checked: dict[str, Any] = encodable_json(head)
    repeated = _repeated(checked["tasks"])
    if repeated:
        raise ValueError(
            f"line 1 of {path} is not a ledger header: its field 'tasks' names {repeated[0]!r} "
            f"more than once; {DAMAGED}: {_HEADER_FIX}"
        )
    return {**checked, "resumptions": []}


def _repeated(tasks: Sequence[Hashable]) -> list[Hashable]:
    return [task for task, count in Counter(tasks).items() if count > 1]


# A resumption line's fields, in the order it writes them: what each must be, as a test and in
# words (that k does not shrink and the tasks added are new is checked by checked_resumption).
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


def checked_resumption(
    head: dict[str, Any], content: dict[str, Any], number: int, path: Path
) -> dict[str, Any]:
    """Check the resumption line `content` against the header in force, `head`; return the next.

    The one check of a resumption line: both readings of a ledger go through it.
    """
    what = "a resumption record"
    _check_fields(content, _RESUMPTION_FIELDS, path, number, what, _RESUMPTION_FIX)
    resumption: dict[str, Any] = encodable_json(content)
    if resumption["k"] < head["k"]:
        raise ValueError(
            f"line {number} of {path} is not {what}: its field 'k' is {resumption['k']}, below "
            f"the k = {head['k']} in force before it (a resumption never lowers k); "
            f"{DAMAGED}: {_RESUMPTION_FIX}"
        )
    added = resumption["tasks_added"]
    again = [task for task in added if task in set(head["tasks"])] or _repeated(added)
    if again:
        raise ValueError(
            f"line {number} of {path} is not {what}: its field 'tasks_added' adds {again[0]!r}, "
            f"which the ledger already has; {DAMAGED}: {_RESUMPTION_FIX}"
        )
    return after_resumption(head, resumption)


def after_resumption(head: dict[str, Any], resumption: dict[str, Any]) -> dict[str, Any]:
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


def checked_run(content: Any, number: int, path: Path) -> RunRecord:
    """Check one run line field by field and return its record, its texts encodable.

    The one check of a run line: :func:`~passk_lab.read_ledger` and a resumed evaluation
    both read lines through it.
    """
    if not isinstance(content, dict):
        raise ValueError(
            f"line {number} of {path} is not a run record: it is "
            f"{type(content).__name__}, not an object; {DAMAGED}: {_RUN_FIX}"
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
        started_at_us=(started - EPOCH) // dt.timedelta(microseconds=1),
        duration_s=float(content["duration_s"]),
        cost=cost,
    )
