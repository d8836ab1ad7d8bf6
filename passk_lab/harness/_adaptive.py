"""Adaptive evaluation: run tasks until the answer is known, and say why it stopped.

:func:`evaluate_until` carries out :func:`passk_lab._sequential.procedure` with
real runs: it draws the pool's tasks in a random order, `batch` at a time,
gives each its first runs and, where its first passes leave most to learn,
more (:mod:`passk_lab._two_stage`), and stops when the interval of the target
is narrow enough (or, for two agents, when the sign of the difference is
decided), or a limit is reached. Every run goes through the harness's
:class:`~passk_lab.harness._evaluation.Evaluation` (time limits, retries,
concurrency, costs) and, with a ledger, is recorded as it finishes. The
decisions are a function of the seed and the outcomes alone, so a resumed
evaluation makes them again from the recorded runs and runs only what is
missing: the same decision, every run exactly once. Its settings are
:class:`~passk_lab.harness._adaptive_settings.AdaptiveSettings`, its result
:class:`~passk_lab.harness._adaptive_result.AdaptiveResult`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from passk_lab._choices import AdaptiveInterval
from passk_lab._sequential import Design, Outcome, Stop, procedure
from passk_lab._two_stage import Statistic
from passk_lab.harness._adaptive_result import AdaptiveResult, adaptive_result
from passk_lab.harness._adaptive_settings import AdaptiveSettings
from passk_lab.harness._evaluation import Evaluation
from passk_lab.harness._ledger_write import json_id
from passk_lab.harness._settings import Plan, make_plan
from passk_lab.harness._task import Guard, Task
from passk_lab.harness._threads import run_in_loop

__all__ = ["AdaptiveResult", "evaluate_until"]

_HARNESS_OPTIONS = (
    "run_timeout_ms",
    "guard",
    "concurrency",
    "resume",
    "model",
    "metadata",
    "infrastructure",
    "retries",
    "backoff_s",
    "progress",
)
"""The options of :func:`evaluate_until` that are the harness's (its Settings check them)."""


def evaluate_until(
    tasks: Sequence[Task[Any]],
    k: int,
    half_width: float,
    *,
    confidence_level: float = 0.95,
    rng: int | np.random.Generator | None = None,
    statistic: Statistic = "pass_pow_k",
    min_runs: int | None = None,
    max_runs_per_task: int | None = None,
    max_runs: int | None = None,
    max_cost: Mapping[str, float] | None = None,
    batch: int = 10,
    interval: AdaptiveInterval = "sequential",
    against: Sequence[Task[Any]] | None = None,
    run_timeout_ms: float | None = None,
    guard: Guard | None = None,
    concurrency: int = 1,
    ledger: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    resume: bool = False,
    model: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    infrastructure: type[Exception] | tuple[type[Exception], ...] = (),
    retries: int = 3,
    backoff_s: float = 1.0,
    progress: bool = False,
) -> AdaptiveResult:
    """Run tasks from a pool until pass^k (or pass@k) is known to a half-width, then stop.

    The pool's tasks are drawn in a random order, `batch` at a time, and run
    (a task whose first runs leave most to learn may get more); after each
    batch it stops if the target's interval has a half-width of at most
    `half_width`, if a limit is reached, or, with a second agent `against`,
    if the sign of the difference is decided. See docs/adaptive.md.

    Parameters
    ----------
    tasks : sequence of Task
        The pool, drawn from in a random order, never twice.
    k : int
        The target is pass^k (or pass@k) at this k.
    half_width : float
        The half-width wanted: in (0, 0.5], or (0, 1] for a difference.
    confidence_level : float, default 0.95
        Of the intervals, in (0, 1).
    rng : int, numpy.random.Generator or None
        The seed of the task order; None draws one (a resumed ledger's own).
    statistic : {"pass_pow_k", "pass_at_k"}
        The target.
    min_runs, max_runs_per_task : int, optional
        Runs every task gets (at least `k`; `k` by default), and runs a task
        may get (at least `min_runs`, which is the default: no extra runs).
    max_runs, max_cost : optional
        The most runs in all (both agents together), and per cost name the
        most spend, such as ``{"usd": 20.0}``, checked between batches.
    batch : int, default 10
        Tasks drawn per batch: the interval is looked at after each.
    interval : {"sequential", "anytime"}
        One agent's interval: the effective-n interval of the per-task
        estimates, measured with this stopping rule, or the betting
        confidence sequence, valid under any. Two agents get the latter.
    against : sequence of Task, optional
        The second agent's tasks, one per task of `tasks`, in the same order.
    run_timeout_ms, guard, concurrency, model, metadata, infrastructure, retries, backoff_s
        As for :func:`~passk_lab.evaluate` (concurrency is per agent).
    ledger : str or path-like, or a pair of them, optional
        The ledger to record the runs in (one per agent with `against`).
    resume : bool, default False
        Continue the ledger's evaluation (the same design; limits that let it
        go as far or further), making only the runs it lacks.
    progress : bool, default False
        Show a progress bar, as :func:`~passk_lab.evaluate` does.

    Returns
    -------
    AdaptiveResult
        ``runs``, ``curve``, ``stopped_because``, ``design`` and, with
        `against`, ``comparison``.

    Raises
    ------
    TypeError, ValueError
        For a bad setting (named), unpaired `against` tasks, a ledger that
        cannot be resumed (saying what differs), or as :func:`~passk_lab.evaluate`.
    KeyboardInterrupt
        On Ctrl-C, with a note on how to resume.

    Examples
    --------
    >>> import passk_lab as pk
    >>> pool = pk.coin_tasks(p=0.85, tasks=200, seed=1)
    >>> result = evaluate_until(pool, k=3, half_width=0.1, rng=0)
    >>> result.stopped_because, result.tasks, len(result.runs)
    ('half_width', 100, 300)
    """
    settings = AdaptiveSettings.of(
        tasks,
        k,
        half_width,
        confidence_level=confidence_level,
        rng=rng,
        statistic=statistic,
        min_runs=min_runs,
        max_runs_per_task=max_runs_per_task,
        max_runs=max_runs,
        max_cost=max_cost,
        batch=batch,
        interval=interval,
        against=against,
        ledger=ledger,
        resume=resume,
        run_timeout_ms=run_timeout_ms,
        guard=guard,
    )
    options = {name: value for name, value in locals().items() if name in _HARNESS_OPTIONS}
    sides = [list(tasks)] if against is None else [list(tasks), list(against)]
    return _run(settings, *_plans(settings, sides, options))


