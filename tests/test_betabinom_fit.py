"""The beta-binomial fit's goodness-of-fit check and its zero/one-inflated model, against scipy."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, special, stats

import passk_lab as pk
from passk_lab._goodness_of_fit import chi2_sf


def counts_frame(n, c):
    n = np.broadcast_to(n, np.shape(c))
    return pd.DataFrame({"task": range(len(c)), "n": n, "c": c})


def cells(counts):
    table = counts.groupby(["n", "c"]).size().reset_index(name="tasks")
    return (table[name].to_numpy() for name in ("n", "c", "tasks"))


def mixture(tasks, runs, seed):
    """The mixture in which 30% of tasks always pass and the rest pass with chance 0.6."""
    rng = np.random.default_rng(seed)
    return counts_frame(runs, rng.binomial(runs, np.where(rng.random(tasks) < 0.3, 1.0, 0.6)))


def three_part(tasks, runs, seed):
    """20% of tasks never pass, 20% always pass, 60% have a Beta(2, 2) rate."""
    rng = np.random.default_rng(seed)
    part = rng.choice(3, size=tasks, p=[0.2, 0.2, 0.6])
    rates = np.select([part == 0, part == 1], [0.0, 1.0], rng.beta(2, 2, tasks))
    n = rng.integers(3, runs + 1, tasks) if seed % 2 else np.full(tasks, runs)
    return counts_frame(n, rng.binomial(n, rates))


def model_chances(fit, c, n):
    """P(c | n) under the fit, from scipy: the beta-binomial (or binomial) and the point masses."""
    if fit.icc == 0:
        beta_part = stats.binom.pmf(c, n, fit.mean)
    else:
        beta_part = stats.betabinom.pmf(c, n, fit.alpha, fit.beta)
    shares = fit.zero_share + fit.one_share
    return (1 - shares) * beta_part + fit.zero_share * (c == 0) + fit.one_share * (c == n)


def scipy_log_likelihood(counts, zero, one, mean, icc):
    c, n = counts["c"].to_numpy(), counts["n"].to_numpy()
    scale = (1 - icc) / icc
    beta_part = stats.betabinom.pmf(c, n, mean * scale, (1 - mean) * scale)
    return float(np.log((1 - zero - one) * beta_part + zero * (c == 0) + one * (c == n)).sum())


# --- the chi-squared tail and the goodness-of-fit statistic ------------------------------


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 10, 25, 60, 201])
def test_chi2_tail_is_scipys(df):
    for statistic in [1e-6, 0.3, 1.0, df / 2, df, 2 * df + 5, 5 * df + 40]:
        assert chi2_sf(statistic, df) == pytest.approx(stats.chi2.sf(statistic, df), rel=1e-9)
    assert chi2_sf(0.0, df) == 1.0


def test_with_every_cell_expecting_enough_the_check_is_pearsons_over_the_cells():
    # 400 tasks of 3 runs: every outcome cell expects far more than 2 tasks, so no pooling
    rng = np.random.default_rng(1)
    counts = counts_frame(3, rng.binomial(3, rng.beta(2, 1, 400)))
    fit = pk.fit_betabinom(counts, model="betabinom")
    observed = np.bincount(counts["c"], minlength=4)
    expected = 400 * stats.betabinom.pmf(np.arange(4), 3, fit.alpha, fit.beta)
    assert expected.min() > 2
    statistic = ((observed - expected) ** 2 / expected).sum()
    assert fit.goodness_of_fit.statistic == pytest.approx(statistic, rel=1e-9)
    assert fit.goodness_of_fit.df == 4 - 1 - 2
    assert fit.goodness_of_fit.p_value == pytest.approx(stats.chi2.sf(statistic, 1), rel=1e-9)
    assert fit.rejected == (stats.chi2.sf(statistic, 1) < 0.05)


def brute_force_check(counts, fit, fitted, pool=2.0):
    """Every (n, c) cell, ordered by its mid-distribution value, pooled greedily in plain Python."""
    rows = []
    for n, tasks in counts["n"].value_counts().items():
        chances = [float(model_chances(fit, c, n)) for c in range(n + 1)]
        below = 0.0
        for c, chance in enumerate(chances):
            observed = int(((counts["n"] == n) & (counts["c"] == c)).sum())
            rows.append((below + chance / 2, n, c, observed, tasks * chance))
            below += chance
    rows.sort()
    pools, current = [], [0, 0.0]
    for *_, observed, expected in rows:
        current[0] += observed
        current[1] += expected
        if current[1] >= pool:
            pools.append(current)
            current = [0, 0.0]
    if current[1] > 0:  # what is left joins the last pool
        pools[-1][0] += current[0]
        pools[-1][1] += current[1]
    statistic = sum((o - e) ** 2 / e for o, e in pools)
    return statistic, len(pools) - 1 - fitted


@pytest.mark.parametrize("seed", range(6))
def test_the_check_is_a_brute_force_pearson_over_pooled_cells(seed):
    # equal and unequal runs, a plain and an inflated fit, outcome cells with few tasks
    rng = np.random.default_rng(seed)
    tasks = [30, 80, 150][seed % 3]
    n = rng.integers(2, 9, tasks) if seed % 2 else np.full(tasks, 6)
    rates = np.where(rng.random(tasks) < 0.25, 1.0, rng.beta(1.5, 1.5, tasks))
    counts = counts_frame(n, rng.binomial(n, rates))
    for model in ("betabinom", "inflated"):
        fit = pk.fit_betabinom(counts, model=model)
        fitted = 1 + (fit.icc > 0) + (fit.zero_share > 0) + (fit.one_share > 0)
        statistic, df = brute_force_check(counts, fit, fitted)
        check = fit.goodness_of_fit
        assert check.statistic == pytest.approx(statistic, rel=1e-8)
        assert check.df == max(df, 0)
        if df > 0:
            assert check.p_value == pytest.approx(stats.chi2.sf(statistic, df), rel=1e-8)
        else:
            assert math.isnan(check.p_value)
            assert not fit.rejected


def test_a_check_with_nothing_to_test_is_not_a_rejection():
    fit = pk.fit_betabinom(counts_frame(4, [0, 0, 1, 3, 4, 4]))
    assert fit.goodness_of_fit.df == 0
    assert math.isnan(fit.goodness_of_fit.p_value)
    assert not fit.rejected
    every_run_passed = pk.fit_betabinom(counts_frame(3, [3, 3, 3]))
    assert math.isnan(every_run_passed.goodness_of_fit.statistic)
    assert not every_run_passed.rejected


# --- the zero/one-inflated model ---------------------------------------------------------


def independent_inflated_maximum(counts):
    """The best of several Nelder-Mead searches over scipy's inflated beta-binomial likelihood."""

    # the searches evaluate the likelihood tens of thousands of times: in closed form over the
    # distinct (n, c) pairs, which scipy's betabinom confirms at the best point below
    pairs, weight = np.unique(counts[["n", "c"]].to_numpy(), axis=0, return_counts=True)
    n, c = pairs[:, 0], pairs[:, 1]
    choose = special.gammaln(n + 1) - special.gammaln(c + 1) - special.gammaln(n - c + 1)

    def negative(theta):
        zero, one, mean, icc = theta
        if zero + one >= 1:
            return np.inf
        scale = (1 - icc) / icc
        a, b = mean * scale, (1 - mean) * scale
        beta_part = np.exp(choose + special.betaln(c + a, n - c + b) - special.betaln(a, b))
        with np.errstate(divide="ignore"):
            chance = (1 - zero - one) * beta_part + zero * (c == 0) + one * (c == n)
            return -float((weight * np.log(chance)).sum())

    bounds = [(0, 1), (0, 1), (1e-9, 1 - 1e-9), (1e-6, 1 - 1e-9)]
    options = {"xatol": 1e-11, "fatol": 1e-12, "maxiter": 20_000, "maxfev": 20_000}
    starts = [(0.05, 0.05, 0.5, 0.1), (0.2, 0.2, 0.5, 0.3), (0.01, 0.3, 0.6, 0.02)]
    searches = [
        optimize.minimize(negative, start, method="Nelder-Mead", bounds=bounds, options=options)
        for start in starts
    ]
    best = min(searches, key=lambda search: search.fun)
    assert -best.fun == pytest.approx(scipy_log_likelihood(counts, *best.x), abs=1e-9)
    return -best.fun, best.x


