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
from matplotlib.patches import Rectangle

import passk_lab as pk
from passk_lab import plots
from passk_lab.plots._style import PALETTE

MEASURED = "measured pass$^k$\nwith its 95% CI"
NAIVE = "(pass@1)$^k$: if runs\nwere independent"
SAME = "(pass@1)$^k$; beta-binomial\nthe same: tasks alike"
MODEL = "beta-binomial, 95% CI:\ntasks differ"
PREDICTED = "predicted: k past\nthe runs"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def models(chances, *, tasks=40, runs=5):
    """Simulated models, one per chance, each of `tasks` tasks and `runs` runs: their runs."""
    return pd.concat(
        [
            pk.simulate_coin(p=p, tasks=tasks, k=runs, seed=seed).assign(model=f"m{seed}")
            for seed, p in enumerate(chances)
        ]
    )


@pytest.fixture(scope="module")
def six_models():
    """Six models of 40 tasks and 5 runs each, predicted to k = 8: their curve by model."""
    return pk.reliability_curve(models(np.linspace(0.35, 0.95, 6)), by="model", rng=0, predict_to=8)


@pytest.fixture(scope="module")
def coin_curve():
    return pk.reliability_curve(pk.simulate_coin(p=0.45, tasks=60, k=5, seed=0), rng=0)


@pytest.fixture
def tau_curve(tau_bench_runs):
    return pk.reliability_curve(tau_bench_runs, rng=0, predict_to=10)


def lines_by_style(ax, style):
    """The data lines of one style: not the rule between measured and predicted ks."""
    return [line for line in ax.get_lines() if line.get_linestyle() == style and not rule(line)]


def rule(line):
    return line.get_transform() == line.axes.get_xaxis_transform() and line.get_marker() in (
        "None",
        "",
    )


def rules(ax):
    """The x of every vertical rule on `ax`."""
    return [float(line.get_xdata()[0]) for line in ax.get_lines() if rule(line)]


def measured_lines(ax):
    return [line for line in lines_by_style(ax, "-") if line.get_marker() not in ("", "None")]


def bands(ax):
    return [item for item in ax.collections if isinstance(item, PolyCollection)]


def shades(ax):
    """The shaded spans of x: (left, right) of every rectangle spanning the axes' height."""
    return [
        (patch.get_x(), patch.get_x() + patch.get_width())
        for patch in ax.patches
        if isinstance(patch, Rectangle) and patch.get_data_transform() == ax.get_xaxis_transform()
    ]


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
    return edges.index.to_numpy(), edges["min"].to_numpy(), edges["max"].to_numpy()


def legends(ax):
    """Every key drawn on `ax`: ax.get_legend() and those added beside it."""
    return [item for item in ax.get_children() if isinstance(item, Legend)]


def all_legends(fig):
    return [key for axes in fig.axes for key in legends(axes)]


def texts(legend):
    return [text.get_text() for text in legend.get_texts()]


def style_key(ax):
    (key,) = [legend for legend in legends(ax) if texts(legend)[0].startswith("measured")]
    return key


def drawn_figure(figsize=(7, 4.5)):
    with plots.style():
        fig, ax = plt.subplots(figsize=figsize)
    return fig, ax


def ticks(ax):
    ax.figure.canvas.draw()
    return [label.get_text() for label in ax.get_xticklabels()]


# --- decay curve: one group ---------------------------------------------------------------


