"""Simulated models: the source's seeded coin, as tasks and as a runs table, and sweeps of it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar, cast

import numpy as np
import pandas as pd

from passk_lab._checks import positive_int, probability
from passk_lab._warnings import UNSET, renamed
from passk_lab.harness import Task
from passk_lab.mulberry import mulberry32, seeded

__all__ = ["coin_tasks", "simulate_coin", "simulate_sweep"]

T = TypeVar("T")


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


def _grid(
    name: str, values: float | Iterable[float], check: Callable[[str, object], T], each: str
) -> list[T]:
    """Return one value or several as a list, each checked under the name `each`; refuse none."""
    listed = [values] if isinstance(values, (int, float, np.number)) else list(values)
    if not listed:
        raise ValueError(f"{name} is empty; give at least one value")
    return [check(each, value) for value in listed]


def simulate_sweep(
    p: float | Iterable[float],
    ks: int | Iterable[int] | None = None,
    *,
    rng: int | np.random.Generator | None = None,
    tasks: int = 40,
    evaluations: int = 1000,
    k: int | Iterable[int] | None = UNSET,
) -> pd.DataFrame:
    """Simulate many evaluations of the source's model over a grid of p and k.

    Each evaluation is the source's: `tasks` tasks, each run k times, every
    run passing with chance p; it measures pass@1 (passes over runs) and
    pass^k (the share of tasks that passed all k runs). Repeating it shows how
    far one evaluation's figures scatter around the truth, ``p`` and ``p^k``.

    Parameters
    ----------
    p : float or sequence of float
        Chances of passing a run, in ``[0, 1]``.
    ks : int or sequence of int
        Runs per task, ``>= 1``: the ks of the sweep (``k=`` before, a name
        kept for one release with a ``PasskDeprecationWarning``).
    rng : int, numpy.random.Generator or None
        Seed or generator of numpy's random draws (the sweep does not use the
        source's mulberry32 stream, which only :func:`simulate_coin` needs).
    tasks : int
        Tasks per evaluation, ``>= 1``.
    evaluations : int
        Evaluations per (p, k), ``>= 1``.

    Returns
    -------
    DataFrame
        One row per (p, k, evaluation): ``[p, k, evaluation, pass_at_1,
        pass_pow_k, true_pow_k]``, where ``true_pow_k`` is the true ``p ** k``
        (the column was ``p_pow_k`` before, the name the reliability curve
        gives its estimate ``pass@1 ** k``).

    Raises
    ------
    ValueError
        If `p` or `ks` is empty, a chance is outside ``[0, 1]``, or a k,
        `tasks` or `evaluations` is not a positive integer.
    TypeError
        If `ks` is missing, or given both as ``ks=`` and ``k=``.

    Notes
    -----
    A task's passes are Binomial(k, p), drawn once per task: the same law as
    drawing its k runs one by one, at a cost that does not grow with k.

    Examples
    --------
    >>> sweep = simulate_sweep([0.8, 0.9], [1, 5], evaluations=2000, rng=0)
    >>> sweep.groupby(["p", "k"])[["pass_pow_k", "true_pow_k"]].mean().round(2)
          pass_pow_k  true_pow_k
    p   k
    0.8 1        0.80        0.80
        5        0.33        0.33
    0.9 1        0.90        0.90
        5        0.59        0.59
    """
    asked = renamed("k", "ks", k, ks)
    if asked is None:
        raise TypeError("simulate_sweep() needs ks, the runs per task: one k or several")
    ps = _grid("p", p, probability, "p")
    runs_per_task = _grid("ks", cast("int | Iterable[int]", asked), positive_int, "k")
    size = positive_int("tasks", tasks)
    repeats = positive_int("evaluations", evaluations)
    generator = np.random.default_rng(rng)
    grid_p = np.repeat(np.asarray(ps, dtype=np.float64), len(runs_per_task))
    grid_k = np.tile(np.asarray(runs_per_task, dtype=np.int64), len(ps))
    pass_at_1 = np.empty((len(grid_p), repeats))
    pass_pow_k = np.empty((len(grid_p), repeats))
    for row, (chance, runs) in enumerate(zip(grid_p, grid_k, strict=True)):
        passes = generator.binomial(runs, chance, (repeats, size))
        pass_at_1[row] = passes.sum(axis=1) / (size * runs)
        pass_pow_k[row] = (passes == runs).mean(axis=1)
    return pd.DataFrame(
        {
            "p": np.repeat(grid_p, repeats),
            "k": np.repeat(grid_k, repeats),
            "evaluation": np.tile(np.arange(repeats), len(grid_p)),
            "pass_at_1": pass_at_1.ravel(),
            "pass_pow_k": pass_pow_k.ravel(),
            "true_pow_k": np.repeat(grid_p**grid_k, repeats),
        }
    )
