"""The report's sentences: what its numbers say, in words a reader quotes.

Every sentence is built from a table the statistics returned, its numbers
written by :mod:`passk_lab._numbers` (settled to 12 significant digits before
they are rounded), and returned as HTML: text escaped, ``pass<sup>k</sup>``
set as a superscript.
"""

from __future__ import annotations

import html
import re
from collections.abc import Hashable, Iterable

import numpy as np
import pandas as pd

from passk_lab._choices import RESAMPLING_METHODS
from passk_lab._data.rules import display
from passk_lab._labels import INTERVAL_LABELS
from passk_lab._numbers import p_value_text, settled

__all__ = [
    "JOINED_DASH",
    "fit_reading",
    "group_name",
    "groups_named",
    "headline",
    "ks_words",
    "listed",
    "method_words",
    "num",
    "per_task",
    "plural",
]

_RHO = "\N{GREEK SMALL LETTER RHO}"
"""The run-to-run correlation as the histograms' keys and the fit's table write it."""

LIST_LIMIT = 10
"""The most items a sentence names when it lists them (tasks dropped, agents)."""
JOINED_DASH = "\N{EN DASH}\N{WORD JOINER}"
"""An en dash that no line break follows: an interval's ends and "Clopper-Pearson" stay whole."""


def num(value: float, spec: str) -> str:
    """Return `value` in the format `spec`, first to 12 significant digits: no float noise.

    >>> num(0.5424999999999999, ".3f")
    '0.542'
    """
    return format(settled(value), spec)


