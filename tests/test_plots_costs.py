"""The cost plot draws each agent's pass^k against its cost, and marks the frontier of them.

Costs and pass rates are computed again here with plain pandas, and the frontier by a loop
over every pair of agents, apart from the library's array code.
"""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb

import passk_lab as pk
from passk_lab import plots
from passk_lab.plots._costs import cost_frontier
from passk_lab.plots._style import PALETTE

AGENTS = [  # name, chance a run passes, seed, mean cost of a run in usd
    ("opus-large", 0.93, 1, 0.90),
    ("sonnet-mid", 0.88, 2, 0.30),
    ("haiku-small", 0.75, 3, 0.05),
    ("open-70b", 0.80, 4, 0.12),
    ("legacy", 0.70, 5, 0.40),
]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def runs():
    frames = []
    for name, p, seed, usd in AGENTS:
        frame = pk.simulate_coin(p=p, tasks=60, k=5, seed=seed).assign(model=name)
        frame["cost_usd"] = np.round(usd * np.random.default_rng(seed).lognormal(0, 0.3, 300), 4)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def curve(runs):
    return pk.reliability_curve(runs, by="model", rng=0)


def brute_frontier(points):
    """The agents no other is as cheap as and as good as, better in one: every pair looked at."""
    return {
        name
        for name, (cost, value) in points.items()
        if not any(
            other != name
            and other_cost <= cost
            and other_value >= value
            and (other_cost < cost or other_value > value)
            for other, (other_cost, other_value) in points.items()
        )
    }


def test_the_frontier_is_every_point_no_other_beats_on_both_counts():
    generator = np.random.default_rng(0)
    for _ in range(200):
        size = int(generator.integers(1, 9))
        cost = np.round(generator.random(size), 1)  # ties in cost and in value
        value = np.round(generator.random(size), 1)
        points = {i: (cost[i], value[i]) for i in range(size)}
        assert set(np.flatnonzero(cost_frontier(cost, value))) == brute_frontier(points)
    with_nan = cost_frontier(np.array([1.0, np.nan, 2.0]), np.array([0.5, 0.9, 0.4]))
    assert with_nan.tolist() == [True, False, False]  # no cost: on no frontier, beats none


def drawn_points(ax):
    """Each agent's point, off the Axes: its name, x, y, and its marker's face colour."""
    names = {
        tuple(np.round(text.xy, 12)): text.get_text() for text in ax.texts
    }  # annotations sit at their points
    drawn = {}
    for line in ax.get_lines():
        if line.get_marker() != "o":
            continue
        for x, y in line.get_xydata():
            drawn[names[round(x, 12), round(y, 12)]] = (x, y, to_rgb(line.get_markerfacecolor()))
    return drawn


def test_each_agent_is_drawn_at_its_cost_and_pass_pow_k_named_beside_it(runs, curve):
    ax = plots.cost_reliability(curve)
    k = 5
    per_task = runs.groupby(["model", "task"])["cost_usd"].mean().groupby("model").mean()
    all_five = runs.groupby(["model", "task"])["passed"].all().groupby("model").mean()
    drawn = drawn_points(ax)
    assert set(drawn) == {name for name, *_ in AGENTS}
    for name, (x, y, _) in drawn.items():
        assert x == pytest.approx(k * per_task[name], rel=1e-12)
        assert y == pytest.approx(all_five[name], rel=1e-12)
    assert ax.get_xlabel() == "usd per task (5 runs)"
    assert ax.get_ylabel() == "pass$^{5}$, 95% CI"
    # every interval drawn is the curve's, as an error bar at the agent's point
    at_5 = curve[curve["k"] == 5].set_index("model")
    bars = [
        segment for container in ax.containers for segment in container.lines[2][0].get_segments()
    ]
    for name, (x, _, _) in drawn.items():
        (bar,) = [segment for segment in bars if segment[0, 0] == pytest.approx(x)]
        low, high = sorted(bar[:, 1])
        assert (low, high) == pytest.approx(
            (at_5.loc[name, "pass_pow_k_low"], at_5.loc[name, "pass_pow_k_high"])
        )