def test_decay_curve_draws_the_measured_curve_and_past_the_runs_the_models_band(
    tau_bench_runs, tau_curve
):
    ax = plots.decay_curve(tau_curve)
    assert ax is plt.gca()
    (measured,) = measured_lines(ax)
    assert measured.get_xdata().tolist() == [1, 2, 3, 4]  # only where tasks have k runs
    estimates = [pk.pass_pow_k(tau_bench_runs, k) for k in (1, 2, 3, 4)]
    np.testing.assert_allclose(measured.get_ydata(), estimates, rtol=1e-12)
    ((x, low, high),) = error_bars(ax)
    assert x.tolist() == [1, 2, 3, 4]
    np.testing.assert_allclose(low, tau_curve["pass_pow_k_low"].iloc[:4])
    np.testing.assert_allclose(high, tau_curve["pass_pow_k_high"].iloc[:4])
    (naive,) = lines_by_style(ax, "--")  # every k: the reference of independent runs
    np.testing.assert_allclose(naive.get_ydata(), 0.42 ** np.arange(1, 11))
    # the model from the last measured k on, and its band past the runs: the fit's bootstrap
    fit = pk.fit_betabinom(tau_bench_runs)
    (model,) = lines_by_style(ax, ":")
    assert model.get_xdata().tolist() == list(range(4, 11))
    np.testing.assert_allclose(model.get_ydata(), fit.pow_k(range(4, 11)))
    (band,) = bands(ax)  # the one filled area: no band of (pass@1)^k unless asked
    k, low, high = band_edges(band)
    assert k.tolist() == list(range(5, 11))
    expected = fit.confidence_interval(range(5, 11), rng=0)
    np.testing.assert_allclose(low, expected.low)
    np.testing.assert_allclose(high, expected.high)
    (pass_at_1,) = lines_by_style(ax, "-.")
    assert list(pass_at_1.get_ydata()) == [0.42, 0.42]
    # the measured ks end at 4 and the predicted begin at 5: a rule between, shaded past it
    assert rules(ax) == [4.5]
    assert shades(ax) == [(4.5, ax.get_xlim()[1])]
    assert texts(ax.get_legend()) == [MEASURED, NAIVE, MODEL, PREDICTED, "pass@1"]
    assert ax.get_xlabel() == "k (runs that must all pass)"


def test_every_key_entry_is_of_something_drawn_in_the_series_colour(tau_curve):
    named = tau_curve.assign(model="only")[["model", *tau_curve.columns]]  # a group of one
    for curve in (tau_curve, named):
        ax = plots.decay_curve(curve, ax=plt.figure().gca())
        (measured,) = measured_lines(ax)
        assert to_rgba(measured.get_color()) == to_rgba(PALETTE[0])
        drawn = {to_rgba(line.get_color())[:3] for line in ax.get_lines() if not rule(line)}
        styles = {line.get_linestyle() for line in ax.get_lines() if not rule(line)}
        for handle in style_key(ax).legend_handles:
            parts = handle if isinstance(handle, tuple) else (handle,)
            for part in parts:
                colour = part.get_facecolor() if isinstance(part, Rectangle) else part.get_color()
                if to_rgba(colour)[:3] != to_rgba("0.5")[:3]:  # the predicted ks' grey shade
                    assert to_rgba(colour)[:3] in drawn
                if not isinstance(part, Rectangle) and part.get_linestyle() != "None":
                    assert part.get_linestyle() in styles
    assert texts(ax.get_legend()) == ["only"]  # a named group keeps its key
    assert ax.get_legend().get_title().get_text() == "model"


def test_the_naive_band_is_drawn_only_when_asked(tau_curve):
    ax = plots.decay_curve(tau_curve, ax=plt.figure().gca(), naive_band=True)
    naive, model = bands(ax)  # the band of (pass@1)^k first, under the model's
    k, low, high = band_edges(naive)
    assert k.tolist() == list(range(1, 11))
    assert band_edges(model)[0].tolist() == list(range(5, 11))
    np.testing.assert_allclose(low, tau_curve["p_pow_k_low"])
    np.testing.assert_allclose(high, tau_curve["p_pow_k_high"])
    assert "(pass@1)$^k$, 95% CI:\nif runs were independent" in texts(ax.get_legend())
    plain = plots.decay_curve(tau_curve, ax=plt.figure().gca(), bands=False)
    assert bands(plain) == []
    assert error_bars(plain) == []
    assert texts(plain.get_legend())[:3] == [
        "measured pass$^k$",
        NAIVE,
        "beta-binomial:\ntasks differ",
    ]


def test_a_model_line_on_the_naive_line_is_drawn_and_keyed_once():
    runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    fit = pk.fit_betabinom(runs)
    assert fit.icc == 0  # the reference coin: tasks alike, the model is (pass@1)^k
    curve = pk.reliability_curve(runs, rng=0, predict_to=10)
    np.testing.assert_allclose(curve["betabinom_pow_k"], curve["p_pow_k"], rtol=1e-12)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    assert lines_by_style(ax, ":") == []  # no line hidden under another
    (line,) = lines_by_style(ax, "--")
    assert line.get_xdata().tolist() == list(range(1, 11))
    (band,) = bands(ax)  # the model's band is still the model's
    k, low, _ = band_edges(band)
    assert k.tolist() == list(range(6, 11))
    np.testing.assert_allclose(low, curve.loc[curve["k"] > 5, "betabinom_pow_k_low"])
    assert texts(ax.get_legend())[1:3] == [SAME, "95% CI of the\nbeta-binomial"]


