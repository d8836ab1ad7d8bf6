"""What the page's tables hold that a reader could misread: the fit's columns, the blank cells.

The beta-binomial fit's table sets estimates beside each other that look
alike and are not (the fit's mean pass rate and pass@1; a correlation in a
column beside pass rates): :func:`fit_terms` says what each column is, with
the numbers a reader would compare. A table's blank cell is a figure that
could not be computed; :func:`interval_blanks`, :func:`fit_blanks` and
:func:`unidentified` say why, next to the table it is in. Every sentence is
HTML, its text escaped.
"""

from __future__ import annotations

import html

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._labels import LABELS
from passk_lab.report._captions import RHO
from passk_lab.report._prose import listed, num

__all__ = [
    "blank_intervals",
    "fit_blanks",
    "fit_terms",
    "interval_blanks",
    "unidentified",
    "why_unidentified",
]


def why_unidentified(fit: pd.Series) -> str:
    """Return why a fit is not identified (its ``alpha`` NaN): what its runs are.

    Examples
    --------
    >>> why_unidentified(pd.Series({"mean": 1.0, "n_tasks": 10, "n_runs": 30}))
    'every run passed'
    """
    if fit["n_tasks"] and fit["n_runs"] == fit["n_tasks"]:
        return "each task has one run"
    if fit["mean"] == 1:
        return "every run passed"
    if fit["mean"] == 0:
        return "every run failed"
    return "no task has two runs"


def _named(name: str, text: str) -> str:
    """Return `text` for one group: ``model a: text``, or `text` alone without groups."""
    return f"{html.escape(name)}: {text}" if name else text


def unidentified(fits: pd.DataFrame, names: list[str], what: str) -> str | None:
    """Return why a table's column `what` is blank for the groups whose fit is not identified.

    None when every fit is identified. `fits` is the report's ``betabinom``
    table, a row per group in the order of `names`.
    """
    said = [
        _named(name, why_unidentified(fit))
        for name, (_, fit) in zip(names, fits.iterrows(), strict=True)
        if np.isnan(fit["alpha"])
    ]
    if not said:
        return None
    return (
        f"{what} is blank where the beta-binomial is not fitted ({'; '.join(said)}): such runs "
        "cannot tell whether tasks differ in difficulty."
    )


def _mean_term(fits: pd.DataFrame, names: list[str], pass_at_1: list[float]) -> str:
    """Return what the fit's mean pass rate is, set beside pass@1 where the two differ."""
    zero, one = fits["zero_share"].fillna(0.0), fits["one_share"].fillna(0.0)
    inflated = fits["fitted_model"] == "inflated"
    means = np.where(inflated, one + (1 - zero - one) * fits["mean"], fits["mean"])
    said = (
        "The fitted model's mean chance that a run passes (\N{GREEK SMALL LETTER ALPHA} / "
        "(\N{GREEK SMALL LETTER ALPHA} + \N{GREEK SMALL LETTER BETA})"
        + (", with the tasks that never or always pass" if inflated.any() else "")
        + "), a maximum-likelihood estimate. It estimates what pass@1 does, another way: "
        "pass@1 averages each task's share of passing runs, so the two differ a little."
    )
    apart = [
        _named(name, f"{num(mean, '.3f')} against pass@1 {num(rate, '.3f')}")
        for name, mean, rate in zip(names, means, pass_at_1, strict=True)
        if np.isfinite(mean) and num(mean, ".3f") != num(rate, ".3f")
    ]
    return f"{said} Here {listed(apart)}." if apart else said


