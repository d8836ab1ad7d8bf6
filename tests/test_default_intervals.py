"""The default intervals: their formulas against an independent computation, and the cases
where data cannot support certainty (never a point; NaN with a warning from one task)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import passk_lab as pk
from passk_lab._mean_intervals import TaskMoments, effective_n_interval, paired_interval


def effective_n_by_hand(values, blocks, level=0.95):
    """The effective-n Clopper-Pearson interval of a list of task values, written out."""
    values = np.asarray(values, dtype=float)
    count, mean = len(values), values.mean()
    augmented = np.concatenate([values, [0.0, 1.0]])  # one pseudo-task at each end
    squares = ((augmented - augmented.mean()) ** 2).sum()
    variance = squares / ((count - 1) * (count + 2))
    # at least the tasks (values in [0, 1] vary at most as 0/1 values do), at most the blocks
    trials = min(max(mean * (1 - mean) / variance, count), blocks)
    x, alpha = mean * trials, 1 - level
    low = stats.beta.ppf(alpha / 2, x, trials - x + 1) if x > 0 else 0.0
    high = stats.beta.ppf(1 - alpha / 2, x + 1, trials - x) if x < trials else 1.0
    return low, high


def per_task(counts, k, statistic):
    n, c = counts["n"].to_numpy(), counts["c"].to_numpy()
    if statistic == "pass_pow_k":
        return np.array([math.comb(ci, k) / math.comb(ni, k) for ni, ci in zip(n, c, strict=True)])
    return np.array(
        [1 - math.comb(ni - ci, k) / math.comb(ni, k) for ni, ci in zip(n, c, strict=True)]
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_curve_intervals_are_the_effective_n_clopper_pearson_written_out(seed, level):
    rng = np.random.default_rng(seed)
    n = rng.integers(5, 9, size=30)
    c = rng.binomial(n, rng.beta(2, 1, size=30))
    counts = pd.DataFrame({"task": range(30), "n": n, "c": c})
    curve = pk.reliability_curve(counts, ks=[1, 3, 5], confidence_level=level).set_index("k")
    for k in (1, 3, 5):
        for statistic in ("pass_pow_k", "pass_at_k"):
            low, high = effective_n_by_hand(per_task(counts, k, statistic), (n // k).sum(), level)
            assert curve.loc[k, f"{statistic}_low"] == pytest.approx(low, rel=1e-9, abs=1e-12)
            assert curve.loc[k, f"{statistic}_high"] == pytest.approx(high, rel=1e-9, abs=1e-12)
        assert curve.loc[k, "interval_method"] == "effective_n"


def test_at_k_equal_to_the_runs_the_interval_is_clopper_pearson_on_the_tasks():
    counts = pd.DataFrame({"task": range(25), "n": 4, "c": [0] * 5 + [2] * 10 + [4] * 10})
    curve = pk.reliability_curve(counts).set_index("k")
    # statsmodels' "beta" method is Clopper-Pearson
    from statsmodels.stats.proportion import proportion_confint

    assert curve.loc[4, "pass_pow_k_low"] == pytest.approx(
        proportion_confint(10, 25, method="beta")[0], rel=1e-10
    )
    assert curve.loc[4, "pass_at_k_high"] == pytest.approx(
        proportion_confint(20, 25, method="beta")[1], rel=1e-10
    )
    assert curve.loc[4, "interval_method"] == "clopper_pearson"


def test_clopper_pearson_never_covers_less_than_its_level_where_wilson_does():
    # exact coverage by enumerating every outcome of 20 tasks: Clopper-Pearson holds the level
    # at every truth (its defining property); Wilson dips below 0.93 near the ends
    trials, level = 20, 0.95
    outcomes = np.arange(trials + 1)
    low, high = pk.binomial_ci(outcomes, trials, method="clopper_pearson")
    wilson_low, wilson_high = pk.binomial_ci(outcomes, trials, method="wilson")
    truths = np.linspace(0.001, 0.999, 999)
    chances = stats.binom.pmf(outcomes[None, :], trials, truths[:, None])

    def coverage(lows, highs):
        inside = (lows[None, :] <= truths[:, None]) & (truths[:, None] <= highs[None, :])
        return (chances * inside).sum(axis=1)

    assert coverage(low, high).min() >= level - 1e-12
    assert coverage(wilson_low, wilson_high).min() < 0.93


# --- never a point where the data cannot support certainty ------------------------------


def test_thirty_tasks_alike_have_intervals_of_width():
    counts = pd.DataFrame({"task": range(30), "n": 4, "c": 2})  # every task passed 2 of 4
    curve = pk.reliability_curve(counts).set_index("k")
    assert curve.loc[1, "pass_pow_k"] == 0.5
    assert curve.loc[2, "pass_pow_k"] == pytest.approx(1 / 6)
    for k, statistic in [(1, "pass_pow_k"), (2, "pass_pow_k"), (2, "pass_at_k")]:
        low, high = effective_n_by_hand(per_task(counts, k, statistic), 30 * (4 // k))
        assert curve.loc[k, f"{statistic}_low"] == pytest.approx(low, rel=1e-9)
        assert curve.loc[k, f"{statistic}_high"] == pytest.approx(high, rel=1e-9)
        assert curve.loc[k, f"{statistic}_high"] - curve.loc[k, f"{statistic}_low"] > 0.05


@pytest.mark.parametrize("c", [0, 5])
def test_every_run_passing_or_failing_gives_the_binomial_of_the_tasks(c):
    counts = pd.DataFrame({"task": range(20), "n": 5, "c": c})
    curve = pk.reliability_curve(counts)
    low, high = pk.binomial_ci(20 if c else 0, 20, method="clopper_pearson")
    for statistic in ("pass_pow_k", "pass_at_k", "p_pow_k"):
        if statistic == "p_pow_k":  # the band is the pass@1 interval to the power k
            np.testing.assert_allclose(curve["p_pow_k_low"], low ** curve["k"], atol=1e-15)
            continue
        np.testing.assert_allclose(curve[f"{statistic}_low"], low, atol=1e-12)
        np.testing.assert_allclose(curve[f"{statistic}_high"], high, atol=1e-12)
    assert (curve["pass_pow_k_high"] > curve["pass_pow_k_low"]).all()
    error = pk.pass_at_1_se(counts)
    assert error.confidence_interval() == pytest.approx((low, high))
    assert error.confidence_interval(method="clustered") == (c / 5, c / 5)  # the old point


def test_a_k_counted_on_one_task_is_nan_with_a_warning_not_a_point():
    # one task with 96 runs and 3 passes beside 40 tasks with 8 runs: k = 35 counts one task
    counts = pd.DataFrame(
        {"task": range(41), "n": [96] + [8] * 40, "c": [3] + [4] * 40},
    )
    with (
        pytest.warns(RuntimeWarning, match=r"k = 35 counts 1 of the 41 tasks"),
        pytest.warns(RuntimeWarning, match=r"intervals at k = 35 are NaN: one task"),
    ):
        curve = pk.reliability_curve(counts, ks=[1, 8, 35])
    row = curve.set_index("k").loc[35]
    assert row["n_tasks"] == 1
    assert row["pass_pow_k"] == 0.0  # C(3, 35) = 0: the value stands
    assert math.isnan(row["pass_pow_k_low"])
    assert math.isnan(row["pass_at_k_high"])
    assert row["interval_method"] == "none (fewer than 2 tasks)"


def test_one_passing_run_among_many_failures_moves_the_interval_a_little_not_to_0_8():
    # 20 tasks x 10 runs: no pass, then one pass in 200 runs. The pseudo-tasks alone would
    # make the second a mean of 2 effective tasks ([0, 0.82]); a mean of 20 values in [0, 1]
    # is worth at least 20 trials
    none = pk.pass_at_1_se(pd.DataFrame({"task": range(20), "n": 10, "c": 0}))
    one = pk.pass_at_1_se(pd.DataFrame({"task": range(20), "n": 10, "c": [1] + [0] * 19}))
    low, high = one.confidence_interval()
    expected = stats.beta.ppf([0.025, 0.975], [0.1, 1.1], [20.9, 19.9])  # CP at 0.1 of 20
    assert (low, high) == pytest.approx(tuple(expected), rel=1e-9)
    assert none.confidence_interval().high < high < 0.2


def test_one_task_for_pass_at_1_is_nan_with_a_warning():
    error = pk.pass_at_1_se(pd.DataFrame({"task": [0], "n": [10], "c": [7]}))
    with pytest.warns(RuntimeWarning, match="one task says nothing about the next"):
        low, high = error.confidence_interval()
    assert math.isnan(low)
    assert math.isnan(high)


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_a_bootstrap_with_no_width_gives_way_to_the_closed_form_interval(method):
    counts = pd.DataFrame({"task": range(30), "n": 4, "c": 2})
    closed = pk.reliability_curve(counts)
    resampled = pk.reliability_curve(counts, method=method, n_resamples=500, rng=0)
    columns = ["pass_pow_k_low", "pass_pow_k_high", "pass_at_k_low", "pass_at_k_high"]
    # every task has the same value at every k: the bootstrap has no width anywhere
    pd.testing.assert_frame_equal(resampled[columns], closed[columns])
    assert (resampled["pass_pow_k_high"] > resampled["pass_pow_k_low"]).all()
    assert resampled.loc[0, "interval_method"] == f"effective_n ({method}: no width)"


# --- the same tasks at every k -------------------------------------------------------------


def test_tasks_dropping_out_between_k_values_warn_and_common_tasks_keeps_one_set():
    rng = np.random.default_rng(3)
    n = np.r_[np.full(70, 8), np.full(10, 12)]
    counts = pd.DataFrame({"task": range(80), "n": n, "c": rng.binomial(n, 0.8)})
    with pytest.warns(RuntimeWarning, match=r"k = 9 counts 10 of the 80 tasks counted at k = 1"):
        default = pk.reliability_curve(counts)
    assert default["n_tasks"].tolist() == [80] * 8 + [10] * 4
    common = pk.reliability_curve(counts, common_tasks=True)  # warnings are errors here
    assert common["n_tasks"].tolist() == [10] * 12
    assert common["n_tasks_excluded"].tolist() == [70] * 12
    alone = pk.reliability_curve(counts[counts["n"] == 12])
    columns = [name for name in alone.columns if name not in ("n_tasks_excluded",)]
    pd.testing.assert_frame_equal(common[columns], alone[columns])
    assert common.attrs["common_tasks"] is True
    with pytest.raises(TypeError, match="common_tasks must be True or False"):
        pk.reliability_curve(counts, common_tasks="yes")


@pytest.mark.parametrize("short", [1, 5])
def test_any_task_left_out_at_a_k_warns_with_the_count_left_out(short):
    n = np.r_[np.full(100 - short, 3), np.full(short, 2)]  # tasks with 2 runs drop out at k = 3
    counts = pd.DataFrame({"task": range(100), "n": n, "c": 2})
    with pytest.warns(pk.TasksLeftOutWarning) as caught:
        curve = pk.reliability_curve(counts)
    (warning,) = [record.message for record in caught]
    counted = int((n >= 3).sum())
    assert (warning.k, warning.counted, warning.first, warning.left_out) == (3, counted, 100, short)
    assert f"counts {counted} of the 100 tasks counted at k = 1 ({short} left out)" in str(warning)
    assert curve["n_tasks"].tolist() == [int((n >= k).sum()) for k in (1, 2, 3)]
    # the same tasks at every k, asked or in common: no warning (warnings are errors here)
    assert pk.reliability_curve(counts, [1, 2])["n_tasks"].tolist() == [100, 100]
    common = pk.reliability_curve(counts, common_tasks=True)
    assert common["n_tasks"].tolist() == [counted] * 3


# --- paired differences ---------------------------------------------------------------------


def test_the_paired_interval_is_the_two_parts_recombined_written_out():
    rng = np.random.default_rng(8)
    a = pd.DataFrame({"task": range(25), "n": 5, "c": rng.binomial(5, 0.7, size=25)})
    b = pd.DataFrame({"task": range(25), "n": 3, "c": rng.binomial(3, 0.6, size=25)})
    table = pk.compare(a, b, [1, 2, 3]).set_index(["metric", "k"])
    for k in (1, 2, 3):
        for statistic in ("pass_pow_k", "pass_at_k"):
            d = per_task(a, k, statistic) - per_task(b, k, statistic)
            above, below = np.maximum(d, 0), np.maximum(-d, 0)
            blocks = 25 * (3 // k)  # the fewer runs: agent b's 3
            above_low, above_high = effective_n_by_hand(above, blocks)
            below_low, below_high = effective_n_by_hand(below, blocks)
            r = np.corrcoef(above, below)[0, 1] if above.std() and below.std() else 0.0
            m_above, m_below = above.mean(), below.mean()
            low = d.mean() - np.sqrt(
                (m_above - above_low) ** 2
                + (below_high - m_below) ** 2
                - 2 * r * (m_above - above_low) * (below_high - m_below)
            )
            high = d.mean() + np.sqrt(
                (above_high - m_above) ** 2
                + (m_below - below_low) ** 2
                - 2 * r * (above_high - m_above) * (m_below - below_low)
            )
            row = table.loc[(statistic, k)]
            assert row["difference_low"] == pytest.approx(max(low, -1.0), rel=1e-9, abs=1e-12)
            assert row["difference_high"] == pytest.approx(min(high, 1.0), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_the_paired_interval_keeps_its_level_where_agents_rarely_disagree(level):
    # 40 tasks whose values are 0 or 1 for both agents: d is -1, 0 or +1, here +1 with chance
    # q and never -1. The exact coverage enumerates the tasks that disagree (a binomial)
    tasks = 40
    plus = np.arange(tasks + 1)
    differences = (plus[None, :] > np.arange(tasks)[:, None]).astype(float)  # tasks x counts
    low, high = paired_interval(
        differences,
        np.ones(tasks, dtype=np.int64),
        np.ones(tasks, dtype=np.int64),
        np.ones(tasks + 1, dtype=np.int64),
        level,
    )
    for q in np.linspace(0.005, 0.15, 59):
        inside = (low <= q) & (q <= high)
        assert stats.binom.pmf(plus, tasks, q)[inside].sum() >= level - 0.02


def test_two_agents_at_the_ceiling_get_an_interval_of_width():
    a = pd.DataFrame({"task": range(40), "n": 5, "c": 5})
    b = pd.DataFrame({"task": range(40), "n": 5, "c": [5] * 38 + [4, 3]})
    table = pk.compare(a, b, [5], method="bca", rng=0).set_index("metric")
    # pass@5 is 1 for every task of both: the bootstrap has no width, the default has
    low, high = paired_interval(
        np.zeros((1, 1)), np.array([40]), np.array([5]), np.array([5]), 0.95
    )
    assert table.loc["pass_at_k", "difference_low"] == pytest.approx(low[0])
    assert table.loc["pass_at_k", "difference_high"] == pytest.approx(high[0])
    assert high[0] > 0


def test_moments_count_only_the_tasks_with_k_runs():
    values = np.array([[0.5, np.nan], [1.0, 1.0]])
    moments = TaskMoments.of(values, np.array([3, 2]), np.array([2, 6]), np.array([1, 6]))
    assert moments.tasks.tolist() == [5.0, 2.0]
    assert moments.mean.tolist() == pytest.approx([(1.5 + 2.0) / 5, 1.0])
    assert moments.blocks.tolist() == [3 * 2 + 2 * 6, 2.0]
    assert moments.exact.tolist() == [False, True]
    low, high = effective_n_interval(moments, 0.95)
    assert (low[1], high[1]) == pytest.approx(pk.binomial_ci(2, 2, method="clopper_pearson"))


# --- the beta-binomial prediction past the observed runs -----------------------------------


def test_a_rejected_beta_binomial_flags_its_predictions_past_the_runs():
    # two clusters of tasks, one passing 1 of 8 runs and one 7 of 8: no Beta has that shape
    counts = pd.DataFrame({"task": range(80), "n": 8, "c": [1] * 40 + [7] * 40})
    fit = pk.fit_betabinom(counts)
    assert fit.rejected
    with pytest.warns(RuntimeWarning, match=r"fits the runs badly .* past k = 8"):
        curve = pk.reliability_curve(counts, predict_to=12)
    assert (curve["betabinom_fit_pvalue"] == fit.goodness_of_fit.p_value).all()
    assert (curve["betabinom_fit_pvalue"] < 0.05).all()
    inside = pk.reliability_curve(counts)  # no prediction past the runs: no warning
    assert inside["betabinom_fit_pvalue"].iloc[0] == fit.goodness_of_fit.p_value


def test_a_beta_binomial_that_fits_predicts_without_a_warning(tau_bench_runs):
    fit = pk.fit_betabinom(tau_bench_runs)
    assert not fit.rejected
    curve = pk.reliability_curve(tau_bench_runs, predict_to=12)  # warnings are errors
    assert curve["betabinom_fit_pvalue"].iloc[0] == pytest.approx(fit.goodness_of_fit.p_value)


def test_common_tasks_with_an_asked_k_past_every_task_keeps_the_tasks_that_reach_the_rest():
    runs = pk.simulate_coin(p=0.7, tasks=20, k=5, seed=1)
    with pytest.warns(RuntimeWarning, match=r"no estimate for k = 7: no task has that many runs"):
        curve = pk.reliability_curve(runs, ks=[1, 7], common_tasks=True)
    assert curve["n_tasks"].tolist() == [20, 0]
    assert curve.loc[0, "pass_pow_k"] == pk.pass_at_1(runs)
    assert np.isnan(curve.loc[1, "pass_pow_k_low"])


def test_common_tasks_measures_no_k_past_the_asked_ones_and_still_predicts():
    n = np.r_[np.full(30, 3), np.full(10, 6)]
    counts = pd.DataFrame({"task": range(40), "n": n, "c": np.r_[np.full(30, 2), np.full(10, 5)]})
    curve = pk.reliability_curve(counts, ks=[1, 2, 3], predict_to=6, common_tasks=True)
    assert curve["n_tasks"].tolist() == [40, 40, 40, 0, 0, 0]
    beyond = curve[curve["k"] > 3]
    measured = [name for name in curve.columns if name.startswith(("pass_pow_k", "pass_at_k"))]
    assert beyond[measured].isna().all().all()
    assert beyond["betabinom_pow_k"].notna().all()
    assert beyond["p_pow_k_low"].notna().all()


def test_a_pass_at_1_se_built_by_hand_gives_the_normal_intervals_and_refuses_auto():
    error = pk.PassAt1SE(
        estimate=0.4, se_clustered=0.05, se_naive=0.03, design_effect=2.8, n_tasks=50, n_runs=200
    )
    low, high = error.confidence_interval(method="clustered")
    assert (low, high) == pytest.approx((0.4 - 1.959964 * 0.05, 0.4 + 1.959964 * 0.05), rel=1e-6)
    with pytest.raises(ValueError, match=r"needs the tasks' \(n, c\) cells.*from_cells"):
        error.confidence_interval()