@pytest.mark.parametrize(("share", "lines"), [(0.004, 1), (0.03, 2)])
def test_the_model_line_is_drawn_apart_when_it_is_more_than_a_hundredth_of_the_axis_off(
    share, lines
):
    curve = pk.reliability_curve(pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42), predict_to=9)
    predicted = curve["k"] >= 5  # the model's line runs from the last measured k
    off = curve.copy()
    off.loc[predicted, "betabinom_pow_k"] = off.loc[predicted, "p_pow_k"] + share
    ax = plots.decay_curve(off, ax=drawn_figure()[1], ylim=(0, 1))  # an axis of height 1
    assert len(lines_by_style(ax, "--") + lines_by_style(ax, ":")) == lines
    assert (SAME in texts(ax.get_legend())) == (lines == 1)


def test_groups_whose_lines_are_the_same_beside_those_that_differ_say_so(tau_bench_runs):
    alike = pk.simulate_coin(p=0.85, tasks=40, k=4, seed=42).assign(model="alike")
    differ = tau_bench_runs.assign(model="differ", passed=tau_bench_runs["reward"] == 1)
    runs = pd.concat([alike, differ.drop(columns="reward")])
    curve = pk.reliability_curve(runs, by="model", rng=0, predict_to=8)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    (model,) = lines_by_style(ax, ":")  # the tasks that differ only
    differ = curve[curve["model"] == "differ"]
    np.testing.assert_allclose(model.get_ydata(), differ.loc[differ["k"] >= 4, "betabinom_pow_k"])
    assert to_rgba(model.get_color()) == to_rgba(PALETTE[1])
    assert len(lines_by_style(ax, "--")) == 2
    assert "beta-binomial, 95% CI:\ntasks differ\n(if alike, the dashed line)" in texts(
        style_key(ax)
    )


def test_ylim_spans_the_data_all_of_zero_to_one_or_what_is_given(coin_curve):
    drawn = coin_curve[["pass_pow_k_high", "p_pow_k", "betabinom_pow_k"]].to_numpy()
    assert drawn.max() < 0.53
    ax = plots.decay_curve(coin_curve, ax=plt.figure().gca())
    assert ax.get_ylim() == pytest.approx((0, 1.05 * drawn.max()))
    without = plots.decay_curve(coin_curve, ax=plt.figure().gca(), bands=False)
    shown = coin_curve[["pass_pow_k", "p_pow_k"]].to_numpy().max()
    assert without.get_ylim() == pytest.approx((0, 1.05 * shown))
    full = plots.decay_curve(coin_curve, ax=plt.figure().gca(), ylim="full")
    assert full.get_ylim() == (0, 1.02)
    given = plots.decay_curve(coin_curve, ax=plt.figure().gca(), ylim=(0.1, 0.3))
    assert given.get_ylim() == (0.1, 0.3)
    high = pk.reliability_curve(pk.simulate_coin(p=0.99, tasks=40, k=3, seed=1), rng=0)
    assert plots.decay_curve(high, ax=plt.figure().gca()).get_ylim() == (0, 1.02)  # at most


def test_a_log_axis_fits_the_measured_values_and_the_model_not_the_naive_line(tau_curve):
    ax = plots.decay_curve(tau_curve, ax=drawn_figure()[1], log=True)
    assert ax.get_yscale() == "log"
    predicted = tau_curve[tau_curve["predicted"]]
    matters = np.concatenate(
        [
            tau_curve[["pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"]].to_numpy().ravel(),
            predicted[["betabinom_pow_k_low", "betabinom_pow_k_high"]].to_numpy().ravel(),
            tau_curve.loc[tau_curve["k"] >= 4, "betabinom_pow_k"].to_numpy(),
        ]
    )
    matters = matters[np.isfinite(matters)]
    low, high = ax.get_ylim()
    assert matters.min() / 2 < low < matters.min()  # just below the model's band
    assert matters.max() < high <= 1.02
    assert low / 10 > 0.42**10  # (pass@1)^10 leaves the axis far below
    (naive,) = lines_by_style(ax, "--")
    assert naive.get_ydata().min() < low
    ax.figure.canvas.draw()
    labels = [label.get_text() for label in ax.get_yticklabels()]
    shown = [
        label for label, tick in zip(labels, ax.get_yticks(), strict=True) if low <= tick <= high
    ]
    assert shown == ["0.02", "0.05", "0.1", "0.2", "0.5"]  # numbers, 1, 2 and 5 per decade
    bad = plots.decay_curve(tau_curve, ax=plt.figure().gca(), log=True, naive_band=True)
    assert bad.get_ylim()[0] < tau_curve["p_pow_k_low"].min()  # a band drawn is in range


