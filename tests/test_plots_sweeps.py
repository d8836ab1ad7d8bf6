"""Sweeps over p and k (the map, the lines, measured against true): read back off the Axes."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib import patheffects
from matplotlib.collections import QuadMesh
from matplotlib.colors import to_rgba
from matplotlib.legend import Legend
from matplotlib.text import Text

import passk_lab as pk
from passk_lab import plots
from passk_lab.plots._style import PALETTE


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def sweep():
    return pk.simulate_sweep([0.6, 0.8, 0.9, 0.99], range(1, 7), evaluations=50, rng=0)


@pytest.fixture(scope="module")
def fifty():
    return pk.simulate_sweep(np.round(np.linspace(0.5, 0.99, 50), 3), [1, 4], evaluations=2, rng=0)


@pytest.fixture(scope="module")
def twenty_tasks():
    return pk.simulate_sweep([0.8, 0.9, 0.95, 0.99], range(1, 21), tasks=20, evaluations=200, rng=0)


def every_axes(fig):
    """The figure's Axes and their insets (a colour bar may be one)."""
    return [*fig.axes, *(child for axes in fig.axes for child in axes.child_axes)]


def legends(fig):
    return [
        item for axes in every_axes(fig) for item in axes.get_children() if isinstance(item, Legend)
    ]


def texts(legend):
    return [text.get_text() for text in legend.get_texts()]


def legend_texts(ax):
    return texts(ax.get_legend())


def assert_within(box, outer):
    """Assert that the drawn extent `box` lies inside `outer` (both in pixels)."""
    assert outer.x0 <= box.x0
    assert box.x1 <= outer.x1
    assert outer.y0 <= box.y0
    assert box.y1 <= outer.y1


def colour_bar(fig):
    """The colour bar of a figure of one plot: its Axes and the colours it maps values to."""
    ax = fig.axes[0]
    (cax,) = [axes for axes in every_axes(fig) if axes is not ax and axes.collections]
    (solids,) = [item for item in cax.collections if isinstance(item, QuadMesh)]
    return cax, solids.to_rgba


def edge_labels(ax):
    """The contours' labels: (edge, place in data units, text), from the map's edge axes."""
    found = []
    for child in ax.child_axes:
        for axis, edge in ((child.xaxis, "top"), (child.yaxis, "right")):
            labels = [label.get_text() for label in axis.get_ticklabels()]
            for tick, text in zip(axis.get_ticklocs(), labels, strict=True):
                if text:
                    found.append((edge, float(tick), text))
    return found


# --- the map ------------------------------------------------------------------------------


def test_sweep_heatmap_draws_the_mean_of_each_cell_with_contours(sweep):
    ax = plots.sweep_heatmap(sweep, value="pass_pow_k")
    (mesh,) = [item for item in ax.collections if isinstance(item, QuadMesh)]
    means = sweep.pivot_table(index="p", columns="k", values="pass_pow_k", aggfunc="mean")
    np.testing.assert_allclose(np.asarray(mesh.get_array()).reshape(4, 6), means.to_numpy())
    colour_bars = [axes for axes in ax.figure.axes if axes is not ax]
    assert [axes.get_ylabel() for axes in colour_bars] == ["mean measured pass$^k$"]
    assert len(ax.collections) > 1  # the contour lines
    assert ax.get_ylabel() == "p (chance a run passes)"


def test_the_contours_run_from_edge_to_edge_of_the_map_along_the_truth():
    ps = np.round(np.append(np.arange(0.5, 0.96, 0.05), 0.99), 2)
    ks = np.arange(1, 21)
    sweep = pk.simulate_sweep(ps, ks, evaluations=1, rng=0)
    ax = plots.sweep_heatmap(sweep, levels=[0.5, 0.9])
    (lines,) = [item for item in ax.collections if hasattr(item, "levels")]
    left, right = ax.get_xlim()
    bottom, top = ax.get_ylim()
    assert (left, right) == pytest.approx((0.5, 20.5))  # the map's cells, half a k past each end
    step = np.diff(ps).max()
    for level, path in zip(lines.levels, lines.get_paths(), strict=True):
        k, p = path.vertices.T
        # from the left or the bottom edge to the right or the top one: across the whole map
        assert np.isclose(k.min(), left) or np.isclose(p.min(), bottom)
        assert np.isclose(k.max(), right) or np.isclose(p.max(), top)
        whole = np.isclose(k, np.round(k))  # where it crosses a k of the sweep
        assert whole.sum() >= 2
        error = p[whole] - level ** (1 / np.round(k[whole]))  # p^k = level: p = level^(1/k)
        assert (np.abs(error) <= step).all(), (level, np.abs(error).max())


