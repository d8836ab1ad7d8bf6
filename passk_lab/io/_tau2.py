"""tau2-bench results: one JSON ``Results`` file, or ``results.json`` beside ``simulations/``."""

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
from passk_lab._errors import with_keywords
from passk_lab._files import check_regular
from passk_lab.io._json_files import load_json, result_files
from passk_lab.io._records import (
    array,
    check_partial,
    check_trials,
    integer,
    mapping,
    number,
    refusal,
    task_id,
    text,
    trial_number,
)

__all__ = ["TERMINATION_KINDS", "is_tau2", "read_tau2"]

TERMINATION_KINDS: dict[str, str | None] = {
    "agent_stop": None,
    "user_stop": None,
    "max_steps": "agent",
    "too_many_errors": "agent",
    "agent_error": "agent",
    "context_window_exceeded": "agent",
    "timeout": "timeout",
    "user_error": "infrastructure",
    "infrastructure_error": "infrastructure",
    "unexpected_error": "infrastructure",
}
"""Each ``termination_reason`` tau2-bench writes, and the error kind :func:`read_tau2` gives it.

None for a run that ended normally (the agent or the user stopped). The agent's own endings
(it ran out of steps, made too many tool errors, broke the protocol, overflowed its context)
are of kind ``"agent"``: failed runs under either error policy. The others did not measure the
agent -- the simulated user broke the protocol, the infrastructure failed, the simulation hit
its wall-clock limit, or raised an exception tau2 does not attribute -- and are left out under
``errors="exclude"``. The names are those of ``TerminationReason`` in tau2-bench's
``src/tau2/data_model/simulation.py``."""

_SIMULATIONS = "simulations"
_RESULTS = "results.json"
_WHAT = (
    "a tau2-bench results file is a JSON object with info, tasks and simulations (or, in the "
    "folder format, results.json beside a simulations/ folder)"
)
_NUMBER = "tau2-bench writes a number or null"
_SEED = "tau2-bench writes an integer (within int64) or null"
_SNIFF = re.compile(
    r'\A\s*\{\s*("timestamp"\s*:\s*("[^"]*"|null)\s*,\s*)?"info"\s*:\s*\{.*?"num_trials"\s*:',
    re.DOTALL,
)


