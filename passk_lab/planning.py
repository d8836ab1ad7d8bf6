"""Planning an evaluation: how many tasks and runs, what per-run rate a target needs.

* :func:`plan_evaluation` -- tasks (and runs per task) for a chosen interval
  half-width on pass^k, at a guessed per-run pass rate and task heterogeneity;
* :func:`required_p` -- the per-run pass rate a system needs for a target
  pass^k if its runs were independent, ``target^(1/k)``;
* :func:`zero_failure_runs` -- how many consecutive passes demonstrate a
  per-run pass rate of at least ``p0`` at a confidence level.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._betabinom import outcome_chances
from passk_lab._checks import confidence, positive_int, probability
from passk_lab._data.cells import products
from passk_lab._interval import z_value
from passk_lab._typing import Floats
from passk_lab._warnings import UNSET, renamed

__all__ = ["plan_evaluation", "required_p", "zero_failure_runs"]


def required_p(target: float | npt.ArrayLike, k: int | npt.ArrayLike) -> float | Floats:
    """Return the per-run pass rate p with ``p^k = target``: ``target ** (1 / k)``.

    This is what independent runs demand. Real tasks differ in difficulty,
    which helps pass^k (the same tasks keep passing), so a heterogeneous
    system reaches the target with a lower mean rate; see
    :func:`~passk_lab.fit_betabinom`.

    Parameters
    ----------
    target : float or array_like
        The pass^k wanted, in [0, 1].
    k : int or array_like of int
        Runs that must all pass, ``>= 1``; broadcast against `target`.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(required_p(0.9, 5), 4)
    0.9791
    >>> required_p(0.5, [1, 2, 8]).round(4)
    array([0.5   , 0.7071, 0.917 ])
    """
    targets = np.asarray(target, dtype=np.float64)
    if not np.all((targets >= 0) & (targets <= 1)):
        raise ValueError(f"target must be a pass^k in [0, 1], got {target!r}")
    ks = np.vectorize(lambda value: positive_int("k", value), otypes=[np.int64])(np.asarray(k))
    result = targets ** (1.0 / ks)
    return float(result) if np.ndim(result) == 0 else result


def zero_failure_runs(p0: float, confidence_level: float = 0.95) -> int:
    """Return how many consecutive passes, with no failure, show a per-run rate ``>= p0``.

    If the true rate were below `p0`, `n` passes in a row would happen with
    chance below ``p0^n``; the smallest n with ``p0^n <= 1 - confidence_level``
    makes that chance small enough. The same n makes the one-sided
    Clopper-Pearson lower bound after n passes of n reach `p0`.

    Parameters
    ----------
    p0 : float
        The per-run pass rate to demonstrate, in (0, 1).
    confidence_level : float
        In (0, 1).

    Returns
    -------
    int

    Examples
    --------
    >>> zero_failure_runs(0.95)  # the "rule of three": about 3 / (1 - p0)
    59
    >>> zero_failure_runs(0.99, confidence_level=0.9)
    230
    """
    rate = probability("p0", p0)
    level = confidence(confidence_level)
    if not 0.0 < rate < 1.0:
        raise ValueError(f"p0 must be strictly between 0 and 1, got {rate}")
    runs = max(1, math.ceil(math.log1p(-level) / math.log(rate)))
    while runs > 1 and rate ** (runs - 1) <= 1.0 - level:  # guard the rounding of the logs
        runs -= 1
    while rate**runs > 1.0 - level:
        runs += 1
    return runs


def _task_spread(p: float, icc: float, runs: int, k: int) -> tuple[float, float]:
    """Mean and standard deviation of one task's pass^k estimate ``C(c, k) / C(n, k)``."""
    outcomes = np.arange(runs + 1, dtype=np.int64)
    chances = outcome_chances(p, icc, runs)
    values = products(np.full(len(outcomes), runs), outcomes, np.array([k]))[:, 0]
    mean = float(chances @ values)
    variance = float(chances @ values**2) - mean**2
    return mean, math.sqrt(max(variance, 0.0))


