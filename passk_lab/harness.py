"""Run every task k times and keep every run: the source harness's ``evaluate()``.

The rules are the source document's:

* every task runs `k` times, task by task and run by run;
* a run that raises, or exceeds its time, is a **failed run**, never a crashed
  evaluation (only ``KeyboardInterrupt``, ``SystemExit`` and cancellation
  propagate);
* with a total budget ``timeout_ms``, each run gets
  ``max(1, floor(timeout_ms / (len(tasks) * k)))`` milliseconds, so one run
  cannot consume the whole evaluation's allowance;
* ``pass_at_1`` is the mean over tasks of ``wins / k`` and ``pass_pow_k`` the
  share of tasks that passed all `k` runs.

On top of the source, every run is kept as a row of :attr:`EvalResult.runs`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import math
import numbers
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pandas as pd

from passk_lab._checks import positive_int

__all__ = ["EvalResult", "Guard", "Task", "evaluate", "evaluate_async"]

T = TypeVar("T")

Guard = Callable[[Callable[[], Any], int], Any]
"""A time limit: ``guard(fn, ms)`` runs ``fn`` and returns its result (or an
awaitable of it), raising (for example ``TimeoutError``) when ``ms`` pass first."""


def _truthy(result: object) -> bool:
    return bool(result)


@dataclass(frozen=True)
class Task(Generic[T]):
    """One job for the agent: how to run it once, and how to judge the result.

    Parameters
    ----------
    run : callable
        Called with no arguments for every run. A plain function returns the
        result; an ``async def`` function (or any callable returning an
        awaitable) is awaited.
    passes : callable, optional
        ``passes(result) -> bool``, the verdict on one run's result. The default
        takes the result's truth value, for runs that return a bool.
    id : hashable, optional
        A stable name for the task, recorded in the ``task`` column of the
        runs. The default is the task's position in the list given to
        :func:`evaluate`.

    Examples
    --------
    >>> task = Task(run=lambda: 2 + 2, passes=lambda answer: answer == 4, id="add")
    >>> evaluate([task], k=3).pass_pow_k
    1.0
    """

    run: Callable[[], T | Awaitable[T]]
    passes: Callable[[T], bool] = _truthy
    id: Hashable | None = None


@dataclass(frozen=True)
class EvalResult:
    """What :func:`evaluate` measured.

    Attributes
    ----------
    tasks : int
        Number of tasks.
    k : int
        Runs per task.
    pass_at_1 : float
        Mean over tasks of the share of runs that passed, ``wins / k``.
    pass_pow_k : float
        Share of tasks that passed on every one of their `k` runs.
    runs : pandas.DataFrame
        One row per run, in task then run order, with columns ``task`` (the
        task's id), ``run`` (0 to k - 1), ``passed`` (bool), ``error``
        (``"Type: message"`` of what the run or its verdict raised, missing when
        nothing did), ``timed_out`` (bool: the run raised ``TimeoutError``, from
        the time limit or from the task itself) and ``duration_s`` (wall time of
        the run and its verdict, in seconds).
    """

    tasks: int
    k: int
    pass_at_1: float
    pass_pow_k: float
    runs: pd.DataFrame = field(repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """Return the summary as a one-row DataFrame (for tables and exports).

        Examples
        --------
        >>> result = evaluate([Task(run=lambda: True)], k=2)
        >>> result.to_frame()
           tasks  k  pass_at_1  pass_pow_k
        0      1  2        1.0         1.0
        """
        return pd.DataFrame(
            {
                "tasks": [self.tasks],
                "k": [self.k],
                "pass_at_1": [self.pass_at_1],
                "pass_pow_k": [self.pass_pow_k],
            }
        )


@dataclass(frozen=True)
class _Plan:
    tasks: tuple[Task[Any], ...]
    ids: tuple[Hashable, ...]
    k: int
    per_run_ms: int | None
    guard: Guard


def _per_run_ms(timeout_ms: object, runs: int) -> int | None:
    if timeout_ms is None:
        return None
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, numbers.Real):
        raise TypeError(f"timeout_ms must be a number of milliseconds, got {timeout_ms!r}")
    budget = float(timeout_ms)
    if not 0 < budget < math.inf:
        raise ValueError(
            f"timeout_ms must be a positive, finite number of milliseconds, got {timeout_ms}; "
            "leave it as None for no time limit"
        )
    return max(1, math.floor(budget / runs))


def _plan(tasks: Sequence[Task[Any]], k: object, timeout_ms: object, guard: Guard | None) -> _Plan:
    runs_per_task = positive_int("k", k)
    task_list = tuple(tasks)
    if not task_list:
        raise ValueError("evaluate needs at least one task; an empty list has no rate to report")
    for position, task in enumerate(task_list):
        if not isinstance(task, Task):
            raise TypeError(
                f"tasks[{position}] is a {type(task).__name__}, not a Task; "
                "wrap it as Task(run=..., passes=...)"
            )
    ids = tuple(position if task.id is None else task.id for position, task in enumerate(task_list))
    repeated = [task_id for task_id, count in Counter(ids).items() if count > 1]
    if repeated:
        raise ValueError(
            f"task ids must be unique, but {repeated[0]!r} names more than one task; "
            "give every Task its own id"
        )
    if guard is not None and timeout_ms is None:
        raise ValueError(
            "guard only applies under a time budget; pass timeout_ms as well, or drop guard"
        )
    per_run = _per_run_ms(timeout_ms, len(task_list) * runs_per_task)
    return _Plan(task_list, ids, runs_per_task, per_run, guard or _default_guard)


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
    )


async def _resolve(value: Any) -> Any:
    while inspect.isawaitable(value):
        value = await value
    return value


def _in_daemon_thread(fn: Callable[[], Any]) -> asyncio.Future[Any]:
    """Start ``fn()`` in a daemon thread and return a future of its outcome.

    A daemon thread, not an executor: a run that hangs must not keep the
    evaluation (or the interpreter) waiting after its time is up.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # the time limit already gave up on this run
            return
        if error is None:
            future.set_result(value)
        else:
            future.set_exception(error)

    def target() -> None:
        value, error = None, None
        try:
            value = fn()
        except BaseException as exc:  # handed to the waiting coroutine
            error = exc
        # A closed loop means the evaluation has ended without this run.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=target, name="passk_lab-run", daemon=True).start()
    return future


async def _default_guard(fn: Callable[[], Any], ms: int) -> Any:
    """Run ``fn`` within ``ms`` milliseconds or raise ``TimeoutError`` (the default guard).

    An async run is cancelled when its time is up. A plain function runs in a
    daemon thread, which Python cannot stop: the run is recorded as timed out
    and the evaluation moves on while the thread finishes (or not) on its own.
    """
    started = time.perf_counter()
    seconds = ms / 1000
    if _is_async(fn):
        return await asyncio.wait_for(_resolve(fn()), seconds)
    value = await asyncio.wait_for(_in_daemon_thread(fn), seconds)
    remaining = max(0.0, seconds - (time.perf_counter() - started))
    return await asyncio.wait_for(_resolve(value), remaining)


async def _run_once(task: Task[Any], plan: _Plan) -> tuple[bool, str | None, bool, float]:
    started = time.perf_counter()
    try:
        if plan.per_run_ms is None:
            result = await _resolve(task.run())
        else:
            result = await _resolve(plan.guard(task.run, plan.per_run_ms))
        passed = bool(task.passes(result))
    except Exception as exc:  # a failed run, never a failed evaluation
        message = str(exc)
        error = type(exc).__name__ + (f": {message}" if message else "")
        return False, error, isinstance(exc, TimeoutError), time.perf_counter() - started
    return passed, None, False, time.perf_counter() - started


async def _execute(plan: _Plan) -> EvalResult:
    columns: dict[str, list[Any]] = {
        name: [] for name in ("task", "run", "passed", "error", "timed_out", "duration_s")
    }
    single = 0.0
    all_k = 0
    for task_id, task in zip(plan.ids, plan.tasks, strict=True):
        wins = 0
        for run in range(plan.k):
            passed, error, timed_out, duration = await _run_once(task, plan)
            wins += passed
            for name, value in zip(
                columns, (task_id, run, passed, error, timed_out, duration), strict=True
            ):
                columns[name].append(value)
        single += wins / plan.k  # the source's accumulation, in its order
        all_k += wins == plan.k
    runs = pd.DataFrame(columns).astype(
        {"run": "int64", "passed": "bool", "error": "str", "timed_out": "bool"}
    )
    n_tasks = len(plan.tasks)
    return EvalResult(n_tasks, plan.k, single / n_tasks, all_k / n_tasks, runs)


async def evaluate_async(
    tasks: Sequence[Task[Any]],
    k: int,
    *,
    timeout_ms: float | None = None,
    guard: Guard | None = None,
) -> EvalResult:
    """Coroutine form of :func:`evaluate`, for code that already runs an event loop.

    Parameters and results are those of :func:`evaluate`.

    Examples
    --------
    >>> import asyncio
    >>> async def answer():
    ...     return True
    >>> asyncio.run(evaluate_async([Task(run=answer)], k=2)).pass_at_1
    1.0
    """
    return await _execute(_plan(tasks, k, timeout_ms, guard))


def evaluate(
    tasks: Sequence[Task[Any]],
    k: int,
    *,
    timeout_ms: float | None = None,
    guard: Guard | None = None,
) -> EvalResult:
    """Run every task `k` times and report pass@1, pass^k and every run.

    A run that raises, or exceeds its time, counts as a failed run; the
    evaluation always completes with ``len(tasks) * k`` runs.

    Parameters
    ----------
    tasks : sequence of Task
        At least one task. Tasks may mix plain and async callables.
    k : int
        Runs per task, a positive integer.
    timeout_ms : float, optional
        A time budget for the whole evaluation, in milliseconds. Each run gets
        ``max(1, floor(timeout_ms / (len(tasks) * k)))`` ms. ``None`` (the
        default) sets no limit.
    guard : callable, optional
        ``guard(fn, ms)`` replaces the default time limit: it must run ``fn``
        (the task's ``run``) and return its result, or an awaitable of it, and
        raise when ``ms`` milliseconds pass. Needs `timeout_ms`. The default
        cancels an async run and abandons a plain function's thread when time
        is up (Python cannot stop a thread, so a hung plain function keeps its
        thread, but never holds up the evaluation).

    Returns
    -------
    EvalResult
        ``tasks``, ``k``, ``pass_at_1``, ``pass_pow_k`` and the per-run ``runs``.

    Raises
    ------
    TypeError
        If `k` is not an integer (``2.5``, ``True``) or a task is not a :class:`Task`.
    ValueError
        If `k` < 1, `tasks` is empty, task ids repeat, `timeout_ms` is not
        positive, or `guard` is given without `timeout_ms`.

    Notes
    -----
    Inside a running event loop (a Jupyter notebook) the evaluation runs on
    its own loop in a worker thread; from async code, await
    :func:`evaluate_async` instead.

    Examples
    --------
    >>> import itertools
    >>> outcomes = itertools.cycle([True, True, False])
    >>> tasks = [Task(run=lambda: next(outcomes)) for _ in range(4)]
    >>> result = evaluate(tasks, k=3)
    >>> result.pass_at_1, result.pass_pow_k
    (0.6666666666666666, 0.0)
    >>> result.runs.head(3)
       task  run  passed  error  timed_out  duration_s
    0     0    0    True    NaN      False         ...
    1     0    1    True    NaN      False         ...
    2     0    2   False    NaN      False         ...
    """
    plan = _plan(tasks, k, timeout_ms, guard)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_execute(plan))
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="passk_lab") as pool:
        return pool.submit(asyncio.run, _execute(plan)).result()
