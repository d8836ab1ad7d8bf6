from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from conftest import TAU_BENCH

import passk_lab as pk
from passk_lab.io import read_tau_bench

SHARED = TAU_BENCH / "gpt-4o-airline.json"


def records(**info):
    """Two tasks x two trials of tau-bench records; rewards 1, 0, 1, 1."""
    return [
        {"task_id": task, "trial": trial, "reward": reward, "info": {"reward_info": {}, **info}}
        for (task, trial), reward in zip(
            [(0, 0), (0, 1), (1, 0), (1, 1)], [1.0, 0.0, 1.0, 1.0], strict=True
        )
    ]


def write(path, content):
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


# --- the published gpt-4o airline results ------------------------------------------------


def test_the_shared_file_gives_the_published_pass_pow_k(tau_bench_published):
    runs = read_tau_bench(SHARED)
    for k, published in tau_bench_published.items():
        assert pk.pass_pow_k(runs, k) == pytest.approx(published, abs=5e-4)
    counts = pk.tally(runs)["c"].value_counts().sort_index().tolist()
    assert counts == [14, 12, 10, 4, 10]  # the per-task histogram in data/README.md


def test_the_shared_file_is_read_record_for_record(tau_bench_runs):
    raw = json.loads(SHARED.read_text())
    runs = read_tau_bench(SHARED)
    assert len(runs) == len(raw) == 200
    pd.testing.assert_frame_equal(
        runs[["task", "run", "reward"]], tau_bench_runs, check_dtype=False
    )
    np.testing.assert_array_equal(runs["passed"], [record["reward"] == 1.0 for record in raw])
    assert (runs["model"] == "gpt-4o").all()
    assert (runs["domain"] == "airline").all()
    assert (runs["file"] == SHARED.name).all()
    assert runs["source"].tolist() == [record["info"]["source"] for record in raw]
    assert runs.attrs["files"] == [str(SHARED)]


def test_the_five_runs_without_reward_info_are_flagged_as_errors():
    raw = json.loads(SHARED.read_text())
    runs = read_tau_bench(SHARED)
    no_reward_info = [record["info"]["reward_info"] is None for record in raw]
    assert sum(no_reward_info) == 5
    np.testing.assert_array_equal(runs["error"].notna(), no_reward_info)
    flagged = runs[runs["error"].notna()]
    assert not flagged["passed"].any()
    assert flagged["error"].str.startswith("no reward_info").all()
    assert flagged["error"].str.endswith("(source: book_reservation)").sum() == 1
    excluded = pk.tally(runs, errors="exclude")
    assert excluded["n"].sum() == 195
    assert pk.tally(runs)["n"].sum() == 200


def test_an_error_in_info_is_carried_over(tmp_path):
    data = records()
    data[1]["info"] = {"error": "litellm.RateLimitError: slow down", "traceback": "..."}
    runs = read_tau_bench(write(tmp_path / "results.json", data))
    assert runs["error"].isna().tolist() == [True, False, True, True]
    assert runs["error"].iloc[1] == "litellm.RateLimitError: slow down"
    assert runs["model"].isna().all()  # "results" is not <model>-<domain>
    assert runs["domain"].isna().all()


# --- several files ------------------------------------------------------------------------


@pytest.fixture
def two_models(tmp_path):
    write(tmp_path / "gpt-4o-retail.json", records())
    other = records()
    other[3]["reward"] = 0.0  # task 0 passes 1 of 2, task 1 passes 1 of 2
    write(tmp_path / "claude-3-5-sonnet-retail.json", other)
    return tmp_path


def test_a_glob_a_list_and_a_directory_read_the_same_runs(two_models):
    by_glob = read_tau_bench(str(two_models / "*-retail.json"))
    by_list = read_tau_bench(sorted(two_models.glob("*.json")))
    by_folder = read_tau_bench(two_models)
    pd.testing.assert_frame_equal(by_glob, by_list)
    pd.testing.assert_frame_equal(by_glob, by_folder)
    assert by_glob["model"].unique().tolist() == ["claude-3-5-sonnet", "gpt-4o"]
    values = pk.pass_pow_k(by_glob, 2, by="model")
    assert values.to_dict() == {"claude-3-5-sonnet": 0.0, "gpt-4o": 0.5}


