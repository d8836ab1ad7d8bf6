"""The adaptive path draws what the evaluation's stopping rule saw: each test reads it back.

The evaluations run coins (every task alike, `pk.coin_tasks`) or tasks that pay a fixed
price a run, so that what the plot draws can be checked against the result's own tables.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgb

import passk_lab as pk
from passk_lab import plots
from passk_lab.plots._style import PALETTE

PLUS_MINUS = "\N{PLUS-MINUS SIGN}"
AT_MOST = "\N{NO-BREAK SPACE}\N{LESS-THAN OR EQUAL TO}\N{NO-BREAK SPACE}"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def one():
    return pk.evaluate_until(pk.coin_tasks(p=0.85, tasks=400, seed=1), k=3, half_width=0.08, rng=0)


@dataclass
class Paid:
    ok: bool
    cost: dict[str, float]


def paid_tasks(p: float, tasks: int, seed: int, usd: float = 0.5):
    """Coins whose every run costs `usd`, recorded as the run's cost."""
    draws = np.random.default_rng(seed)

    def run():
        return Paid(bool(draws.random() < p), {"usd": usd})

    return [pk.Task(run=run, passes=lambda paid: paid.ok, id=i) for i in range(tasks)]


def draw(result, **options):
    fig = plt.figure()
    ax = plots.adaptive_path(result, ax=fig.add_subplot(), **options)
    return ax, fig.axes[-1]


def band_limits(ax):
    """The lower and upper edges of the interval band at each x it has a vertex at."""
    (band,) = [item for item in ax.collections if isinstance(item, PolyCollection)]
    vertices = pd.DataFrame(band.get_paths()[0].vertices, columns=["x", "y"])
    edges = vertices.groupby("x")["y"].agg(["min", "max"])
    return edges.index.to_numpy(), edges["min"].to_numpy(), edges["max"].to_numpy()


