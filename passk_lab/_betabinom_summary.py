"""How a beta-binomial fit reads: the fields of its one-line repr and the rows of its HTML table.

The symbols are named in words: the mean pass rate (the fitted Beta's mean
``alpha / (alpha + beta)``; with tasks that never and always pass, the
model's chance of a pass, :meth:`~passk_lab.BetaBinomialFit.pow_k` at 1),
the run-to-run correlation (rho, ``icc``), and beside them pass@1 as measured,
with the interval :func:`~passk_lab.reliability_curve` gives it; the HTML
table says why the mean pass rate and pass@1 differ. An infinite alpha and
beta (rho 0) read as what they mean, tasks alike. :class:`Fit` names what the
summaries read of a :class:`~passk_lab.BetaBinomialFit`.
"""

from __future__ import annotations

import math
from typing import Protocol

from passk_lab._goodness_of_fit import GoodnessOfFit
from passk_lab._interval import pass_at_1_errors
from passk_lab._numbers import fixed, number, p_value_text
from passk_lab._summary import SUMMARY_LEVEL, Estimate, Shown
from passk_lab._typing import Floats, Ints
from passk_lab.intervals import default_intervals

__all__ = ["Fit", "line_fields", "table_notes", "table_rows"]


class Fit(Protocol):
    """What the summaries read of a fit (:class:`~passk_lab.BetaBinomialFit` has it all)."""

    @property
    def model(self) -> str: ...
    @property
    def mean(self) -> float: ...
    @property
    def icc(self) -> float: ...
    @property
    def alpha(self) -> float: ...
    @property
    def beta(self) -> float: ...
    @property
    def zero_share(self) -> float: ...
    @property
    def one_share(self) -> float: ...
    @property
    def log_likelihood(self) -> float: ...
    @property
    def binomial_log_likelihood(self) -> float: ...
    @property
    def betabinom_log_likelihood(self) -> float: ...
    @property
    def lr_pvalue(self) -> float: ...
    @property
    def inflation_pvalue(self) -> float: ...
    @property
    def goodness_of_fit(self) -> GoodnessOfFit: ...
    @property
    def rejected(self) -> bool: ...
    @property
    def n_tasks(self) -> int: ...
    @property
    def n_runs(self) -> int: ...
    @property
    def cells(self) -> tuple[Ints, Ints, Ints]: ...
    def pow_k(self, k: int) -> float | Floats: ...


def measured_pass_at_1(fit: Fit) -> Estimate:
    """Return pass@1 of the runs fitted, with the interval the reliability curve gives it."""
    n, c, tasks = fit.cells
    low, high = default_intervals(n, c, tasks, 1, SUMMARY_LEVEL)[0]
    return Estimate(pass_at_1_errors(n, c, tasks)[0], float(low), float(high), SUMMARY_LEVEL)


def mean_pass_rate(fit: Fit) -> float:
    """Return the model's mean pass rate: the Beta's mean, after the shares when inflated."""
    return float(fit.pow_k(1)) if fit.model == "inflated" else fit.mean


def line_fields(fit: Fit) -> list[tuple[str, object]]:
    """Return the fields of a fit's one-line repr: model, mean pass rate beside pass@1, the rest.

    The mean pass rate comes first, and pass@1 as measured (with its interval)
    beside it; then the run-to-run correlation (for the inflated model, the
    shares and the Beta part's mean and correlation), the test of tasks alike
    and the counts.
    """
    fields: list[tuple[str, object]] = [
        ("model", fit.model),
        ("mean_pass_rate", mean_pass_rate(fit)),
        ("measured_pass_at_1", measured_pass_at_1(fit)),
    ]
    if fit.model == "inflated":
        fields += [
            ("zero_share", fit.zero_share),
            ("one_share", fit.one_share),
            ("beta_part_mean", fit.mean),
            ("beta_part_correlation", fit.icc),
        ]
    else:
        fields.append(("run_to_run_correlation", fit.icc))
    fields += [
        ("lr_pvalue", Shown(p_value_text(fit.lr_pvalue) or "nan")),
        ("n_tasks", fit.n_tasks),
        ("n_runs", fit.n_runs),
    ]
    return fields


