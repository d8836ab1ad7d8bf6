"""Confidence intervals: binomial proportions, means over tasks, clustered standard errors.

Three kinds of uncertainty, each where it belongs:

* :func:`binomial_ci` -- a proportion of independent trials. pass^k is one
  when every task has exactly k runs: it is then the share of tasks (the
  trials) that passed all of them.
* a mean over tasks of per-task values (pass^k and pass@k with more runs
  than k, unequal runs, paired differences), which
  :func:`~passk_lab.reliability_curve` and :func:`~passk_lab.compare` report:
  tasks are the independent units. The default intervals are closed form and
  chosen by measured coverage (docs/uncertainty.md); the task bootstrap is an
  option.
* :func:`pass_at_1_se` -- the standard error of pass@1 with runs clustered by
  task (Miller 2024, "Adding Error Bars to Evals"), beside the naive error that
  treats every run as independent, and the interval of pass@1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._checks import confidence
from passk_lab._choices import BINOMIAL_METHODS, BinomialMethod, SEMethod
from passk_lab._data.cells import Cells
from passk_lab._data.rules import ErrorPolicy
from passk_lab._data.tally import TallyInput, as_tally
from passk_lab._errors import with_keywords
from passk_lab._interval import (
    ConfidenceInterval,
    binomial_limits,
    normal_interval,
    pass_at_1_errors,
)
from passk_lab._interval_policy import IntervalSpec, curve_intervals
from passk_lab._summary import SUMMARY_LEVEL, Estimate, summary_html, summary_repr
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import (
    FewTasksWarning,
    PasskDeprecationWarning,
    warn,
)

__all__ = [
    "BINOMIAL_METHODS",
    "BinomialMethod",
    "ConfidenceInterval",
    "PassAt1SE",
    "binomial_ci",
    "pass_at_1_se",
]


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
        ``wilson`` (score interval; the default: close to the level on
        average, but its exact coverage dips to 0.85-0.92 at 95% when the
        proportion is within a few trials of 0 or 1),
        ``clopper_pearson`` (exact, conservative: coverage at least the level
        at every proportion; what :func:`~passk_lab.reliability_curve` uses),
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
    low, high = binomial_limits(s, t, level, method)
    if np.ndim(successes) == 0 and np.ndim(trials) == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64))


@dataclass(frozen=True)
class PassAt1SE:
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
    cells: tuple[Ints, Ints, Ints] | None = field(default=None, repr=False, compare=False)
    """The (n, c, tasks) cells counted, for the ``"auto"`` interval."""

    def __repr__(self) -> str:
        """Return one line: pass@1 and its 95% interval, both standard errors, the counts.

        The interval is :meth:`confidence_interval`'s default, the one the k = 1
        row of :func:`~passk_lab.reliability_curve` gives (closed form: nothing
        is drawn); none is shown without the tasks' cells or with one task.

        Examples
        --------
        >>> import passk_lab as pk
        >>> pk.pass_at_1_se(pk.simulate_coin(seed=42))
        PassAt1SE(estimate=0.86 (95% CI [0.787, 0.915]), se_clustered=0.0229, se_naive=0.0245,
                  design_effect=0.869, n_tasks=40, n_runs=200)
        """
        return summary_repr(
            type(self).__name__,
            [
                ("estimate", self._estimate()),
                ("se_clustered", self.se_clustered),
                ("se_naive", self.se_naive),
                ("design_effect", self.design_effect),
                ("n_tasks", self.n_tasks),
                ("n_runs", self.n_runs),
            ],
        )

    def _repr_html_(self) -> str:
        """Return the summary as an HTML table, for Jupyter, pass@1 with its 95% interval.

        Examples
        --------
        >>> import passk_lab as pk
        >>> "runs clustered by task" in pk.pass_at_1_se(pk.simulate_coin(seed=42))._repr_html_()
        True
        """
        return summary_html(
            type(self).__name__,
            [
                ("pass@1", self._estimate()),
                ("standard error, runs clustered by task", self.se_clustered),
                ("standard error, runs as independent", self.se_naive),
                ("design effect (variance ratio)", self.design_effect),
                ("tasks", self.n_tasks),
                ("runs", self.n_runs),
            ],
            notes=[
                "The interval is confidence_interval()'s default, the one pk.reliability_curve "
                "gives pass@1 (tasks as the units; closed form)."
            ]
            if self.cells is not None
            else [],
        )

    def _estimate(self) -> Estimate | float:
        """Return pass@1 with the default 95% interval, or alone without the tasks' cells."""
        if self.cells is None:
            return self.estimate
        low, high = default_intervals(*self.cells, 1, SUMMARY_LEVEL)[0]
        return Estimate(self.estimate, float(low), float(high), SUMMARY_LEVEL)

    @classmethod
    def from_cells(cls, n: Ints, c: Ints, tasks: Ints) -> PassAt1SE:
        """Return pass@1 and its errors from (n, c) cells holding `tasks` tasks each (n >= 1).

        Examples
        --------
        >>> import numpy as np
        >>> PassAt1SE.from_cells(np.array([4]), np.array([2]), np.array([10])).estimate
        0.5
        """
        estimate, clustered, naive = pass_at_1_errors(n, c, tasks)
        with np.errstate(divide="ignore", invalid="ignore"):
            effect = float(np.float64(clustered) ** 2 / np.float64(naive) ** 2)
        return cls(
            estimate=estimate,
            se_clustered=clustered,
            se_naive=naive,
            design_effect=effect,
            n_tasks=int(tasks.sum()),
            n_runs=int((n * tasks).sum()),
            cells=(n, c, tasks),
        )

    def confidence_interval(
        self,
        confidence_level: float = 0.95,
        method: SEMethod = "auto",
    ) -> ConfidenceInterval:
        """Return an interval of pass@1 for a new task from the same population.

        Parameters
        ----------
        confidence_level : float
            In (0, 1).
        method : {"auto", "clustered", "naive"}
            ``"auto"`` (the default): the interval the k = 1 row of
            :func:`~passk_lab.reliability_curve` has, Clopper-Pearson on an
            effective number of tasks (the variance of the tasks' c/n with a
            pseudo-task at 0 and one at 1; see
            docs/uncertainty.md; it holds its level at 20 tasks and near 0
            and 1, and is never a point). ``"clustered"``: the normal interval
            ``estimate ± z * se_clustered``, clipped to [0, 1], which
            undercovers near 0 and 1 and is the point [0, 0] when every run
            failed. ``"naive"``: the same with ``se_naive``, too narrow
            whenever tasks differ in difficulty.

        Returns
        -------
        ConfidenceInterval
            NaN limits with a warning when fewer than two tasks are counted.

        Examples
        --------
        >>> import pandas as pd
        >>> failed = pd.DataFrame({"task": range(20), "n": 3, "c": 0})
        >>> low, high = pass_at_1_se(failed).confidence_interval()
        >>> low, round(high, 4)
        (0.0, 0.1684)
        """
        level = confidence(confidence_level)
        if method == "auto":
            if self.cells is None:
                raise with_keywords(
                    ValueError(
                        "the 'auto' interval needs the tasks' (n, c) cells, which this PassAt1SE "
                        "does not hold: build it with pass_at_1_se(runs) or PassAt1SE.from_cells, "
                        "or ask for method='clustered'"
                    ),
                    "method",
                )
            if self.n_tasks < 2:
                warn(
                    FewTasksWarning(
                        "the interval of pass@1 is NaN: one task says nothing about the next "
                        "one; evaluate more tasks",
                        tasks=self.n_tasks,
                    )
                )
            return default_intervals(*self.cells, 1, level)[0]
        if method not in ("clustered", "naive"):
            raise ValueError(f"method must be 'auto', 'clustered' or 'naive', got {method!r}")
        se = self.se_clustered if method == "clustered" else self.se_naive
        return normal_interval(self.estimate, se, level)

    def to_frame(self) -> pd.DataFrame:
        """Return the fields (not the cells) as a one-row DataFrame.

        Examples
        --------
        >>> import passk_lab as pk
        >>> pk.pass_at_1_se(pk.simulate_coin(seed=42)).to_frame()[["estimate", "n_tasks", "n_runs"]]
           estimate  n_tasks  n_runs
        0      0.86       40     200
        """
        fields = {name: value for name, value in self.__dict__.items() if name != "cells"}
        return pd.DataFrame([fields])