def plan_evaluation(
    half_width: float,
    p: float,
    k: int,
    *,
    runs_per_task: int | Iterable[int] | None = None,
    icc: float = 0.0,
    confidence_level: float = 0.95,
    runs: int | Iterable[int] | None = UNSET,
) -> pd.DataFrame:
    """Return how many tasks give a pass^k interval of a chosen half-width, per runs per task.

    The model: each task's per-run pass rate is drawn from a Beta
    distribution with mean `p` and intra-task correlation `icc` (``icc = 0``:
    every task has rate p), runs of a task are independent given its rate,
    and pass^k is estimated by the mean over tasks of ``C(c, k) / C(n, k)``.
    The number of tasks is the normal-approximation ``(z * sd / half_width)^2``,
    rounded up, with ``sd`` the exact standard deviation of one task's
    estimate under the model. More runs per task than k lower ``sd`` (each
    task's ``p^k`` is measured better) but never below the spread of the
    tasks' true ``p^k``.

    Parameters
    ----------
    half_width : float
        The interval half-width wanted, in (0, 0.5].
    p : float
        The guessed mean per-run pass rate, in (0, 1).
    k : int
        The pass^k to measure.
    runs_per_task : int or sequence of int, optional
        Runs per task to consider, each ``>= k``; by default k, 2k and 4k.
    icc : float
        Guessed intra-task correlation in [0, 1) (see
        :func:`~passk_lab.fit_betabinom`); 0 for identical tasks.
    confidence_level : float
        In (0, 1).
    runs : int or sequence of int, optional
        The old name of `runs_per_task`; deprecated, it goes in the next release.

    Returns
    -------
    DataFrame
        One row per runs-per-task value: ``[runs_per_task, n_tasks,
        total_runs, pass_pow_k, task_sd, half_width]``, where ``pass_pow_k``
        is the model's value and ``half_width`` the one ``n_tasks`` gives.

    Examples
    --------
    Identical tasks: more runs per task measure each task's ``p^k`` better
    and save tasks.

    >>> plan_evaluation(0.05, 0.85, 5).round(4)
       runs_per_task  n_tasks  total_runs  pass_pow_k  task_sd  half_width
    0              5      380        1900      0.4437   0.4968      0.0500
    1             10      156        1560      0.4437   0.3184      0.0500
    2             20       72        1440      0.4437   0.2162      0.0499

    Tasks that differ (icc = 0.3): the spread of the tasks themselves remains,
    so extra runs help less and tasks are what buys precision.

    >>> plan_evaluation(0.05, 0.85, 5, icc=0.3).round(4)
       runs_per_task  n_tasks  total_runs  pass_pow_k  task_sd  half_width
    0              5      364        1820      0.6173   0.4860      0.0499
    1             10      265        2650      0.6173   0.4150      0.0500
    2             20      228        4560      0.6173   0.3845      0.0499
    """
    width = float(half_width)
    if not 0.0 < width <= 0.5:
        raise ValueError(f"half_width must be in (0, 0.5], got {half_width!r}")
    rate = probability("p", p)
    if not 0.0 < rate < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, got {rate}")
    power = positive_int("k", k)
    correlation = probability("icc", icc)
    if correlation >= 1.0:
        raise ValueError("icc must be below 1 (at 1 every task always passes or always fails)")
    level = confidence(confidence_level)
    asked = renamed("runs", "runs_per_task", runs, runs_per_task)
    if asked is None:
        choices = [power, 2 * power, 4 * power]
    else:
        values = [asked] if isinstance(asked, int) else asked
        if not isinstance(values, Iterable):
            raise TypeError(f"runs_per_task must be an integer or integers, got {asked!r}")
        choices = [positive_int("runs_per_task", value) for value in values]
    if any(choice < power for choice in choices):
        raise ValueError(f"runs per task must be at least k = {power} to measure pass^{power}")
    z = z_value(level)
    rows = []
    for choice in choices:
        mean, spread = _task_spread(rate, correlation, choice, power)
        tasks = max(1, math.ceil((z * spread / width) ** 2 - 1e-9))
        rows.append(
            {
                "runs_per_task": choice,
                "n_tasks": tasks,
                "total_runs": tasks * choice,
                "pass_pow_k": mean,
                "task_sd": spread,
                "half_width": z * spread / math.sqrt(tasks),
            }
        )
    return pd.DataFrame(rows)
