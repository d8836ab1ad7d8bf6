"""Harbor job folders: one ``result.json`` per trial, beside the job's ``config.json``.

:func:`read_harbor` finds the trials (:mod:`passk_lab.io._harbor_jobs`), reads each one's result
(:mod:`passk_lab.io._harbor_trials`), judges it by its reward and gives an error its kind
(:mod:`passk_lab.io._harbor_rewards`), numbers the runs and checks the trials each job declares.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._data.verdicts import decide
from passk_lab.io._harbor_jobs import Job, jobs, relative_paths
from passk_lab.io._harbor_rewards import error_kinds, reward_field
from passk_lab.io._harbor_trials import read_trials, times
from passk_lab.io._records import check_name, check_partial, check_trials

__all__ = ["read_harbor"]

_TEXTS = ("exception_type", "trial_name", "agent", "agent_version", "model", "model_provider")
_TOKENS = ("n_input_tokens", "n_cache_tokens", "n_output_tokens")


def read_harbor(
    path: str | Path,
    *,
    reward: str | None = None,
    threshold: float | None = None,
    partial: bool = False,
) -> pd.DataFrame:
    """Read Harbor job folders into a runs table, one row per trial.

    Harbor (the successor of Terminal-Bench's harness) writes a job to
    ``jobs/<job_name>/``: the job's ``config.json`` (``n_attempts``) and
    ``result.json`` (``n_total_trials``), and one folder per trial whose
    ``result.json`` records it. A trial passes when its reward is 1
    (``reward >= threshold - 1e-6``); a trial an exception left without
    rewards is flagged in ``error``, its ``error_kind`` from the exception
    type (:data:`HARBOR_ERROR_KINDS`). The runs of a task are its trials by
    one agent and model on one dataset, numbered by ``started_at`` then
    ``trial_name``; each task must have the trials its job declares unless
    `partial`. docs/reading.md ("Harbor job folders") gives the pass rule,
    the error rule, the numbering and the declared trials in full.

    Parameters
    ----------
    path : str or pathlib.Path
        A job folder, a folder of job folders (Harbor's ``jobs/``), a trial
        folder, or a trial's (or job's) ``result.json``.
    reward : str, optional
        The name, in ``verifier_result.rewards``, of the reward to judge.
        By default the one reward when rewards hold one (whatever its name,
        as Harbor's metrics take it), and ``"reward"`` (the name Harbor gives
        a ``reward.txt``) when they hold several.
    threshold : float, optional
        The reward a trial needs to pass; by default 1, with rewards in
        [0, 1].
    partial : bool
        Read the finished trials of a job that has not finished, instead of
        refusing it.

    Returns
    -------
    DataFrame
        One row per finished trial, in the order of the folders' names:
        ``task``, ``run``, ``passed``, ``reward``, ``error``, ``error_kind``,
        then the trial's fields (``trial_name``, ``agent``, ``model``,
        ``job``, times, cost and tokens; docs/reading.md lists them) and
        ``file``. ``attrs["files"]`` lists the files read.

    Raises
    ------
    ValueError
        If a file is not a regular file, not UTF-8 JSON or not a JSON object,
        a field is not what Harbor writes, a ``trial_name`` appears twice, a
        reward is refused, a trial has neither rewards nor an exception, or
        trials are missing; the message names the file, the task and the
        field.
    FileNotFoundError
        If there is no such path, or a folder holds no Harbor trial.
    TypeError
        If `reward` is not a str or `partial` not a bool.

    Examples
    --------
    >>> import json, tempfile, pathlib, passk_lab as pk
    >>> job = pathlib.Path(tempfile.mkdtemp()) / "2026-08-20__10-00-00"
    >>> def trial(name, started, rewards, exception=None):
    ...     (job / name).mkdir(parents=True)
    ...     _ = (job / name / "result.json").write_text(json.dumps({
    ...         "task_name": "fix-git", "trial_name": name,
    ...         "verifier_result": None if rewards is None else {"rewards": rewards},
    ...         "exception_info": exception and {"exception_type": exception},
    ...         "started_at": started, "finished_at": "2026-08-20T10:30:00Z"}))
    >>> trial("fix-git__zQ7mK2p", "2026-08-20T10:00:00Z", {"reward": 1.0})
    >>> trial("fix-git__A8cD3fG", "2026-08-20T10:10:00Z", None, "RewardFileNotFoundError")
    >>> _ = (job / "config.json").write_text(json.dumps({"n_attempts": 2}))
    >>> runs = read_harbor(job)
    >>> runs[["task", "run", "passed", "error_kind", "trial_name", "duration_s"]]
          task  run  passed      error_kind        trial_name  duration_s
    0  fix-git    1   False  infrastructure  fix-git__A8cD3fG      1200.0
    1  fix-git    0    True             NaN  fix-git__zQ7mK2p      1800.0
    >>> float(pk.pass_at_k(runs, 1)), float(pk.pass_at_k(runs, 1, errors="exclude"))
    (0.5, 1.0)
    """
    check_partial(partial)
    check_name(reward, "reward", "the name of a reward")
    root = Path(path)
    found = jobs(root, partial)
    files = [file for job in found for file in job.files]
    if not files:
        raise FileNotFoundError(f"no finished Harbor trial (a trial's result.json) in {root}")
    tasks, columns = read_trials(files, reward)

    def where(row: int) -> str:
        """Name a trial's file and task, for the messages."""
        return f"{files[row]} (task_name {tasks[row]!r})"

    _check_names(columns["trial_name"], files, where)
    rewards = np.asarray(columns["reward"], dtype=np.float64)
    judged = np.flatnonzero(np.asarray(columns["judged"], dtype=bool))
    passed = np.zeros(len(files), dtype=bool)
    passed[judged] = decide(
        rewards[judged], threshold, lambda row: where(int(judged[row])), reward_field(reward)
    )
    started = times(columns["started_at"], where, "started_at")
    finished = times(columns["finished_at"], where, "finished_at")
    runs = _runs(found, tasks, columns, started, where, partial)
    frame = pd.DataFrame(
        {
            "task": tasks,
            "run": np.asarray(runs, dtype=np.int64),
            "passed": passed,
            "reward": rewards,
            **_columns(found, columns, started, finished),
            "file": pd.Series(relative_paths(files, root), dtype="str"),
        }
    )
    frame.attrs["files"] = files
    return frame


