"""Names a reader knows for the library's columns, shared by the plots and the reports."""

from __future__ import annotations

import pandas as pd

from passk_lab._data.costs import COST_PREFIX

LABELS = {  # column (and metric) names; "^k" is set as a superscript where the format allows
    "pass_pow_k": "pass^k",
    "pass_at_k": "pass@k",
    "p_pow_k": "(pass@1)^k",
    "betabinom_pow_k": "beta-binomial pass^k",
    "betabinom_fit_pvalue": "beta-binomial fit p",
    "n_tasks": "tasks",
    "n_tasks_excluded": "tasks excluded",
    "n_runs_excluded": "runs excluded",
    "interval_method": "interval",
    "value_a": "A",
    "value_b": "B",
    "difference": "A - B",
    "tie_group": "tie group",
    "p_value": "p",
    "p_adjusted": "adjusted p",
    "successes": "runs passed",
    "binomial": "binomial expected",
    "betabinom": "beta-binomial expected",
}


_PER_PASS = "_per_pass_pow_k"
_PER_COST = "pass_pow_k_per_"


def label(name: str) -> str:
    """Return the label a reader knows for a column: from ``LABELS``, a cost's, or the name.

    A curve's cost columns (:func:`~passk_lab.reliability_curve`) carry the
    name of their cost in their labels.

    Examples
    --------
    >>> [label(name) for name in ["pass_pow_k", "cost_usd", "cost_usd_per_pass_pow_k"]]
    ['pass^k', 'cost of k runs (usd)', 'cost per pass^k task (usd)']
    >>> label("pass_pow_k_per_usd"), label("rank")
    ('pass^k per usd', 'rank')
    """
    if name in LABELS:
        return LABELS[name]
    if name.startswith(_PER_COST) and len(name) > len(_PER_COST):
        return f"pass^k per {name.removeprefix(_PER_COST)}"
    unit = name.removeprefix(COST_PREFIX)
    if not name.startswith(COST_PREFIX) or not unit:
        return name
    if unit.endswith(_PER_PASS) and len(unit) > len(_PER_PASS):
        return f"cost per pass^k task ({unit.removesuffix(_PER_PASS)})"
    return f"cost of k runs ({unit})"


def interval_label(frame: pd.DataFrame) -> str:
    """Return ``"95% CI"`` at the confidence level a result table records, else ``"CI"``."""
    level = frame.attrs.get("confidence_level")
    return f"{level:.0%} CI" if isinstance(level, float) else "CI"
