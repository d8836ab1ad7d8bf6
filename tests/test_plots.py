"""The plots draw what the statistics returned: each test reads the data back off the Axes."""

from __future__ import annotations

import itertools
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib import patheffects
from matplotlib.collections import PolyCollection, QuadMesh
from matplotlib.colors import to_rgba
from matplotlib.image import AxesImage
from matplotlib.legend import Legend
from matplotlib.text import Text

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


# --- outcome heatmap ---------------------------------------------------------------------


def test_outcome_heatmap_sorts_tasks_and_marks_errors_timeouts_and_missing_runs():
    runs = pd.DataFrame(
        {
            "task": ["a", "a", "a", "b", "b", "b", "c", "c"],
            "run": [0, 1, 2, 0, 1, 2, 0, 2],
            "passed": [False, True, False, True, True, True, False, True],
            "error": [None, None, "ToolError: boom", None, None, None, None, None],
            "timed_out": [True, False, False, False, False, False, False, False],
        }
    )
    ax = plots.outcome_heatmap(runs)
    (image,) = [item for item in ax.get_children() if isinstance(item, AxesImage)]
    # 4 passed, 1 failed, 2 error, 3 timed out, 0 no run; b (3 passes) first, then c (1 pass
    # of 2 runs) above a (1 of 3)
    assert image.get_array().tolist() == [[4, 4, 4], [1, 0, 4], [3, 4, 2]]
    assert [label.get_text() for label in ax.get_yticklabels()] == ["b", "c", "a"]
    assert legend_texts(ax) == ["passed", "failed", "errored", "timed out", "no run"]
    assert ax.get_xlabel() == "run"


def test_outcome_heatmap_paints_an_agents_own_error_as_the_failure_the_tally_counts():
    runs = pd.DataFrame(
        {
            "task": [0, 0, 0],
            "run": [0, 1, 2],
            "passed": [False, False, True],
            "error": ["KeyError: 'x'", "RateLimitError: 429", None],
            "error_kind": pd.Categorical(["agent", "infrastructure", None]),
        }
    )
    ax = plots.outcome_heatmap(runs)
    (image,) = [item for item in ax.get_children() if isinstance(item, AxesImage)]
    assert image.get_array().tolist() == [[1, 2, 4]]  # failed, errored, passed
    excluded = pk.tally(runs, errors="exclude")
    assert excluded[["n", "c"]].to_numpy().tolist() == [[2, 1]]  # only the rate limit is left out


def test_outcome_heatmap_draws_a_states_matrix_as_it_is():
    runs = pk.simulate_coin(tasks=6, k=4, seed=3)
    from_runs = plots.outcome_heatmap(runs, ax=plt.figure().gca())
    matrix = pk.outcome_matrix(runs, states=True)
    from_matrix = plots.outcome_heatmap(matrix, ax=plt.figure().gca())
    (first,) = [item for item in from_runs.get_children() if isinstance(item, AxesImage)]
    (second,) = [item for item in from_matrix.get_children() if isinstance(item, AxesImage)]
    assert first.get_array().tolist() == second.get_array().tolist()


def test_outcome_heatmap_shows_a_passed_run_that_errored_as_an_error_as_the_tally_counts_it():
    runs = pd.DataFrame(
        {"task": [0, 0], "run": [0, 1], "passed": [True, True], "error": ["", None]}
    )
    with pytest.warns(UserWarning, match="marked passed but also errored"):
        ax = plots.outcome_heatmap(runs)
    (image,) = [item for item in ax.get_children() if isinstance(item, AxesImage)]
    assert image.get_array().tolist() == [[2, 4]]
    with pytest.warns(UserWarning, match="marked passed but also errored"):
        assert pk.tally(runs)["c"].tolist() == [1]  # one pass, as the picture shows