def test_model_and_domain_arguments_override_the_file_name(two_models):
    runs = read_tau_bench(two_models / "gpt-4o-retail.json", model="gpt-4o-2024-08-06")
    assert set(runs["model"]) == {"gpt-4o-2024-08-06"}
    assert set(runs["domain"]) == {"retail"}
    runs = read_tau_bench(two_models / "gpt-4o-retail.json", domain="airline")
    assert set(runs["domain"]) == {"airline"}


def test_the_shared_file_read_twice_needs_a_group_to_tell_the_copies_apart(tmp_path):
    shutil.copy(SHARED, tmp_path / "run-a.json")
    shutil.copy(SHARED, tmp_path / "run-b.json")
    runs = read_tau_bench(tmp_path)
    with pytest.raises(ValueError, match="appears 2 times"):
        pk.tally(runs)
    assert pk.pass_pow_k(runs, 4, by="file").tolist() == [0.2, 0.2]


# --- refusals -----------------------------------------------------------------------------


def test_a_file_that_is_not_json_is_refused(tmp_path):
    path = write(tmp_path / "gpt-4o-airline.json", "task_id,reward\n1,1.0\n")
    with pytest.raises(ValueError, match=r"gpt-4o-airline\.json: not valid JSON at line 1"):
        read_tau_bench(path)


def test_a_truncated_file_is_refused_as_cut_short(tmp_path):
    text = SHARED.read_text()
    path = write(tmp_path / "gpt-4o-airline.json", text[: len(text) // 2])
    with pytest.raises(ValueError, match=r"gpt-4o-airline\.json: .*the file ends early"):
        read_tau_bench(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            {"task_id": 0},
            r"r\.json: the file is \{'task_id': 0\}, an object; a tau-bench results file is a "
            r"JSON list of run records",
        ),
        ([1, 2], r"record 0: the record is 1, an integer; a tau-bench record is a JSON object"),
        ([None], r"record 0: the record is None, null; a tau-bench record is a JSON object"),
        (["a"], r"record 0: the record is 'a', text; a tau-bench record is a JSON object"),
        ([2.5], r"record 0: the record is 2\.5, a number with a fraction or an exponent; a tau-"),
    ],
)
def test_a_file_that_is_not_a_list_of_records_is_refused(tmp_path, content, message):
    path = write(tmp_path / "r.json", content)
    with pytest.raises(ValueError, match=message):
        read_tau_bench(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("task_id"), r"r\.json, record 2: no task_id"),
        (lambda r: r.update(task_id=None), r"r\.json, record 2: no task_id"),
        (lambda r: r.pop("reward"), r"record 2 \(task_id 1\): no reward"),
        (
            lambda r: r.update(reward=None),
            r"record 2 \(task_id 1\): no reward; a reward is a number",
        ),
        (lambda r: r.update(reward="1.0"), r"record 2 \(task_id 1\): reward is '1\.0', text; a"),
        (lambda r: r.update(reward=1.5), r"record 2 \(task_id 1\): reward is 1\.5, outside \[0, 1"),
        (lambda r: r.update(reward=-0.5), r"record 2 \(task_id 1\): reward is -0\.5, outside"),
        (lambda r: r.pop("trial"), r"record 2 \(task_id 1\): no trial; every run needs its trial"),
        (lambda r: r.update(trial=-1), r"record 2 \(task_id 1\): trial is -1"),
    ],
)
def test_a_bad_record_is_refused_naming_file_record_and_field(tmp_path, change, message):
    data = records()
    change(data[2])
    with pytest.raises(ValueError, match=message):
        read_tau_bench(write(tmp_path / "r.json", data))


def test_a_run_passes_when_its_reward_is_1_up_to_1e_6(tmp_path):
    data = records()
    for record, reward in zip(data, [1 - 9e-7, 1 + 9e-7, 0.999, 1 - 2e-6], strict=True):
        record["reward"] = reward
    runs = read_tau_bench(write(tmp_path / "r.json", data))
    assert runs["passed"].tolist() == [True, True, False, False]
    data[0]["reward"] = 1 + 2e-6
    with pytest.raises(ValueError, match=r"record 0 \(task_id 0\): reward is 1\.000002, outside"):
        read_tau_bench(write(tmp_path / "r.json", data))


