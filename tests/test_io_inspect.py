"""read_inspect_log against logs that Inspect AI itself writes, offline, in the test."""

from __future__ import annotations

import collections
import gc
import io
import math
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inspect_ai import Epochs, Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage
from inspect_ai.scorer import (
    Score,
    Target,
    accuracy,
    match,
    pass_at,
    pass_k,
    scorer,
    value_to_float,
)
from inspect_ai.solver import TaskState, generate

import passk_lab as pk
from passk_lab.cli import main
from passk_lab.io import read, read_inspect_log

EPOCHS = 5
PASSES = [5, 4, 3, 2, 1, 0, 5, 3]  # how many of its model calls answer "yes", per sample
BROKEN = (2, 1)  # sample 2's second model call raises: an errored run, never scored
KS = (1, 2, 3, 5)


def expected_tally() -> pd.DataFrame:
    """(n, c) per sample from PASSES and BROKEN alone, counting the errored run as failed."""
    rows = []
    for sample, passes in enumerate(PASSES):
        calls = [call < passes for call in range(EPOCHS)]
        if sample == BROKEN[0]:
            calls[BROKEN[1]] = False
        rows.append({"task": f"s{sample}", "n": EPOCHS, "c": sum(calls)})
    return pd.DataFrame(rows)


def mock_outputs():
    """Answer "yes" on a sample's first PASSES[i] calls, "no" after; fail the BROKEN call."""
    calls: collections.Counter[int] = collections.Counter()

    def output(messages, tools, tool_choice, config) -> ModelOutput:
        sample = int(messages[-1].text.split()[-1])
        call = calls[sample]
        calls[sample] += 1
        if (sample, call) == BROKEN:
            raise RuntimeError("connection reset by the mock provider")
        answer = "yes" if call < PASSES[sample] else "no"
        out = ModelOutput.from_content(model="mockllm/model", content=answer)
        # With usage set, the mock provider never downloads a tokenizer to count tokens.
        out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
        return out

    return output


@scorer(metrics=[accuracy()])
def graded():
    """A numeric scorer: 1.0 for "yes", 0.25 otherwise."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1.0 if state.output.completion == "yes" else 0.25)

    return score


def run_eval(task: Task, log_dir: Path, **options) -> EvalLog:
    with warnings.catch_warnings():
        # Inspect's own deprecation notices, and the streams its event loop leaves for the
        # garbage collector, are not this project's to fix: collect them here, silently.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", ResourceWarning)
        (log,) = eval(
            task,
            model="mockllm/model",
            model_args={"custom_outputs": mock_outputs()},
            log_dir=str(log_dir),
            display="none",
            **options,
        )
        gc.collect()
    assert log.status == "success"
    return log


@pytest.fixture(scope="session")
def inspect_log(tmp_path_factory) -> Path:
    """A real .eval log: 8 samples x 5 epochs, two scorers, Inspect's pass_at/pass_k reducers."""
    folder = tmp_path_factory.mktemp("inspect_logs")
    reducers = [pass_at(k) for k in KS] + [pass_k(k) for k in KS]
    task = Task(
        dataset=[Sample(input=f"question {i}", target="yes", id=f"s{i}") for i in range(8)],
        solver=generate(),
        scorer=[match(), graded()],
        epochs=Epochs(EPOCHS, reducers),
    )
    log = run_eval(task, folder, fail_on_error=False)
    return Path(log.location)


def reduced(log_path: Path, scorer_name: str) -> dict[str, float]:
    """The values Inspect reduced into the log: reducer name -> accuracy over samples."""
    header = read_eval_log(str(log_path), header_only=True)
    assert header.results is not None
    return {
        score.reducer: score.metrics["accuracy"].value
        for score in header.results.scores
        if score.scorer == scorer_name and score.reducer is not None
    }


# --- the round trip -----------------------------------------------------------------------