def test_outcome_heatmap_of_the_source_run_has_every_run_of_every_task():
    runs = pk.simulate_coin(seed=42)
    ax = plots.outcome_heatmap(runs, task_labels=False)
    (image,) = [item for item in ax.get_children() if isinstance(item, AxesImage)]
    codes = np.asarray(image.get_array())
    assert codes.shape == (40, 5)
    assert (codes == 4).sum() == runs["passed"].sum()
    assert ((codes == 4).sum(axis=1) == 5).sum() == 18  # pass^5 = 18 / 40
    assert np.all(np.diff((codes == 4).sum(axis=1)) <= 0)
    assert ax.get_yticks().tolist() == []
    assert legend_texts(ax) == ["passed", "failed"]


def test_an_outcome_matrix_with_no_task_or_no_run_is_refused():
    matrix = pk.outcome_matrix(pk.simulate_coin(tasks=3, k=2, seed=1), states=True)
    with pytest.raises(ValueError, match="has 0 tasks and 2 runs"):
        plots.outcome_heatmap(matrix.iloc[:0])
    with pytest.raises(ValueError, match="has 3 tasks and 0 runs"):
        plots.outcome_heatmap(matrix.iloc[:, :0])


def many_tasks(tasks, seed=3):
    runs = pk.simulate_coin(p=0.7, tasks=tasks, k=8, seed=seed)
    return runs.assign(task=[f"airline/task_{task:03d}" for task in runs["task"]])


def drawn_order(runs):
    """The task ids top to bottom: most passes first, ties in the order of their ids."""
    passes = runs.groupby("task")["passed"].sum()
    return passes.sort_values(ascending=False, kind="stable").index.tolist()


def assert_within(box, outer):
    """Assert that the drawn extent `box` lies inside `outer` (both in pixels)."""
    assert outer.x0 <= box.x0
    assert box.x1 <= outer.x1
    assert outer.y0 <= box.y0
    assert box.y1 <= outer.y1


def overlaps(extents):
    return any(upper.y0 < lower.y1 for lower, upper in itertools.pairwise(extents))


@pytest.mark.parametrize("tasks", [40, 50, 90])
def test_a_heatmap_of_many_tasks_labels_every_mth_drawn_row_at_a_readable_size(tasks):
    runs = many_tasks(tasks)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    plots.outcome_heatmap(runs, ax=ax)
    fig.canvas.draw()
    rows = ax.get_yticks().astype(int)
    every = rows[1] - rows[0]
    assert every > 1
    np.testing.assert_array_equal(rows, np.arange(0, tasks, every))  # from the top row, every mth
    order = drawn_order(runs)
    assert [label.get_text() for label in ax.get_yticklabels()] == [order[row] for row in rows]
    labels = ax.get_yticklabels()
    assert min(label.get_fontsize() for label in labels) >= 8
    extents = sorted((label.get_window_extent() for label in labels), key=lambda box: box.y0)
    assert not overlaps(extents)  # the labels drawn can be read
    row_pixels = ax.bbox.height / tasks
    # and one row fewer apart would leave less than half a line between two labels
    assert (every - 1) * row_pixels < 1.5 * extents[0].height
    nth = {2: "2nd", 3: "3rd"}.get(every, f"{every}th")
    assert ax.get_ylabel() == f"{tasks} tasks, most passes first\nevery {nth} labelled"


def test_a_heatmap_labels_every_task_when_they_fit_all_when_told_and_none_past_every_fifth():
    ax = plt.subplots(figsize=(7, 4.5), dpi=100)[1]
    plots.outcome_heatmap(many_tasks(12), ax=ax)
    assert ax.get_yticks().tolist() == list(range(12))
    assert ax.get_ylabel() == "12 tasks, most passes first"
    runs = many_tasks(400)
    forced = plots.outcome_heatmap(runs, task_labels=True, ax=plt.figure().gca())
    assert [label.get_text() for label in forced.get_yticklabels()] == drawn_order(runs)
    crowded = plots.outcome_heatmap(runs, ax=plt.figure().gca())
    assert crowded.get_yticks().tolist() == []
    assert crowded.get_ylabel() == "400 tasks, most passes first\nids not labelled"


