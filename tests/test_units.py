"""The tally's fast paths against a brute-force count, on tables built to take each path.

A table in task order is split by comparing neighbouring rows; the first rows
of its runs of equal keys are hashed only when they neither increase nor are a
few distinct integers; a task that comes back in a later block, or a shuffled
table, gets a unit code per row. Every path must count what a plain Python
dict counts, row by row, and refuse what the others refuse with the same words.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import passk_lab as pk
from passk_lab._data import tally, units
from passk_lab._data.tally import as_tally
from passk_lab._data.units import find_units

FEW = settings(max_examples=50, deadline=None, derandomize=True)

LAYOUTS = ["increasing", "permuted", "revisited", "shuffled"]
ID_KINDS = [
    "int",
    "huge int",
    "uint64",
    "padded str",
    "str",
    "object",
    "python str",
    "arrow str",
    "category",
    "float",
    "datetime",
]


def ids(kind: str, numbers: list[int]) -> pd.Series:
    """Task ids of one kind for task numbers: padded text sorts as the numbers, plain text not."""
    if kind == "int":
        return pd.Series(numbers, dtype=np.int64)
    if kind == "huge int":  # too wide a range for a bincount
        return pd.Series([n * 10**12 - 5 * 10**17 for n in numbers], dtype=np.int64)
    if kind == "uint64":  # beyond int64
        return pd.Series([2**63 + 7 * n for n in numbers], dtype=np.uint64)
    if kind == "padded str":
        return pd.Series([f"task-{n:03d}" for n in numbers], dtype="str")
    text = [f"t{n}" for n in numbers]  # t10 sorts before t2
    if kind == "str":
        return pd.Series(text, dtype="str")
    if kind == "object":
        return pd.Series(text, dtype=object)
    if kind == "python str":
        return pd.Series(text, dtype=pd.StringDtype("python"))
    if kind == "arrow str":
        return pd.Series(text, dtype=pd.ArrowDtype(pa.string()))
    if kind == "category":  # categories in an order of their own: codes that do not increase
        return pd.Series(pd.Categorical(text, categories=sorted(set(text), reverse=True)))
    if kind == "float":
        return pd.Series([n / 2 - 1.5 for n in numbers], dtype=np.float64)
    assert kind == "datetime"
    return pd.Series(pd.Timestamp("2026-01-01") + pd.to_timedelta(numbers, unit="D"))


@st.composite
def runs_tables(draw, groups: bool = False, errors: bool = False):
    """Runs tables of every id kind and layout, with equal or unequal runs per task."""
    kind = draw(st.sampled_from(ID_KINDS))
    layout = draw(st.sampled_from(LAYOUTS))
    equal = draw(st.booleans())
    blocks = []
    for group in ["m1", "m0"] if groups else [None]:
        n_tasks = draw(st.integers(1, 12))
        width = draw(st.integers(1, 5))
        order = list(range(n_tasks))
        if layout == "permuted":
            order = draw(st.permutations(order))
        first, second = [], []  # a task's runs, in two blocks when the layout revisits tasks
        for task in order:
            count = width if equal else draw(st.integers(1, 6))
            runs = draw(st.lists(st.integers(0, 9), min_size=count, max_size=count, unique=True))
            if draw(st.booleans()):
                runs.sort()
            half = len(runs) // 2 if layout == "revisited" else len(runs)
            first += [(group, task, run) for run in runs[:half]]
            second += [(group, task, run) for run in runs[half:]]
        blocks += first + second
    frame = pd.DataFrame(blocks, columns=["model", "task", "run"])
    frame["passed"] = draw(st.lists(st.booleans(), min_size=len(frame), max_size=len(frame)))
    if errors:
        size = len(frame)
        frame["error"] = draw(
            st.lists(st.sampled_from([None, None, "ConnectionError"]), min_size=size, max_size=size)
        )
        frame["error_kind"] = draw(
            st.lists(
                st.sampled_from([None, "agent", "infrastructure"]), min_size=size, max_size=size
            )
        )
        frame["timed_out"] = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    if layout == "shuffled":
        frame = frame.iloc[list(draw(st.permutations(range(len(frame)))))]
    frame = frame.reset_index(drop=True)
    frame["task"] = ids(kind, frame["task"].tolist())
    if not groups:
        frame = frame.drop(columns="model")
    return frame, layout


def brute_tally(runs: pd.DataFrame, by: tuple[str, ...] = (), errors: str = "fail"):
    """Runs, passes and errored runs per (group..., task), counted row by row in a dict.

    A run errored when it has an error not of kind "agent", or timed out; an errored run is a
    failure, and under errors="exclude" it is not a run at all.
    """
    counts: dict[tuple, list[int]] = {}  # keeps the order of first appearance
    for row in runs.to_dict("records"):
        key = tuple(row[name] for name in (*by, "task"))
        errored = bool(row.get("timed_out", False)) or (
            pd.notna(row.get("error")) and row.get("error_kind") != "agent"
        )
        tally = counts.setdefault(key, [0, 0, 0])
        tally[0] += 1
        tally[1] += bool(row["passed"]) and not errored
        tally[2] += errored
    if errors == "exclude":
        for tally in counts.values():
            tally[0] -= tally[2]
    return counts


def assert_counts(got: pd.DataFrame, expected: dict[tuple, list[int]], by=()) -> None:
    keys = [*by, "task"]
    assert list(zip(*(got[name].tolist() for name in keys), strict=True)) == list(expected)
    assert got["n"].tolist() == [n for n, _, _ in expected.values()]
    assert got["c"].tolist() == [c for _, c, _ in expected.values()]
    if "n_errors" in got:
        assert got["n_errors"].tolist() == [e for _, _, e in expected.values()]


# --- every path counts what a dict counts ---------------------------------------------


@FEW
@given(runs_tables())
def test_every_id_kind_and_layout_counts_what_a_dict_counts(drawn):
    runs, layout = drawn
    got = pk.tally(runs)
    assert_counts(got, brute_tally(runs))
    assert got["task"].dtype == runs["task"].dtype
    if layout in ("increasing", "permuted"):  # blocks of rows: no code per row
        assert find_units(runs, ["task"]).codes is None


@FEW
@given(runs_tables(groups=True))
def test_groups_count_what_a_dict_counts(drawn):
    runs, layout = drawn
    assert_counts(pk.tally(runs, by="model"), brute_tally(runs, ("model",)), ("model",))
    if layout in ("increasing", "permuted"):
        assert find_units(runs, ["model", "task"]).codes is None


@FEW
@given(runs_tables(groups=True, errors=True), st.sampled_from(["fail", "exclude"]))
def test_errored_runs_count_what_a_dict_counts(drawn, errors):
    runs, _ = drawn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # runs marked passed that errored
        got = pk.tally(runs, by="model", errors=errors)
    assert_counts(got, brute_tally(runs, ("model",), errors), ("model",))


@FEW
@given(runs_tables(groups=True, errors=True), st.sampled_from([1, 2, 3, 7]))
def test_blocks_of_rows_count_what_one_pass_counts(drawn, block):
    runs, _ = drawn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # runs marked passed that errored
        whole = pk.tally(runs, by="model")
        with pytest.MonkeyPatch.context() as patch:  # rows compared a few at a time
            patch.setattr(units, "BLOCK", block)
            patch.setattr(tally, "BLOCK", block)
            pd.testing.assert_frame_equal(pk.tally(runs, by="model"), whole)


@pytest.mark.parametrize("block", [1, 2, 3, 4])
def test_a_repeated_run_is_found_across_blocks(block):
    runs = pd.DataFrame({"task": [0, 0, 0, 1, 1, 1, 1], "run": [0, 1, 2, 0, 1, 2, 2], "passed": 1})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(units, "BLOCK", block)
        with pytest.raises(ValueError, match=re.escape("run 2 of task=1 appears 2 times")):
            pk.tally(runs)
        assert_counts(pk.tally(runs.iloc[:6]), brute_tally(runs.iloc[:6]))


@pytest.mark.parametrize(
    ("layout", "contiguous"),
    [("increasing", True), ("permuted", True), ("revisited", False), ("shuffled", False)],
)
@pytest.mark.parametrize("kind", ID_KINDS)
def test_each_layout_takes_its_path(kind, layout, contiguous):
    numbers = {
        "increasing": [0, 0, 1, 1, 1, 2, 3, 3],
        "permuted": [2, 2, 0, 3, 3, 3, 1, 1],
        "revisited": [0, 0, 1, 1, 0, 2, 1, 2],
        "shuffled": [1, 0, 3, 1, 2, 0, 3, 2],
    }[layout]
    runs = pd.DataFrame({"task": ids(kind, numbers), "run": 0, "passed": [True, False] * 4})
    runs["run"] = runs.groupby("task", sort=False).cumcount()
    assert (find_units(runs, ["task"]).codes is None) == contiguous
    assert_counts(pk.tally(runs), brute_tally(runs))


@pytest.mark.parametrize("block", [1, 2, 1 << 18])
def test_text_in_chunks_counts_what_a_dict_counts(block):
    first = pd.DataFrame({"task": ["x", "x", "y"], "run": [0, 1, 0], "passed": [1, 0, 1]})
    second = pd.DataFrame({"task": ["y", "z", "z"], "run": [1, 0, 1], "passed": [1, 1, 0]})
    for parts in ([first, second], [second, first]):  # the second revisits y
        runs = pd.concat([part.astype({"task": "str"}) for part in parts], ignore_index=True)
        assert pa.array(runs["task"].array).num_chunks == 2
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(units, "BLOCK", block)
            assert_counts(pk.tally(runs), brute_tally(runs))


def test_many_runs_per_task_are_summed_past_255():
    rng = np.random.default_rng(5)
    sizes = [300, 3, 70_000, 1]  # sums in uint16, then uint32
    runs = pd.DataFrame(
        {
            "task": np.repeat(np.arange(4), sizes),
            "run": np.concatenate([np.arange(size) for size in sizes]),
            "passed": rng.random(sum(sizes)) < 0.6,
        }
    )
    assert_counts(pk.tally(runs), brute_tally(runs))


def test_a_table_of_one_run_per_task_is_counted_whatever_its_order():
    runs = pd.DataFrame(
        {"task": ["c", "a", "b", "a"], "run": [0, 0, 0, 1], "passed": [True, True, False, True]}
    )
    for table in (runs, runs.iloc[[1, 3, 2, 0]], runs.iloc[:3]):
        assert_counts(pk.tally(table), brute_tally(table))


def test_huge_run_numbers_of_a_shuffled_table_are_checked_by_sorting():
    runs = pd.DataFrame({"task": [1, 0, 1, 0], "run": [10**12, 3, 5, 10**12], "passed": True})
    assert_counts(pk.tally(runs), brute_tally(runs))


def test_the_run_column_keeps_its_own_integer_type():
    runs = pd.DataFrame({"task": [0, 0, 1], "run": [0, 1, 0], "passed": [True, False, True]})
    for dtype in (np.int8, np.uint8, np.int32, np.uint64, "Int64", np.float32):
        assert_counts(pk.tally(runs.astype({"run": dtype})), brute_tally(runs))


# --- the fast paths hash nothing ------------------------------------------------------


def refuse_hashing(*args, **kwargs):
    raise AssertionError("hashed keys that needed no hashing")


@pytest.mark.parametrize(
    "runs",
    [
        pd.DataFrame({"task": [3, 3, 5, 5, 9, 9], "run": [0, 1] * 3, "passed": True}),
        # integers out of order, but few: a bincount tells they are distinct
        pd.DataFrame({"task": [9, 9, 5, 5, 3, 3], "run": [0, 1] * 3, "passed": True}),
        pd.DataFrame(
            {
                "task": pd.Series(["a", "a", "b", "b", "c", "c"], dtype="str"),
                "run": [0, 1] * 3,
                "passed": [1, 0, 0, 0, 1, 1],
            }
        ),
        pd.DataFrame(
            {
                "model": pd.Categorical(["y"] * 4 + ["x"] * 4, categories=["y", "x"]),
                "task": [0, 0, 1, 1] * 2,
                "run": [0, 1] * 4,
                "passed": [True, False, True, True] * 2,
            }
        ),
    ],
)
def test_keys_in_order_are_not_hashed(runs, monkeypatch):
    by = ("model",) if "model" in runs else ()
    expected = brute_tally(runs, by)
    monkeypatch.setattr(pd, "factorize", refuse_hashing)
    assert_counts(as_tally(runs, by).to_frame(), expected, by)


def test_text_out_of_order_hashes_one_row_a_task():
    runs = pd.DataFrame(
        {"task": pd.Series(["b"] * 3 + ["a"] * 3, dtype="str"), "run": [0, 1, 2] * 2, "passed": 1}
    )
    hashed = []
    factorize = pd.factorize

    def counted(values, *args, **kwargs):
        hashed.append(len(values))
        return factorize(values, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pd, "factorize", counted)
        assert_counts(pk.tally(runs), brute_tally(runs))
    assert hashed == [2]


# --- the refusals are those of every path ---------------------------------------------

MISSING = (
    "task is missing in 2 row(s); every run needs a task: fill or drop those rows deliberately"
)


@pytest.mark.parametrize(
    "task",
    [
        pd.Series(["a", None, "b", None], dtype="str"),
        pd.Series(["a", None, "b", None], dtype=object),
        pd.Series(["a", pd.NA, "b", pd.NA], dtype=object),
        pd.Series(["a", None, "b", None], dtype=pd.StringDtype("python")),
        pd.Series(["a", None, "b", None], dtype="string"),
        pd.Series(["a", None, "b", None], dtype=pd.ArrowDtype(pa.string())),
        pd.Series(pd.Categorical(["a", None, "b", None])),
        pd.Series([1.0, np.nan, 2.0, np.nan]),
        pd.Series([1, None, 2, None], dtype="Int64"),
        pd.Series([pd.Timestamp("2026-01-01"), None, pd.Timestamp("2026-01-02"), None]),
    ],
)
@pytest.mark.parametrize("order", [[0, 1, 2, 3], [1, 3, 0, 2], [3, 2, 1, 0]])
def test_a_missing_task_is_refused_by_every_path(task, order):
    runs = pd.DataFrame({"task": task, "run": [0, 0, 1, 1], "passed": True}).iloc[order]
    with pytest.raises(ValueError, match=re.escape(MISSING)):
        pk.tally(runs)


def test_a_missing_group_is_named_before_a_missing_task():
    runs = pd.DataFrame(
        {
            "model": pd.Series(["m", None, "m"], dtype=object),
            "task": pd.Series(["a", "b", None], dtype="str"),
            "run": 0,
            "passed": True,
        }
    )
    with pytest.raises(ValueError, match=r"^model is missing in 1 row"):
        pk.tally(runs, by="model")


NUMBERS = {"a": 1, "b": 2, "e": 5, "g": 7}


@pytest.mark.parametrize(
    ("task", "run", "twice"),
    [
        (["a", "a", "b", "b"], [0, 1, 1, 1], ("b", 1)),  # in order
        (["b", "a", "b", "a"], [1, 0, 1, 2], ("b", 1)),  # shuffled
        (["a", "b", "a", "a"], [0, 0, 1, 0], ("a", 0)),  # revisited
        (["g", "g", "g", "e"], [2, 0, 2, 0], ("g", 2)),  # runs out of order
    ],
)
@pytest.mark.parametrize("dtype", ["str", object, "category", pd.StringDtype("python"), "int"])
def test_a_repeated_run_is_named_by_every_path(task, run, twice, dtype):
    name, repeated = twice
    if dtype == "int":
        task, name = [NUMBERS[value] for value in task], NUMBERS[name]
    runs = pd.DataFrame({"task": pd.Series(task, dtype=dtype), "run": run, "passed": True})
    message = f"run {repeated} of task={name!r} appears 2 times"
    with pytest.raises(ValueError, match=re.escape(message)):
        pk.tally(runs)


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (np.array([0, -1, 0, 1], dtype=np.int8), "run must be >= 0, got -1 at row 1"),
        (
            np.array([0, 2**63, 0, 1], dtype=np.uint64),
            f"run {2**63} at row 1 is too large for a run number",
        ),
        (np.array([0, 1e20, 0, 1]), "run 1e+20 at row 1 is too large for a run number"),
        (np.array([0, 2.0**63, 0, 1]), f"run {2.0**63} at row 1 is too large"),
        (np.array([0, 0.5, 0, 1], dtype=np.float32), "run must hold whole numbers"),
        (np.array([0, np.inf, 0, 1]), "run must hold whole numbers"),
        (pd.array([0, None, 0, 1], dtype="Int64"), "run is missing in 1 row"),
    ],
)
def test_bad_run_numbers_are_refused_naming_the_value(run, message):
    runs = pd.DataFrame({"task": [0, 0, 1, 1], "run": run, "passed": True})
    with pytest.raises(ValueError, match=re.escape(message)):
        pk.tally(runs)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float32, "Int64"])
def test_numeric_verdicts_are_ones_and_zeros_of_any_type(dtype):
    runs = pd.DataFrame({"task": [0, 0, 1, 1], "run": [0, 1, 0, 1], "passed": [1, 0, 1, 1]})
    assert pk.tally(runs.astype({"passed": dtype}))["c"].tolist() == [1, 2]
    with pytest.raises(ValueError, match="passed must be boolean"):
        pk.tally(runs.assign(passed=[1, 2, 0, 1]).astype({"passed": dtype}))


# --- outcome matrices -----------------------------------------------------------------


@pytest.mark.parametrize(
    "matrix",
    [
        np.random.default_rng(1).random((40, 16)) < 0.5,
        np.asfortranarray(np.random.default_rng(2).random((40, 7)) < 0.5),
        (np.random.default_rng(3).random((40, 30)) < 0.5)[:, ::3],
        np.random.default_rng(4).random((5, 300)) < 0.5,
        np.zeros((3, 0), dtype=bool),
    ],
)
def test_an_outcome_matrix_is_counted_row_by_row(matrix):
    got = pk.tally(matrix)
    assert got["n"].tolist() == [len(row) for row in matrix.tolist()]
    assert got["c"].tolist() == [sum(row) for row in matrix.tolist()]
