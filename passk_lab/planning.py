"""Planning an evaluation: how many tasks and runs, what per-run rate a target needs.

* :func:`plan_evaluation` -- tasks (and runs per task) for a chosen interval
  half-width on pass^k, at a guessed per-run pass rate and task heterogeneity
  (the search for them is in ``_plan_search``);
* :func:`required_p` -- the per-run pass rate a system needs for a target
  pass^k if its runs were independent, ``target^(1/k)``;
* :func:`zero_failure_runs` -- how many consecutive passes demonstrate a
  per-run pass rate of at least ``p0`` at a confidence level.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._checks import confidence, positive_int, probability
from passk_lab._goodness_of_fit import outcome_chances
from passk_lab._plan_search import TaskLaw, plan_row
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

    Raises
    ------
    ValueError
        If a target is outside [0, 1] or a k below 1.

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


def _fewest_powers(chance: float, tail: float) -> int:
    """Return the smallest n >= 1 with ``chance^n <= tail``, for chance and tail in (0, 1)."""
    count = max(1, math.ceil(math.log(tail) / math.log(chance)))
    while count > 1 and chance ** (count - 1) <= tail:  # guard the rounding of the logs
        count -= 1
    while chance**count > tail:
        count += 1
    return count


def zero_failure_runs(
    p0: float,
    confidence_level: float = 0.95,
    *,
    icc: float = 0.0,
    runs_per_task: int | None = None,
) -> int:
    """Return how many consecutive passes, with no failure, show a pass rate ``>= p0``.

    **Independent runs** (the default): if every run is an independent trial
    that passes with chance below `p0`, n passes in a row happen with chance
    below ``p0^n``; the smallest n with ``p0^n <= 1 - confidence_level`` makes
    that chance small enough. The same n makes the one-sided Clopper-Pearson
    lower bound after n passes of n reach `p0`. The assumption holds for the
    runs of one fixed task (the answer shows *that task's* rate is at least
    `p0`) and for runs each on a task freshly drawn from the population (it
    shows the population's mean rate). It does not hold for the population's
    mean rate when runs share tasks: an easy task passes again and again, so
    a run of passes on a few tasks is far likelier than ``p0^n``.

    **Tasks that differ** (`icc` and `runs_per_task`): task rates are drawn
    from a Beta distribution with mean `p0` and intra-task correlation `icc`
    (see :func:`~passk_lab.fit_betabinom`), each of T fresh tasks gets
    `runs_per_task` runs, and a task passes all r of them with chance
    ``E[p^r] = B(alpha + r, beta) / B(alpha, beta)``. The answer is
    ``T * runs_per_task`` for the smallest T with
    ``E[p^r]^T <= 1 - confidence_level``: a population with mean rate `p0`
    and that heterogeneity passes every one of those runs with chance at most
    ``1 - confidence_level``, so passing them all shows the mean rate is
    above `p0` -- under the assumed `icc`. Tasks that differ more pass all
    their runs more often (for ``r >= 2``), so assume the largest icc you
    find plausible. One run per task needs exactly the independent answer.

    Parameters
    ----------
    p0 : float
        The pass rate to demonstrate, in (0, 1): per run, or the population's
        mean per-run rate when tasks differ.
    confidence_level : float
        In (0, 1).
    icc : float, keyword-only
        Intra-task correlation of the population's task rates, in [0, 1);
        0 (the default) for independent runs. Needs `runs_per_task` when
        above 0.
    runs_per_task : int, optional, keyword-only
        Runs each task gets, ``>= 1``. By default every run is independent
        (one fixed task, or a fresh task for each run).

    Returns
    -------
    int
        The runs, all of which must pass: a multiple of `runs_per_task`
        when given (the tasks are that number divided by `runs_per_task`).

    Raises
    ------
    ValueError
        If `p0` is not strictly between 0 and 1, the level not in (0, 1), `icc`
        outside [0, 1), or `icc` above 0 without `runs_per_task`.

    Examples
    --------
    >>> zero_failure_runs(0.95)  # the "rule of three": about 3 / (1 - p0)
    59
    >>> zero_failure_runs(0.99, confidence_level=0.9)
    230

    Tasks that differ (icc 0.1 around a mean of 0.95): 59 straight passes on
    one task happen 39% of the time, so they show little about the mean: four
    such tasks are needed. Five runs on each of 15 tasks do it in 75 runs.

    >>> zero_failure_runs(0.95, icc=0.1, runs_per_task=59)
    236
    >>> zero_failure_runs(0.95, icc=0.1, runs_per_task=5)
    75
    """
    rate = probability("p0", p0)
    level = confidence(confidence_level)
    if not 0.0 < rate < 1.0:
        raise ValueError(f"p0 must be strictly between 0 and 1, got {rate}")
    correlation = probability("icc", icc)
    if correlation >= 1.0:
        raise ValueError("icc must be below 1 (at 1 every task always passes or always fails)")
    if runs_per_task is None:
        if correlation > 0.0:
            raise ValueError(
                f"icc = {correlation} needs runs_per_task, the runs each task gets: with "
                "independent runs (one fixed task, or a fresh task for every run) icc does "
                "not matter, so leave it at 0"
            )
        return _fewest_powers(rate, 1.0 - level)
    per_task = positive_int("runs_per_task", runs_per_task)
    all_pass = float(outcome_chances(rate, correlation, per_task)[-1])  # E[p^r]
    return per_task * _fewest_powers(all_pass, 1.0 - level)


def plan_evaluation(
    half_width: float,
    p: float,
    k: int,
    *,
    confidence_level: float = 0.95,
    runs_per_task: int | Iterable[int] | None = None,
    icc: float = 0.0,
    assurance: float | None = 0.8,
    runs: int | Iterable[int] | None = UNSET,
) -> pd.DataFrame:
    """Return how many tasks give a pass^k interval of a chosen half-width, per runs per task.

    The model: each task's per-run pass rate is drawn from a Beta
    distribution with mean `p` and intra-task correlation `icc` (``icc = 0``:
    every task has rate p), runs of a task are independent given its rate,
    and pass^k is estimated by the mean over tasks of ``C(c, k) / C(n, k)``.
    The interval planned for is the one :func:`~passk_lab.reliability_curve`
    reports by default (``method="auto"``); a plan takes no ``method``, as
    the other intervals' laws over evaluations have no closed form and a
    bootstrap of each of thousands of simulated evaluations would cost
    minutes. The half-width an evaluation gets depends on the tasks drawn,
    so the plan asks for the fewest tasks with which `assurance` of the
    evaluations reach `half_width` (exact at k runs per task, simulated with
    a fixed seed otherwise); docs/uncertainty.md ("Planning an evaluation"
    and "How a plan is found") says how and what it costs.

    Parameters
    ----------
    half_width : float
        The interval half-width wanted, in (0, 0.5].
    p : float
        The guessed mean per-run pass rate, in (0, 1).
    k : int
        The pass^k to measure.
    confidence_level : float
        In (0, 1).
    runs_per_task : int or sequence of int, optional
        Runs per task to consider, each ``>= k``; by default k, 2k and 4k.
    icc : float
        Guessed intra-task correlation in [0, 1) (see
        :func:`~passk_lab.fit_betabinom`); 0 for identical tasks.
    assurance : float or None
        The chance, in (0, 1), that half an evaluation's interval width,
        ``(high - low) / 2``, is at most `half_width`; 0.8 by default. None
        plans the normal approximation's expected half-width instead,
        ``(z * sd / half_width)^2`` tasks rounded up.
    runs : int or sequence of int, optional
        The old name of `runs_per_task`; deprecated, it goes in the next release.

    Returns
    -------
    DataFrame
        One row per runs-per-task value: ``[runs_per_task, n_tasks,
        total_runs, pass_pow_k, task_sd, half_width, assurance]``, where
        ``pass_pow_k`` is the model's value, ``task_sd`` the standard
        deviation of one task's estimate, and ``assurance`` the chance that
        an evaluation of ``n_tasks`` tasks reaches the `half_width` asked
        for. ``half_width`` is the assured half-width: half the reported
        interval's width is at most that with chance `assurance`. With
        ``assurance=None`` it is the normal approximation
        ``z * sd / sqrt(n_tasks)``.

    Raises
    ------
    ValueError
        If a number is out of its range (the message names it), or a runs
        per task is below k.
    TypeError
        If `assurance` is neither a number nor None, or a runs per task is
        not an integer.

    Examples
    --------
    Identical tasks: each extra k runs of a task count as one more task, so
    more runs per task save tasks, not runs.

    >>> columns = ["runs_per_task", "n_tasks", "total_runs", "half_width", "assurance"]
    >>> plan_evaluation(0.05, 0.85, 5)[columns].round(3)
       runs_per_task  n_tasks  total_runs  half_width  assurance
    0              5      400        2000        0.05      0.844
    1             10      200        2000        0.05      0.873
    2             20      100        2000        0.05      0.857

    The expected-half-width plan needs fewer tasks, and rarely reaches the half-width.

    >>> plan_evaluation(0.05, 0.85, 5, assurance=None)[columns].round(3)
       runs_per_task  n_tasks  total_runs  half_width  assurance
    0              5      380        1900        0.05      0.008
    1             10      156        1560        0.05      0.000
    2             20       72        1440        0.05      0.000

    Tasks that differ (icc = 0.3): extra runs help less, and tasks are what buys precision.

    >>> plan_evaluation(0.05, 0.85, 5, icc=0.3)[["runs_per_task", "n_tasks", "task_sd"]].round(3)
       runs_per_task  n_tasks  task_sd
    0              5      388    0.486
    1             10      288    0.415
    2             20      250    0.385
    """
    width, rate, power, correlation, level, wanted = _plan_settings(
        half_width, p, k, icc, confidence_level, assurance
    )
    choices = _runs_choices(renamed("runs", "runs_per_task", runs, runs_per_task), power)
    rows = [
        plan_row(TaskLaw.of(rate, correlation, choice, power), width, level, wanted)
        for choice in choices
    ]
    return pd.DataFrame(rows)


def _plan_settings(
    half_width: float, p: float, k: int, icc: float, confidence_level: float, assurance: object
) -> tuple[float, float, int, float, float, float | None]:
    """Check a plan's numbers: the half-width, rate, k, icc, level and assurance, in that order."""
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
    if assurance is None:
        return width, rate, power, correlation, level, None
    if isinstance(assurance, bool) or not isinstance(assurance, numbers.Real):
        raise TypeError(f"assurance must be a number in (0, 1) or None, got {assurance!r}")
    wanted = float(assurance)
    if not 0.0 < wanted < 1.0:  # NaN fails this test too
        raise ValueError(
            f"assurance must be strictly between 0 and 1 (0.8: 80% of evaluations reach "
            f"the half-width), or None for the expected half-width; got {wanted}"
        )
    return width, rate, power, correlation, level, wanted


def _runs_choices(asked: object, power: int) -> list[int]:
    """Return the runs per task to plan for: `asked`, or k, 2k and 4k; each at least k."""
    if asked is None:
        choices = [power, 2 * power, 4 * power]
    else:
        values = [asked] if isinstance(asked, int) else asked
        if not isinstance(values, Iterable):
            raise TypeError(f"runs_per_task must be an integer or integers, got {asked!r}")
        choices = [positive_int("runs_per_task", value) for value in values]
    if any(choice < power for choice in choices):
        raise ValueError(f"runs per task must be at least k = {power} to measure pass^{power}")
    return choices