def test_the_heatmaps_right_axis_gives_the_passes_of_the_rows_beside_it():
    runs = many_tasks(50)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    plots.outcome_heatmap(runs, ax=ax)
    fig.canvas.draw()
    (right,) = ax.child_axes
    assert right.get_ylabel() == "runs passed"
    (image,) = ax.images
    passes = (np.asarray(image.get_array()) == 4).sum(axis=1)
    np.testing.assert_array_equal(
        passes, runs.groupby("task")["passed"].sum().sort_values(ascending=False, kind="stable")
    )
    ticks = right.get_yticks()
    counts = [int(label.get_text()) for label in right.get_yticklabels()]
    assert len(counts) >= 3
    assert counts == sorted(counts, reverse=True)
    for tick, count in zip(ticks, counts, strict=True):
        group = np.flatnonzero(passes == count)
        assert tick == (group[0] + group[-1]) / 2  # at the middle of the tasks with that count
    extents = sorted(
        (label.get_window_extent() for label in right.get_yticklabels()), key=lambda box: box.y0
    )
    assert not overlaps(extents)
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= right.get_tightbbox().x1  # the legend hides neither counts nor label


def test_a_heatmap_of_unequal_runs_groups_tasks_by_passes_and_runs():
    runs = pd.DataFrame(
        {
            "task": ["a"] * 3 + ["b"] * 2 + ["c"] * 3 + ["d"] * 2,
            "run": [0, 1, 2, 0, 1, 0, 1, 2, 0, 1],
            "passed": [True, True, False, True, True, True, True, False, False, False],
        }
    )
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    plots.outcome_heatmap(runs, ax=ax)
    fig.canvas.draw()
    # most passes first; of as many passes, fewest runs first; ties in their order
    assert [label.get_text() for label in ax.get_yticklabels()] == ["b", "a", "c", "d"]
    (right,) = ax.child_axes
    assert [label.get_text() for label in right.get_yticklabels()] == ["2 of 2", "2 of 3", "0 of 2"]
    np.testing.assert_array_equal(right.get_yticks(), [0, 1.5, 3])


@pytest.mark.parametrize("styled", [True, False])
def test_a_heatmaps_labels_and_legend_fit_a_small_figure(styled):
    with plots.style() if styled else plt.rc_context():
        fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
        plots.outcome_heatmap(many_tasks(40), ax=ax)
        fig.canvas.draw()
    label = ax.yaxis.label.get_window_extent()
    assert fig.bbox.y0 <= label.y0  # (long ids may run off the left of a figure with no layout)
    assert label.y1 <= fig.bbox.y1
    assert label.height <= ax.bbox.height  # no taller than the rows it names
    assert ax.get_ylabel().splitlines()[1].endswith("labelled")


def test_a_heatmaps_legend_stays_in_a_figure_of_default_settings():
    with plt.rc_context():
        fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
        plots.outcome_heatmap(many_tasks(40), ax=ax)
        fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x1 <= fig.bbox.x1
    assert legend.x0 >= ax.child_axes[0].get_tightbbox().x1
    with plots.style():  # a layout engine's figure is left to the engine
        fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
        plots.outcome_heatmap(many_tasks(40), ax=ax)
        assert fig.subplotpars.right == plt.rcParams["figure.subplot.right"]


@pytest.mark.parametrize(("wanted", "written"), [(6, 8), (11, 11)])
def test_a_heatmap_writes_thinned_ids_at_the_callers_size_and_no_smaller_than_8_pt(wanted, written):
    with plt.rc_context({"ytick.labelsize": wanted}):
        fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
        plots.outcome_heatmap(many_tasks(50), ax=ax)
        fig.canvas.draw()
    labels = ax.get_yticklabels()
    assert {label.get_fontsize() for label in labels} == {written}
    rows = ax.get_yticks()
    # one label every `every` rows, each a label's height (written x 1.3 pt) apart at least
    row_points = ax.bbox.height * 72 / fig.dpi / 50
    assert (rows[1] - rows[0]) * row_points >= written * 1.3
    extents = sorted((label.get_window_extent() for label in labels), key=lambda box: box.y0)
    assert not overlaps(extents)


# --- success histogram -------------------------------------------------------------------


