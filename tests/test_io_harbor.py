from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fixtures import build_harbor

import passk_lab as pk
from passk_lab.io._harbor import read_harbor
from passk_lab.io._harbor_jobs import is_harbor

FIXTURE = Path(__file__).parent / "fixtures" / "harbor"
JOB = FIXTURE / build_harbor.JOB


def raw_trials(job=JOB):
    return {
        folder.name: json.loads((folder / "result.json").read_text())
        for folder in sorted(job.iterdir())
        if (folder / "result.json").exists()
    }


@pytest.fixture
def job(tmp_path):
    copy = tmp_path / "jobs" / build_harbor.JOB
    shutil.copytree(JOB, copy)
    return copy


def edit(file, change):
    record = json.loads(file.read_text())
    change(record)
    file.write_text(json.dumps(record))


def trial_file(job, task="regex-log", suffix="b5Rk9Lm"):
    return job / f"{task}__{suffix}" / "result.json"


# --- the fixture -----------------------------------------------------------------------


def test_regenerating_the_fixture_gives_the_same_bytes(tmp_path):
    build_harbor.write(tmp_path)
    written = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    committed = sorted(path.relative_to(FIXTURE) for path in FIXTURE.rglob("*") if path.is_file())
    assert written == committed
    for name in written:
        assert (tmp_path / name).read_bytes() == (FIXTURE / name).read_bytes()


@pytest.mark.parametrize("path", [JOB, FIXTURE])
def test_the_tally_is_the_designed_one(path):
    tally = pk.tally(read_harbor(path), by=["agent", "model"])
    counts = {(row.agent, row.model, row.task): (row.n, row.c) for row in tally.itertuples()}
    assert counts == build_harbor.COUNTS


def test_every_column_holds_what_the_record_held():
    raw = raw_trials()
    runs = read_harbor(JOB)
    assert list(runs["trial_name"]) == list(raw)  # the folders' order
    assert runs.attrs["files"] == [str(JOB / name / "result.json") for name in raw]
    for row, record in zip(runs.itertuples(), raw.values(), strict=True):
        assert row.task == record["task_name"]
        assert row.agent == record["agent_info"]["name"]
        assert row.agent_version == record["agent_info"]["version"]
        assert row.model == record["agent_info"]["model_info"]["name"]
        assert row.model_provider == record["agent_info"]["model_info"]["provider"]
        assert row.source == record["source"]
        assert row.job == build_harbor.JOB
        assert row.file == f"{record['trial_name']}/result.json"
        assert row.started_at == pd.Timestamp(record["started_at"])
        assert row.finished_at == pd.Timestamp(record["finished_at"])
        expected = pd.Timestamp(record["finished_at"]) - pd.Timestamp(record["started_at"])
        assert row.duration_s == expected.total_seconds()
        usage = record["agent_result"] or {}
        for name in ("n_input_tokens", "n_cache_tokens", "n_output_tokens"):
            assert (getattr(row, name) if pd.notna(getattr(row, name)) else None) == usage.get(name)
        cost = usage.get("cost_usd")
        assert (row.cost_usd if not np.isnan(row.cost_usd) else None) == cost
        exception = record["exception_info"]
        assert (row.exception_type if pd.notna(row.exception_type) else None) == (
            exception and exception["exception_type"]
        )
        rewards = (record["verifier_result"] or {}).get("rewards")
        if rewards is None:
            assert np.isnan(row.reward)
            assert not row.passed
            assert row.error == (f"{exception['exception_type']}: {exception['exception_message']}")
        else:
            assert row.reward == rewards["reward"]
            assert row.passed == (rewards["reward"] == 1)
            assert pd.isna(row.error)
    assert runs["run"].dtype == np.int64
    assert runs["n_input_tokens"].dtype == "Int64"


def test_runs_are_numbered_by_start_time_then_name():
    raw = raw_trials()
    runs = read_harbor(JOB)
    for _, trials in runs.groupby(["agent", "model", "task"]):
        starts = [raw[name]["started_at"] for name in trials["trial_name"]]
        order = sorted(zip(starts, trials["trial_name"], strict=True))
        by_run = trials.sort_values("run")
        assert list(by_run["trial_name"]) == [name for _, name in order]
        assert list(by_run["run"]) == list(range(len(trials)))


def test_error_kinds_follow_the_exception_types():
    runs = read_harbor(JOB).set_index("trial_name")
    kinds = runs["error_kind"].astype(object).where(runs["error_kind"].notna(), None).to_dict()
    assert kinds == {
        "sqlite-with-gcov__Xp2vN8q": "infrastructure",  # RewardFileNotFoundError, no reward
        "regex-log__Kt5yU3i": "timeout",  # EnvironmentStartTimeoutError
        "sqlite-with-gcov__Lr7wQ5z": "agent",  # ContextLengthExceededError
        "sqlite-with-gcov__f4Cx6Vb": None,  # RuntimeError: no kind
        **{
            name: None
            for name in runs.index
            if name
            not in (
                "sqlite-with-gcov__Xp2vN8q",
                "regex-log__Kt5yU3i",
                "sqlite-with-gcov__Lr7wQ5z",
                "sqlite-with-gcov__f4Cx6Vb",
            )
        },
    }
    # the verifier judged the agent that timed out: its reward stands, as in Harbor's metrics
    assert runs.loc["fix-git__Wm6sE4r", "passed"]
    assert runs.loc["fix-git__Wm6sE4r", "exception_type"] == "AgentTimeoutError"
    assert pd.isna(runs.loc["fix-git__Wm6sE4r", "error"])