@pytest.mark.parametrize("scorer_name", ["match", "graded"])
def test_pass_pow_k_and_pass_at_k_equal_what_inspect_reduced(inspect_log, scorer_name):
    runs = read_inspect_log(inspect_log, scorer=scorer_name)
    values = reduced(inspect_log, scorer_name)
    assert sorted(values) == sorted([f"pass_at_{k}" for k in KS] + [f"pass_k_{k}" for k in KS])
    for k in KS:
        # Inspect scores no errored sample: its reading is errors="exclude".
        assert pk.pass_at_k(runs, k, errors="exclude") == pytest.approx(
            values[f"pass_at_{k}"], abs=1e-12
        )
        assert pk.pass_pow_k(runs, k, errors="exclude") == pytest.approx(
            values[f"pass_k_{k}"], abs=1e-12
        )


def test_per_sample_reductions_match_too(inspect_log):
    runs = read_inspect_log(inspect_log, scorer="match")
    log = read_eval_log(str(inspect_log))
    counts = pk.tally(runs, errors="exclude").set_index("task")
    for reduction in log.reductions or []:
        if reduction.scorer != "match":
            continue
        k = int(reduction.reducer.rsplit("_", 1)[1])
        for sample in reduction.samples:
            n, c = counts.loc[sample.sample_id, ["n", "c"]]
            if n < k:
                assert math.isnan(sample.value)
                continue
            ours = (
                math.comb(c, k) / math.comb(n, k)
                if reduction.reducer.startswith("pass_k")
                else 1 - math.comb(n - c, k) / math.comb(n, k)
            )
            assert ours == pytest.approx(sample.value, abs=1e-12)


def test_one_row_per_sample_and_epoch_with_the_pattern_the_mock_played(inspect_log):
    runs = read_inspect_log(inspect_log, scorer="match")
    assert len(runs) == 8 * EPOCHS
    assert runs.groupby("task")["run"].apply(sorted).tolist() == [list(range(EPOCHS))] * 8
    pd.testing.assert_frame_equal(
        pk.tally(runs)[["task", "n", "c"]], expected_tally(), check_dtype=False
    )
    errored = runs[runs["error"].notna()]
    assert errored["task"].tolist() == ["s2"]
    assert "connection reset by the mock provider" in errored["error"].iloc[0]
    assert not errored["passed"].any()
    assert np.isnan(errored["reward"].iloc[0])
    assert runs["limit"].isna().all()
    assert (runs["model"] == "mockllm/model").all()
    assert (runs["task_name"] == "task").all()
    assert (runs["scorer"] == "match").all()
    created = read_eval_log(str(inspect_log), header_only=True).eval.created
    assert (runs["created"] == pd.Timestamp(created)).all()
    assert str(runs["created"].dt.tz) == "UTC"
    assert runs.attrs == {"files": [str(inspect_log)], "n_unscored": 0}


def test_the_score_becomes_a_number_as_inspects_value_to_float_reads_it(inspect_log):
    letters = read_inspect_log(inspect_log, scorer="match")
    numbers = read_inspect_log(inspect_log, scorer="graded")
    to_float = value_to_float()
    log = read_eval_log(str(inspect_log))
    expected = {
        (sample.id, sample.epoch - 1): to_float(sample.scores["match"].value)
        for sample in log.samples or []
        if sample.scores
    }
    scored = letters.dropna(subset="reward")
    assert {
        (task, run): reward
        for task, run, reward in scored[["task", "run", "reward"]].itertuples(index=False)
    } == expected
    assert set(numbers["reward"].dropna()) == {1.0, 0.25}
    np.testing.assert_array_equal(letters["passed"], numbers["passed"])


def test_a_threshold_moves_the_verdict(inspect_log):
    runs = read_inspect_log(inspect_log, scorer="graded", threshold=0.25)
    assert runs["passed"].sum() == runs["reward"].notna().sum()  # every scored run passes


def test_the_json_format_and_a_log_directory_read_the_same(inspect_log, tmp_path):
    as_json = tmp_path / "nested" / inspect_log.with_suffix(".json").name
    as_json.parent.mkdir()
    write_eval_log(read_eval_log(str(inspect_log)), str(as_json))
    from_eval = read_inspect_log(inspect_log, scorer="match")
    from_json = read_inspect_log(as_json, scorer="match")
    columns = ["task", "run", "passed", "reward", "error", "model", "created"]
    pd.testing.assert_frame_equal(from_eval[columns], from_json[columns])
    from_folder = read_inspect_log(tmp_path, scorer="match")
    pd.testing.assert_frame_equal(from_folder[columns], from_json[columns])
    assert from_folder.attrs["files"] == [str(as_json)]


