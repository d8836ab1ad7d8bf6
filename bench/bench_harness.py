"""The harness's cost per run: evaluate() on instant runs against a bare loop over them.

The overhead of a row is ``(evaluate time - bare loop time) / runs``, each time the best of
several repeats of 10,000 runs, so that a busy moment of the machine does not count.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from timing import Row, best_of

from passk_lab import Task, evaluate

TASKS, K = 1_000, 10  # 10,000 runs
REPEAT = 9  # evaluations a row takes the best of: a minimum of 9 moves little from run to run


def _tasks() -> list[Task[bool]]:
    return [Task(run=lambda: True, passes=bool, id=i) for i in range(TASKS)]


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

    bare = best_of(bare_loop, 3 * REPEAT)
    runs = TASKS * K
    size = f"{runs:,} runs"
    timed = [  # the target overheads, us per run
        ("evaluate()", best_of(lambda: evaluate(tasks, K), REPEAT), 5),
        ("evaluate(ledger=)", best_of(with_ledger, REPEAT), 15),
        (
            "evaluate(concurrency=8)",
            best_of(lambda: evaluate(tasks, K, concurrency=8), REPEAT),
            30,
        ),
    ]
    return [
        Row(
            name,
            size,
            seconds,
            "bare loop over the same tasks",
            bare,
            note=_overhead(seconds, bare, runs, target),
        )
        for name, seconds, target in timed
    ]


def _overhead(seconds: float, bare: float, runs: int, target: float) -> str:
    """The row's overhead per run against its target, in microseconds."""
    per_run = (seconds - bare) / runs * 1e6
    verdict = "met" if per_run <= target else "NOT MET"
    return f"{per_run:.1f} us/run overhead (target <= {target:g}): {verdict}"
