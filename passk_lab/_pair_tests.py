"""The paired tests of every pair of agents: differences, intervals, p-values and their adjustment.

Every pair of agents is compared task by task, as :func:`~passk_lab.compare`
compares two (:func:`~passk_lab._paired.paired_table`): the difference in
pass^k (or pass@k), its paired interval, and the correlation of the agents'
per-task scores. Each pair also gets the p-value of the paired sign-flip test
of no difference (:mod:`passk_lab._permutation`; McNemar's exact test at k = 1
with one run per task), adjusted for the number of pairs by Holm's step-down
method or Benjamini and Hochberg's step-up one (:func:`adjusted_p_values`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._agents import Agents
from passk_lab._choices import METRICS, PAIRED_METHODS, Adjustment, Metric, PairedMethod
from passk_lab._errors import with_keywords
from passk_lab._paired import paired_table
from passk_lab._permutation import permutation_test, smallest_p_value, tasks_to_separate
from passk_lab._typing import Floats, Ints
from passk_lab._warnings import NoSeparationWarning, ResolutionWarning, warn

__all__ = [
    "adjusted_p_values",
    "check_adjust",
    "check_method",
    "check_metrics",
    "draw_seed",
    "pair_tests",
    "pairs_attrs",
    "warn_no_separation",
]


def adjusted_p_values(p_values: Floats, adjust: Adjustment | None) -> Floats:
    """Holm's step-down or Benjamini and Hochberg's step-up adjusted p-values of one family.

    Examples
    --------
    >>> adjusted_p_values(np.array([0.01, 0.04, 0.03]), "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjusted_p_values(np.array([0.01, 0.04, 0.03]), "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    count = len(p_values)
    order = np.argsort(p_values, kind="stable")
    ranked = p_values[order]
    if adjust == "holm":
        steps = np.maximum.accumulate(np.minimum(1.0, (count - np.arange(count)) * ranked))
    else:
        scaled = ranked * count / np.arange(1, count + 1)
        steps = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    adjusted = np.empty(count)
    adjusted[order] = steps
    return adjusted


def check_adjust(adjust: object) -> Adjustment | None:
    if adjust is None or adjust == "holm" or adjust == "bh":
        return adjust
    raise ValueError(f"adjust must be 'holm', 'bh' or None, got {adjust!r}")


def pair_tests(
    agents: Agents,
    ks: Ints,
    metrics: tuple[Metric, ...],
    *,
    common_tasks: bool,
    confidence_level: float,
    method: PairedMethod,
    adjust: Adjustment | None,
    n_resamples: int,
    seed: int,
) -> pd.DataFrame:
    """Return every pair's comparison and test at each metric and k: :func:`pairwise`'s table.

    Each test draws (where it draws at all) from its own generator, seeded by
    `seed`, the pair, the metric and k, so that a test gives one p-value
    whatever else is computed beside it; a bootstrap `method` of the
    differences draws from one of its own, seeded by `seed`, the pair and
    the tasks counted.
    """
    tables: list[pd.DataFrame] = []
    for place, pair in enumerate(agents.pairs()):
        first, second = pair
        counted = agents.counted(None if common_tasks else pair, ks)
        masks, which = np.unique(counted, axis=1, return_inverse=True)
        parts = []
        for mask in range(masks.shape[1]):  # the ks that count the same tasks, together
            rows, at = masks[:, mask], ks[which.ravel() == mask]
            table = paired_table(
                agents.tally(first, rows),
                agents.tally(second, rows),
                at,
                confidence_level=confidence_level,
                method=method,
                n_resamples=n_resamples,
                rng=np.random.default_rng([seed, first, second, len(METRICS), mask]),
            )
            parts.append(table[table["metric"].isin(metrics)])
        table = pd.concat(parts, ignore_index=True)
        tests = [
            permutation_test(
                agents.n[rows, first],
                agents.c[rows, first],
                agents.n[rows, second],
                agents.c[rows, second],
                int(k),
                metric,
                n_resamples=n_resamples,
                rng=np.random.default_rng([seed, first, second, METRICS.index(metric), int(k)]),
            )
            for metric, k in zip(table["metric"], table["k"], strict=True)
            for rows in [counted[:, int(np.searchsorted(ks, k))]]
        ]
        table.insert(0, "b", [agents.names[second]] * len(table))
        table.insert(0, "a", [agents.names[first]] * len(table))
        table["p_value"] = [test.p_value for test in tests]
        table["test"] = [test.test for test in tests]
        table["pair"] = place
        tables.append(table)
    result = pd.concat(tables, ignore_index=True)
    result = result.sort_values(
        ["metric", "k", "pair"],
        key=lambda column: column.map(METRICS.index) if column.name == "metric" else column,
    )
    result["p_adjusted"] = result["p_value"]
    if adjust is not None:
        for _, family in result.groupby(["metric", "k"], sort=False).groups.items():
            result.loc[family, "p_adjusted"] = adjusted_p_values(
                result.loc[family, "p_value"].to_numpy(), adjust
            )
    _warn_monte_carlo(result, len(agents.pairs()), 1.0 - confidence_level, adjust, n_resamples)
    warn_no_separation(result, len(agents.pairs()), 1.0 - confidence_level, adjust)
    columns = [*result.columns.drop(["pair", "test", "p_adjusted"]), "p_adjusted", "test"]
    return result[columns].reset_index(drop=True)


def _warn_monte_carlo(
    pairs: pd.DataFrame, count: int, alpha: float, adjust: Adjustment | None, n_resamples: int
) -> None:
    """Warn where Monte Carlo p-values cannot fall below the smallest adjusted threshold."""
    drawn = pairs["test"].str.startswith("sign_flip_monte_carlo")
    threshold = alpha if adjust is None else alpha / count
    if drawn.any() and 1.0 / (1 + n_resamples) > threshold:
        needed = math.ceil(1.0 / threshold - 1.0)
        against = (
            f"the level {alpha:.2g}"
            if adjust is None
            else f"{alpha:.2g} / {count} pairs = {threshold:.2g}, the smallest threshold of "
            f"{'Holm' if adjust == 'holm' else 'Benjamini and Hochberg'}"
        )
        warn(
            ResolutionWarning(
                f"{int(drawn.sum())} test(s) are Monte Carlo ones (their exact lattice is too "
                f"large), and {n_resamples:,} draws cannot show a p-value below "
                f"1/{n_resamples + 1:,}, which is above {against}: a difference those tests "
                f"would show may be missed; raise n_resamples to at least {needed:,}",
                tests=int(drawn.sum()),
                needed=needed,
            )
        )


def warn_no_separation(
    pairs: pd.DataFrame, count: int, level: float, adjust: Adjustment | None
) -> None:
    """Warn at the ks where too few tasks leave every pair's adjusted p-value above `level`.

    On ``m`` tasks the sign-flip test gives no p-value below ``2 / 2**m``
    (:func:`~passk_lab._permutation.smallest_p_value`), whatever the runs;
    Holm's adjustment multiplies the smallest of a family by the `count` of
    pairs, Benjamini and Hochberg's may leave it as it is. Where that floor,
    on the most tasks any pair is counted on at a k, is above `level`, no
    pair is told apart there: :class:`~passk_lab._warnings.NoSeparationWarning`
    says so, and how many tasks it takes before one can be
    (:func:`~passk_lab._permutation.tasks_to_separate`).

    Examples
    --------
    >>> import warnings
    >>> pairs = pd.DataFrame({"k": [1, 1, 1], "n_tasks": [5, 5, 5]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_no_separation(pairs, 3, 0.05, "holm")
    >>> found = caught[0].message
    >>> found.smallest_p, found.tasks, found.needed, found.pairs, found.ks
    (0.1875, 5, 7, 3, (1,))
    """
    factor = count if adjust == "holm" else 1
    most = pairs.groupby("k", sort=True)["n_tasks"].max()
    blind = most[[factor * smallest_p_value(int(tasks)) > level for tasks in most]]
    if blind.empty:
        return
    tasks = int(blind.max())
    floor = smallest_p_value(tasks)
    smallest = min(1.0, factor * floor)
    needed = tasks_to_separate(level, factor)
    ks = [int(k) for k in blind.index]
    at = f"k = {ks[0]}" if len(ks) == 1 else f"k = {', '.join(map(str, ks[:-1]))} and {ks[-1]}"
    counted = f"{tasks} tasks" if bool((blind == tasks).all()) else f"at most {tasks} tasks"
    adjusted = (
        f", and Holm's adjustment over the {count} pairs makes the smallest "
        f"min(1, {count} x {floor:.3g}) = {smallest:.3g}"
        if factor > 1
        else ""
    )
    warn(
        NoSeparationWarning(
            f"at {at}, on {counted}, no two agents can be told apart at the level {level:.2g}, "
            f"whatever their runs: the paired sign-flip test gives no p-value below 2/2^{tasks} = "
            f"{floor:.3g} (every task favouring one agent){adjusted}. It takes at least {needed} "
            f"tasks before any pair can be told apart, and then only if every one of them "
            f"favours the same agent",
            smallest_p=smallest,
            level=level,
            tasks=tasks,
            needed=needed,
            pairs=count,
            ks=ks,
        )
    )


def pairs_attrs(
    agents: Agents,
    adjust: Adjustment | None,
    level: float,
    method: PairedMethod,
    draws: int,
    common_tasks: bool,
) -> dict[Hashable | None, Any]:
    """Return a pairwise table's ``attrs``."""
    return {
        "by": list(agents.by),
        "adjust": adjust,
        "confidence_level": level,
        "method": method,
        "errors": agents.errors,
        "n_resamples": draws,
        "common_tasks": common_tasks,
        "dropped_tasks": agents.dropped,
    }


def check_method(method: object) -> PairedMethod:
    """Return the paired interval `method` names, refusing any other."""
    chosen = next((name for name in PAIRED_METHODS if name == method), None)
    if chosen is None:
        raise with_keywords(
            ValueError(f"method must be one of {', '.join(PAIRED_METHODS)}; got {method!r}"),
            "method",
        )
    return chosen


def check_metrics(metrics: object) -> tuple[Metric, ...]:
    """Return the asked metrics in the tables' order, refusing any other name."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)  # type: ignore[call-overload]
    unknown = [name for name in names if name not in METRICS]
    if unknown or not names:
        raise ValueError(f"metrics must name pass_pow_k, pass_at_k or both, got {metrics!r}")
    return tuple(metric for metric in METRICS if metric in names)


def draw_seed(rng: int | np.random.Generator | None) -> int:
    """Return one seed drawn from `rng`, from which every test's own generator is made."""
    return int(np.random.default_rng(rng).integers(2**63))