def labels(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_the_path_draws_each_batchs_estimate_interval_and_half_width_against_runs(one):
    path = one.path
    ax, below = draw(one)
    assert ax is not below
    assert below.get_shared_x_axes().joined(ax, below)
    estimate = next(line for line in ax.get_lines() if line.get_label() == "estimate")
    np.testing.assert_allclose(estimate.get_xdata(), path["runs"])
    np.testing.assert_allclose(estimate.get_ydata(), path["pass_pow_k"])
    xs, lows, highs = band_limits(ax)
    np.testing.assert_allclose(xs, path["runs"])
    np.testing.assert_allclose(lows, path["pass_pow_k_low"])
    np.testing.assert_allclose(highs, path["pass_pow_k_high"])
    half_widths = below.get_lines()[0]
    np.testing.assert_allclose(half_widths.get_ydata(), path["half_width"])
    (wanted,) = [line for line in below.get_lines() if line.get_label().startswith("wanted")]
    assert wanted.get_ydata()[0] == 0.08
    assert labels(ax) == ["95% interval", "estimate", "where it stopped"]
    assert labels(below) == ["half-width", "wanted: 0.08"]
    assert ax.get_ylabel() == "pass$^{3}$"
    assert below.get_xlabel() == "runs so far"
    assert below.get_ylim()[0] == 0


def test_the_stop_is_marked_with_the_interval_it_reports_and_the_reason_with_its_figures(one):
    ax, below = draw(one)
    last, reported = one.path.iloc[-1], one.curve.iloc[-1]
    assert last["half_width"] <= 0.08 < one.path["half_width"].iloc[-2]
    (stop,) = ax.containers  # an error bar: the estimate and the interval the result reports
    ((x, y),) = stop.lines[0].get_xydata()
    assert (x, y) == (len(one.runs), pytest.approx(reported["pass_pow_k"]))
    (bar,) = stop.lines[2][0].get_segments()
    np.testing.assert_allclose(bar[:, 1], [reported["pass_pow_k_low"], reported["pass_pow_k_high"]])
    assert to_rgb(stop.lines[0].get_color()) == to_rgb(PALETTE[1])
    for axes in (ax, below):  # a line through both at the stop
        rules = [line for line in axes.get_lines() if line.get_linestyle() == ":"]
        assert [line.get_xdata()[0] for line in rules] == [len(one.runs)]
    title = " ".join(ax.get_title(loc="left").split("\n"))
    assert title == (
        f"stopped after {len(one.runs):,} runs, {one.tasks} tasks: the interval is narrow enough, "
        f"{PLUS_MINUS}{last['half_width']:.3g}{AT_MOST}{PLUS_MINUS}0.08"
    )


def test_the_path_against_tasks_and_every_colour_from_the_palette_none_red_or_green(one):
    ax, below = draw(one, x="tasks")
    np.testing.assert_allclose(below.get_lines()[0].get_xdata(), one.path["tasks"])
    assert below.get_xlabel() == "tasks so far"
    colours = {to_rgb(line.get_color()) for axes in (ax, below) for line in axes.get_lines()}
    colours |= {  # the band's fill, the interval's bar where it stopped
        to_rgb((item.get_facecolor() if isinstance(item, PolyCollection) else item.get_color())[0])
        for item in ax.collections
    }
    assert len(colours) == 3  # blue, vermilion and black
    assert colours <= {to_rgb(colour) for colour in PALETTE}
    assert to_rgb("red") not in colours
    assert to_rgb("green") not in colours


def test_two_agents_draw_the_difference_its_confidence_sequence_and_zero():
    better = pk.coin_tasks(p=0.95, tasks=400, seed=1)
    worse = pk.coin_tasks(p=0.6, tasks=400, seed=2)
    result = pk.evaluate_until(better, against=worse, k=3, half_width=0.05, rng=0)
    assert result.stopped_because == "sign"
    ax, below = draw(result)
    path = result.path
    _, lows, _ = band_limits(ax)
    np.testing.assert_allclose(lows, path["difference_low"])
    assert lows[-1] > 0  # the sign is decided at the last batch, and not before
    assert (lows[:-1] <= 0).all()
    (zero,) = [line for line in ax.get_lines() if line.get_label().startswith("0:")]
    assert list(zero.get_ydata()) == [0, 0]
    assert "95% confidence sequence" in labels(ax)
    assert ax.get_ylabel() == "difference A \N{MINUS SIGN} B\nin pass$^{3}$"
    assert below.get_xlabel() == "runs so far, both agents"
    assert below.get_lines()[0].get_xdata()[-1] == len(result.runs)
    assert ax.get_title(loc="left").replace("\n", " ").endswith("its sign is decided")


@pytest.mark.parametrize(("x", "column"), [("usd", "cost_usd"), ("cost_usd", "cost_usd")])
def test_a_cost_limit_is_drawn_where_it_lies_on_the_cost_axis(x, column):
    result = pk.evaluate_until(
        paid_tasks(0.8, 400, seed=3), k=3, half_width=0.02, max_cost={"usd": 60.0}, rng=0
    )
    assert result.stopped_because == "max_cost"
    ax, below = draw(result, x=x)
    np.testing.assert_allclose(below.get_lines()[0].get_xdata(), result.path[column])
    assert result.path[column].iloc[-1] == pytest.approx(result.cost["usd"])
    assert result.path[column].iloc[-1] == pytest.approx(0.5 * len(result.runs))
    for axes in (ax, below):
        (limit,) = [
            line
            for line in axes.get_lines()
            if line.get_linestyle() == "--" and to_rgb(line.get_color()) == to_rgb(PALETTE[1])
        ]
        assert list(limit.get_xdata()) == [60.0, 60.0]
    assert "max_cost: usd 60" in labels(below)
    assert below.get_xlabel() == "usd spent so far"
    assert "the limit on cost (usd 60) is reached" in ax.get_title(loc="left").replace("\n", " ")


def test_a_run_limit_is_drawn_on_the_runs_axis_and_only_named_on_another():
    result = pk.evaluate_until(
        pk.coin_tasks(p=0.7, tasks=400, seed=4), k=3, half_width=0.02, max_runs=200, rng=0
    )
    assert result.stopped_because == "max_runs"
    ax, below = draw(result)
    assert "max_runs = 200" in labels(below)
    _, tasks_below = draw(result, x="tasks")
    assert not any(label.startswith("max_runs") for label in labels(tasks_below))
    assert "no batch more fits max_runs = 200" in ax.get_title(loc="left").replace("\n", " ")


def test_a_caller_s_title_stands():
    result = pk.evaluate_until(pk.coin_tasks(p=0.85, tasks=200, seed=1), k=3, half_width=0.1, rng=0)
    _, ax = plt.subplots()
    ax.set_title("mine")
    plots.adaptive_path(result, ax=ax)
    assert [ax.get_title(loc) for loc in ("left", "center")] == ["", "mine"]


def test_what_the_path_cannot_draw_is_refused_saying_what_to_pass(one):
    with pytest.raises(TypeError, match="draws what evaluate_until returns, an AdaptiveResult"):
        plots.adaptive_path(one.path)
    with pytest.raises(ValueError, match=r"x must be 'runs', 'tasks' or a cost, when the runs"):
        plots.adaptive_path(one, x="usd")
    with pytest.raises(ValueError, match="the result has no path"):
        plots.adaptive_path(dataclasses.replace(one, path=pd.DataFrame()))
    paid = pk.evaluate_until(paid_tasks(0.8, 100, seed=5), k=3, half_width=0.2, rng=0)
    with pytest.raises(ValueError, match=r"a cost the runs recorded \('cost_usd'\); got 'eur'"):
        plots.adaptive_path(paid, x="eur")


@pytest.mark.parametrize("width", [6.4, 4.0])
def test_the_keys_and_title_stay_in_the_figure_at_the_reports_width_and_a_narrow_one(one, width):
    with plots.style():
        fig = plt.figure(figsize=(width, 4.5))
        ax = plots.adaptive_path(one, ax=fig.add_subplot())
        fig.canvas.draw()
    below = fig.axes[-1]
    keys = [axes.get_legend().get_window_extent() for axes in (ax, below)]
    title = ax._left_title.get_window_extent()  # matplotlib's title on the left
    for box in [*keys, title]:
        assert box.x0 >= 0
        assert box.x1 <= fig.bbox.width
        assert box.y1 <= fig.bbox.height
    assert not keys[0].overlaps(keys[1])
    for key, axes in zip(keys, (ax, below), strict=True):
        assert key.x0 >= axes.get_window_extent().x1  # beside the path, on nothing drawn
    assert ax.get_window_extent().width > 0.35 * fig.bbox.width  # the keys leave the path room


def test_an_exhausted_pool_is_drawn_on_the_tasks_axis_for_any_target_and_interval():
    result = pk.evaluate_until(
        pk.coin_tasks(p=0.7, tasks=60, seed=2),
        k=3,
        half_width=0.02,
        rng=0,
        statistic="pass_at_k",
        interval="anytime",
    )
    assert result.stopped_because == "exhausted"
    ax, below = draw(result, x="tasks")
    np.testing.assert_allclose(band_limits(ax)[1], result.path["pass_at_k_low"])
    assert ax.get_ylabel() == "pass@3"
    assert labels(ax)[0] == "95% confidence sequence"  # anytime: valid whenever it stops
    assert labels(below)[-1] == "the pool's 60 tasks"
    title = ax.get_title(loc="left").replace("\n", " ")
    assert title == "stopped after 180 runs, 60 tasks: all 60 tasks of the pool are used"
