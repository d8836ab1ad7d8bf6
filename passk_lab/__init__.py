"""passk_lab: measure how reliably an AI agent does a job.

Run every task several times, keep every run, and report pass@1 (the mean
single-run success rate) next to pass^k (the share of tasks that succeed on all
k runs), against the analytic curve p^k.

Examples
--------
>>> import passk_lab as pk
>>> result = pk.evaluate(pk.coin_tasks(p=0.85, tasks=40, seed=42), k=5)
>>> result.pass_at_1, result.pass_pow_k
(0.86, 0.45)
"""

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from passk_lab._version import __version__

if TYPE_CHECKING:  # what the names below are, for type checkers; imported on first use
    from passk_lab import io, plots, report
    from passk_lab._styled import styled
    from passk_lab.compare import compare
    from passk_lab.coverage import interval_coverage
    from passk_lab.estimators import (
        analytic_pow_k,
        error_sensitivity,
        pass_at_1,
        pass_at_k,
        pass_pow_k,
        plugin_pow_k,
        reliability_curve,
    )
    from passk_lab.g_pass import g_pass_at_k
    from passk_lab.harness import (
        ERROR_KINDS,
        EvalResult,
        Guard,
        Ledger,
        Task,
        evaluate,
        evaluate_async,
        read_ledger,
    )
    from passk_lab.harness._adaptive import AdaptiveResult, evaluate_until
    from passk_lab.heterogeneity import BetaBinomialFit, fit_betabinom, success_counts
    from passk_lab.intervals import ConfidenceInterval, PassAt1SE, binomial_ci, pass_at_1_se
    from passk_lab.leaderboard import leaderboard, pairwise
    from passk_lab.outcomes import (
        compact_runs,
        outcome_matrix,
        passed_from_reward,
        per_run,
        runs_from_matrix,
        tally,
        task_consistency,
    )
    from passk_lab.planning import plan_evaluation, required_p, zero_failure_runs
    from passk_lab.seeded import mulberry32, seeded
    from passk_lab.simulate import coin_tasks, simulate_coin, simulate_sweep
    from passk_lab.variability import consistency, noise_floor, variance_components

_MODULES = ("io", "plots", "report")
"""Subpackages served as they are."""

_HOMES = {
    name: f"passk_lab.{module}"
    for module, names in {
        "compare": ["compare"],
        "coverage": ["interval_coverage"],
        "estimators": [
            "analytic_pow_k",
            "error_sensitivity",
            "pass_at_1",
            "pass_at_k",
            "pass_pow_k",
            "plugin_pow_k",
            "reliability_curve",
        ],
        "harness": [
            "ERROR_KINDS",
            "EvalResult",
            "Guard",
            "Ledger",
            "Task",
            "evaluate",
            "evaluate_async",
            "read_ledger",
        ],
        "harness._adaptive": ["AdaptiveResult", "evaluate_until"],
        "g_pass": ["g_pass_at_k"],
        "heterogeneity": ["BetaBinomialFit", "fit_betabinom", "success_counts"],
        "intervals": ["ConfidenceInterval", "PassAt1SE", "binomial_ci", "pass_at_1_se"],
        "leaderboard": ["leaderboard", "pairwise"],
        "outcomes": [
            "compact_runs",
            "outcome_matrix",
            "passed_from_reward",
            "per_run",
            "runs_from_matrix",
            "tally",
            "task_consistency",
        ],
        "planning": ["plan_evaluation", "required_p", "zero_failure_runs"],
        "seeded": ["mulberry32", "seeded"],
        "simulate": ["coin_tasks", "simulate_coin", "simulate_sweep"],
        "_styled": ["styled"],
        "variability": ["consistency", "noise_floor", "variance_components"],
    }.items()
    for name in names
}
"""The module that defines each public name. Nothing is imported with the package itself
(``passk-lab --help`` needs none of numpy, pandas or scipy); a name's module is imported
the first time the name is used."""

_RENAMED = {"PassAt1Error": "PassAt1SE"}
"""Names of the last release that still work, with a DeprecationWarning, until the next."""


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use; serve the last release's names."""
    if name in _MODULES:
        return importlib.import_module(f"passk_lab.{name}")
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
        globals()[name] = value
        return value
    if name in _RENAMED:
        from passk_lab._warnings import warn

        new = _RENAMED[name]
        warn(
            f"passk_lab.{name} is now passk_lab.{new}; the old name goes in the next release",
            DeprecationWarning,
        )
        return __getattr__(new)
    raise AttributeError(f"module 'passk_lab' has no attribute {name!r}")


def __dir__() -> list[str]:
    """List the public API."""
    return sorted(__all__)


class _Package(ModuleType):
    """The package, keeping ``passk_lab.compare`` and ``passk_lab.seeded`` the functions.

    Importing a submodule sets it as an attribute of its package; where a
    public function has its module's name, the function stays.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, ModuleType) and _HOMES.get(name) == value.__name__:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "ERROR_KINDS",
    "AdaptiveResult",
    "BetaBinomialFit",
    "ConfidenceInterval",
    "EvalResult",
    "Guard",
    "Ledger",
    "PassAt1SE",
    "Task",
    "__version__",
    "analytic_pow_k",
    "binomial_ci",
    "coin_tasks",
    "compact_runs",
    "compare",
    "consistency",
    "error_sensitivity",
    "evaluate",
    "evaluate_async",
    "evaluate_until",
    "fit_betabinom",
    "g_pass_at_k",
    "interval_coverage",
    "io",
    "leaderboard",
    "mulberry32",
    "noise_floor",
    "outcome_matrix",
    "pairwise",
    "pass_at_1",
    "pass_at_1_se",
    "pass_at_k",
    "pass_pow_k",
    "passed_from_reward",
    "per_run",
    "plan_evaluation",
    "plots",
    "plugin_pow_k",
    "read_ledger",
    "reliability_curve",
    "report",
    "required_p",
    "runs_from_matrix",
    "seeded",
    "simulate_coin",
    "simulate_sweep",
    "styled",
    "success_counts",
    "tally",
    "task_consistency",
    "variance_components",
    "zero_failure_runs",
]
