"""Paired comparison of two agents run on the same tasks.

Two agents evaluated on the same tasks share the tasks' difficulty: a hard
task pulls both scores down. The difference in pass^k is best measured task by
task, and its uncertainty from the spread of the per-task differences (both
agents' runs of a task go together), which removes the shared difficulty from
the noise. The correlation between the agents' per-task scores says how much
that gains.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from passk_lab._checks import confidence
from passk_lab._choices import PAIRED_METHODS, ErrorPolicy, PairedMethod, Unmatched
from passk_lab._data.tally import as_tally
from passk_lab._errors import with_keywords
from passk_lab._interval_policy import IntervalSpec, curve_intervals
from passk_lab._paired import SIDES, pair, pairing_table
from passk_lab._typing import Floats, Ints

__all__ = ["compare"]


def compare(
    runs_a: pd.DataFrame | np.ndarray,
    runs_b: pd.DataFrame | np.ndarray,
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
    runs_a, runs_b : DataFrame or numpy.ndarray
        Each agent's runs table, outcome matrix or tally (no groups), with
        the same task ids. The agents may have different numbers of runs.
    ks : sequence of int, optional
        The k values; by default 1 to the largest k both agents reach.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        In (0, 1).
    method : {"auto", "bca", "percentile"}
        The interval of the difference. ``"auto"`` (the default): the
        intervals of the positive and of the negative part of the per-task
        differences (each Clopper-Pearson on an effective number of tasks,
        as the curve's), combined by the method of variance estimates
        recovery; it holds its level at 20 tasks, near the floor and the
        ceiling and where the agents rarely disagree, and is never a point
        (see docs/uncertainty.md for the measured coverage). ``"bca"``,
        ``"percentile"``: a paired task bootstrap, which undercovers there and
        gives way to the ``"auto"`` interval where it has no width.
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
        difference_high, correlation, n_tasks]``. ``value_a`` and ``value_b``
        are each agent's pass^k or pass@k over the ``n_tasks`` tasks where
        both agents have at least k runs, ``value_a_low`` to ``value_a_high``
        (and ``value_b_low`` to ``value_b_high``) that agent's own interval on
        those tasks, as :func:`~passk_lab.reliability_curve` gives it by
        default (closed form, whatever `method` is). ``difference`` is
        ``value_a - value_b`` (pass@1 is the k = 1 row), with its paired
        interval; ``correlation`` is the Pearson correlation of the two
        agents' per-task estimates. The intervals are NaN, with a warning,
        where fewer than two tasks count. ``attrs["method"]`` is the
        difference's interval method (`method`), ``attrs["agent_interval_method"]``
        that of each agent's own interval (``"auto"``, the curve's default).

    Raises
    ------
    ValueError
        If a task is on one side only (with ``unmatched="raise"``), or the
        sides share no task.

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
    >>> table.loc[:1, ["k", "difference_low", "difference_high"]].round(3)
       k  difference_low  difference_high
    0  1           0.174            0.256
    1  4           0.382            0.558
    >>> table.loc[:1, ["k", "value_a_low", "value_a_high", "value_b_low", "value_b_high"]].round(3)
       k  value_a_low  value_a_high  value_b_low  value_b_high
    0  1        0.874         0.922        0.650         0.716
    1  4        0.600         0.735        0.142         0.257
    >>> table.attrs["method"], table.attrs["agent_interval_method"]
    ('auto', 'auto')
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
        as_tally(runs_a, None, errors=errors),
        as_tally(runs_b, None, errors=errors),
        unmatched,
        sides,
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
