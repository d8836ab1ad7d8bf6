"""Confidence intervals: binomial proportions, the task bootstrap, clustered standard errors.

Three kinds of uncertainty, each where it belongs:

* :func:`binomial_ci` -- a proportion of independent trials. pass^k is one
  when every task has exactly k runs: it is then the share of tasks (the
  trials) that passed all of them.
* :func:`task_bootstrap` -- any mean over tasks of per-task values (pass^k and
  pass@k with more runs than k, unequal runs, paired differences). Tasks are
  the independent units, so tasks are resampled with replacement; a resample
  of T tasks is one multinomial draw of T over the (n, c) cells, so the cost
  does not depend on T. :func:`two_level_bootstrap` also redraws the runs of
  every resampled task.
* :func:`pass_at_1_se` -- the standard error of pass@1 with runs clustered by
  task (Miller 2024, "Adding Error Bars to Evals"), beside the naive error that
  treats every run as independent.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias, overload

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special, stats

from passk_lab.histogram import Floats, Histogram
from passk_lab.outcomes import ErrorPolicy, Ints, as_tally

__all__ = [
    "BINOMIAL_METHODS",
    "BOOTSTRAP_METHODS",
    "ConfidenceInterval",
    "PassAt1Error",
    "binomial_ci",
    "pass_at_1_se",
    "task_bootstrap",
    "two_level_bootstrap",
]

BinomialMethod: TypeAlias = Literal[
    "wilson", "clopper_pearson", "jeffreys", "agresti_coull", "wald"
]
BootstrapMethod: TypeAlias = Literal["percentile", "bca"]
BINOMIAL_METHODS: tuple[str, ...] = (
    "wilson",
    "clopper_pearson",
    "jeffreys",
    "agresti_coull",
    "wald",
)
BOOTSTRAP_METHODS: tuple[str, ...] = ("percentile", "bca")


class ConfidenceInterval(NamedTuple):
    """Lower and upper confidence limits: floats, or arrays of the inputs' shape."""

    low: float | Floats
    high: float | Floats


def confidence(confidence_level: object) -> float:
    """Return `confidence_level` as a float in the open interval (0, 1), or raise."""
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(f"confidence_level must be a number in (0, 1), got {confidence_level!r}")
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ValueError(
            f"confidence_level must be strictly between 0 and 1 (0.95 for a 95% interval), "
            f"got {level}"
        )
    return level


def _counts(name: str, value: object) -> Floats:
    array = np.asarray(value)
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"{name} must be integer counts, got {value!r}")
    counts = array.astype(np.float64)
    if not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
        raise ValueError(f"{name} must be whole numbers, got {value!r}")
    return counts


