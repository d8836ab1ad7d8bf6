"""How a beta-binomial fit reads: the fields of its one-line repr and the rows of its HTML table.

An infinite alpha and beta (icc 0) read as what they mean, tasks alike; with
tasks that never and always pass the mean and the icc are the Beta part's,
and the model's pass@1 follows the shares. :class:`Fit` names what the
summaries read of a :class:`~passk_lab.BetaBinomialFit`.
"""

from __future__ import annotations

import math
from typing import Protocol

from passk_lab._goodness_of_fit import GoodnessOfFit
from passk_lab._numbers import p_value_text
from passk_lab._summary import Shown

__all__ = ["Fit", "line_fields", "table_rows"]


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
    def pow_k(self, k: int) -> object: ...


def line_fields(fit: Fit) -> list[tuple[str, object]]:
    """Return the fields of a fit's one-line repr: model, parameters, the LR test, the counts."""
    fields: list[tuple[str, object]] = [
        ("model", fit.model),
        ("mean", fit.mean),
        ("icc", fit.icc),
        ("alpha", fit.alpha),
        ("beta", fit.beta),
    ]
    if fit.model == "inflated":
        fields += [
            ("zero_share", fit.zero_share),
            ("one_share", fit.one_share),
            ("pass_at_1", fit.pow_k(1)),
        ]
    fields += [
        ("lr_pvalue", Shown(p_value_text(fit.lr_pvalue) or "nan")),
        ("n_tasks", fit.n_tasks),
        ("n_runs", fit.n_runs),
    ]
    return fields


def table_rows(fit: Fit) -> list[tuple[str, object]]:
    """Return the rows of a fit's HTML table: parameters, likelihoods, tests and counts."""
    inflated = fit.model == "inflated"
    rows: list[tuple[str, object]] = [
        ("model", _MODEL_NAMES[fit.model]),
        ("mean of the Beta part (mu)" if inflated else "mean chance of a pass (mu)", fit.mean),
        (
            "icc of the Beta part" if inflated else "intra-task correlation (icc)",
            _or_unidentified(fit.icc),
        ),
        ("alpha", _shape(fit.alpha)),
        ("beta", _shape(fit.beta)),
    ]
    if inflated:
        rows += [
            ("share of tasks that never pass", fit.zero_share),
            ("share of tasks that always pass", fit.one_share),
            ("chance of a pass (pass@1 of the model)", fit.pow_k(1)),
        ]
    rows += [
        ("log-likelihood", f"{fit.log_likelihood:.2f}"),
        ("binomial log-likelihood", f"{fit.binomial_log_likelihood:.2f}"),
    ]
    if fit.model == "inflated":
        rows.append(("beta-binomial log-likelihood", f"{fit.betabinom_log_likelihood:.2f}"))
    rows.append(("LR test p (binomial, icc 0)", _p_text(fit.lr_pvalue)))
    if fit.model == "inflated":
        rows.append(("LR test p (no inflation)", _p_text(fit.inflation_pvalue)))
    check = _p_text(fit.goodness_of_fit.p_value, "not tested (too few outcome cells)")
    rows += [
        ("goodness-of-fit p", check + (" (rejected)" if fit.rejected else "")),
        ("tasks", fit.n_tasks),
        ("runs", fit.n_runs),
    ]
    return rows


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
