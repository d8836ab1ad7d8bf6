"""Curves against k (decay curve, comparison): each test reads the data back off the Axes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection

import passk_lab as pk
from passk_lab import plots


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def lines_by_style(ax, style):
    return [line for line in ax.get_lines() if line.get_linestyle() == style]


def bands(ax):
    return [item for item in ax.collections if isinstance(item, PolyCollection)]


def band_edges(band):
    """The lower and upper edges of a fill_between band: the least and greatest y at each x."""
    vertices = pd.DataFrame(band.get_paths()[0].vertices, columns=["x", "y"])
    edges = vertices.groupby("x")["y"].agg(["min", "max"])
    return edges["min"].to_numpy(), edges["max"].to_numpy()


def legend_texts(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_decay_curve_draws_the_measured_curve_its_band_and_both_predictions(tau_bench_runs):
    curve = pk.reliability_curve(tau_bench_runs, rng=0, predict_to=10)
    ax = plots.decay_curve(curve)
    assert ax is plt.gca()
    (measured,) = lines_by_style(ax, "-")
    assert measured.get_xdata().tolist() == [1, 2, 3, 4]  # only where tasks have k runs
    np.testing.assert_allclose(measured.get_ydata(), [0.42, 0.2733, 0.22, 0.20], atol=5e-4)
    (analytic,) = lines_by_style(ax, "--")
    np.testing.assert_allclose(analytic.get_ydata(), 0.42 ** np.arange(1, 11))
    (betabinom,) = lines_by_style(ax, ":")
    fit = pk.fit_betabinom(tau_bench_runs)
    np.testing.assert_allclose(betabinom.get_ydata(), fit.pow_k(range(1, 11)))
    (pass_at_1,) = lines_by_style(ax, "-.")
    assert list(pass_at_1.get_ydata()) == [0.42, 0.42]
    measured_band, analytic_band = bands(ax)
    low, high = band_edges(measured_band)
    np.testing.assert_allclose(low, curve["pass_pow_k_low"].iloc[:4])
    np.testing.assert_allclose(high, curve["pass_pow_k_high"].iloc[:4])
    low, high = band_edges(analytic_band)
    np.testing.assert_allclose(high, curve["p_pow_k_high"])
    texts = legend_texts(ax)
    assert "measured pass$^k$" in texts
    assert "95% CI of measured pass$^k$" in texts
    assert "beta-binomial: tasks differ" in texts
    assert ax.get_xlabel() == "k (runs that must all pass)"
    assert ax.get_ylim() == (0, 1.02)


def test_decay_curve_draws_one_colour_per_group_and_names_the_groups():
    both = pd.concat(
        [
            pk.simulate_coin(p=0.9, tasks=30, k=4, seed=1).assign(model="strong"),
            pk.simulate_coin(p=0.6, tasks=30, k=4, seed=2).assign(model="weak"),
        ]
    )
    curve = pk.reliability_curve(both, by="model", rng=0, confidence_level=0.9)
    ax = plots.decay_curve(curve, log=True, bands=False)
    measured = lines_by_style(ax, "-")
    assert [line.get_label() for line in measured] == ["model=strong", "model=weak"]
    assert measured[0].get_color() != measured[1].get_color()
    for line, (_, part) in zip(measured, curve.groupby("model"), strict=True):
        np.testing.assert_allclose(line.get_ydata(), part["pass_pow_k"])
    assert bands(ax) == []
    assert ax.get_yscale() == "log"
    assert {"model=strong", "model=weak", "measured pass$^k$"} <= set(legend_texts(ax))


def test_decay_curve_refuses_a_table_that_is_not_a_curve():
    with pytest.raises(ValueError, match=r"no column 'pass_pow_k_low'.*reliability_curve"):
        plots.decay_curve(pk.tally(pk.simulate_coin()).assign(k=1, pass_pow_k=0.5))
    with pytest.raises(TypeError, match="DataFrame from reliability_curve"):
        plots.decay_curve([1, 2])


def test_comparison_draws_both_agents_and_the_paired_difference_with_its_band():
    strong = pk.simulate_coin(p=0.9, tasks=100, k=4, seed=1)
    weak = pk.simulate_coin(p=0.7, tasks=100, k=4, seed=2)
    table = pk.compare(strong, weak, rng=0, n_resamples=500)
    ax = plots.comparison(table, names=("strong", "weak"))
    first, second, zero, difference = ax.get_lines()
    rows = table[table["metric"] == "pass_pow_k"]
    np.testing.assert_allclose(first.get_ydata(), rows["value_a"])
    np.testing.assert_allclose(second.get_ydata(), rows["value_b"])
    np.testing.assert_allclose(difference.get_ydata(), rows["difference"])
    assert list(zero.get_ydata()) == [0, 0]
    (band,) = bands(ax)
    low, high = band_edges(band)
    np.testing.assert_allclose(low, rows["difference_low"])
    np.testing.assert_allclose(high, rows["difference_high"])
    assert legend_texts(ax)[:3] == ["strong", "weak", "strong \N{MINUS SIGN} weak"]
    at_k = plots.comparison(table, metric="pass_at_k", ax=plt.figure().gca())
    assert at_k.get_ylabel() == "pass@k"
    with pytest.raises(ValueError, match="no rows for metric 'pass@k'"):
        plots.comparison(table, metric="pass@k")