def plural(count: int, noun: str) -> str:
    """Return a count and its noun: ``1 run``, ``1,200 runs``."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def per_task(runs: pd.Series) -> str:
    """Return the runs per task: ``5``, or ``3 to 5`` when tasks have different runs."""
    fewest, most = int(runs.min()), int(runs.max())
    return str(most) if fewest == most else f"{fewest} to {most}"


def listed(values: list[str]) -> str:
    """Join the first :data:`LIST_LIMIT` of `values` for a sentence: ``a, b and 3 more``.

    >>> listed(["a"]), listed(["a", "b", "c"]), listed([str(i) for i in range(12)])[-12:]
    ('a', 'a, b and c', '9 and 2 more')
    """
    shown = values[:LIST_LIMIT]
    rest = len(values) - len(shown)
    if rest:
        return f"{', '.join(shown)} and {rest} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def group_name(by: list[str], key: Iterable[Hashable]) -> str:
    """Return a group as a reader names it: ``model a``, ``model a, domain airline``."""
    return ", ".join(f"{name} {display(value)}" for name, value in zip(by, key, strict=True))


def groups_named(by: list[str], count: int) -> str:
    """Return every group as a reader counts them: ``both models``, ``all 6 groups (a, b)``.

    One grouping column whose name is a word gives its plural; others, or two
    or more columns, are ``groups`` with the columns named.

    >>> groups_named(["model"], 2), groups_named(["box"], 3), groups_named(["a", "b"], 4)
    ('both models', 'all 3 boxes', 'all 4 groups (a, b)')
    """
    every = "both" if count == 2 else f"all {count:,}"
    if len(by) == 1 and re.fullmatch(r"[a-z]+", by[0]):
        word = by[0]
        if word.endswith(("s", "x", "ch", "sh")):
            return f"{every} {word}es"
        if word.endswith("y") and word[-2:-1] not in "aeiou":
            return f"{every} {word[:-1]}ies"
        return f"{every} {word}s"
    return f"{every} groups ({', '.join(by)})"


def _ci(low: float, high: float) -> str:
    return f"{num(low, '.2f')}\N{EN DASH}{num(high, '.2f')}"


def _interval_words(method: str, tasks: int) -> str:
    """Return how an interval was computed, for the headline: ``Wilson on 40 tasks``."""
    used = method.partition(" (")[0]
    if used == "effective_n":
        return f"Clopper\N{EN DASH}Pearson on an effective number of the {tasks:,} tasks"
    if used in RESAMPLING_METHODS:
        return f"{INTERVAL_LABELS[used]} over {tasks:,} tasks"
    return f"{INTERVAL_LABELS.get(used, used)} on {tasks:,} tasks"


def headline(rows: pd.DataFrame, counted: pd.DataFrame, name: str, level: str) -> str:
    """Return the sentence a reader can quote, as HTML: pass@1, then pass^k at the top k.

    `rows` are the group's rows of the curve, `counted` its rows of the tally.
    The top k is the largest the curve measures on every task of the group
    (the largest it measures, when none is on every task). When every counted
    task has exactly that many runs, pass^k is the share of tasks that passed
    them all, and the sentence says so. An interval's dashes do not break.
    """
    ran = counted[counted["n"] > 0]
    measured = rows[(rows["n_tasks"] > 0) & rows["pass_pow_k"].notna()]
    where = f"For {html.escape(name)}, p" if name else "p"
    if measured.empty or ran.empty:
        return f"{where}ass<sup>k</sup> has no estimate: no task has a counted run."
    first = float((ran["c"] / ran["n"]).mean())
    whole = measured[measured["n_tasks"] == len(ran)]
    top = (whole if len(whole) else measured).iloc[-1]
    k, value, tasks = int(top["k"]), float(top["pass_pow_k"]), int(top["n_tasks"])
    if k == 1:
        interval = ""
        if np.isfinite(top["pass_at_k_low"]):
            interval = (
                f" ({level} {_ci(top['pass_at_k_low'], top['pass_at_k_high'])}, "
                f"{_interval_words(str(top['interval_method']), tasks)})"
            )
        sentence = (
            f"{where}ass@1 is {num(first, '.2f')}{interval}; with one run per task there is no "
            "pass<sup>k</sup> of k above 1."
        )
        return sentence.replace("\N{EN DASH}", JOINED_DASH)
    lower = value < first
    if bool((ran["n"] == k).all()):
        share = f"{'yet only' if lower else 'and'} {num(value, '.0%')} of tasks pass all {k} runs"
    else:
        chance = num(value, ".2f")
        share = f"{'yet' if lower else 'and'} {k} runs of a task all pass with chance {chance}"
    interval = ""
    if np.isfinite(top["pass_pow_k_low"]):
        interval = (
            f" (pass<sup>{k}</sup> {level} {_ci(top['pass_pow_k_low'], top['pass_pow_k_high'])}, "
            f"{_interval_words(str(top['interval_method']), tasks)})"
        )
    return f"{where}ass@1 is {num(first, '.2f')}, {share}{interval}.".replace(
        "\N{EN DASH}", JOINED_DASH
    )


def fit_reading(fit: pd.Series, name: str) -> str:
    """Return what a beta-binomial fit says, as a sentence: how much its tasks differ.

    An inflated fit is read first, its point masses before its Beta part; a fit
    of one run per task (``alpha`` NaN) cannot tell alike tasks from differing
    ones, and says so. The sentence starts with a capital.
    """
    where = f"{html.escape(name)}: " if name else ""
    alike = not np.isfinite(fit["alpha"]) and not np.isnan(fit["alpha"])
    if fit["fitted_model"] == "inflated":
        never, always = num(fit["zero_share"], ".0%"), num(fit["one_share"], ".0%")
        rest = (
            f"the rest pass alike, each run with chance {num(fit['mean'], '.3f')}"
            if alike
            else f"the rest differ, with run-to-run correlation {_RHO} = {num(fit['icc'], '.3f')}"
        )
        says = f"{never} of tasks never pass, {always} always pass; {rest}"
    elif np.isnan(fit["alpha"]):
        runs = fit["n_runs"] / fit["n_tasks"] if fit["n_tasks"] else 0
        per_task = "1 run per task" if runs == 1 else "these runs"
        says = (
            f"with {per_task} the fit cannot tell whether tasks differ in difficulty: "
            f"pass@1 is {num(fit['mean'], '.3f')}"
        )
    elif alike:
        says = (
            "the tasks look alike: the best fit is the binomial, every task with one chance "
            f"({num(fit['mean'], '.3f')}) of passing a run (\N{GREEK SMALL LETTER ALPHA} and "
            f"\N{GREEK SMALL LETTER BETA} infinite, run-to-run correlation {_RHO} = 0)"
        )
    elif fit["lr_pvalue"] <= 0.05:
        says = (
            "tasks differ in difficulty (run-to-run correlation "
            f"{_RHO} = {num(fit['icc'], '.3f')}); the binomial, which "
            f"takes them alike, is rejected (p = {p_value_text(fit['lr_pvalue'])})"
        )
    else:
        says = (
            f"tasks may differ (run-to-run correlation {_RHO} = {num(fit['icc'], '.3f')}), but "
            "not measurably more than "
            f"alike tasks would (p = {p_value_text(fit['lr_pvalue'])})"
        )
    if fit["rejected"]:
        says += (
            f"; the fit itself is rejected (p = {p_value_text(fit['gof_pvalue'])}): do not "
            "trust its predictions past the runs measured"
        )
    reading = f"{where}{says}."
    return f"{reading[0].upper()}{reading[1:]}"


def method_words(method: str, n_resamples: int) -> str:
    """Return how the curve's intervals were computed, for the page's methods block."""
    if method in RESAMPLING_METHODS:
        return (
            f"{INTERVAL_LABELS[method]} of the tasks, {n_resamples:,} resamples (closed-form "
            "Clopper\N{EN DASH}Pearson where the bootstrap has no width)"
        )
    binomial = INTERVAL_LABELS["clopper_pearson" if method == "auto" else method]
    return (
        f"{binomial} where every counted task has exactly k runs; elsewhere "
        "Clopper\N{EN DASH}Pearson on an effective number of tasks (the curve table marks which)"
    )


def ks_words(measured: list[int], predicted: list[int]) -> str:
    """Return the ks measured and predicted: ``measured at k = 1 to 5; predicted to k = 10``."""

    def run(ks: list[int]) -> str:
        if ks == list(range(ks[0], ks[-1] + 1)) and len(ks) > 2:
            return f"{ks[0]} to {ks[-1]}"
        return listed([str(k) for k in ks])

    said = f"measured at k = {run(measured)}" if measured else "none measured"
    return f"{said}; predicted to k = {max(predicted)}" if predicted else said
