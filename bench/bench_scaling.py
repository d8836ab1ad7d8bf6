"""How the time grows with the runs: the tally is linear in runs, what follows it is flat.

Every size has 16 runs per task and the same spread of task difficulties, so
the (n, c) cells, and everything computed from it, is the same size.
"""

from __future__ import annotations

import numpy as np
from bench_estimators import outcome_matrix, runs_table
from timing import best_of

from passk_lab._curve_checks import group_ks
from passk_lab._curve_table import curve_table
from passk_lab._data.cells import Cells
from passk_lab._data.tally import as_tally
from passk_lab._interval_policy import IntervalSpec

RUNS_PER_TASK = 16
SIZES = [10_000, 100_000, 1_000_000, 10_000_000]


def stages(runs: int) -> tuple[float, float, float]:
    """Seconds of the tally, of the cells of its (n, c) pairs, and of the statistics."""
    table = runs_table(
        outcome_matrix(runs // RUNS_PER_TASK, RUNS_PER_TASK, np.random.default_rng(0))
    )
    repeat = 7 if runs <= 1_000_000 else 3
    summary = as_tally(table)
    cells = Cells.from_tally(summary)
    spec = IntervalSpec.of("auto", 0.95, 10_000, 0)
    ks = group_ks(cells, None)
    return (
        best_of(lambda: as_tally(table), repeat=repeat),
        best_of(lambda: Cells.from_tally(summary), repeat=repeat),
        best_of(lambda: curve_table(cells, ks, spec), repeat=7),
    )


def print_scaling() -> None:
    print(
        f"\nScaling ({RUNS_PER_TASK} runs per task; the whole curve with intervals, "
        f"k=1..{RUNS_PER_TASK})"
    )
    header = f"{'runs':>12}{'tally':>12}{'ns/run':>9}{'cells':>12}{'statistics':>12}"
    print(header)
    print("-" * len(header))
    for runs in SIZES:
        tally, cells, statistics = stages(runs)
        print(
            f"{runs:>12,}{tally * 1e3:>10.2f}ms{tally / runs * 1e9:>9.1f}"
            f"{cells * 1e3:>10.2f}ms{statistics * 1e3:>10.2f}ms"
        )