_Check = Callable[[dict[str, Any]], None]


def _plans(
    settings: AdaptiveSettings, sides: list[list[Task[Any]]], options: dict[str, Any]
) -> tuple[list[Plan], list[_Check | None]]:
    """Plan each agent's runs and check its ledger, all before any ledger is opened.

    Return the plans and each ledger's resume check, so that a refusal of the
    second agent's ledger leaves the first's untouched.
    """
    plans, checks = [], []
    for agent, (side, path) in enumerate(zip(sides, settings.ledgers, strict=True)):
        argument = ("tasks", "against")[agent]
        plan = make_plan(
            side,
            settings.max_runs_per_task,
            ledger=path,
            argument=argument,
            sized=False,
            **options,
        )
        _require_one_kind(plan.ids, argument)
        ids = [json_id(task, position) for position, task in enumerate(plan.ids)]
        checks.append(settings.resume_check(agent, ids, resume=options["resume"]))
        plans.append(plan)
    return plans, checks


def _run(
    settings: AdaptiveSettings, plans: list[Plan], checks: list[_Check | None]
) -> AdaptiveResult:
    """Open every agent's evaluation, carry out the procedure, and return the result."""
    design = settings.design()
    evaluations: list[Evaluation] = []
    try:
        for agent, (plan, check) in enumerate(zip(plans, checks, strict=True)):
            evaluations.append(
                Evaluation(
                    plan,
                    adaptive=settings.record(agent),
                    check=check,
                    total=settings.max_runs,
                    label="evaluate_until",
                )
            )
        made = sum(evaluation.finished for evaluation in evaluations)
        try:
            stop = run_in_loop(lambda: _drive(evaluations, design))
        except KeyboardInterrupt as interrupt:
            interrupt.add_note(_interrupted(evaluations, made, settings))
            raise
    finally:
        for evaluation in evaluations:
            evaluation.close()
    return adaptive_result(evaluations, stop, design)


def _interrupted(evaluations: list[Evaluation], made: int, settings: AdaptiveSettings) -> str:
    """Say what an interrupted evaluation kept, `made` runs having been recorded before it."""
    finished = sum(evaluation.finished for evaluation in evaluations)
    kept = [os.fspath(path) for path in settings.ledgers if path is not None]
    return f"evaluate_until was interrupted after {finished - made} new runs" + (
        f" ({finished} in all are recorded in {', '.join(map(repr, kept))}); call "
        "evaluate_until again with the same tasks and settings and resume=True: it "
        "makes the same decisions from the recorded runs and runs only what is "
        "missing"
        if kept
        else "; pass ledger=PATH to keep every finished run, and resume=True to go on"
    )


async def _drive(evaluations: list[Evaluation], design: Design) -> Stop:
    """Carry out the procedure with real runs: the recorded ones are not run again."""
    steps = procedure(design)
    jobs = next(steps)
    while True:
        await asyncio.gather(
            *(
                evaluation.run([(job.task, job.run) for job in jobs if job.agent == agent])
                for agent, evaluation in enumerate(evaluations)
            )
        )
        outcomes = {}
        for job in jobs:
            record = evaluations[job.agent].recorded[job.task, job.run]
            outcomes[job] = Outcome(record.passed, record.cost)
        try:
            jobs = steps.send(outcomes)
        except StopIteration as stopped:
            result: Stop = stopped.value
            return result


def _require_one_kind(ids: Sequence[Any], argument: str) -> None:
    """Refuse task ids that mix text and integers: the runs table could not be counted."""
    kinds = {type(task_id) for task_id in ids}
    if len(kinds) > 1:
        text = next(task_id for task_id in ids if isinstance(task_id, str))
        other = next(task_id for task_id in ids if not isinstance(task_id, str))
        raise ValueError(
            f"{argument} mixes task ids of two kinds, such as {text!r} (str) and {other!r} "
            f"({type(other).__name__}); give every Task an id of one kind (str(id) for all)"
        )
