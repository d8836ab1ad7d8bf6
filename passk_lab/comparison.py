"""Paired comparison of two agents run on the same tasks.

Two agents evaluated on the same tasks share the tasks' difficulty: a hard
task pulls both scores down. The difference in pass^k is best measured task by
task, and its uncertainty from the spread of the per-task differences (both
agents' runs of a task go together), which removes the shared difficulty from
the noise. The correlation between the agents' per-task scores says how much
that gains. docs/curve.md describes the table and its intervals.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from passk_lab._checks import confidence
from passk_lab._choices import PAIRED_METHODS, ErrorPolicy, PairedMethod, Unmatched
from passk_lab._data.tally import Tally, TallyInput, as_tally
from passk_lab._errors import with_keywords
from passk_lab._interval_policy import IntervalSpec, curve_intervals
from passk_lab._paired import SIDES, pair, pairing_table
from passk_lab._typing import Floats, Ints

__all__ = ["compare"]


def compare(
    runs_a: TallyInput,
    runs_b: TallyInput,
    ks: Iterable[int] | None = None,
    *,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: PairedMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    unmatched: Unmatched = "raise",
    names: tuple[str, str] | None = None,
) -> pd.DataFrame:
    """Compare two agents' pass^k and pass@k on the same tasks, with paired intervals.

    Parameters
    ----------
    runs_a, runs_b : DataFrame, numpy.ndarray, Tally or dask.dataframe.DataFrame
        Each agent's runs, outcome matrix or tally (whatever
        :func:`~passk_lab.tally` takes, without groups), with the same task
        ids. The agents may have different numbers of runs.
    ks : sequence of int, optional
        The k values; by default 1 to the largest k both agents reach.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        In (0, 1).
    method : {"auto", "bca", "percentile"}
        The interval of the difference: ``"auto"`` (the default, closed form,
        never a point, holding its level where the bootstraps do not), or a
        paired task bootstrap, which gives way to the ``"auto"`` interval
        where it has no width. docs/curve.md says how each is made.
    n_resamples : int
        Bootstrap resamples of tasks (each task keeps both agents' runs).
    rng : int, numpy.random.Generator or None
        Seed or generator of the bootstrap; the ``"auto"`` interval draws
        nothing.
    unmatched : {"raise", "drop"}
        A task that only one side has is refused (the default), or dropped
        with a warning and listed in ``attrs["only_in_a"]`` and
        ``attrs["only_in_b"]``.
    names : pair of str, optional
        What the messages call the two sides, e.g. ``("A (strong.csv)", "B
        (weak.csv)")``; by default the parameters' names, ``runs_a`` and
        ``runs_b``.

    Returns
    -------
    DataFrame
        One row per metric (``pass_pow_k``, ``pass_at_k``) and k:
        ``[metric, k, value_a, value_a_low, value_a_high, value_b,
        value_b_low, value_b_high, difference, difference_low,
        difference_high, correlation, n_tasks]``: each agent's value and
        own interval over the ``n_tasks`` tasks where both have at least k
        runs, ``value_a - value_b`` with its paired interval, and the
        correlation of the agents' per-task estimates. ``attrs`` holds
        ``confidence_level``, ``method``, ``n_resamples``, ``errors``,
        ``only_in_a``, ``only_in_b`` and ``agent_interval_method``.

    Raises
    ------
    ValueError
        If a task is on one side only (with ``unmatched="raise"``), the sides
        share no task, no task has k runs on both sides, a side is a tally
        with groups, or an argument is out of range; the message names the fix.
    TypeError
        If `names` is not two non-empty texts.

    Examples
    --------
    >>> import passk_lab as pk
    >>> strong = pk.simulate_coin(p=0.9, tasks=200, k=4, seed=1)
    >>> weak = pk.simulate_coin(p=0.7, tasks=200, k=4, seed=2)
    >>> table = compare(strong, weak, [1, 4])
    >>> table[["metric", "k", "value_a", "value_b", "difference"]].round(3)
           metric  k  value_a  value_b  difference
    0  pass_pow_k  1     0.90    0.684       0.216
    1  pass_pow_k  4     0.67    0.195       0.475
    2   pass_at_k  1     0.90    0.684       0.216
    3   pass_at_k  4     1.00    1.000       0.000
    """
    level = confidence(confidence_level)
    if method not in PAIRED_METHODS:
        raise with_keywords(
            ValueError(f"method must be one of {', '.join(PAIRED_METHODS)}; got {method!r}"),
            "method",
        )
    sides = SIDES if names is None else _side_names(names)
    spec = IntervalSpec.of("auto", level, n_resamples, rng)
    pairing = pair(
        _side(runs_a, sides[0], errors), _side(runs_b, sides[1], errors), unmatched, sides
    )
    table = pairing_table(
        pairing,
        ks,
        confidence_level=level,
        method=method,
        n_resamples=n_resamples,
        rng=rng,
    )
    n_a, c_a, n_b, c_b = pairing.cells.T
    fewer = np.minimum(n_a, n_b)
    for side, (n, c) in (("a", (n_a, c_a)), ("b", (n_b, c_b))):
        low, high = _own_limits(n, c, pairing.tasks, fewer, table, spec)
        place = list(table.columns).index(f"value_{side}") + 1
        table.insert(place, f"value_{side}_low", low)
        table.insert(place + 1, f"value_{side}_high", high)
    table.attrs["agent_interval_method"] = spec.method
    return table


def _side(data: TallyInput, name: str, errors: ErrorPolicy) -> Tally:
    """Return one side's tally under `errors`, refusing a Tally with groups (two agents or more)."""
    if isinstance(data, Tally) and data.by:
        raise ValueError(
            f"{name} is a tally grouped by {list(data.by)}; compare takes one agent a side, "
            f"without groups: give each agent's own tally, or compare the groups of one table "
            f"with pairwise(runs, by={list(data.by)!r})"
        )
    return as_tally(data, None, errors=errors)


def _own_limits(
    n: Ints, c: Ints, tasks: Ints, fewer: Ints, table: pd.DataFrame, spec: IntervalSpec
) -> tuple[Floats, Floats]:
    """One agent's interval on each row of compare's table, by the row's metric and k.

    The agent's cells are `n` runs and `c` passes of `tasks` tasks each. At k
    they count where both agents have at least k runs (`fewer` is the smaller
    of the two runs of a cell): the curve's interval policy applied to them,
    once per set of tasks counted.
    """
    ks = np.unique(table["k"].to_numpy(dtype=np.int64))
    thresholds = np.unique(fewer)
    counted_from = np.searchsorted(thresholds, ks)  # the tasks counted at k: fewer >= this
    limits: dict[tuple[str, int], tuple[float, float]] = {}
    for which in np.unique(counted_from):
        at = ks[counted_from == which]
        rows = fewer >= thresholds[which]
        cells, place = np.unique(np.column_stack([n[rows], c[rows]]), axis=0, return_inverse=True)
        counts = np.bincount(place.ravel(), weights=tasks[rows]).astype(np.int64)
        intervals = curve_intervals(cells[:, 0], cells[:, 1], counts, at, spec)
        for metric, (low, high) in (
            ("pass_pow_k", intervals.pass_pow_k),
            ("pass_at_k", intervals.pass_at_k),
        ):
            limits.update(
                {
                    (metric, int(k)): (float(lo), float(hi))
                    for k, lo, hi in zip(at, low, high, strict=True)
                }
            )
    ends = np.array(
        [limits[metric, int(k)] for metric, k in zip(table["metric"], table["k"], strict=True)]
    ).reshape(-1, 2)
    return ends[:, 0], ends[:, 1]


def _side_names(names: object) -> tuple[str, str]:
    """Return `names` as the two sides' names, or refuse them naming what to give."""
    if (
        not isinstance(names, list | tuple)
        or len(names) != 2
        or not all(isinstance(name, str) and name for name in names)
    ):
        raise with_keywords(
            TypeError(
                "names must be two non-empty texts, one per side, such as ('A', 'B'); got "
                f"{names!r}"
            ),
            "names",
        )
    return str(names[0]), str(names[1])
