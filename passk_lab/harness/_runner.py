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

On top of the source, for agents that take minutes and cost money per run:

* every run is kept as a row of :attr:`EvalResult.runs`, and with ``ledger=PATH``
  appended to a JSON Lines file the moment it finishes
  (:mod:`passk_lab.harness._ledger`), so that ``resume=True`` runs only what a
  crashed or interrupted evaluation left undone, or grows a finished one by a
  larger k or more tasks;
* what a run cost (``Task.cost``, or the result's ``cost`` attribute) is
  recorded beside its verdict, and summed in :attr:`EvalResult.cost`;
* runs may go ``concurrency`` at a time; the rows and the figures are the same
  as a sequential run with the same outcomes;
* exceptions named as ``infrastructure`` are retried with backoff and, when
  they persist, recorded as the infrastructure's failure, not the agent's;
* a verdict must be a bool (:func:`_verdict`), an async verdict is awaited, and
  a time limit covers the run and its verdict together; a run that comes back
  past its limit (an async run that blocked the event loop cannot be
  cancelled) is recorded as timed out all the same, with a warning.

:class:`Evaluation` is one open evaluation (its ledger, progress bar and
runner) that runs the runs it is given; :func:`evaluate` gives it every run
of every task, and an adaptive driver chooses them batch by batch.
:func:`run_in_loop` runs either on an event loop of its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import inspect
import math
import os
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import IO, Any, TypeVar

import numpy as np

from passk_lab._files import encodable
from passk_lab._version import __version__
from passk_lab._warnings import EvaluationWarning, warn
from passk_lab.harness._ledger import (
    RunRecord,
    brief_repr,
    cost_of,
    cost_totals,
    header,
    json_id,
    open_ledger,
    run_line,
    runs_frame,
)
from passk_lab.harness._settings import Plan, make_plan
from passk_lab.harness._task import EvalResult, Guard, Task, the_result

__all__ = ["Evaluation", "evaluate", "evaluate_async", "run_in_loop"]

T = TypeVar("T")


# Most results are of a type that is never awaitable: for them, one set lookup replaces
# inspect.isawaitable.
_NEVER_AWAITABLE = frozenset({bool, int, float, str, bytes, dict, list, tuple, type(None)})


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
    )


async def _resolve(value: Any) -> Any:
    while inspect.isawaitable(value):
        value = await value
    return value


class _Raised(Exception):
    """Carries a ``StopIteration`` from a thread: a future refuses to hold one itself."""

    def __init__(self, error: StopIteration) -> None:
        super().__init__(error)
        self.error = error


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():  # the time limit, or a cancellation, already gave up on this run
        return
    if error is None:
        future.set_result(value)
    else:
        future.set_exception(_Raised(error) if isinstance(error, StopIteration) else error)


async def _verdict(verdict: Any, passes: Callable[[Any], Any]) -> bool:
    """Return a verdict that is not a plain bool as a bool: awaited, or a numpy bool; or raise.

    A result without a bool verdict is a failed run, never a pass by its truth
    value: ``bool("False")`` and ``bool(nan)`` are true.
    """
    if inspect.isawaitable(verdict):  # an async verdict
        verdict = await _resolve(verdict)
    if isinstance(verdict, bool | np.bool_):
        return bool(verdict)
    if passes is the_result:
        raise TypeError(
            f"run returned {brief_repr(verdict)} ({type(verdict).__name__}), not a bool; give the "
            "task a passes= verdict that says whether such a result passes"
        )
    raise TypeError(
        f"the verdict returned {brief_repr(verdict)} ({type(verdict).__name__}), not a bool; make "
        "passes return True or False"
    )


def _message(error: BaseException) -> str | None:
    """Return ``str(error)``, encodable, or a stand-in when ``str`` itself raises."""
    try:
        text = str(error)
    except Exception as failure:
        try:
            reason = f"{type(failure).__name__}: {failure}"
        except Exception:
            reason = type(failure).__name__
        text = f"<{type(error).__name__}; str() raised {reason}>"
    return encodable(text) or None


