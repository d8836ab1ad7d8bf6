from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import passk_lab as pk
from passk_lab._errors import keywords_of
from passk_lab.io import _json_lines, _table_files, read_runs


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".ndjson", ".parquet", ".pq"])
def test_read_runs_reads_back_what_pandas_wrote(tmp_path, suffix):
    runs = pk.simulate_coin(tasks=6, k=3).assign(
        task=lambda frame: frame["task"].map("t{}".format),
        passed=lambda frame: frame["passed"] & (frame.index != 1),
        error=[None, "KeyError: 'x'"] + [None] * 16,
    )
    path = tmp_path / f"runs{suffix}"
    if suffix == ".csv":
        runs.to_csv(path, index=False)
    elif suffix in (".jsonl", ".ndjson"):
        runs.to_json(path, orient="records", lines=True)
    else:
        runs.to_parquet(path)
    back = read_runs(path)
    pd.testing.assert_frame_equal(pk.tally(back), pk.tally(runs))
    assert back["error"].notna().sum() == 1


def test_read_runs_refuses_unknown_formats_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match=r"cannot tell the format of runs\.xlsx"):
        read_runs(tmp_path / "runs.xlsx")
    with pytest.raises(FileNotFoundError, match="no such runs file"):
        read_runs(tmp_path / "runs.csv")


# --- column mapping and derived runs -------------------------------------------------------


def test_columns_with_other_names_are_mapped(tmp_path):
    path = tmp_path / "results.csv"
    pd.DataFrame(
        {"problem": ["a", "a", "b", "b"], "attempt": [1, 0, 0, 1], "ok": [True, True, False, True]}
    ).to_csv(path, index=False)
    runs = read_runs(path, task="problem", run="attempt", passed="ok")
    assert runs.columns.tolist() == ["task", "run", "passed"]
    assert runs["run"].tolist() == [1, 0, 0, 1]
    assert pk.pass_pow_k(runs, 2) == 0.5


def test_a_reward_column_and_threshold_decide_the_verdicts(tmp_path):
    path = tmp_path / "scores.jsonl"
    scores = [0.9, 0.6, 0.75, 0.7 + 0.05 - 1e-9, 1.0, 0.0]
    pd.DataFrame({"task": [0, 0, 1, 1, 2, 2], "score": scores}).to_json(
        path, orient="records", lines=True
    )
    runs = read_runs(path, reward="score", threshold=0.75)
    np.testing.assert_array_equal(runs["passed"], pk.passed_from_reward(scores, 0.75))
    assert runs["passed"].tolist() == [True, False, True, True, True, False]
    assert runs["reward"].tolist() == scores
    assert runs["run"].tolist() == [0, 1, 0, 1, 0, 1]


def test_a_reward_without_a_threshold_passes_at_1(tmp_path):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"task": [0, 0], "run": [0, 1], "reward": [1.0, 0.5]}).to_csv(path, index=False)
    assert read_runs(path)["passed"].tolist() == [True, False]


def test_runs_are_numbered_in_file_order_within_each_task_and_group(tmp_path):
    path = tmp_path / "runs.csv"
    frame = pd.DataFrame(
        {
            "model": ["a", "b", "a", "a", "b", "b"],
            "task": ["x", "x", "y", "x", "x", "y"],
            "passed": [True, False, True, False, True, True],
        }
    )
    frame.to_csv(path, index=False)
    assert read_runs(path, by="model")["run"].tolist() == [0, 0, 0, 1, 1, 0]
    assert read_runs(path)["run"].tolist() == [0, 1, 0, 2, 3, 1]
    expected = frame.groupby(["model", "task"], sort=False).cumcount().tolist()
    assert read_runs(path, by=["model"])["run"].tolist() == expected


def test_naming_reward_replaces_the_files_own_verdicts(tmp_path):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"task": [0, 0], "passed": [True, True], "reward": [1.0, 0.2]}).to_csv(
        path, index=False
    )
    assert read_runs(path)["passed"].tolist() == [True, True]
    assert read_runs(path, reward="reward")["passed"].tolist() == [True, False]


# --- refusals -----------------------------------------------------------------------------


def table(tmp_path, name="runs.csv", **columns):
    path = tmp_path / name
    frame = pd.DataFrame(columns)
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    return path