def default_intervals(
    n: Ints, c: Ints, tasks: Ints, k: int, confidence_level: float = 0.95
) -> tuple[ConfidenceInterval, ConfidenceInterval]:
    """Return the intervals of pass@1 and of pass^k that the reliability curve gives by default.

    :func:`~passk_lab.reliability_curve`'s ``method="auto"`` on (n, c) cells
    of `tasks` tasks each: pass@1's is its k = 1 row's, pass^k's its row at
    `k` (the tasks with at least k runs). Closed form, so nothing is drawn,
    and cheap enough for a repr; NaN limits, without a warning, where fewer
    than two tasks count.

    Examples
    --------
    Thirty tasks of 4 runs, 2 passes each: none passed all four, and the
    Clopper-Pearson limit of 0 of 30 tasks, ``1 - 0.025 ** (1 / 30)``, bounds pass^4.

    >>> at_1, pow_k = default_intervals(np.array([4]), np.array([2]), np.array([30]), 4)
    >>> round(at_1.low, 3), round(at_1.high, 3), pow_k.low, round(pow_k.high, 4)
    (0.407, 0.593, 0.0, 0.1157)
    """
    spec = IntervalSpec.of("auto", confidence_level, rng=0)
    found = curve_intervals(n, c, tasks, np.array([k], dtype=np.int64), spec)
    at_1, pow_k = found.pass_at_1, found.pass_pow_k
    return (
        ConfidenceInterval(float(at_1.low[0]), float(at_1.high[0])),
        ConfidenceInterval(float(pow_k.low[0]), float(pow_k.high[0])),
    )


def pass_at_1_se(runs: TallyInput, *, errors: ErrorPolicy = "fail") -> PassAt1SE:
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
    PassAt1SE

    Raises
    ------
    ValueError
        If no task has a run, or `runs` breaks a rule of :func:`~passk_lab.tally`.

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
    cells = Cells.from_tally(as_tally(runs, None, errors=errors))
    keep = cells.n > 0
    n, c, tasks = cells.n[keep], cells.c[keep], cells.tasks[keep]
    if not len(n):
        raise ValueError("no task has a run to count; pass@1 needs at least one run")
    return PassAt1SE.from_cells(n, c, tasks)


def __getattr__(name: str) -> Any:
    """Serve the names of earlier releases, with a warning that names the new one."""
    if name == "PassAt1Error":
        warn(
            PasskDeprecationWarning(
                "PassAt1Error is now PassAt1SE (it is a result, not an exception); "
                "the old name goes in the next release"
            )
        )
        return PassAt1SE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
