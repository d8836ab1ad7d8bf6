"""Simulated models: the source's seeded coin, as tasks and as a runs table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab._checks import positive_int, probability
from passk_lab.harness import Task
from passk_lab.seeded import mulberry32, seeded

__all__ = ["coin_tasks", "simulate_coin"]


def coin_tasks(p: float = 0.85, tasks: int = 40, seed: int = 42) -> list[Task[float]]:
    """Return the source's simulated model as tasks for :func:`~passk_lab.evaluate`.

    Every task draws from one shared ``seeded(seed)`` stream and a run passes
    when its draw is below `p`. :func:`~passk_lab.evaluate` runs tasks in order,
    run by run, so the draws are consumed exactly as in the source's test.

    Parameters
    ----------
    p : float
        Probability that a run passes, in ``[0, 1]``.
    tasks : int
        Number of tasks, ``>= 1``.
    seed : int
        Seed of the shared mulberry32 stream.

    Returns
    -------
    list of Task
        Fresh tasks; the stream is shared, so evaluate them once.

    Examples
    --------
    >>> from passk_lab import evaluate
    >>> result = evaluate(coin_tasks(0.85, 40, seed=42), k=5)
    >>> result.pass_at_1, result.pass_pow_k
    (0.86, 0.45)
    """
    threshold = probability("p", p)
    draw = seeded(seed)
    return [
        Task(run=draw, passes=lambda value: value < threshold)
        for _ in range(positive_int("tasks", tasks))
    ]


def simulate_coin(p: float = 0.85, tasks: int = 40, k: int = 5, seed: int = 42) -> pd.DataFrame:
    """Simulate the source's model: `tasks` tasks, `k` runs each, each passing with chance `p`.

    The draws are the ``seeded(seed)`` stream taken task by task, run by run,
    and a run passes when its draw is ``< p``: the same runs, bit for bit, as
    evaluating :func:`coin_tasks` with :func:`~passk_lab.evaluate`, computed
    without a loop.

    Parameters
    ----------
    p : float
        Probability that a run passes, in ``[0, 1]``.
    tasks : int
        Number of tasks, ``>= 1``.
    k : int
        Runs per task, ``>= 1``.
    seed : int
        Seed of the mulberry32 stream.

    Returns
    -------
    pandas.DataFrame
        The runs: ``task`` (0 to tasks - 1), ``run`` (0 to k - 1) and
        ``passed`` (bool), in task then run order.

    Examples
    --------
    >>> runs = simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    >>> runs.shape
    (200, 3)
    >>> float(runs["passed"].mean())
    0.86
    >>> float(runs.groupby("task")["passed"].all().mean())
    0.45
    """
    threshold = probability("p", p)
    n_tasks = positive_int("tasks", tasks)
    n_runs = positive_int("k", k)
    passed = mulberry32(seed, n_tasks * n_runs) < threshold
    return pd.DataFrame(
        {
            "task": np.repeat(np.arange(n_tasks, dtype=np.int64), n_runs),
            "run": np.tile(np.arange(n_runs, dtype=np.int64), n_tasks),
            "passed": passed,
        }
    )