def test_each_contour_is_labelled_where_it_leaves_the_map_off_the_map(sweep):
    with plots.style():
        fig, ax = plt.subplots(figsize=(6.4, 4), dpi=100)
    plots.sweep_heatmap(sweep, levels=[0.5, 0.9], ax=ax)
    fig.canvas.draw()
    (lines,) = [item for item in ax.collections if hasattr(item, "levels")]
    labels = edge_labels(ax)
    assert sorted(text for _, _, text in labels) == ["0.5", "0.9"]
    ends = {}
    for level, path in zip(lines.levels, lines.get_paths(), strict=True):
        k, p = path.vertices.T
        at_right = np.isclose(k, ax.get_xlim()[1])
        ends[f"{level:g}"] = ("right", p[at_right].max()) if at_right.any() else ("top", k.max())
    height = ax.get_ylim()[1] - ax.get_ylim()[0]
    for edge, place, text in labels:
        assert ends[text][0] == edge
        assert abs(place - ends[text][1]) < 0.1 * height  # beside where the line leaves
    shown = [label for child in ax.child_axes for label in child.get_yticklabels()]
    shown += [label for child in ax.child_axes for label in child.get_xticklabels()]
    shown = [label for label in shown if label.get_text()]
    for label in shown:
        box = label.get_window_extent()
        assert box.x0 >= ax.bbox.x1 or box.y0 >= ax.bbox.y1  # off the map, so off the lines
        assert_within(box, fig.bbox)
        assert label.get_fontsize() >= 9
    for one, other in itertools.combinations(shown, 2):
        assert not one.get_window_extent().overlaps(other.get_window_extent())


@pytest.mark.parametrize(
    ("ps", "levels"),
    [
        (np.r_[np.round(np.linspace(0.5, 0.99, 20), 3), 0.995, 0.999, 0.9999], [0.9, 0.99, 0.999]),
        (np.round(np.linspace(0.5, 0.99, 50), 3), [0.5, 0.9, 0.99]),
    ],
)
@pytest.mark.parametrize("size", [(6.4, 4), (4, 3)])
def test_contour_labels_near_each_other_are_set_apart_and_all_kept(ps, levels, size):
    near_one = pk.simulate_sweep(ps, range(1, 21), evaluations=1, rng=0)
    with plots.style():
        fig, ax = plt.subplots(figsize=size, dpi=100)
        plots.sweep_heatmap(near_one, levels=levels, ax=ax)
        fig.canvas.draw()
    (lines,) = [item for item in ax.collections if hasattr(item, "levels")]
    drawn = {f"{level:g}" for level, path in zip(lines.levels, lines.get_paths(), strict=True)}
    drawn = {text for text in drawn if len(lines.get_paths())}
    labels = [label for child in ax.child_axes for label in child.get_yticklabels()]
    labels += [label for child in ax.child_axes for label in child.get_xticklabels()]
    labels = [label for label in labels if label.get_text()]
    assert {label.get_text() for label in labels} <= drawn
    assert len(labels) >= 2
    extents = [label.get_window_extent() for label in labels]
    for box in extents:
        assert_within(box, fig.bbox)
    for one, other in itertools.combinations(extents, 2):
        assert not one.overlaps(other)
    title = ax.title.get_window_extent()
    assert not any(title.overlaps(box) for box in extents)