@overload
def binomial_ci(
    successes: int,
    trials: int,
    *,
    confidence_level: float = ...,
    method: BinomialMethod = ...,
) -> ConfidenceInterval: ...
@overload
def binomial_ci(
    successes: npt.ArrayLike,
    trials: npt.ArrayLike,
    *,
    confidence_level: float = ...,
    method: BinomialMethod = ...,
) -> ConfidenceInterval: ...
def binomial_ci(
    successes: npt.ArrayLike,
    trials: npt.ArrayLike,
    *,
    confidence_level: float = 0.95,
    method: BinomialMethod = "wilson",
) -> ConfidenceInterval:
    """Two-sided confidence interval for a binomial proportion ``successes / trials``.

    Parameters
    ----------
    successes, trials : int or array_like of int
        Counts, broadcast against each other; ``0 <= successes <= trials`` and
        ``trials >= 1``.
    confidence_level : float
        In (0, 1); 0.95 for a 95% interval.
    method : {"wilson", "clopper_pearson", "jeffreys", "agresti_coull", "wald"}
        ``wilson`` (score interval; the default, good coverage at any n),
        ``clopper_pearson`` (exact, conservative: coverage at least the level),
        ``jeffreys`` (equal-tailed Beta(1/2, 1/2) posterior interval, with the
        lower limit 0 at no successes and the upper limit 1 at all successes,
        as Brown, Cai and DasGupta 2001 define it), ``agresti_coull`` (Wald on
        the counts plus z^2/2 successes and failures), ``wald`` (the normal
        approximation; undercovers badly near 0 and 1 and collapses to a point
        there, so never the choice for pass^k). ``wilson``, ``agresti_coull``
        and ``wald`` limits are clipped to [0, 1].

    Returns
    -------
    ConfidenceInterval
        ``(low, high)``: floats for scalar inputs, arrays otherwise.

    Raises
    ------
    ValueError
        If ``trials < 1``, ``successes`` is outside ``[0, trials]``, a count is
        fractional, the level is outside (0, 1) or the method is unknown.

    Examples
    --------
    >>> low, high = binomial_ci(18, 40)
    >>> round(low, 4), round(high, 4)
    (0.3071, 0.6017)
    >>> binomial_ci(0, 10, method="clopper_pearson").low
    0.0
    >>> binomial_ci([0, 5, 10], 10).high.round(4)
    array([0.2775, 0.7634, 1.    ])
    """
    level = confidence(confidence_level)
    if method not in BINOMIAL_METHODS:
        raise ValueError(f"method must be one of {', '.join(BINOMIAL_METHODS)}; got {method!r}")
    s, t = np.broadcast_arrays(_counts("successes", successes), _counts("trials", trials))
    if np.any(t < 1):
        raise ValueError(
            f"trials must be at least 1 (a proportion of no trials has no interval), got {trials!r}"
        )
    if np.any((s < 0) | (s > t)):
        raise ValueError(
            f"successes must be between 0 and trials, got successes={successes!r}, "
            f"trials={trials!r}"
        )
    tail = (1.0 - level) / 2.0
    z = float(stats.norm.isf(tail))
    p = s / t
    with np.errstate(divide="ignore", invalid="ignore"):
        if method in ("clopper_pearson", "jeffreys"):
            if method == "clopper_pearson":
                low_shape, high_shape = (s, t - s + 1), (s + 1, t - s)
            else:
                low_shape = high_shape = (s + 0.5, t - s + 0.5)
            low = np.where(s == 0, 0.0, stats.beta.ppf(tail, *low_shape))
            high = np.where(s == t, 1.0, stats.beta.isf(tail, *high_shape))
        else:
            if method == "wilson":
                scale = 1.0 + z**2 / t
                center = (p + z**2 / (2 * t)) / scale
                half = z * np.sqrt(p * (1 - p) / t + z**2 / (4 * t**2)) / scale
            elif method == "agresti_coull":
                size = t + z**2
                center = (s + z**2 / 2) / size
                half = z * np.sqrt(center * (1 - center) / size)
            else:
                center = p
                half = z * np.sqrt(p * (1 - p) / t)
            low = np.clip(center - half, 0.0, 1.0)
            high = np.clip(center + half, 0.0, 1.0)
    if np.ndim(successes) == 0 and np.ndim(trials) == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64))


# --- the task bootstrap over the (n, c) histogram ------------------------------------------


def weighted_means(weights: npt.NDArray[np.int64], values: Floats) -> Floats:
    """Task-weighted means of cell values, per resample (rows) and column; NaN if none counted.

    `weights` is resamples x cells (tasks drawn from each cell); `values` is
    cells x columns, NaN where a cell is not counted for a column.
    """
    counted = np.isfinite(values)
    # one float product for the sums and the counts: cheaper than two, or than int @ float
    both = np.asarray(weights, dtype=np.float64) @ np.hstack(
        [np.where(counted, values, 0.0), counted]
    )
    totals, tasks = both[:, : values.shape[1]], both[:, values.shape[1] :]
    means: Floats = np.divide(totals, tasks, out=np.full(totals.shape, np.nan), where=tasks > 0)
    return means


def _limits(
    replicates: Floats, estimate: Floats, low_q: Floats, high_q: Floats
) -> ConfidenceInterval:
    """Quantiles of each column's finite replicates; NaN where the estimate is NaN."""
    low = np.full(replicates.shape[1], np.nan)
    high = np.full(replicates.shape[1], np.nan)
    for column in np.flatnonzero(np.isfinite(estimate)):
        values = replicates[:, column]
        values = values[np.isfinite(values)]
        low[column], high[column] = np.quantile(values, [low_q[column], high_q[column]])
    return ConfidenceInterval(low, high)


