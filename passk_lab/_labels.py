"""Names a reader knows for the library's columns, shared by the plots and the reports."""

from __future__ import annotations

import re

import pandas as pd

from passk_lab._data.costs import COST_PREFIX
from passk_lab._numbers import level_text

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
    "predicted": "model-based",
    "value_a": "A",
    "value_b": "B",
    "difference": "A - B",
    "tie_group": "tie group",
    "p_value": "p",
    "p_adjusted": "adjusted p",
    "successes": "runs passed",
    "binomial": "binomial expected",
    "betabinom": "fit expected",
    "n_runs": "runs",
    # a beta-binomial fit (BetaBinomialFit.to_frame)
    "mean": "mean pass rate",
    "icc": "ICC",
    "alpha": "\N{GREEK SMALL LETTER ALPHA}",
    "beta": "\N{GREEK SMALL LETTER BETA}",
    "fitted_model": "model fitted",
    "zero_share": "never pass",
    "one_share": "always pass",
    "log_likelihood": "log L",
    "binomial_log_likelihood": "binomial log L",
    "lr_statistic": "LR statistic",
    "lr_pvalue": "tasks alike p",
    "inflation_pvalue": "inflation p",
    "gof_statistic": "fit \N{GREEK SMALL LETTER CHI}\N{SUPERSCRIPT TWO}",
    "gof_df": "fit df",
    "gof_pvalue": "fit p",
    "rejected": "fit rejected",
    # errored runs as failures or left out (error_sensitivity)
    "pass_at_k_fail": "pass@k, errors as failures",
    "pass_at_k_exclude": "pass@k, errors left out",
    "pass_pow_k_fail": "pass^k, errors as failures",
    "pass_pow_k_exclude": "pass^k, errors left out",
    "n_tasks_fail": "tasks, errors as failures",
    "n_tasks_exclude": "tasks, errors left out",
    # planning (plan_evaluation, required_p, zero_failure_runs and passk-lab plan)
    "required_p": "per-run p needed",
    "p0": "p to show",
    "confidence_level": "confidence",
    "runs_per_task": "runs per task",
    "zero_failure_runs": "runs, all passing",
    "total_runs": "total runs",
    "task_sd": "task sd",
    "half_width": "half-width",
    # variability (variance_components, noise_floor, consistency, g_pass_at_k)
    "pass_at_1": "pass@1",
    "between_task_variance": "between-task variance",
    "within_task_variance": "within-task variance",
    "flip_share": "tasks with mixed runs",
    "run_pass_at_1_min": "run pass@1 min",
    "run_pass_at_1_max": "run pass@1 max",
    "run_pass_at_1_sd": "run pass@1 sd",
    "runs_per_comparison": "runs per comparison",
    "noise_floor": "noise floor",
    "standard_error": "standard error",
    "consistency_unbiased": "consistency, unbiased",
    "g_pass_at_k": "G-pass@k",
}

PLAN_LABELS = {"target": "pass^k wanted"}
"""Labels of planning columns whose names other tables use for something else.

A samples table's ``target`` is the answer a task expects, so ``plan rate``'s
``target`` (the pass^k wanted) is labelled only where a plan is shown.
"""

INTERVAL_LABELS = {  # a curve's interval_method values
    "clopper_pearson": "Clopper\N{EN DASH}Pearson",
    "effective_n": "Clopper\N{EN DASH}Pearson, effective n",
    "wilson": "Wilson",
    "jeffreys": "Jeffreys",
    "agresti_coull": "Agresti\N{EN DASH}Coull",
    "wald": "Wald",
    "percentile": "percentile bootstrap",
    "bca": "BCa bootstrap",
    "two-level": "two-level bootstrap",
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


def interval_name(method: str) -> str:
    """Return the name a reader knows for a curve's ``interval_method`` value.

    Examples
    --------
    >>> interval_name("wilson"), interval_name("effective_n (bca: no width)")
    ('Wilson', 'Clopper\N{EN DASH}Pearson, effective n (BCa bootstrap: no width)')
    >>> interval_name("percentile (pass@k: clopper_pearson (percentile: no width))")
    'percentile bootstrap (pass@k: Clopper\N{EN DASH}Pearson (percentile bootstrap: no width))'
    >>> interval_name("none (fewer than 2 tasks)")
    'none (fewer than 2 tasks)'
    """
    return re.sub(r"[a-z_-]+", lambda word: INTERVAL_LABELS.get(word.group(), word.group()), method)


def interval_label(frame: pd.DataFrame) -> str:
    """Return ``"95% CI"`` at the confidence level a result table records, else ``"CI"``."""
    level = frame.attrs.get("confidence_level")
    return f"{level_text(level)} CI" if isinstance(level, float) else "CI"
