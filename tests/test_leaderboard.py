"""Leaderboards and pairwise comparisons of many agents, checked against their definitions."""

import gc

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

import passk_lab as pk
from passk_lab import _permutation

KS = [1, 2, 4]


def runs_table(agents):
    """A runs table of agents given as {name: [task 0's outcomes, task 1's, ...]}."""
    rows = [
        (name, task, run, bool(passed))
        for name, tasks in agents.items()
        for task, outcomes in enumerate(tasks)
        for run, passed in enumerate(outcomes)
    ]
    return pd.DataFrame(rows, columns=["model", "task", "run", "passed"])


def simulated(shifts, tasks=80, runs=4, seed=0):
    """Agents sharing each task's difficulty, agent j passing with the task's chance + shifts[j]."""
    rng = np.random.default_rng(seed)
    chance = rng.beta(2.0, 2.0, size=tasks)
    return {
        name: (rng.random((tasks, runs)) < np.clip(chance + shift, 0, 1)[:, None]).tolist()
        for name, shift in shifts.items()
    }


FIVE = {"e": -0.35, "a": 0.3, "c": 0.0, "b": 0.27, "d": -0.03}


@pytest.fixture(scope="module")
def five():
    return runs_table(simulated(FIVE))


@pytest.fixture(scope="module")
def five_board(five):
    return pk.leaderboard(five, ks=KS)


@pytest.fixture(scope="module")
def five_pairs(five):
    return pk.pairwise(five, ks=KS, adjust=None)


@pytest.fixture(scope="module")
def five_holm(five):
    return pk.pairwise(five, ks=KS, adjust="holm")


def hand_ranks(values, p_adjusted, alpha):
    """Rank, rank interval and tie group of each agent by the rule of leaderboard's docstring.

    `values` maps agent to estimate (in the order the agents first appear), `p_adjusted` maps
    each pair (a, b) to its Holm-adjusted p-value.
    """
    names = list(values)
    better = {
        (i, j): values[i] > values[j]
        and p_adjusted[tuple(sorted((i, j), key=names.index))] <= alpha
        for i in names
        for j in names
        if i != j
    }
    rank = {j: 1 + sum(values[i] > values[j] for i in names) for j in names}
    low = {j: 1 + sum(better.get((i, j), False) for i in names) for j in names}
    high = {j: len(names) - sum(better.get((j, i), False) for i in names) for j in names}

    def group(j):  # 1 if no agent is shown better, else one more than the best such agent's
        above = [group(i) for i in names if better.get((i, j), False)]
        return 1 + max(above, default=0)

    return rank, low, high, {j: group(j) for j in names}


def per_agent(runs, name):
    return runs[runs["model"] == name].drop(columns="model")


def test_values_and_intervals_are_each_agents_reliability_curve(five, five_board):
    curve = pk.reliability_curve(five, KS, by="model")
    merged = five_board.merge(curve, on=["model", "k"], suffixes=("", "_curve"))
    assert len(merged) == len(five_board) == 5 * len(KS)
    for column in [
        "pass_pow_k",
        "pass_pow_k_low",
        "pass_pow_k_high",
        "pass_at_k",
        "pass_at_k_low",
        "pass_at_k_high",
        "n_tasks",
    ]:
        assert merged[column].to_numpy() == pytest.approx(
            merged[f"{column}_curve"].to_numpy(), rel=1e-12
        ), column


def test_ranks_intervals_and_tie_groups_follow_the_holm_decisions(five_board, five_holm):
    pairs = five_holm
    alpha = 1 - 0.95
    separated = close = 0
    for k in KS:
        board = five_board[five_board["k"] == k].set_index("model")
        values = {name: board.loc[name, "pass_pow_k"] for name in FIVE}
        family = pairs[(pairs["metric"] == "pass_pow_k") & (pairs["k"] == k)]
        p_adjusted = {(row.a, row.b): row.p_adjusted for row in family.itertuples()}
        rank, low, high, group = hand_ranks(values, p_adjusted, alpha)
        for name in FIVE:
            assert board.loc[name, ["rank", "rank_low", "rank_high", "tie_group"]].tolist() == [
                rank[name],
                low[name],
                high[name],
                group[name],
            ], (k, name)
        assert five_board[five_board["k"] == k]["rank"].is_monotonic_increasing
        separated += sum(low[name] == high[name] for name in FIVE)
        close += sum(low[name] < high[name] for name in FIVE)
    # the table mixes agents told apart from all others and agents that are not
    assert separated > 0
    assert close > 0