def test_contour_lines_are_white_with_a_dark_outline(sweep):
    ax = plots.sweep_heatmap(sweep, levels=[0.5])
    (lines,) = [item for item in ax.collections if hasattr(item, "levels")]
    assert to_rgba(lines.get_edgecolor()[0]) == to_rgba("white")
    (outline,) = lines.get_path_effects()
    assert isinstance(outline, patheffects.withStroke)


# --- the lines ----------------------------------------------------------------------------


def test_sweep_lines_draw_p_to_the_k_for_every_p_in_the_palettes_hues(sweep):
    ax = plots.sweep_lines(sweep)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["p = 0.6", "p = 0.8", "p = 0.9", "p = 0.99"]
    for line, p, colour in zip(lines, [0.6, 0.8, 0.9, 0.99], PALETTE[:4], strict=True):
        np.testing.assert_allclose(line.get_ydata(), p ** np.arange(1, 7))
        assert to_rgba(line.get_color()) == to_rgba(colour)
    assert len(legend_texts(ax)) == 4
    chosen = plots.sweep_lines(sweep, ps=[0.9], ax=plt.figure().gca())
    assert len(chosen.get_lines()) == 1
    with pytest.raises(ValueError, match=r"p = \[0.5\] is not in the sweep"):
        plots.sweep_lines(sweep, ps=[0.5])


def test_a_p_has_one_colour_in_the_lines_and_in_measured_against_true(sweep):
    lines = plots.sweep_lines(sweep, ax=plt.figure().gca()).get_lines()
    _, *points = plots.measured_vs_analytic(sweep, ax=plt.figure().gca()).get_lines()
    assert [line.get_color() for line in lines] == [point.get_color() for point in points]


def test_many_sweep_lines_get_a_colour_bar_instead_of_a_legend():
    many = pk.simulate_sweep(np.round(np.arange(0.5, 1.0, 0.05), 2), [1, 2, 3], evaluations=2)
    ax = plots.sweep_lines(many)
    assert len(ax.get_lines()) == 10
    assert ax.get_legend() is None
    cax, colour_of = colour_bar(ax.figure)
    for line in ax.get_lines():  # each line in the colour the bar gives its p
        p = float(line.get_label().removeprefix("p = "))
        np.testing.assert_allclose(to_rgba(line.get_color()), colour_of(p))
    np.testing.assert_allclose(cax.get_yticks(), sorted(many["p"].unique()))  # a tick per line


def test_sweep_lines_of_many_p_draw_ten_spread_evenly_unless_told_which(fifty):
    every = sorted(fifty["p"].unique())
    ax = plots.sweep_lines(fifty)
    drawn = [float(line.get_label().removeprefix("p = ")) for line in ax.get_lines()]
    assert len(drawn) == 10
    assert (drawn[0], drawn[-1]) == (every[0], every[-1])
    steps = np.diff([every.index(p) for p in drawn])  # how far apart in the sweep's order
    assert steps.min() >= 1
    assert steps.max() - steps.min() <= 1  # evenly, as near as whole steps allow
    for line, p in zip(ax.get_lines(), drawn, strict=True):
        np.testing.assert_allclose(line.get_ydata(), p ** np.array([1, 4]))
    cax, _ = colour_bar(ax.figure)
    assert cax.get_ylabel() == "p (chance a run passes), 10 of the sweep's 50"
    np.testing.assert_allclose(cax.get_yticks(), drawn)  # a tick at each line's p
    told = plots.sweep_lines(fifty, ps=every, ax=plt.figure().gca())
    assert len(told.get_lines()) == 50


def test_a_few_sweep_lines_are_named_beside_the_axes_not_on_them(sweep):
    ax = plots.sweep_lines(sweep)
    ax.figure.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.bbox.x1


def test_sweep_lines_label_every_k_k_1_included():
    sweep = pk.simulate_sweep([0.8, 0.9], range(1, 11), evaluations=1, rng=0)
    with plots.style():
        fig, ax = plt.subplots(figsize=(7, 4))
    plots.sweep_lines(sweep, ax=ax)
    fig.canvas.draw()
    assert [label.get_text() for label in ax.get_xticklabels()] == [str(k) for k in range(1, 11)]