def test_errors_exclude_leaves_out_the_trials_that_measured_nothing():
    runs = read_harbor(JOB)
    tally = pk.tally(runs, by=["agent", "model"], errors="exclude")
    counts = {(row.agent, row.task): (row.n, row.c) for row in tally.itertuples()}
    # the agent's own error stays a failure; infrastructure, time-out and unknown are left out
    assert counts[("codex", "terminal-bench/sqlite-with-gcov")] == (1, 0)
    assert counts[("codex", "terminal-bench/regex-log")] == (1, 1)
    assert counts[("terminus-2", "terminal-bench/sqlite-with-gcov")] == (1, 0)


def test_a_trial_folder_and_a_trial_file_are_one_run():
    for path in (JOB / "fix-git__zQ7mK2p", JOB / "fix-git__zQ7mK2p" / "result.json"):
        runs = read_harbor(path)
        assert runs[["task", "run", "passed"]].to_numpy().tolist() == [
            ["terminal-bench/fix-git", 0, True]
        ]
        assert runs["file"].tolist() == ["result.json"]


def test_the_job_result_file_reads_its_job():
    assert len(read_harbor(JOB / "result.json")) == len(build_harbor.TRIALS)


def test_two_jobs_in_a_folder_are_numbered_together(tmp_path, job):
    second = job.parent / "2026-08-21__10-00-00"
    shutil.copytree(job, second)
    for folder in sorted(second.iterdir()):
        if folder.is_dir():
            for name in ("result.json", "config.json"):
                edit(
                    folder / name,
                    lambda record: record.update(trial_name=record["trial_name"] + "b"),
                )
            folder.rename(folder.with_name(folder.name + "b"))
    runs = read_harbor(job.parent)
    assert len(runs) == 2 * len(build_harbor.TRIALS)
    tally = pk.tally(runs, by=["agent", "model"])
    assert {(r.agent, r.task): (r.n, r.c) for r in tally.itertuples()} == {
        (agent, task): (2 * n, 2 * c) for (agent, _, task), (n, c) in build_harbor.COUNTS.items()
    }
    assert set(runs["job"]) == {job.name, second.name}


def test_the_reward_is_chosen_by_name(job):
    edit(
        trial_file(job),
        lambda r: r["verifier_result"].update(rewards={"reward": 0.0, "tests": 1.0}),
    )
    runs = read_harbor(job).set_index("trial_name")
    assert runs.loc["regex-log__b5Rk9Lm", "reward"] == 0.0
    with pytest.raises(
        ValueError,
        match=r"fix-git__A8cD3fG/result.json .*rewards has no 'tests' \(it has 'reward'\)",
    ):
        read_harbor(job, reward="tests")
    edit(trial_file(job), lambda r: r["verifier_result"].update(rewards={"a": 1.0, "b": 0.0}))
    with pytest.raises(
        ValueError,
        match=r"b5Rk9Lm/result.json \(task_name 'terminal-bench/regex-log'\).*no 'reward'.*reward=",
    ):
        read_harbor(job)


def test_a_threshold_judges_other_scales(job):
    edit(trial_file(job), lambda r: r["verifier_result"].update(rewards={"reward": 7.0}))
    with pytest.raises(ValueError, match=r"b5Rk9Lm.*reward is 7.0, outside \[0, 1\]"):
        read_harbor(job)
    runs = read_harbor(job, threshold=0.5).set_index("trial_name")
    assert runs.loc["regex-log__b5Rk9Lm", "passed"]


def test_the_sniff_tells_harbor_folders_and_files(tmp_path):
    for path in (JOB, FIXTURE, JOB / "fix-git__zQ7mK2p", JOB / "result.json"):
        assert is_harbor(path)
    assert is_harbor(JOB / "fix-git__zQ7mK2p" / "result.json")
    (tmp_path / "results.json").write_text('[{"task_id": 0, "trial": 0, "reward": 1.0}]')
    (tmp_path / "log.json").write_text('{"eval": {}, "samples": []}')
    assert not is_harbor(tmp_path / "results.json")
    assert not is_harbor(tmp_path / "log.json")
    assert not is_harbor(tmp_path)


# --- refusals ---------------------------------------------------------------------------


def test_a_task_with_fewer_trials_than_n_attempts_is_refused(job):
    shutil.rmtree(job / "regex-log__b5Rk9Lm")
    edit(job / "result.json", lambda r: r.update(n_total_trials=11))
    with pytest.raises(
        ValueError,
        match=r"task \('terminus-2', 'claude-sonnet-4-5', 'terminal-bench/regex-log'\) has 1 of "
        r"the 2 trials .*config.json \(n_attempts\) declares: trial 1 is missing.*partial=True",
    ):
        read_harbor(job)
    assert len(read_harbor(job, partial=True)) == 11


