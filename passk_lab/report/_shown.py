"""The report's tables as the page shows them: labels, intervals under estimates, words for codes.

Each function takes a table the statistics returned and gives the DataFrame
the page renders -- reader's labels, each interval in one ``[low, high]``
cell, infinite Beta shapes as ``∞``, a method as a letter named once below
-- with the sentences that go with it, as HTML. :func:`two_levels` sets each
interval under its estimate when the page renders a table.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd

from passk_lab._labels import LABELS, interval_label, interval_name, label
from passk_lab._numbers import INFINITY
from passk_lab.report._prose import fit_reading, num
from passk_lab.report._tables import labelled

__all__ = [
    "CurveTables",
    "FitTables",
    "curve_tables",
    "errors_table",
    "fit_tables",
    "two_levels",
]

PREDICTIONS = [
    *("p_pow_k", "p_pow_k_low", "p_pow_k_high"),
    *("betabinom_pow_k", "betabinom_pow_k_low", "betabinom_pow_k_high", "predicted"),
]
"""The curve's predictions, in its predictions table, and whether a row is the models' alone."""
_FIT_SHOWN = ["mean", "icc", "alpha", "beta", "fitted_model"]
"""The fit's columns on the page; with groups, its tasks and runs are in the coverage table."""
_FIT_TESTS = ["lr_pvalue", "gof_pvalue"]
_FIT_DETAILS = [
    *("zero_share", "one_share", "log_likelihood", "binomial_log_likelihood"),
    *("lr_statistic", "inflation_pvalue", "gof_statistic", "gof_df"),
]
"""The fit's details on the page, folded; whether the fit is rejected its sentence says."""
_MODELS = {"betabinom": "beta-binomial", "inflated": "zero/one-inflated"}
_POLICIES = {"fail": "errors as failures", "exclude": "errors left out"}


def two_levels(frame: pd.DataFrame) -> pd.DataFrame:
    """Return a labelled table with each interval under its estimate: two levels of names.

    ``pass^k`` and ``pass^k 95% CI`` become ``(pass^k, estimate)`` and
    ``(pass^k, 95% CI)``, under one ``pass^k``; other columns have one name.
    A table with no interval beside its estimate is returned as it is.
    """
    level = interval_label(frame)
    names = [str(name) for name in frame.columns]
    pairs: list[tuple[str, str]] = []
    for name in names:
        if name.endswith(f" {level}") and pairs and pairs[-1][0] == name.removesuffix(f" {level}"):
            pairs[-1] = (pairs[-1][0], "estimate")
            pairs.append((pairs[-1][0], level))
        else:
            pairs.append((name, ""))
    if not any(second for _, second in pairs):
        return frame
    shown = frame.copy()
    shown.columns = pd.MultiIndex.from_tuples(pairs)
    return shown


@dataclass(frozen=True)
class CurveTables:
    """The measured curve and the predictions as the page shows them, with their notes (HTML)."""

    measured: pd.DataFrame
    notes: tuple[str, ...]
    predicted: pd.DataFrame
    said: str


def curve_tables(measured: pd.DataFrame, curve: pd.DataFrame, by: list[str]) -> CurveTables:
    """Return the measured curve's table, and the predictions' table over every k drawn.

    Where the curve's intervals came from two or more methods, or a bootstrap
    gave way, a letter per row says which, and a note names each letter.
    """
    columns = [*by, "k", "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"]
    columns += ["pass_at_k", "pass_at_k_low", "pass_at_k_high", "n_tasks"]
    shown = labelled(measured[columns].reset_index(drop=True))
    tasks, left_out = measured["n_tasks"].to_numpy(), measured["n_tasks_excluded"].to_numpy()
    notes = []
    if left_out.any():  # the tasks a k counts, of those the group has
        shown[LABELS["n_tasks"]] = [
            f"{n} of {n + out}" for n, out in zip(tasks, left_out, strict=True)
        ]
        first, top = measured.loc[left_out > 0, "k"].min(), measured["k"].min()
        notes.append(
            f"From k = {int(first):,} on, a task with fewer than k runs is left out of that k "
            f"(the tasks column says how many each k counts), so those rows describe fewer "
            f"tasks than k = {int(top):,}."
        )
    methods = [str(name).partition(" (") for name in measured["interval_method"]]
    used = list(dict.fromkeys(method for method, _, _ in methods))
    codes = {method: chr(ord("a") + index) for index, method in enumerate(used)}
    gave_way = any(rest for _, _, rest in methods)
    if len(used) > 1 or gave_way:  # a short mark per row, its method said once below
        shown["interval"] = [f"{codes[method]}{'*' if rest else ''}" for method, _, rest in methods]
        legend = "; ".join(f"{codes[method]}: {interval_name(method)}" for method in used)
        notes.append(f"Intervals: {html.escape(legend)}.")
    elif used:
        notes.append(f"Every interval here is {html.escape(interval_name(used[0]))}.")
    if gave_way:
        notes.append(
            "* The bootstrap interval of pass@k or pass<sup>k</sup> had no width at that k "
            "(every resample gave the same value), and the closed-form interval stands in for "
            "it; curve.csv names it."
        )
    predicted = labelled(curve[[*by, "k", *PREDICTIONS]].reset_index(drop=True))
    model_based = LABELS["predicted"]
    last = int(measured["k"].max()) if len(measured) else 0
    beyond = (
        f" Both go past the ks measured, to k = {int(curve['k'].max()):,}."
        if curve["k"].max() > last
        else ""
    )
    if curve["predicted"].any():
        beyond += (
            f" A row marked {model_based} is past every task's runs, so no run measured it: "
            "there the beta-binomial prediction has its interval, from a bootstrap of the "
            "tasks that refits the model on each resample."
        )
    said = (
        "(pass@1)<sup>k</sup> is what pass<sup>k</sup> would be if every run of every task "
        "passed independently with one chance; the beta-binomial prediction lets tasks differ "
        f"in difficulty (its fit is below).{beyond}"
    )
    return CurveTables(shown, tuple(notes), predicted, said)