def test_a_colour_bar_ticks_each_p_only_when_their_labels_stay_apart():
    clustered = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99]
    sweep = pk.simulate_sweep(clustered, [1, 5, 10], evaluations=1, rng=0)
    for draw in (plots.sweep_lines, plots.measured_vs_analytic):
        fig, ax = plt.subplots(figsize=(6.4, 4), dpi=100)
        draw(sweep, ax=ax)
        fig.canvas.draw()
        cax, _ = colour_bar(fig)
        low, high = cax.get_ylim()
        shown = [
            label.get_window_extent()
            for label, tick in zip(cax.get_yticklabels(), cax.get_yticks(), strict=True)
            if low <= tick <= high and label.get_text()
        ]
        assert len(shown) >= 2
        shown.sort(key=lambda box: box.y0)
        assert not any(upper.y0 < lower.y1 for lower, upper in itertools.pairwise(shown))
        plt.close(fig)


def test_sweep_lines_match_the_ps_asked_for_to_the_sweeps_own(sweep):
    ax = plots.sweep_lines(sweep, ps=[0.1 + 0.8, 0.6])  # 0.9000000000000001
    assert [line.get_label() for line in ax.get_lines()] == ["p = 0.9", "p = 0.6"]
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 0.9 ** np.arange(1, 7))
    with pytest.raises(ValueError, match=r"ps names p = \[0.9\] more than once; name each p once"):
        plots.sweep_lines(sweep, ps=[0.9, 0.9000000001])
    with pytest.raises(ValueError, match="ps is empty; pass at least one"):
        plots.sweep_lines(sweep, ps=[])


def test_sweep_lines_of_one_k_mark_each_point_with_a_tick_at_that_k():
    one = pk.simulate_sweep([0.6, 0.9], [3], evaluations=1, rng=0)
    fig, ax = plt.subplots()
    plots.sweep_lines(one, ax=ax)
    fig.canvas.draw()
    assert all(line.get_marker() == "o" for line in ax.get_lines())
    low, high = ax.get_xlim()
    assert [tick for tick in ax.get_xticks() if low <= tick <= high] == [3]
    many = pk.simulate_sweep([0.6, 0.9], range(1, 21), evaluations=1, rng=0)
    lines = plots.sweep_lines(many, ax=plt.figure().gca()).get_lines()
    assert all(line.get_marker() in ("None", "", None) for line in lines)


def test_the_sweeps_old_truth_column_name_still_draws_with_a_warning(sweep):
    with pytest.warns(DeprecationWarning, match="true_pow_k"):
        old = plots.sweep_lines(sweep, value="p_pow_k", ax=plt.figure().gca())
    new = plots.sweep_lines(sweep, ax=plt.figure().gca())
    assert old.get_ylabel() == new.get_ylabel() == "$p^k$"
    for before, after in zip(old.get_lines(), new.get_lines(), strict=True):
        np.testing.assert_array_equal(before.get_ydata(), after.get_ydata())


# --- measured against true ----------------------------------------------------------------


def test_measured_vs_analytic_plots_each_cells_mean_and_spread(sweep):
    ax = plots.measured_vs_analytic(sweep, coverage=0.8)
    diagonal, *points = ax.get_lines()
    assert list(diagonal.get_xdata()) == [0, 1]
    cells = sweep.groupby(["p", "k"])["pass_pow_k"]
    ps = sorted(sweep["p"].unique())
    assert [line.get_label() for line in points] == [f"p = {p:g}" for p in ps]
    truth = sweep.groupby(["p", "k"])["true_pow_k"].first()
    np.testing.assert_allclose(np.concatenate([line.get_xdata() for line in points]), truth)
    np.testing.assert_allclose(np.concatenate([line.get_ydata() for line in points]), cells.mean())
    (bars,) = ax.collections
    segments = bars.get_segments()
    np.testing.assert_allclose([segment[0, 1] for segment in segments], cells.quantile(0.1))
    np.testing.assert_allclose([segment[1, 1] for segment in segments], cells.quantile(0.9))
    assert [to_rgba(line.get_color()) for line in points] == [to_rgba(c) for c in PALETTE[:4]]
    ks = sweep.groupby(["p", "k"]).size().groupby("p").size()
    expected = np.repeat([to_rgba(line.get_color())[:3] for line in points], ks, axis=0)
    np.testing.assert_allclose(bars.get_colors()[:, :3], expected)  # each bar in its p's colour
    (named,) = legends(ax.figure)
    assert texts(named) == [
        *(f"p = {p:g}" for p in ps),
        "measured = true",
        "mean of 50 evaluations",
        "middle 80% of them",
    ]
    for handle, line in zip(named.legend_handles[: len(points)], points, strict=True):
        assert to_rgba(handle.get_color()) == to_rgba(line.get_color())
    with pytest.raises(ValueError, match="coverage"):
        plots.measured_vs_analytic(sweep, coverage=1.0)