def test_the_frontier_is_filled_in_blue_joined_by_steps_and_the_rest_hollow_grey(curve):
    ax = plots.cost_reliability(curve)
    drawn = drawn_points(ax)
    frontier = brute_frontier({name: (x, y) for name, (x, y, _) in drawn.items()})
    assert frontier == {"haiku-small", "sonnet-mid", "opus-large"}  # open-70b: as good, dearer
    for name, (_, _, face) in drawn.items():
        assert face == (to_rgb(PALETTE[0]) if name in frontier else to_rgb("white"))
    (steps,) = [line for line in ax.get_lines() if line.get_drawstyle() == "steps-post"]
    on = sorted((drawn[name][0], drawn[name][1]) for name in frontier)
    np.testing.assert_allclose(steps.get_xydata(), on)
    assert to_rgb(steps.get_color()) == to_rgb(PALETTE[0])
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "cost-efficient frontier",
        "dominated: another is as cheap and as reliable",
    ]


def test_per_run_divides_by_k_and_a_log_axis_is_asked_for(runs, curve):
    ax = plots.cost_reliability(curve, k=3, per="run", log=True)
    per_run = runs.groupby(["model", "task"])["cost_usd"].mean().groupby("model").mean()
    for name, (x, _, _) in drawn_points(ax).items():
        assert x == pytest.approx(per_run[name], rel=1e-12)
    assert ax.get_xlabel() == "usd per run"
    assert ax.get_ylabel() == "pass$^{3}$, 95% CI"
    assert ax.get_xscale() == "log"
    ax.figure.canvas.draw()
    written = [label.get_text() for label in ax.get_xticklabels() if label.get_text()]
    assert written  # amounts as they are (0.05, 0.1, 0.2), not powers of ten
    assert all(float(text) > 0 for text in written)


def test_an_agent_without_costs_is_left_out_and_named(runs):
    unpaid = runs.copy()
    unpaid.loc[unpaid["model"] == "legacy", "cost_usd"] = np.nan
    ax = plots.cost_reliability(pk.reliability_curve(unpaid, by="model", rng=0))
    assert "legacy" not in drawn_points(ax)
    assert ax.get_legend().get_texts()[-1].get_text() == "no usd recorded: legacy"


@pytest.mark.parametrize(("width", "lines"), [(6.4, 1), (4.0, 3)])
def test_the_key_sits_above_and_the_names_apart_inside_the_figure(curve, width, lines):
    with plots.style():
        fig = plt.figure(figsize=(width, 4.0))
        ax = plots.cost_reliability(curve, ax=fig.add_subplot())
        fig.canvas.draw()
    key = ax.get_legend().get_window_extent()
    assert key.y0 >= ax.get_window_extent().y1  # above the Axes, on nothing drawn
    assert key.x0 >= 0
    assert key.x1 <= fig.bbox.width
    rows = {round(text.get_window_extent().y1) for text in ax.get_legend().get_texts()}
    written = sum(text.get_text().count("\n") + 1 for text in ax.get_legend().get_texts())
    assert (len(rows) == 1) if lines == 1 else (written == lines)
    names = [text.get_window_extent() for text in ax.texts]
    assert not any(one.overlaps(other) for one, other in itertools.combinations(names, 2))
    assert all(name.x0 >= 0 and name.x1 <= fig.bbox.width for name in names)


def test_a_table_without_costs_is_refused_with_how_to_get_them(runs):
    board = pk.leaderboard(runs, rng=0)
    for table in (board, pk.reliability_curve(runs.drop(columns="cost_usd"), by="model", rng=0)):
        with pytest.raises(ValueError, match=r"no cost column; .*cost_<name>.*reliability_curve"):
            plots.cost_reliability(table)
    with pytest.raises(TypeError, match="DataFrame from reliability_curve"):
        plots.cost_reliability({"k": [1]})


def test_a_cost_k_or_per_the_curve_lacks_is_refused_naming_the_choices(runs, curve):
    both = pk.reliability_curve(runs.assign(cost_tokens=1000.0), by="model", rng=0)
    with pytest.raises(
        ValueError, match=r"2 costs, 'cost_usd', 'cost_tokens'; choose one with cost="
    ):
        plots.cost_reliability(both)
    assert plots.cost_reliability(both, cost="tokens", ax=plt.figure().gca()).get_xlabel() == (
        "tokens per task (5 runs)"
    )
    with pytest.raises(
        ValueError, match=r"cost='eur' is not a cost of the table; choose one of \['usd'\]"
    ):
        plots.cost_reliability(curve, cost="eur")
    with pytest.raises(
        ValueError,
        match=r"k = 9 has no measured pass\^k in the curve; choose one of \[1, 2, 3, 4, 5\]",
    ):
        plots.cost_reliability(curve, k=9)
    with pytest.raises(ValueError, match="per must be 'task' or 'run', got 'tokens'"):
        plots.cost_reliability(curve, per="tokens")
