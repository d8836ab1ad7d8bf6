"""Run every task k times and keep every run: the source harness's ``evaluate()``.

The rules are the source document's: every task runs `k` times, task by task
and run by run; a run that raises, or exceeds its time, is a failed run
(:mod:`passk_lab.harness._attempt`); with a total budget ``timeout_ms``, each
run gets ``max(1, floor(timeout_ms / (len(tasks) * k)))`` milliseconds; and
``pass_at_1`` is the mean over tasks of ``wins / k``, ``pass_pow_k`` the
share of tasks that passed all `k` runs. On top of the source, runs may go
``concurrency`` at a time (the rows and the figures are those of a sequential
run with the same outcomes), and with ``ledger=PATH`` every run is appended
to a ledger as it finishes, so that ``resume=True`` runs only what an
interrupted evaluation left undone (docs/ledger.md).

:class:`Evaluation` is one open evaluation (its ledger, progress bar and
runner) that runs the runs it is given; :func:`evaluate` gives it every run
of every task, and an adaptive driver chooses them batch by batch.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from passk_lab._version import __version__
from passk_lab.harness._attempt import Runner
from passk_lab.harness._ledger_format import RunRecord
from passk_lab.harness._ledger_read import cost_totals, runs_frame
from passk_lab.harness._ledger_write import header, json_id, open_ledger, run_line
from passk_lab.harness._settings import Plan, make_plan
from passk_lab.harness._task import EvalResult, Guard, Task
from passk_lab.harness._threads import Threads, run_in_loop

__all__ = ["Evaluation", "evaluate", "evaluate_async"]


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
        Passed to :func:`~passk_lab.harness._ledger_write.open_ledger`: called with a
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
        self._runner = Runner(plan)
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
        threads = Threads(asyncio.get_running_loop())
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
        self._runner.warn_of_problems()

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

    A run that raises, or exceeds its time, is a failed run, so the
    evaluation always completes with ``len(tasks) * k`` runs; a run passes
    when its verdict (``Task.passes``, or the run's own result) is ``True``.
    In a running event loop (Jupyter) it runs on a loop of its own in a
    thread; async code awaits :func:`evaluate_async`. See docs/ledger.md.

    Parameters
    ----------
    tasks : sequence of Task
        At least one task; plain and async callables may mix.
    k : int
        Runs per task, a positive integer.
    timeout_ms : float, optional
        A time budget for the whole evaluation, in milliseconds: each run gets
        ``max(1, floor(timeout_ms / (len(tasks) * k)))`` ms, as the source does.
    run_timeout_ms : float, optional
        A time limit for each run and its verdict together, in milliseconds
        (with `timeout_ms`, the smaller). A run out of time fails with
        ``timed_out``: cancelled if async, abandoned in its thread if not.
    guard : callable, optional
        ``guard(fn, ms)``, with a time limit, replaces the default one: it runs
        ``fn`` (the task's ``run``) and raises when ``ms`` milliseconds pass.
    concurrency : int, default 1
        Runs in flight at once (async ones on the event loop, plain ones in
        daemon threads); the rows keep task then run order.
    ledger : str or path-like, optional
        A JSON Lines file to record the evaluation in, a line per run appended
        as it finishes; an existing file is refused unless `resume` is set.
        Task ids must be int or str.
    resume : bool, default False
        Continue the evaluation `ledger` records, running only the runs it
        lacks; it may grow by a larger `k` or more tasks, never shrink, and
        must record the same model, seed, time limits and metadata. A missing
        ledger is started afresh.
    model : str, optional
        The model or agent's name, for the record.
    seed : int, optional
        The seed the tasks were drawn with, for the record (nothing is drawn).
    metadata : dict, optional
        Anything else to record (JSON values): the task set's version, ...
    infrastructure : exception class or tuple of them, optional
        Exceptions that mean the infrastructure failed, not the agent (a rate
        limit): retried, and a run whose attempts all fail gets
        ``error_kind="infrastructure"``, which ``errors="exclude"`` leaves out.
    retries : int, default 3
        Further attempts after an infrastructure exception.
    backoff_s : float, default 1.0
        Seconds before the first retry, doubling for each next one.
    progress : bool, default False
        Show a progress bar (``tqdm.auto``) with the running pass@1.

    Returns
    -------
    EvalResult
        ``tasks``, ``k``, ``pass_at_1``, ``pass_pow_k``, the per-run ``runs``
        (a ``cost_<name>`` column per cost the runs recorded), the ``header``
        a ledger records and the total ``cost``.

    Raises
    ------
    TypeError
        If `k` is not an integer, a task is not a :class:`Task` or declares a
        result other than a bool without a verdict, or a task id or the
        metadata cannot go in a ledger.
    ValueError
        If `k` < 1, `tasks` is empty, too many for the memory budget or has a
        repeated id, a time limit is not positive, `guard` has none, or the
        ledger cannot be used (it exists without `resume`, is in use, damaged,
        or records another evaluation: the message says what).
    KeyboardInterrupt
        On Ctrl-C: no new run starts, every finished run stays in the ledger,
        and the exception's note says how to resume.

    Warns
    -----
    EvaluationWarning
        Once at the end, if async runs came back past their time limit (they
        blocked the event loop) or gave a cost that is not a mapping of names
        to finite numbers >= 0 (they keep their verdicts).

    Examples
    --------
    >>> import itertools
    >>> outcomes = itertools.cycle([True, True, False])
    >>> tasks = [Task(run=lambda: next(outcomes)) for _ in range(4)]
    >>> result = evaluate(tasks, k=3)
    >>> result.pass_at_1, result.pass_pow_k
    (0.6666666666666666, 0.0)
    >>> result.runs["passed"].head(3).tolist()  # task 0's runs 0, 1 and 2
    [True, True, False]
    """
    evaluation = Evaluation(make_plan(**locals()))  # every argument, checked
    try:
        return run_in_loop(lambda: _evaluate(evaluation))
    except KeyboardInterrupt as stop:
        stop.add_note(evaluation.resume_hint())
        raise
    finally:
        evaluation.close()