@pytest.mark.parametrize("seed", range(6))
def test_every_rank_lies_in_its_interval(seed):
    shifts = {"a": 0.1, "b": 0.05, "c": 0.0, "d": -0.05}
    board = pk.leaderboard(runs_table(simulated(shifts, tasks=30, runs=3, seed=seed)))
    assert (board["rank_low"] <= board["rank"]).all()
    assert (board["rank"] <= board["rank_high"]).all()
    assert (board["rank_low"] >= 1).all()
    assert (board["rank_high"] <= 4).all()


def test_tied_estimates_share_the_better_rank():
    agents = simulated({"low": -0.2, "top": 0.2, "mid": 0.0}, tasks=40, runs=2, seed=3)
    agents["twin"] = agents["mid"]  # identical outcomes: identical estimates
    board = pk.leaderboard(runs_table(agents), ks=[1, 2])
    for k in [1, 2]:
        at_k = board[board["k"] == k].set_index("model")
        values = at_k["pass_pow_k"]
        assert values["top"] > values["mid"] == values["twin"] > values["low"]
        assert at_k["rank"].to_dict() == {"top": 1, "mid": 2, "twin": 2, "low": 4}
        assert at_k.loc["mid", ["rank_low", "rank_high", "tie_group"]].tolist() == (
            at_k.loc["twin", ["rank_low", "rank_high", "tie_group"]].tolist()
        )


def test_copies_of_one_agent_are_never_told_apart():
    # Under the complete null no pair may be declared ordered: for copies of one agent every
    # statistic is 0, every p-value 1, and every rank interval the whole [1, m].
    one = simulated({"x": 0.0}, tasks=30, runs=3, seed=4)["x"]
    runs = runs_table(dict.fromkeys("pqrst", one))
    for metric in ["pass_pow_k", "pass_at_k"]:
        board = pk.leaderboard(runs, metric=metric)
        assert (board["rank"] == 1).all()
        assert (board["rank_low"] == 1).all()
        assert (board["rank_high"] == 5).all()
        assert (board["tie_group"] == 1).all()
    pairs = pk.pairwise(runs)
    assert (pairs["p_value"] == 1).all()
    assert (pairs["p_adjusted"] == 1).all()
    assert (pairs["difference"] == 0).all()


def test_metric_pass_at_k_ranks_by_pass_at_k():
    # "steady" solves half the tasks every time, "flaky" solves every task half the time:
    # pass^2 puts steady first (0.5 against 0), pass@2 flaky (1 against 0.5).
    steady = [[1, 1]] * 10 + [[0, 0]] * 10
    flaky = [[1, 0]] * 20
    runs = runs_table({"steady": steady, "flaky": flaky, "none": [[0, 0]] * 20})
    for metric, first in [("pass_pow_k", "steady"), ("pass_at_k", "flaky")]:
        board = pk.leaderboard(runs, ks=[2], metric=metric)
        assert board.attrs["metric"] == metric
        assert board["model"].tolist()[0] == first
        values = board.set_index("model")[metric]
        hand = {name: 1 + int((values > values[name]).sum()) for name in values.index}
        assert board.set_index("model")["rank"].to_dict() == hand


def test_leaderboard_attrs(five_board):
    assert five_board.attrs == {
        "by": ["model"],
        "metric": "pass_pow_k",
        "confidence_level": 0.95,
        "method": "auto",
        "adjust": "holm",
        "errors": "fail",
        "n_resamples": 10_000,
        "dropped_tasks": [],
    }
    assert list(five_board.columns) == [
        "model",
        "k",
        "pass_pow_k",
        "pass_pow_k_low",
        "pass_pow_k_high",
        "pass_at_k",
        "pass_at_k_low",
        "pass_at_k_high",
        "n_tasks",
        "rank",
        "rank_low",
        "rank_high",
        "tie_group",
    ]


COMPARED = [
    "value_a",
    "value_b",
    "difference",
    "difference_low",
    "difference_high",
    "correlation",
    "n_tasks",
]