def read_tau2(path: str | Path | Sequence[str | Path], *, partial: bool = False) -> pd.DataFrame:
    """Read tau2-bench results into a runs table.

    tau2-bench saves an evaluation in one of two formats: a single JSON file holding its
    ``Results`` (``timestamp``, ``info``, ``tasks``, ``simulations``), or a folder with
    ``results.json`` (the same without ``simulations``, with a ``simulation_index``) and a
    ``simulations/`` folder of one ``<id>.json`` file per run. Both are read the same way:
    one row per simulation, a pass when its ``reward_info.reward`` is within 1e-6 of 1, as
    tau2-bench decides.

    A run whose ``termination_reason`` is not ``agent_stop`` or ``user_stop`` ended early,
    and its ``error`` says how; :data:`TERMINATION_KINDS` gives its ``error_kind``. The
    agent's own endings (``max_steps``, ``too_many_errors``, ``agent_error``,
    ``context_window_exceeded``) fail under either error policy; a failure of the
    infrastructure or of the simulated user (``infrastructure_error``, ``user_error``,
    ``unexpected_error``) or the wall-clock ``timeout`` did not measure the agent: a failed
    run by default, left out with ``errors="exclude"``. docs/reading.md ("tau2-bench") sets
    out the columns, the refusals and tau2's own two conventions for errored trials.

    Parameters
    ----------
    path : str, pathlib.Path or sequence of them
        A results file, a folder in the folder format (or its ``results.json``), a folder
        of results files, a glob pattern or a list of files; several evaluations give one
        table, told apart by ``model``, ``domain`` and ``file``.
    partial : bool
        Read an evaluation that has fewer trials of a task than its ``info.num_trials``
        declares (one that stopped early, or lost records). By default such a file is
        refused, since a lost run would go uncounted.

    Returns
    -------
    DataFrame
        One row per simulation, in the file's order (the folder format: the order of
        ``simulation_index``, else of the file names), with columns ``task``
        (``task_id``, as text), ``run`` (``trial``), ``passed``, ``reward``
        (``reward_info.reward``; missing for a run tau2 never scored), ``error`` (the
        ``termination_reason`` of a run that ended early, with ``info.error`` when tau2
        recorded one; missing otherwise), ``error_kind``, ``termination_reason``,
        ``cost_usd`` (``agent_cost``, missing when unrecorded), ``user_cost``,
        ``duration_s`` (``duration``), ``start_time``, ``simulation_id`` (``id``),
        ``seed``, ``model`` (``info.agent_info.llm``), ``agent``
        (``info.agent_info.implementation``), ``user_model`` (``info.user_info.llm``),
        ``domain`` (``info.environment_info.domain_name``) and ``file``.
        ``attrs["files"]`` lists the results files read.

    Raises
    ------
    ValueError
        If a file is not JSON (or is cut short) or not a tau2-bench ``Results``; a
        simulation lacks ``task_id`` or ``trial``, has a ``termination_reason`` tau2 does
        not write, a reward that is not a number in [0, 1], or no reward although it ended
        normally (it was never evaluated: run tau2's evaluation first); ``info.num_trials``
        is missing or not an integer >= 1, or an ``info`` entry is not an object; a trial
        appears twice, or past ``info.num_trials``; a task has fewer trials than that
        (without `partial`); or the folder format's ``simulations/`` disagrees with its
        ``simulation_index`` (a file missing or extra, an id listed twice, a file whose
        ``id`` is not its name). The
        message names the file, the simulation and the field.
    FileNotFoundError
        If no file matches `path`.
    TypeError
        If `partial` is not True or False.

    Examples
    --------
    >>> import json, tempfile, pathlib, passk_lab as pk
    >>> def simulation(task, trial, reward, ending="user_stop"):
    ...     return {"id": f"{task}-{trial}", "task_id": task, "trial": trial,
    ...             "termination_reason": ending, "agent_cost": 0.01, "duration": 30.0,
    ...             "reward_info": None if reward is None else {"reward": reward}}
    >>> results = {
    ...     "timestamp": "2025-07-17T15:10:58", "tasks": [{"id": "0"}, {"id": "1"}],
    ...     "info": {"num_trials": 2, "agent_info": {"llm": "gpt-4.1"},
    ...              "environment_info": {"domain_name": "airline"}},
    ...     "simulations": [simulation("0", 0, 1.0), simulation("0", 1, 0.0, "max_steps"),
    ...                     simulation("1", 0, 1.0),
    ...                     simulation("1", 1, None, "infrastructure_error")]}
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "gpt-4.1_airline.json"
    >>> _ = file.write_text(json.dumps(results))
    >>> runs = read_tau2(file)
    >>> runs[["task", "run", "passed", "error_kind", "cost_usd", "model", "domain"]]
      task  run  passed      error_kind  cost_usd    model   domain
    0    0    0    True             NaN      0.01  gpt-4.1  airline
    1    0    1   False           agent      0.01  gpt-4.1  airline
    2    1    0    True             NaN      0.01  gpt-4.1  airline
    3    1    1   False  infrastructure      0.01  gpt-4.1  airline
    >>> pk.error_sensitivity(runs)[["k", "pass_pow_k_fail", "pass_pow_k_exclude"]]
       k  pass_pow_k_fail  pass_pow_k_exclude
    0  1              0.5                0.75
    1  2              0.0                0.00
    """
    check_partial(partial)
    sources = _sources(path)
    frames = [_read_results(results, folder, partial) for results, folder in sources]
    runs = pd.concat(frames, ignore_index=True)
    runs.attrs["files"] = [str(results) for results, _ in sources]
    return runs


def is_tau2(path: Path) -> bool:
    """Tell tau2-bench results by their shape, reading at most a file's first 64 KB.

    A folder holding ``results.json`` and ``simulations/`` (or that ``results.json``), or a
    ``.json`` object whose ``info`` declares ``num_trials``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = file.write_text('{"timestamp": "2025-07-17", "info": {"num_trials": 4}}')
    >>> is_tau2(file), is_tau2(file.parent)
    (True, False)
    """
    if os.path.isdir(path):
        return os.path.isfile(path / _RESULTS) and os.path.isdir(path / _SIMULATIONS)
    if path.suffix.lower() != ".json":
        return False
    if path.name == _RESULTS and os.path.isdir(path.parent / _SIMULATIONS):
        return True
    with path.open(encoding="utf-8", errors="replace") as text:
        head = text.read(65536)
    return _SNIFF.match(head) is not None


def _sources(path: str | Path | Sequence[str | Path]) -> list[tuple[Path, Path | None]]:
    """Return each evaluation to read: its results file and, in the folder format, its folder."""
    if isinstance(path, str | Path) and os.path.isdir(path):
        folder = Path(path)
        if os.path.exists(folder / _RESULTS) and os.path.isdir(folder / _SIMULATIONS):
            check_regular(folder / _RESULTS, "tau2-bench results file")
            return [(folder / _RESULTS, folder / _SIMULATIONS)]
    files = result_files(path, "tau2-bench results file")
    return [
        (file, file.parent / _SIMULATIONS if os.path.isdir(file.parent / _SIMULATIONS) else None)
        for file in files
    ]


