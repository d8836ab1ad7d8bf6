import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passk_lab as pk


def correlated_agents(tasks, runs, seed):
    """Two agents on shared tasks: agent b is agent a with a slightly lower chance per task."""
    rng = np.random.default_rng(seed)
    chance = rng.beta(1.2, 0.6, size=tasks)
    index = pd.Index(range(tasks), name="task")

    def agent(shift):
        passed = rng.random((tasks, runs)) < np.clip(chance - shift, 0, 1)[:, None]
        return pk.runs_from_matrix(pd.DataFrame(passed, index=index))

    return agent(0.0), agent(0.1)


def per_task(runs, k, metric):
    counts = pk.tally(runs)
    n, c = counts["n"].to_numpy(), counts["c"].to_numpy()
    if metric == "pass_pow_k":
        return np.array([math.comb(ci, k) / math.comb(ni, k) for ni, ci in zip(n, c, strict=True)])
    return np.array(
        [1 - math.comb(ni - ci, k) / math.comb(ni, k) for ni, ci in zip(n, c, strict=True)]
    )


def test_estimates_differences_and_correlations_match_per_task_values():
    a, b = correlated_agents(80, 5, seed=1)
    table = pk.compare(a, b, n_resamples=500, rng=0)
    assert list(table.columns) == [
        "metric",
        "k",
        "value_a",
        "value_a_low",
        "value_a_high",
        "value_b",
        "value_b_low",
        "value_b_high",
        "difference",
        "difference_low",
        "difference_high",
        "correlation",
        "n_tasks",
    ]
    for row in table.itertuples():
        scores_a = per_task(a, row.k, row.metric)
        scores_b = per_task(b, row.k, row.metric)
        assert row.value_a == pytest.approx(scores_a.mean(), rel=1e-12)
        assert row.value_b == pytest.approx(scores_b.mean(), rel=1e-12)
        assert row.difference == pytest.approx(scores_a.mean() - scores_b.mean(), abs=1e-12)
        assert row.correlation == pytest.approx(np.corrcoef(scores_a, scores_b)[0, 1], rel=1e-9)
        assert row.n_tasks == 80
    pow_k = table[table["metric"] == "pass_pow_k"]
    assert pow_k["value_a"].tolist() == pytest.approx([pk.pass_pow_k(a, k) for k in pow_k["k"]])


def own_limits_by_the_curve(runs, tasks, ks, level):
    """An agent's pass^k and pass@k interval rows, from its reliability curve on `tasks`."""
    curve = pk.reliability_curve(runs[runs["task"].isin(tasks)], ks, confidence_level=level)
    return {
        metric: curve[[f"{metric}_low", f"{metric}_high"]].to_numpy()
        for metric in ("pass_pow_k", "pass_at_k")
    }


def test_each_agents_own_interval_is_its_reliability_curves_on_the_shared_tasks():
    a, b = correlated_agents(50, 4, seed=11)
    a = a[a["task"] != 0]  # task 0 only b has, task 49 only a
    b = b[b["task"] != 49]
    with pytest.warns(UserWarning, match="compared the 48 shared tasks"):
        table = pk.compare(
            a, b, confidence_level=0.9, method="bca", n_resamples=200, rng=0, unmatched="drop"
        )
    shared = range(1, 49)
    for side, runs in (("a", a), ("b", b)):
        expected = own_limits_by_the_curve(runs, shared, [1, 2, 3, 4], 0.9)
        for metric, limits in expected.items():
            rows = table[table["metric"] == metric]
            got = rows[[f"value_{side}_low", f"value_{side}_high"]].to_numpy()
            np.testing.assert_allclose(got, limits, rtol=1e-12)
            assert (limits[:, 0] < rows[f"value_{side}"]).all()
            assert (rows[f"value_{side}"] < limits[:, 1]).all()