def test_every_pair_is_compare_of_the_two_agents_a_minus_b(five, five_pairs):
    names = list(FIVE)  # the order the agents first appear, not alphabetical
    expected_pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    assert len(five_pairs) == 2 * len(KS) * len(expected_pairs)
    for _, family in five_pairs.groupby(["metric", "k"], sort=False):
        assert list(zip(family["a"], family["b"], strict=True)) == expected_pairs
    assert five_pairs["metric"].tolist() == ["pass_pow_k"] * 30 + ["pass_at_k"] * 30
    for a, b in expected_pairs:
        rows = five_pairs[(five_pairs["a"] == a) & (five_pairs["b"] == b)]
        reference = pk.compare(per_agent(five, a), per_agent(five, b), KS)
        assert rows[["metric", "k"]].to_numpy().tolist() == (
            reference[["metric", "k"]].to_numpy().tolist()
        )
        for column in COMPARED:
            assert rows[column].to_numpy() == pytest.approx(
                reference[column].to_numpy(), rel=1e-12, abs=1e-15
            ), (a, b, column)
    assert five_pairs["difference"].to_numpy() == pytest.approx(
        (five_pairs["value_a"] - five_pairs["value_b"]).to_numpy(), abs=1e-12
    )
    # "e", the weakest, appears first: its differences with "a", the strongest, are negative
    first = five_pairs[(five_pairs["a"] == "e") & (five_pairs["b"] == "a")]
    assert (first["difference"] < 0).all()


def test_pairs_of_agents_with_unequal_runs_are_compared_on_their_own_tasks():
    agents = simulated({"a": 0.1, "b": 0.0, "c": -0.1}, tasks=30, runs=4, seed=6)
    agents["c"] = [
        outcomes[:2] if task < 10 else outcomes for task, outcomes in enumerate(agents["c"])
    ]
    runs = runs_table(agents)
    with pytest.warns(RuntimeWarning, match=r"10 of the 30 shared tasks have different runs"):
        pairs = pk.pairwise(runs, ks=[1, 3])
    for a, b in [("a", "b"), ("a", "c"), ("b", "c")]:
        rows = pairs[(pairs["a"] == a) & (pairs["b"] == b)]
        reference = pk.compare(per_agent(runs, a), per_agent(runs, b), [1, 3])
        for column in COMPARED:
            assert rows[column].to_numpy() == pytest.approx(
                reference[column].to_numpy(), rel=1e-12, abs=1e-15
            ), (a, b, column)
    assert (
        pairs.set_index(["a", "b", "metric", "k"])["n_tasks"].xs(3, level="k").tolist()
        == [
            30,
            20,
            20,
        ]
        * 2
    )


def test_with_several_by_columns_a_and_b_are_tuples():
    agents = simulated({"x": 0.1, "y": 0.0, "z": -0.1}, tasks=20, runs=2, seed=7)
    runs = runs_table(agents)
    runs["size"] = runs["model"].map({"x": "large", "y": "small", "z": "large"})
    pairs = pk.pairwise(runs, by=["model", "size"])
    assert pairs.attrs["by"] == ["model", "size"]
    assert list(zip(pairs["a"], pairs["b"], strict=True))[:3] == [
        (("x", "large"), ("y", "small")),
        (("x", "large"), ("z", "large")),
        (("y", "small"), ("z", "large")),
    ]
    board = pk.leaderboard(runs, by=["model", "size"])
    assert list(board.columns[:3]) == ["model", "size", "k"]


def test_pairwise_attrs_and_columns(five_pairs):
    assert list(five_pairs.columns) == [
        "a",
        "b",
        "metric",
        "k",
        *COMPARED,
        "p_value",
        "p_adjusted",
        "test",
    ]
    assert {
        key: five_pairs.attrs[key]
        for key in ["by", "adjust", "confidence_level", "errors", "n_resamples", "dropped_tasks"]
    } == {
        "by": ["model"],
        "adjust": None,
        "confidence_level": 0.95,
        "errors": "fail",
        "n_resamples": 10_000,
        "dropped_tasks": [],
    }
    assert set(five_pairs["test"]) == {"sign_flip_exact"}