def test_a_job_with_fewer_trials_than_n_total_trials_is_refused(job):
    for folder in job.glob("sqlite-with-gcov__*"):
        shutil.rmtree(folder)
    with pytest.raises(ValueError, match=r"8 of the 12 trials .*n_total_trials.*partial=True"):
        read_harbor(job)
    assert len(read_harbor(job, partial=True)) == 8


def test_an_unfinished_trial_is_refused(job):
    (job / "regex-log__b5Rk9Lm" / "result.json").unlink()
    with pytest.raises(
        ValueError,
        match=r"1 trial folder\(s\) have no result.json \(regex-log__b5Rk9Lm\).*partial=True",
    ):
        read_harbor(job)
    assert len(read_harbor(job, partial=True)) == 11


def test_a_default_n_attempts_is_one(job):
    edit(job / "config.json", lambda r: r.pop("n_attempts"))
    with pytest.raises(
        ValueError, match=r"trial is 1, but .*config.json \(n_attempts\) declares 1"
    ):
        read_harbor(job)


def test_a_trial_without_trial_name_is_refused(job):
    edit(trial_file(job), lambda r: r.pop("trial_name"))
    with pytest.raises(
        ValueError,
        match=r"b5Rk9Lm/result.json \(task_name 'terminal-bench/regex-log'\): no trial_name; every",
    ):
        read_harbor(job)


def test_a_trial_without_task_name_is_refused(job):
    edit(trial_file(job), lambda r: r.update(task_name=None))
    with pytest.raises(ValueError, match=r"b5Rk9Lm/result.json: no task_name"):
        read_harbor(job)


def test_a_copied_trial_is_refused(job):
    shutil.copytree(job / "regex-log__b5Rk9Lm", job / "regex-log__b5Rk9Lm copy")
    edit(job / "result.json", lambda r: r.update(n_total_trials=13))
    with pytest.raises(
        ValueError,
        match=r"b5Rk9Lm copy/result.json .*trial_name 'regex-log__b5Rk9Lm' is recorded twice",
    ):
        read_harbor(job)


@pytest.mark.parametrize(
    ("rewards", "message"),
    [
        ({"reward": "1.0"}, r"rewards.reward is '1.0', text"),
        ({"reward": None}, r": no verifier_result.rewards.reward; a reward is a number"),
        ({"reward": 1.5}, r"reward is 1.5, outside \[0, 1\]"),
        ({}, r"rewards is \{\}, an empty object; Harbor's rewards are an object"),
    ],
)
def test_a_bad_reward_is_refused(job, rewards, message):
    edit(trial_file(job), lambda r: r["verifier_result"].update(rewards=rewards))
    with pytest.raises(
        ValueError,
        match=r"b5Rk9Lm/result.json \(task_name 'terminal-bench/regex-log'\).*" + message,
    ):
        read_harbor(job)


def test_a_nan_reward_is_refused(job):
    file = trial_file(job)
    file.write_text(file.read_text().replace('"reward": 1.0', '"reward": NaN'))
    with pytest.raises(ValueError, match=r"b5Rk9Lm.*rewards.reward is nan, not a finite number"):
        read_harbor(job)


def test_a_trial_with_neither_rewards_nor_exception_is_refused(job):
    edit(trial_file(job), lambda r: r.update(verifier_result=None))
    with pytest.raises(
        ValueError, match=r"b5Rk9Lm.*no verifier_result.rewards and no exception_info"
    ):
        read_harbor(job)


def test_a_file_that_is_not_json_or_cut_short_is_refused(job):
    file = trial_file(job)
    text = file.read_text()
    file.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match=r"b5Rk9Lm/result.json: not valid JSON .*ends early"):
        read_harbor(job)
    file.write_text("task_name: regex-log")
    with pytest.raises(ValueError, match=r"b5Rk9Lm/result.json: not valid JSON"):
        read_harbor(job)


def test_a_wrong_top_level_shape_is_refused(job):
    trial_file(job).write_text("[1, 2]")
    with pytest.raises(
        ValueError,
        match=r"b5Rk9Lm/result.json: the file is \[.*\], a list; a Harbor trial's result",
    ):
        read_harbor(job)


def test_a_bad_time_is_refused(job):
    edit(trial_file(job), lambda r: r.update(started_at="yesterday"))
    with pytest.raises(ValueError, match=r"b5Rk9Lm.*started_at is 'yesterday', not an ISO 8601"):
        read_harbor(job)


def test_a_folder_without_trials_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="no finished Harbor trial"):
        read_harbor(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such Harbor"):
        read_harbor(tmp_path / "missing")


def test_a_trial_folder_among_job_folders_is_refused(job):
    shutil.copytree(job / "regex-log__b5Rk9Lm", job.parent / "regex-log__b5Rk9Lm")
    with pytest.raises(ValueError, match=r"regex-log__b5Rk9Lm: a trial folder among job folders"):
        read_harbor(job.parent)
