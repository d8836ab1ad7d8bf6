"""The harness's cost per run: evaluate() on instant runs against a bare loop over them.

A row's overhead is ``(evaluate time - bare loop time) / runs``, in microseconds, against
its target. The times are the process's CPU time, every thread's: on an idle machine it is
the wall-clock time, eight runs at a time included (their threads take turns), and a machine
busy with other work does not stretch it, as it does the wall-clock time of an evaluation
(two busy processes double it) while the 1 ms bare loop still fits between the other work.
The note gives the wall-clock overhead beside it. Every time is the best of ``ROUNDS``
timings of 10,000 runs, taken in rounds in which the bare loop and each evaluation take
turns.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from timing import Row, alternating_minima

from passk_lab import Task, evaluate

TASKS, K = 1_000, 10  # 10,000 runs
ROUNDS = 15
TARGETS = {  # the overhead each row should stay at or under, microseconds per run
    "evaluate()": 5.0,
    "evaluate(ledger=)": 15.0,
    "evaluate(concurrency=8)": 30.0,
}
BASELINE = "bare loop over the same tasks"


def _tasks() -> list[Task[bool]]:
    return [Task(run=lambda: True, passes=bool, id=i) for i in range(TASKS)]


def _cpu_and_wall_minima(
    timed: dict[str, Callable[[], object]], rounds: int
) -> dict[str, tuple[float, float]]:
    """Return the fastest CPU and wall-clock times of each function, all taking turns each round."""
    walls = dict.fromkeys(timed, math.inf)

    def wall_timed(name: str, fn: Callable[[], object]) -> Callable[[], None]:
        def run() -> None:
            started = time.perf_counter()
            fn()
            walls[name] = min(walls[name], time.perf_counter() - started)

        return run

    cpus = alternating_minima(
        *(wall_timed(name, fn) for name, fn in timed.items()),
        rounds=rounds,
        clock=time.process_time,
    )
    return {name: (cpu, walls[name]) for name, cpu in zip(timed, cpus, strict=True)}


def rows() -> list[Row]:
    tasks = _tasks()

    def bare_loop() -> None:
        for task in tasks:
            for _ in range(K):
                task.passes(task.run())

    folder = Path(tempfile.mkdtemp())
    ledgers = iter(range(1_000))

    def with_ledger() -> None:
        evaluate(tasks, K, ledger=folder / f"ledger{next(ledgers)}.jsonl")

    best = _cpu_and_wall_minima(
        {
            BASELINE: bare_loop,
            "evaluate()": lambda: evaluate(tasks, K),
            "evaluate(ledger=)": with_ledger,
            "evaluate(concurrency=8)": lambda: evaluate(tasks, K, concurrency=8),
        },
        ROUNDS,
    )
    runs = TASKS * K
    (bare_cpu, bare_wall) = best[BASELINE]
    return [
        Row(
            name,
            f"{runs:,} runs",
            best[name][0],
            BASELINE,
            bare_cpu,
            note=_overhead(
                (best[name][0] - bare_cpu) / runs * 1e6,
                (best[name][1] - bare_wall) / runs * 1e6,
                target,
            ),
        )
        for name, target in TARGETS.items()
    ]


def _overhead(cpu_us: float, wall_us: float, target: float) -> str:
    """Return the row's overhead per run against its target, and by the wall clock."""
    verdict = "met" if cpu_us <= target else "NOT MET"
    return f"{cpu_us:.1f} us/run overhead (target <= {target:g}): {verdict}; wall {wall_us:.1f}"
