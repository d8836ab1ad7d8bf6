"""HAL (the Holistic Agent Leaderboard, princeton-pli/hal-harness) upload files: one run each.

HAL's ``BaseBenchmark.process_results`` writes ``results/<benchmark>/<run_id>/<run_id>_UPLOAD.json``
per evaluation: ``config`` (``agent_name``, ``benchmark_name``, ``date``, ``run_id``,
``agent_args``), ``results`` (the benchmark's metrics with ``successful_tasks`` and
``failed_tasks``, ``total_cost``, ``latencies``), ``raw_eval_results`` (the benchmark's own
per-task results), ``wall_clock_times`` and ``task_step_counts``. HAL has no trials option: each
evaluation is one run of every task, so the upload files of one agent, model and benchmark are
its trials.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._choices import ERROR_KINDS
from passk_lab._data.verdicts import decide
from passk_lab.io._json_files import load_json, result_files
from passk_lab.io._records import (
    absent,
    array,
    check_partial,
    check_trials,
    integer,
    mapping,
    number,
    refusal,
    task_id,
    text,
)

__all__ = ["is_hal", "read_hal"]

_WHAT = "a HAL upload file (<run_id>_UPLOAD.json) is a JSON object with config and raw_eval_results"
_UPLOAD = "_UPLOAD.json"
_SNIFF = re.compile(r'^\s*\{\s*"config"\s*:\s*\{')
# keys only HAL writes; a file not named *_UPLOAD.json needs one of them in its first 4 KB
_OWN_KEYS = ('"agent_name"', '"benchmark_name"', '"raw_eval_results"')
_COREBENCH = ("correct_written_answers", "correct_vision_answers")
_COUNTS = "CORE-Bench counts answers and questions as whole numbers of at least 0"
# raw_eval_results shapes of HAL benchmarks this reader does not map to tasks, by a key they hold
_UNSUPPORTED = {
    "sdict": "USACO",
    "resolved_ids": "SWE-bench",
    "details": "SciCode",
    "scores": "AssistantBench",
    "eval_result": "ScienceAgentBench",
}


def read_hal(
    path: str | Path | Sequence[str | Path],
    *,
    threshold: float | None = None,
    partial: bool = False,
) -> pd.DataFrame:
    """Read HAL upload files into a runs table, one run per task and file.

    Each file is one evaluation, so one trial of every task it holds. The files of one agent
    (``config.agent_name``), model (``config.agent_args.model_name``) and benchmark
    (``config.benchmark_name``) are its trials 0, 1, 2, ... in the order of ``config.date``,
    then ``config.run_id`` (HAL's default run id ends in the Unix time it started); the same
    agent with another model is another evaluation. Every task should have a run in every file
    of its agent, model and benchmark; a task missing from one is refused unless
    ``partial=True``.

    ``raw_eval_results`` is read in three shapes, told by the first task whose result is an
    object: tasks whose results hold a ``reward`` or a ``score`` (or HAL's ``"ERROR: ..."``
    text, a failed run), CORE-Bench's counts of correct answers, and AppWorld's
    ``individual`` results; docs/reading.md ("HAL (Holistic Agent Leaderboard) upload files")
    says how each becomes a reward and an error. Other benchmarks' shapes are refused.

    Parameters
    ----------
    path : str, pathlib.Path or sequence of them
        One upload file, a folder (every ``*_UPLOAD.json`` under it), a glob or a list.
    threshold : float, optional
        The reward a run needs to pass; by default a reward of 1 (rewards in [0, 1]).
    partial : bool
        Read tasks that miss a run in some file of their agent, model and benchmark.

    Returns
    -------
    DataFrame
        ``task``, ``run``, ``passed``, ``reward``, ``error``, ``error_kind``, ``agent_name``,
        ``benchmark`` (``config.benchmark_name``), ``run_id``, ``date``, ``model``
        (``config.agent_args.model_name``), ``duration_s`` (``wall_clock_times``),
        ``latency_s`` (``results.latencies[task].total_time``, first to last model call),
        ``step_count`` (``task_step_counts``) and ``file``; missing where the file has none.
        ``attrs["files"]`` lists the files in trial order and ``attrs["total_cost"]`` maps each
        to its ``total_cost`` (HAL records cost per evaluation, not per task).

    Raises
    ------
    ValueError
        If a file is not JSON, is not an upload file, has a shape of ``raw_eval_results``
        not read here, a reward that is not a finite number (a boolean is not one; outside
        [0, 1] by default), CORE-Bench counts that are not whole numbers within their totals,
        ``results.successful_tasks``/``failed_tasks`` that is not a list or names a task with
        no result, a run id read twice, or (without `partial`) a task missing from a file of
        its agent, model and benchmark.
    TypeError
        If `partial` is not True or False.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for run_id, rewards in (("tb_1", [1.0, 0.0]), ("tb_2", [1.0, 1.0])):
    ...     upload = {
    ...         "config": {"agent_name": "react", "benchmark_name": "taubench_airline",
    ...                    "date": "2025-01-01", "run_id": run_id,
    ...                    "agent_args": {"model_name": "gpt-4o"}},
    ...         "results": {"successful_tasks": [], "failed_tasks": []},
    ...         "raw_eval_results": {"0": {"reward": rewards[0]}, "1": {"reward": rewards[1]}},
    ...     }
    ...     _ = (folder / f"{run_id}_UPLOAD.json").write_text(json.dumps(upload))
    >>> runs = read_hal(folder)
    >>> runs[["task", "run", "passed", "run_id", "model"]]
      task  run  passed run_id   model
    0    0    0    True   tb_1  gpt-4o
    1    1    0   False   tb_1  gpt-4o
    2    0    1    True   tb_2  gpt-4o
    3    1    1    True   tb_2  gpt-4o
    """
    check_partial(partial)
    files = result_files(path, "HAL upload file", within=f"*{_UPLOAD}")
    loaded = [(file, _upload(file)) for file in files]
    groups: dict[tuple[str, str, str | None], list[tuple[Path, dict[str, Any]]]] = {}
    for file, upload in loaded:
        config = upload["config"]
        key = (config["agent_name"], config["benchmark_name"], _model(config))
        groups.setdefault(key, []).append((file, upload))
    frames: list[pd.DataFrame] = []
    ordered: list[Path] = []
    for key, members in groups.items():
        members.sort(
            key=lambda item: (str(item[1]["config"].get("date", "")), item[1]["config"]["run_id"])
        )
        seen: dict[str, Path] = {}
        for file, upload in members:
            run_id = upload["config"]["run_id"]
            if run_id in seen:
                raise ValueError(
                    f"{file}: config.run_id {run_id!r} is also the run id of {seen[run_id]}; "
                    f"one evaluation read twice would count its runs twice: leave one out"
                )
            seen[run_id] = file
        group = [
            _read_file(file, upload, trial, threshold)
            for trial, (file, upload) in enumerate(members)
        ]
        runs = pd.concat(group, ignore_index=True)
        _check_runs(runs, members, key, partial)
        frames.append(runs)
        ordered.extend(file for file, _ in members)
    result = pd.concat(frames, ignore_index=True)
    result.attrs["files"] = [str(file) for file in ordered]
    result.attrs["total_cost"] = {str(file): upload.get("total_cost") for file, upload in loaded}
    return result


def is_hal(path: Path) -> bool:
    """Tell HAL upload files by their name or first 4 KB.

    A ``*_UPLOAD.json`` file, a ``.json`` object opening with ``"config": {`` that holds one of
    HAL's own keys (``agent_name``, ``benchmark_name``, ``raw_eval_results``) in its first
    4 KB, or a folder holding ``*_UPLOAD.json`` files.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "gaia_1_UPLOAD.json").write_text('{"config": {}}')
    >>> is_hal(folder), is_hal(folder / "gaia_1_UPLOAD.json")
    (True, True)
    """
    if os.path.isdir(path):
        return next(path.rglob(f"*{_UPLOAD}"), None) is not None
    if path.suffix.lower() != ".json":
        return False
    if path.name.endswith(_UPLOAD):
        return True
    with path.open(encoding="utf-8", errors="replace") as text:
        head = text.read(4096)
    return _SNIFF.match(head) is not None and any(key in head for key in _OWN_KEYS)


def _check_runs(
    runs: pd.DataFrame,
    members: list[tuple[Path, dict[str, Any]]],
    key: tuple[str, str, str | None],
    partial: bool,
) -> None:
    """Refuse a task missing from a file of its agent, model and benchmark, unless `partial`."""
    files = runs["file"].tolist()
    tasks = runs["task"].tolist()
    check_trials(
        tasks,
        runs["run"].tolist(),
        lambda row: f"{files[row]}, task {tasks[row]!r}",
        declared=None if partial else len(members),
        declared_by=(
            f"the {len(members)} upload file(s) of agent {key[0]!r} with model {key[2]!r} "
            f"on {key[1]!r}"
        ),
        field="run",
    )


def _upload(file: Path) -> dict[str, Any]:
    """Return an upload file's object, checked to hold the config fields that tell runs apart."""
    upload: dict[str, Any] = load_json(file, _WHAT, kind=dict)
    config = mapping(upload.get("config"), str(file), "config", _WHAT)
    for field in ("agent_name", "benchmark_name", "run_id"):
        rule = "HAL writes it as text, and the reader needs it to tell runs apart"
        text(config.get(field), str(file), f"config.{field}", rule, empty=False)
    if config.get("prompt_sensitivity"):
        raise ValueError(
            f"{file}: config.prompt_sensitivity is true: raw_eval_results holds prompt variations "
            f"per task, not one run; such files are not read"
        )
    if "raw_eval_results" not in upload:
        raise ValueError(f"{file}: no raw_eval_results; {_WHAT}")
    return upload


def _model(config: dict[str, Any]) -> str | None:
    """Return ``config.agent_args.model_name`` as text, None when the file has none."""
    model = _object(config, "agent_args").get("model_name")
    return None if model is None else str(model)


def _reward(value: object, where: str, field: str) -> float:
    """Return a reward: a finite number, not a boolean."""
    return number(value, where, field, "a reward is a finite number (in [0, 1] by default)")


def _counts(value: dict[str, Any], where: str) -> float:
    """Return CORE-Bench's reward: correct answers over questions, refusing bad counts."""
    right, total = 0, 0
    for kind in ("written", "vision"):
        correct_field, total_field = f"correct_{kind}_answers", f"total_{kind}_questions"
        correct, questions = (
            integer(value.get(name), where, name, _COUNTS, minimum=0)
            for name in (correct_field, total_field)
        )
        if correct > questions:
            raise ValueError(
                f"{where}: {correct_field} is {correct}, more than {total_field} {questions}; "
                f"the counts are inconsistent: re-run CORE-Bench's evaluation"
            )
        right, total = right + correct, total + questions
    return right / total if total > 0 else 0.0


def _results(file: Path, raw: object) -> tuple[dict[str, Any], str]:
    """Return the per-task results and the shape's name, refusing shapes not read here."""
    if isinstance(raw, dict) and isinstance(raw.get("individual"), dict):
        return raw["individual"], "appworld"
    if not isinstance(raw, dict) or not raw:
        rule = "read are objects of tasks (tau-bench, GAIA, CORE-Bench) and AppWorld's"
        raise refusal(
            str(file), "raw_eval_results", raw, rule, "an empty object" if raw == {} else None
        )
    for key, benchmark in _UNSUPPORTED.items():
        if key in raw:
            raise ValueError(
                f"{file}: raw_eval_results holds {key!r}, {benchmark}'s report, which does not "
                f"give one result per task in the shape read here (found keys "
                f"{sorted(raw)[:6]}); convert it to a runs table for read_runs"
            )
    first = next((value for value in raw.values() if isinstance(value, dict)), None)
    if first is not None and all(field in first for field in _COREBENCH):
        return raw, "corebench"
    return raw, "tasks"


def _read_file(
    file: Path, upload: dict[str, Any], trial: int, threshold: float | None
) -> pd.DataFrame:
    """Return one upload file's rows: one run (`trial`) of every task it holds."""
    config = upload["config"]
    per_task, shape = _results(file, upload["raw_eval_results"])
    results = _object(upload, "results")
    for listed in ("successful_tasks", "failed_tasks"):
        listed_tasks = results.get(listed)
        if listed_tasks is None:
            continue
        rule = "HAL writes a list of task ids"
        for task in array(listed_tasks, str(file), f"results.{listed}", rule):
            if str(task) not in per_task:
                raise ValueError(
                    f"{file}: task {task!r} is in results.{listed} but has no result in "
                    f"raw_eval_results; the file is inconsistent: re-run HAL's evaluation"
                )
    latencies = _object(results, "latencies")
    walls = _object(upload, "wall_clock_times")
    steps = _object(upload, "task_step_counts")
    size = len(per_task)
    tasks: list[int | str] = []
    rewards = np.empty(size, dtype=np.float64)
    errors: list[str | None] = []
    kinds: list[str | None] = []
    for position, (name, value) in enumerate(per_task.items()):
        where = f"{file}, raw_eval_results[{name!r}]"
        if not name:
            raise ValueError(
                f"{where}: the task id is empty; every run needs the task it belongs to"
            )
        tasks.append(task_id(name, where))
        rewards[position], error, kind = _task_result(value, shape, where)
        errors.append(error)
        kinds.append(kind)
    names = list(per_task)
    passed = decide(rewards, threshold, lambda row: f"{file}, raw_eval_results[{names[row]!r}]")
    model = _model(config)
    return pd.DataFrame(
        {
            "task": tasks,
            "run": np.full(size, trial, dtype=np.int64),
            "passed": passed,
            "reward": rewards,
            "error": pd.Series(errors, dtype="str"),
            "error_kind": pd.Categorical(kinds, categories=ERROR_KINDS),
            "agent_name": pd.Series([config["agent_name"]] * size, dtype="str"),
            "benchmark": pd.Series([config["benchmark_name"]] * size, dtype="str"),
            "run_id": pd.Series([config["run_id"]] * size, dtype="str"),
            "date": pd.Series([config.get("date")] * size, dtype="str"),
            "model": pd.Series([model] * size, dtype="str"),
            "duration_s": _floats(walls, names, lambda entry: entry),
            "latency_s": _floats(
                latencies,
                names,
                lambda entry: entry.get("total_time") if isinstance(entry, dict) else None,
            ),
            "step_count": _floats(steps, names, lambda entry: entry),
            "file": pd.Series([file.name] * size, dtype="str"),
        }
    )


def _task_result(value: object, shape: str, where: str) -> tuple[float, str | None, str | None]:
    """Return a task's reward, error and error kind from its result in raw_eval_results."""
    if isinstance(value, str):  # HAL's "ERROR: ..." for a task whose agent failed
        return 0.0, value, "timeout" if "timed out" in value.lower() else "infrastructure"
    result = mapping(
        value, where, "the result", "a task's result is an object (or HAL's error text)"
    )
    if shape == "corebench":
        reward = _counts(result, where)
    elif shape == "appworld":
        if "success" not in result:
            raise absent(where, "success", "AppWorld's individual results hold one")
        success = result["success"]
        reward = float(success) if isinstance(success, bool) else _reward(success, where, "success")
    else:
        field = "reward" if "reward" in result else "score"
        if field not in result:
            raise ValueError(
                f"{where}: no reward or score (found keys {sorted(result)[:6]}); every "
                f"task's result needs one"
            )
        reward = _reward(result[field], where, field)
    if result.get("error"):
        return reward, str(result["error"]), "agent"
    return reward, None, None


def _object(parent: dict[str, Any], field: str) -> dict[str, Any]:
    """Return ``parent[field]`` when it is an object, an empty one otherwise."""
    value = parent.get(field)
    return value if isinstance(value, dict) else {}


def _floats(
    table: dict[str, Any], names: list[str], pick: Any
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Return each task's number from a per-task table, NaN where it has none or not a number."""
    out = np.full(len(names), math.nan)
    for row, name in enumerate(names):
        value = pick(table.get(name)) if name in table else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[row] = float(value)
    return out