def _shape(value: float) -> str:
    """Return a Beta shape for the fit's table: infinite as the sign, unidentified as a dash."""
    if np.isnan(value):
        return "\N{EM DASH}"
    return INFINITY if np.isinf(value) else num(value, ".3g")


def _model_name(model: str, alpha: float) -> str:
    """Return the model a fit chose, as a reader knows it: infinite shapes are the binomial."""
    if np.isnan(alpha) and model != "inflated":
        return "\N{EM DASH}"
    if np.isinf(alpha):
        return "zero/one-inflated binomial" if model == "inflated" else "binomial"
    return _MODELS.get(model, model)


@dataclass(frozen=True)
class FitTables:
    """The fit as the page shows it: its table, a sentence per group (HTML), its details."""

    shown: pd.DataFrame
    readings: tuple[str, ...]
    details: pd.DataFrame


def fit_tables(table: pd.DataFrame, by: list[str], names: list[str]) -> FitTables:
    """Return the fit's section: its table, what each fit says, and the rest (folded)."""
    counts = [] if by else ["n_tasks", "n_runs"]
    shown = labelled(table[[*by, *counts, *_FIT_SHOWN, *_FIT_TESTS]])
    for column in ("alpha", "beta"):
        shown[LABELS[column]] = [_shape(value) for value in table[column]]
    inflated = bool((table["fitted_model"] == "inflated").any())
    if inflated:  # the Beta part's mean is not the pass rate
        zero, one = table["zero_share"].fillna(0.0), table["one_share"].fillna(0.0)
        shown[LABELS["mean"]] = (one + (1 - zero - one) * table["mean"]).to_numpy()
        shown = shown.rename(columns={LABELS["icc"]: f"{LABELS['icc']} of the rest"})
    shown[LABELS["fitted_model"]] = [
        _model_name(str(model), alpha)
        for model, alpha in zip(table["fitted_model"], table["alpha"], strict=True)
    ]
    details = labelled(  # without an inflated fit no task is in a point mass
        table[[*by, *(name for name in _FIT_DETAILS if inflated or not name.endswith("_share"))]]
    )
    readings = tuple(
        fit_reading(fit, name) for (_, fit), name in zip(table.iterrows(), names, strict=True)
    )
    return FitTables(shown.reset_index(drop=True), readings, details.reset_index(drop=True))


def errors_table(table: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Return pass^k, pass@k and tasks, errored runs failing or left out, as the page shows it."""
    columns: list[tuple[str, str]] = [(name, "") for name in [*by, "k"]]
    columns += [
        (_POLICIES[policy], label(metric))
        for policy in _POLICIES
        for metric in ("pass_pow_k", "pass_at_k", "n_tasks")
    ]
    shown = table[[*by, "k"]].copy()
    for policy in _POLICIES:
        for metric in ("pass_pow_k", "pass_at_k", "n_tasks"):
            shown[f"{metric}_{policy}"] = table[f"{metric}_{policy}"]
    shown["runs left out"] = table["n_runs_excluded"]
    shown.columns = pd.MultiIndex.from_tuples([*columns, ("runs left out", "")])
    return shown.reset_index(drop=True)