def _read_results(file: Path, folder: Path | None, partial: bool) -> pd.DataFrame:
    """Return one evaluation's rows: its simulations, checked against its declared trials."""
    results = load_json(file, _WHAT, kind=dict)
    info = mapping(
        results.get("info"), str(file), "info", f"{_WHAT} (its keys: {sorted(results)[:8]})"
    )
    if "simulations" in results and results["simulations"] is not None:
        simulations, names = _inline(file, results["simulations"])
    elif folder is not None:
        simulations, names = _folder(file, folder, results.get("simulation_index"))
    else:
        raise ValueError(
            f"{file}: a tau2-bench results file with no simulations and no simulations/ folder "
            f"beside it; give the monolithic results file, or the folder that holds "
            f"results.json and simulations/"
        )
    if not simulations:
        raise ValueError(f"{file}: no simulations; an evaluation with no run has nothing to read")
    frame = _frame(file, simulations, names)
    _check_trials(file, frame, names, results, info, partial)
    agent, user, environment = (
        _object(file, info, name) for name in ("agent_info", "user_info", "environment_info")
    )
    rows = len(frame)
    for column, value in [
        ("model", agent.get("llm")),
        ("agent", agent.get("implementation")),
        ("user_model", user.get("llm")),
        ("domain", environment.get("domain_name")),
        ("file", file.name),
    ]:
        frame[column] = pd.Series([value] * rows, dtype="str")
    return frame


def _object(file: Path, info: dict[str, Any], name: str) -> dict[str, Any]:
    """Return ``info[name]``, an object or absent (``{}``), refusing any other value."""
    value = info.get(name)
    if value is None:
        return {}
    rule = "tau2-bench writes an object (the model and domain columns come from it)"
    return mapping(value, str(file), f"info.{name}", rule)


def _inline(file: Path, simulations: object) -> tuple[list[Any], list[str]]:
    """Return the simulations a results file holds, and how messages name each."""
    simulations = array(
        simulations, str(file), "simulations", "tau2-bench writes a list of simulation runs"
    )
    return simulations, [f"{file}, simulation {number}" for number in range(len(simulations))]


def _folder(file: Path, folder: Path, index: object) -> tuple[list[Any], list[str]]:
    """Read the folder format's simulation files, checked against the index as tau2 does."""
    on_disk = {path.stem: path for path in sorted(folder.glob("*.json"))}
    if index is not None:
        if not isinstance(index, list) or not all(
            isinstance(entry, dict) and isinstance(entry.get("id"), str) for entry in index
        ):
            raise ValueError(
                f"{file}: simulation_index must be a list of objects with an id, as tau2-bench "
                f"writes it"
            )
        order = [entry["id"] for entry in index]
        repeated = next((name for name in order if order.count(name) > 1), None)
        if repeated is not None:
            raise ValueError(
                f"{file}: simulation_index lists {repeated} more than once; each simulation is "
                f"one file, listed once: re-save the results"
            )
        missing = [name for name in order if name not in on_disk]
        extra = sorted(set(on_disk) - set(order))
        if missing or extra:
            problems = [
                f"simulation_index lists {len(missing)} simulation(s) with no file in "
                f"{folder} (first: {missing[0]}.json)"
                if missing
                else "",
                f"{folder} holds {len(extra)} file(s) the index does not list (first: "
                f"{extra[0]}.json)"
                if extra
                else "",
            ]
            raise ValueError(
                f"{file}: {'; '.join(problem for problem in problems if problem)}; the folder "
                f"is incomplete or mixes evaluations: restore the files, or re-save the results"
            )
    else:
        order = list(on_disk)
    simulations = [
        load_json(on_disk[name], "a tau2-bench simulation file is a JSON object", kind=dict)
        for name in order
    ]
    for name, simulation in zip(order, simulations, strict=True):
        if simulation.get("id") != name:
            raise ValueError(
                f"{on_disk[name]}: id is {simulation.get('id')!r}, not the file's name; tau2-bench "
                f"saves each simulation as <id>.json: the file was renamed or copied"
            )
    return simulations, [str(on_disk[name]) for name in order]