@pytest.mark.parametrize(
    ("columns", "options", "message"),
    [
        (
            {"id": [0], "passed": [True]},
            {},
            r"runs\.csv has no task column .*by their names, map yours: task='id'$",
        ),
        ({"task": [0], "passed": [True]}, {"task": "problem"}, r"no column 'problem' \(given as"),
        (
            {"task": [0], "problem": [1], "passed": [True]},
            {"task": "problem"},
            r"has both a 'task' column and 'problem'",
        ),
        (
            {"task": [0], "score": [1.0]},
            {},
            r"runs\.csv has no passed or reward column .*map yours: reward='score'$",
        ),
        (
            {"task": [0], "ok": [True], "score": [1.0]},
            {"passed": "ok", "reward": "score"},
            r"give passed= .* or reward= .*, not both",
        ),
        (
            {"task": [0], "passed": [True]},
            {"threshold": 0.5},
            r"runs\.csv: threshold applies to a reward",
        ),
        ({"task": [0], "passed": [True]}, {"by": "model"}, r"no column 'model', named in by"),
        (
            {"Task": [0], "verdict": [True]},
            {"by": "modle"},
            r"has no task column, no passed or reward column and no column 'modle', named in by "
            r"\(its columns are \['Task', 'verdict'\]\); by their names, map yours: task='Task', "
            r"passed='verdict'; and name in by= columns the table has$",
        ),
    ],
)
def test_missing_or_conflicting_columns_are_refused(tmp_path, columns, options, message):
    with pytest.raises(ValueError, match=message):
        read_runs(table(tmp_path, **columns), **options)


@pytest.mark.parametrize(
    ("columns", "options", "keywords"),
    [
        ({"id": [0], "passed": [True]}, {}, ("task",)),
        ({"task": [0], "passed": [True]}, {"task": "problem"}, ("task",)),
        ({"task": [0], "score": [1.0]}, {}, ("reward",)),
        ({"task": [0], "notes": ["x"]}, {}, ("passed",)),
    ],
)
def test_a_missing_column_names_the_keyword_that_names_it(tmp_path, columns, options, keywords):
    with pytest.raises(ValueError, match=r"runs\.csv has no") as refused:
        read_runs(table(tmp_path, **columns), **options)
    assert keywords_of(refused.value) == keywords


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        (
            {"task": ["a", None, "b"], "passed": [True] * 3},
            r"runs\.csv, row 1 \(line 3\): task is missing",
        ),
        (
            {"task": [1, 2, 3], "passed": [True, None, True]},
            r"runs\.csv, row 1 \(line 3\): passed is missing",
        ),
        (
            {"task": [1, 2, 3], "reward": [1.0, None, 1]},
            r"runs\.csv, row 1 \(line 3\): reward is missing",
        ),
        (
            {"task": [1, 2, 3], "reward": [1, 0, 1.5]},
            r"runs\.csv, row 2 \(line 4\): reward is 1\.5, outside",
        ),
        (
            {"task": [1, 2, 3], "reward": [1, "x", 0]},
            r"runs\.csv, row 1 \(line 3\): reward is 'x', not a num",
        ),
        (
            {"task": [1, 2, 3], "run": [0, None, 1], "passed": [True] * 3},
            r"row 1 \(line 3\): run is missing",
        ),
    ],
)
def test_a_bad_row_is_refused_naming_file_row_and_column(tmp_path, columns, message):
    with pytest.raises(ValueError, match=message):
        read_runs(table(tmp_path, **columns))


def test_a_mapped_reward_is_named_as_in_the_file(tmp_path):
    path = table(tmp_path, task=[1, 2], score=[0.5, 7.0])
    with pytest.raises(
        ValueError, match=r"row 1 \(line 3\): score is 7\.0, outside \[0, 1\].*threshold="
    ):
        read_runs(path, reward="score")
    assert read_runs(path, reward="score", threshold=5)["passed"].tolist() == [False, True]


def test_a_broken_jsonl_line_is_named(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"task": 0, "passed": true}\n{"task": 1, "passed": tr\n')
    with pytest.raises(ValueError, match=r"runs\.jsonl, line 2, column \d+: not a readable JSONL"):
        read_runs(path)
    path.write_text('{"task": 0, "passed": true}\n[1, 2]\n')
    with pytest.raises(ValueError, match=r"runs\.jsonl, line 2: not a readable JSONL"):
        read_runs(path)


def test_a_truncated_parquet_file_is_refused(tmp_path):
    path = tmp_path / "runs.parquet"
    pk.simulate_coin(tasks=50, k=4).to_parquet(path)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match=r"runs\.parquet: not a readable PARQUET runs table"):
        read_runs(path)


# --- JSON Lines: pyarrow's reader where it reads as pandas' does, pandas' everywhere else -----


def lines(*records):
    return "".join(f"{record}\n" for record in records).encode()


TEXTS = ("task",)  # the columns read_runs reads as text: its task ids


def read_both(tmp_path, data):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(data)
    return _json_lines._read_by_pyarrow(path, TEXTS), _json_lines._read_by_pandas(path, TEXTS)


def assert_same_frame(fast, slow):
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    for name in slow.columns[slow.dtypes == np.float64]:  # and -0.0 is not 0.0
        np.testing.assert_array_equal(
            fast[name].to_numpy().view(np.int64), slow[name].to_numpy().view(np.int64)
        )


