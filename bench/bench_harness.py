"""The harness's cost per run: evaluate() on instant runs against a bare loop over them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from timing import Row, best_of

from passk_lab import Task, evaluate

TASKS, K = 1_000, 10  # 10,000 runs


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

    bare = best_of(bare_loop)
    runs = TASKS * K
    size = f"{runs:,} runs"
    timed = [
        ("evaluate()", best_of(lambda: evaluate(tasks, K)), 50),  # target overheads, us per run
        ("evaluate(ledger=)", best_of(with_ledger), 200),
        ("evaluate(concurrency=4)", best_of(lambda: evaluate(tasks, K, concurrency=4)), None),
    ]
    return [
        Row(
            name,
            size,
            seconds,
            "bare loop over the same tasks",
            bare,
            note=f"{(seconds - bare) / runs * 1e6:.1f} us/run overhead"
            + ("" if target is None else f" (target < {target})"),
        )
        for name, seconds, target in timed
    ]