def test_success_histogram_draws_the_counts_and_both_expectations(tau_bench_runs):
    counts = pk.success_counts(tau_bench_runs)
    ax = plots.success_histogram(counts)
    assert [bar.get_height() for bar in ax.patches] == [14, 12, 10, 4, 10]
    binomial, betabinom = ax.get_lines()
    np.testing.assert_allclose(binomial.get_ydata(), counts["binomial"])
    np.testing.assert_allclose(betabinom.get_ydata(), counts["betabinom"])
    observed, one_rate, fitted, note = legend_texts(ax)  # tests/test_plots_runs.py: the words
    assert observed == "tasks observed"
    assert one_rate.startswith("binomial")
    assert fitted.startswith("beta-binomial fit")
    assert note.startswith(f"{counts.attrs['fit_pass_at_1']:.3f} is not pass@1")
    assert ax.get_xlabel() == "runs passed (of 4)"
    fig = ax.figure
    fig.canvas.draw()
    low, high = ax.get_ylim()
    assert all(tick == int(tick) for tick in ax.get_yticks() if low <= tick <= high)  # tasks
    assert ax.get_legend().get_window_extent().x0 >= ax.bbox.x1  # beside, on no bar


@pytest.mark.parametrize("styled", [True, False])
@pytest.mark.parametrize("size", [(5, 2.5), (4, 3)])
def test_a_success_histograms_legend_hides_no_bar_and_stays_in_the_figure(size, styled):
    counts = pk.success_counts(pk.simulate_coin(p=0.5, tasks=40, k=6, seed=1))
    with plots.style() if styled else plt.rc_context():
        fig, ax = plt.subplots(figsize=size, dpi=100)
        plots.success_histogram(counts, ax=ax)
        fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert_within(legend, fig.bbox)
    for bar in ax.patches:
        assert not legend.overlaps(bar.get_window_extent())
    for line in ax.get_lines():
        for x, y in ax.transData.transform(line.get_xydata()):
            assert not legend.contains(x, y)


def test_a_success_histogram_of_many_counts_is_one_outline_not_a_bar_each():
    runs_per_task = 300  # 301 counts, past the 200 a histogram draws as bars
    runs = pd.DataFrame(
        {
            "task": np.repeat([0, 1, 2], runs_per_task),
            "run": np.tile(np.arange(runs_per_task), 3),
            "passed": np.arange(3 * runs_per_task) % 3 != 0,  # each task passes 200 of 300
        }
    )
    counts = pk.success_counts(runs)
    ax = plots.success_histogram(counts, ax=plt.subplots(figsize=(3, 2))[1])
    (outline,) = ax.patches
    heights, edges, _ = outline.get_data()  # and its baseline
    np.testing.assert_array_equal(heights, counts["n_tasks"])
    assert heights[200] == 3  # every task at 200 runs passed
    np.testing.assert_array_equal(edges, np.arange(-0.5, runs_per_task + 1))


# --- sweeps ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sweep():
    return pk.simulate_sweep([0.6, 0.8, 0.9, 0.99], range(1, 7), evaluations=50, rng=0)


def test_sweep_heatmap_draws_the_mean_of_each_cell_with_contours(sweep):
    ax = plots.sweep_heatmap(sweep, value="pass_pow_k")
    (mesh,) = [item for item in ax.collections if isinstance(item, QuadMesh)]
    means = sweep.pivot_table(index="p", columns="k", values="pass_pow_k", aggfunc="mean")
    np.testing.assert_allclose(np.asarray(mesh.get_array()).reshape(4, 6), means.to_numpy())
    assert len(ax.figure.axes) == 2  # and its colour bar
    assert ax.figure.axes[1].get_ylabel() == "mean measured pass$^k$"
    assert len(ax.collections) > 1  # the contour lines
    assert ax.get_ylabel() == "p (chance a run passes)"


def test_sweep_lines_draw_p_to_the_k_for_every_p(sweep):
    ax = plots.sweep_lines(sweep)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["p = 0.6", "p = 0.8", "p = 0.9", "p = 0.99"]
    for line, p in zip(lines, [0.6, 0.8, 0.9, 0.99], strict=True):
        np.testing.assert_allclose(line.get_ydata(), p ** np.arange(1, 7))
    assert len(legend_texts(ax)) == 4
    chosen = plots.sweep_lines(sweep, ps=[0.9], ax=plt.figure().gca())
    assert len(chosen.get_lines()) == 1
    with pytest.raises(ValueError, match=r"p = \[0.5\] is not in the sweep"):
        plots.sweep_lines(sweep, ps=[0.5])