# from 1e-100 to 1e18: past int64's reach and below 1e-300 pandas' reader reads
RANDOM_FLOATS = np.random.default_rng(7).standard_normal(119) * 10.0 ** np.arange(-100, 19)

READ_ALIKE = {
    "a runs table": lines(
        '{"task":"t1","run":0,"reward":0.5,"error":null,"passed":true}',
        '{"task":"t1","run":1,"reward":1.0,"error":"KeyError: \'x\'","passed":false}',
    ),
    "ints and floats in one field": lines('{"a":1}', '{"a":1.5}', '{"a":-0.0}'),
    "whole floats, read as int64": lines('{"a":1.0}', '{"a":2e0}', '{"a":1e18}'),
    "precise floats": lines(*(f'{{"a":{float(value)!r}}}' for value in RANDOM_FLOATS)),
    "decimals rounded once": lines(
        '{"a":0.1000000000000000055511151231257827021181583404541015625}',
        '{"a":1e-300}',
        '{"a":9.2233720368547748e18}',
        '{"a":9007199254740993.0}',
    ),
    "not a number": lines('{"a":NaN}', '{"a":1.5}'),
    "gaps in ints, floats and text": lines(
        '{"i":1,"f":0.5,"s":"x"}', '{"i":null,"f":null,"s":null}', "{}"
    ),
    "gaps in booleans: 1.0, 0.0 and NaN": lines('{"b":true}', '{"b":false}', '{"b":null}', "{}"),
    "booleans": lines('{"b":true}', '{"b":false}'),
    "whole floats after a fraction": lines('{"a":1.5}', '{"a":1.0}'),
    "text that is a number only at first, or only later": lines(
        '{"a":"1","b":"x","c":null}', '{"a":"x","b":"1","c":"2"}'
    ),
    "a field that is always null": lines('{"a":null,"b":1}', '{"a":null,"b":2}'),
    "ints at int64's ends": lines(
        '{"a":9223372036854775807,"b":-9223372036854775808,"c":9007199254740993}',
        '{"a":0,"b":0,"c":null}',
    ),
    "numeric text read as numbers": lines(
        '{"i":"1","f":"1.5","s":" 2","n":"nan","t":"task-1"}',
        '{"i":"2","f":"2","s":"3","n":"1","t":"2"}',
    ),
    "ISO dates stay text": lines(
        '{"when":"2024-01-01T10:00:00","day":"2024-01-01","zone":"2024-01-01T10:00:00Z"}',
        '{"when":"2024-01-02 11:30:00","day":null,"zone":"2024-03-01T00:00:00+02:00"}',
    ),
    "unicode": lines(
        '{"\\u00e9t\\u00e9":"caf\\u00e9 \\ud83d\\ude00",'
        '"b":"\u2028 line\\nbreak \\"q\\" \\\\ \\u0000"}',
        '{"\\u00e9t\\u00e9":"\u00e9\u00e9","b":"\U0001f600"}',
    ),
    "fields that vary between lines": lines('{"b":1,"a":2}', '{"a":3,"c":"x"}', '{"d":true}'),
    "Windows line ends": lines('{"a":1}\r', '{"a":2.5}\r'),
    "mixed line ends": b'{"a":1}\r\n{"a":2}\n{"a":3}\r\n',
    "a return at the end": b'{"a":1}\n{"a":2}\r',
    "no line end after the last line": b'{"a":1}\n{"a":2.5}',
    "Windows line ends, none after the last line": b'{"a":1}\r\n{"a":2}',
    "text like a small number's exponent, on a line without a zero": lines(
        '{"a":0.5,"s":"a re-run e-100"}', '{"a":1.5,"s":"x"}'
    ),
    "one line": b'{"task":"t","passed":true}',
    "a field new, a type widened and text after dates, past the first block": lines(
        *(f'{{"task":"t{i % 97}","reward":{i % 2},"day":"2024-01-01"}}' for i in range(60_000)),
        '{"task":"t1","reward":0.5,"day":"soon","late":"x"}',
    ),
}


@pytest.mark.parametrize("data", READ_ALIKE.values(), ids=READ_ALIKE.keys())
def test_pyarrow_reads_a_file_into_the_frame_pandas_gives(tmp_path, data):
    fast, slow = read_both(tmp_path, data)
    assert fast is not None
    assert_same_frame(fast, slow)


def test_pyarrows_floats_are_those_python_reads(tmp_path):
    data = READ_ALIKE["precise floats"]
    fast, _ = read_both(tmp_path, data)
    expected = [json.loads(line)["a"] for line in data.splitlines()]
    np.testing.assert_array_equal(
        fast["a"].to_numpy().view(np.int64), np.array(expected).view(np.int64)
    )


