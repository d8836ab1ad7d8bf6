"""Leaderboards of many agents on the same tasks: ranks with simultaneous intervals, pairwise tests.

:func:`pairwise` compares every pair of agents task by task, as
:func:`~passk_lab.compare` compares two, with the p-value of the paired
sign-flip test of no difference, adjusted for the number of pairs
(``_pair_tests``). :func:`leaderboard` ranks the agents by their estimate at
each k and turns the Holm-adjusted tests into simultaneous rank intervals and
tie groups (``_ranks``); the agents' runs on the tasks they share are read
once (``_agents``). docs/leaderboards.md says what the tests and the rank
intervals rest on, and measures their coverage.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import numpy as np
import pandas as pd

from passk_lab._agents import Agents, warn_left_out, warn_unequal_runs
from passk_lab._checks import confidence, positive_int
from passk_lab._choices import (
    METRICS,
    Adjustment,
    ErrorPolicy,
    IntervalMethod,
    Metric,
    PairedMethod,
    Unmatched,
)
from passk_lab._data.cells import pass_at_k_values, pass_pow_k_values
from passk_lab._data.rules import By
from passk_lab._data.tally import TallyInput
from passk_lab._interval_policy import IntervalSpec, Redraw, mean_intervals
from passk_lab._pair_tests import (
    check_adjust,
    check_method,
    check_metrics,
    draw_seed,
    pair_tests,
    pairs_attrs,
)
from passk_lab._ranks import ranked_board
from passk_lab._typing import Bools, Floats, Ints
from passk_lab._warnings import by_keyword

__all__ = ["leaderboard", "pairwise"]


@by_keyword(1)
def pairwise(
    runs: TallyInput,
    ks: Iterable[int] | None = None,
    *,
    by: By = "model",
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: PairedMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    metrics: Iterable[Metric] = METRICS,
    adjust: Adjustment | None = "holm",
    common_tasks: bool = False,
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """Compare every pair of agents on the tasks they share: differences, intervals, tests.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or Dask DataFrame
        Whatever :func:`~passk_lab.tally` takes, with `by` naming the agents.
    ks : sequence of int, optional
        The k values; by default 1 to the most runs every agent has on a task.
    by : str or list of str
        The column(s) that name the agents.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        Of each difference's interval, in (0, 1).
    method : {"auto", "bca", "percentile"}
        The interval of each difference, as :func:`~passk_lab.compare`'s.
    n_resamples : int
        Draws of the Monte Carlo sign-flip test (only where the exact one's
        lattice is too large), and of a bootstrap `method`.
    rng : int, numpy.random.Generator or None
        Seed or generator of those draws; each test draws from its own, made
        from one seed drawn from `rng` and its pair, metric and k, so that
        :func:`leaderboard` with the same int seed draws the same.
    metrics : sequence of {"pass_pow_k", "pass_at_k"}
        The metrics compared; both by default.
    adjust : {"holm", "bh", None}
        How the p-values of one metric and k are adjusted for the pairs: by
        Holm's step-down method (the family-wise error), Benjamini and
        Hochberg's (the false discovery rate), or not at all.
    common_tasks : bool
        Count each k on the tasks where every agent has k runs (the tests
        :func:`leaderboard`'s ranks come from), not those both agents have.
    unmatched : {"raise", "drop"}
        A task that some agent lacks is refused (the default), or dropped from
        every agent with a warning and listed in ``attrs["dropped_tasks"]``.

    Returns
    -------
    DataFrame
        One row per metric (``pass_pow_k``, then ``pass_at_k``), k and pair,
        the pairs in the order the agents first appear: ``[a, b, metric, k,
        value_a, value_b, difference, difference_low, difference_high,
        correlation, n_tasks, p_value, p_adjusted, test]``. ``difference`` is
        ``value_a - value_b`` over the ``n_tasks`` tasks counted at k, with
        :func:`~passk_lab.compare`'s paired interval (not adjusted);
        ``correlation`` is that of their per-task estimates. ``p_value`` is
        the two-sided p-value of the paired sign-flip test of no difference,
        ``p_adjusted`` the adjusted one; ``test`` says how it was computed
        (``mcnemar_exact``, ``sign_flip_exact``, ``sign_flip_approximate``,
        ``sign_flip_monte_carlo``: docs/leaderboards.md, "The paired test, in
        brief"). With several `by` columns, ``a`` and ``b`` hold tuples.
        ``attrs`` holds ``by``, ``adjust``, ``confidence_level``, ``method``,
        ``errors``, ``n_resamples``, ``common_tasks`` and ``dropped_tasks``.

    Raises
    ------
    ValueError
        If the runs hold fewer than two agents, the agents share no task, or
        a task is not run by every agent (with ``unmatched="raise"``).

    Warns
    -----
    UnequalRunsWarning, ResolutionWarning, NoSeparationWarning
        Where runs differ on a task, Monte Carlo p-values are too coarse, or tasks too few.

    Examples
    --------
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=60, k=3, seed=seed).assign(model=name)
    ...         for name, p, seed in [("a", 0.9, 1), ("b", 0.8, 2), ("c", 0.6, 3)]
    ...     ]
    ... )
    >>> table = pairwise(runs, ks=[3])
    >>> table[table.metric == "pass_pow_k"][["a", "b", "difference", "p_adjusted"]].round(4)
       a  b  difference  p_adjusted
    0  a  b      0.3667      0.0001
    1  a  c      0.5167      0.0000
    2  b  c      0.1500      0.1078
    """
    level = confidence(confidence_level)
    paired = check_method(method)
    chosen = check_adjust(adjust)
    draws = positive_int("n_resamples", n_resamples)
    asked = check_metrics(metrics)
    if not isinstance(common_tasks, bool):
        raise TypeError(f"common_tasks must be True or False, got {common_tasks!r}")
    agents = Agents(runs, by, errors, unmatched, "pairwise")
    values_ks = agents.ks(ks)
    warn_unequal_runs(agents, agents.counted(None, values_ks[:1]))
    result = pair_tests(
        agents,
        values_ks,
        asked,
        common_tasks=common_tasks,
        confidence_level=level,
        method=paired,
        adjust=chosen,
        n_resamples=draws,
        seed=draw_seed(rng),
    )
    result.attrs = pairs_attrs(agents, chosen, level, paired, draws, common_tasks)
    return result


@by_keyword(1)
def leaderboard(
    runs: TallyInput,
    ks: Iterable[int] | None = None,
    *,
    by: By = "model",
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    metric: Metric = "pass_pow_k",
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """Rank agents by pass^k (or pass@k) at every k, with simultaneous rank intervals.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray, Tally or Dask DataFrame
        Whatever :func:`~passk_lab.tally` takes, with the column(s) `by`
        naming the agents.
    ks : sequence of int, optional
        The k values; by default 1 to the most runs every agent has on a task.
    by : str or list of str
        The column(s) that name the agents.
    errors : {"fail", "exclude"}
        An errored or timed-out run is a failed run, or is left out of `n`.
    confidence_level : float
        Of every interval, the rank intervals included (jointly), in (0, 1).
    method : str
        The intervals of each agent's pass^k and pass@k, any of
        :func:`~passk_lab.reliability_curve`'s (``"auto"``, a binomial
        method, ``"percentile"``, ``"bca"``, ``"two-level"``), on the tasks
        the board counts. The ranks do not depend on it: they come from the
        paired tests.
    n_resamples : int
        Draws of the Monte Carlo sign-flip test, used only where its exact
        distribution would be too large, and of a bootstrap `method`.
    rng : int, numpy.random.Generator or None
        Seed or generator of those draws; :func:`pairwise` with
        ``common_tasks=True`` and the same int seed gives the same tests.
    metric : {"pass_pow_k", "pass_at_k"}
        The statistic the agents are ranked by.
    unmatched : {"raise", "drop"}
        A task that some agent lacks is refused (the default), or dropped from
        every agent with a warning and listed in ``attrs["dropped_tasks"]``.

    Returns
    -------
    DataFrame
        One row per (k, agent), by k and then rank: ``[*by, k, pass_pow_k,
        pass_pow_k_low, pass_pow_k_high, pass_at_k, pass_at_k_low,
        pass_at_k_high, n_tasks, rank, rank_low, rank_high, tie_group]``.
        At each k every agent is counted on the same ``n_tasks`` tasks: those
        where every agent has at least k runs. ``rank`` is 1 for the best
        estimate, and tied estimates share the better rank. ``rank_low`` to
        ``rank_high`` is the rank interval, meant to hold the true ranks of
        all agents at a k at once with ``confidence_level`` chance.
        ``tie_group`` is 1 for the agents that no agent is shown to beat
        (those whose ``rank_low`` is 1), and otherwise one more than the
        largest group of the agents shown to beat it: no two agents of a
        group are told apart. ``attrs`` holds ``by``, ``metric``,
        ``confidence_level``, ``method``, ``adjust`` (``"holm"``),
        ``errors``, ``n_resamples`` and ``dropped_tasks``.

    Raises
    ------
    ValueError
        If the runs hold fewer than two agents, the agents share no task, or
        a task is not run by every agent (with ``unmatched="raise"``).

    Warns
    -----
    NoSeparationWarning
        Where too few tasks let no two agents be told apart, whatever the runs.

    See Also
    --------
    pairwise : the tests the rank intervals come from, every pair's difference.

    Notes
    -----
    docs/leaderboards.md ("Rank intervals: what they rest on") says when an
    agent is shown better than another, what the rank intervals' coverage
    rests on, and what ``study/leaderboard_coverage.py`` measures of it.

    Examples
    --------
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=60, k=3, seed=seed).assign(model=name)
    ...         for name, p, seed in [("a", 0.9, 1), ("b", 0.8, 2), ("c", 0.6, 3)]
    ...     ]
    ... )
    >>> board = leaderboard(runs, ks=[1, 3])
    >>> board[["model", "k", "pass_pow_k", "rank", "rank_low", "rank_high", "tie_group"]]
      model  k  pass_pow_k  rank  rank_low  rank_high  tie_group
    0     a  1    0.894444     1         1          1          1
    1     b  1    0.755556     2         2          2          2
    2     c  1    0.594444     3         3          3          3
    3     a  3    0.750000     1         1          1          1
    4     b  3    0.383333     2         2          3          2
    5     c  3    0.233333     3         2          3          2
    """
    board, _ = ranks_and_tests(
        runs,
        ks,
        by=by,
        errors=errors,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
        rng=rng,
        metric=metric,
        unmatched=unmatched,
    )
    return board


def ranks_and_tests(
    runs: TallyInput,
    ks: Iterable[int] | None = None,
    *,
    by: By = "model",
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    metric: Metric = "pass_pow_k",
    unmatched: Unmatched = "raise",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return :func:`leaderboard`'s board and the tests its ranks come from, computed once.

    The tests are the table ``pairwise(runs, ks, by=by, metrics=[metric],
    common_tasks=True)`` would return with the same int seed, for the views
    that show a board with its tests (the command line, the report).
    """
    generator = np.random.default_rng(rng)
    seed = draw_seed(generator)  # first, so that the tests draw the same whatever the method
    spec = IntervalSpec.of(method, confidence_level, n_resamples, generator)
    if metric not in METRICS:
        raise ValueError(f"metric must be 'pass_pow_k' or 'pass_at_k', got {metric!r}")
    agents = Agents(runs, by, errors, unmatched, "leaderboard")
    values_ks = agents.ks(ks)
    counted = agents.counted(None, values_ks)  # tasks x ks: every agent has k runs
    warn_left_out(agents, counted, values_ks)
    warn_unequal_runs(agents, counted)
    tests = pair_tests(
        agents,
        values_ks,
        (metric,),
        common_tasks=True,
        confidence_level=spec.confidence_level,
        method="auto",
        adjust="holm",
        n_resamples=spec.n_resamples,
        seed=seed,
    )
    columns = _estimates(agents, counted, values_ks, spec)
    alpha = 1.0 - spec.confidence_level
    board = ranked_board(
        agents.labels, agents.pairs(), values_ks, columns, metric, tests, counted, alpha
    )
    board.attrs.update(
        by=list(agents.by),
        metric=metric,
        confidence_level=spec.confidence_level,
        method=spec.method,
        adjust="holm",
        errors=agents.errors,
        n_resamples=spec.n_resamples,
        dropped_tasks=agents.dropped,
    )
    tests.attrs = pairs_attrs(agents, "holm", spec.confidence_level, "auto", spec.n_resamples, True)
    return board, tests


def _estimates(
    agents: Agents, counted: Bools, ks: Ints, spec: IntervalSpec
) -> dict[str, list[Floats]]:
    """Return every agent's pass^k and pass@k with their intervals, on the `counted` tasks.

    By name (``pass_pow_k``, ``pass_pow_k_low``, ...), one array over the ks
    per agent; the intervals are the policy's for the spec's method.
    """
    ones = np.ones(len(agents.tasks), dtype=np.int64)
    columns: dict[str, list[Floats]] = {}
    for agent in range(len(agents.names)):
        n, c = agents.n[:, agent], agents.c[:, agent]
        for name, values_of in (("pass_pow_k", pass_pow_k_values), ("pass_at_k", pass_at_k_values)):
            values = np.where(counted, values_of(n, c, ks), np.nan)
            redraw = Redraw(c, partial(values_of, ks=ks))
            found = mean_intervals(values, n, ones, ks, spec, redraw=redraw)
            columns.setdefault(name, []).append(found.mean)
            columns.setdefault(f"{name}_low", []).append(found.low)
            columns.setdefault(f"{name}_high", []).append(found.high)
    return columns