def colour_bar(fig):
    """The colour bar of a figure of one plot: its Axes and the colours it maps values to."""
    _, cax = fig.axes
    (solids,) = [item for item in cax.collections if isinstance(item, QuadMesh)]
    return cax, solids.to_rgba


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


@pytest.fixture(scope="module")
def fifty():
    return pk.simulate_sweep(np.round(np.linspace(0.5, 0.99, 50), 3), [1, 4], evaluations=2, rng=0)


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


def test_sweep_heatmap_labels_its_contours_with_the_target_legibly(sweep):
    ax = plots.sweep_heatmap(sweep, levels=[0.5, 0.9])
    labels = ax.texts
    assert {label.get_text() for label in labels} == {"0.5", "0.9"}
    for label in labels:
        assert label.get_fontsize() >= 10
        assert to_rgba(label.get_color()) == to_rgba("white")
        (outline,) = label.get_path_effects()  # a dark stroke around the white writing
        assert isinstance(outline, patheffects.withStroke)
    measured = plots.sweep_heatmap(sweep, value="pass_pow_k", levels=[0.5], ax=plt.figure().gca())
    assert [label.get_text() for label in measured.texts] == ["0.5"]


@pytest.mark.parametrize(
    ("ps", "levels"),
    [
        (np.r_[np.round(np.linspace(0.5, 0.99, 20), 3), 0.995, 0.999, 0.9999], [0.9, 0.99, 0.999]),
        (np.round(np.linspace(0.5, 0.99, 50), 3), [0.5, 0.9, 0.99]),
    ],
)
@pytest.mark.parametrize("size", [(6.4, 4), (4, 3)])
def test_sweep_heatmaps_contour_labels_lie_apart_and_inside_the_axes(ps, levels, size):
    near_one = pk.simulate_sweep(ps, range(1, 21), evaluations=1, rng=0)
    with plots.style():
        fig, ax = plt.subplots(figsize=size, dpi=100)
        plots.sweep_heatmap(near_one, levels=levels, ax=ax)
        fig.canvas.draw()
    extents = [label.get_window_extent() for label in ax.texts]
    assert extents  # one label at least
    assert {label.get_text() for label in ax.texts} <= {f"{level:g}" for level in levels}
    for box in extents:
        assert_within(box, ax.bbox)
    for one, other in itertools.combinations(extents, 2):
        assert not one.overlaps(other)


def test_a_colour_bar_ticks_each_p_only_when_their_labels_stay_apart():
    clustered = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99]
    sweep = pk.simulate_sweep(clustered, [1, 5, 10], evaluations=1, rng=0)
    for draw in (plots.sweep_lines, plots.measured_vs_analytic):
        fig, ax = plt.subplots(figsize=(6.4, 4), dpi=100)
        draw(sweep, ax=ax)
        fig.canvas.draw()
        cax = fig.axes[1]
        low, high = cax.get_ylim()
        shown = [
            label.get_window_extent()
            for label, tick in zip(cax.get_yticklabels(), cax.get_yticks(), strict=True)
            if low <= tick <= high and label.get_text()
        ]
        assert len(shown) >= 2
        assert not overlaps(sorted(shown, key=lambda box: box.y0))
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
    colours = {to_rgba(line.get_color()) for line in points}
    assert len(colours) == len(ps)  # one colour per p
    ks = sweep.groupby(["p", "k"]).size().groupby("p").size()
    expected = np.repeat([to_rgba(line.get_color())[:3] for line in points], ks, axis=0)
    np.testing.assert_allclose(bars.get_colors()[:, :3], expected)  # each bar in its p's colour
    (named,) = [item for item in ax.get_children() if isinstance(item, Legend)]
    assert legend_texts(ax) == [
        *(f"p = {p:g}" for p in ps),
        "measured = true",
        "mean of 50 evaluations",
        "middle 80% of them",
    ]
    for handle, line in zip(named.legend_handles[: len(points)], points, strict=True):
        assert to_rgba(handle.get_color()) == to_rgba(line.get_color())
    with pytest.raises(ValueError, match="coverage"):
        plots.measured_vs_analytic(sweep, coverage=1.0)