@pytest.mark.parametrize(("adjust", "method"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_are_statsmodels_within_each_metric_and_k(
    five, five_pairs, five_holm, adjust, method, monkeypatch
):
    # statsmodels' Holm runs a full garbage collection on every call (0.15 s each here)
    monkeypatch.setattr(gc, "collect", lambda: 0)
    adjusted = five_holm if adjust == "holm" else pk.pairwise(five, ks=KS, adjust=adjust)
    assert adjusted.attrs["adjust"] == adjust
    assert adjusted["p_value"].tolist() == five_pairs["p_value"].tolist()
    moved = 0
    for _, family in adjusted.groupby(["metric", "k"]):
        reference = multipletests(family["p_value"].to_numpy(), method=method)[1]
        assert family["p_adjusted"].to_numpy() == pytest.approx(reference, rel=1e-12, abs=1e-300)
        moved += int(np.sum(family["p_adjusted"].to_numpy() > family["p_value"].to_numpy()))
    assert moved > 0
    assert (five_pairs["p_adjusted"] == five_pairs["p_value"]).all()


def test_a_pair_at_k_1_with_one_run_per_task_is_mcnemars_test():
    agents = simulated({"a": 0.2, "b": 0.0, "c": -0.2}, tasks=40, runs=1, seed=8)
    pairs = pk.pairwise(runs_table(agents))
    assert set(pairs["test"]) == {"mcnemar_exact"}
    for row in pairs[pairs["metric"] == "pass_pow_k"].itertuples():
        first = np.array(agents[row.a])[:, 0]
        second = np.array(agents[row.b])[:, 0]
        table = [
            [np.sum(first & second), np.sum(first & ~second)],
            [np.sum(~first & second), np.sum(~first & ~second)],
        ]
        assert row.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)


# bad input


def two_agents():
    return runs_table({"a": [[1, 1], [0, 1], [1, 0]], "b": [[1, 0], [0, 0], [1, 1]]})


@pytest.mark.parametrize("function", [pk.leaderboard, pk.pairwise])
def test_one_agent_is_refused(function):
    runs = two_agents()
    with pytest.raises(ValueError, match=r"two or more agents.*by=\['model'\]: 'a'"):
        function(runs[runs["model"] == "a"])


@pytest.mark.parametrize("function", [pk.leaderboard, pk.pairwise])
def test_no_by_is_refused(function):
    with pytest.raises(ValueError, match=rf"{function.__name__} needs by=.*by='model'"):
        function(two_agents(), by=None)


@pytest.mark.parametrize("function", [pk.leaderboard, pk.pairwise])
def test_a_by_column_that_does_not_exist_is_refused(function):
    with pytest.raises(ValueError, match=r"no column 'agent'.*'model', 'task', 'run', 'passed'"):
        function(two_agents(), by="agent")


@pytest.mark.parametrize("function", [pk.leaderboard, pk.pairwise])
def test_agents_that_share_no_task_are_refused(function):
    runs = two_agents()
    runs.loc[runs["model"] == "b", "task"] += 10
    with pytest.raises(ValueError, match=r"share no task.*'a' lacks 3 \(10, 11, 12\)"):
        function(runs)


@pytest.mark.parametrize("function", [pk.leaderboard, pk.pairwise])
def test_a_task_some_agent_lacks_is_refused_or_dropped(function):
    runs = runs_table(
        {"a": [[1, 1], [0, 1], [1, 0]], "b": [[1, 0], [0, 0]], "c": [[0, 1], [1, 1], [1, 1]]}
    )
    with pytest.raises(ValueError, match=r"'b' lacks 1 \(2\).*unmatched='drop'"):
        function(runs)
    with (
        pytest.warns(pk.NoSeparationWarning, match="on 2 tasks"),  # two tasks tell no one apart
        pytest.warns(UserWarning, match=r"dropped 1 task\(s\).*'b' lacks 1 \(2\)"),
    ):
        result = function(runs, unmatched="drop")
    assert result.attrs["dropped_tasks"] == [2]
    assert set(result["n_tasks"]) == {2}
    with pytest.raises(ValueError, match=r"unmatched must be 'raise' or 'drop', got 'keep'"):
        function(runs, unmatched="keep")


def test_unequal_runs_warn_naming_the_agent_and_too_large_a_k_is_refused():
    agents = simulated({"a": 0.0, "b": 0.0, "c": 0.0}, tasks=6, runs=3, seed=9)
    agents["b"] = [
        outcomes[:2] if task < 2 else outcomes for task, outcomes in enumerate(agents["b"])
    ]
    agents["c"] = [outcomes[:2] for outcomes in agents["c"]][:1] + agents["c"][1:]
    runs = runs_table(agents)
    with (
        pytest.warns(pk.NoSeparationWarning, match="on at most 6 tasks"),
        pytest.warns(RuntimeWarning, match=r"2 of the 6 shared tasks have different runs"),
        pytest.warns(RuntimeWarning, match=r"k = 3 counts 4 of the 6 tasks.*'b', 'c' have fewer"),
    ):
        board = pk.leaderboard(runs, ks=[1, 3])
    assert board.groupby("k")["n_tasks"].first().to_dict() == {1: 6, 3: 4}
    agents["c"] = [outcomes[:2] for outcomes in agents["c"]]
    only_b = runs_table({"a": agents["a"], "b": agents["b"]})
    with (
        pytest.warns(pk.NoSeparationWarning, match="at k = 3, on 4 tasks"),
        pytest.warns(RuntimeWarning, match=r"task 0: 'b' has 2, 'a' 3"),
        pytest.warns(RuntimeWarning, match=r"'b' has fewer than 3 runs"),
    ):
        pk.leaderboard(only_b, ks=[1, 3])
    with pytest.raises(ValueError, match=r"no task has k = 3 runs for every agent.*reach is 2"):
        pk.leaderboard(runs_table(agents), ks=[3])


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"metric": "x"}, r"metric must be 'pass_pow_k' or 'pass_at_k', got 'x'"),
        ({"confidence_level": 1.5}, r"confidence_level must be strictly between 0 and 1.*1\.5"),
        ({"n_resamples": 0}, r"n_resamples must be a positive integer, got 0"),
    ],
)
def test_bad_settings_of_leaderboard_are_refused(keywords, message):
    with pytest.raises(ValueError, match=message):
        pk.leaderboard(two_agents(), **keywords)


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"adjust": "bonferroni"}, r"adjust must be 'holm', 'bh' or None, got 'bonferroni'"),
        ({"confidence_level": 1.5}, r"confidence_level must be strictly between 0 and 1.*1\.5"),
        ({"n_resamples": 0}, r"n_resamples must be a positive integer, got 0"),
    ],
)
def test_bad_settings_of_pairwise_are_refused(keywords, message):
    with pytest.raises(ValueError, match=message):
        pk.pairwise(two_agents(), **keywords)