@pytest.mark.parametrize("seed", range(8))
def test_inflated_fit_is_the_maximum_of_scipys_likelihood(seed):
    counts = three_part([40, 80, 150, 300][seed % 4], [6, 10][seed % 2], seed)
    fit = pk.fit_betabinom(counts, model="inflated")
    assert fit.model == "inflated"
    best, _ = independent_inflated_maximum(counts)
    assert fit.log_likelihood >= best - 1e-9
    if fit.icc > 0:  # scipy's betabinom is exact there, so the two likelihoods agree
        mine = scipy_log_likelihood(counts, fit.zero_share, fit.one_share, fit.mean, fit.icc)
        assert fit.log_likelihood == pytest.approx(mine, abs=1e-9)
        assert fit.log_likelihood == pytest.approx(best, abs=1e-6)
    assert fit.inflated_log_likelihood == fit.log_likelihood
    assert fit.inflated_log_likelihood >= fit.betabinom_log_likelihood


def test_with_no_task_at_either_end_the_inflated_fit_is_the_plain_one():
    counts = counts_frame(5, [1, 2, 2, 3, 3, 3, 4, 4, 1, 2, 3, 4])
    plain = pk.fit_betabinom(counts, model="betabinom")
    inflated = pk.fit_betabinom(counts, model="inflated")
    assert (inflated.zero_share, inflated.one_share) == (0.0, 0.0)
    assert inflated.log_likelihood == pytest.approx(plain.log_likelihood, abs=1e-12)
    assert inflated.mean == pytest.approx(plain.mean, abs=1e-12)
    assert inflated.inflation_pvalue == 1.0