def fit_terms(
    fits: pd.DataFrame, names: list[str], pass_at_1: list[float], columns: list[str]
) -> tuple[tuple[str, str], ...]:
    """Return what each column of the fit's table means, as (label, HTML), and why one is blank.

    Parameters
    ----------
    fits : DataFrame
        The report's ``betabinom`` table, a row per group in the order of `names`.
    names : list of str
        Each group's name (``model a``; ``""`` without groups).
    pass_at_1 : list of float
        Each group's pass@1, set beside the fit's mean where they differ.
    columns : list of str
        The labels of the table as the page shows it: a term is given for each
        of them that needs one.
    """
    icc = next((column for column in columns if column.startswith(LABELS["icc"])), None)
    terms = {
        LABELS["mean"]: _mean_term(fits, names, pass_at_1),
        icc: (
            f"The run-to-run correlation {RHO} of the histograms' keys (the intraclass "
            "correlation), how alike a task's runs are, not a pass rate: 0 when every task has "
            "one pass rate and its runs pass independently; toward 1 as each task comes to "
            "always pass or always fail."
        ),
        "\N{GREEK SMALL LETTER ALPHA}, \N{GREEK SMALL LETTER BETA}": (
            "The shapes of the Beta distribution of the tasks' pass rates; \N{INFINITY} when the "
            "tasks look alike (the binomial), \N{EM DASH} where nothing is fitted."
        ),
        LABELS["lr_pvalue"]: (
            "The likelihood-ratio test of tasks alike (the binomial) against tasks that differ "
            "(the beta-binomial): a small p says they differ."
        ),
        LABELS["gof_pvalue"]: (
            "Pearson's chi-squared check of the fitted model against the tasks' counts of "
            "passes: a small p says the model does not describe these runs, and its "
            "predictions past them are not to be trusted."
        ),
    }
    gone = unidentified(fits, names, "It")
    if gone and icc is not None:
        terms[icc] += f" {gone}"
    blank = fit_blanks(fits, names)
    if blank:
        terms[LABELS["gof_pvalue"]] += f" {blank}"
    shown = set(columns) | {"\N{GREEK SMALL LETTER ALPHA}, \N{GREEK SMALL LETTER BETA}"}
    return tuple((term, said) for term, said in terms.items() if term in shown)


def fit_blanks(fits: pd.DataFrame, names: list[str]) -> str | None:
    """Return why the fit's check (fit p) is blank where it is, or None where it never is.

    The check pools tasks by their passes into groups that the model expects
    to hold at least 2 tasks each, and needs more groups than the model has
    parameters: a few tasks, or many that pass alike, give too few. A fit not
    identified is not checked.
    """
    nothing = [
        _named(name, why_unidentified(fit))
        for name, (_, fit) in zip(names, fits.iterrows(), strict=True)
        if np.isnan(fit["alpha"])
    ]
    few = [
        _named(name, f"{fit['n_tasks']:,} tasks")
        for name, (_, fit) in zip(names, fits.iterrows(), strict=True)
        if not np.isnan(fit["alpha"]) and np.isnan(fit["gof_pvalue"])
    ]
    said = []
    if few:
        said.append(
            f"too few tasks, or tasks too alike, to check the fit ({'; '.join(few)}): the "
            "check pools tasks by their passes into groups the model expects to hold 2 tasks "
            "or more, and needs more such groups than the model has parameters"
        )
    if nothing:
        said.append(f"nothing fitted to check ({'; '.join(nothing)})")
    return f"Blank where there are {' and '.join(said)}." if said else None


def blank_intervals(shown: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """Return, row by row of a table as the page shows it, whether an interval of it is blank."""
    empty = np.zeros(len(shown), dtype=bool)
    for column in shown.columns:
        if str(column).endswith(" CI"):
            empty |= (shown[column].astype("str") == "").to_numpy()
    return empty


def interval_blanks(shown: pd.DataFrame, methods: pd.Series) -> str | None:
    """Return why a measured curve's interval is blank where it is, or None if none is.

    `shown` is the curve as the page shows it, `methods` its ``interval_method``
    column: ``none (fewer than 2 tasks)`` where one task gives no interval.

    Examples
    --------
    >>> shown = pd.DataFrame({"k": [1, 2], "pass^k 95% CI": ["[0.1, 0.5]", ""]})
    >>> print(interval_blanks(shown, pd.Series(["wilson", "none (fewer than 2 tasks)"])))
    An interval is blank where none can be computed (fewer than 2 tasks).
    """
    empty = blank_intervals(shown)
    if not empty.any():
        return None
    reasons = sorted(
        {
            str(method).partition(" (")[2].rstrip(")") or str(method)
            for method in methods.to_numpy()[empty]
        }
    )
    return f"An interval is blank where none can be computed ({html.escape(listed(reasons))})."
