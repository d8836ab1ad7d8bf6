from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import passk_lab as pk
from passk_lab._data.tally import as_tally


@st.composite
def runs_tables(draw, groups=False, errors=False):
    """Random runs tables: unequal runs per task, gaps in run indices, rows in any order."""
    rows = []
    group_names = ["m1", "m2"] if groups else [None]
    for group in group_names:
        n_tasks = draw(st.integers(1, 5))
        for task in range(n_tasks):
            runs = draw(st.lists(st.integers(0, 7), min_size=1, max_size=6, unique=True))
            for run in runs:
                row = {"task": task, "run": run, "passed": draw(st.booleans())}
                if groups:
                    row["model"] = group
                if errors:
                    row["error"] = draw(st.sampled_from([None, None, "ValueError: boom"]))
                rows.append(row)
    frame = pd.DataFrame(rows)
    order = draw(st.permutations(range(len(frame))))
    return frame.iloc[list(order)].reset_index(drop=True)


def expected_tally(runs, by=()):
    """The tally the slow way: a pandas group-by in order of first appearance."""
    keys = [*by, "task"]
    failed = runs["error"].notna() if "error" in runs else False
    grouped = runs.assign(ok=runs["passed"] & ~failed).groupby(keys, sort=False)
    return grouped.agg(n=("run", "size"), c=("ok", "sum")).reset_index()


# --- tally ----------------------------------------------------------------------------


@settings(max_examples=75, deadline=None)
@given(runs_tables())
def test_tally_counts_runs_and_passes_like_a_group_by(runs):
    pd.testing.assert_frame_equal(pk.tally(runs), expected_tally(runs), check_dtype=False)


@settings(max_examples=50, deadline=None)
@given(runs_tables(groups=True))
def test_tally_counts_within_groups(runs):
    got = pk.tally(runs, by="model")
    assert list(got.columns) == ["model", "task", "n", "c"]
    pd.testing.assert_frame_equal(got, expected_tally(runs, ["model"]), check_dtype=False)


def test_tally_of_sorted_and_shuffled_tables_agree():
    rng = np.random.default_rng(1)
    runs = pk.simulate_coin(p=0.6, tasks=300, k=7, seed=3)
    runs["task"] = rng.permutation(300)[runs["task"]]  # task ids not in order
    shuffled = runs.sample(frac=1, random_state=2)
    by_task = pk.tally(runs).set_index("task").sort_index()
    pd.testing.assert_frame_equal(pk.tally(shuffled).set_index("task").sort_index(), by_task)
    assert (by_task["n"] == 7).all()
    assert by_task["c"].sum() == runs["passed"].sum()


def test_tally_accepts_string_categorical_and_numpy_ids():
    runs = pk.simulate_coin(p=0.5, tasks=4, k=3, seed=9)
    base = pk.tally(runs)
    for ids in (
        runs["task"].map("task-{}".format),
        runs["task"].astype("category"),
        runs["task"].astype(np.uint16),
        runs["task"].astype(float) / 2,
    ):
        got = pk.tally(runs.assign(task=ids))
        np.testing.assert_array_equal(got["n"], base["n"])
        np.testing.assert_array_equal(got["c"], base["c"])
        assert got["task"].tolist() == pd.unique(ids).tolist()


def test_a_reward_passes_at_the_threshold_with_tau_bench_tolerance():
    runs = pd.DataFrame({"task": 0, "run": range(5), "reward": [1.0, 1 - 1e-7, 1 - 1e-5, 0.5, 0.0]})
    assert pk.tally(runs)["c"].item() == 2
    assert pk.tally(runs, threshold=0.5)["c"].item() == 4
    np.testing.assert_array_equal(pk.passed_from_reward([0.79, 0.8], 0.8), [False, True])


def test_passed_as_zero_one_integers_and_nullable_booleans():
    runs = pd.DataFrame({"task": [0, 0, 1], "run": [0, 1, 0], "passed": [1, 0, 1]})
    assert pk.tally(runs)["c"].tolist() == [1, 1]
    nullable = runs.assign(passed=runs["passed"].astype("boolean"))
    assert pk.tally(nullable)["c"].tolist() == [1, 1]