def _frame(file: Path, simulations: list[Any], names: list[str]) -> pd.DataFrame:
    """Return the simulations' rows, each field checked; `names` gains each one's task_id."""
    count = len(simulations)
    tasks: list[int | str] = []
    trials: list[int] = []
    endings: list[str] = []
    errors: list[str | None] = []
    kinds: list[str | None] = []
    rewards = np.full(count, math.nan)
    agent_costs = np.full(count, math.nan)
    user_costs = np.full(count, math.nan)
    durations = np.full(count, math.nan)
    starts: list[object] = []
    ids: list[object] = []
    seeds: list[int | None] = []
    for position, simulation in enumerate(simulations):
        where = names[position]
        mapping(simulation, where, "the simulation", "tau2-bench writes a JSON object")
        task = task_id(simulation.get("task_id"), where)
        where = f"{where} (task_id {task!r})"
        names[position] = where
        tasks.append(str(task))
        trials.append(trial_number(simulation.get("trial"), where))
        ending = _ending(simulation.get("termination_reason"), where)
        endings.append(ending)
        kind = TERMINATION_KINDS[ending]
        kinds.append(kind)
        errors.append(None if kind is None else _error(ending, simulation.get("info")))
        rewards[position] = _reward(simulation.get("reward_info"), kind, where)
        agent_costs[position] = _number(simulation, "agent_cost", where)
        user_costs[position] = _number(simulation, "user_cost", where)
        durations[position] = _number(simulation, "duration", where)
        starts.append(simulation.get("start_time"))
        ids.append(simulation.get("id"))
        seed = simulation.get("seed")
        seeds.append(None if seed is None else integer(seed, where, "seed", _SEED))
    scored = ~np.isnan(rewards)
    passed = np.zeros(count, dtype=bool)
    rows = np.flatnonzero(scored)
    passed[rows] = decide(rewards[rows], None, lambda row: names[rows[row]], "reward_info.reward")
    return pd.DataFrame(
        {
            "task": pd.Series(tasks, dtype="str"),
            "run": np.asarray(trials, dtype=np.int64),
            "passed": passed,
            "reward": rewards,
            "error": pd.Series(errors, dtype="str"),
            "error_kind": pd.Categorical(kinds, categories=ERROR_KINDS),
            "termination_reason": pd.Series(endings, dtype="str"),
            "cost_usd": agent_costs,
            "user_cost": user_costs,
            "duration_s": durations,
            "start_time": pd.Series(starts, dtype="str"),
            "simulation_id": pd.Series(ids, dtype="str"),
            "seed": pd.array(seeds, dtype="Int64"),
        }
    )


def _error(ending: str, info: object) -> str:
    """Return the words of a run that ended early: its ending, and tau2's error if it kept one."""
    detail = info.get("error") if isinstance(info, dict) else None
    return f"{ending}: {detail}" if detail else ending


def _ending(value: object, where: str) -> str:
    """Return a simulation's termination_reason, one of :data:`TERMINATION_KINDS`."""
    rule = f"tau2-bench writes one of {', '.join(TERMINATION_KINDS)}"
    ending = text(value, where, "termination_reason", rule)
    if ending not in TERMINATION_KINDS:
        raise refusal(where, "termination_reason", ending, rule, "an unknown reason")
    return ending


def _reward(reward_info: object, kind: str | None, where: str) -> float:
    """Return a simulation's reward; NaN for a run that ended early and was never scored."""
    if reward_info is None or (isinstance(reward_info, dict) and reward_info.get("reward") is None):
        if kind is not None:
            return math.nan
        raise ValueError(
            f"{where}: no reward_info.reward, although the run ended normally: it was never "
            f"evaluated; score the simulations first (tau2 evaluate-trajs <paths> -o <dir>), "
            f"then read the scored results it writes, <dir>/updated_<name>"
        )
    reward_info = mapping(reward_info, where, "reward_info", "tau2-bench writes an object")
    return number(
        reward_info["reward"], where, "reward_info.reward", "a reward is a number in [0, 1]"
    )


def _number(simulation: dict[str, Any], field: str, where: str) -> float:
    """Return a numeric field of a simulation, NaN when absent, refusing anything else."""
    value = simulation.get(field)
    return math.nan if value is None else number(value, where, field, _NUMBER)


def _check_trials(
    file: Path,
    frame: pd.DataFrame,
    names: list[str],
    results: dict[str, Any],
    info: dict[str, Any],
    partial: bool,
) -> None:
    """Refuse a trial recorded twice and, unless `partial`, a task short of ``num_trials``."""
    declared = integer(
        info.get("num_trials"),
        str(file),
        "info.num_trials",
        "tau2-bench records the trials of each task there (an integer >= 1), and the reader "
        "checks every task has them",
        minimum=1,
    )
    tasks = frame["task"].tolist()
    check_trials(
        tasks,
        frame["run"].tolist(),
        names.__getitem__,
        declared=declared,
        declared_by=f"{file.name}'s info.num_trials",
        complete=not partial,
    )
    listed = results.get("tasks")
    if partial or not isinstance(listed, list):
        return
    seen = set(tasks)
    unrun = [
        str(task["id"])
        for task in listed
        if isinstance(task, dict) and task.get("id") is not None and str(task["id"]) not in seen
    ]
    if unrun:
        raise with_keywords(
            ValueError(
                f"{file}: task {unrun[0]!r} is in tasks but has none of the {declared} trials "
                f"info.num_trials declares ({len(unrun)} such task(s)); the run may have stopped "
                f"early or the file lost records: finish or re-run it, or pass partial=True to "
                f"read the trials that are there"
            ),
            "partial",
        )