@pytest.fixture(scope="module")
def twenty_tasks():
    return pk.simulate_sweep([0.8, 0.9, 0.95, 0.99], range(1, 21), tasks=20, evaluations=200, rng=0)


@pytest.mark.parametrize("size", [(4, 3), (5, 5), (6.4, 4)])
@pytest.mark.parametrize("many", [False, True])
def test_measured_vs_analytic_keys_hide_no_data_and_stay_in_the_figure(
    twenty_tasks, fifty, size, many
):
    with plots.style():
        fig, ax = plt.subplots(figsize=size, dpi=100)
        plots.measured_vs_analytic(fifty if many else twenty_tasks, ax=ax)
        fig.canvas.draw()
    (key,) = [item for item in ax.get_children() if isinstance(item, Legend)]
    box = key.get_window_extent()
    assert_within(box, fig.bbox)
    (bars,) = ax.collections
    for segment in bars.get_segments():
        (x, low), (_, high) = ax.transData.transform(segment)
        assert not (box.x0 <= x <= box.x1 and low <= box.y1 and high >= box.y0)
    for line in ax.get_lines():
        for x, y in ax.transData.transform(line.get_xydata()):
            assert not box.contains(x, y)
    assert not box.overlaps(ax.xaxis.get_tightbbox())  # nor on the x label
    title = ax.title.get_window_extent()
    assert_within(title, fig.bbox)
    for other in fig.axes[1:]:  # the colour bar
        assert not title.overlaps(other.get_tightbbox())


def test_measured_vs_analytic_of_many_p_colours_them_by_a_colour_bar(fifty):
    ax = plots.measured_vs_analytic(fifty)
    _, colour_of = colour_bar(ax.figure)
    _, *points = ax.get_lines()
    assert len(points) == 50
    for line in points:
        p = float(line.get_label().removeprefix("p = "))
        np.testing.assert_allclose(to_rgba(line.get_color()), colour_of(p))
    assert legend_texts(ax) == ["measured = true", "mean of 2 evaluations", "middle 95% of them"]


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


# --- comparison --------------------------------------------------------------------------


# --- style and imports -------------------------------------------------------------------


def test_the_style_applies_only_inside_its_block():
    before = dict(matplotlib.rcParams)
    with plots.style():
        assert matplotlib.rcParams["axes.spines.right"] is False
        assert matplotlib.rcParams["axes.prop_cycle"].by_key()["color"][0] == "#0072B2"
    assert dict(matplotlib.rcParams) == before


def test_the_style_keeps_interactive_mode_that_a_backend_turned_on_inside_it():
    # Jupyter's inline backend, loaded by the first figure, turns interactive mode on; undoing
    # that on leaving the block would stop every later figure from showing
    assert not matplotlib.is_interactive()
    try:
        with plots.style():
            matplotlib.interactive(True)
        assert matplotlib.is_interactive()
    finally:
        matplotlib.interactive(False)