def test_missing_files_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="no tau-bench results file matches"):
        read_tau_bench(str(tmp_path / "*.json"))
    with pytest.raises(FileNotFoundError, match="no such tau-bench results file"):
        read_tau_bench(tmp_path / "gpt-4o-airline.json")
    with pytest.raises(
        FileNotFoundError, match=r"no \.json tau-bench results file in the directory"
    ):
        read_tau_bench(tmp_path)
    with pytest.raises(ValueError, match="no tau-bench results file given"):
        read_tau_bench([])


# --- task ids, run numbers and optional fields ---------------------------------------------


def test_one_task_id_spelled_as_an_integer_and_as_a_string_across_files_is_refused(tmp_path):
    write(tmp_path / "a-airline.json", records())
    other = records()
    for record in other:
        record["task_id"] = str(record["task_id"])
    write(tmp_path / "b-airline.json", other)
    with pytest.raises(
        ValueError,
        match=r"a-airline\.json, record 0 has task_id 0, an integer, and b-airline\.json, record 0 "
        r"has '0', text; .*write every task_id as an integer",
    ):
        read_tau_bench(str(tmp_path / "*.json"))
    write(tmp_path / "a-airline.json", other)  # strings throughout: read as text
    assert read_tau_bench(tmp_path)["task"].tolist() == ["0", "0", "1", "1"] * 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.update(task_id=1.5),
            r"record 2 \(task_id 1\.5\): task_id is 1\.5, a number with a fraction or an exponent; "
            r"tau-",
        ),
        (
            lambda r: r.update(task_id=True),
            r"record 2 \(task_id True\): task_id is True, a boolean",
        ),
        (lambda r: r.update(task_id=[1]), r"record 2 \(task_id \[1\]\): task_id is \[1\], a list"),
        (lambda r: r.update(task_id={}), r"record 2 \(task_id \{\}\): task_id is \{\}, an object"),
        (
            lambda r: r.update(task_id=10**30),
            r"r\.json, record 2 \(task_id 10{30}\): task_id is 10{30}, an integer too large for "
            r'int64; write such a task_id as a JSON string \("10{30}"\)',
        ),
        (
            lambda r: r.update(task_id=-(2**63) - 1),
            r"record 2 \(task_id -9223372036854775809\): task_id is -9223372036854775809, an int",
        ),
        (
            lambda r: r.update(trial=10**30),
            r"record 2 \(task_id 1\): trial is 10{30}, an integer too large for int64; tau-bench",
        ),
    ],
)
def test_an_id_or_trial_that_is_no_run_number_is_refused(tmp_path, change, message):
    data = records()
    change(data[2])
    with pytest.raises(ValueError, match=message):
        read_tau_bench(write(tmp_path / "r.json", data))


def test_a_cost_that_is_not_a_number_keeps_the_run_with_a_warning(tmp_path):
    data = records(user_cost=0.25)
    data[1]["info"]["user_cost"] = "cheap"
    data[3]["info"]["user_cost"] = [1]
    with pytest.warns(
        UserWarning,
        match=r"r\.json, record 1 \(task_id 0\): info\.user_cost is 'cheap', not a number "
        r"\(2 record\(s\)",
    ):
        runs = read_tau_bench(write(tmp_path / "r.json", data))
    assert len(runs) == 4
    np.testing.assert_array_equal(runs["user_cost"], [0.25, np.nan, 0.25, np.nan])


def test_task_ids_at_the_ends_of_int64_are_read_as_integers(tmp_path):
    data = records()
    data[0]["task_id"], data[2]["task_id"] = 2**63 - 1, -(2**63)
    tasks = read_tau_bench(write(tmp_path / "r.json", data))["task"].tolist()
    assert tasks[0] == 2**63 - 1
    assert tasks[2] == -(2**63)


def test_a_task_id_with_a_lone_surrogate_keeps_it_as_its_escape(tmp_path):
    """json.loads keeps a lone surrogate; the id is its text with the surrogate as ``\\ud800``."""
    ids = ["a\ud800", "a\ud800", "a\udbff", "a\udbff", "\ud800", "\ud83d\ude00"]
    data = [{**records()[0], "task_id": task} for task in ids]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))  # ensure_ascii: the surrogates as escapes
    tasks = read_tau_bench(path)["task"].tolist()
    assert tasks == ["a\\ud800", "a\\ud800", "a\\udbff", "a\\udbff", "\\ud800", "\U0001f600"]
    assert all(task.encode("utf-8") for task in tasks)
