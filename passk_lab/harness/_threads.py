"""Plain functions run in threads for an evaluation, and an evaluation run on a loop of its own.

:class:`Threads` runs a plain function (a task's run, a verdict, a guard) in
a daemon thread and hands its outcome to the event loop as a future, which
the runner awaits under the run's time limit; a run that hangs is abandoned
in its thread and never holds the evaluation past its limit.
:func:`run_in_loop` runs an evaluation's coroutine on an event loop of its
own, in a worker thread when one already runs (a Jupyter notebook).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["Threads", "run_in_loop", "unwrapped"]

T = TypeVar("T")


class _Raised(Exception):
    """Carries a ``StopIteration`` from a thread: a future refuses to hold one itself."""

    def __init__(self, error: StopIteration) -> None:
        super().__init__(error)
        self.error = error


def unwrapped(error: Exception) -> BaseException:
    """Return what a run in a thread raised: `error`, or the ``StopIteration`` it carries."""
    return error.error if isinstance(error, _Raised) else error


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():  # the time limit, or a cancellation, already gave up on this run
        return
    if error is None:
        future.set_result(value)
    else:
        future.set_exception(_Raised(error) if isinstance(error, StopIteration) else error)


_Job = tuple[Callable[[], Any], asyncio.Future[Any]]  # a run to make, and its outcome


class Threads:
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


_WAKE = 0.1
"""Seconds between the checks for Ctrl-C of a thread that waits for a loop in another thread.

A thread blocked on a lock can miss a signal that arrives just before it blocks: it would
wait for the whole evaluation. Waking this often runs the signal's handler soon after."""


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
            while not concurrent.futures.wait([future], timeout=_WAKE).done:
                pass  # a wait that wakes, so that no Ctrl-C is missed
            return future.result()
        except KeyboardInterrupt:  # Ctrl-C reaches this thread, not the loop's
            for loop, task in running:
                loop.call_soon_threadsafe(task.cancel)
            with contextlib.suppress(BaseException):
                future.result()  # wait until the loop has stopped and the ledger is closed
            raise