_Job = tuple[Callable[[], Any], asyncio.Future[Any]]  # a run to make, and its outcome


class _Threads:
    """Daemon threads that run plain functions for one evaluation, reused from run to run.

    Daemon threads, not an executor's, which the interpreter waits for at exit:
    a run that hangs must not keep the evaluation (or the interpreter) waiting
    after its time is up. A thread starts only when none is idle, so an
    evaluation has as many threads as runs overlap, plus one per abandoned run
    still going; :meth:`close` lets each end once its run is over.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._started = 0
        self._outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []

    def run(self, fn: Callable[[], Any]) -> asyncio.Future[Any]:
        """Start ``fn()`` in an idle thread, or a new one, and return a future of its outcome."""
        future = self._loop.create_future()
        with self._lock:
            claimed = self._idle > 0
            self._idle -= claimed
            self._started += not claimed
        if not claimed:
            try:
                threading.Thread(target=self._serve, name="passk_lab-run", daemon=True).start()
            except BaseException:  # no thread to run it: the run fails with this error
                with self._lock:
                    self._started -= 1
                raise
        self._jobs.put((fn, future))
        return future

    def close(self) -> None:
        """Let every thread end: at once if idle, after its run if busy."""
        with self._lock:
            started = self._started
        for _ in range(started):
            self._jobs.put(None)

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            self._do(*job)

    def _do(self, fn: Callable[[], Any], future: asyncio.Future[Any]) -> None:
        value, error = None, None
        try:
            value = fn()
        except BaseException as exc:  # handed to the waiting coroutine
            error = exc
        with self._lock:  # idle before the loop hears, so the next run finds this thread
            self._idle += 1
            self._outcomes.append((future, value, error))
            first = len(self._outcomes) == 1
        if first:  # the loop settles every outcome that arrives before it runs
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._settle_all)

    def _settle_all(self) -> None:
        with self._lock:
            outcomes, self._outcomes = self._outcomes, []
        for future, value, error in outcomes:
            _settle(future, value, error)


class _Runner:
    """How one evaluation runs a task once: time limit, retries, a thread if runs overlap.

    `threads` are those of the event loop the runs are on, set before each batch of runs.
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.threads: _Threads
        overlap = plan.settings.concurrency > 1
        timed = plan.per_run_ms is not None
        # Whether each task's run, and the call an attempt makes, are coroutine functions.
        self.is_async = (
            tuple(_is_async(task.run) for task in plan.tasks) if overlap or timed else ()
        )
        # Under a time limit, a plain verdict goes to a thread too, so that it cannot hang.
        self.verdict_in_thread = tuple(
            timed and task.passes is not the_result and not _is_async(task.passes)
            for task in plan.tasks
        )
        self.unstoppable = 0  # runs that came back past their time limit
        self.priced = tuple(task.cost is not None for task in plan.tasks)
        self.bad_costs = 0  # runs whose cost was not recorded, and what was wrong with the first
        self.first_bad_cost = ""
        if not overlap:
            self.in_thread = (False,) * len(plan.tasks)
        elif not timed:
            self.in_thread = tuple(not is_async for is_async in self.is_async)
        else:  # the call is the guard's; the default one is a coroutine function
            plain_guard = plan.guard is not None and not _is_async(plan.guard)
            self.in_thread = (plain_guard,) * len(plan.tasks)

    async def run_once(self, i: int, run: int) -> RunRecord:
        """Run task `i` for the `run`-th time and return its record."""
        started_us = time.time_ns() // 1000
        started = time.perf_counter()
        plan = self.plan
        passes, ms, attempts = plan.tasks[i].passes, plan.per_run_ms, 1
        while True:
            try:
                if ms is None:  # inline: the path of most runs
                    call = plan.tasks[i].run
                    value = await self.threads.run(call) if self.in_thread[i] else call()
                    if type(value) not in _NEVER_AWAITABLE:
                        value = await _resolve(value)
                    passed = passes(value)
                    if type(passed) is not bool:
                        passed = await _verdict(passed, passes)
                else:
                    passed, value = await self._timed(i, ms)
            except Exception as exc:  # a failed run, never a failed evaluation
                error, settings = exc.error if isinstance(exc, _Raised) else exc, plan.settings
                if isinstance(error, settings.infrastructure) and attempts <= settings.retries:
                    delay = settings.backoff_s * 2 ** (attempts - 1)
                    limit_s = math.inf if plan.per_run_ms is None else plan.per_run_ms / 1000
                    left_s = limit_s - (time.perf_counter() - started)
                    if delay < left_s:  # retries share the run's time limit
                        await asyncio.sleep(delay)
                        attempts += 1
                        ms = None if ms is None else max(1, math.floor((left_s - delay) * 1000))
                        continue
                break
            else:  # the fields in order: the path of every run that raises nothing
                task_id, duration_s = plan.ids[i], time.perf_counter() - started
                priced = self.priced[i] or type(value) not in _NEVER_AWAITABLE  # which have none
                cost = self._cost(i, run, value) if priced else None
                return RunRecord(
                    task_id,
                    run,
                    passed,
                    None,
                    None,
                    None,
                    False,
                    attempts,
                    started_us,
                    duration_s,
                    cost,
                )
        timed_out = isinstance(error, TimeoutError)
        if isinstance(error, plan.settings.infrastructure):
            kind = "infrastructure"
        else:
            kind = "timeout" if timed_out else "agent"
        return RunRecord(
            task=plan.ids[i],
            run=run,
            passed=False,
            error_type=encodable(type(error).__name__),
            error_message=_message(error),
            error_kind=kind,
            timed_out=timed_out,
            attempts=attempts,
            started_at_us=started_us,
            duration_s=time.perf_counter() - started,
            cost=None,  # no result, so no cost
        )

    def _cost(self, i: int, run: int, value: Any) -> dict[str, float] | None:
        """Return the cost of `value`, run `run` of task `i`; None, counted, if it is wrong."""
        hook = self.plan.tasks[i].cost
        source = "the result's cost attribute" if hook is None else "Task.cost"
        try:
            cost = getattr(value, "cost", None) if hook is None else hook(value)
            if cost is None:
                return None
        except Exception as error:  # the run keeps its verdict, and records no cost
            problem = f"{source} raised {type(error).__name__}: {_message(error)}"
        else:
            try:
                return cost_of(cost)
            except Exception as error:  # what is wrong, or what a strange mapping raised
                problem = f"the cost from {source} is wrong: {_message(error)}"
        self.bad_costs += 1
        if self.bad_costs == 1:
            self.first_bad_cost = f"run {run} of task {self.plan.ids[i]!r}: {problem}"
        return None

    async def _timed(self, i: int, ms: int) -> tuple[bool, Any]:
        """Make one attempt at a run of task `i` and judge it, all within `ms` milliseconds.

        Return the verdict and the run's result (for its cost, taken after).

        An async run (or verdict) that blocks the event loop cannot be
        cancelled: when it comes back past its limit it is timed out all the
        same, and counted for the warning the evaluation gives at its end.
        """
        started = time.perf_counter()
        seconds = ms / 1000
        task, guard = self.plan.tasks[i], self.plan.guard
        raised: Exception | None = None
        try:
            if guard is None:
                passed, value = await asyncio.wait_for(self._run_and_judge(i), seconds)
            else:
                call = functools.partial(guard, task.run, ms)
                value = await self.threads.run(call) if self.in_thread[i] else call()
                value = await _resolve(value)
                left = seconds - (time.perf_counter() - started)
                passed = await asyncio.wait_for(self._judge(i, value), max(0.0, left))
        except TimeoutError:
            raise
        except Exception as exc:  # a timeout all the same if it came past the limit
            raised = exc
        elapsed = time.perf_counter() - started
        if elapsed <= seconds:
            if raised is not None:
                raise raised
            return passed, value
        if guard is None and (self.is_async[i] or _is_async(task.passes)):
            self.unstoppable += 1
        raise TimeoutError(
            f"the run took {elapsed * 1000:.0f} ms, past its limit of {ms} ms, and could not "
            "be stopped in time"
        ) from raised

    async def _run_and_judge(self, i: int) -> tuple[bool, Any]:
        """Run task `i` once and judge it, a plain run in a thread (the default time limit).

        Return the verdict and the result.

        An async run is cancelled when its time is up. A plain function runs in
        a daemon thread, which Python cannot stop: the run is recorded as timed
        out and the evaluation moves on while the thread finishes (or not) on
        its own.
        """
        run = self.plan.tasks[i].run
        value = run() if self.is_async[i] else await self.threads.run(run)
        value = await _resolve(value)
        return await self._judge(i, value), value

    async def _judge(self, i: int, value: Any) -> bool:
        """Return the verdict on `value`, a plain verdict in a thread (under a time limit)."""
        passes = self.plan.tasks[i].passes
        if self.verdict_in_thread[i]:
            return await _verdict(await self.threads.run(functools.partial(passes, value)), passes)
        return await _verdict(passes(value), passes)


