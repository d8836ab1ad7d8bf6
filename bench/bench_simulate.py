"""A sweep of p x k x simulated evaluations against numpy's draws and the source's loop."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from timing import Row, best_of

from passk_lab import seeded, simulate_sweep

PS = np.round(np.arange(0.50, 1.00, 0.01), 2)  # 0.50 .. 0.99
KS = np.arange(1, 21)
EVALUATIONS = 1_000
TASKS = 40
LOOP_EVALUATIONS = 2  # the Python loop runs this many evaluations per (p, k); scaled up


def source_evaluation(
    p: float, tasks: int, k: int, draw: Callable[[], float]
) -> tuple[float, float]:
    """One evaluation as the source's evaluate() runs its simulated model, run by run."""
    single = 0.0
    all_k = 0
    for _ in range(tasks):
        wins = 0
        for _ in range(k):
            if draw() < p:
                wins += 1
        if wins == k:
            all_k += 1
        single += wins / k
    return single / tasks, all_k / tasks


def source_sweep(evaluations: int) -> None:
    for p in PS:
        for k in KS:
            draw = seeded(int(k))
            for _ in range(evaluations):
                source_evaluation(float(p), TASKS, int(k), draw)


def rows() -> list[Row]:
    size = f"{len(PS)}x{len(KS)}x{EVALUATIONS:,}"
    sweep = best_of(
        lambda: simulate_sweep(PS, KS, tasks=TASKS, evaluations=EVALUATIONS, rng=0), repeat=3
    )
    rng = np.random.default_rng(0)
    draws = len(PS) * len(KS) * EVALUATIONS * TASKS
    floor = best_of(lambda: rng.binomial(10, 0.85, draws), repeat=3)
    loop = best_of(lambda: source_sweep(LOOP_EVALUATIONS), repeat=1) * (
        EVALUATIONS / LOOP_EVALUATIONS
    )
    label = "simulate_sweep, 40 tasks each"
    return [
        Row(label, size, sweep, f"numpy binomial, {draws:.0e} draws", floor),
        Row(label, size, sweep, "source's evaluate loop *", loop, target=0.01),
    ]