def test_the_holm_level_is_one_minus_the_confidence_level(five, five_holm):
    # a pair whose adjusted p-value lies between two levels is ordered at the looser one only
    family = five_holm[(five_holm["metric"] == "pass_pow_k") & (five_holm["k"] == 1)]
    middle = next(p for p in sorted(family["p_adjusted"]) if 0.001 < p < 0.5)
    loose, strict = 1 - middle * 1.001, 1 - middle * 0.999  # alpha just above, just below it
    wide = pk.leaderboard(five, ks=[1], confidence_level=strict)
    narrow = pk.leaderboard(five, ks=[1], confidence_level=loose)
    assert width(narrow) < width(wide)


def width(board):
    return int((board["rank_high"] - board["rank_low"]).sum())


def test_monte_carlo_pairs_are_the_same_for_the_same_seed(monkeypatch):
    monkeypatch.setattr(_permutation, "_LATTICE", 0)
    runs = runs_table(simulated({"a": 0.1, "b": 0.0, "c": -0.1}, tasks=20, runs=2, seed=10))
    first = pk.pairwise(runs, n_resamples=500, rng=3)
    assert set(first["test"]) == {"sign_flip_monte_carlo (500)"}
    assert (first["p_value"] * 501).round(9).apply(float.is_integer).all()
    pd.testing.assert_frame_equal(pk.pairwise(runs, n_resamples=500, rng=3), first)
    board = pk.leaderboard(runs, n_resamples=500, rng=3)
    pd.testing.assert_frame_equal(pk.leaderboard(runs, n_resamples=500, rng=3), board)
    assert board.attrs["n_resamples"] == 500