class Evaluation:
    """An open evaluation: its plan, ledger, progress bar and runner, to run chosen runs.

    :func:`evaluate` runs every run of every task through one; an adaptive
    driver chooses the runs batch by batch. Building one opens the ledger
    (resuming it when ``plan.settings.resume``), so it must be closed.

    Parameters
    ----------
    plan : Plan
        The tasks, k and settings, from :func:`~passk_lab.harness._settings.make_plan`.
    adaptive : dict, optional
        The adaptive driver's settings, recorded as the header's ``adaptive``
        field (None for :func:`evaluate`).
    check : callable, optional
        Passed to :func:`~passk_lab.harness._ledger.open_ledger`: called with a
        resumed ledger's effective header before anything is written, it
        refuses the ledger by raising ValueError; without it the ledger's
        ``adaptive`` must equal `adaptive`.
    total : int, optional
        The progress bar's total, ``len(plan.tasks) * plan.k`` by default.
    label : str
        The progress bar's label, the function that runs the evaluation.

    Attributes
    ----------
    plan : Plan
        The plan, with the ids as the ledger gives them back.
    header : dict
        The effective header (see :attr:`EvalResult.header`).
    recorded : dict
        ``(task index in plan.tasks, run) -> RunRecord``: the ledger's runs,
        then every run made here.
    """

    def __init__(
        self,
        plan: Plan,
        *,
        adaptive: Mapping[str, Any] | None = None,
        check: Callable[[dict[str, Any]], None] | None = None,
        total: int | None = None,
        label: str = "evaluate",
    ) -> None:
        settings = plan.settings
        self.path = settings.ledger
        self.handle: IO[str] | None = None
        records: list[RunRecord] = []
        if settings.ledger is not None:  # ids as the ledger will give them back
            json_ids = (json_id(task_id, index) for index, task_id in enumerate(plan.ids))
            plan = dataclasses.replace(plan, ids=tuple(json_ids))
        self.plan = plan
        self.total = len(plan.tasks) * plan.k if total is None else total
        first = header(
            model=settings.model,
            seed=settings.seed,
            version=__version__,
            k=plan.k,
            tasks=list(plan.ids),
            timeout_ms=settings.timeout_ms,
            run_timeout_ms=settings.run_timeout_ms,
            metadata=settings.metadata,
            started_us=time.time_ns() // 1000,
            adaptive=adaptive,
        )
        self.header: dict[str, Any] = {**first, "resumptions": []}
        if settings.ledger is not None:
            self.handle, records, self.header = open_ledger(
                settings.ledger, first, resume=settings.resume, check=check
            )
        position = {task_id: index for index, task_id in enumerate(plan.ids)}
        self.recorded: dict[tuple[int, int], RunRecord] = {
            (position[record.task], record.run): record for record in records
        }
        self.finished = len(records)
        self.passed = sum(record.passed for record in records)
        self._runner = _Runner(plan)
        self.bar: Any = None
        if settings.progress:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=self.total, initial=self.finished, unit="run", desc=label)

    async def run(self, jobs: Sequence[tuple[int, int]]) -> None:
        """Run every job ``(task index, run index)`` not yet recorded, and record each.

        ``plan.settings.concurrency`` runs go at a time; each is written to the
        ledger and counted on the progress bar as it finishes. Ctrl-C or
        cancellation stops new runs from starting, as under :func:`evaluate`.

        Raises
        ------
        ValueError
            If a job names a task index or a run index outside the plan's
            tasks and k, before any run.
        """
        plan = self.plan
        n_tasks = len(plan.tasks)
        for i, run in jobs:
            if not (0 <= i < n_tasks and 0 <= run < plan.k):
                raise ValueError(
                    f"the job (task {i}, run {run}) is outside the evaluation's {n_tasks} tasks "
                    f"x k = {plan.k}; ask for task indices 0 to {n_tasks - 1} and run indices "
                    f"0 to {plan.k - 1} (a larger k needs a new Evaluation of a larger plan)"
                )
        todo = iter(dict.fromkeys(job for job in jobs if job not in self.recorded))
        threads = _Threads(asyncio.get_running_loop())
        runner = self._runner
        runner.threads = threads

        async def worker() -> None:
            current = asyncio.current_task()
            for i, run in todo:  # one shared iterator: each run goes to one worker
                self._record(i, run, await runner.run_once(i, run))
                if current is not None and current.cancelling():  # Ctrl-C during a plain run
                    raise asyncio.CancelledError

        try:
            if plan.settings.concurrency == 1:
                await worker()
            else:
                workers = [
                    asyncio.ensure_future(worker()) for _ in range(plan.settings.concurrency)
                ]
                try:
                    await asyncio.gather(*workers)
                finally:
                    for running in workers:
                        running.cancel()
                    await asyncio.gather(*workers, return_exceptions=True)
        finally:
            threads.close()

    def _record(self, i: int, run: int, record: RunRecord) -> None:
        self.recorded[i, run] = record
        if self.handle is not None:
            self.handle.write(run_line(record))
            self.handle.flush()
        self.finished += 1
        self.passed += record.passed
        if self.bar is not None:
            self.bar.set_postfix_str(f"pass@1={self.passed / self.finished:.3f}", refresh=False)
            self.bar.update()

    def close(self) -> None:
        """Close the ledger and the progress bar, then warn of runs that came back wrong."""
        if self.handle is not None:
            self.handle.close()
        if self.bar is not None:
            self.bar.close()
        runner = self._runner
        if runner.unstoppable:
            warn(
                EvaluationWarning(
                    f"{runner.unstoppable} async run(s) came back past their time limit, so they "
                    "are recorded as timed out: each blocked the event loop (time.sleep or "
                    "blocking I/O inside async def), where no time limit can stop it; await "
                    "asyncio.sleep and async clients instead, or make the run a plain function, "
                    "which runs in a thread"
                )
            )
        if runner.bad_costs:
            warn(
                EvaluationWarning(
                    f"{runner.bad_costs} run(s) recorded no cost, as their cost was not a mapping "
                    f"of names to finite numbers >= 0; the first, {runner.first_bad_cost}. The "
                    "runs keep their verdicts. Give a cost such as "
                    "{'usd': 0.25, 'tokens': 1000} (or None for none), from the result's cost "
                    "attribute or a Task(cost=...) hook"
                )
            )

    def resume_hint(self) -> str:
        """Say what an interrupted evaluation kept, and how :func:`evaluate` resumes it."""
        left = self.total - self.finished
        if self.path is None:
            return (
                f"evaluate was interrupted after {self.finished} of {self.total} runs, which are "
                f"not kept; pass ledger=PATH to keep every finished run, and resume=True to run "
                f"only the rest"
            )
        return (
            f"evaluate was interrupted: {self.finished} of {self.total} runs are recorded in the "
            f"ledger {os.fspath(self.path)!r}; to run the other {left}, call evaluate again with "
            f"the same tasks and settings and ledger={os.fspath(self.path)!r}, resume=True"
        )