@pytest.mark.parametrize("log", [False, True])
def test_every_k_gets_a_labelled_tick_k_1_included(tau_curve, log):
    ax = plots.decay_curve(tau_curve, ax=drawn_figure()[1], log=log)
    assert ticks(ax) == [str(k) for k in range(1, 11)]


def test_a_narrow_axis_labels_the_first_k_and_round_steps_of_the_others():
    curve = pk.reliability_curve(pk.simulate_coin(seed=42), rng=0, predict_to=40)
    ax = plots.decay_curve(curve, ax=drawn_figure((4, 3))[1])
    shown = [int(text) for text in ticks(ax)]
    assert shown[0] == 1
    steps = np.diff(shown[1:])
    assert len(set(steps)) == 1
    assert steps[0] in (5, 10, 20)
    assert all(k % steps[0] == 0 for k in shown[1:])
    assert len(shown) < 12


@pytest.mark.parametrize("ylim", ["auto", "Data", (0.5, 0.2), (0, float("nan")), 1, (0, 1, 2)])
def test_a_ylim_that_is_none_of_the_choices_is_refused_naming_them(coin_curve, ylim):
    with pytest.raises(ValueError, match=r"ylim must be 'data' .* 'full' .* a \(low, high\) pair"):
        plots.decay_curve(coin_curve, ylim=ylim)
    assert plt.gca().get_lines() == []  # refused before drawing


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


def test_a_single_k_gets_a_whole_tick_markers_on_its_predictions_and_a_key_of_what_shows():
    curve = pk.reliability_curve(pk.simulate_coin(seed=42), [5], rng=0)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    assert ticks(ax) == ["5"]
    assert ax.get_xlim() == (4.5, 5.5)
    (line,) = lines_by_style(ax, "--")
    assert line.get_marker() == "x"  # one point: seen only as a marker
    assert lines_by_style(ax, ":") == []  # measured at its k: nothing predicted
    assert lines_by_style(ax, "-.") == []  # no k = 1: no pass@1 line
    assert bands(ax) == []
    assert rules(ax) == []
    assert shades(ax) == []
    assert texts(ax.get_legend()) == [MEASURED, NAIVE]
    assert [part.get_marker() for part in ax.get_legend().legend_handles[1:]] == ["x"]


def test_a_curve_of_predictions_alone_draws_the_model_and_no_rule():
    with pytest.warns(pk.NoEstimateWarning):
        curve = pk.reliability_curve(pk.simulate_coin(seed=42), [7, 9], rng=0)
    assert curve["predicted"].all()
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    assert measured_lines(ax) == []
    assert error_bars(ax) == []
    (line,) = lines_by_style(ax, "--")  # the tasks are alike: one line says both
    assert line.get_xdata().tolist() == [7, 9]
    (band,) = bands(ax)
    assert band_edges(band)[0].tolist() == [7, 9]
    assert rules(ax) == []
    assert shades(ax) == []
    assert texts(ax.get_legend())[0] == SAME


def test_a_curve_without_the_models_band_or_predicted_column_still_draws(tau_curve):
    old = tau_curve.drop(columns=["betabinom_pow_k_low", "betabinom_pow_k_high", "predicted"])
    ax = plots.decay_curve(old, ax=drawn_figure()[1])
    (model,) = lines_by_style(ax, ":")
    assert model.get_xdata().tolist() == list(range(4, 11))  # from the last measured k
    assert bands(ax) == []
    assert rules(ax) == [4.5]
    assert "beta-binomial:\ntasks differ" in texts(ax.get_legend())


def test_a_curve_without_k_1_lists_no_pass_at_1():
    curve = pk.reliability_curve(pk.simulate_coin(seed=42), [3, 4, 5], rng=0)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    assert "pass@1" not in texts(ax.get_legend())
    assert ticks(ax) == ["3", "4", "5"]


