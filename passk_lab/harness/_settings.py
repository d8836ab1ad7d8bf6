"""The harness's options, checked once, and the plan of one evaluation.

:class:`Settings` holds the keyword options of :func:`~passk_lab.evaluate`
and :func:`~passk_lab.evaluate_async`, checked; :func:`make_plan` checks the
tasks and k as well and returns the :class:`Plan` the runner carries out.
"""

from __future__ import annotations

import math
import numbers
import os
import typing
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from passk_lab._checks import as_int, check_size, positive_int
from passk_lab._errors import with_keywords
from passk_lab._files import encodable
from passk_lab.harness._ledger_format import finite_number
from passk_lab.harness._task import Guard, Task, the_result

__all__ = ["Plan", "Settings", "make_plan"]

_RUN_BYTES = 250
"""Bytes an evaluation keeps for each run: its record, then its row of the runs table."""


def _milliseconds(name: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of milliseconds, got {value!r}")
    number = finite_number(value)
    if number is None or number <= 0:
        raise ValueError(
            f"{name} must be a positive, finite number of milliseconds, got {value}; "
            "leave it as None for no time limit"
        )
    return number


def _per_run_ms(budget_ms: float | None, run_ms: float | None, runs: int) -> int | None:
    """Return one run's time limit: the budget spread over `runs`, capped by `run_ms`."""
    limits = [] if run_ms is None else [max(1, math.floor(run_ms))]
    if budget_ms is not None:
        limits.append(max(1, math.floor(budget_ms / runs)))
    return min(limits, default=None)


def _exception_types(infrastructure: object) -> tuple[type[Exception], ...]:
    types = infrastructure if isinstance(infrastructure, tuple | list) else (infrastructure,)
    for kind in types:
        if not (isinstance(kind, type) and issubclass(kind, Exception)):
            raise TypeError(
                f"infrastructure must be exception classes (such as ConnectionError), got "
                f"{kind!r}; name the types, not instances"
            )
    return tuple(types)


def _backoff(backoff_s: object) -> float:
    if isinstance(backoff_s, bool) or not isinstance(backoff_s, numbers.Real):
        raise TypeError(f"backoff_s must be a number of seconds, got {backoff_s!r}")
    seconds = finite_number(backoff_s)
    if seconds is None or seconds < 0:
        raise ValueError(f"backoff_s must be a finite number of seconds >= 0, got {backoff_s}")
    return seconds


@dataclass(frozen=True)
class Settings:
    """The keyword options of :func:`~passk_lab.evaluate` and its async twin, checked.

    The fields are those options, in their order and with their defaults.
    Building one checks every option (the messages are those :func:`~passk_lab.evaluate`
    raises) and normalises it: time limits to float milliseconds, integers to
    ``int``, `infrastructure` to a tuple of exception classes. A new option is
    a field here and a parameter of both functions, documented under
    :func:`~passk_lab.evaluate`; everything past the two signatures reads it from here.

    Raises
    ------
    TypeError, ValueError
        If an option is invalid, as listed under :func:`~passk_lab.evaluate`.

    Examples
    --------
    >>> settings = Settings(run_timeout_ms=500, infrastructure=ConnectionError)
    >>> settings.run_timeout_ms, settings.infrastructure, settings.retries
    (500.0, (<class 'ConnectionError'>,), 3)
    >>> Settings(resume=True)
    Traceback (most recent call last):
    ...
    ValueError: resume=True continues a ledger; pass ledger=PATH as well
    """

    timeout_ms: float | None = None
    run_timeout_ms: float | None = None
    guard: Guard | None = None
    concurrency: int = 1
    ledger: str | os.PathLike[str] | None = None
    resume: bool = False
    model: str | None = None
    seed: int | None = None
    metadata: Mapping[str, Any] | None = None
    infrastructure: type[Exception] | tuple[type[Exception], ...] = ()
    retries: int = 3
    backoff_s: float = 1.0
    progress: bool = False

    def __post_init__(self) -> None:
        budget = _milliseconds("timeout_ms", self.timeout_ms)
        run_ms = _milliseconds("run_timeout_ms", self.run_timeout_ms)
        if self.guard is not None and budget is None and run_ms is None:
            raise ValueError(
                "guard only applies under a time limit; pass timeout_ms or run_timeout_ms as "
                "well, or drop guard"
            )
        retries = as_int("retries", self.retries)
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        checked = {
            "timeout_ms": budget,
            "run_timeout_ms": run_ms,
            "retries": retries,
            "concurrency": positive_int("concurrency", self.concurrency),
            "infrastructure": _exception_types(self.infrastructure),
            "backoff_s": _backoff(self.backoff_s),
        }
        resume, progress = self.resume, self.progress
        if not isinstance(resume, bool) or not isinstance(progress, bool):
            raise TypeError(
                f"resume and progress must be True or False, got {resume!r}, {progress!r}"
            )
        if resume and self.ledger is None:
            raise ValueError("resume=True continues a ledger; pass ledger=PATH as well")
        if self.model is not None and not isinstance(self.model, str):
            raise TypeError(f"model must be the model or agent's name as text, got {self.model!r}")
        if self.metadata is not None and not isinstance(self.metadata, Mapping):
            raise TypeError(
                f"metadata must be a dict of JSON values, got {type(self.metadata).__name__}"
            )
        checked["seed"] = None if self.seed is None else as_int("seed", self.seed)
        for name, value in checked.items():  # frozen: set the checked values once, here
            object.__setattr__(self, name, value)


def _declared_result(run: Callable[..., Any]) -> object:
    """Return the result type `run` declares (its awaited one for ``async def``), or None."""
    try:
        return typing.get_type_hints(run).get("return")
    except Exception:  # no annotations that resolve here: nothing is declared
        return None


def _require_a_verdict(task: Task[Any], where: str) -> None:
    """Refuse a task that declares a result other than a bool and gives no verdict."""
    if task.passes is not the_result:
        return
    declared = _declared_result(task.run)
    if (
        isinstance(declared, type)
        and declared not in (object, Any)
        and not issubclass(declared, bool | np.bool_)
    ):
        raise with_keywords(
            TypeError(
                f"{where} returns {declared.__name__} (as its run declares) and has no "
                "verdict, but only a bool says whether a run passed; give the task a "
                "passes= verdict, such as Task(run=..., passes=lambda result: result == expected)"
            ),
            "run",
        )


@dataclass(frozen=True)
class Plan:
    """What one evaluation runs: the tasks, their ids, k, its settings and the time limit."""

    tasks: tuple[Task[Any], ...]
    ids: tuple[Hashable, ...]
    k: int
    settings: Settings
    per_run_ms: int | None
    guard: Guard | None  # None: the runner's own time limit


def make_plan(
    tasks: Sequence[Task[Any]],
    k: object,
    *,
    argument: str = "tasks",
    sized: bool = True,
    **options: Any,
) -> Plan:
    """Check the arguments of :func:`~passk_lab.evaluate`, `k` and `tasks` first, and plan the runs.

    `options` are the keyword options of :func:`~passk_lab.evaluate`, which build the
    :class:`Settings`. `argument` names `tasks` in messages (``against`` for an
    adaptive evaluation's second agent). `sized` checks that ``len(tasks) * k``
    runs fit the memory budget; an adaptive evaluation, which makes far fewer
    runs than its pool could hold, does not ask.
    """
    runs_per_task = positive_int("k", k)
    task_list = tuple(tasks)
    if not task_list:
        raise ValueError("evaluate needs at least one task; an empty list has no rate to report")
    for position, task in enumerate(task_list):
        if not isinstance(task, Task):
            raise with_keywords(
                TypeError(
                    f"{argument}[{position}] is a {type(task).__name__}, not a Task; "
                    "wrap it as Task(run=..., passes=...)"
                ),
                "run",
            )
    ids = tuple(
        position if task.id is None else encodable(task.id) if isinstance(task.id, str) else task.id
        for position, task in enumerate(task_list)
    )
    repeated = [task_id for task_id, count in Counter(ids).items() if count > 1]
    if repeated:
        raise ValueError(
            f"task ids must be unique, but {repeated[0]!r} names more than one task; "
            "give every Task its own id"
        )
    runs = len(task_list) * runs_per_task
    if sized:
        check_size(
            "the evaluation",
            (len(task_list), runs_per_task),
            _RUN_BYTES,
            "use a smaller k, or split the tasks over several evaluations",
            names=("tasks", "runs each"),
            cells="runs",
            keywords=("k",),
        )
    for position, task in enumerate(task_list):
        _require_a_verdict(task, f"{argument}[{position}]")
    settings = Settings(**options)
    return Plan(
        tasks=task_list,
        ids=ids,
        k=runs_per_task,
        settings=settings,
        per_run_ms=_per_run_ms(settings.timeout_ms, settings.run_timeout_ms, runs),
        guard=settings.guard,
    )