READ_BY_PANDAS = {
    "a byte order mark": b"\xef\xbb\xbf" + lines('{"a":1}'),
    "a blank line": lines('{"a":1}', "", '{"a":2}'),
    "a line of spaces": lines('{"a":1}', "  ", '{"a":2}'),
    "blank lines at the end": lines('{"a":1}', "", ""),
    "spaces around an object": lines(' {"a":1} ', '{"a":2}'),
    "two objects on a line": lines('{"a":1}{"a":2}', '{"a":3}'),
    "an object over two lines": lines('{"a":', "1}"),
    "two on a line and one over two": lines('{"a":1}{"b":', "2}"),
    "objects split by a comma": lines('{"a":1},{"a":2}'),
    "old Mac line ends": b'{"a":1}\r{"a":2}\r',
    "a first line of null": lines("null", '{"a":1}'),
    "a line of null": lines('{"a":1}', "null"),
    # pyarrow crashes on a block of its own that starts with null: it never sees these
    "lines of null past pyarrow's first block": lines('{"a":1}', *["null"] * 300_000),
    "a line that is a list": lines('{"a":1}', "[1, 2]"),
    "a broken line": lines('{"a":1}', '{"a":tr'),
    "an empty file": b"",
    "only blank lines": b"\n\n \n",
    "only empty objects": lines("{}", "{}"),
    "a column named as a date": lines('{"created_at":"2024-01-01","a":1}'),
    "a column named as a time": lines('{"start_time":1700000000,"a":1}'),
    "a column named timestamp": lines('{"timestamp":"x","a":1}'),
    "numbers for column names": lines('{"1":1,"2":2}'),
    "dates for column names": lines('{"2024-01-01":1}'),
    "a nested object": lines('{"a":{"x":1}}', '{"a":{"y":2}}'),
    "a list": lines('{"a":[1,2]}', '{"a":[]}'),
    "ints and text in one field": lines('{"a":1}', '{"a":"x"}'),
    "booleans and ints in one field": lines('{"a":true}', '{"a":1}'),
    "an int past int64": lines('{"a":10000000000000000000}'),
    "a float past int64, as pyarrow reads such an int": lines('{"a":1.0}', '{"a":1e19}'),
    "an int past uint64": lines('{"a":100000000000000000000000}'),
    "an infinity": lines('{"a":Infinity}'),
    "a number too large for a float": lines('{"a":1.7976931348623159e308}'),
    "a number that underflows to 0": lines('{"a":0.0}', '{"a":1e-400}'),
    "a number that underflows in its digits": lines('{"a":0.0}', '{"a":0.' + "0" * 400 + "1}"),
    "a subnormal number": lines('{"a":5e-324}'),
    "text that is not UTF-8": b'{"a":"caf\xe9"}\n',
    "a name that is not UTF-8": b'{"caf\xe9":1}\n',
    "a lone surrogate": lines('{"a":"\\ud800"}'),
    "a raw tab in text": lines('{"a":"x\ty"}'),
    "a key given twice": lines('{"a":1,"a":2}'),
    "a trailing comma": lines('{"a":1,}'),
}


@pytest.mark.parametrize("data", READ_BY_PANDAS.values(), ids=READ_BY_PANDAS.keys())
def test_where_the_readers_part_pandas_reads_the_file(tmp_path, data):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(data)
    assert _json_lines._read_by_pyarrow(path, TEXTS) is None


# Files the fast path leaves to pandas' reader though the readers need not part on them: pyarrow's
# refuses a field of ints and text, and on a line with a zero, text that looks like a tiny
# number's exponent is taken for a number that may underflow.
LEFT_TO_PANDAS = {
    "text like a small number's exponent, on a line with a zero": lines(
        '{"a":0.0,"s":"a re-run e-100"}', '{"a":1.5,"s":"x"}'
    ),
    "ints and numeric text in one field": lines('{"a":1}', '{"a":"1"}'),
}


@pytest.mark.parametrize("data", LEFT_TO_PANDAS.values(), ids=LEFT_TO_PANDAS.keys())
def test_the_fast_path_leaves_some_files_to_pandas_where_the_readers_need_not_part(tmp_path, data):
    fast, slow = read_both(tmp_path, data)
    assert fast is None
    assert len(slow) == len(data.splitlines())


FIELDS = ["task", "run", "reward", "x", "é", ""]

SCALARS = st.one_of(
    st.integers(-(2**64), 2**64),
    st.floats(),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.sampled_from(["1", "-2.5", " 3", "nan", "inf", "1_0", "2024-01-01", "2024-01-01 10:00"]),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(FIELDS), SCALARS),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_pyarrow_reads_any_records_as_pandas_does_or_leaves_them_to_it(records, newline):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.jsonl"
        path.write_text(newline.join(map(json.dumps, records)) + newline, newline="")
        fast = _json_lines._read_by_pyarrow(path, TEXTS)
        try:
            slow = _json_lines._read_by_pandas(path, TEXTS)
        except ValueError:
            assert fast is None
            return
    if fast is not None:
        assert_same_frame(fast, slow)