def table_rows(fit: Fit) -> list[tuple[str, object]]:
    """Return the rows of a fit's HTML table: parameters, pass@1, likelihoods, tests and counts."""
    inflated = fit.model == "inflated"
    rows: list[tuple[str, object]] = [("model", _MODEL_NAMES[fit.model])]
    if inflated:
        rows += [
            ("mean pass rate of the model", mean_pass_rate(fit)),
            ("pass@1, measured", measured_pass_at_1(fit)),
            ("share of tasks that never pass", fit.zero_share),
            ("share of tasks that always pass", fit.one_share),
            (f"mean pass rate of the Beta part, {_BETA_MEAN}", fit.mean),
            (f"run-to-run correlation of the Beta part ({_RHO})", _or_unidentified(fit.icc)),
        ]
    else:
        rows += [
            (f"mean pass rate, {_BETA_MEAN}", fit.mean),
            ("pass@1, measured", measured_pass_at_1(fit)),
            (f"run-to-run correlation ({_RHO})", _or_unidentified(fit.icc)),
        ]
    rows += [
        (f"Beta shape {_ALPHA}", _shape(fit.alpha)),
        (f"Beta shape {_BETA}", _shape(fit.beta)),
        ("log-likelihood", f"{fit.log_likelihood:.2f}"),
        ("binomial log-likelihood", f"{fit.binomial_log_likelihood:.2f}"),
    ]
    if inflated:
        rows.append(("beta-binomial log-likelihood", f"{fit.betabinom_log_likelihood:.2f}"))
    rows.append((f"LR test p (binomial, {_RHO} = 0)", _p_text(fit.lr_pvalue)))
    if inflated:
        rows.append(("LR test p (no inflation)", _p_text(fit.inflation_pvalue)))
    check = _p_text(fit.goodness_of_fit.p_value, "not tested (too few outcome cells)")
    rows += [
        ("goodness-of-fit p", check + (" (rejected)" if fit.rejected else "")),
        ("tasks", fit.n_tasks),
        ("runs", fit.n_runs),
    ]
    return rows


def table_notes(fit: Fit) -> list[str]:
    """Return the notes under a fit's HTML table: why its mean pass rate is not pass@1."""
    rate, measured = mean_pass_rate(fit), measured_pass_at_1(fit)
    what = (
        "the model's chance of a pass: the share of tasks that always pass, plus the Beta "
        f"part's mean {_BETA_MEAN} over the tasks in between"
        if fit.model == "inflated"
        else f"the fitted Beta's mean {_BETA_MEAN}"
    )
    gap = fixed(abs(rate - measured.value), 3)
    here = "here they agree to 3 decimals" if gap == fixed(0.0, 3) else f"here by {gap}"
    if measured.has_interval:
        inside = measured.low <= rate <= measured.high
        here += f", {'inside' if inside else 'outside'} pass@1's {measured.ci}"
    return [
        f"The mean pass rate ({number(rate)}) is {what}; pass@1 ({number(measured.value)}) is "
        "measured, the mean over tasks of each task's share of runs passed. Both estimate a "
        "task's chance of a pass, by maximum likelihood and by averaging, so they can differ: "
        f"{here}.",
        "The predictions of pass^k have bootstrap intervals, not computed here: "
        "fit.confidence_interval(k, rng=0).",
    ]


_ALPHA, _BETA, _RHO = (
    "\N{GREEK SMALL LETTER ALPHA}",
    "\N{GREEK SMALL LETTER BETA}",
    "\N{GREEK SMALL LETTER RHO}",
)
_BETA_MEAN = f"{_ALPHA}/({_ALPHA}+{_BETA})"
"""The mean of a Beta(alpha, beta), as the summaries write it."""

_MODEL_NAMES = {
    "betabinom": "beta-binomial",
    "inflated": "beta-binomial with tasks that never and always pass",
}
"""How each model reads in a summary."""


def _or_unidentified(value: float) -> object:
    return "not identified" if math.isnan(value) else value


def _shape(value: float) -> object:
    """Return a Beta shape for a summary: infinite when every task has the one chance."""
    return "\N{INFINITY} (tasks alike)" if math.isinf(value) else _or_unidentified(value)


def _p_text(value: float, missing: str = "not computed") -> str:
    return missing if math.isnan(value) else p_value_text(value)
