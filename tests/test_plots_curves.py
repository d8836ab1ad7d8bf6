"""Curves against k (decay curve, comparison): each test reads the data back off the Axes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.legend import Legend
from matplotlib.patches import Patch

import passk_lab as pk
from passk_lab import plots

STYLES = ["measured pass$^k$", "beta-binomial: tasks differ"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def eight_models():
    """Eight models of 40 tasks and 5 runs each, p from 0.3 to 0.95: their curve by model."""
    chances = np.linspace(0.3, 0.95, 8)
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, tasks=40, k=5, seed=seed).assign(model=f"m{seed}")
            for seed, p in enumerate(chances)
        ]
    )
    return pk.reliability_curve(runs, by="model", rng=0)


@pytest.fixture(scope="module")
def coin_curve():
    return pk.reliability_curve(pk.simulate_coin(p=0.45, tasks=60, k=5, seed=0), rng=0)


def lines_by_style(ax, style):
    return [line for line in ax.get_lines() if line.get_linestyle() == style]


def bands(ax):
    return [item for item in ax.collections if isinstance(item, PolyCollection)]


def error_bars(ax):
    """Per LineCollection of vertical bars: its x, lower and upper ends, in drawing order."""
    bars = []
    for item in ax.collections:
        if isinstance(item, LineCollection):
            ends = np.array([segment[:, 1] for segment in item.get_segments()])
            x = np.array([segment[0, 0] for segment in item.get_segments()])
            bars.append((x, ends[:, 0], ends[:, 1]))
    return bars


def band_edges(band):
    """The lower and upper edges of a fill_between band: the least and greatest y at each x."""
    vertices = pd.DataFrame(band.get_paths()[0].vertices, columns=["x", "y"])
    edges = vertices.groupby("x")["y"].agg(["min", "max"])
    return edges["min"].to_numpy(), edges["max"].to_numpy()


def legends(ax):
    """Every key drawn on `ax`: ax.get_legend() and those added beside it."""
    return [item for item in ax.get_children() if isinstance(item, Legend)]


def texts(legend):
    return [text.get_text() for text in legend.get_texts()]


def style_key(ax):
    (key,) = [legend for legend in legends(ax) if "measured pass$^k$" in texts(legend)]
    return key


def drawn_figure(figsize=(7, 4.5)):
    with plots.style():
        fig, ax = plt.subplots(figsize=figsize)
    return fig, ax


# --- decay curve -------------------------------------------------------------------------


def test_decay_curve_draws_the_measured_curve_its_interval_and_both_predictions(tau_bench_runs):
    curve = pk.reliability_curve(tau_bench_runs, rng=0, predict_to=10)
    ax = plots.decay_curve(curve)
    assert ax is plt.gca()
    (measured,) = lines_by_style(ax, "-")
    assert measured.get_xdata().tolist() == [1, 2, 3, 4]  # only where tasks have k runs
    estimates = [pk.pass_pow_k(tau_bench_runs, k) for k in (1, 2, 3, 4)]
    np.testing.assert_allclose(curve["pass_pow_k"].iloc[:4], estimates, rtol=1e-12)
    np.testing.assert_allclose(measured.get_ydata(), estimates, rtol=1e-12)
    ((x, low, high),) = error_bars(ax)
    assert x.tolist() == [1, 2, 3, 4]
    np.testing.assert_allclose(low, curve["pass_pow_k_low"].iloc[:4])
    np.testing.assert_allclose(high, curve["pass_pow_k_high"].iloc[:4])
    (analytic,) = lines_by_style(ax, "--")
    np.testing.assert_allclose(analytic.get_ydata(), 0.42 ** np.arange(1, 11))
    (betabinom,) = lines_by_style(ax, ":")
    fit = pk.fit_betabinom(tau_bench_runs)
    np.testing.assert_allclose(betabinom.get_ydata(), fit.pow_k(range(1, 11)))
    (pass_at_1,) = lines_by_style(ax, "-.")
    assert list(pass_at_1.get_ydata()) == [0.42, 0.42]
    (analytic_band,) = bands(ax)  # the one filled area: the band of (pass@1)^k
    low, high = band_edges(analytic_band)
    np.testing.assert_allclose(low, curve["p_pow_k_low"])
    np.testing.assert_allclose(high, curve["p_pow_k_high"])
    shown = texts(ax.get_legend())
    assert set(STYLES) | {"95% CI of measured pass$^k$", "pass@1"} <= set(shown)
    assert ax.get_xlabel() == "k (runs that must all pass)"


def test_one_curves_style_key_is_drawn_in_the_series_colour(coin_curve):
    named = coin_curve.assign(model="only")[["model", *coin_curve.columns]]  # a group of one
    for curve in (coin_curve, named):
        ax = plots.decay_curve(curve, ax=plt.figure().gca())
        (measured,) = lines_by_style(ax, "-")
        colour = to_rgba(measured.get_color())
        handles = style_key(ax).legend_handles
        assert len(handles) == 6
        for handle in handles:
            drawn = handle.get_facecolor() if isinstance(handle, Patch) else handle.get_color()
            assert to_rgba(drawn)[:3] == colour[:3]
    assert texts(ax.get_legend()) == ["only"]  # a named group keeps its key
    assert ax.get_legend().get_title().get_text() == "model"


def test_groups_are_keyed_by_their_values_under_the_columns_names():
    both = pd.concat(
        [
            pk.simulate_coin(p=0.9, tasks=30, k=4, seed=1).assign(model="strong", domain="x"),
            pk.simulate_coin(p=0.6, tasks=30, k=4, seed=2).assign(model="weak", domain="y"),
        ]
    )
    curve = pk.reliability_curve(both, by=["model", "domain"], rng=0, confidence_level=0.9)
    ax = plots.decay_curve(curve, log=True, bands=False)
    measured = lines_by_style(ax, "-")
    assert measured[0].get_color() != measured[1].get_color()
    for line, (_, part) in zip(measured, curve.groupby("model"), strict=True):
        np.testing.assert_allclose(line.get_ydata(), part["pass_pow_k"])
    assert bands(ax) == []
    assert error_bars(ax) == []
    assert ax.get_yscale() == "log"
    groups = ax.get_legend()
    assert texts(groups) == ["strong, x", "weak, y"]
    assert groups.get_title().get_text() == "model, domain"
    assert texts(style_key(ax)) == [
        STYLES[0],
        "$\\hat{p}^{\\,k}$ = (pass@1)$^k$: tasks alike",
        STYLES[1],
    ]
    assert lines_by_style(ax, "-.") == []  # pass@1 is each group's point at k = 1


@pytest.mark.parametrize("layout", ["constrained", "tight bbox"])
def test_the_keys_sit_outside_the_axes_and_inside_what_is_saved(eight_models, layout):
    if layout == "constrained":
        fig, ax = drawn_figure()
    else:
        fig, ax = plt.subplots(figsize=(7, 4.5))  # no layout engine: the saved bbox holds all
    plots.decay_curve(eight_models, ax=ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent()
    saved = fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans).padded(0.5)
    keys = legends(ax)
    assert len(keys) == 2
    for key in keys:
        extent = key.get_window_extent()
        assert extent.x0 >= frame.x1  # right of the axes: on no data
        assert saved.contains(extent.x0, extent.y0)
        assert saved.contains(extent.x1, extent.y1)
        if layout == "constrained":
            assert fig.bbox.contains(extent.x1, extent.y1)  # the figure made room
    groups, styles = (key.get_window_extent() for key in (ax.get_legend(), style_key(ax)))
    assert groups.y0 > styles.y1  # one above the other
    assert texts(ax.get_legend()) == [f"m{seed}" for seed in range(8)]


def test_several_groups_draw_no_band_and_set_their_error_bars_apart(eight_models):
    ax = plots.decay_curve(eight_models, ax=drawn_figure()[1])
    assert bands(ax) == []  # nothing filled: no two groups' colours blend
    bars = error_bars(ax)
    measured = lines_by_style(ax, "-")
    assert len(bars) == len(measured) == 8
    groups = list(eight_models.groupby("model", sort=False))
    for (x, low, high), line, (_, part) in zip(bars, measured, groups, strict=True):
        np.testing.assert_allclose(x, line.get_xdata())  # each bar at its group's point
        np.testing.assert_allclose(np.round(x), part["k"])
        np.testing.assert_allclose(line.get_ydata(), part["pass_pow_k"])
        np.testing.assert_allclose(low, part["pass_pow_k_low"])
        np.testing.assert_allclose(high, part["pass_pow_k_high"])
    places = np.array([x for x, _, _ in bars])  # groups x k
    assert (np.diff(places, axis=0) > 0).all()  # at every k, each group right of the last
    assert places.max(axis=0).round(6).tolist() != places.min(axis=0).round(6).tolist()
    assert (np.abs(places - np.round(places)) < 0.5 / 2).all()  # near their k
    markers = [line.get_marker() for line in measured]
    colours = [line.get_color() for line in measured]
    assert len(set(zip(markers, colours, strict=True))) == 8  # told apart past the palette


def test_ylim_spans_the_data_all_of_zero_to_one_or_what_is_given(coin_curve):
    drawn = coin_curve[["pass_pow_k_high", "p_pow_k_high", "betabinom_pow_k"]].to_numpy()
    assert drawn.max() < 0.53
    ax = plots.decay_curve(coin_curve, ax=plt.figure().gca())
    assert ax.get_ylim() == pytest.approx((0, 1.05 * drawn.max()))
    without = plots.decay_curve(coin_curve, ax=plt.figure().gca(), bands=False)
    shown = coin_curve[["pass_pow_k", "p_pow_k", "betabinom_pow_k"]].to_numpy().max()
    assert without.get_ylim() == pytest.approx((0, 1.05 * shown))
    full = plots.decay_curve(coin_curve, ax=plt.figure().gca(), ylim="full")
    assert full.get_ylim() == (0, 1.02)
    given = plots.decay_curve(coin_curve, ax=plt.figure().gca(), ylim=(0.1, 0.3))
    assert given.get_ylim() == (0.1, 0.3)
    high = pk.reliability_curve(pk.simulate_coin(p=0.99, tasks=40, k=3, seed=1), rng=0)
    assert plots.decay_curve(high, ax=plt.figure().gca()).get_ylim() == (0, 1.02)  # at most
    logged = plots.decay_curve(coin_curve, ax=plt.figure().gca(), log=True)
    assert logged.get_yscale() == "log"
    assert logged.get_ylim()[0] > 0


@pytest.mark.parametrize("ylim", ["auto", "Data", (0.5, 0.2), (0, float("nan")), 1, (0, 1, 2)])
def test_a_ylim_that_is_none_of_the_choices_is_refused_naming_them(coin_curve, ylim):
    with pytest.raises(ValueError, match=r"ylim must be 'data' .* 'full' .* a \(low, high\) pair"):
        plots.decay_curve(coin_curve, ylim=ylim)
    assert plt.gca().get_lines() == []  # refused before drawing


def test_group_names_and_their_column_are_drawn_literally():
    runs = pd.concat(
        [
            pk.simulate_coin(tasks=5, k=2, seed=seed).assign(**{"cost $": name})
            for seed, name in enumerate(["$x^$", "a $5 b $6"])
        ]
    )
    ax = plots.decay_curve(pk.reliability_curve(runs, by="cost $", rng=0))
    ax.figure.canvas.draw()  # "$x^$" would fail to parse as mathtext
    key = ax.get_legend()
    assert [text.replace("\\$", "$") for text in texts(key)] == ["$x^$", "a $5 b $6"]
    assert key.get_title().get_text() == "cost \\$"


def test_decay_curve_refuses_a_table_that_is_not_a_curve():
    with pytest.raises(ValueError, match=r"no column 'pass_pow_k_low'.*reliability_curve"):
        plots.decay_curve(pk.tally(pk.simulate_coin()).assign(k=1, pass_pow_k=0.5))
    with pytest.raises(TypeError, match="DataFrame from reliability_curve"):
        plots.decay_curve([1, 2])


# --- comparison --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compared():
    strong = pk.simulate_coin(p=0.9, tasks=60, k=4, seed=1)
    weak = pk.simulate_coin(p=0.7, tasks=60, k=4, seed=2)
    return pk.compare(strong, weak, rng=0, n_resamples=200)


@pytest.mark.parametrize("metric", ["pass_pow_k", "pass_at_k"])
def test_comparison_draws_each_agent_with_its_interval_and_the_difference_below(compared, metric):
    fig, given = drawn_figure()
    ax = plots.comparison(compared, metric=metric, names=("strong", "weak"), ax=given)
    assert ax is given
    assert len(fig.axes) == 2
    below = fig.axes[-1]
    assert below.get_shared_x_axes().joined(ax, below)
    rows = compared[compared["metric"] == metric]
    first, second = ax.get_lines()
    bars = error_bars(ax)
    for line, (x, low, high), side in zip((first, second), bars, "ab", strict=True):
        np.testing.assert_allclose(line.get_ydata(), rows[f"value_{side}"])
        np.testing.assert_allclose(np.round(line.get_xdata()), rows["k"])
        np.testing.assert_allclose(x, line.get_xdata())
        np.testing.assert_allclose(low, rows[f"value_{side}_low"])
        np.testing.assert_allclose(high, rows[f"value_{side}_high"])
    assert (first.get_xdata() < second.get_xdata()).all()  # set apart: no bar on the other
    assert bands(ax) == []
    assert texts(ax.get_legend()) == ["strong", "weak", "95% CI of each"]
    assert ax.get_ylabel() == {"pass_pow_k": "pass$^k$", "pass_at_k": "pass@k"}[metric]
    zero, difference = below.get_lines()
    assert list(zero.get_ydata()) == [0, 0]
    np.testing.assert_allclose(difference.get_xdata(), rows["k"])
    np.testing.assert_allclose(difference.get_ydata(), rows["difference"])
    (band,) = bands(below)
    low, high = band_edges(band)
    np.testing.assert_allclose(low, rows["difference_low"])
    np.testing.assert_allclose(high, rows["difference_high"])
    assert texts(below.get_legend()) == ["strong \N{MINUS SIGN} weak", "paired 95% CI"]
    assert below.get_xlabel() == "k"
    fig.canvas.draw()
    upper_frame, lower_frame = ax.get_window_extent(), below.get_window_extent()
    assert upper_frame.y0 > lower_frame.y1  # the difference on its own axes, below
    for axes in (ax, below):
        key = axes.get_legend().get_window_extent()
        assert key.x0 >= axes.get_window_extent().x1
        assert fig.bbox.contains(key.x1, key.y1)


def test_comparison_splits_an_axes_placed_by_a_rectangle_too(compared):
    fig = plt.figure()
    given = fig.add_axes((0.1, 0.1, 0.6, 0.8))
    ax = plots.comparison(compared, ax=given)
    below = fig.axes[-1]
    upper, lower = ax.get_position(), below.get_position()
    assert lower.y1 < upper.y0
    assert (lower.y0, upper.y1) == pytest.approx((0.1, 0.9))
    assert (lower.x0, lower.x1) == pytest.approx((upper.x0, upper.x1))
    assert texts(below.get_legend())[0] == "A \N{MINUS SIGN} B"


def test_comparison_refuses_an_unknown_metric_and_a_table_without_the_agents_intervals(compared):
    with pytest.raises(ValueError, match="no rows for metric 'pass@k'"):
        plots.comparison(compared, metric="pass@k")
    with pytest.raises(ValueError, match=r"no column 'value_a_low', 'value_a_high'.*compare"):
        plots.comparison(compared.drop(columns=["value_a_low", "value_a_high"]))
    with pytest.raises(ValueError, match="names must name the two agents"):
        plots.comparison(compared, names=("only",))


def curve_of_groups(count):
    """`count` models of 10 tasks and 3 runs: their curve by model."""
    runs = pd.concat(
        [
            pk.simulate_coin(p=0.3 + 0.6 * i / (count - 1), tasks=10, k=3, seed=i).assign(
                model=f"model-{i}"
            )
            for i in range(count)
        ]
    )
    return pk.reliability_curve(runs, by="model", rng=0)


@pytest.mark.parametrize("count", [3, 8, 10, 16])
@pytest.mark.parametrize("figsize", [(7, 4.5), (6, 2.6), (4, 3)])
def test_the_two_keys_never_overlap_and_both_are_saved(count, figsize):
    fig, ax = drawn_figure(figsize)
    plots.decay_curve(curve_of_groups(count), ax=ax)
    fig.canvas.draw()
    groups, styles = (key.get_window_extent() for key in (ax.get_legend(), style_key(ax)))
    assert texts(ax.get_legend()) == [f"model-{i}" for i in range(count)]
    assert not groups.overlaps(styles)
    saved = fig.get_tightbbox().transformed(fig.dpi_scale_trans).padded(0.5)
    for extent in (groups, styles):
        assert saved.contains(extent.x0, extent.y0)
        assert saved.contains(extent.x1, extent.y1)


def test_a_single_k_gets_a_whole_tick_markers_on_its_predictions_and_a_key_of_what_shows():
    curve = pk.reliability_curve(pk.simulate_coin(seed=42), [5], rng=0)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    ax.figure.canvas.draw()
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["5"]
    assert ax.get_xlim() == (4.5, 5.5)
    for style in ("--", ":"):
        (line,) = lines_by_style(ax, style)
        assert line.get_marker() not in ("", "None", None)  # one point: seen only as a marker
    assert lines_by_style(ax, "-.") == []  # no k = 1: no pass@1 line
    assert bands(ax) == []
    assert texts(ax.get_legend()) == [
        STYLES[0],
        "95% CI of measured pass$^k$",
        "$\\hat{p}^{\\,k}$ = (pass@1)$^k$: tasks alike",
        STYLES[1],
    ]
    markers = [handle.get_marker() for handle in ax.get_legend().legend_handles]
    assert markers[2:] == [line.get_marker() for s in ("--", ":") for line in lines_by_style(ax, s)]


def test_a_curve_without_k_1_lists_no_pass_at_1_and_keeps_its_band():
    curve = pk.reliability_curve(pk.simulate_coin(seed=42), [3, 4, 5], rng=0)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    assert "pass@1" not in texts(ax.get_legend())
    assert "95% CI of $\\hat{p}^{\\,k}$" in texts(ax.get_legend())
    assert len(bands(ax)) == 1
    assert lines_by_style(ax, "--")[0].get_marker() in ("", "None")


def test_a_log_axis_refuses_a_ylim_from_zero(coin_curve):
    with pytest.raises(ValueError, match=r"above 0 on a log axis \(log=True\).*positive one"):
        plots.decay_curve(coin_curve, log=True, ylim=(0, 1))
    assert plt.gca().get_lines() == []
    ax = plots.decay_curve(coin_curve, ax=plt.figure().gca(), log=True, ylim=(0.01, 1))
    assert ax.get_ylim() == pytest.approx((0.01, 1))


def test_a_log_axis_marks_measured_zeros_at_its_floor():
    curve = pk.reliability_curve(pk.simulate_coin(p=0.3, tasks=10, k=6, seed=1), rng=0)
    zeros = curve.loc[curve["pass_pow_k"] == 0, "k"].to_numpy()
    assert len(zeros)
    assert (curve.loc[curve["pass_pow_k"] > 0, "k"] < zeros.min()).all()
    ax = plots.decay_curve(curve, ax=drawn_figure()[1], log=True)
    (marks,) = [line for line in ax.get_lines() if line.get_marker() == "v"]
    np.testing.assert_allclose(marks.get_xdata(), zeros)
    assert list(marks.get_ydata()) == [0] * len(zeros)
    assert marks.get_transform() == ax.get_xaxis_transform()  # y in axes units: the floor
    assert "pass$^k$ = 0 (below the axis)" in texts(ax.get_legend())
    linear = plots.decay_curve(curve, ax=plt.figure().gca())  # zero is on a linear axis
    assert not [line for line in linear.get_lines() if line.get_marker() == "v"]
    assert "pass$^k$ = 0 (below the axis)" not in texts(linear.get_legend())


def test_comparison_refuses_one_str_of_names(compared):
    with pytest.raises(TypeError, match=r"names must be a pair of names, e.g. names=\('A', 'B'\)"):
        plots.comparison(compared, names="AB")


def test_comparison_at_a_single_k_ticks_that_k(compared):
    one = compared[compared["k"] == 3]
    ax = plots.comparison(one, ax=drawn_figure()[1])
    below = ax.figure.axes[-1]
    ax.figure.canvas.draw()
    assert [tick.get_text() for tick in below.get_xticklabels()] == ["3"]
    assert bands(below) == []  # a band of one k would show nothing
    rows = one[one["metric"] == "pass_pow_k"]
    ((x, low, high),) = error_bars(below)
    assert x.tolist() == [3]
    np.testing.assert_allclose(
        [low[0], high[0]], rows[["difference_low", "difference_high"]].iloc[0]
    )
    assert texts(below.get_legend())[1] == "paired 95% CI"