def plain_records(rng: np.random.Generator) -> list[dict[str, object]]:
    """Records with the drawn records' fields, each field of one plain kind, some null or absent."""
    draw = {
        "int": lambda: int(rng.integers(-(2**62), 2**62)),
        "float": lambda: float(rng.standard_normal() * 10.0 ** rng.integers(-6, 7)),
        "bool": lambda: bool(rng.random() < 0.5),
        "text": lambda: "".join(rng.choice(list("abxyzé-_ "), size=rng.integers(1, 5))),
    }
    kinds = {field: draw[rng.choice(list(draw))] for field in FIELDS}
    kinds["task"] = draw[rng.choice(["int", "text"])]  # an id of another kind is refused
    records = [{field: kind() for field, kind in kinds.items()}]  # every field at least once
    for _ in range(rng.integers(0, 6)):
        chances = rng.random(len(kinds))
        records.append(
            {
                field: kind() if chance < 0.8 else None
                for (field, kind), chance in zip(kinds.items(), chances, strict=True)
                if chance < 0.9
            }
        )
    return records


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_pyarrow_takes_plain_records_of_the_drawn_kind(tmp_path, newline):
    """The drawn records above are compared only where pyarrow's reader answers; here it must."""
    rng = np.random.default_rng(5)
    path = tmp_path / "runs.jsonl"
    for _ in range(40):
        records = plain_records(rng)
        path.write_text(newline.join(map(json.dumps, records)) + newline, newline="")
        fast = _json_lines._read_by_pyarrow(path, TEXTS)
        assert fast is not None, records
        assert_same_frame(fast, _json_lines._read_by_pandas(path, TEXTS))


def test_without_pyarrow_a_json_lines_table_is_refused_naming_the_dependency(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name.split(".")[0] == "pyarrow":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    path = tmp_path / "runs.jsonl"
    path.write_bytes(READ_ALIKE["a runs table"])
    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(ImportError, match=r"reading runs\.jsonl needs pyarrow \(pyarrow\)"):
        read_runs(path)


def test_read_runs_gives_the_same_runs_either_way(monkeypatch, tmp_path):
    runs = pk.simulate_coin(tasks=40, k=5, seed=3).assign(
        task=lambda frame: frame["task"].map("task-{}".format),
        reward=lambda frame: frame["passed"].astype(float) * 0.75,
        error=lambda frame: np.where(frame.index % 7 == 0, "TimeoutError", None),
    )
    path = tmp_path / "runs.jsonl"
    runs.drop(columns=["passed", "run"]).to_json(path, orient="records", lines=True)
    fast = read_runs(path, threshold=0.5)
    monkeypatch.setattr(_json_lines, "_read_by_pyarrow", lambda file, texts: None)
    pd.testing.assert_frame_equal(fast, read_runs(path, threshold=0.5), check_exact=True)
    assert fast["passed"].tolist() == runs["passed"].tolist()
    assert fast["run"].tolist() == runs["run"].tolist()


# --- JSON Lines refusals: the file, the line or row, and the field, as pandas' reader gave them --


def refusal(path):
    with pytest.raises(ValueError, match=re.escape(str(path))) as refused:
        read_runs(path)
    return str(refused.value)


def assert_refused_as_before(monkeypatch, path, message):
    fast = refusal(path)
    assert re.match(re.escape(str(path)) + message, fast), fast
    with monkeypatch.context() as patched:
        patched.setattr(_json_lines, "_read_by_pyarrow", lambda file, texts: None)
        assert refusal(path) == fast


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (lines('{"task":1,"passed":true}', '{"passed":true}'), r", line 2: task is missing"),
        (
            lines('{"task":1,"passed":true}', '{"task":null,"passed":true}'),
            r", line 2: task is miss",
        ),
        (lines('{"task":1,"passed":true}', '{"task":2}'), r", line 2: passed is missing"),
        (lines('{"task":1,"reward":1}', '{"task":2}'), r", line 2: reward is missing"),
        (
            lines('{"task":1,"reward":1}', '{"task":2,"reward":"x"}'),
            r", line 2: reward is 'x', not",
        ),
        (
            lines('{"task":1,"reward":1}', '{"task":2,"reward":1.5}'),
            r", line 2: reward is 1\.5, out",
        ),
        (
            lines('{"task":1,"reward":1}', '{"task":2,"reward":[1]}'),
            r", line 2: reward is \[1\], not",
        ),
        (
            lines('{"task":1,"run":0,"passed":true}', '{"task":1,"passed":true}'),
            r", line 2: run is",
        ),
        (
            lines('{"id":1,"passed":true}'),
            r" has no task column \(its columns are \['id', 'passed'\]\)",
        ),
        (lines('{"task":1,"score":1}'), r" has no passed or reward column"),
        (lines("{}", "{}"), r" has no task column and no passed or reward column \(its col"),
        (b"", r": the file is empty"),
        (b"\n\n", r": no runs; a runs table has one row per run"),
        (
            lines("null", '{"task":0,"passed":true}'),
            r" has no task column and no passed or reward column \(its columns are \['0'\]\)",
        ),
    ],
)
def test_a_bad_jsonl_record_is_refused_naming_the_file_row_and_field(
    monkeypatch, tmp_path, data, message
):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(data)
    assert_refused_as_before(monkeypatch, path, message)