def test_group_names_and_their_column_are_drawn_literally():
    runs = pd.concat(
        [
            pk.simulate_coin(tasks=5, k=2, seed=seed).assign(**{"cost $": name})
            for seed, name in enumerate(["$x^$", "a $5 b $6"])
        ]
    )
    for facet in (False, True):
        ax = plots.decay_curve(
            pk.reliability_curve(runs, by="cost $", rng=0), ax=plt.figure().gca(), facet=facet
        )
        ax.figure.canvas.draw()  # "$x^$" would fail to parse as mathtext
        if facet:
            titles = [axes.get_title(loc="left") for axes in ax.figure.axes if axes.axison]
            assert [title.replace("\\$", "$") for title in titles] == ["$x^$", "a $5 b $6"]
        else:
            key = ax.get_legend()
            assert [text.replace("\\$", "$") for text in texts(key)] == ["$x^$", "a $5 b $6"]
            assert key.get_title().get_text() == "cost \\$"


def test_decay_curve_refuses_a_table_that_is_not_a_curve_and_a_facet_that_is_not_a_bool(
    coin_curve,
):
    with pytest.raises(ValueError, match=r"no column 'pass_pow_k_low'.*reliability_curve"):
        plots.decay_curve(pk.tally(pk.simulate_coin()).assign(k=1, pass_pow_k=0.5))
    with pytest.raises(TypeError, match="DataFrame from reliability_curve"):
        plots.decay_curve([1, 2])
    with pytest.raises(TypeError, match=r"facet must be True .*, False .* or None"):
        plots.decay_curve(coin_curve, facet="yes")


# --- decay curve: groups on one Axes ------------------------------------------------------


def test_groups_are_keyed_by_their_values_in_the_palettes_colours():
    both = pd.concat(
        [
            pk.simulate_coin(p=0.9, tasks=30, k=4, seed=1).assign(model="strong", domain="x"),
            pk.simulate_coin(p=0.6, tasks=30, k=4, seed=2).assign(model="weak", domain="y"),
        ]
    )
    curve = pk.reliability_curve(both, by=["model", "domain"], rng=0, confidence_level=0.9)
    ax = plots.decay_curve(curve, log=True, bands=False)
    measured = measured_lines(ax)
    assert [to_rgba(line.get_color()) for line in measured] == [to_rgba(c) for c in PALETTE[:2]]
    for line, (_, part) in zip(measured, curve.groupby("model"), strict=True):
        np.testing.assert_allclose(line.get_ydata(), part["pass_pow_k"])
    assert bands(ax) == []
    assert error_bars(ax) == []
    assert ax.get_yscale() == "log"
    groups = ax.get_legend()
    assert texts(groups) == ["strong, x", "weak, y"]
    assert groups.get_title().get_text() == "model, domain"
    assert lines_by_style(ax, "-.") == []  # pass@1 is each group's point at k = 1


@pytest.mark.parametrize("count", [2, 4])
def test_a_few_groups_share_one_axes_each_with_its_band_and_its_error_bars_apart(count):
    chances = [0.95, 0.8, 0.6, 0.4][:count]
    curve = pk.reliability_curve(models(chances), by="model", rng=0, predict_to=8)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1])
    assert len(ax.figure.axes) == 1
    measured = measured_lines(ax)
    assert [to_rgba(line.get_color()) for line in measured] == [
        to_rgba(colour) for colour in PALETTE[:count]
    ]
    assert len({line.get_marker() for line in measured}) == 1  # the colours tell them apart
    groups = list(curve.groupby("model", sort=False))
    bars = error_bars(ax)
    for (x, low, high), line, (_, part) in zip(bars, measured, groups, strict=True):
        part = part[part["pass_pow_k"].notna()]
        np.testing.assert_allclose(x, line.get_xdata())  # each bar at its group's point
        np.testing.assert_allclose(np.round(x), part["k"])
        np.testing.assert_allclose(low, part["pass_pow_k_low"])
        np.testing.assert_allclose(high, part["pass_pow_k_high"])
    places = np.array([x for x, _, _ in bars])  # groups x k
    assert (np.diff(places, axis=0) > 0).all()  # at every k, each group right of the last
    assert (np.abs(places - np.round(places)) < 0.25).all()  # near their k
    drawn = bands(ax)
    assert len(drawn) == count
    for band, (_, part) in zip(drawn, groups, strict=True):
        k, low, high = band_edges(band)
        assert k.tolist() == [6, 7, 8]
        np.testing.assert_allclose(low, part.loc[part["predicted"], "betabinom_pow_k_low"])
        assert to_rgba(band.get_facecolor()[0])[:3] == to_rgba(PALETTE[groups.index((_, part))])[:3]
    assert rules(ax) == [5.5]
    assert texts(ax.get_legend()) == [f"m{seed}" for seed in range(count)]