def test_with_unequal_runs_an_agents_interval_at_k_counts_the_tasks_both_have_k_runs_of():
    a, b = correlated_agents(40, 5, seed=12)
    b = b[~((b["task"] < 15) & (b["run"] >= 3))]  # b ran tasks 0 to 14 three times only
    table = pk.compare(a, b, n_resamples=200, rng=0).set_index(["metric", "k"])
    for k in range(1, 6):
        tasks = range(40) if k <= 3 else range(15, 40)
        for side, runs in (("a", a), ("b", b)):
            expected = own_limits_by_the_curve(runs, tasks, [k], 0.95)
            for metric, limits in expected.items():
                row = table.loc[(metric, k)]
                assert row["n_tasks"] == len(tasks)
                got = [row[f"value_{side}_low"], row[f"value_{side}_high"]]
                np.testing.assert_allclose(got, limits[0], rtol=1e-12)


def test_the_documented_columns_are_the_tables():
    documented = pk.compare.__doc__.split("Returns")[1].split("``[")[1].split("]``")[0]
    names = [name.strip() for name in documented.replace("\n", " ").split(",")]
    a, b = correlated_agents(10, 2, seed=13)
    assert names == list(pk.compare(a, b, n_resamples=200, rng=0).columns)


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"), ("bca", "BCa")])
def test_paired_interval_agrees_with_scipy_on_per_task_differences(method, scipy_method):
    a, b = correlated_agents(60, 4, seed=2)
    table = pk.compare(a, b, [2], method=method, n_resamples=40_000, rng=3)
    differences = per_task(a, 2, "pass_pow_k") - per_task(b, 2, "pass_pow_k")
    reference = stats.bootstrap(
        (differences,), np.mean, method=scipy_method, n_resamples=40_000, rng=4
    ).confidence_interval
    row = table.iloc[0]
    assert row["difference_low"] == pytest.approx(reference.low, abs=0.008)
    assert row["difference_high"] == pytest.approx(reference.high, abs=0.008)


def test_pairing_narrows_the_interval_when_the_agents_share_difficulty():
    a, b = correlated_agents(200, 4, seed=5)
    row = pk.compare(a, b, [1], n_resamples=5000, rng=6).iloc[0]
    assert row["correlation"] > 0.5
    scores_a, scores_b = per_task(a, 1, "pass_pow_k"), per_task(b, 1, "pass_pow_k")
    # an unpaired normal interval that ignores the shared difficulty
    unpaired = 2 * 1.96 * np.sqrt(scores_a.var(ddof=1) / 200 + scores_b.var(ddof=1) / 200)
    # paired variance is (1 - correlation) times the unpaired one: sd ratio about 0.55 here
    assert row["difference_high"] - row["difference_low"] < 0.75 * unpaired
    assert row["difference_low"] > 0  # b is a worse by 0.1 per task


def test_an_agent_compared_with_itself_differs_by_zero_within_an_interval_of_width():
    a, _ = correlated_agents(30, 3, seed=7)
    # 30 tasks cannot show that a new task's difference is exactly 0: with every d = 0 each
    # part (d > 0, d < 0) is 0 on all 30 tasks, and its Clopper-Pearson upper limit is the
    # chance that 30 tasks show no disagreement with probability 2.5%
    half = 1 - 0.025 ** (1 / 30)
    for method in ("auto", "bca"):  # the bootstrap has no width here and gives way
        table = pk.compare(a, a, method=method, n_resamples=200, rng=0)
        assert (table["difference"] == 0).all()
        np.testing.assert_allclose(table["difference_low"], -half, rtol=1e-12)
        np.testing.assert_allclose(table["difference_high"], half, rtol=1e-12)


def test_unequal_runs_use_the_tasks_both_agents_have_k_runs_for():
    a = pd.DataFrame({"task": ["x", "y", "z"], "n": [2, 4, 4], "c": [2, 3, 1]})
    b = pd.DataFrame({"task": ["z", "y", "x"], "n": [3, 4, 4], "c": [3, 2, 0]})
    table = pk.compare(a, b, [1, 3], n_resamples=200, rng=0).set_index(["metric", "k"])
    row = table.loc[("pass_pow_k", 3)]
    assert row["n_tasks"] == 2  # x has 2 runs on side a: left out at k = 3
    # y: C(3,3)/C(4,3) - C(2,3)/C(4,3) = 0.25 - 0; z: 0 - 1
    assert row["difference"] == pytest.approx((0.25 + (0 - 1)) / 2)
    assert table.loc[("pass_pow_k", 1), "n_tasks"] == 3