async def _evaluate(evaluation: Evaluation) -> EvalResult:
    """Run every run of every task of `evaluation` and return the result, in the plan's order."""
    plan = evaluation.plan
    n_tasks = len(plan.tasks)
    await evaluation.run([(i, run) for i in range(n_tasks) for run in range(plan.k)])
    records = [evaluation.recorded[i, run] for i in range(n_tasks) for run in range(plan.k)]
    single = 0.0
    all_k = 0
    for i in range(n_tasks):
        wins = sum(record.passed for record in records[i * plan.k : (i + 1) * plan.k])
        single += wins / plan.k  # the source's accumulation, in its order
        all_k += wins == plan.k
    return EvalResult(
        n_tasks,
        plan.k,
        single / n_tasks,
        all_k / n_tasks,
        runs_frame(records),
        evaluation.header,
        cost_totals(records),
    )


async def evaluate_async(
    tasks: Sequence[Task[Any]],
    k: int,
    *,
    timeout_ms: float | None = None,
    run_timeout_ms: float | None = None,
    guard: Guard | None = None,
    concurrency: int = 1,
    ledger: str | os.PathLike[str] | None = None,
    resume: bool = False,
    model: str | None = None,
    seed: int | None = None,
    metadata: Mapping[str, Any] | None = None,
    infrastructure: type[Exception] | tuple[type[Exception], ...] = (),
    retries: int = 3,
    backoff_s: float = 1.0,
    progress: bool = False,
) -> EvalResult:
    """Coroutine form of :func:`evaluate`, for code that already runs an event loop.

    Parameters, results and errors are those of :func:`evaluate`. Cancelling
    the coroutine stops the evaluation as Ctrl-C stops :func:`evaluate`.

    Examples
    --------
    >>> import asyncio
    >>> async def answer():
    ...     return True
    >>> asyncio.run(evaluate_async([Task(run=answer)], k=2)).pass_at_1
    1.0
    """
    evaluation = Evaluation(make_plan(**locals()))  # every argument, checked
    try:
        return await _evaluate(evaluation)
    except (KeyboardInterrupt, asyncio.CancelledError) as stop:
        stop.add_note(evaluation.resume_hint())
        raise
    finally:
        evaluation.close()