def test_more_groups_than_colours_on_one_axes_take_new_markers():
    chances = np.linspace(0.3, 0.95, 9)
    curve = pk.reliability_curve(models(chances, tasks=20), by="model", rng=0)
    ax = plots.decay_curve(curve, ax=drawn_figure()[1], facet=False)
    measured = measured_lines(ax)
    looks = {(line.get_marker(), line.get_color()) for line in measured}
    assert len(looks) == 9  # told apart past the palette's seven colours
    assert {line.get_color() for line in measured} == set(PALETTE)


@pytest.mark.parametrize("layout", ["constrained", "tight bbox"])
def test_the_keys_sit_outside_the_axes_and_inside_what_is_saved(layout):
    curve = pk.reliability_curve(models(np.linspace(0.3, 0.95, 8)), by="model", rng=0)
    if layout == "constrained":
        fig, ax = drawn_figure()
    else:
        fig, ax = plt.subplots(figsize=(7, 4.5))  # no layout engine: the saved bbox holds all
    plots.decay_curve(curve, ax=ax, facet=False)
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


@pytest.mark.parametrize("count", [3, 8, 16])
@pytest.mark.parametrize("figsize", [(7, 4.5), (6, 2.6), (4, 3)])
def test_the_two_keys_never_overlap_and_both_are_saved(count, figsize):
    chances = 0.3 + 0.6 * np.arange(count) / (count - 1)
    curve = pk.reliability_curve(models(chances, tasks=10, runs=3), by="model", rng=0)
    fig, ax = drawn_figure(figsize)
    plots.decay_curve(curve, ax=ax, facet=False)
    fig.canvas.draw()
    groups, styles = (key.get_window_extent() for key in (ax.get_legend(), style_key(ax)))
    assert texts(ax.get_legend()) == [f"m{i}" for i in range(count)]
    assert not groups.overlaps(styles)
    saved = fig.get_tightbbox().transformed(fig.dpi_scale_trans).padded(0.5)
    for extent in (groups, styles):
        assert saved.contains(extent.x0, extent.y0)
        assert saved.contains(extent.x1, extent.y1)


# --- decay curve: a panel per group -------------------------------------------------------


def test_past_four_groups_each_gets_a_panel_sharing_both_axes(six_models):
    fig, given = drawn_figure()
    ax = plots.decay_curve(six_models, ax=given)
    assert ax is given
    others = fig.axes[-5:]  # as the docstring says: the figure's last Axes, in order
    panels = [ax, *others]
    groups = list(six_models.groupby("model", sort=False))
    assert [panel.get_title(loc="left") for panel in panels] == [name for name, _ in groups]
    for panel in others:
        assert panel.get_shared_x_axes().joined(ax, panel)
        assert panel.get_shared_y_axes().joined(ax, panel)
    for index, (panel, (_, part)) in enumerate(zip(panels, groups, strict=True)):
        (own,) = measured_lines(panel)
        assert to_rgba(own.get_color()) == to_rgba(PALETTE[0])
        np.testing.assert_allclose(own.get_ydata(), part["pass_pow_k"].dropna())
        behind = [line for line in lines_by_style(panel, "-") if line not in (own,)]
        behind = [line for line in behind if to_rgba(line.get_color()) == to_rgba("0.78")]
        expected = [p["pass_pow_k"].dropna() for i, (_, p) in enumerate(groups) if i != index]
        assert len(behind) == 5
        for line, values in zip(behind, expected, strict=True):
            np.testing.assert_allclose(line.get_ydata(), values)
            assert line.get_zorder() < own.get_zorder()
        (band,) = bands(panel)
        np.testing.assert_allclose(
            band_edges(band)[1], part.loc[part["predicted"], "betabinom_pow_k_low"]
        )
        assert rules(panel) == [5.5]
    fig.canvas.draw()
    (key,) = all_legends(fig)  # one key for all the panels
    assert texts(key)[0] == MEASURED
    assert "the other groups" in texts(key)
    extent = key.get_window_extent()
    assert extent.x0 >= max(panel.get_window_extent().x1 for panel in panels)
    assert fig.bbox.contains(extent.x1, extent.y0)
    # the k axis is labelled once, and inner panels have no tick labels
    assert [panel.get_xlabel() for panel in panels].count("k (runs that must all pass)") == 1
    labelled = [panel.xaxis.get_tick_params()["labelbottom"] for panel in panels]
    columns = {round(panel.get_position().x0, 6) for panel in panels}
    assert labelled.count(True) == len(columns)  # under each column's last panel only