def _acceleration(tasks: Ints, values: Floats) -> Floats:
    """BCa acceleration from the jackknife over tasks, computed once per cell.

    Leaving out one task of cell j changes a column's mean to
    ``(S - v_j) / (N - 1)``; tasks of a cell that is not counted for the
    column leave it unchanged.
    """
    counted = np.isfinite(values)
    weight = tasks[:, None] * counted
    total = (weight * np.where(counted, values, 0.0)).sum(axis=0)
    size = weight.sum(axis=0)
    estimate = np.divide(total, size, out=np.full(total.shape, np.nan), where=size > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        left_out = np.where(counted, (total - values) / (size - 1), estimate)
    mean = (tasks[:, None] * left_out).sum(axis=0) / tasks.sum()
    gap = mean - left_out
    spread = (tasks[:, None] * gap**2).sum(axis=0)
    skew = (tasks[:, None] * gap**3).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        acceleration = skew / (6.0 * spread**1.5)
    return np.where(np.isfinite(acceleration), acceleration, 0.0)


def _bca_levels(
    replicates: Floats, estimate: Floats, acceleration: Floats, level: float
) -> tuple[Floats, Floats]:
    """Return the BCa percentiles (Efron and Tibshirani 1993, eq. 14.10), per column."""
    finite = np.isfinite(replicates)
    size = finite.sum(axis=0)
    # a resample that reproduces the data's mean is a tie, whatever the last bits of the sums
    tie = 1e-12 * np.maximum(np.abs(estimate), 1.0)
    below = (replicates < estimate - tie).sum(axis=0) + (replicates <= estimate + tie).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = below / (2.0 * size)
    # a resample never below (or above) the estimate would make the bias correction infinite
    share = np.clip(share, 0.5 / np.maximum(size, 1), 1 - 0.5 / np.maximum(size, 1))
    bias = special.ndtri(share)
    z = special.ndtri((1.0 - level) / 2.0)
    levels = []
    for zq in (z, -z):
        shifted = bias + zq
        levels.append(special.ndtr(bias + shifted / (1.0 - acceleration * shifted)))
    return levels[0], levels[1]


def _tails(level: float, columns: int) -> tuple[Floats, Floats]:
    tail = (1.0 - level) / 2.0
    return np.full(columns, tail), np.full(columns, 1.0 - tail)


_BLOCK = 4_000_000  # resamples x cells held in memory at once


def _blocks(n_resamples: int, cells: int) -> list[int]:
    """Split `n_resamples` into blocks of at most ``_BLOCK / cells`` resamples."""
    size = max(1, _BLOCK // max(cells, 1))
    return [min(size, n_resamples - start) for start in range(0, n_resamples, size)]


def _resample_cells(tasks: Ints, n_resamples: int, rng: np.random.Generator) -> Ints:
    total = int(tasks.sum())
    weights: Ints = rng.multinomial(total, tasks / total, size=n_resamples)
    return weights


def task_bootstrap(
    tasks: Ints,
    values: Floats,
    *,
    method: BootstrapMethod = "bca",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: np.random.Generator,
) -> ConfidenceInterval:
    """Bootstrap interval of task-weighted means of cell values, resampling tasks.

    Parameters
    ----------
    tasks : ndarray of int, shape (cells,)
        How many tasks each cell holds.
    values : ndarray of float, shape (cells, columns)
        Each cell's value for each statistic; NaN where the cell's tasks are
        not counted (a task with fewer runs than k).
    method : {"percentile", "bca"}
        Percentile interval, or bias-corrected and accelerated (Efron 1987;
        the acceleration from the jackknife over tasks).
    n_resamples : int
        Bootstrap resamples.
    confidence_level : float
        In (0, 1).
    rng : numpy.random.Generator
        The source of the multinomial draws.

    Returns
    -------
    ConfidenceInterval
        Arrays with one limit per column; NaN where no task is counted.

    Notes
    -----
    Resampling T tasks with replacement and tallying them by cell is a
    multinomial draw of T over the cells' shares, so a resample costs time in
    the number of cells, whatever the number of tasks. Percentiles use linear
    interpolation, as :func:`scipy.stats.bootstrap` does.

    Examples
    --------
    >>> import numpy as np
    >>> tasks = np.array([30, 70])  # 30 tasks failed, 70 passed
    >>> values = np.array([[0.0], [1.0]])
    >>> low, high = task_bootstrap(tasks, values, rng=np.random.default_rng(0))
    >>> float(low[0]), float(high[0])
    (0.6, 0.78)
    """
    level = confidence(confidence_level)
    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"method must be one of {', '.join(BOOTSTRAP_METHODS)}; got {method!r}")
    replicates = np.concatenate(
        [
            weighted_means(_resample_cells(tasks, size, rng), values)
            for size in _blocks(n_resamples, len(tasks))
        ]
    )
    estimate = weighted_means(tasks[None, :], values)[0]
    if method == "percentile":
        return _limits(replicates, estimate, *_tails(level, values.shape[1]))
    low_q, high_q = _bca_levels(replicates, estimate, _acceleration(tasks, values), level)
    return _limits(replicates, estimate, low_q, high_q)


def two_level_bootstrap(
    n: Ints,
    c: Ints,
    tasks: Ints,
    values_of: Callable[[Ints, Ints], Floats],
    *,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: np.random.Generator,
) -> ConfidenceInterval:
    """Percentile interval from resampling tasks, then the runs within each resampled task.

    A resampled task with n runs and c passes gets new passes drawn from
    Binomial(n, c/n). Task resampling alone already carries run-to-run noise
    (each task's value is computed from its own noisy runs), so this adds it a
    second time: the intervals are wider than the task bootstrap's and
    conservative. It answers "what if the runs had come out differently too".

    Redrawing runs from a task's observed rate moves values that are not
    linear in c: a task's pass^k estimate ``C(c, k) / C(n, k)`` becomes, on
    average, the plug-in ``(c / n)^k``, which is larger. The replicates are
    therefore shifted back by that expected move, computed exactly for each
    resample of tasks (and clipped to [0, 1]), before the percentiles are
    taken.

    Parameters
    ----------
    n, c, tasks : ndarray of int, shape (cells,)
        The (n, c) cells and how many tasks each holds.
    values_of : callable
        ``values_of(n, c)`` returns every cell's values, shape (cells, columns),
        NaN where not counted.
    n_resamples : int
        Bootstrap resamples.
    confidence_level : float
        In (0, 1).
    rng : numpy.random.Generator
        The source of the draws.

    Returns
    -------
    ConfidenceInterval
        Arrays with one limit per column.
    """
    level = confidence(confidence_level)
    chances = []
    for cell in range(len(n)):
        chance = stats.binom.pmf(np.arange(n[cell] + 1), n[cell], c[cell] / n[cell])
        chances.append(chance / chance.sum())
    redrawn_n = np.repeat(n, n + 1)
    redrawn_c = np.concatenate([np.arange(size + 1) for size in n])
    values = values_of(redrawn_n, redrawn_c)
    observed = values_of(n, c)
    # each cell's value once its runs are redrawn, on average: (c/n)^k for pass^k
    starts = np.concatenate([[0], np.cumsum(n + 1)])
    expected = np.stack(
        [
            chance @ values[start:end]
            for chance, start, end in zip(chances, starts[:-1], starts[1:], strict=True)
        ]
    )
    blocks = []
    for size in _blocks(n_resamples, len(redrawn_n)):
        weights = _resample_cells(tasks, size, rng)
        redrawn = np.concatenate(
            [rng.multinomial(weights[:, cell], chance) for cell, chance in enumerate(chances)],
            axis=1,
        )
        moved = weighted_means(redrawn, values) - weighted_means(weights, expected - observed)
        blocks.append(np.clip(moved, 0.0, 1.0))
    replicates = np.concatenate(blocks)
    estimate = weighted_means(tasks[None, :], observed)[0]
    return _limits(replicates, estimate, *_tails(level, values.shape[1]))


# --- the standard error of pass@1 ----------------------------------------------------------


@dataclass(frozen=True)
class PassAt1Error:
    """pass@1 with its standard error, runs clustered by task, and the naive one beside it.

    Attributes
    ----------
    estimate : float
        pass@1, the mean over tasks of ``c / n``.
    se_clustered : float
        Standard error treating tasks as the independent units:
        ``sd(c_i / n_i) / sqrt(T)`` (sample standard deviation over the T tasks).
    se_naive : float
        Standard error if every run were independent with one chance
        ``estimate``: ``sqrt(sum_i p(1 - p) / n_i) / T``, which is
        ``sqrt(p(1 - p) / runs)`` when every task has the same runs.
    design_effect : float
        ``(se_clustered / se_naive)^2``: how many times more variance the
        clustering causes. With n runs per task and intra-task correlation
        rho it is about ``1 + (n - 1) rho``.
    n_tasks, n_runs : int
        Tasks and runs counted.
    """

    estimate: float
    se_clustered: float
    se_naive: float
    design_effect: float
    n_tasks: int
    n_runs: int

    def confidence_interval(
        self,
        confidence_level: float = 0.95,
        method: Literal["clustered", "naive"] = "clustered",
    ) -> ConfidenceInterval:
        """Return the normal interval ``estimate ± z * se``, clipped to [0, 1].

        Parameters
        ----------
        confidence_level : float
            In (0, 1).
        method : {"clustered", "naive"}
            Which standard error; the naive one is too narrow whenever tasks
            differ in difficulty.

        Returns
        -------
        ConfidenceInterval
        """
        level = confidence(confidence_level)
        if method not in ("clustered", "naive"):
            raise ValueError(f"method must be 'clustered' or 'naive', got {method!r}")
        se = self.se_clustered if method == "clustered" else self.se_naive
        half = float(stats.norm.isf((1.0 - level) / 2.0)) * se
        return ConfidenceInterval(max(self.estimate - half, 0.0), min(self.estimate + half, 1.0))

    def to_frame(self) -> pd.DataFrame:
        """Return the fields as a one-row DataFrame."""
        return pd.DataFrame([self.__dict__])


def cell_se(n: Ints, c: Ints, tasks: Ints) -> tuple[float, float, float]:
    """Return pass@1, its clustered and its naive standard error from (n, c) cells."""
    share = c / n
    total = int(tasks.sum())
    estimate = float((tasks * share).sum() / total)
    spread = float((tasks * (share - estimate) ** 2).sum())
    clustered = np.sqrt(spread / (total * (total - 1))) if total > 1 else np.nan
    naive = np.sqrt(estimate * (1 - estimate) * (tasks / n).sum()) / total
    return estimate, float(clustered), float(naive)


def pass_at_1_se(runs: pd.DataFrame | np.ndarray, *, errors: ErrorPolicy = "fail") -> PassAt1Error:
    """Return pass@1 with its clustered standard error and the naive one.

    Runs of one task are not independent: a hard task fails again and again.
    Treating every run as a separate trial understates the uncertainty; the
    clustered standard error treats the tasks as the units, as Miller (2024,
    "Adding Error Bars to Evals") recommends.

    Parameters
    ----------
    runs : DataFrame or numpy.ndarray
        A runs table, an outcome matrix or a tally, of one agent (no groups;
        call once per group).
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.

    Returns
    -------
    PassAt1Error

    Notes
    -----
    With equal runs per task, ``se_clustered`` equals the cluster-robust
    standard error of the mean of all runs with the usual ``T / (T - 1)``
    correction, and ``se_naive`` the binomial ``sqrt(p (1 - p) / runs)``.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"task": range(4), "n": 10, "c": [0, 2, 9, 10]})
    >>> error = pass_at_1_se(counts)
    >>> error.estimate, round(error.se_clustered, 4), round(error.se_naive, 4)
    (0.525, 0.2496, 0.079)
    >>> round(error.design_effect, 2)
    9.99
    """
    summary = as_tally(runs, None, errors=errors)
    histogram = Histogram.from_tally(summary)
    keep = histogram.n > 0
    n, c, tasks = histogram.n[keep], histogram.c[keep], histogram.tasks[keep]
    if not len(n):
        raise ValueError("no task has a run to count; pass@1 needs at least one run")
    estimate, clustered, naive = cell_se(n, c, tasks)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = float(np.float64(clustered) ** 2 / np.float64(naive) ** 2)
    return PassAt1Error(
        estimate=estimate,
        se_clustered=clustered,
        se_naive=naive,
        design_effect=effect,
        n_tasks=int(tasks.sum()),
        n_runs=int((n * tasks).sum()),
    )
