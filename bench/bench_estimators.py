"""The whole reliability curve (validation, tally, every k) against pandas and numpy floors."""

from __future__ import annotations

import numpy as np
import pandas as pd
from timing import Row, best_of

from passk_lab import reliability_curve

TASKS = 1_000_000
RUNS = 16


def runs_table(rng: np.random.Generator) -> pd.DataFrame:
    """1e6 tasks x 16 runs in task-then-run order, as a harness writes them, with task
    difficulties spread over [0, 1]."""
    p = rng.random(TASKS)
    passed = rng.random((TASKS, RUNS)) < p[:, None]
    return pd.DataFrame(
        {
            "task": np.repeat(np.arange(TASKS, dtype=np.int64), RUNS),
            "run": np.tile(np.arange(RUNS, dtype=np.int64), TASKS),
            "passed": passed.ravel(),
        }
    )


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    runs = runs_table(rng)
    size = f"{TASKS:.0e}x{RUNS}"
    group_by = best_of(lambda: runs.groupby("task")["passed"].sum(), repeat=3)
    curve = best_of(lambda: reliability_curve(runs), repeat=3)
    shuffled = runs.sample(frac=1.0, random_state=1)
    curve_shuffled = best_of(lambda: reliability_curve(shuffled), repeat=3)
    group_by_shuffled = best_of(lambda: shuffled.groupby("task")["passed"].sum(), repeat=3)
    strings = runs.assign(task=runs["task"].map("task-{:07d}".format).astype("str"))
    curve_strings = best_of(lambda: reliability_curve(strings), repeat=1)
    group_by_strings = best_of(lambda: strings.groupby("task")["passed"].sum(), repeat=1)
    duplicated = best_of(lambda: runs.duplicated(["task", "run"]).any(), repeat=1)

    matrix = runs["passed"].to_numpy().reshape(TASKS, RUNS)
    row_sums = best_of(lambda: matrix.sum(axis=1), repeat=5)
    from_matrix = best_of(lambda: reliability_curve(matrix), repeat=5)
    group_by_label = "groupby(task).passed.sum()"
    return [
        Row("curve from runs, k=1..16", size, curve, group_by_label, group_by),
        Row("  rows shuffled", size, curve_shuffled, "  the same, shuffled", group_by_shuffled),
        Row("  string task ids", size, curve_strings, "  the same, string ids", group_by_strings),
        Row("duplicated([task, run]) alone", size, duplicated, group_by_label, group_by),
        Row("curve from outcome matrix", size, from_matrix, "numpy matrix.sum(axis=1)", row_sums),
    ]
