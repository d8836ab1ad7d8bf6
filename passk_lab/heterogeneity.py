"""A beta-binomial model of task difficulty: why measured pass^k sits above p^k.

If every run of every task passed with one chance p, pass^k would be p^k. Real
tasks differ: some nearly always pass, some nearly never, so the same tasks
keep passing and pass^k falls much more slowly. The beta-binomial model puts a
number on that: :func:`fit_betabinom` fits it (the likelihood and its Newton
ascent are in ``_betabinom``, the zero/one-inflated model in
``_betabinom_inflated``, the choice in ``_betabinom_fit``), and returns a
:class:`BetaBinomialFit`; :func:`success_counts` sets the tasks' pass counts
beside what the models expect. docs/uncertainty.md ("The beta-binomial fit")
says what the model assumes and how its check works.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from passk_lab._betabinom import beta_shapes
from passk_lab._betabinom_fit import LEVEL, Model, fit_parameters, inflation_pvalue, refitted_pow_k
from passk_lab._betabinom_inflated import model_pow_k
from passk_lab._betabinom_summary import line_fields, table_notes, table_rows
from passk_lab._checks import confidence, positive_int
from passk_lab._data.cells import Cells, pass_at_k_values
from passk_lab._data.rules import ErrorPolicy
from passk_lab._data.tally import TallyInput, as_tally
from passk_lab._goodness_of_fit import GoodnessOfFit, chi2_sf, expected_counts
from passk_lab._interval import ConfidenceInterval
from passk_lab._summary import summary_html, summary_repr
from passk_lab._typing import Floats, Ints

__all__ = ["BetaBinomialFit", "GoodnessOfFit", "fit_betabinom", "success_counts"]


@dataclass(frozen=True)
class BetaBinomialFit:
    """A maximum-likelihood beta-binomial fit of per-task passes, with the binomial beside it.

    The fitted model is the plain beta-binomial or its zero/one-inflated
    version (`model`), chosen as :func:`fit_betabinom` says.

    Attributes
    ----------
    mean : float
        Mean chance of passing a run of the beta part, ``mu = alpha / (alpha +
        beta)``: the model's mean pass rate in the plain model, an estimate of
        pass@1 that need not equal the measured one. With point masses the
        model's pass@1 is ``pow_k(1) = one_share + (1 - zero_share -
        one_share) * mean``.
    icc : float
        Intra-task correlation of the beta part, ``rho = 1 / (alpha + beta +
        1)``: the run-to-run correlation, of two runs of one task; 0 means
        every task has the same chance (the binomial model), 1 that every task
        always passes or always fails. NaN when not identified (every run
        passed, every run failed, or no task has two runs).
    log_likelihood : float
        Maximised log-likelihood of the model chosen, including the binomial
        coefficients (so for the plain model it equals the sum of
        :func:`scipy.stats.betabinom.logpmf` over tasks).
    binomial_log_likelihood : float
        The same for the binomial model with one chance ``binomial_mean``.
    binomial_mean : float
        Pooled passes over pooled runs, the binomial model's estimate.
    n_tasks, n_runs : int
        Tasks and runs fitted.
    model : {"betabinom", "inflated"}
        The model fitted: the plain beta-binomial, or with point masses at
        tasks that never pass and tasks that always pass.
    zero_share, one_share : float
        The inflated model's shares ``pi0`` of tasks that never pass and
        ``pi1`` of tasks that always pass; 0 in the plain model.
    betabinom_log_likelihood : float
        Maximised log-likelihood of the plain beta-binomial (the one
        `lr_pvalue` tests against the binomial).
    inflated_log_likelihood : float
        Maximised log-likelihood of the inflated model: the plain one's when
        no task passed 0 or all of its runs (the shares are then 0); NaN where
        it was not fitted (too few outcome cells or no task with both a pass
        and a failure to identify it, or ``model="betabinom"``).
    goodness_of_fit : GoodnessOfFit
        Pearson's chi-squared check of the model chosen against the (n, c)
        histogram of tasks: ``statistic``, ``df``, ``p_value``; docs/uncertainty.md
        ("The beta-binomial fit") says how it pools the cells and how often it
        rejects.

    See Also
    --------
    fit_betabinom : Fit the model to runs.
    """

    mean: float
    icc: float
    log_likelihood: float
    binomial_log_likelihood: float
    binomial_mean: float
    n_tasks: int
    n_runs: int
    cells: tuple[Ints, Ints, Ints] = field(repr=False)  # (n, c, tasks), for the bootstrap
    model: Literal["betabinom", "inflated"]
    zero_share: float
    one_share: float
    betabinom_log_likelihood: float
    inflated_log_likelihood: float
    goodness_of_fit: GoodnessOfFit

    @property
    def alpha(self) -> float:
        """Beta shape ``alpha = mu (1 - rho) / rho``; inf at rho = 0."""
        return beta_shapes(self.mean, self.icc)[0]

    @property
    def beta(self) -> float:
        """Beta shape ``beta = (1 - mu)(1 - rho) / rho``; inf at rho = 0."""
        return beta_shapes(self.mean, self.icc)[1]

    @property
    def lr_statistic(self) -> float:
        """Likelihood-ratio statistic of the plain beta-binomial against the binomial, ``>= 0``."""
        return max(2.0 * (self.betabinom_log_likelihood - self.binomial_log_likelihood), 0.0)

    @property
    def lr_pvalue(self) -> float:
        """P-value of the likelihood-ratio test of the binomial model (rho = 0).

        rho = 0 lies on the edge of the parameter space, so the statistic's
        null distribution is an equal mixture of a point mass at 0 and
        chi-squared with one degree of freedom (Self and Liang 1987): the
        p-value is half the chi-squared tail, and 1 when the statistic is 0.
        """
        statistic = self.lr_statistic
        return 0.5 * chi2_sf(statistic, 1) if statistic > 0 else 1.0

    @property
    def inflation_pvalue(self) -> float:
        """P-value of the likelihood-ratio test of the plain model inside the inflated one.

        The largest tail of the boundary mixture, ``(chi2_1 + chi2_2) / 2``, so
        it errs towards the plain model (docs/uncertainty.md, "The
        beta-binomial fit"); NaN where the inflated model was not fitted.
        """
        if math.isnan(self.inflated_log_likelihood):
            return math.nan
        return inflation_pvalue(
            2.0 * (self.inflated_log_likelihood - self.betabinom_log_likelihood)
        )

    @property
    def rejected(self) -> bool:
        """Whether the goodness-of-fit check rejects the model at the 0.05 level.

        Predictions past the observed runs rest on the model's shape; when it
        is rejected they are not to be trusted, even where the measured
        pass^k and the model agree inside the runs observed. False when the
        check could not be made (``goodness_of_fit.df == 0``).
        """
        return bool(self.goodness_of_fit.p_value < LEVEL)

    def pow_k(self, k: int | Iterable[int]) -> float | Floats:
        """Predict pass^k, ``pi1 + (1 - pi0 - pi1) B(alpha + k, beta) / B(alpha, beta)``, for any k.

        In the plain model the shares are 0 and this is ``E[p^k]``.

        Parameters
        ----------
        k : int or sequence of int
            One k or several, ``>= 1``; beyond the observed runs too.

        Returns
        -------
        float or numpy.ndarray

        Raises
        ------
        ValueError
            If no k is given, or a k is below 1.

        Examples
        --------
        >>> import pandas as pd
        >>> import passk_lab as pk
        >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
        >>> fit = pk.fit_betabinom(counts)
        >>> round(fit.pow_k(2), 4), fit.pow_k([2, 8]).round(3)
        (0.4112, array([0.411, 0.279]))
        """
        ks = _as_ks(k)
        values = model_pow_k(self._theta, ks)
        return float(values[0]) if isinstance(k, (int, np.integer)) else values

    @property
    def _theta(self) -> Floats:
        return np.array([self.zero_share, self.one_share, self.mean, self.icc])

    def confidence_interval(
        self,
        k: int | Iterable[int],
        *,
        confidence_level: float = 0.95,
        n_resamples: int = 1000,
        rng: int | np.random.Generator | None = None,
    ) -> ConfidenceInterval:
        """Return a percentile interval of the predicted pass^k, refitting each bootstrap resample.

        Each resample of tasks is refitted with the model chosen for the data
        (`model`), not chosen again.

        Parameters
        ----------
        k : int or sequence of int
            One k or several; beyond the observed runs too.
        confidence_level : float
            In (0, 1).
        n_resamples : int
            Bootstrap resamples (each is a fit; 1,000 take about half a second
            for the plain model, a few seconds for the inflated one).
        rng : int, numpy.random.Generator or None
            Seed or generator, for reproducible intervals.

        Returns
        -------
        ConfidenceInterval
            Floats for one k, arrays for several.

        Raises
        ------
        ValueError
            If a k is below 1, the level is not in (0, 1) or `n_resamples` below 1.

        Examples
        --------
        >>> import pandas as pd
        >>> import passk_lab as pk
        >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
        >>> fit = pk.fit_betabinom(counts)
        >>> low, high = fit.confidence_interval(4, n_resamples=200, rng=0)
        >>> round(low, 3), round(high, 3)
        (0.007, 0.675)
        """
        level = confidence(confidence_level)
        ks = _as_ks(k)
        generator = np.random.default_rng(rng)
        tasks = self.cells[2]
        total = int(tasks.sum())
        weights = generator.multinomial(
            total, tasks / total, size=positive_int("n_resamples", n_resamples)
        ).astype(np.float64)
        predictions = refitted_pow_k(self.cells, self._theta, self.model, weights, ks)
        tail = (1.0 - level) / 2.0
        low, high = np.quantile(predictions, [tail, 1.0 - tail], axis=0)
        if isinstance(k, (int, np.integer)):
            return ConfidenceInterval(float(low[0]), float(high[0]))
        return ConfidenceInterval(low, high)

    def __repr__(self) -> str:
        """Return one line: the model's mean pass rate beside measured pass@1, rho, the test.

        ``mean_pass_rate`` is :meth:`pow_k` at 1 (``mean`` in the plain model),
        ``measured_pass_at_1`` has the interval :func:`~passk_lab.reliability_curve`
        gives it, ``run_to_run_correlation`` is ``icc`` (with point masses, the
        Beta part's ``mean`` and ``icc`` follow the shares). The HTML says why
        the mean pass rate and pass@1 differ.

        Examples
        --------
        >>> import passk_lab as pk
        >>> pk.fit_betabinom(pk.simulate_coin(seed=42))
        BetaBinomialFit(model='betabinom', mean_pass_rate=0.86,
                        measured_pass_at_1=0.86 (95% CI [0.787, 0.915]), run_to_run_correlation=0,
                        lr_pvalue=1.0, n_tasks=40, n_runs=200)
        """
        return summary_repr(type(self).__name__, line_fields(self))

    def _repr_html_(self) -> str:
        """Return the fit as an HTML table, for Jupyter: parameters, pass@1, likelihoods, tests.

        Measured pass@1 with its 95% interval stands beside the mean pass rate,
        with a note on why they differ; infinite shapes (rho 0) read "tasks alike".

        Examples
        --------
        >>> import passk_lab as pk
        >>> "tasks alike" in pk.fit_betabinom(pk.simulate_coin(seed=42))._repr_html_()
        True
        """
        return summary_html(type(self).__name__, table_rows(self), table_notes(self))

    def to_frame(self) -> pd.DataFrame:
        """Return the fit as a one-row DataFrame: parameters, likelihoods, tests and the check.

        The model fitted is the column ``fitted_model`` (a runs table's
        ``model`` column, naming the agent's model, is often a group key).

        Examples
        --------
        >>> import pandas as pd
        >>> import passk_lab as pk
        >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
        >>> fit = pk.fit_betabinom(counts)
        >>> fit.to_frame()[["mean", "icc", "fitted_model", "n_tasks"]].round(4)
           mean     icc fitted_model  n_tasks
        0   0.5  0.6447    betabinom        6
        """
        statistic, df, p_value = self.goodness_of_fit
        return pd.DataFrame(
            [
                {
                    "mean": self.mean,
                    "icc": self.icc,
                    "alpha": self.alpha,
                    "beta": self.beta,
                    "fitted_model": self.model,
                    "zero_share": self.zero_share,
                    "one_share": self.one_share,
                    "log_likelihood": self.log_likelihood,
                    "binomial_log_likelihood": self.binomial_log_likelihood,
                    "lr_statistic": self.lr_statistic,
                    "lr_pvalue": self.lr_pvalue,
                    "inflation_pvalue": self.inflation_pvalue,
                    "gof_statistic": statistic,
                    "gof_df": df,
                    "gof_pvalue": p_value,
                    "rejected": self.rejected,
                    "n_tasks": self.n_tasks,
                    "n_runs": self.n_runs,
                }
            ]
        )


def _as_ks(k: int | Iterable[int]) -> Ints:
    values = [k] if isinstance(k, (int, np.integer)) else list(k)
    if not values:
        raise ValueError("give at least one k")
    return np.array([positive_int("k", value) for value in values], dtype=np.int64)


def fit_cells(n: Ints, c: Ints, tasks: Ints, *, model: Model = "auto") -> BetaBinomialFit:
    """Fit the model (see :func:`fit_betabinom`) to (n, c) cells of `tasks` tasks each (n >= 1).

    Examples
    --------
    >>> fit = fit_cells(np.array([4, 4, 4, 4]), np.array([0, 1, 3, 4]), np.array([2, 1, 1, 2]))
    >>> fit.model, fit.n_tasks, round(fit.icc, 4)
    ('betabinom', 6, 0.6447)
    """
    return BetaBinomialFit(**fit_parameters(n, c, tasks, model)._asdict(), cells=(n, c, tasks))


def fit_betabinom(
    runs: TallyInput, *, errors: ErrorPolicy = "fail", model: Model = "auto"
) -> BetaBinomialFit:
    """Fit a beta-binomial model of task difficulty to runs, by maximum likelihood.

    Each task's chance of passing a run is taken to be drawn from one
    Beta(alpha, beta) over tasks, and its runs to be independent given that
    chance. The fit explains a pass^k curve that sits above p^k and predicts
    pass^k for k beyond the runs observed. When its goodness-of-fit check
    ``rejected`` it, do not trust ``pow_k`` beyond the observed runs; an
    unflagged fit is not a confirmed one (docs/uncertainty.md, "The
    beta-binomial fit", says what the model assumes and what the check finds).

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


def success_counts(
    runs: TallyInput, *, errors: ErrorPolicy = "fail", model: Model = "auto"
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
        ``rejected`` the model; and the pass rates a reader compares:
        ``pass_at_1``, the mean over tasks of each task's share of runs
        passed (``binomial_mean`` pools the runs instead, so the two differ
        when tasks have different numbers of runs), and ``fit_pass_at_1``,
        the fitted model's mean pass rate (``mean`` itself in the plain
        model), which maximum likelihood fits to every count at once and
        need not equal ``pass_at_1``.

    Raises
    ------
    ValueError
        As :func:`fit_betabinom`: no task with a run, or a `model` it refuses.

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
            "binomial": expected_counts(n, tasks, successes, fit.binomial_mean, 0.0),
            "betabinom": expected_counts(
                n, tasks, successes, fit.mean, fit.icc, fit.zero_share, fit.one_share
            ),
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
        pass_at_1=float(np.average(pass_at_k_values(n, c, np.array([1]))[:, 0], weights=tasks)),
        fit_pass_at_1=float(fit.pow_k(1)),
        lr_pvalue=fit.lr_pvalue,
        gof_statistic=statistic,
        gof_df=df,
        gof_pvalue=p_value,
        rejected=fit.rejected,
    )
    return table
