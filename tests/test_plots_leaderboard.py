"""The leaderboard's pictures draw the tables as they are: each test reads them back off the Axes.

The tables are built here by hand, with the columns and attrs that ``pk.leaderboard`` and
``pk.pairwise`` return, so that every number a test expects comes from the frame it drew.
"""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

import passk_lab as pk
from passk_lab import plots
from passk_lab.plots._style import PALETTE

MINUS = "\N{MINUS SIGN}"
DASH = "\N{EN DASH}"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def shown(texts):
    """What matplotlib draws: a text with no unescaped ``$`` is plain."""
    return [text.get_text().replace("\\$", "$") for text in texts]


# --- tables as the statistics return them ------------------------------------------------


def board_frame(agents, *, ks=(1, 5), metric="pass_pow_k", by=("model",)):
    """A leaderboard: `agents` maps an agent (a tuple with several `by` columns) to its rows.

    Each agent has, per k, (value, rank, rank_low, rank_high, tie_group); the other metric
    gets a value of its own, so a plot that reads the wrong column draws the wrong points.
    """
    rows = []
    for k in ks:
        for agent, per_k in agents.items():
            value, rank, rank_low, rank_high, group = per_k[k]
            key = agent if isinstance(agent, tuple) else (agent,)
            other = "pass_at_k" if metric == "pass_pow_k" else "pass_pow_k"
            rows.append(
                {
                    **dict(zip(by, key, strict=True)),
                    "k": k,
                    metric: value,
                    f"{metric}_low": value - 0.1,
                    f"{metric}_high": min(value + 0.05, 1.0),
                    other: 1 - value,
                    f"{other}_low": 0.0,
                    f"{other}_high": 1.0,
                    "n_tasks": 40,
                    "rank": rank,
                    "rank_low": rank_low,
                    "rank_high": rank_high,
                    "tie_group": group,
                }
            )
    frame = pd.DataFrame(rows).sort_values(["k", "rank"], kind="stable", ignore_index=True)
    columns = [*by, "k"]
    for name in ("pass_pow_k", "pass_at_k"):
        columns += [name, f"{name}_low", f"{name}_high"]
    frame = frame[[*columns, "n_tasks", "rank", "rank_low", "rank_high", "tie_group"]]
    frame.attrs = {"by": list(by), "metric": metric, "confidence_level": 0.95, "adjust": "holm"}
    return frame


FIVE = {  # value, rank, rank_low, rank_high, tie group at k = 1 and k = 5
    "gamma": {1: (0.9, 1, 1, 2, 1), 5: (0.70, 2, 1, 3, 1)},
    "alpha": {1: (0.8, 2, 1, 3, 1), 5: (0.72, 1, 1, 2, 1)},
    "delta": {1: (0.6, 3, 2, 5, 2), 5: (0.40, 3, 2, 5, 2)},
    "beta": {1: (0.5, 4, 3, 5, 2), 5: (0.30, 4, 3, 5, 2)},
    "eps": {1: (0.2, 5, 5, 5, 3), 5: (0.05, 5, 4, 5, 3)},
}


def pairs_frame(values, *, ks=(1, 3), p_adjusted=None, adjust="holm", level=0.95, tuples=False):
    """A pairwise table of agents whose metric at k is ``values[agent] / k``: each pair once.

    `p_adjusted` maps a pair (a, b) to its adjusted p (0.5 when not given).
    """
    p_adjusted = p_adjusted or {}
    rows = []
    for metric in ("pass_pow_k", "pass_at_k"):
        for k in ks:
            for a, b in itertools.combinations(values, 2):
                shift = 0.0 if metric == "pass_pow_k" else 0.05  # the other metric differs
                value_a, value_b = values[a] / k + shift, values[b] / k
                p = p_adjusted.get((a, b), 0.5)
                rows.append(
                    {
                        "a": (a, "x") if tuples else a,
                        "b": (b, "x") if tuples else b,
                        "metric": metric,
                        "k": k,
                        "value_a": value_a,
                        "value_b": value_b,
                        "difference": value_a - value_b,
                        "difference_low": value_a - value_b - 0.1,
                        "difference_high": value_a - value_b + 0.1,
                        "correlation": 0.3,
                        "n_tasks": 40,
                        "p_value": p / 2,
                        "p_adjusted": p,
                        "test": "paired bootstrap",
                    }
                )
    frame = pd.DataFrame(rows)
    frame.attrs = {
        "by": ["model", "prompt"] if tuples else ["model"],
        "adjust": adjust,
        "confidence_level": level,
    }
    return frame


