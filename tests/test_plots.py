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
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.image import AxesImage

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