def test_files_in_a_directory_that_inspect_does_not_list_are_named_in_a_warning(
    inspect_log, tmp_path
):
    shutil.copy(inspect_log, tmp_path / inspect_log.name)
    write_eval_log(read_eval_log(str(inspect_log)), str(tmp_path / "renamed.json"))
    (tmp_path / "logs.json").write_text("{}")  # Inspect's own listing: not a log, no warning
    unlisted = r"1 file\(s\) in .* not named as Inspect logs .*renamed"
    with pytest.warns(UserWarning, match=unlisted) as caught:
        runs = read_inspect_log(tmp_path, scorer="match")
    assert len(runs) == 8 * EPOCHS
    with pytest.warns(UserWarning, match=unlisted) as through_read:
        pd.testing.assert_frame_equal(read(tmp_path, scorer="match"), runs)
    # however deep in the package it was raised, the warning names the line that asked
    assert [record.filename for record in [*caught, *through_read]] == [__file__, __file__]
    assert len(read_inspect_log(tmp_path / "renamed.json", scorer="match")) == 8 * EPOCHS


def test_limits_are_carried_over(tmp_path):
    task = Task(
        dataset=[Sample(input=f"question {i}", target="yes", id=i) for i in range(2)],
        solver=generate(),
        scorer=match(),
        message_limit=1,
    )
    log = run_eval(task, tmp_path)
    runs = read_inspect_log(log.location)
    assert runs["task"].tolist() == [0, 1]  # integer sample ids stay integers
    assert runs["limit"].tolist() == ["message", "message"]
    assert not runs["passed"].any()


# --- refusals -----------------------------------------------------------------------------


def test_several_scorers_need_a_choice_and_an_unknown_one_is_refused(inspect_log):
    name = inspect_log.name
    with pytest.raises(ValueError, match=rf"{name}: samples are scored by several scorers"):
        read_inspect_log(inspect_log)
    with pytest.raises(ValueError, match=rf"{name}: no scorer 'exact'; its samples are scored by"):
        read_inspect_log(inspect_log, scorer="exact")


def test_a_score_that_cannot_be_judged_is_refused(inspect_log, tmp_path):
    log = read_eval_log(str(inspect_log))
    assert log.samples is not None
    sample = log.samples[3]
    where = rf"odd\d\.json, sample '{sample.id}' epoch {sample.epoch}: scores\['match'\] is"
    for number, (value, refusal) in enumerate(
        [
            ("maybe", r"'maybe', which is neither a verdict \(C, I, P, N, yes, no"),
            (3.0, r"3\.0, outside \[0, 1\]"),
            ({"a": 1, "b": 0}, r"\{'a': 1, 'b': 0\}, a dict of several values"),
        ]
    ):
        sample.scores["match"].value = value  # type: ignore[index]
        write_eval_log(log, str(tmp_path / f"odd{number}.json"))
        with pytest.raises(ValueError, match=where + " " + refusal):
            read_inspect_log(tmp_path / f"odd{number}.json", scorer="match")


def test_an_unscored_sample_is_kept_flagged_and_counted(inspect_log, tmp_path):
    log = read_eval_log(str(inspect_log))
    assert log.samples is not None
    log.samples[0].scores = {"graded": log.samples[0].scores["graded"]}  # type: ignore[index]
    write_eval_log(log, str(tmp_path / "partial.json"))
    with pytest.warns(UserWarning, match="1 sample run") as caught:
        runs = read_inspect_log(tmp_path / "partial.json", scorer="match")
    assert caught[0].filename == __file__
    assert runs.attrs["n_unscored"] == 1
    assert len(runs) == 8 * EPOCHS
    assert runs["error"].eq("unscored: no 'match' score").sum() == 1