# --- the forest ---------------------------------------------------------------------------


def forest_rows(ax):
    """The agents top to bottom with their points, intervals and rank texts, off the Axes."""
    ticks = ax.get_yticks()
    labels = shown(ax.get_yticklabels())
    top_first = np.argsort(ticks)  # an inverted axis draws its least y at the top
    if not ax.yaxis_inverted():
        top_first = top_first[::-1]
    (points,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    y_of_point = dict(zip(points.get_ydata(), points.get_xdata(), strict=True))
    (intervals,) = [item for item in ax.collections if isinstance(item, LineCollection)]
    y_of_interval = {
        segment[0, 1]: (segment[:, 0].min(), segment[:, 0].max())
        for segment in intervals.get_segments()
    }
    rank_texts = {  # the ranks' column, without its header above the Axes
        text.get_position()[1]: text.get_text() for text in ax.texts if "\n" not in text.get_text()
    }
    return [
        (labels[i], y_of_point[ticks[i]], y_of_interval[ticks[i]], rank_texts[ticks[i]])
        for i in top_first
    ]


def test_the_forest_draws_the_agents_best_first_at_the_largest_k_with_their_intervals():
    board = board_frame(FIVE)
    ax = plots.leaderboard_forest(board)
    assert ax is plt.gca()
    at_5 = {agent: per_k[5] for agent, per_k in FIVE.items()}
    order = sorted(at_5, key=lambda agent: at_5[agent][1])  # by rank
    assert order == ["alpha", "gamma", "delta", "beta", "eps"]
    rows = forest_rows(ax)
    assert [row[0] for row in rows] == order
    for (_, point, (low, high), text), agent in zip(rows, order, strict=True):
        value, rank, rank_low, rank_high, group = at_5[agent]
        assert point == pytest.approx(value)
        assert (low, high) == pytest.approx((value - 0.1, min(value + 0.05, 1.0)))
        assert text == f"rank {rank} ({rank_low}{DASH}{rank_high}), group {group}"
    assert ax.get_xlabel() == "pass$^{5}$"
    assert ax.get_xlim()[0] == 0
    (points,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    (intervals,) = [item for item in ax.collections if isinstance(item, LineCollection)]
    assert to_rgba(points.get_color()) == to_rgba(intervals.get_color()[0]) == to_rgba(PALETTE[0])


def test_the_forest_at_a_chosen_k_reads_the_ranked_metric_in_rank_order():
    board = board_frame(FIVE, metric="pass_at_k").iloc[::-1]  # a table sorted otherwise
    ax = plots.leaderboard_forest(board, k=1)
    at_1 = {agent: per_k[1] for agent, per_k in FIVE.items()}
    rows = forest_rows(ax)
    assert [row[0] for row in rows] == sorted(at_1, key=lambda agent: at_1[agent][1])
    assert [row[1] for row in rows] == pytest.approx(sorted(v[0] for v in at_1.values())[::-1])
    assert ax.get_xlabel() == "pass@1"
    assert ax.get_xlim() == (0, 1)  # an interval reaches 0.95: the whole of [0, 1]


def test_the_forest_of_pass_pow_k_at_k_1_writes_it_as_pass_at_1():
    ax = plots.leaderboard_forest(board_frame(FIVE), k=1)  # pass^1 is pass@1
    assert ax.get_xlabel() == "pass@1"


def test_the_forest_keeps_zero_and_stops_short_of_one_when_every_agent_is_far_below():
    low = {}
    for agent, per_k in FIVE.items():
        value, *ranks = per_k[5]
        low[agent] = {5: (value / 4, *ranks)}
    ax = plots.leaderboard_forest(board_frame(low, ks=(5,)))
    highest = max(min(per_k[5][0] + 0.05, 1.0) for per_k in low.values())
    left, right = ax.get_xlim()
    assert left == 0
    assert highest < right < 1  # the largest upper limit (0.23) fits, with a margin under 0.4
    assert right <= highest + 0.15


def bands_of(ax):
    """The forest's shaded bands, each as the (lowest, highest) y it spans."""
    bands = [patch for patch in ax.patches if isinstance(patch, Rectangle)]
    return [tuple(sorted([band.get_y(), band.get_y() + band.get_height()])) for band in bands]


def test_the_forest_shades_the_odd_tie_groups_and_says_what_a_group_is():
    board = board_frame(FIVE)
    ax = plots.leaderboard_forest(board, k=5)
    rows = forest_rows(ax)
    groups = {agent: per_k[5][4] for agent, per_k in FIVE.items()}
    ticks = dict(zip(shown(ax.get_yticklabels()), ax.get_yticks(), strict=True))
    # groups 1 and 3 shaded, group 2 left plain: a band spans its agents' rows, half a row over
    # at the top and bottom of the forest, a little less (a white seam) where other rows follow
    bands = sorted(bands_of(ax))
    assert len(bands) == 2
    for (low, high), group in zip(bands, (1, 3), strict=True):
        members = [ticks[agent] for agent, _, _, _ in rows if groups[agent] == group]
        assert min(members) - 0.5 <= low < min(members) - 0.4
        assert max(members) + 0.4 < high <= max(members) + 0.5
    assert bands[0][0] == -0.5  # the ends of the forest: no seam
    assert bands[-1][1] == len(rows) - 0.5
    assert shown(ax.get_legend().get_texts()) == ["pass$^{5}$, 95% CI", "odd tie groups"]
    (header,) = [text.get_text() for text in ax.texts if "\n" in text.get_text()]
    assert header == "rank (95% simultaneous CI),\ntie group (not told apart)"


def key_and_axes(ax):
    """The heights, in pixels, of the forest's key (its legend and header) and of its Axes."""
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    (header,) = [text for text in ax.texts if "\n" in text.get_text()]
    parts = [ax.get_legend().get_window_extent(renderer), header.get_window_extent(renderer)]
    top = max(part.y1 for part in parts)
    bottom = min(part.y0 for part in parts)
    return top - bottom, ax.get_window_extent(renderer).height, parts


@pytest.mark.parametrize("width", [6.4, 4.0])
@pytest.mark.parametrize("agents", [3, 8])
def test_the_forests_key_is_a_line_or_two_above_the_axes_and_clear_of_the_figures_edges(
    width, agents
):
    names = [f"agent {i}" for i in range(agents)]
    board = board_frame(
        {name: {5: (0.9 - 0.1 * i, i + 1, 1, agents, 1 + i // 3)} for i, name in enumerate(names)},
        ks=(5,),
    )
    with plots.style():  # the report's sizes: 1.6 in and 0.3 in an agent
        fig = plt.figure(figsize=(width, 1.6 + 0.3 * agents))
        ax = plots.leaderboard_forest(board, ax=fig.add_subplot())
        height, axes_height, parts = key_and_axes(ax)
    legend, header = parts
    lines = {round(text.get_window_extent().y0) for text in ax.get_legend().get_texts()}
    assert len(lines) == (1 if width == 6.4 else 2)  # one line where it fits, two where not
    size = ax.get_legend().get_texts()[0].get_fontsize() * fig.dpi / 72  # in pixels
    assert height < 4 * size  # two lines of text and their padding, at most
    assert height < (0.3 if agents == 3 else 0.15) * axes_height
    box = ax.get_window_extent()
    assert min(legend.y0, header.y0) >= box.y1  # above the Axes, on nothing drawn
    assert legend.x1 < header.x0  # side by side, apart
    assert legend.x0 >= 0  # inside the figure
    assert header.x1 <= fig.bbox.width


# a board whose groups interleave: b is shown worse than a, c is not (so c is in group 1 with
# a, below b of group 2), and d is shown worse than c and b: group 3, next to c of group 1
INTERLEAVED = {
    "a": {5: (0.90, 1, 1, 2, 1)},
    "b": {5: (0.80, 2, 2, 3, 2)},
    "c": {5: (0.79, 3, 1, 3, 1)},
    "d": {5: (0.50, 4, 4, 4, 3)},
}


def test_the_forest_draws_each_row_by_its_own_group_when_groups_interleave():
    ax = plots.leaderboard_forest(board_frame(INTERLEAVED, ks=(5,)))
    rows = forest_rows(ax)
    assert [row[0] for row in rows] == ["a", "b", "c", "d"]
    ticks = dict(zip(shown(ax.get_yticklabels()), ax.get_yticks(), strict=True))
    bands = bands_of(ax)
    for agent, _, _, text in rows:
        group = INTERLEAVED[agent][5][4]
        assert text.endswith(f", group {group}")
        covering = [band for band in bands if band[0] < ticks[agent] < band[1]]
        assert len(covering) == (1 if group % 2 == 1 else 0)
        for low, high in covering:  # a band holds the rows of one group, no other's
            inside = [other for other, y in ticks.items() if low < y < high]
            assert {INTERLEAVED[other][5][4] for other in inside} == {group}
    # c (group 1) and d (group 3) are both shaded and meet: two bands with white between
    (c_band,) = [band for band in bands if band[0] < ticks["c"] < band[1]]
    (d_band,) = [band for band in bands if band[0] < ticks["d"] < band[1]]
    assert c_band != d_band
    assert max(c_band[0], d_band[0]) > min(c_band[1], d_band[1])


def test_the_forest_labels_agents_by_their_values_drawn_literally():
    agents = {
        ("cost $5", "v$1"): FIVE["alpha"],
        ("plain", "$x^$"): FIVE["beta"],
    }
    board = board_frame(agents, by=("model", "prompt"))
    ax = plots.leaderboard_forest(board)
    ax.figure.canvas.draw()  # mathtext would parse here, and fail on "$x^$"
    assert [row[0] for row in forest_rows(ax)] == ["cost $5 / v$1", "plain / $x^$"]


def test_the_forest_refuses_a_k_the_board_lacks_and_a_table_that_is_not_a_board():
    board = board_frame(FIVE)
    with pytest.raises(
        ValueError, match=r"k = 3 is not in the leaderboard; choose one of \[1, 5\]"
    ):
        plots.leaderboard_forest(board, k=3)
    with pytest.raises(ValueError, match=r"no column 'rank'.*pass the DataFrame that leaderboard"):
        plots.leaderboard_forest(pairs_frame({"a": 0.5, "b": 0.4}))
    with pytest.raises(TypeError, match="DataFrame from leaderboard"):
        plots.leaderboard_forest([1, 2])
    unmarked = board.copy()
    unmarked.attrs = {}
    with pytest.raises(ValueError, match=r"no 'metric' in its attrs.*leaderboard"):
        plots.leaderboard_forest(unmarked)


# --- the pairwise heatmap -------------------------------------------------------------------


def heatmap_image(ax):
    (image,) = [item for item in ax.get_children() if isinstance(item, AxesImage)]
    return image


def cells(ax):
    """The cells drawn, keyed by (row agent, column agent): value, text written and its colour."""
    rows, columns = shown(ax.get_yticklabels()), shown(ax.get_xticklabels())
    matrix = np.ma.filled(heatmap_image(ax).get_array().astype(float), np.nan)
    assert matrix.shape == (len(rows), len(columns))
    texts = {
        (round(text.get_position()[1]), round(text.get_position()[0])): text for text in ax.texts
    }
    drawn = {}
    for (i, row), (j, column) in itertools.product(enumerate(rows), enumerate(columns)):
        text = texts.get((i, j))
        if np.isfinite(matrix[i, j]):
            drawn[row, column] = (
                matrix[i, j],
                None if text is None else text.get_text(),
                None if text is None else text.get_color(),
            )
        else:
            assert text is None  # nothing written in a blank cell
    return drawn


VALUES = {"b": 0.4, "a": 0.9, "d": 0.1, "c": 0.6, "e": 0.75}
ORDER = sorted(VALUES, key=lambda agent: -VALUES[agent])  # a, e, c, b, d: best first


def test_the_heatmap_draws_each_pair_once_the_agent_ahead_as_its_row():
    pairs = pairs_frame(VALUES)
    ax = plots.pairwise_heatmap(pairs)
    assert ax is plt.gca()
    assert shown(ax.get_yticklabels()) == ORDER[:-1]  # the last agent is nobody's row
    assert shown(ax.get_xticklabels()) == ORDER[1:]  # the first is nobody's column
    drawn = cells(ax)
    k = 3  # the largest
    expected = {
        (row, column): VALUES[row] / k - VALUES[column] / k
        for i, row in enumerate(ORDER)
        for column in ORDER[i + 1 :]
    }
    assert set(drawn) == set(expected)  # 10 pairs of 5 agents, once each; no mirror, no diagonal
    assert len(drawn) == len(VALUES) * (len(VALUES) - 1) // 2
    for pair, difference in expected.items():
        assert drawn[pair][0] == pytest.approx(difference)
        assert drawn[pair][0] > 0  # the row's agent is the one ahead
    assert len(ax.figure.axes) == 1  # every cell has its number: no colour bar
    assert ax.xaxis.get_ticks_position() == "top"  # over the first row, which is full
    assert "row \N{MINUS SIGN} column, each pair once" in ax.get_title()


def test_the_heatmaps_colours_are_the_palettes_blue_ahead_and_vermilion_behind():
    pairs = pairs_frame(VALUES)
    flipped = (pairs["a"] == "b") & (pairs["b"] == "c")  # stored as b - c, now against the order
    pairs.loc[flipped, "difference"] = 0.05
    ax = plots.pairwise_heatmap(pairs, k=1)
    drawn = cells(ax)
    assert drawn["c", "b"][0] == pytest.approx(-0.05)  # c is ahead on the mean, behind here
    image = heatmap_image(ax)
    norm = image.norm
    largest = max(abs(value) for value, _, _ in drawn.values())
    assert norm.vmin == -norm.vmax == -largest  # diverging, centred at 0
    assert image.to_rgba(norm.vmax) == pytest.approx(to_rgba(PALETTE[0]))  # blue: ahead
    assert image.to_rgba(norm.vmin) == pytest.approx(to_rgba(PALETTE[1]))  # vermilion: behind
    assert image.to_rgba(0.0) == pytest.approx((1, 1, 1, 1), abs=0.01)  # white at 0 (in 256 steps)
    behind = image.to_rgba(drawn["c", "b"][0])
    assert behind[0] > behind[2]  # the one pair against the order is reddish
    # white writing on the darkest cells, black on the palest
    assert drawn["a", "d"][2] == "white"  # a - d, the largest
    assert drawn["c", "b"][2] == drawn["a", "e"][2] == "black"  # among the smallest


def test_the_heatmap_writes_each_difference_and_marks_where_the_adjusted_p_is_small():
    # each pair is stored once, as a - b; a p at the level counts, as in the leaderboard's ranks
    significant = {("a", "d"): 0.01, ("b", "c"): 1 - 0.95}
    pairs = pairs_frame(VALUES, p_adjusted={**significant, ("b", "a"): 0.0501})
    ax = plots.pairwise_heatmap(pairs, metric="pass_pow_k", k=1)
    marked = {frozenset(pair) for pair in significant}
    written = {pair: text for pair, (_, text, _) in cells(ax).items()}
    expected = {
        (row, column): f"{VALUES[row] - VALUES[column]:.2f}"
        + ("*" if frozenset((row, column)) in marked else "")
        for i, row in enumerate(ORDER)
        for column in ORDER[i + 1 :]
    }
    assert written == expected
    title = ax.get_title()
    assert "Holm" in title
    assert "95%" in title
    assert "p \N{LESS-THAN OR EQUAL TO} 0.05" in title


def test_the_heatmap_draws_the_metric_and_k_asked_for_and_names_the_adjustment():
    pairs = pairs_frame(VALUES, adjust="bh", level=0.9)
    ax = plots.pairwise_heatmap(pairs, metric="pass_at_k", k=1)
    drawn = cells(ax)
    # stored as b - a, with 0.05 added to b: a is ahead, so drawn as a - b
    assert drawn["a", "b"][0] == pytest.approx(-(VALUES["b"] + 0.05 - VALUES["a"]))
    assert ("b", "a") not in drawn
    title = ax.get_title()
    assert "Benjamini-Hochberg" in title
    assert "90%" in title
    assert "p \N{LESS-THAN OR EQUAL TO} 0.1" in title
    assert "pass@1" in title
    unadjusted = plots.pairwise_heatmap(pairs_frame(VALUES, adjust=None), ax=plt.figure().gca())
    assert "not adjusted" in unadjusted.get_title()
    assert "pass$^{3}$" in unadjusted.get_title()


def test_the_heatmap_joins_the_values_of_several_columns_and_draws_them_literally():
    pairs = pairs_frame({"$x^$": 0.5, "cost $5": 0.7}, tuples=True)
    ax = plots.pairwise_heatmap(pairs)
    ax.figure.canvas.draw()
    assert shown(ax.get_yticklabels()) == ["cost $5 / x"]
    assert shown(ax.get_xticklabels()) == ["$x^$ / x"]


def test_the_heatmap_of_many_agents_drops_the_numbers_keeps_the_marks_and_keys_the_colours():
    values = {f"agent {i:02d}": i / 30 for i in range(25)}
    pairs = pairs_frame(values, ks=(1,), p_adjusted={("agent 00", "agent 24"): 0.001})
    ax = plots.pairwise_heatmap(pairs)
    written = [text for _, text, _ in cells(ax).values() if text is not None]
    assert written == ["*"]  # the one pair, once
    (bar,) = ax.figure.axes[1:]  # no numbers: a colour bar says what the colours are
    assert bar.get_ylabel() == f"difference (row {MINUS} column)"
    few = plots.pairwise_heatmap(pairs_frame(VALUES), ax=plt.figure().gca())
    twelve = {f"agent {i:02d}": i / 30 for i in range(12)}
    more = plots.pairwise_heatmap(pairs_frame(twelve), ax=plt.figure().gca())
    assert len(more.texts) == 12 * 11 // 2  # every pair written in, once
    assert more.texts[0].get_fontsize() < few.texts[0].get_fontsize()  # in smaller writing


@pytest.mark.parametrize(("agents", "width", "level"), [(3, 6.4, True), (8, 4.0, False)])
def test_the_heatmaps_column_labels_lie_level_where_they_fit_and_slant_where_not(
    agents, width, level
):
    values = {
        name: 0.9 - 0.1 * i
        for i, name in enumerate(
            ["atlas", "birch", "cedar", "dune", "ember", "fjord", "grove", "heron"][:agents]
        )
    }
    with plots.style():
        fig = plt.figure(figsize=(width, 2.2 + 0.3 * agents))  # the report's height
        ax = plots.pairwise_heatmap(pairs_frame(values), ax=fig.add_subplot())
        fig.canvas.draw()
    labels = ax.get_xticklabels()
    assert {label.get_rotation() for label in labels} == {0 if level else 45}
    boxes = [label.get_window_extent() for label in labels]
    if level:  # side by side, none overlaps the next (slanted ones lie across each other)
        assert all(left.x1 <= right.x0 for left, right in itertools.pairwise(boxes))
    assert all(box.y0 >= ax.get_window_extent().y1 for box in boxes)  # above the cells
    assert min(box.x0 for box in boxes) >= 0  # inside the figure
    assert max(box.x1 for box in boxes) <= fig.bbox.width


def test_the_heatmap_refuses_what_it_cannot_draw():
    pairs = pairs_frame(VALUES)
    with pytest.raises(ValueError, match=r"k = 2 is not in the table; choose one of \[1, 3\]"):
        plots.pairwise_heatmap(pairs, k=2)
    with pytest.raises(ValueError, match=r"no rows for metric 'pass@k'.*'pass_at_k', 'pass_pow_k'"):
        plots.pairwise_heatmap(pairs, metric="pass@k")
    with pytest.raises(ValueError, match=r"no column 'a'.*pass the DataFrame that pairwise"):
        plots.pairwise_heatmap(board_frame(FIVE))
    with pytest.raises(TypeError, match="DataFrame from pairwise"):
        plots.pairwise_heatmap({"a": 1})
    twice = pd.concat([pairs, pairs.head(1).assign(a=pairs["b"].iloc[0], b=pairs["a"].iloc[0])])
    twice.attrs = pairs.attrs
    with pytest.raises(ValueError, match=r"the pair \('[ab]', '[ab]'\) is in the table twice"):
        plots.pairwise_heatmap(twice, k=1)
    unmarked = pairs.copy()
    unmarked.attrs = {}
    with pytest.raises(ValueError, match=r"no 'confidence_level' in its attrs.*pairwise"):
        plots.pairwise_heatmap(unmarked)


# --- the tables the statistics return -------------------------------------------------------


def test_both_pictures_draw_what_the_leaderboard_and_pairwise_return():
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, tasks=20, k=2, seed=seed).assign(model=name, prompt="v1")
            for name, p, seed in [("b", 0.8, 2), ("a", 0.95, 1), ("c", 0.5, 3)]
        ]
    )
    board = pk.leaderboard(runs, by=["model", "prompt"], n_resamples=200, rng=0)
    ax = plots.leaderboard_forest(board)
    at_2 = board[board["k"] == 2].sort_values("rank", kind="stable")
    rows = forest_rows(ax)
    assert [row[0] for row in rows] == [f"{model} / v1" for model in at_2["model"]]
    assert [row[1] for row in rows] == pytest.approx(at_2["pass_pow_k"].tolist())
    assert [row[3] for row in rows] == [
        f"rank {rank} ({low}{DASH}{high}), group {group}"
        for rank, low, high, group in at_2[
            ["rank", "rank_low", "rank_high", "tie_group"]
        ].to_numpy()
    ]
    pairs = pk.pairwise(runs, by=["model", "prompt"], n_resamples=200, rng=0)
    heatmap = plots.pairwise_heatmap(pairs, ax=plt.figure().gca())
    drawn = cells(heatmap)
    chosen = pairs[(pairs["metric"] == "pass_pow_k") & (pairs["k"] == 2)]
    assert len(drawn) == len(chosen) == 3
    for (a, _), (b, _), difference in chosen[["a", "b", "difference"]].to_numpy():
        a, b = f"{a} / v1", f"{b} / v1"
        assert (drawn[a, b][0] if (a, b) in drawn else -drawn[b, a][0]) == pytest.approx(difference)