def test_pow_k_of_the_inflated_model_is_its_integral():
    fit = pk.fit_betabinom(three_part(200, 8, 2), model="inflated")
    assert min(fit.zero_share, fit.one_share, fit.icc) > 0
    density = stats.beta(fit.alpha, fit.beta).pdf
    for k in [1, 2, 5, 8, 20, 40]:
        moment, _ = integrate.quad(lambda p, k=k: p**k * density(p), 0, 1, limit=200)
        weight = 1 - fit.zero_share - fit.one_share
        assert fit.pow_k(k) == pytest.approx(fit.one_share + weight * moment, rel=1e-7)
    ks = np.arange(1, 30)
    closed = np.exp(special.betaln(fit.alpha + ks, fit.beta) - special.betaln(fit.alpha, fit.beta))
    weight = 1 - fit.zero_share - fit.one_share
    np.testing.assert_allclose(fit.pow_k(ks), fit.one_share + weight * closed, rtol=1e-10)


def inflation_pvalue_by_scipy(counts):
    """The selection's test from scipy's likelihoods at each model's independent maximum."""
    from test_heterogeneity import independent_maximum

    statistic = max(2 * (independent_inflated_maximum(counts)[0] - independent_maximum(counts)), 0)
    return 0.5 * (stats.chi2.sf(statistic, 1) + stats.chi2.sf(statistic, 2)) if statistic else 1.0


@pytest.mark.parametrize("seed", range(4))
def test_auto_takes_the_inflated_model_exactly_when_the_likelihood_ratio_test_rejects(seed):
    # that mixture at 80 tasks x 5 runs: the test rejects on some seeds, not on others
    counts = mixture(80, 5, seed)
    fit = pk.fit_betabinom(counts)
    expected = inflation_pvalue_by_scipy(counts)
    assert fit.inflation_pvalue == pytest.approx(expected, rel=1e-4, abs=1e-9)
    assert fit.model == ("inflated" if expected < 0.05 else "betabinom")
    chosen = pk.fit_betabinom(counts, model=fit.model)
    assert fit.pow_k(20) == chosen.pow_k(20)