def test_tasks_on_one_side_only_are_refused_or_dropped_with_a_record():
    a = pd.DataFrame({"task": ["x", "y", "z"], "n": 3, "c": [2, 3, 1]})
    b = pd.DataFrame({"task": ["y", "z", "w"], "n": 3, "c": [3, 2, 0]})
    with pytest.raises(
        ValueError,
        match=r"1 task\(s\) appear only in runs_a \('x'\) and 1 only "
        r"in runs_b \('w'\).*unmatched='drop' .*to compare the 2 shared tasks",
    ):
        pk.compare(a, b)
    with pytest.warns(UserWarning, match="compared the 2 shared tasks and dropped"):
        table = pk.compare(a, b, n_resamples=100, rng=0, unmatched="drop")
    assert table.attrs["only_in_a"] == ["x"]
    assert table.attrs["only_in_b"] == ["w"]
    assert (table["n_tasks"] == 2).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"unmatched": "ignore"}, "unmatched must be 'raise' or 'drop'"),
        ({"method": "two-level"}, "method must be one of auto, percentile, bca"),
        ({"ks": [5]}, r"no task has k = 5 runs on both sides .* choose ks up to 3"),
        ({"confidence_level": 0}, "strictly between"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    a = pd.DataFrame({"task": ["x", "y"], "n": 3, "c": [2, 3]})
    with pytest.raises(ValueError, match=message):
        pk.compare(a, a, **kwargs)


def test_no_shared_task_is_refused():
    a = pd.DataFrame({"task": ["x"], "n": 3, "c": [2]})
    b = pd.DataFrame({"task": ["y"], "n": 3, "c": [2]})
    with pytest.raises(ValueError, match="share no task"):
        pk.compare(a, b, unmatched="drop")


def test_ids_written_as_text_on_one_side_get_the_fix_that_pairs_them():
    # a CSV file's ids are read as text; the same tasks from a JSON file or a simulation are
    # integers: the message says which side to convert, and the fix pairs every task
    a = pk.simulate_coin(p=0.9, tasks=10, seed=1)
    b = pk.simulate_coin(p=0.6, tasks=10, seed=2)
    a_text = a.assign(task=a["task"].astype(str))
    fix = r"runs_b\['task'\] = runs_b\['task'\]\.astype\(str\)"
    with pytest.raises(ValueError, match=r"runs_a's '0' and runs_b's 0 are one id written two"):
        pk.compare(a_text, b, [1])
    with pytest.raises(ValueError, match=fix):
        pk.compare(a_text, b, [1])
    fixed = pk.compare(a_text, b.assign(task=b["task"].astype(str)), [1])
    pd.testing.assert_frame_equal(fixed, pk.compare(a, b, [1]))


def test_the_metadata_names_the_differences_method_and_the_agents_own():
    a, b = correlated_agents(30, 3, seed=5)
    boot = pk.compare(a, b, method="bca", n_resamples=200, rng=0)
    assert boot.attrs["method"] == "bca"  # the difference's interval
    assert boot.attrs["agent_interval_method"] == "auto"  # each agent's own
    closed = pk.compare(a, b)
    own = [f"value_{side}_{end}" for side in "ab" for end in ("low", "high")]
    pd.testing.assert_frame_equal(boot[own], closed[own])  # whatever the difference's method
    assert closed.attrs["agent_interval_method"] == "auto"


def test_an_agents_own_interval_goes_to_its_rows_metric_and_k_wherever_the_row_is():
    from passk_lab._interval_policy import IntervalSpec
    from passk_lab.comparison import _own_limits

    a, b = correlated_agents(30, 4, seed=6)
    table = pk.compare(a, b)
    counts = pk.tally(a)
    n, c = counts["n"].to_numpy(), counts["c"].to_numpy()
    tasks = np.ones(len(n), dtype=np.int64)
    spec = IntervalSpec.of("auto", 0.95, 200, None)
    shuffled = table.sample(frac=1, random_state=0)
    low, high = _own_limits(n, c, tasks, n, shuffled, spec)
    np.testing.assert_allclose(low, shuffled["value_a_low"], rtol=1e-12)
    np.testing.assert_allclose(high, shuffled["value_a_high"], rtol=1e-12)