@pytest.mark.parametrize(
    ("cut", "name"), [(lambda data: data[: len(data) // 2], "cut.eval"), (None, "plain.json")]
)
def test_a_cut_or_foreign_file_is_refused(inspect_log, tmp_path, cut, name):
    path = tmp_path / name
    if cut is None:
        path.write_text('{"not": "an inspect log"}')
    else:
        path.write_bytes(cut(inspect_log.read_bytes()))
    with pytest.raises(ValueError, match=rf"{name}: not a readable Inspect log"):
        read_inspect_log(path)


def test_a_truncated_json_log_is_refused(inspect_log, tmp_path):
    path = tmp_path / "log.json"
    write_eval_log(read_eval_log(str(inspect_log)), str(path))
    path.write_text(path.read_text()[:5000])
    with pytest.raises(ValueError, match=r"log\.json: not a readable Inspect log"):
        read_inspect_log(path)


def test_missing_paths_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such Inspect log"):
        read_inspect_log(tmp_path / "nothing.eval")
    with pytest.raises(FileNotFoundError, match=r"no Inspect logs \(\.eval or \.json\)"):
        read_inspect_log(tmp_path)


def test_a_fifo_named_as_a_log_is_refused_before_it_is_opened(tmp_path):
    path = tmp_path / "2026-01-01T10-00-00+00-00_task_Ab3.eval"
    os.mkfifo(path)  # opened for reading, it would wait for a writer
    with pytest.raises(ValueError, match=r"_Ab3\.eval: not a regular file \(a FIFO\); give a log"):
        read_inspect_log(path)


def test_an_unfinished_eval_is_read_with_a_warning(inspect_log, tmp_path):
    log = read_eval_log(str(inspect_log))
    log.status = "cancelled"
    write_eval_log(log, str(tmp_path / "cancelled.json"))
    with pytest.warns(
        UserWarning, match=r"cancelled\.json: the eval's status is 'cancelled'"
    ) as caught:
        runs = read_inspect_log(tmp_path / "cancelled.json", scorer="match")
    assert caught[0].filename == __file__
    assert len(runs) == 8 * EPOCHS


def test_without_inspect_ai_the_message_names_the_extra(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def no_inspect(name, *args, **kwargs):
        if name.startswith("inspect_ai"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_inspect)
    with pytest.raises(ImportError, match=r"pip install 'passk-lab\[inspect\]'"):
        read_inspect_log(tmp_path)


def test_logs_of_two_models_are_told_apart_by_model(inspect_log, tmp_path):
    log = read_eval_log(str(inspect_log))
    shutil.copy(inspect_log, tmp_path / "a.eval")
    log.eval.model = "mockllm/other"
    write_eval_log(log, str(tmp_path / "b.eval"))
    runs = read_inspect_log(tmp_path, scorer="match")
    values = pk.pass_pow_k(runs, 2, by="model", errors="exclude")
    assert values.index.tolist() == ["mockllm/model", "mockllm/other"]
    assert (
        values.iloc[0]
        == values.iloc[1]
        == pk.pass_pow_k(read_inspect_log(inspect_log, scorer="match"), 2, errors="exclude")
    )


def test_analyze_reads_an_inspect_log_and_prints_inspects_values(inspect_log, capsys):
    for path in (inspect_log, inspect_log.parent):  # the .eval file, or its log directory
        args = ["analyze", str(path), "--scorer", "match", "--errors", "exclude", "--to", "csv"]
        assert main(args) == 0
        curve = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("k")
        values = reduced(inspect_log, "match")
        for k in KS:
            assert curve.loc[k, "pass_pow_k"] == pytest.approx(values[f"pass_k_{k}"], abs=1e-12)
            assert curve.loc[k, "pass_at_k"] == pytest.approx(values[f"pass_at_{k}"], abs=1e-12)
    with pytest.raises(SystemExit) as exited:
        main(["analyze", str(inspect_log)])
    assert exited.value.code == 2
    assert "choose one with scorer='...' (on the command line: scorer= is --scorer)" in (
        capsys.readouterr().err
    )


def test_report_reads_an_inspect_log_as_analyze_does(inspect_log, tmp_path, capsys):
    out = tmp_path / "report"
    args = ["report", str(inspect_log), "--scorer", "match", "--errors", "exclude"]
    assert main([*args, "--out", str(out), "--resamples", "500"]) == 0
    assert "report.html" in capsys.readouterr().out
    curve = pd.read_csv(out / "curve.csv", comment="#").set_index("k")
    values = reduced(inspect_log, "match")
    for k in KS:
        assert curve.loc[k, "pass_pow_k"] == pytest.approx(values[f"pass_k_{k}"], abs=1e-12)
    assert (out / "outcome_heatmap.png").exists()