def test_importing_the_package_neither_imports_matplotlib_nor_changes_its_settings():
    code = (
        "import sys, passk_lab as pk\n"
        "assert 'matplotlib' not in sys.modules, 'passk_lab imported matplotlib'\n"
        "import matplotlib\n"
        "before = dict(matplotlib.rcParams)\n"
        "assert pk.plots.decay_curve is not None\n"
        "assert dict(matplotlib.rcParams) == before\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError, match="no attribute 'plot'"):
        pk.plot  # noqa: B018


def test_the_sweeps_old_truth_column_name_still_draws_with_a_warning(sweep):
    with pytest.warns(DeprecationWarning, match="true_pow_k"):
        old = plots.sweep_lines(sweep, value="p_pow_k", ax=plt.figure().gca())
    new = plots.sweep_lines(sweep, ax=plt.figure().gca())
    assert old.get_ylabel() == new.get_ylabel() == "$p^k$"
    for before, after in zip(old.get_lines(), new.get_lines(), strict=True):
        np.testing.assert_array_equal(before.get_ydata(), after.get_ydata())


# --- what the user's data can hold --------------------------------------------------------


def test_ids_and_group_names_with_dollars_are_drawn_as_they_are():
    ids = ["$x^$", "cost $5 or $6", "a\\$b"]  # a formula that does not parse, a pair, an escape
    runs = pd.DataFrame({"task": np.repeat(ids, 2), "run": [0, 1] * 3, "passed": [True, False] * 3})
    fig, (left, middle, right) = plt.subplots(1, 3)
    plots.outcome_heatmap(runs, ax=left)
    models = [
        pk.simulate_coin(tasks=5, k=2, seed=seed).assign(model=name)
        for seed, name in enumerate(ids)
    ]
    curve = pk.reliability_curve(pd.concat(models), by="model", rng=0)
    plots.decay_curve(curve, ax=middle)
    comparison = pk.compare(runs, runs.assign(passed=True), rng=0)
    plots.comparison(comparison, names=["$a$b", "b$"], ax=right)
    fig.canvas.draw()  # mathtext would parse here, and fail on "$x^$"

    def shown(texts):  # what matplotlib draws: a text with no unescaped $ is plain
        return [text.get_text().replace("\\$", "$") for text in texts]

    assert sorted(shown(left.get_yticklabels())) == sorted(ids)
    legends = [*(axes.get_legend() for axes in fig.axes), *fig.legends]
    texts = [text for legend in legends if legend is not None for text in legend.get_texts()]
    assert set(ids) <= set(shown(texts))  # each group by its value
    assert shown(right.get_legend().get_texts())[:2] == ["$a$b", "b$"]


def test_many_runs_get_a_few_labelled_ticks_not_one_each():
    runs_per_task = 2 * plots._style.MOST_TICKS + 10
    runs = pd.DataFrame(
        {
            "task": np.repeat([0, 1], runs_per_task),
            "run": np.tile(np.arange(runs_per_task), 2),
            "passed": np.arange(2 * runs_per_task) % 3 == 0,
        }
    )
    ax = plots.outcome_heatmap(runs, ax=plt.subplots(figsize=(3, 2))[1])
    ticks = ax.get_xticks()
    assert 2 <= len(ticks) <= plots._style.MOST_TICKS + 1
    assert set(ticks) <= set(range(runs_per_task))
    labels = [label.get_text() for label in ax.get_xticklabels()]
    assert labels == [str(int(tick)) for tick in ticks]  # the run ids at those places
    fig, hist = plt.subplots(figsize=(3, 2))
    plots.success_histogram(pk.success_counts(runs), ax=hist)
    fig.canvas.draw()
    low, high = hist.get_xlim()
    drawn = [tick for tick in hist.get_xticks() if low <= tick <= high]
    assert 2 <= len(drawn) <= plots._style.MOST_TICKS + 1
    assert (low, high) == (-0.5, runs_per_task + 0.5)  # no tick past the counts


def test_a_heatmap_too_large_for_the_memory_budget_is_refused_with_its_size(monkeypatch):
    runs = pk.simulate_coin(seed=42)  # 40 tasks x 5 runs
    monkeypatch.setattr(pk._checks, "MEMORY_BUDGET", 40 * 5 * 16 - 1)
    with pytest.raises(ValueError, match=r"the outcome heatmap would hold 40 tasks x 5 runs = 200"):
        plots.outcome_heatmap(runs)
    monkeypatch.setattr(pk._checks, "MEMORY_BUDGET", 40 * 5 * 16)
    plots.outcome_heatmap(runs)


def test_the_palette_is_the_shipped_styles_colour_cycle_in_its_order():
    from passk_lab.plots._style import PALETTE

    with plots.style():
        cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    assert [to_rgba(colour) for colour in cycle] == [to_rgba(colour) for colour in PALETTE]
    assert len(set(PALETTE)) == len(PALETTE)