def test_pairwise_attrs_are_the_pairs_own_and_none_of_a_single_comparison() -> None:
    frame = pd.DataFrame(
        {
            "model": np.repeat(["a", "b", "c"], 6),
            "task": np.tile(np.arange(6), 3),
            "n": 2,
            "c": [2, 1, 0, 2, 1, 0, 1, 1, 0, 2, 0, 0, 0, 0, 1, 2, 2, 0],
        }
    )
    with pytest.warns(pk.NoSeparationWarning, match="on 6 tasks"):
        pairs = pk.pairwise(frame, ks=[1])
    assert set(pairs.attrs) == {
        "by",
        "adjust",
        "confidence_level",
        "method",
        "errors",
        "n_resamples",
        "common_tasks",
        "dropped_tasks",
    }


@pytest.mark.parametrize("seed", range(4))
def test_tie_groups_hold_no_two_agents_told_apart_and_group_one_is_rank_low_one(seed):
    rng = np.random.default_rng(seed)
    agents, tasks = 6, 30
    offsets = rng.choice([-1.0, 0.0, 0.2, 1.0], size=agents)
    theta = rng.normal(0.0, 1.0, tasks)
    chance = 1.0 / (1.0 + np.exp(-(theta[:, None] + offsets[None, :])))
    frame = pd.DataFrame(
        {
            "model": np.repeat([f"m{j}" for j in range(agents)], tasks),
            "task": np.tile(np.arange(tasks), agents),
            "n": 3,
            "c": rng.binomial(3, chance).T.ravel(),
        }
    )
    board = pk.leaderboard(frame, ks=[1, 3])
    pairs = pk.pairwise(frame, ks=[1, 3], metrics=["pass_pow_k"], common_tasks=True)
    for k, rows in board.groupby("k"):
        value = dict(zip(rows["model"], rows["pass_pow_k"], strict=True))
        group = dict(zip(rows["model"], rows["tie_group"], strict=True))
        told = pairs[(pairs["k"] == k) & (pairs["p_adjusted"] <= 0.05)]
        for a, b in zip(told["a"], told["b"], strict=True):
            assert group[a] != group[b]  # no two agents of a group are told apart
            worse = b if value[a] > value[b] else a
            assert group[worse] > min(group[a], group[b])
        first = rows.loc[rows["tie_group"] == 1, "model"]
        assert set(first) == set(rows.loc[rows["rank_low"] == 1, "model"])
        for g in sorted(set(group.values()) - {1}):  # each of group g is beaten by one of g - 1
            for worse in (name for name in group if group[name] == g):
                beaten_by = {
                    a if b == worse else b
                    for a, b in zip(told["a"], told["b"], strict=True)
                    if worse in (a, b) and value[a if b == worse else b] > value[worse]
                }
                assert any(group[name] == g - 1 for name in beaten_by)


def test_the_pairs_of_common_tasks_are_the_tests_the_board_ranks_by_also_by_monte_carlo(
    monkeypatch,
):
    agents = simulated({"a": 0.6, "b": 0.0, "c": -0.1, "d": -0.6}, tasks=30, runs=4, seed=11)
    agents["d"] = [
        outcomes[:2] if task < 10 else outcomes for task, outcomes in enumerate(agents["d"])
    ]
    runs = runs_table(agents)
    monkeypatch.setattr(_permutation, "_LATTICE", 0)  # every test a Monte Carlo one
    with pytest.warns(RuntimeWarning):  # the unequal runs, and fewer tasks at k = 3
        board = pk.leaderboard(runs, ks=[1, 3], n_resamples=2000, rng=5)
    with pytest.warns(RuntimeWarning, match="different runs"):
        pairs = pk.pairwise(
            runs, ks=[1, 3], metrics=["pass_pow_k"], common_tasks=True, n_resamples=2000, rng=5
        )
    assert set(pairs["metric"]) == {"pass_pow_k"}
    assert pairs.set_index("k")["n_tasks"].to_dict() == board.set_index("k")["n_tasks"].to_dict()
    for k, rows in board.groupby("k"):
        value = dict(zip(rows["model"], rows["pass_pow_k"], strict=True))
        at_k = pairs[pairs["k"] == k]
        p_adjusted = dict(
            zip(zip(at_k["a"], at_k["b"], strict=True), at_k["p_adjusted"], strict=True)
        )
        _, low, high, group = hand_ranks(value, p_adjusted, 0.05)
        for _, row in rows.iterrows():
            name = row["model"]
            assert (row["rank_low"], row["rank_high"], row["tie_group"]) == (
                low[name],
                high[name],
                group[name],
            )