def test_errored_and_timed_out_runs_are_failures_or_left_out():
    runs = pd.DataFrame(
        {
            "task": ["a"] * 4 + ["b"] * 4,
            "run": [0, 1, 2, 3] * 2,
            "passed": [True, False, False, True, True, True, False, False],
            "error": [None, "TimeoutError: slow", None, None, None, None, "KeyError: x", None],
            "timed_out": [False, True, False, False, False, False, False, True],
        }
    )
    fail = pk.tally(runs)
    assert fail[["n", "c", "n_errors"]].to_numpy().tolist() == [[4, 2, 1], [4, 2, 2]]
    exclude = pk.tally(runs, errors="exclude")
    assert exclude[["n", "c", "n_errors"]].to_numpy().tolist() == [[3, 2, 1], [2, 2, 2]]


def test_a_run_marked_passed_that_errored_is_a_failure_with_a_warning():
    runs = pd.DataFrame({"task": 0, "run": [0, 1], "passed": True, "error": [None, "E: x"]})
    with pytest.warns(UserWarning, match="1 run\\(s\\) are marked passed but also errored"):
        assert pk.tally(runs)["c"].item() == 1


def test_the_harness_runs_table_is_a_runs_table():
    def broken():
        raise RuntimeError("no")

    tasks = [pk.Task(run=lambda: True), pk.Task(run=broken)]
    # The agent's own exception is a failed run under both policies ...
    runs = pk.evaluate(tasks, k=3).runs
    assert pk.tally(runs).to_numpy().tolist() == [[0, 3, 3, 0], [1, 3, 0, 0]]
    assert pk.tally(runs, errors="exclude").equals(pk.tally(runs))
    # ... while an exception named as infrastructure is an error the exclude policy leaves out.
    runs = pk.evaluate(tasks, k=3, infrastructure=RuntimeError, retries=0).runs
    assert pk.tally(runs).to_numpy().tolist() == [[0, 3, 3, 0], [1, 3, 0, 3]]
    assert pk.tally(runs, errors="exclude").to_numpy().tolist() == [[0, 3, 3, 0], [1, 0, 0, 3]]


# --- refusals -------------------------------------------------------------------------

GOOD = pd.DataFrame({"task": [0, 0, 1, 1], "run": [0, 1, 0, 1], "passed": [True] * 4})


@pytest.mark.parametrize(
    ("runs", "by", "message"),
    [
        (GOOD.drop(columns="task"), None, "runs has no task column (its columns are "),
        (GOOD.drop(columns="passed"), None, "runs has no passed or reward column (its columns"),
        (GOOD, "model", "runs has no column 'model', named in by"),
        (GOOD.iloc[:0], None, "runs is empty"),
        (GOOD.assign(run=[0, 0, 0, 1]), None, "run 0 of task=0 appears 2 times"),
        (GOOD.assign(run=[1, 0, 1, 1]), None, "run 1 of task=1 appears 2 times"),
        (GOOD.assign(run=[0, 1, 0, 0]).iloc[::-1], None, "run 0 of task=1 appears 2 times"),
        (GOOD.assign(run=[0, -1, 0, 1]), None, "run must be >= 0, got -1 at row 1"),
        (GOOD.assign(run=[0, 0.5, 0, 1]), None, "run must hold whole numbers"),
        (GOOD.assign(run=["0", "1", "0", "1"]), None, "run must hold integers"),
        (GOOD.assign(run=[0, None, 0, 1]), None, "run is missing in 1 row"),
        (GOOD.assign(passed=["yes", "no", "yes", "no"]), None, "passed must be boolean"),
        (GOOD.assign(passed=[1, 2, 0, 1]), None, "passed must be boolean"),
        (GOOD.assign(passed=[1.0, np.nan, 0, 1]), None, "passed is missing in 1 run"),
        (
            GOOD.assign(passed=pd.array([True, None, True, True], dtype="boolean")),
            None,
            "passed is missing",
        ),
        (GOOD.drop(columns="passed").assign(reward=[1, np.nan, 0, 1]), None, "reward is missing"),
        (GOOD.drop(columns="passed").assign(reward=["a"] * 4), None, "reward must hold numbers"),
        (GOOD.assign(task=[0, 0, None, None]), None, "task is missing in 2 row"),
        (GOOD.assign(timed_out=[0, 1, 0, 0]), None, "timed_out must be boolean"),
        (GOOD, "task", "by='task' is a column of every runs table"),
    ],
)
def test_bad_runs_are_refused_with_a_message_that_names_the_fix(runs, by, message):
    with pytest.raises(ValueError, match=message.replace("(", "\\(").replace(")", "\\)")):
        pk.tally(runs, by=by)


