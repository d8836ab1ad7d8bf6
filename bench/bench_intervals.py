"""The task bootstrap over (n, c) cells against scipy.stats.bootstrap on per-task values."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from timing import Row, best_of

from passk_lab._bootstrap import task_bootstrap
from passk_lab._data.cells import Cells
from passk_lab._data.tally import as_tally
from passk_lab._interval_policy import Statistics

RUNS = 16
K = 4
RESAMPLES = 10_000


def counts(tasks: int, rng: np.random.Generator) -> pd.DataFrame:
    """A tally of `tasks` tasks with 16 runs each and difficulties spread over [0, 1]."""
    return pd.DataFrame(
        {"task": np.arange(tasks), "n": RUNS, "c": rng.binomial(RUNS, rng.random(tasks))}
    )


def histogram_bootstrap(table: pd.DataFrame, seed: int) -> object:
    """Tally to cells, then a BCa interval of pass^k (the work reliability_curve does per k)."""
    cells = Cells.from_tally(as_tally(table))
    values = Statistics.of(cells.n, cells.c, np.array([K])).pass_pow_k
    return task_bootstrap(
        cells.tasks, values, n_resamples=RESAMPLES, rng=np.random.default_rng(seed)
    )


def per_task_values(table: pd.DataFrame) -> np.ndarray:
    n, c = table["n"].to_numpy(), table["c"].to_numpy()
    values = np.ones(len(n))
    for i in range(K):
        values *= np.clip(c - i, 0, None) / (n - i)
    return values


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    small = counts(2_000, rng)
    values = per_task_values(small)
    ours_small = best_of(lambda: histogram_bootstrap(small, 1), repeat=5)
    scipy_small = best_of(
        lambda: stats.bootstrap(
            (values,), np.mean, method="BCa", n_resamples=RESAMPLES, rng=2, batch=500
        ),
        repeat=1,
    )
    large = counts(1_000_000, rng)
    ours_large = best_of(lambda: histogram_bootstrap(large, 1), repeat=3)
    mean_large = best_of(lambda: per_task_values(large).mean(), repeat=3)
    label = f"BCa pass^{K}, {RESAMPLES // 1000}k resamples"
    return [
        Row(label, "2e+03x16", ours_small, "scipy.stats.bootstrap BCa", scipy_small),
        Row(label, "1e+06x16", ours_large, "one pass^4 mean, per task", mean_large),
    ]
