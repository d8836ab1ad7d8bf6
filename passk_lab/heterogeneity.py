"""A beta-binomial model of task difficulty: why measured pass^k sits above p^k.

If every run of every task passed with one chance p, pass^k would be p^k. Real
tasks differ: some nearly always pass, some nearly never, so the same tasks
keep passing and pass^k falls much more slowly. The beta-binomial model puts a
number on that (its assumptions and likelihood are in
:class:`~passk_lab.BetaBinomialFit` and :func:`fit_betabinom`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from passk_lab._betabinom import BetaBinomialFit, GoodnessOfFit, Model, fit_cells
from passk_lab._data.cells import Cells
from passk_lab._data.rules import ErrorPolicy
from passk_lab._data.tally import as_tally
from passk_lab._typing import Floats, Ints

__all__ = ["BetaBinomialFit", "GoodnessOfFit", "fit_betabinom", "success_counts"]


def fit_betabinom(
    runs: pd.DataFrame | np.ndarray, *, errors: ErrorPolicy = "fail", model: Model = "auto"
) -> BetaBinomialFit:
    """Fit a beta-binomial model of task difficulty to runs, by maximum likelihood.

    Each task's chance of passing a run is taken to be drawn from one
    Beta(alpha, beta) over tasks, and its runs to be independent given that
    chance (see Notes for everything the model assumes). The fit
    explains a pass^k curve that sits above p^k and predicts pass^k for k
    beyond the runs observed.

    Parameters
    ----------
    runs : DataFrame or numpy.ndarray
        A runs table, an outcome matrix or a tally, of one agent (no groups;
        call once per group). Tasks may have different numbers of runs.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    model : {"auto", "betabinom", "inflated"}
        The plain beta-binomial, the zero/one-inflated one (point masses for
        tasks that never pass and tasks that always pass, beside the beta
        part), or ``"auto"``: the inflated model when a likelihood-ratio test
        rejects the plain one at the 0.05 level (see
        :attr:`BetaBinomialFit.inflation_pvalue`), the plain one otherwise.

    Returns
    -------
    BetaBinomialFit
        With its goodness-of-fit check (``goodness_of_fit``, ``rejected``).

    Raises
    ------
    ValueError
        If no task has a run, if `model` is not one of the three, or if
        ``model="inflated"`` on runs that cannot identify it (no task with
        both a pass and a failure, or fewer than 4 outcome chances, the sum of
        the distinct runs per task).

    Notes
    -----
    The model assumes: tasks are independent draws from one population; each
    task has a fixed chance of passing a run, and those chances follow a Beta
    distribution across tasks; a task's runs are independent given its chance
    (no learning, drift or order effects); errored runs are handled by
    `errors` like everywhere else. It does not assume tasks are alike: that is
    the binomial model it is tested against (``lr_pvalue``). A population of
    tasks in distinct clusters can fit poorly: a share of tasks that always
    pass (or never do) beside the rest is what the inflated model adds, and
    ``"auto"`` takes it when the data ask for it. Any other shape shows in the
    goodness-of-fit check of the (n, c) histogram; when it is ``rejected``,
    do not trust ``pow_k`` beyond the observed runs, even where it agrees
    with the measured pass^k inside them. The check has little power with
    few runs per task (with 5 runs, about half the time on 80 tasks of which
    30% always pass, the rest at 0.6) and none where too few outcome cells
    expect 2 tasks (``df == 0``, then not rejected): an unflagged fit is not
    a confirmed one.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
    >>> fit = fit_betabinom(counts)
    >>> round(fit.mean, 4), round(fit.icc, 4), round(fit.lr_pvalue, 4)
    (0.5, 0.6447, 0.0006)
    >>> fit.pow_k([1, 4, 10]).round(3)
    array([0.5  , 0.338, 0.262])
    >>> fit.model, fit.goodness_of_fit.df, fit.rejected
    ('betabinom', 0, False)

    Thirty tasks that always pass beside fifty that pass about half their
    runs: the inflated model explains the first thirty as a point mass.

    >>> mixed = pd.DataFrame(
    ...     {"task": range(80), "n": 8, "c": [8] * 30 + [2, 3, 4, 4, 5, 6] * 8 + [4, 4]}
    ... )
    >>> fit = fit_betabinom(mixed)
    >>> fit.model, round(fit.one_share, 3), round(fit.pow_k(16), 3)
    ('inflated', 0.372, 0.372)
    """
    cells = Cells.from_tally(as_tally(runs, None, errors=errors))
    keep = cells.n > 0
    if not keep.any():
        raise ValueError("no task has a run to fit; the beta-binomial model needs runs")
    return fit_cells(cells.n[keep], cells.c[keep], cells.tasks[keep], model=model)


def _pmf(fit: BetaBinomialFit, successes: Ints, binomial: bool) -> Floats:
    """Return the expected tasks with each number of successes: the sum of P(c | n) over tasks."""
    from scipy import stats  # 0.5 s to import: not on the path of a curve

    n, _, tasks = fit.cells
    c = successes[:, None]
    if binomial or fit.icc == 0 or fit.mean in (0.0, 1.0):
        p = fit.binomial_mean if binomial else fit.mean
        chances = stats.binom.pmf(c, n, p)
    elif np.isnan(fit.icc):
        return np.full(len(successes), np.nan)
    else:
        chances = stats.betabinom.pmf(c, n, fit.alpha, fit.beta)
    if not binomial:
        shares = fit.zero_share + fit.one_share
        chances = (1.0 - shares) * chances + fit.zero_share * (c == 0) + fit.one_share * (c == n)
    return np.asarray(chances @ tasks, dtype=np.float64)


def success_counts(
    runs: pd.DataFrame | np.ndarray, *, errors: ErrorPolicy = "fail", model: Model = "auto"
) -> pd.DataFrame:
    """Count the tasks that passed 0, 1, ..., n of their runs, beside what each model expects.

    The binomial model (every run of every task passes with one chance) puts
    most tasks in the middle; when tasks differ in difficulty the counts pile
    up at 0 and n instead, which is why measured pass^k sits above p^k. The
    beta-binomial fit (:func:`fit_betabinom`) allows for that.

    Parameters
    ----------
    runs : DataFrame or numpy.ndarray
        A runs table, an outcome matrix or a tally, of one agent (no groups;
        call once per group). Tasks may have different numbers of runs: the
        expected counts then sum each task's own distribution.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    model : {"auto", "betabinom", "inflated"}
        The fit behind the ``betabinom`` column, as in :func:`fit_betabinom`.

    Returns
    -------
    DataFrame
        One row per number of successes ``0..max(n)``: ``[successes,
        n_tasks, binomial, betabinom]``, the tasks observed and the tasks
        expected under the binomial model (at the pooled pass rate) and under
        the model fitted (NaN where the fit is not identified), with its
        point masses when the inflated model is chosen. ``attrs`` holds
        ``model``, ``mean``, ``icc``, ``zero_share``, ``one_share``,
        ``binomial_mean``, ``lr_pvalue``, the goodness-of-fit check
        ``gof_statistic``, ``gof_df``, ``gof_pvalue`` and whether it
        ``rejected`` the model.

    See Also
    --------
    fit_betabinom : The fit behind the ``betabinom`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
    >>> success_counts(counts).round(3)
       successes  n_tasks  binomial  betabinom
    0          0        2     0.375      2.030
    1          1        1     1.500      0.683
    2          2        0     2.250      0.574
    3          3        1     1.500      0.683
    4          4        2     0.375      2.030
    """
    fit = fit_betabinom(runs, errors=errors, model=model)
    n, c, tasks = fit.cells
    successes = np.arange(int(n.max()) + 1)
    table = pd.DataFrame(
        {
            "successes": successes,
            "n_tasks": np.bincount(c, weights=tasks, minlength=len(successes)).astype(np.int64),
            "binomial": _pmf(fit, successes, binomial=True),
            "betabinom": _pmf(fit, successes, binomial=False),
        }
    )
    statistic, df, p_value = fit.goodness_of_fit
    table.attrs.update(
        model=fit.model,
        mean=fit.mean,
        icc=fit.icc,
        zero_share=fit.zero_share,
        one_share=fit.one_share,
        binomial_mean=fit.binomial_mean,
        lr_pvalue=fit.lr_pvalue,
        gof_statistic=statistic,
        gof_df=df,
        gof_pvalue=p_value,
        rejected=fit.rejected,
    )
    return table
