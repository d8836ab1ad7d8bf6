"""The report's leaderboard section: its tables, plots and sentences, for several agents."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from test_report import Page

import passk_lab as pk
from passk_lab._data.tally import as_tally
from passk_lab.report import labelled
from passk_lab.report._board import board_section, reading

AGENTS = [("ace", 0.9, 1), ("bee", 0.75, 2), ("cat", 0.5, 3)]
OPTIONS = {"n_resamples": 500, "rng": 0}


@pytest.fixture(scope="module")
def runs():
    """Three agents on 30 tasks, three runs each; cat ran only the first 24."""
    runs = pd.concat(
        [
            pk.simulate_coin(p=p, tasks=30, k=3, seed=seed).assign(model=name)
            for name, p, seed in AGENTS
        ],
        ignore_index=True,
    )
    return runs[~((runs["model"] == "cat") & (runs["task"] >= 24))].reset_index(drop=True)


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    tally = pk.tally(runs, by="model")  # a tally draws no outcome heatmaps: a faster report
    written = pk.report.write_report(tally, out, by="model", **OPTIONS)
    return out, [path.name for path in written]


@pytest.fixture(scope="module")
def expected(runs):
    """The leaderboard and pairs of the 24 shared tasks at every k the runs have."""
    with pytest.warns(UserWarning, match="dropped 6 task"):
        board = pk.leaderboard(runs, [1, 2, 3], by="model", unmatched="drop", **OPTIONS)
    with pytest.warns(UserWarning, match="dropped 6 task"):
        pairs = pk.pairwise(
            runs,
            [1, 2, 3],
            by="model",
            metrics=["pass_pow_k"],
            common_tasks=True,
            unmatched="drop",
            **OPTIONS,
        )
    return board, pairs


SECTION_FILES = [
    "leaderboard.csv",
    "leaderboard.md",
    "pairwise.csv",
    "pairwise.md",
    "leaderboard_forest.png",
    "leaderboard_forest.svg",
    "pairwise_heatmap.png",
    "pairwise_heatmap.svg",
]


def test_the_section_writes_its_tables_and_plots_and_lists_them(report):
    out, written = report
    assert set(SECTION_FILES) <= set(written)
    manifest = json.loads((out / ".passk-report.json").read_text())
    assert manifest["files"] == sorted(written)
    assert {path.name for path in out.iterdir()} == {*written, ".passk-report.json"}
    for name in ("leaderboard_forest", "pairwise_heatmap"):
        assert (out / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in (out / f"{name}.svg").read_text()[:1000]


def test_the_csv_files_hold_the_leaderboard_and_pairs_of_the_shared_tasks(report, expected):
    out, _ = report
    board, pairs = expected
    assert board["n_tasks"].unique().tolist() == [24]
    for name, table in (("leaderboard", board), ("pairwise", pairs)):
        lines = (out / f"{name}.csv").read_text().splitlines()
        assert "# p-values adjusted: Holm" in lines
        assert "# tasks dropped: 6, not run by every agent" in lines
        back = pd.read_csv(out / f"{name}.csv", comment="#")
        pd.testing.assert_frame_equal(back, table, check_dtype=False)
    assert "# ranked by: pass^k" in (out / "leaderboard.csv").read_text().splitlines()


def test_the_page_shows_the_board_its_plots_and_what_it_reads(report, expected):
    out, _ = report
    board, pairs = expected
    text = (out / "report.html").read_text()
    page = Page(text)
    ids = [
        attrs.get("id")
        for tag, attrs in page.tags
        if tag in ("h2", "details", "div") and "id" in attrs
    ]
    parts = [f"runs-model-{name}" for name in board["model"].unique()]
    assert ids == [
        "coverage",
        "leaderboard",
        "board",  # the board at every k, folded under the forest of its largest
        "pairwise",
        "decay_curve",
        "runs",
        *parts,
        "curve",
        "predictions",
        "betabinom",
        "methods",
    ]
    # the section's tables: the board as labelled, its rank cells "2 (1-3)", then every pair
    first = page.sections.index("leaderboard")
    (header, table), pair_table = page.table("leaderboard"), page.bodies[first + 1]
    shown = labelled(board)
    # one row of names over the ranked metric's estimate and interval ("pass^k", its k raised)
    assert header == [
        *["model", "k", "passk", "tasks", "rank (simultaneous 95% CI)", "tie group"],
        *["estimate", "95% CI"],
    ]
    ranks = [
        f"{r} ({lo}\N{EN DASH}{hi})"
        for r, lo, hi in board[["rank", "rank_low", "rank_high"]].to_numpy()
    ]
    assert [row[5] for row in table] == ranks
    assert [row[0] for row in table] == shown["model"].tolist()
    assert len(pair_table) == len(pairs)
    assert not [cell for row in pair_table for cell in row if "sign_flip" in cell]
    assert "and its paired sign-flip test: computed exactly" in text
    # the forest and the map first, inline, the heading above each saying what it shows
    figures = re.findall(r'<figure class="plot">(.*?)</figure>', text, flags=re.DOTALL)
    for figure, name in zip(figures[:2], ["leaderboard_forest", "pairwise_heatmap"], strict=True):
        assert f'id="{name}-wide-' in figure
    # the map's own title is its caption on the page, in words
    assert figures[1].count("<figcaption>") == 1
    marked = "Holm-adjusted p \N{LESS-THAN OR EQUAL TO} 0.05 (95% level)"  # its title's words
    assert marked in (out / "pairwise_heatmap.svg").read_text()
    assert marked not in figures[1]
    assert "Holm-adjusted p at most 0.05 (the 95% level)" in figures[1]
    # the reading names tie group 1 at the largest k, and the dropped tasks are listed
    last = board[board["k"] == 3]
    first = last[last["rank_low"] == 1]["model"].tolist()  # those no agent is shown to beat
    paragraphs = re.findall(r"<p>(.*?)</p>", text[text.index('<h2 id="leaderboard">') :])
    if len(first) == 1:
        assert paragraphs[0].startswith(f"At k = 3, {first[0]} is alone in tie group 1 ")
    else:
        assert paragraphs[0].startswith(
            f"At k = 3, tie group 1 (the agents no agent is shown to beat) holds "
            f"{' and '.join(first)}"
        )
    assert "exact" not in paragraphs[0]
    assert paragraphs[1] == (
        "Ranked on the 24 tasks every agent ran; the 6 that some agent lacks are left out: "
        "24, 25, 26, 27, 28 and 29."
    )


def tally_frame(runs):
    summary = as_tally(runs, "model")
    codes, _ = summary.groups()
    return summary, codes


def test_one_agent_has_no_section_and_agents_sharing_no_task_are_told_why(runs):
    one = runs[runs["model"] == "ace"]
    assert board_section(*tally_frame(one), ["model"], [1, 2, 3], **OPTIONS) is None
    apart = runs.assign(task=runs["task"].astype(str) + "-" + runs["model"])
    board = board_section(*tally_frame(apart), ["model"], [1, 2, 3], **OPTIONS)
    assert board is not None
    assert board.tables == {}
    assert board.figures == ()
    assert (board.reading, board.shown) == (None, None)
    assert board.notes == (
        "No leaderboard: the 3 groups of model share no task, and a leaderboard ranks "
        "agents on the same tasks.",
    )


def test_two_agents_are_one_pair_told_in_a_sentence_with_no_plot(runs):
    two = runs[runs["model"] != "cat"]
    board = board_section(*tally_frame(two), ["model"], [1, 2, 3], **OPTIONS)
    assert board is not None
    assert board.figures == ()  # draws nothing
    pair = pk.compare(two[two["model"] == "ace"], two[two["model"] == "bee"], [3], **OPTIONS)
    difference, low, high = pair.loc[0, ["difference", "difference_low", "difference_high"]]
    assert difference > 0  # ace is ranked first, and the sentence takes ace less bee
    assert board.reading.startswith(
        f"At k = 3, ace's pass<sup>3</sup> exceeds bee's by {difference:.3f} "
        f"(95% CI [{low:.3f}, {high:.3f}]); the paired sign-flip test (p = "
    )
    # both ran every task three times: the sign-flip test's distribution is computed exactly
    assert ", computed exactly) " in board.reading
    assert len(board.pairs) == len(board.tables["pairwise"])


def test_the_pairs_on_the_page_are_the_tests_the_ranks_come_from(expected):
    board, pairs = expected
    assert pairs["metric"].unique().tolist() == ["pass_pow_k"]  # the ranked metric alone
    for k, rows in board.groupby("k"):
        tests = pairs[pairs["k"] == k]
        value = dict(zip(rows["model"], rows["pass_pow_k"], strict=True))
        beaten = dict.fromkeys(value, 0)  # how many agents each is shown worse than
        for a, b, p in tests[["a", "b", "p_adjusted"]].itertuples(index=False):
            if p <= 0.05:
                beaten[b if value[a] > value[b] else a] += 1
        assert rows["rank_low"].tolist() == [1 + beaten[model] for model in rows["model"]]
        assert set(tests["n_tasks"]) == set(rows["n_tasks"])


def hand_board(groups, told_apart):
    """A board at k = 2 of agents a, b, c, d... in rank order, and its tests, by hand.

    `groups` gives each agent's tie group; `told_apart` the pairs whose adjusted p is small.
    """
    names = "abcdefgh"[: len(groups)]
    board = pd.DataFrame(
        {
            "model": list(names),
            "k": 2,
            "rank": range(1, len(names) + 1),
            "tie_group": groups,
        }
    )
    board.attrs = {"metric": "pass_pow_k", "confidence_level": 0.95}
    pairs = pd.DataFrame(
        [
            {
                "a": a,
                "b": b,
                "metric": "pass_pow_k",
                "k": 2,
                "p_adjusted": 0.001 if (a, b) in told_apart else 0.5,
            }
            for i, a in enumerate(names)
            for b in names[i + 1 :]
        ]
    )
    return board, pairs


def test_the_reading_names_tie_group_1_when_its_agents_are_not_adjacent():
    # b is shown worse than a; c, a little below b, is told apart from neither: group 1 with a
    board, pairs = hand_board([1, 2, 1], {("a", "b")})
    assert reading(board, pairs, ["model"]) == (
        "At k = 2, tie group 1 (the agents no agent is shown to beat) holds a and c. By the "
        "paired sign-flip tests, Holm-adjusted over the pairs at the 95% level, b is shown "
        "worse than the best, a."
    )


def test_the_reading_says_who_is_shown_worse_than_another_agent_but_not_the_best():
    # a beats b and c; d is shown worse than b alone (group 3)
    board, pairs = hand_board([1, 2, 2, 3], {("a", "b"), ("a", "c"), ("b", "d")})
    assert reading(board, pairs, ["model"]) == (
        "At k = 2, a is alone in tie group 1 (the agents no agent is shown to beat). By the "
        "paired sign-flip tests, Holm-adjusted over the pairs at the 95% level, b and c are "
        "shown worse than the best, a; d is shown worse than another agent, not than a."
    )
    board, pairs = hand_board([1, 1, 1], set())
    assert reading(board, pairs, ["model"]) == (
        "At k = 2, the paired sign-flip tests, Holm-adjusted over the pairs at the 95% level, "
        "tell none of the 3 agents apart: all share tie group 1."
    )


def test_the_section_says_where_agents_have_different_runs_instead_of_warning(runs):
    # bee ran tasks 0 to 4 twice, not three times: its tests there are approximate
    short = runs[~((runs["model"] == "bee") & (runs["task"] < 5) & (runs["run"] == 2))]
    board = board_section(*tally_frame(short), ["model"], [1, 2, 3], **OPTIONS)  # warns nothing
    assert board is not None
    (note,) = [note for note in board.notes if "different runs for some agents" in note]
    assert note.startswith("5 of the 24 shared tasks have different runs")
    assert "approximate" in note
    assert note.endswith(".")