def _columns(
    found: list[Job], columns: dict[str, list[Any]], started: pd.Series, finished: pd.Series
) -> dict[str, Any]:
    """Return the columns after the verdicts: the error, the names, the times and the usage."""
    return {
        "error": pd.Series(columns["error"], dtype="str"),
        "error_kind": error_kinds(columns["error"], columns["exception_type"]),
        **{name: pd.Series(columns[name], dtype="str") for name in (*_TEXTS, "source")},
        "job": pd.Series(
            [job.folder.name if job.folder else None for job in found for _ in job.files],
            dtype="str",
        ),
        "started_at": started,
        "finished_at": finished,
        "duration_s": (finished - started).dt.total_seconds().to_numpy(),
        "cost_usd": np.asarray(columns["cost_usd"], dtype=np.float64),
        **{name: pd.array(columns[name], dtype="Int64") for name in _TOKENS},
    }


def _check_names(names: list[str], files: list[str], where: Callable[[int], str]) -> None:
    """Refuse a trial_name read twice: a trial is counted once."""
    first: dict[str, int] = {}
    for row, name in enumerate(names):
        earlier = first.setdefault(name, row)
        if earlier != row:
            raise ValueError(
                f"{where(row)}: trial_name {name!r} is recorded twice (first at "
                f"{files[earlier]}); a trial is counted once: drop the copy"
            )


def _runs(
    found: list[Job],
    tasks: list[str],
    columns: dict[str, list[Any]],
    started: pd.Series,
    where: Callable[[int], str],
    partial: bool,
) -> list[int]:
    """Return each trial's number among its task's, checking each job has the trials it declares.

    A task's trials are those of one agent and model on one dataset, numbered
    by start time then name: across the jobs for the table, within each job
    for the check of its declared trials.
    """
    names: list[str] = columns["trial_name"]
    keys: list[tuple[object, ...]] = list(
        zip(columns["agent"], columns["model"], columns["source"], tasks, strict=True)
    )
    start_ns = started.to_numpy(dtype="datetime64[ns]").view(np.int64)
    start_ns = np.where(started.isna().to_numpy(), np.iinfo(np.int64).max, start_ns)
    runs = _numbers(keys, start_ns, names, lambda row: 0)
    job_of = [number for number, job in enumerate(found) for _ in job.files]
    by_job = _numbers(keys, start_ns, names, job_of.__getitem__)
    # a message names a task by the parts of its key that vary: its name alone in a job of
    # one agent, model and dataset
    varying = [len({key[part] for key in keys}) > 1 for part in range(3)]
    shown = [
        key[3]
        if not any(varying)
        else (*(k for k, v in zip(key[:3], varying, strict=True) if v), key[3])
        for key in keys
    ]
    offset = 0
    for job in found:
        rows = range(offset, offset + len(job.files))
        check_trials(
            [shown[row] for row in rows],
            [by_job[row] for row in rows],
            _shifted(where, offset),
            declared=None if partial else job.declared,
            declared_by=job.declared_by,
        )
        offset += len(job.files)
    return runs


def _numbers(
    keys: list[tuple[object, ...]],
    start: np.ndarray,
    names: list[str],
    job: Callable[[int], int],
) -> list[int]:
    """Return each trial's number among its (job, key)'s trials, by start time then name."""
    groups: dict[tuple[int, tuple[object, ...]], list[int]] = {}
    for row, key in enumerate(keys):
        groups.setdefault((job(row), key), []).append(row)
    numbers = [0] * len(keys)
    for rows in groups.values():
        rows.sort(key=lambda row: (int(start[row]), names[row]))
        for number, row in enumerate(rows):
            numbers[row] = number
    return numbers


def _shifted(where: Callable[[int], str], offset: int) -> Callable[[int], str]:
    """Return `where` for the records of one job, which start at row `offset`."""
    return lambda number: where(offset + number)