@pytest.mark.parametrize(("count", "facet", "panels"), [(6, False, 1), (2, True, 2), (5, None, 5)])
def test_facet_forces_panels_or_one_axes(count, facet, panels):
    chances = np.linspace(0.4, 0.9, count)
    curve = pk.reliability_curve(models(chances, tasks=20), by="model", rng=0)
    fig, ax = drawn_figure()
    plots.decay_curve(curve, ax=ax, facet=facet)
    titled = [axes for axes in fig.axes if axes.get_title(loc="left")]
    assert len(titled) == (panels if panels > 1 else 0)
    assert len([axes for axes in fig.axes if axes.axison]) == panels


def test_panels_take_the_place_of_the_given_axes_in_a_grid_or_a_rectangle(six_models):
    with plots.style():
        fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    right.plot([0, 1], [0, 1])
    plots.decay_curve(six_models, ax=left)
    fig.canvas.draw()
    panels = [axes for axes in fig.axes if axes.get_title(loc="left")]
    assert len(panels) == 6
    edge = right.get_window_extent().x0
    assert max(panel.get_window_extent().x1 for panel in panels) < edge
    (key,) = [key for key in all_legends(fig) if texts(key)[0] == MEASURED]
    assert key.get_window_extent().x1 < edge
    fig = plt.figure(figsize=(8, 5))
    rectangle = fig.add_axes((0.1, 0.1, 0.6, 0.8))
    plots.decay_curve(six_models, ax=rectangle)
    for panel in fig.axes:
        x0, y0, x1, y1 = panel.get_position().extents
        assert 0.1 - 1e-9 <= x0 < x1 <= 0.7 + 1e-9
        assert 0.1 - 1e-9 <= y0 < y1 <= 0.9 + 1e-9


def test_a_narrow_figure_puts_the_panels_key_under_them(six_models):
    fig, ax = drawn_figure((4, 5))
    plots.decay_curve(six_models, ax=ax)
    fig.canvas.draw()
    panels = [axes for axes in fig.axes if axes.get_title(loc="left")]
    (key,) = all_legends(fig)
    extent = key.get_window_extent()
    lowest = min(panel.get_tightbbox().y0 for panel in panels)  # tick labels and k's label
    assert extent.y1 <= lowest
    assert fig.bbox.contains(extent.x0, extent.y0)
    assert fig.bbox.contains(extent.x1, extent.y1)
    widths = [panel.get_window_extent().width for panel in panels]
    assert min(widths) > 0.3 * fig.bbox.width  # two columns, not a squeezed three


def test_panels_share_the_y_range_of_every_group_and_a_log_axis(six_models):
    ax = plots.decay_curve(six_models, ax=drawn_figure()[1], log=True)
    panels = [axes for axes in ax.figure.axes if axes.get_title(loc="left")]
    assert {panel.get_ylim() for panel in panels} == {ax.get_ylim()}
    assert {panel.get_yscale() for panel in panels} == {"log"}
    low = ax.get_ylim()[0]
    predicted = six_models[six_models["predicted"]]
    assert low < predicted["betabinom_pow_k_low"].min()


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
    assert [to_rgba(line.get_color()) for line in (first, second)] == [
        to_rgba(colour) for colour in PALETTE[:2]
    ]
    assert bands(ax) == []
    assert texts(ax.get_legend()) == ["strong", "weak", "95% CI of each"]
    assert ax.get_ylabel() == {"pass_pow_k": "pass$^k$", "pass_at_k": "pass@k"}[metric]
    zero, difference = below.get_lines()
    assert list(zero.get_ydata()) == [0, 0]
    np.testing.assert_allclose(difference.get_xdata(), rows["k"])
    np.testing.assert_allclose(difference.get_ydata(), rows["difference"])
    (band,) = bands(below)
    _, low, high = band_edges(band)
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