def evaluate(
    tasks: Sequence[Task[Any]],
    k: int,
    *,
    timeout_ms: float | None = None,
    run_timeout_ms: float | None = None,
    guard: Guard | None = None,
    concurrency: int = 1,
    ledger: str | os.PathLike[str] | None = None,
    resume: bool = False,
    model: str | None = None,
    seed: int | None = None,
    metadata: Mapping[str, Any] | None = None,
    infrastructure: type[Exception] | tuple[type[Exception], ...] = (),
    retries: int = 3,
    backoff_s: float = 1.0,
    progress: bool = False,
) -> EvalResult:
    """Run every task `k` times and report pass@1, pass^k and every run.

    A run that raises, or exceeds its time, counts as a failed run; the
    evaluation always completes with ``len(tasks) * k`` runs. A run passes
    when its verdict (``Task.passes``, or without one the run's own result)
    is ``True``; a verdict that is not a bool fails the run with an error
    that says so.

    Parameters
    ----------
    tasks : sequence of Task
        At least one task. Tasks may mix plain and async callables.
    k : int
        Runs per task, a positive integer.
    timeout_ms : float, optional
        A time budget for the whole evaluation, in milliseconds, spread over
        the runs as the source does: each run gets
        ``max(1, floor(timeout_ms / (len(tasks) * k)))`` ms.
    run_timeout_ms : float, optional
        A time limit for each run and its verdict together, in milliseconds.
        With `timeout_ms` too, a run gets the smaller of the two. A run out of
        time is a failed run with ``timed_out`` set; an async run (or verdict)
        is cancelled, a plain function abandoned in its thread (Python cannot
        stop a thread), so a hung run never holds the evaluation past its
        limit. An async run that blocks the event loop cannot be cancelled:
        when it comes back past its limit it is timed out all the same, with a
        ``RuntimeWarning`` at the end of the evaluation.
    guard : callable, optional
        ``guard(fn, ms)`` replaces the default time limit: it must run ``fn``
        (the task's ``run``) and return its result, or an awaitable of it, and
        raise when ``ms`` milliseconds pass. Needs a time limit. The verdict
        then gets what is left of the run's time.
    concurrency : int, default 1
        How many runs may be in flight at once. Above 1, async runs overlap on
        the event loop and plain functions run in daemon threads, which the
        evaluation reuses from run to run and which never keep the interpreter
        from exiting. The rows are in task then run order whatever order runs
        finish in.
    ledger : str or path-like, optional
        A JSON Lines file to record the evaluation in: a header (model, date,
        seed, version, tasks, k, metadata), then one line per run, appended and
        flushed as the run finishes (see :mod:`passk_lab.harness._ledger`). An
        existing file is refused unless `resume` is set. The evaluation holds
        an exclusive lock on the file while it runs: another evaluation of the
        same file is refused at once. Task ids must be int or str.
    resume : bool, default False
        Continue the evaluation recorded in `ledger`: runs it records are not
        run again, the others are, and the result covers them all. The ledger
        must record the same model, seed, time limits and metadata. It may
        also grow: a larger `k` runs only runs k_old to k - 1 of every task,
        and tasks the ledger lacks are added and run in full; a smaller `k`,
        or tasks that leave out one the ledger has, are refused. Each
        resumption is recorded as a line of the ledger (its date, version, k
        and the tasks it added), even one that changes nothing. The result's
        rows are in the order of `tasks` as given; the ledger's header lists
        its own tasks first, then the added ones. A missing ledger is started
        afresh, so one call both starts and resumes. A ledger made by the
        adaptive ``evaluate_until`` is refused: resume it with that.
    model : str, optional
        The model or agent's name, for the record.
    seed : int, optional
        The seed the tasks were drawn or sampled with, for the record.
    metadata : dict, optional
        Anything else to record (JSON values): the task set's version, the
        prompt, the settings.
    infrastructure : exception class or tuple of them, optional
        Exceptions that mean the infrastructure failed, not the agent: a rate
        limit, a dropped connection. They are retried; a run whose attempts all
        fail is recorded with ``error_kind="infrastructure"``, which the
        ``errors="exclude"`` policy leaves out. Any other exception is the
        agent's failed run.
    retries : int, default 3
        Further attempts after an infrastructure exception.
    backoff_s : float, default 1.0
        Seconds before the first retry, doubling for each next one. Retries
        share the run's time limit: none starts that would not fit in it.
    progress : bool, default False
        Show a progress bar (``tqdm.auto``: a widget in Jupyter, text in a
        terminal) with the running pass@1.

    Returns
    -------
    EvalResult
        ``tasks``, ``k``, ``pass_at_1``, ``pass_pow_k``, the per-run ``runs``
        (with a ``cost_<name>`` column per cost name the runs recorded), the
        ``header`` a ledger records and the total ``cost``.

    Raises
    ------
    TypeError
        If `k` is not an integer (``2.5``, ``True``), a task is not a
        :class:`Task`, a task without a verdict declares a result other than a
        bool, or a task id or the metadata cannot go in a ledger.
    ValueError
        If `k` < 1, `tasks` is empty, the ``len(tasks) * k`` runs would not
        fit the memory budget (every run is kept in memory), task ids repeat, a time
        limit is not positive, `guard` comes without a time limit, the ledger
        exists and `resume` is not set, another evaluation holds the ledger,
        the ledger is damaged (the message names the line and the field), it
        records another evaluation (the message says what differs), a larger
        `k` than this one, a task missing from `tasks`, or an adaptive
        evaluation.
    KeyboardInterrupt
        On Ctrl-C: no new run starts, in-flight async runs are cancelled, every
        finished run stays in the ledger, and the exception's note says how to
        resume. A plain function already running finishes first (press Ctrl-C
        again to stop at once).

    Warns
    -----
    RuntimeWarning
        Once at the end, if async runs came back past their time limit, or
        if runs gave a cost that is not a mapping of names to finite numbers
        >= 0 (those runs keep their verdicts and record no cost).

    Notes
    -----
    Inside a running event loop (a Jupyter notebook) the evaluation runs on
    its own loop in a worker thread; from async code, await
    :func:`evaluate_async` instead.

    A ledger line is flushed to the operating system as each run ends, which
    survives the process being killed; it is not synced to disk, so a power
    cut can lose the last lines.

    Examples
    --------
    >>> import itertools
    >>> outcomes = itertools.cycle([True, True, False])
    >>> tasks = [Task(run=lambda: next(outcomes)) for _ in range(4)]
    >>> result = evaluate(tasks, k=3)
    >>> result.pass_at_1, result.pass_pow_k
    (0.6666666666666666, 0.0)
    >>> result.runs[["task", "run", "passed", "error"]].head(3)
       task  run  passed error
    0     0    0    True   NaN
    1     0    1    True   NaN
    2     0    2   False   NaN

    Four runs at a time, each limited to a second, with a ledger to resume
    from if the evaluation is stopped:

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ledger.jsonl"
    >>> tasks = [Task(run=lambda: True, id=f"task-{i}") for i in range(10)]
    >>> result = evaluate(tasks, k=3, concurrency=4, run_timeout_ms=1000,
    ...                   ledger=path, resume=True, model="always-right")
    >>> result.runs["task"].iloc[[0, -1]].tolist(), result.header["model"]
    (['task-0', 'task-9'], 'always-right')

    The same evaluation grown by two runs per task and a new task: only the
    new runs are made.

    >>> more = [*tasks, Task(run=lambda: False, id="task-10")]
    >>> grown = evaluate(more, k=5, concurrency=4, run_timeout_ms=1000,
    ...                  ledger=path, resume=True, model="always-right")
    >>> len(grown.runs), grown.pass_pow_k, grown.header["resumptions"][-1]["tasks_added"]
    (55, 0.9090909090909091, ['task-10'])
    """
    evaluation = Evaluation(make_plan(**locals()))  # every argument, checked
    try:
        return run_in_loop(lambda: _evaluate(evaluation))
    except KeyboardInterrupt as stop:
        stop.add_note(evaluation.resume_hint())
        raise
    finally:
        evaluation.close()


def run_in_loop(main: Callable[[], Awaitable[T]]) -> T:
    """Return what ``main()`` gives, run on a new event loop; in a worker thread if one runs here.

    In a worker thread (a running loop, as in Jupyter), Ctrl-C cancels
    ``main()`` on its loop and waits until it has stopped before raising
    ``KeyboardInterrupt`` here.
    """

    async def awaited() -> T:
        return await main()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(awaited())
    running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = []

    async def tracked() -> T:
        running.append((asyncio.get_running_loop(), asyncio.current_task()))  # type: ignore[arg-type]
        return await main()

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="passk_lab") as pool:
        future = pool.submit(asyncio.run, tracked())
        try:
            return future.result()
        except KeyboardInterrupt:  # Ctrl-C reaches this thread, not the loop's
            for loop, task in running:
                loop.call_soon_threadsafe(task.cancel)
            with contextlib.suppress(BaseException):
                future.result()  # wait until the loop has stopped and the ledger is closed
            raise