def test_duplicates_are_runs_of_the_same_task_in_the_same_group_only():
    runs = pd.concat([GOOD.assign(model="a"), GOOD.assign(model="b")], ignore_index=True)
    assert len(pk.tally(runs, by="model")) == 4
    with pytest.raises(ValueError, match="run 0 of task=0 appears 2 times"):
        pk.tally(runs)
    with pytest.raises(ValueError, match="run 1 of model='b', task=0 appears 2 times"):
        pk.tally(pd.concat([runs, runs.iloc[[5]]]), by="model")


def test_duplicates_with_huge_run_indices_are_found_too():
    runs = GOOD.assign(run=[10**12, 3, 10**12, 10**12])
    with pytest.raises(ValueError, match=f"run {10**12} of task=1 appears 2 times"):
        pk.tally(runs)


def test_other_refusals():
    with pytest.raises(TypeError, match="runs must be a pandas DataFrame"):
        pk.tally([1, 2, 3])
    with pytest.raises(ValueError, match="errors must be 'fail'"):
        pk.tally(GOOD, errors="ignore")
    with pytest.raises(TypeError, match="by must name columns with strings"):
        pk.tally(GOOD, by=[1])
    with pytest.raises(ValueError, match="c=5 passes of n=4 runs"):
        as_tally(pd.DataFrame({"task": [0], "n": [4], "c": [5]}))
    with pytest.raises(ValueError, match="tally has task 0 more than once"):
        as_tally(pd.DataFrame({"task": [0, 0], "n": [4, 4], "c": [1, 2]}))
    with pytest.raises(ValueError, match="2-D bool"):
        pk.tally(np.zeros((3, 2)))