BAD_LINE = '{"task":1,"passed":tr'


@pytest.mark.parametrize(
    ("data", "message"),
    [
        # Python's json names the column where the value goes wrong
        (
            lines('{"task":0,"passed":true}', BAD_LINE),
            f", line 2, column {BAD_LINE.index('tr') + 1}: ",
        ),
        (lines('{"task":0,"passed":true}', "[1, 2]"), r", line 2: not a readable JSONL runs table"),
        (lines('{"task":0,"passed":true}', "null"), r", line 2: not a readable JSONL runs table"),
        (lines('{"task":0,"passed":true}', "7"), r", line 2: not a readable JSONL runs table"),
        # the line's own line break ends it: the column after it is the first of the next line
        (
            lines('{"task":0,"passed":true}', '{"task":1,', '"passed":true}'),
            r", line 2, column 1: ",
        ),
        (lines('{"task":0,"passed":true}', '{"task":1}{"task":2}'), r", line 2, column 11: "),
        (
            b"\xef\xbb\xbf" + lines('{"task":0,"passed":true}'),
            r", line 1, column 1: not a readable",
        ),
        (lines('{"task":0,"passed":true}', '{"task":1e-400,"passed":true}'), r": not a readable"),
        (
            b'{"task":0,"passed":true}\n{"task":"caf\xe9","passed":true}\n',
            r": not UTF-8 text at byte 37 \(line 2\)",
        ),
    ],
    ids=[
        "bad JSON",
        "a list",
        "a null line",
        "a number",
        "an object over two lines",
        "two objects on a line",
        "a byte order mark",
        "a number that underflows",
        "text that is not UTF-8",
    ],
)
def test_a_jsonl_file_pandas_cannot_read_is_refused_as_before(monkeypatch, tmp_path, data, message):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(data)
    assert_refused_as_before(monkeypatch, path, message)


# --- task ids: text as written in CSV, the JSON value in JSON Lines, the file's type in Parquet --


@pytest.mark.parametrize(
    "ids",
    [
        ["1.1", "1.10", "007", "7", "1e2", "100"],  # each would be read as a number
        ["true", "True", "1", "false"],  # as a boolean
        ["1.1", "1.10", "007", "7", "NA", "null", "N/A", "nan", " 1", "true"],  # text anyway
    ],
)
def test_csv_task_ids_are_the_text_of_each_cell(tmp_path, ids):
    path = tmp_path / "runs.csv"
    path.write_text("problem,passed\n" + "".join(f"{task},true\n" for task in ids))
    runs = read_runs(path, task="problem")
    assert runs["task"].tolist() == ids
    assert len(pk.tally(runs)) == len(set(ids))


def test_csv_task_ids_that_are_empty_are_missing_and_other_columns_keep_pandas_missing(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text('task,reward\nNA,1.0\n"",0.0\n')
    with pytest.raises(ValueError, match=r"runs\.csv, row 1 \(line 3\): task is missing"):
        read_runs(path)
    path.write_text("task,reward\nNA,1.0\nnull,NA\n")
    with pytest.raises(ValueError, match=r"runs\.csv, row 1 \(line 3\): reward is missing"):
        read_runs(path)


NUMERIC_TEXT = ["007", "7", "1.1", "1.10", "1e2", "100"]


@pytest.mark.parametrize("ids", [NUMERIC_TEXT, [*NUMERIC_TEXT, "NA", "null"]])
def test_json_lines_task_ids_written_as_strings_stay_text_on_either_path(
    monkeypatch, tmp_path, ids
):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"task": task, "passed": True}) + "\n" for task in ids))
    assert _json_lines._read_by_pyarrow(path, TEXTS) is not None  # the fast path reads it
    fast = read_runs(path)
    monkeypatch.setattr(_json_lines, "_read_by_pyarrow", lambda file, texts: None)
    slow = read_runs(path)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert fast["task"].tolist() == ids


