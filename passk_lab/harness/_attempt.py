"""One run of a task: its attempts, retries and backoff, its verdict, its cost and its error kind.

:class:`Runner` makes one run of a task and returns its
:class:`~passk_lab.harness._ledger_format.RunRecord`:

* a run that raises, or exceeds its time, is a **failed run**, never a crashed
  evaluation (only ``KeyboardInterrupt``, ``SystemExit`` and cancellation
  propagate);
* exceptions named as ``infrastructure`` are retried with a doubling backoff
  within the run's time limit and, when they persist, recorded as the
  infrastructure's failure (``error_kind="infrastructure"``), not the agent's
  (``"agent"``) or the clock's (``"timeout"``);
* a verdict must be a bool (:func:`_verdict`), an async verdict is awaited,
  and a time limit covers the run and its verdict together; a run that comes
  back past its limit (an async run that blocked the event loop cannot be
  cancelled) is recorded as timed out all the same, with a warning at the end;
* what a run cost (``Task.cost``, or the result's ``cost`` attribute) is
  recorded beside its verdict; a cost that is wrong is left out, with a
  warning at the end.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from passk_lab._files import encodable
from passk_lab._warnings import EvaluationWarning, warn
from passk_lab.harness._ledger_format import RunRecord, brief_repr, cost_of
from passk_lab.harness._settings import Plan
from passk_lab.harness._task import the_result
from passk_lab.harness._threads import Threads, unwrapped

__all__ = ["Runner"]


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


class Runner:
    """How one evaluation runs a task once: time limit, retries, a thread if runs overlap.

    `threads` are those of the event loop the runs are on, set before each batch of runs.
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.threads: Threads
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
                error, settings = unwrapped(exc), plan.settings
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

    def warn_of_problems(self) -> None:
        """Warn, once each, of runs that came back past their time limit and of wrong costs."""
        if self.unstoppable:
            warn(
                EvaluationWarning(
                    f"{self.unstoppable} async run(s) came back past their time limit, so they "
                    "are recorded as timed out: each blocked the event loop (time.sleep or "
                    "blocking I/O inside async def), where no time limit can stop it; await "
                    "asyncio.sleep and async clients instead, or make the run a plain function, "
                    "which runs in a thread"
                )
            )
        if self.bad_costs:
            warn(
                EvaluationWarning(
                    f"{self.bad_costs} run(s) recorded no cost, as their cost was not a mapping "
                    f"of names to finite numbers >= 0; the first, {self.first_bad_cost}. The "
                    "runs keep their verdicts. Give a cost such as "
                    "{'usd': 0.25, 'tokens': 1000} (or None for none), from the result's cost "
                    "attribute or a Task(cost=...) hook"
                )
            )
