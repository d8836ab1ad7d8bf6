"""tau-bench results files: a JSON list with one record per run."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._data.verdicts import decide
from passk_lab._warnings import ReadWarning, warn
from passk_lab.io._json_files import load_json, result_files
from passk_lab.io._records import absent, json_kind, mapping, number, task_id, trial_number

__all__ = ["TAU_BENCH_DOMAINS", "read_tau_bench"]

TAU_BENCH_DOMAINS = ("airline", "retail", "telecom")
"""Domain names recognised at the end of a file name such as ``gpt-4o-airline.json``."""

_NAME = re.compile(rf"^(?P<model>.+)-(?P<domain>{'|'.join(TAU_BENCH_DOMAINS)})$")
_TASK_ID = "tau-bench numbers its tasks 0, 1, 2, ... (an integer; a string is read as its text)"
_TRIAL = "tau-bench numbers the trials of a task 0, 1, 2, ..."


def read_tau_bench(
    path: str | Path | Sequence[str | Path],
    *,
    model: str | None = None,
    domain: str | None = None,
) -> pd.DataFrame:
    """Read tau-bench results files into a runs table.

    tau-bench writes one JSON list per evaluation, one record per run with
    ``task_id``, ``trial``, ``reward`` and ``info``. A run passes when
    ``|reward - 1| <= 1e-6``, as tau-bench decides (so every reward must lie
    in [0, 1]). A run that ended on an error -- ``info`` has an ``error``, or
    no ``reward_info`` (tau-bench then never computed the reward) -- keeps its
    reward of 0 and is flagged in ``error``: a failed run by default, left out
    with ``errors="exclude"``.

    A ``task_id`` is an integer, as tau-bench writes it, or a string (read as
    its text); the files read together must use one kind, since ``0`` and
    ``"0"`` would count as two tasks.

    Parameters
    ----------
    path : str, pathlib.Path or sequence of them
        One results file, a directory (every ``.json`` file in it), a glob
        pattern (``"results/*-airline.json"``) or a list of files; several
        files give one table.
    model, domain : str, optional
        Written into the ``model`` and ``domain`` columns of every row. By
        default both come from a file name of the form
        ``<model>-<domain>.json`` (domains: airline, retail, telecom), as in
        tau-bench's published trajectories, and are missing otherwise.

    Returns
    -------
    DataFrame
        One row per record, in the files' order, with columns ``task``
        (``task_id``), ``run`` (``trial``), ``passed``, ``reward``, ``error``
        (missing when the run ended normally), ``model``, ``domain``,
        ``source`` and ``user_cost`` (from ``info``, missing when absent) and
        ``file`` (the file's name). ``attrs["files"]`` lists the files read.

    Raises
    ------
    ValueError
        If a file is not a regular file (a directory, a FIFO), cannot be read,
        is not UTF-8 JSON (or is cut short), is not a list of records or an
        empty one, or a record lacks ``task_id`` or ``reward``, has a reward
        that is not a number in [0, 1], a ``task_id`` that is neither an
        integer nor a string, or one of the other kind than the first record's
        (``0`` and ``"0"`` would be two tasks); the message names the file, the
        record and the field.
    FileNotFoundError
        If no file matches `path`.

    Warns
    -----
    UserWarning
        For an ``info.user_cost`` that is not a number: the run is kept, with
        no cost.

    Examples
    --------
    >>> import json, tempfile, pathlib, passk_lab as pk
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> records = [
    ...     {"task_id": 0, "trial": 0, "reward": 1.0, "info": {"reward_info": {}}},
    ...     {"task_id": 0, "trial": 1, "reward": 0.0, "info": {"error": "API timeout"}},
    ...     {"task_id": 1, "trial": 0, "reward": 1.0, "info": {"reward_info": {}}},
    ...     {"task_id": 1, "trial": 1, "reward": 1.0, "info": {"reward_info": {}}},
    ... ]
    >>> _ = (folder / "gpt-4o-retail.json").write_text(json.dumps(records))
    >>> runs = read_tau_bench(folder / "gpt-4o-retail.json")
    >>> runs[["task", "run", "passed", "error", "model", "domain"]]
       task  run  passed        error   model  domain
    0     0    0    True          NaN  gpt-4o  retail
    1     0    1   False  API timeout  gpt-4o  retail
    2     1    0    True          NaN  gpt-4o  retail
    3     1    1    True          NaN  gpt-4o  retail
    >>> pk.pass_pow_k(runs, 2)
    0.5
    """
    files = result_files(path, "tau-bench results file")
    frames = [_read_file(file, model, domain) for file in files]
    _check_id_kinds(frames)
    runs = pd.concat(frames, ignore_index=True)
    runs.attrs["files"] = [str(file) for file in files]
    return runs


def _read_file(file: Path, model: str | None, domain: str | None) -> pd.DataFrame:
    """Return one results file's rows, one per record."""
    records = _records(file)
    tasks: list[object] = []
    trials: list[int] = []
    rewards = np.empty(len(records), dtype=np.float64)
    errors: list[str | None] = []
    sources: list[object] = []
    costs: list[float | None] = []
    for position, record in enumerate(records):
        where = _where(file, position, record)
        mapping(record, where, "the record", "a tau-bench record is a JSON object")
        tasks.append(task_id(record.get("task_id"), where, rule=_TASK_ID))
        trials.append(trial_number(record.get("trial"), where, rule=_TRIAL))
        rewards[position] = _reward(record, where)
        info = record.get("info")
        info = info if isinstance(info, dict) else {}
        errors.append(_error(info))
        sources.append(info.get("source"))
        costs.append(_cost(info))
    unpriced = [position for position, cost in enumerate(costs) if cost is None]
    if unpriced:
        first = unpriced[0]
        warn(
            ReadWarning(
                f"{_where(file, first, records[first])}: info.user_cost is "
                f"{records[first]['info']['user_cost']!r}, not a number ({len(unpriced)} record(s) "
                f"of the file have such a cost); those runs are kept, with no cost",
                path=file,
            )
        )
    named = _NAME.match(file.stem)
    if named is not None:
        model = named["model"] if model is None else model
        domain = named["domain"] if domain is None else domain
    return pd.DataFrame(
        {
            "task": tasks,
            "run": np.asarray(trials, dtype=np.int64),
            "passed": decide(rewards, None, lambda row: _where(file, row, records[row])),
            "reward": rewards,
            "error": pd.Series(errors, dtype="str"),
            "model": pd.Series([model] * len(records), dtype="str"),
            "domain": pd.Series([domain] * len(records), dtype="str"),
            "source": pd.Series(sources, dtype="str"),
            "user_cost": np.array([math.nan if c is None else c for c in costs], dtype=np.float64),
            "file": pd.Series([file.name] * len(records), dtype="str"),
        }
    )


def _records(file: Path) -> list[Any]:
    """Return a results file's records, refusing a file that holds none."""
    records: list[Any] = load_json(
        file, "a tau-bench results file is a JSON list of run records", kind=list
    )
    if not records:
        raise ValueError(
            f"{file}: no runs (an empty list); an evaluation that wrote no record yet has "
            f"nothing to read: leave the file out"
        )
    return records


def _check_id_kinds(frames: list[pd.DataFrame]) -> None:
    """Refuse task ids of both kinds, integers and strings: ``0`` and ``"0"`` would be two tasks."""
    first = frames[0]["task"].iloc[:1].tolist()[0]
    for frame in frames:
        tasks = frame["task"].tolist()
        other = [
            row for row, task in enumerate(tasks) if isinstance(task, str) != isinstance(first, str)
        ]
        if other:
            row = other[0]
            raise ValueError(
                f"{frames[0]['file'].iloc[0]}, record 0 has task_id {first!r}, "
                f"{json_kind(first)}, and {frame['file'].iloc[row]}, record {row} has "
                f"{tasks[row]!r}, {json_kind(tasks[row])}; one task "
                f"spelled both ways would count as two: write every task_id as an integer, "
                f"as tau-bench does"
            )


def _cost(info: dict[str, Any]) -> float | None:
    """Return ``info.user_cost`` as a number, NaN when absent, None when it is not a number."""
    cost = info.get("user_cost")
    if cost is None:
        return math.nan
    if isinstance(cost, bool) or not isinstance(cost, int | float):
        return None
    try:
        return float(cost)
    except OverflowError:
        return None


def _reward(record: dict[str, Any], where: str) -> float:
    """Return a record's reward, a finite number."""
    if "reward" not in record:
        raise absent(where, "reward", "every tau-bench record has one (0.0 on an error)")
    return number(record["reward"], where, "reward", "a reward is a number in [0, 1]")


def _error(info: dict[str, Any]) -> str | None:
    """Return the error of a run that ended on one, None for a run that ended normally."""
    if info.get("error"):
        return str(info["error"])
    if info.get("reward_info") is None:
        source = info.get("source")
        return "no reward_info: the run ended on an error" + (
            f" (source: {source})" if source else ""
        )
    return None


def _where(file: Path, number: int, record: object) -> str:
    """Name a record and its task_id, for the messages."""
    if isinstance(record, dict) and record.get("task_id") is not None:
        return f"{file}, record {number} (task_id {record['task_id']!r})"
    return f"{file}, record {number}"