@pytest.mark.parametrize("size", [(4, 3), (5, 5), (6.4, 4)])
@pytest.mark.parametrize("many", [False, True])
def test_measured_vs_analytic_keys_sit_right_of_the_axes_and_in_the_figure(
    twenty_tasks, fifty, size, many
):
    with plots.style():
        fig, ax = plt.subplots(figsize=size, dpi=100)
        plots.measured_vs_analytic(fifty if many else twenty_tasks, ax=ax)
        fig.canvas.draw()
    (key,) = legends(fig)
    box = key.get_window_extent()
    assert_within(box, fig.bbox)
    assert box.x0 >= ax.bbox.x1  # right of the axes, like every plot's key: on no data
    if many:
        bar = colour_bar(fig)[0].get_window_extent()
        assert box.y1 <= bar.y0  # under the colour bar, not beside it
        assert box.x0 == pytest.approx(bar.x0, abs=1)
    title = ax.title.get_window_extent()
    assert_within(title, fig.bbox)
    assert not title.overlaps(box)
    for other in every_axes(fig)[1:]:  # the colour bar
        assert not title.overlaps(other.get_tightbbox())


def test_measured_vs_analytic_of_many_p_colours_them_by_a_colour_bar(fifty):
    ax = plots.measured_vs_analytic(fifty)
    _, colour_of = colour_bar(ax.figure)
    _, *points = ax.get_lines()
    assert len(points) == 50
    for line in points:
        p = float(line.get_label().removeprefix("p = "))
        np.testing.assert_allclose(to_rgba(line.get_color()), colour_of(p))
    (key,) = legends(ax.figure)
    assert texts(key) == ["measured = true", "mean of 2 evaluations", "middle 95% of them"]


@pytest.mark.parametrize(
    ("draw", "title"),
    [
        (plots.sweep_heatmap, "$p^k$: the chance that all k runs of a task pass"),
        (plots.sweep_lines, "$p^k$: the chance that all k runs of a task pass"),
        (plots.measured_vs_analytic, "measured pass$^k$ vs true $p^k$"),
    ],
)
def test_a_sweep_plot_has_a_title_unless_its_caller_gives_one(sweep, draw, title):
    assert draw(sweep, ax=plt.figure().gca()).get_title() == title
    before = plt.figure().gca()
    before.set_title("mine")
    assert draw(sweep, ax=before).get_title() == "mine"
    after = draw(sweep, ax=plt.figure().gca())
    after.set_title("mine")
    after.figure.canvas.draw()
    shown = [text.get_text() for text in after.figure.findobj(Text) if text.get_visible()]
    assert "mine" in shown
    assert title not in shown  # ours was the Axes' own title, which the caller's replaced
    for loc in ("left", "right"):  # a caller's title at the side is a title too
        aside = plt.figure().gca()
        aside.set_title("mine", loc=loc)
        assert draw(sweep, ax=aside).get_title() == ""


def test_measured_vs_analytic_draws_a_range_that_misses_the_mean_when_passes_are_rare():
    rare = pk.simulate_sweep([0.5], [12], tasks=40, evaluations=1000, rng=0)
    ax = plots.measured_vs_analytic(rare)
    (segment,) = ax.collections[0].get_segments()
    (mean,) = ax.get_lines()[1].get_ydata()
    assert segment[1, 1] < mean  # most evaluations see no task pass all 12 runs
