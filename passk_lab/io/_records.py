"""What the readers of per-run records share: the checks of a record's fields, and of its trials.

Every reader of a harness's own files (tau-bench, tau2-bench, Harbor, HAL,
lm-evaluation-harness, samples, counts) checks a field with these, so that a
refusal reads the same everywhere, naming the file, the record and the field::

    <file>, <record>: <field> is <value>, <its kind>; <what it should be, or the fix>
    <file>, <record>: no <field>; <why it is needed>

`where` is the file and the record (``"results.json, simulation 3 (task_id '7')"``; the file
alone for a field of the whole file), `field` the field's path in the record
(``"reward_info.reward"``; ``"the record"`` or ``"the file"`` for the value itself) and `rule`
what the field should hold, in the source's words. A scalar field that is null is no value
(``no reward``); a record, an object, a list or a verdict that is null is a value of the wrong
kind (``the record is None, null``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from passk_lab._errors import with_keywords
from passk_lab._files import encodable

__all__ = [
    "absent",
    "array",
    "boolean",
    "check_name",
    "check_partial",
    "check_trials",
    "integer",
    "json_kind",
    "mapping",
    "number",
    "refusal",
    "task_id",
    "text",
    "trial_number",
]

_INT64 = np.iinfo(np.int64)
_SHOWN = 60
"""The characters of a value a message shows at most."""


def json_kind(value: object) -> str:
    """Name the kind of a JSON value, as read by Python or pandas, for a message.

    Examples
    --------
    >>> for value in (None, True, 7, 1e20, "7", [7], {"id": 7}):
    ...     print(json_kind(value))
    null
    a boolean
    an integer
    a number with a fraction or an exponent
    text
    a list
    an object
    """
    if value is None:
        return "null"
    if isinstance(value, bool | np.bool_):
        return "a boolean"
    if isinstance(value, int | np.integer):
        return "an integer"
    if isinstance(value, float | np.floating):
        return "a number with a fraction or an exponent"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple | np.ndarray):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def refusal(
    where: str, field: str, value: object, rule: str, kind: str | None = None
) -> ValueError:
    """Return the refusal of a field's value, in the one shape every reader's messages take.

    Parameters
    ----------
    where : str
        The file and the record.
    field : str
        The field's path in the record.
    value : object
        Its value, shown as Python writes it (cut at 60 characters).
    rule : str
        What the field should hold, or the fix.
    kind : str, optional
        What is wrong with the value; by default its JSON kind (:func:`json_kind`).

    Examples
    --------
    >>> print(refusal("r.json, record 2", "reward", "1.0", "a reward is a number in [0, 1]"))
    r.json, record 2: reward is '1.0', text; a reward is a number in [0, 1]
    >>> print(refusal("r.json", "info", {"a": "x" * 80}, "an object", kind="long"))
    r.json: info is {'a': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..., long; an object
    """
    shown = repr(value)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 3] + "..."
    return ValueError(f"{where}: {field} is {shown}, {kind or json_kind(value)}; {rule}")


def absent(where: str, field: str, rule: str) -> ValueError:
    """Return the refusal of a field the record lacks (or holds as null).

    Examples
    --------
    >>> print(absent("r.json, record 2", "reward", "every tau-bench record has one"))
    r.json, record 2: no reward; every tau-bench record has one
    """
    return ValueError(f"{where}: no {field}; {rule}")


def number(value: object, where: str, field: str, rule: str) -> float:
    """Return a field that is a finite number (not a boolean) as a float.

    Raises
    ------
    ValueError
        If the value is missing (null), of another kind, NaN, an infinity, or an
        integer past a float's range.

    Examples
    --------
    >>> number(3, "r.json", "cost", "a cost is a number")
    3.0
    >>> number(float("nan"), "r.json", "reward", "a reward is a number in [0, 1]")
    Traceback (most recent call last):
    ...
    ValueError: r.json: reward is nan, not a finite number; a reward is a number in [0, 1]
    """
    if value is None:
        raise absent(where, field, rule)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise refusal(where, field, value, rule)
    try:
        result = float(value)
    except OverflowError:
        raise refusal(where, field, value, rule, "an integer too large for a float") from None
    if not math.isfinite(result):
        raise refusal(where, field, value, rule, "not a finite number")
    return result


def integer(value: object, where: str, field: str, rule: str, *, minimum: int | None = None) -> int:
    """Return a field that is an integer (not a boolean) within int64, and at least `minimum`.

    Raises
    ------
    ValueError
        If the value is missing (null), of another kind (``1.0`` too), past int64 or below
        `minimum`.

    Examples
    --------
    >>> integer(4, "results.json", "info.num_trials", "an integer >= 1", minimum=1)
    4
    >>> integer(0, "results.json", "info.num_trials", "an integer >= 1", minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: results.json: info.num_trials is 0, below 1; an integer >= 1
    """
    if value is None:
        raise absent(where, field, rule)
    if isinstance(value, bool) or not isinstance(value, int):
        raise refusal(where, field, value, rule)
    if not _INT64.min <= value <= _INT64.max:
        raise refusal(where, field, value, rule, "an integer too large for int64")
    if minimum is not None and value < minimum:
        raise refusal(where, field, value, rule, f"below {minimum}")
    return value


def text(value: object, where: str, field: str, rule: str, *, empty: bool = True) -> str:
    """Return a field that is text; ``""`` only when `empty`.

    Examples
    --------
    >>> text("react", "u.json", "config.agent_name", "HAL writes it as text")
    'react'
    >>> text(7, "u.json", "config.agent_name", "HAL writes it as text")
    Traceback (most recent call last):
    ...
    ValueError: u.json: config.agent_name is 7, an integer; HAL writes it as text
    """
    if value is None:
        raise absent(where, field, rule)
    if not isinstance(value, str):
        raise refusal(where, field, value, rule)
    if not value and not empty:
        raise refusal(where, field, value, rule, "empty text")
    return value


def boolean(value: object, where: str, field: str, rule: str) -> bool:
    """Return a field that is ``true`` or ``false`` (``1``, ``"true"`` and null are refused).

    Examples
    --------
    >>> boolean(1, "scored.json, task 'a'", "sample 0", "a verdict is true or false")
    Traceback (most recent call last):
    ...
    ValueError: scored.json, task 'a': sample 0 is 1, an integer; a verdict is true or false
    """
    if not isinstance(value, bool):
        raise refusal(where, field, value, rule)
    return value


def mapping(value: object, where: str, field: str, rule: str) -> dict[str, Any]:
    """Return a field that is a JSON object.

    Examples
    --------
    >>> mapping([1], "results.json", "info.agent_info", "tau2-bench writes an object")
    Traceback (most recent call last):
    ...
    ValueError: results.json: info.agent_info is [1], a list; tau2-bench writes an object
    """
    if not isinstance(value, dict):
        raise refusal(where, field, value, rule)
    return value


def array(value: object, where: str, field: str, rule: str) -> list[Any]:
    """Return a field that is a JSON list.

    Examples
    --------
    >>> array(7, "results.json", "simulations", "tau2-bench writes a list of simulation runs")
    Traceback (most recent call last):
    ...
    ValueError: results.json: simulations is 7, an integer; tau2-bench writes a list of ...
    """
    if not isinstance(value, list):
        raise refusal(where, field, value, rule)
    return value


def task_id(
    value: object,
    where: str,
    field: str = "task_id",
    rule: str = "a task id is a text or an integer",
) -> int | str:
    """Return a record's task id, an integer within int64 or a text (made encodable).

    Examples
    --------
    >>> task_id("airline_3", "results.json, simulation 0"), task_id(7, "here")
    ('airline_3', 7)
    >>> task_id(1.5, "results.json, simulation 2")
    Traceback (most recent call last):
    ...
    ValueError: results.json, simulation 2: task_id is 1.5, a number with a fraction or an ...
    >>> task_id(2**70, "r.json, record 0")
    Traceback (most recent call last):
    ...
    ValueError: r.json, record 0: task_id is 1180591620717411303424, an integer too large ...
    """
    if value is None:
        raise absent(where, field, "every run needs the task it belongs to")
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, int) and not isinstance(value, bool):
        large = f'write such a {field} as a JSON string ("{value}")'
        return integer(value, where, field, large)
    raise refusal(where, field, value, rule)


def trial_number(
    value: object,
    where: str,
    field: str = "trial",
    rule: str = "trials are numbered 0, 1, 2, ... within a task",
) -> int:
    """Return a record's trial number, an integer ``>= 0``, refusing a missing or other one.

    Examples
    --------
    >>> trial_number(3, "here")
    3
    >>> trial_number(None, "results.json, simulation 4 (task_id '7')")
    Traceback (most recent call last):
    ...
    ValueError: results.json, simulation 4 (task_id '7'): no trial; every run needs its trial ...
    """
    if value is None:
        raise absent(
            where, field, "every run needs its trial number (0, 1, 2, ...) within its task"
        )
    return integer(value, where, field, rule, minimum=0)


def check_name(value: object, option: str, what: str) -> None:
    """Refuse an option naming a field of the file (`what`) that is neither None nor a str.

    Examples
    --------
    >>> check_name("exact_match", "metric", "a metric's name")
    >>> check_name(1, "metric", "a metric's name")
    Traceback (most recent call last):
    ...
    TypeError: metric must be a metric's name (a str), got 1
    """
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{option} must be {what} (a str), got {value!r}")


def check_partial(partial: object) -> None:
    """Refuse a `partial` option that is not True or False (``"no"`` would read as true).

    Examples
    --------
    >>> check_partial(True)
    >>> check_partial("no")
    Traceback (most recent call last):
    ...
    TypeError: partial must be True or False, got 'no'
    """
    if not isinstance(partial, bool):
        raise TypeError(f"partial must be True or False, got {partial!r}")


def check_trials(
    keys: Sequence[Hashable],
    trials: Sequence[int],
    where: Callable[[int], str],
    *,
    declared: int | None = None,
    declared_by: str = "",
    field: str = "trial",
    complete: bool = True,
) -> None:
    """Refuse a trial recorded twice, and a task with fewer (or more) trials than declared.

    Parameters
    ----------
    keys : sequence of hashable
        Each record's task (with its group, as a tuple, when the file has groups).
    trials : sequence of int
        Each record's trial number.
    where : callable
        Maps a record's position to the words that locate it (``"results.json, simulation
        3 (task_id '7')"``).
    declared : int, optional
        The number of trials the file says every task has (tau2-bench's ``num_trials``);
        None when it says none.
    declared_by : str
        Where the file declares it, for the message (``"info.num_trials"``).
    field : str
        The file's name for a trial number, for the messages.
    complete : bool
        Refuse a task with fewer than `declared` trials (the default); False reads an
        evaluation that stopped early (a reader's ``partial=True``), still refusing a trial
        number past `declared`.

    Raises
    ------
    ValueError
        If two records share a task and trial (naming both), a trial number is not below
        `declared`, or a task has fewer than `declared` trials (naming the task and the
        missing trial numbers).

    Examples
    --------
    >>> where = "record {}".format
    >>> check_trials(["a", "a", "b"], [0, 1, 0], where)
    >>> check_trials(["a", "a"], [0, 0], where)
    Traceback (most recent call last):
    ...
    ValueError: record 1: trial 0 of task 'a' is recorded twice (first at record 0); ...
    >>> check_trials(["a", "a", "b"], [0, 1, 0], where, declared=2, declared_by="num_trials")
    Traceback (most recent call last):
    ...
    ValueError: task 'b' has 1 of the 2 trials num_trials declares: trial 1 is missing; ...
    """
    first: dict[tuple[Hashable, int], int] = {}
    seen: dict[Hashable, set[int]] = {}
    for number, (key, trial) in enumerate(zip(keys, trials, strict=True)):
        earlier = first.setdefault((key, trial), number)
        if earlier != number:
            raise ValueError(
                f"{where(number)}: {field} {trial} of task {key!r} is recorded twice (first at "
                f"{where(earlier)}); a run is counted once: drop the copy, or read the two "
                f"evaluations apart"
            )
        if declared is not None and trial >= declared:
            raise ValueError(
                f"{where(number)}: {field} is {trial}, but {declared_by} declares {declared} "
                f"trial(s) (numbered 0 to {declared - 1}); the file is inconsistent"
            )
        seen.setdefault(key, set()).add(trial)
    if declared is None or not complete:
        return
    for key, numbers in seen.items():
        if len(numbers) < declared:
            missing = sorted(set(range(declared)) - numbers)
            shown = ", ".join(map(str, missing[:5])) + (", ..." if len(missing) > 5 else "")
            raise with_keywords(
                ValueError(
                    f"task {key!r} has {len(numbers)} of the {declared} trials {declared_by} "
                    f"declares: {field} {shown} {'is' if len(missing) == 1 else 'are'} missing; "
                    f"the run may have stopped early or the file lost records: finish or re-run "
                    f"it, or pass partial=True to read the trials that are there"
                ),
                "partial",
            )