def test_json_lines_integer_ids_are_int64_on_either_path(monkeypatch, tmp_path):
    ids = [3, 0, 10**18, -2, 3]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"task": task, "passed": True}) + "\n" for task in ids))
    fast = read_runs(path)
    monkeypatch.setattr(_json_lines, "_read_by_pyarrow", lambda file, texts: None)
    slow = read_runs(path)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert fast["task"].dtype == np.int64
    assert fast["task"].tolist() == ids


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ([1, "1"], r"line 2: task is '1', text, but on line 1 it is 1, an integer"),
        (["a", 2], r"line 2: task is 2, an integer, but on line 1 it is 'a', text"),
        ([1, True], r"line 2: task is True, a boolean; .* write ids as strings"),
        ([1, 1.5], r"line 2: task is 1\.5, a number with a fraction or an exponent"),
        ([1.1, 1.1], r"line 1: task is 1\.1, a number with a fraction or an exponent"),
        ([10**19, 10**19], r"line 1: task is 10000000000000000000, an integer too large"),
        ([1, 10**19], r"line 2: task is 10000000000000000000, an integer too large"),
        (["a", ["a"]], r"line 2: task holds a list \(\['a'\]\); an id must be a plain"),
        (["a", {"id": "a"}], r"line 2: task holds a dict \(\{'id': 'a'\}\); an id must be"),
    ],
)
def test_json_lines_task_ids_that_two_spellings_would_split_or_merge_are_refused(
    monkeypatch, tmp_path, ids, message
):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"task": task, "passed": True}) + "\n" for task in ids))
    assert_refused_as_before(monkeypatch, path, ", " + message)


@pytest.mark.parametrize(
    ("records", "options", "message"),
    [
        ([{"task": "a", "model": ["m"], "passed": True}], {"by": "model"}, r"line 1: model holds"),
        ([{"task": "a", "run": [0], "passed": True}], {}, r"line 1: run holds a list \(\[0\]\)"),
    ],
)
def test_a_group_or_run_holding_several_values_is_refused(tmp_path, records, options, message):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    with pytest.raises(ValueError, match=r"runs\.jsonl, " + message):
        read_runs(path, **options)


def test_parquet_task_ids_keep_the_files_type_and_lists_are_refused(tmp_path):
    path = tmp_path / "runs.parquet"
    pd.DataFrame({"task": [7, 7, 10], "passed": [True, False, True]}).to_parquet(path)
    assert read_runs(path)["task"].tolist() == [7, 7, 10]
    pd.DataFrame({"task": [[1], [2]], "passed": [True, False]}).to_parquet(path)
    with pytest.raises(ValueError, match=r"runs\.parquet, row 0: task holds a ndarray"):
        read_runs(path)


def test_without_a_parquet_engine_the_message_names_the_extra_and_the_reason(monkeypatch, tmp_path):
    path = tmp_path / "runs.parquet"
    pk.simulate_coin(tasks=2, k=2).to_parquet(path)

    def no_engine(*args, **kwargs):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow'")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    with pytest.raises(ImportError, match=r"usable engine.*pip install 'passk-lab\[parquet\]'"):
        read_runs(path)


# --- ids as written: whole floats, booleans, lone surrogates, groups -------------------------


def jsonl(tmp_path, *texts):
    """A JSON Lines file of these lines, written as they are (``1.0`` stays ``1.0``)."""
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(f"{text}\n" for text in texts))
    return path


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (
            ['{"task":1e20,"passed":true}'],
            r", line 1: task is 1e\+20, a number with a fraction or ",
        ),
        (['{"task":1.0,"passed":true}', '{"task":2,"passed":true}'], r", line 1: task is 1\.0, a"),
        (['{"task":1,"passed":true}', '{"task":1.0,"passed":true}'], r", line 2: task is 1\.0, a"),
        (['{"task":1,"passed":true}', '{"task":1E2,"passed":true}'], r", line 2: task is 100\.0, "),
        (
            ['{"task":true,"passed":true}', '{"task":false,"passed":true}'],
            r", line 1: task is True",
        ),
        (['{"task":"a","passed":true}', '{"task":false,"passed":true}'], r", line 2: task is Fals"),
    ],
)
def test_json_ids_written_as_floats_or_booleans_are_refused_by_name(
    monkeypatch, tmp_path, texts, message
):
    path = jsonl(tmp_path, *texts)
    assert_refused_as_before(
        monkeypatch, path, message + r".*write ids as strings .*or as integers"
    )


