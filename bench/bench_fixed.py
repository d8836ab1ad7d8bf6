"""The fixed cost of a curve: the statistics on the (n, c) cells, alone and beside a busy process.

Every curve pays it, whatever the number of runs: the default intervals of
pass^k and pass@k for every k and the beta-binomial fit. It is timed on 40
tasks x 16 runs (k = 1..16), once on a quiet machine and once while another
process keeps a core busy, as a CI job or a notebook beside a build does. The
baseline is the tally of a million tasks' runs, the work that grows with a log.
"""

from __future__ import annotations

import multiprocessing
import time

import numpy as np
from bench_estimators import outcome_matrix, runs_table
from timing import Row, best_of

from passk_lab import reliability_curve, tally
from passk_lab._curve_checks import group_ks
from passk_lab._curve_table import curve_table
from passk_lab._data.cells import Cells
from passk_lab._data.tally import as_tally
from passk_lab._interval_policy import IntervalSpec

TASKS, RUNS = 40, 16
BUDGET = 0.030  # seconds: the statistics of a whole curve


def _spin() -> None:
    while True:
        pass


def _statistics(matrix: np.ndarray) -> float:
    """Best time of the statistics that follow the tally (intervals for every k and the fit)."""
    cells = Cells.from_tally(as_tally(matrix))
    spec = IntervalSpec.of("auto", 0.95, 10_000, 0)
    ks = group_ks(cells, None)
    return best_of(lambda: curve_table(cells, ks, spec), repeat=30)


def rows() -> list[Row]:
    small = outcome_matrix(TASKS, RUNS, np.random.default_rng(TASKS))
    large = runs_table(outcome_matrix(1_000_000, RUNS, np.random.default_rng(RUNS)))
    big_tally = best_of(lambda: tally(large), repeat=7)
    quiet = _statistics(small)
    curve = best_of(lambda: reliability_curve(small, rng=0), repeat=30)
    busy = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    busy.start()
    try:
        time.sleep(0.5)  # let it start spinning
        loaded = _statistics(small)
    finally:
        busy.terminate()
        busy.join()
    size = f"{TASKS}x{RUNS}"
    tally_label = "tally of a 1e6x16 runs table"
    return [
        Row("curve statistics, k=1..16", size, quiet, tally_label, big_tally, budget=BUDGET),
        Row("  beside a busy process", size, loaded, tally_label, big_tally, budget=BUDGET),
        Row("curve of 40 tasks, k=1..16", size, curve, tally_label, big_tally, target=2.0),
    ]