def test_too_few_monte_carlo_draws_for_the_adjustment_are_warned_of(monkeypatch):
    agents = simulated({"a": 2.0, "b": 0.0, "c": -2.0}, tasks=30, runs=3, seed=12)
    monkeypatch.setattr(_permutation, "_LATTICE", 0)
    # Holm over 3 pairs needs p <= 0.05 / 3; 20 draws cannot go below 1 / 21
    with pytest.warns(
        pk.ResolutionWarning, match=r"may be missed; raise n_resamples to at least 59$"
    ) as caught:
        board = pk.leaderboard(runs_table(agents), ks=[1], n_resamples=20, rng=0)
    warning = caught[0].message
    assert isinstance(warning, RuntimeWarning)
    assert (warning.tests, warning.needed, warning.keywords) == (3, 59, ("n_resamples",))
    assert (board["tie_group"] == 1).all()


def test_a_lattice_past_any_float_goes_to_monte_carlo_without_overflow():
    runs = 2000
    n = np.full(5, runs)
    c_a, c_b = np.array([1990, 1500, 1200, 1999, 1000]), np.array([1980, 1400, 1300, 1990, 900])
    test = _permutation.permutation_test(
        n, c_a, n, c_b, 1000, "pass_at_k", n_resamples=99, rng=np.random.default_rng(0)
    )
    assert test.test == "sign_flip_monte_carlo (99)"
    assert 1 / 100 <= test.p_value <= 1.0


def test_ranks_of_estimates_far_below_any_rounding_keep_their_order():
    from passk_lab._ranks import rank_intervals

    values = np.array([2e-20, 1e-20, 1e-20 * (1 + 1e-15)])  # the last two equal to rounding
    better = np.zeros((3, 3), dtype=bool)
    better[0, 1] = better[0, 2] = True
    rank, low, high, group = rank_intervals(values, better)
    assert rank.tolist() == [1, 2, 2]
    assert (low <= rank).all()
    assert (rank <= high).all()
    assert group.tolist() == [1, 2, 2]


def test_the_boards_tests_are_pairwise_on_common_tasks_at_its_metric(monkeypatch):
    from passk_lab.ranking import ranks_and_tests

    agents = simulated({"a": 0.6, "b": 0.0, "c": -0.4}, tasks=25, runs=3, seed=13)
    runs = runs_table(agents)
    monkeypatch.setattr(_permutation, "_LATTICE", 0)  # Monte Carlo: the draws must agree too
    board, tests = ranks_and_tests(runs, [1, 3], by="model", metric="pass_at_k", rng=4)
    pairs = pk.pairwise(runs, ks=[1, 3], metrics=["pass_at_k"], common_tasks=True, rng=4)
    pd.testing.assert_frame_equal(tests, pairs)
    assert tests.attrs == pairs.attrs
    pd.testing.assert_frame_equal(board, pk.leaderboard(runs, ks=[1, 3], metric="pass_at_k", rng=4))


# --- the intervals' method, and the spellings of the last release ----------------------------


def test_the_default_intervals_are_the_auto_method_and_the_curves(five, five_board):
    board = pk.leaderboard(five, ks=KS, method="auto")
    pd.testing.assert_frame_equal(board, five_board)
    for name, rows in five_board.groupby("model"):
        curve = pk.reliability_curve(five[five["model"] == name], KS)
        for column in ["pass_pow_k", "pass_pow_k_low", "pass_pow_k_high", "pass_at_k_low"]:
            assert rows[column].to_numpy() == pytest.approx(curve[column].to_numpy(), rel=1e-12)


@pytest.mark.parametrize("method", ["wilson", "jeffreys", "agresti_coull"])
def test_a_binomial_method_at_k_runs_is_statsmodels_on_the_tasks_that_passed_all(five, method):
    from statsmodels.stats.proportion import proportion_confint

    board = pk.leaderboard(five, ks=[1, 4], method=method)
    assert board.attrs["method"] == method
    at_4 = board[board["k"] == 4]  # every task has 4 runs: the tasks passing all are binomial
    passed = five.groupby(["model", "task"])["passed"].all().groupby("model").sum()
    tasks = five["task"].nunique()
    for _, row in at_4.iterrows():
        low, high = np.clip(proportion_confint(passed[row["model"]], tasks, method=method), 0, 1)
        assert (row["pass_pow_k_low"], row["pass_pow_k_high"]) == pytest.approx((low, high))
    auto = pk.leaderboard(five, ks=[1, 4])
    for column in ["rank", "rank_low", "rank_high", "tie_group"]:  # ranks are the tests'
        assert board[column].tolist() == auto[column].tolist()
    unequal = board[board["k"] == 1]  # four runs a task at k = 1: the effective-n interval
    assert unequal["pass_pow_k_low"].tolist() == auto.loc[auto["k"] == 1, "pass_pow_k_low"].tolist()