# --- outcome matrix -------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(runs_tables(groups=True))
def test_outcome_matrix_round_trips_to_the_same_runs(runs):
    matrix = pk.outcome_matrix(runs, by="model")
    assert all(dtype == "boolean" for dtype in matrix.dtypes)
    assert int(matrix.notna().sum().sum()) == len(runs)
    back = pk.runs_from_matrix(matrix)
    assert list(back.columns) == ["model", "task", "run", "passed"]
    ordered = runs.sort_values(["model", "task", "run"]).reset_index(drop=True)
    resorted = back.sort_values(["model", "task", "run"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(resorted, ordered[back.columns.tolist()])
    pd.testing.assert_frame_equal(
        pk.tally(matrix, by="model"), pk.tally(runs, by="model"), check_dtype=False
    )


def test_outcome_matrix_keeps_missing_runs_missing():
    runs = pd.DataFrame({"task": ["x", "x", "y"], "run": [0, 2, 1], "passed": [True, False, True]})
    matrix = pk.outcome_matrix(runs)
    assert matrix.columns.tolist() == [0, 1, 2]
    assert matrix.loc["x"].tolist() == [True, pd.NA, False]
    assert matrix.loc["y"].tolist() == [pd.NA, True, pd.NA]
    assert pk.tally(matrix)[["n", "c"]].to_numpy().tolist() == [[2, 1], [1, 1]]


def test_outcome_matrix_states_follow_the_error_rule_of_the_tally():
    runs = pd.DataFrame(
        {
            "task": ["a", "a", "a", "a", "b"],
            "run": [0, 1, 2, 3, 0],
            "passed": [True, False, False, False, True],
            "error": [None, "KeyError: 'x'", "ConnectionError", "TimeoutError", None],
            "error_kind": pd.Categorical([None, "agent", "infrastructure", "timeout", None]),
            "timed_out": [False, False, False, True, False],
        }
    )
    states = pk.outcome_matrix(runs, states=True)
    assert states.loc["a"].tolist() == ["passed", "failed", "errored", "timed out"]
    assert states.loc["b"].iloc[0] == "passed"
    assert states.loc["b"].iloc[1:].isna().all()
    assert list(states[0].cat.categories) == list(pk.outcomes.RUN_STATES)
    # the runs the states call errored and timed out are the ones errors="exclude" leaves out
    kept = pk.tally(runs, errors="exclude").set_index("task")["n"]
    assert kept.to_dict() == {"a": 2, "b": 1}


def test_a_plain_bool_array_is_an_outcome_matrix():
    matrix = np.array([[True, True, False], [False, False, False]])
    assert pk.tally(matrix).to_numpy().tolist() == [[0, 3, 2], [1, 3, 0]]


# --- per-run view ---------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(runs_tables(groups=True))
def test_per_run_counts_pass_rates_and_flips_like_a_pivot(runs):
    got = pk.per_run(runs, by="model")
    for (model, run), row in got.set_index(["model", "run"]).iterrows():
        these = runs[(runs["model"] == model) & (runs["run"] == run)]
        assert row["n_tasks"] == len(these)
        assert row["pass_at_1"] == pytest.approx(these["passed"].mean())
        flips, compared = 0, 0
        for _, task in runs[runs["model"] == model].groupby("task"):
            outcomes = task.sort_values("run").set_index("run")["passed"]
            if run in outcomes.index and outcomes.index[0] < run:
                compared += 1
                position = outcomes.index.get_loc(run)
                flips += int(outcomes.iloc[position] != outcomes.iloc[position - 1])
        if compared == 0:
            assert row["n_flipped"] is pd.NA
        else:
            assert row["n_flipped"] == flips


def test_task_consistency_counts_tasks_with_two_or_more_runs():
    runs = pd.DataFrame(
        {"task": [0, 0, 1, 1, 2, 2, 3], "run": [0, 1] * 3 + [0], "passed": [1, 1, 0, 0, 1, 0, 1]}
    )
    got = pk.task_consistency(runs).iloc[0]
    assert got[["n_tasks", "always_pass", "always_fail", "mixed"]].tolist() == [3, 1, 1, 1]


# --- compact storage ------------------------------------------------------------------


ALL_EXCLUDED = pd.DataFrame(
    {
        "task": [0, 0, 1, 0, 0, 1],
        "run": [0, 1, 0, 0, 1, 0],
        "passed": [False, False, False, True, False, True],
        "model": ["m1", "m1", "m1", "m2", "m2", "m2"],
        "error": ["E: boom", "E: boom", "E: boom", None, None, None],
    }
)
"""Group m1 has every run errored: under errors="exclude" none of its runs is left."""


@settings(max_examples=40, deadline=None)
@given(runs_tables(groups=True, errors=True), st.sampled_from(["fail", "exclude"]))
@example(ALL_EXCLUDED, "exclude")  # a group with no run left is drawn every time, not by luck
def test_compact_runs_keep_every_tally_and_estimate(runs, errors):
    runs.loc[runs["error"].notna(), "passed"] = False  # an errored run did not pass
    compact = pk.compact_runs(runs)
    assert compact["task"].dtype == "category"
    assert compact["model"].dtype == "category"
    assert compact["run"].dtype == np.int8
    counted = pk.tally(compact, by="model", errors=errors)
    expected = pk.tally(runs, by="model", errors=errors)
    pd.testing.assert_frame_equal(
        counted.astype({"task": np.int64, "model": runs["model"].dtype}), expected
    )
    curves, warned = [], []
    for table in (compact, runs):  # a group whose every run is excluded warns of no estimate
        # the warnings are the package's own: a floating-point 0/0 would raise here
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="raise"):
            warnings.simplefilter("always")
            curves.append(pk.reliability_curve(table, by="model", errors=errors, rng=0))
        warned.append([(w.category, str(w.message)) for w in caught])
    pd.testing.assert_frame_equal(curves[0].drop(columns="model"), curves[1].drop(columns="model"))
    assert warned[0] == warned[1]


def test_a_group_with_every_run_excluded_has_no_estimate_and_says_so():
    counted = pk.tally(ALL_EXCLUDED, by="model", errors="exclude")
    # its tasks stay in the tally with n = 0, their errored runs counted
    assert counted[["n", "c", "n_errors"]].to_numpy().tolist()[:2] == [[0, 0, 2], [0, 0, 1]]
    with np.errstate(all="raise"), pytest.warns(RuntimeWarning) as caught:
        curve = pk.reliability_curve(ALL_EXCLUDED, by="model", errors="exclude", rng=0)
    messages = [str(warning.message) for warning in caught]
    assert any(
        m.startswith("no estimate for k = 1 in group model='m1': every run was left out (3 ")
        for m in messages
    )
    first = curve.set_index(["model", "k"]).loc[("m1", 1)]
    assert np.isnan(first["pass_pow_k"])
    assert np.isnan(first["pass_at_k"])
    assert first["n_tasks_excluded"] == 2
    assert first["n_runs_excluded"] == 3
    # the other group is measured as if it were alone: task 0 passed 1 of 2 runs, task 1 1 of 1
    alone = ALL_EXCLUDED[ALL_EXCLUDED["model"] == "m2"]
    with pytest.warns(RuntimeWarning, match="no estimate for k = 1 in group model='m1'"):
        at_1 = pk.pass_at_1(ALL_EXCLUDED, by="model", errors="exclude")
    assert np.isnan(at_1["m1"])
    assert at_1["m2"] == pytest.approx((1 / 2 + 1 / 1) / 2)
    with pytest.warns(RuntimeWarning):  # of its intervals and the tasks k = 2 counts
        pd.testing.assert_frame_equal(
            curve[curve["model"] == "m2"].reset_index(drop=True),
            pk.reliability_curve(alone, by="model", errors="exclude", rng=0),
        )
    # counted as failures instead, the group is measured: it never passes
    assert pk.pass_at_1(ALL_EXCLUDED, by="model")["m1"] == 0.0


def test_compact_runs_shrink_a_table_of_text_ids_and_keep_its_values():
    runs = pk.simulate_coin(tasks=500, k=8)
    runs = runs.assign(
        task=runs["task"].map("task-{:04d}".format).astype(object),
        error=np.where(runs["passed"], None, "AssertionError: wrong answer"),
        reward=runs["passed"].astype(float),
    )
    compact = pk.compact_runs(runs)
    before, after = runs.memory_usage(deep=True), compact.memory_usage(deep=True)
    assert (after[["task", "run", "error"]] < before[["task", "run", "error"]]).all()
    assert compact["reward"].dtype == np.float64  # floats are never rounded
    pd.testing.assert_frame_equal(compact.astype(runs.dtypes.to_dict()), runs)


def test_compact_runs_refuse_what_tally_refuses():
    runs = pd.DataFrame({"task": ["a", "a"], "run": [0, -1], "passed": [True, False]})
    with pytest.raises(ValueError, match="run must be >= 0"):
        pk.compact_runs(runs)
    with pytest.raises(ValueError, match="no passed or reward column"):
        pk.compact_runs(runs.drop(columns="passed"))


@pytest.mark.parametrize("width", [0, 1, 5, 8, 13, 16, 64, 31 * 8, 31 * 8 + 3, 32 * 8, 300 * 8])
def test_matrix_passes_are_counted_row_by_row(width):
    # eight cells to a word, 31 words to a sum, rows a block at a time: every path against
    # a count in Python; a matrix whose rows are not contiguous, and one with no rows
    rng = np.random.default_rng(width)
    rows = 3 if width > 1000 else 70_000
    matrix = rng.random((rows, width)) < rng.random((rows, 1))
    matrix[0] = True
    expected = [sum(row) for row in matrix.tolist()]
    assert pk.tally(matrix)["c"].tolist() == expected
    assert pk.tally(np.asfortranarray(matrix))["c"].tolist() == expected
    assert pk.tally(matrix[:, ::-1])["c"].tolist() == expected
    assert pk.tally(matrix[:0])["c"].tolist() == []


def test_bool_cells_viewed_from_other_bytes_count_once():
    # np.frombuffer or .view(bool) may give True bytes other than 1: each counts as one pass
    raw = np.array([[2, 1, 1, 1, 1, 1, 1, 1, 255], [0, 0, 7, 0, 0, 0, 0, 0, 0]], dtype=np.uint8)
    matrix = raw.view(np.bool_)
    assert pk.tally(matrix)["c"].tolist() == [9, 1]
    runs = pd.DataFrame({"task": np.repeat([0, 1], 9), "run": np.tile(range(9), 2)})
    runs["passed"] = raw.reshape(-1).view(np.bool_)
    assert pk.tally(runs)["c"].tolist() == [9, 1]


# --- which table is which -------------------------------------------------------------


def test_a_runs_table_with_columns_named_n_and_c_is_a_runs_table():
    # token counts named n and c do not make a runs table a tally: it has run and reward
    runs = pd.DataFrame(
        {
            "task": ["a", "a", "a", "b", "b", "b"],
            "run": [0, 1, 2, 0, 1, 2],
            "reward": [1.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            "n": [812, 640, 975, 1203, 388, 451],
            "c": [3, 2, 9, 4, 1, 7],
        }
    )
    assert pk.pass_at_1(runs) == pytest.approx(2 / 6)
    assert pk.tally(runs)[["n", "c"]].to_numpy().tolist() == [[3, 1], [3, 1]]


@pytest.mark.parametrize("mark", ["run", "passed", "reward"])
def test_any_column_of_a_runs_table_makes_it_one(mark):
    table = pd.DataFrame({"task": [0], "n": [4], "c": [1], mark: [0]})
    with pytest.raises(ValueError, match=r"runs has|which makes it a runs table"):
        as_tally(table)


@pytest.mark.parametrize("mark", ["passed", "reward"])
def test_a_tally_with_a_column_of_a_runs_table_says_which_and_how_to_use_it(mark):
    counted = pk.tally(pk.simulate_coin(seed=42))
    table = counted.assign(**{mark: 0})
    message = f"has n and c, as a tally has, and also {mark}, which makes it a runs table"
    with pytest.raises(ValueError, match=message):
        pk.tally(table)
    # the fix the message gives: drop the column, and the table is the tally it was
    pd.testing.assert_frame_equal(pk.tally(table.drop(columns=mark)), counted)


def test_ids_of_text_and_integers_together_are_refused_wherever_they_meet():
    # a CSV file's ids are text, a JSON file's integers stay integers: joined, "1" and 1 would
    # be two tasks, each with half the runs
    as_text = pd.DataFrame({"task": ["1", "1", "2"], "run": [0, 1, 0], "passed": True})
    as_int = pd.DataFrame({"task": [1, 2], "run": [2, 1], "passed": False})
    joined = pd.concat([as_text, as_int], ignore_index=True)
    fix = r"write them one way, e\.g\. runs\['task'\] = runs\['task'\]\.astype\(str\)"
    with pytest.raises(ValueError, match=r"task holds text and other values: '1' \(str\) and 1 "):
        pk.tally(joined)
    with pytest.raises(ValueError, match=fix):
        pk.pass_pow_k(joined, 2)
    # the fix: both sides as text, and every task has its three runs
    fixed = joined.assign(task=joined["task"].astype(str))
    assert pk.tally(fixed)[["task", "n"]].to_numpy().tolist() == [["1", 3], ["2", 2]]
    # the same for a group column, an outcome matrix's index and a tally
    grouped = as_text.assign(model=["a", "a", 1])
    with pytest.raises(ValueError, match="model holds text and other values"):
        pk.tally(grouped, by="model")
    matrix = pk.outcome_matrix(pk.simulate_coin(tasks=3, k=2, seed=1))
    matrix.index = pd.Index(["1", 1, 2], name="task")
    with pytest.raises(ValueError, match="task holds text and other values"):
        pk.tally(matrix)
    counted = pd.DataFrame({"task": ["1", 1], "n": [2, 2], "c": [1, 1]})
    with pytest.raises(ValueError, match="task holds text and other values"):
        pk.tally(counted)


def test_a_table_neither_runs_nor_tally_is_refused_saying_what_each_needs():
    table = pd.DataFrame({"task": ["a", "b"], "notes": ["x", "y"]})
    with pytest.raises(ValueError, match="neither a runs table nor a tally") as refused:
        pk.tally(table)
    message = str(refused.value)
    assert "['task', 'notes']" in message
    assert "run and passed (or reward)" in message
    assert "n and c" in message
    assert "index whose last level is named task" in message


def test_a_runs_table_indexed_by_task_is_told_to_reset_the_index():
    runs = GOOD.set_index("task")
    with pytest.raises(ValueError, match=r"task as an index level.*reset_index\(\)"):
        pk.tally(runs)


# --- outcome matrix labels ------------------------------------------------------------


def test_an_outcome_matrix_with_a_task_twice_is_refused():
    matrix = pk.outcome_matrix(GOOD.assign(task=["x", "x", "y", "y"]))
    doubled = pd.concat([matrix, matrix])
    for view in (pk.tally, pk.runs_from_matrix):
        with pytest.raises(ValueError, match="task='x' more than once") as refused:
            view(doubled)
        assert "by=" in str(refused.value)
    grouped = pk.outcome_matrix(GOOD.assign(model="m"), by="model")
    with pytest.raises(ValueError, match="model='m', task=0 more than once"):
        pk.tally(pd.concat([grouped, grouped]), by="model")
    # the same task in two groups is two tasks
    two = pd.concat([GOOD.assign(model="m"), GOOD.assign(model="w")])
    assert len(pk.tally(pk.outcome_matrix(two, by="model"), by="model")) == 4


def test_an_outcome_matrix_with_a_run_twice_is_refused():
    matrix = pk.outcome_matrix(GOOD)
    doubled = pd.concat([matrix, matrix], axis=1)
    for view in (pk.tally, pk.runs_from_matrix):
        with pytest.raises(ValueError, match="run 0 in more than one column"):
            view(doubled)


# --- repeated runs --------------------------------------------------------------------


def test_the_advice_for_a_repeated_run_keeps_two_evaluations_apart():
    first = GOOD.assign(model="m")
    with pytest.raises(ValueError, match="run 0 of model='m', task=0 appears 2 times") as refused:
        pk.tally(pd.concat([first, first]), by="model")
    message = str(refused.value)
    assert "runs['evaluation']" in message
    assert "by=['model', 'evaluation']" in message
    assert "drop_duplicates()" in message
    assert "runs.groupby(['model', 'task']).cumcount()" in message
    # the advice works: two evaluations told apart are counted apart, each with its own runs
    both = pd.concat([first.assign(evaluation=1), first.assign(evaluation=2)])
    counted = pk.tally(both, by=["model", "evaluation"])
    assert counted["n"].tolist() == [2, 2, 2, 2]


def test_the_advice_for_numbering_runs_names_the_evaluations_too():
    with pytest.raises(ValueError, match="run is missing in 1 row") as refused:
        pk.tally(GOOD.assign(run=[0, None, 0, 1]))
    assert "every column that tells evaluations apart" in str(refused.value)


# --- nested values --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "values", "by"),
    [
        ("task", [["a"], ["a"], ["b"], ["b"]], None),
        ("task", ["a", "a", "b", {"id": "b"}], None),
        ("task", [["a"], ["b"], ["a"], ["b"]], None),
        ("model", ["m", "m", "m", ["w"]], "model"),
    ],
)
def test_lists_and_dicts_as_ids_are_refused_naming_the_column_and_row(column, values, by):
    runs = GOOD.assign(**{column: values})
    first = next(row for row, value in enumerate(values) if not isinstance(value, str))
    for view in (pk.tally, pk.outcome_matrix):
        with pytest.raises(ValueError, match=f"{column} holds a") as refused:
            view(runs, by=by)
        message = str(refused.value)
        assert f"row {first}" in message
        assert f"runs[{column!r}] = runs[{column!r}].map(json.dumps)" in message
    with pytest.raises(ValueError, match=f"{column} holds a"):
        pk.compact_runs(runs)


def test_lists_as_run_numbers_are_refused():
    with pytest.raises(ValueError, match="run must hold integers"):
        pk.tally(GOOD.assign(run=[[0], [1], [0], [1]]))


def test_lists_in_a_tally_are_refused_too():
    with pytest.raises(ValueError, match="task holds a list at row 1"):
        pk.tally(pd.DataFrame({"task": ["a", ["b"]], "n": [2, 2], "c": [1, 1]}))


GROUPED = pk.simulate_coin(p=0.7, tasks=6, k=3, seed=3).assign(model=["a", "b"] * 9)


@pytest.mark.parametrize("view", [pk.tally, pk.outcome_matrix, pk.per_run, pk.task_consistency])
def test_a_positional_by_of_the_last_release_works_with_a_warning(view):
    with pytest.warns(pk.PasskDeprecationWarning, match=r"write [a-z_]+\(\.\.\., by='model'\)"):
        old = view(GROUPED, "model")
    pd.testing.assert_frame_equal(old, view(GROUPED, by="model"))