def test_json_lines_messages_name_the_line_of_the_file_past_blank_lines(monkeypatch, tmp_path):
    path = jsonl(tmp_path, '{"task":1,"reward":1}', "", "  ", '{"task":2,"reward":"x"}')
    assert_refused_as_before(monkeypatch, path, r", line 4: reward is 'x', not a number")
    path = jsonl(tmp_path, '{"task":1,"passed":true}', "", '{"task":"1","passed":true}')
    assert_refused_as_before(
        monkeypatch, path, r", line 3: task is '1', text, but on line 1 it is 1, an integer"
    )
    path = jsonl(tmp_path, "", '{"task":"a","passed":true}', '{"task":["a"],"passed":true}')
    assert_refused_as_before(monkeypatch, path, r", line 3: task holds a list \(\['a'\]\)")


def test_csv_messages_name_the_row_and_its_line(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("task,reward\na,1\n\nb,x\n")
    with pytest.raises(ValueError, match=r"runs\.csv, row 1 \(line 4\): reward is 'x'"):
        read_runs(path)
    path.write_text('task,reward\n"a\nb",1\nc,x\n')  # a quoted cell over two lines
    with pytest.raises(ValueError, match=r"runs\.csv, row 1 \(line 4\): reward is 'x'"):
        read_runs(path)


def test_json_ids_with_lone_surrogates_stay_apart_as_their_escapes(monkeypatch, tmp_path):
    ids = ["a\ud800", "a\udbff", "\ud800", "\ud83d\ude00", "a\\ud800"]
    path = tmp_path / "runs.jsonl"  # json.dumps writes each surrogate as its escape
    path.write_text("".join(json.dumps({"task": task, "passed": True}) + "\n" for task in ids))
    expected = ["a\\ud800", "a\\udbff", "\\ud800", "\U0001f600", "a\\ud800"]
    runs = read_runs(path)
    assert runs["task"].tolist() == expected
    monkeypatch.setattr(_json_lines, "_read_by_pyarrow", lambda file, texts: None)
    pd.testing.assert_frame_equal(read_runs(path), runs)
    assert pk.tally(runs)["task"].tolist() == ["a\\ud800", "a\\udbff", "\\ud800", "\U0001f600"]


def test_a_valid_surrogate_pair_keeps_the_fast_path(tmp_path):
    path = jsonl(tmp_path, '{"task":"\\ud83d\\ude00","passed":true}')
    fast = _json_lines._read_by_pyarrow(path, TEXTS)
    assert fast is not None
    assert fast["task"].tolist() == ["\U0001f600"]


def test_the_texts_read_as_missing_are_pandas_own():
    # pandas' default reading, asked of every text in the copy and of near misses: each text
    # of the copy, and only those, is missing to pandas' own CSV reader
    near = ["na", "Null", "NONE", "nil", "-", "N/a", "#n/a", "NaN ", "0"]
    texts = sorted(_table_files._NA_TEXTS - {""}) + near
    column = pd.read_csv(io.StringIO("value\n" + "\n".join(texts) + "\n"), dtype=str)["value"]
    missing = dict(zip(texts, column.isna(), strict=True))
    assert missing == {text: text in _table_files._NA_TEXTS for text in texts}
    assert pd.read_csv(io.StringIO('value\n""\n'))["value"].isna().all()  # and the empty text


def test_csv_groups_are_read_as_text_as_task_ids_are(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("task,model,passed\n1,007,true\n1,NA,false\n1,1.10,true\n")
    runs = read_runs(path, by="model")
    assert runs["model"].tolist() == ["007", "NA", "1.10"]
    assert runs["run"].tolist() == [0, 0, 0]  # three groups, one run each
    path.write_text("task,model,passed\n1,007,true\n1,,false\n")
    with pytest.raises(ValueError, match=r"runs\.csv, row 1 \(line 3\): model is missing"):
        read_runs(path, by="model")


def test_json_groups_are_read_as_task_ids_are(tmp_path):
    path = jsonl(
        tmp_path, '{"task":1,"model":"007","passed":true}', '{"task":1,"model":"7","passed":true}'
    )
    runs = read_runs(path, by="model")
    assert runs["model"].tolist() == ["007", "7"]
    assert runs["run"].tolist() == [0, 0]
    path = jsonl(tmp_path, '{"task":1,"model":1.5,"passed":true}')
    with pytest.raises(ValueError, match=r"runs\.jsonl, line 1: model is 1\.5, a number with a"):
        read_runs(path, by="model")
    assert read_runs(path)["model"].tolist() == [1.5]  # not a group: read as pandas reads it


def test_task_ids_stay_text_beside_a_column_of_dates(monkeypatch, tmp_path):
    path = jsonl(tmp_path, '{"task":"007","note":"2024-01-01T00:00:00","passed":true}')
    runs = read_runs(path)
    assert runs["task"].tolist() == ["007"]
    monkeypatch.setattr(_json_lines, "_read_by_pyarrow", lambda file, texts: None)
    pd.testing.assert_frame_equal(read_runs(path), runs)