def test_on_the_issues_mixture_auto_predicts_past_the_runs_where_the_plain_model_cannot():
    # 2000 tasks x 5 runs: the plain model's pass^20 is far off, the inflated one's is not
    counts = mixture(2000, 5, seed=11)
    truth = 0.3 + 0.7 * 0.6**20
    plain = pk.fit_betabinom(counts, model="betabinom")
    auto = pk.fit_betabinom(counts)
    assert auto.model == "inflated"
    assert abs(auto.pow_k(20) - truth) < abs(plain.pow_k(20) - truth) / 2
    assert plain.rejected  # and the check says so about the plain one
    low, high = auto.confidence_interval(20, n_resamples=100, rng=0)
    assert low < auto.pow_k(20) < high
    assert (
        plain.confidence_interval(20, n_resamples=100, rng=0).high < low
    )  # each resample refits its own model


def test_auto_rarely_takes_the_inflated_model_on_data_the_plain_model_describes():
    # Beta(2, 1) rates, 150 tasks x 10 runs, 100 task sets: the selection's test is at level 0.05
    # (conservatively), so the share taking the inflated model stays under the 0.999 quantile of
    # Binomial(100, 0.05) / 100
    rng = np.random.default_rng(12)
    replicates = 100
    taken = 0
    for _ in range(replicates):
        counts = counts_frame(10, rng.binomial(10, rng.beta(2, 1, 150)))
        taken += pk.fit_betabinom(counts).model == "inflated"
    assert taken <= stats.binom.ppf(0.999, replicates, 0.05)


def test_success_counts_expect_under_the_model_chosen():
    counts = mixture(300, 6, seed=3)
    table = pk.success_counts(counts)
    fit = pk.fit_betabinom(counts)
    assert fit.model == "inflated"
    expected = 300 * model_chances(fit, np.arange(7), 6)
    np.testing.assert_allclose(table["betabinom"], expected, rtol=1e-9)
    check = fit.goodness_of_fit
    assert table.attrs["model"] == "inflated"
    assert table.attrs["one_share"] == fit.one_share
    assert (table.attrs["gof_statistic"], table.attrs["gof_df"]) == (check.statistic, check.df)
    assert table.attrs["gof_pvalue"] == check.p_value
    assert table.attrs["rejected"] == fit.rejected
    frame = fit.to_frame()
    assert frame.loc[0, "fitted_model"] == "inflated"
    assert frame.loc[0, "one_share"] == fit.one_share
    assert frame.loc[0, "gof_df"] == check.df
    plain = pk.fit_betabinom(counts, model="betabinom").to_frame()
    assert (plain.loc[0, "zero_share"], plain.loc[0, "one_share"]) == (0.0, 0.0)


def test_model_refusals_name_the_choices():
    counts = mixture(40, 5, seed=0)
    with pytest.raises(ValueError, match="model must be one of 'auto', 'betabinom', 'inflated'"):
        pk.fit_betabinom(counts, model="zero-inflated")
    with pytest.raises(ValueError, match="model must be one of"):
        pk.success_counts(counts, model=None)
    with pytest.raises(TypeError):
        pk.fit_betabinom(counts, "auto")  # keyword-only
    with pytest.raises(ValueError, match=r"not identified.*model='betabinom'"):
        pk.fit_betabinom(counts_frame(4, [0, 4, 4, 0]), model="inflated")  # no mixed task
    with pytest.raises(ValueError, match="not identified"):
        pk.fit_betabinom(counts_frame(3, [0, 1, 2, 3]), model="inflated")  # 3 outcome chances
    assert pk.fit_betabinom(counts_frame(3, [0, 1, 2, 3])).model == "betabinom"