def test_a_percentile_board_interval_resamples_the_tasks_from_the_seed(five):
    from passk_lab._interval_policy import IntervalSpec

    board = pk.leaderboard(five, ks=[2], method="percentile", n_resamples=500, rng=5)
    # an independent percentile bootstrap of the first agent's pass^2 over its tasks, drawn
    # after the one seed the tests' generators are made from
    generator = np.random.default_rng(5)
    generator.integers(2**63)
    first = five[five["model"] == "e"]
    passes = first.groupby("task")["passed"].sum().to_numpy()
    values = passes * (passes - 1) / 12.0  # C(c, 2) / C(4, 2)
    tasks = len(values)
    weights = generator.multinomial(tasks, np.full(tasks, 1.0 / tasks), size=500)
    low, high = np.quantile(weights @ values / tasks, [0.025, 0.975])
    row = board[board["model"] == "e"].iloc[0]
    assert (row["pass_pow_k_low"], row["pass_pow_k_high"]) == pytest.approx((low, high), rel=1e-12)
    assert board.attrs["method"] == "percentile"
    assert IntervalSpec.of("percentile", 0.95).bootstrap == "percentile"
    again = pk.leaderboard(five, ks=[2], method="percentile", n_resamples=500, rng=5)
    pd.testing.assert_frame_equal(board, again)
    two_level = pk.leaderboard(five, ks=[2], method="two-level", n_resamples=200, rng=5)
    assert (two_level["pass_pow_k_low"] <= two_level["pass_pow_k"]).all()
    assert (two_level["pass_pow_k"] <= two_level["pass_pow_k_high"]).all()


def test_a_method_the_board_does_not_know_is_refused(five):
    with pytest.raises(ValueError, match="method must be one of auto, wilson"):
        pk.leaderboard(five, method="bootstrap")
    with pytest.raises(ValueError, match="method must be one of auto, percentile, bca"):
        pk.pairwise(five, method="wilson")


def test_pairwise_bootstrap_differences_are_compares_from_the_pairs_own_seed(five):
    pairs = pk.pairwise(five, ks=[1, 2], method="bca", n_resamples=300, rng=7)
    assert pairs.attrs["method"] == "bca"
    seed = int(np.random.default_rng(7).integers(2**63))
    names = list(dict.fromkeys(five["model"]))
    first, second = names.index("e"), names.index("a")
    compared = pk.compare(
        five[five["model"] == "e"].drop(columns="model"),
        five[five["model"] == "a"].drop(columns="model"),
        [1, 2],
        method="bca",
        n_resamples=300,
        rng=np.random.default_rng([seed, first, second, 2, 0]),
    )
    row = pairs[(pairs["a"] == "e") & (pairs["b"] == "a")].reset_index(drop=True)
    for column in ["difference", "difference_low", "difference_high"]:
        assert row[column].to_numpy() == pytest.approx(compared[column].to_numpy(), rel=1e-12)
    auto = pk.pairwise(five, ks=[1, 2], rng=7)
    assert pairs["p_value"].tolist() == auto["p_value"].tolist()  # the tests draw the same


def test_a_positional_by_still_works_for_one_release_with_a_warning(five):
    with pytest.warns(DeprecationWarning, match=r"write leaderboard\(\.\.\., by='model'\)"):
        board = pk.leaderboard(five, "model", [1, 2])
    pd.testing.assert_frame_equal(board, pk.leaderboard(five, [1, 2], by="model"))
    with pytest.warns(DeprecationWarning, match=r"write pairwise\(\.\.\., by='model'\)"):
        pairs = pk.pairwise(five, "model", [1])
    pd.testing.assert_frame_equal(pairs, pk.pairwise(five, [1], by="model"))
