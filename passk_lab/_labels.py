"""Names a reader knows for the library's columns, shared by the plots and the reports."""

from __future__ import annotations

import pandas as pd

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


def interval_label(frame: pd.DataFrame) -> str:
    """Return ``"95% CI"`` at the confidence level a result table records, else ``"CI"``."""
    level = frame.attrs.get("confidence_level")
    return f"{level:.0%} CI" if isinstance(level, float) else "CI"
