"""Harbor trials: reading one trial's ``result.json`` into the columns of its row.

:func:`read_trials` reads the result files :func:`passk_lab.io._harbor_jobs.jobs` found, one
row a trial; docs/reading.md ("Harbor job folders") says what each column comes from.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._files import encodable
from passk_lab.io._harbor_rewards import trial_reward
from passk_lab.io._json_files import load_json
from passk_lab.io._records import absent, integer, mapping, number, refusal, text

__all__ = ["FIELDS", "read_trials", "times"]


def read_trials(files: list[str], reward: str | None) -> tuple[list[str], dict[str, list[Any]]]:
    """Read the trials' result files: each trial's task, and its value of each of :data:`FIELDS`.

    Parameters
    ----------
    files : list of str
        The result files, each seen to be a regular file.
    reward : str or None
        The name of the reward to judge (see
        :func:`passk_lab.io._harbor_rewards.trial_reward`).

    Raises
    ------
    ValueError
        If a file is not UTF-8 JSON or not a JSON object, or a field is not
        what Harbor writes; the message names the file, the task and the field.

    Examples
    --------
    >>> import json, tempfile
    >>> file = Path(tempfile.mkdtemp()) / "result.json"
    >>> _ = file.write_text(json.dumps({"task_name": "fix-git", "trial_name": "fix-git__x",
    ...                                 "verifier_result": {"rewards": {"reward": 1.0}}}))
    >>> tasks, columns = read_trials([str(file)], None)
    >>> tasks, columns["trial_name"], columns["reward"]
    (['fix-git'], ['fix-git__x'], [1.0])
    """
    columns: dict[str, list[Any]] = {name: [] for name in FIELDS}
    tasks: list[str] = []
    for file in files:
        _read_trial(file, _load_trial(file), reward, tasks, columns)
    return tasks, columns


FIELDS = (
    "reward",
    "judged",
    "error",
    "exception_type",
    "trial_name",
    "agent",
    "agent_version",
    "model",
    "model_provider",
    "source",
    "started_at",
    "finished_at",
    "cost_usd",
    "n_input_tokens",
    "n_cache_tokens",
    "n_output_tokens",
)


_TRIAL = "a Harbor trial's result.json is a JSON object"
_OBJECT = "Harbor writes an object or null"
_TEXT = "Harbor writes it as text"


def _load_trial(file: str) -> Any:
    """Return the JSON value of a trial's result.json, a file seen to be a regular file.

    A file that cannot be read or is not UTF-8 JSON is read again by load_json, which
    looks at it again and gives the refusal every reader gives.
    """
    try:
        with open(file, "rb") as data:
            return json.loads(data.read().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return load_json(Path(file), _TRIAL)


def _read_trial(
    file: str,
    value: object,
    reward: str | None,
    tasks: list[str],
    columns: dict[str, list[Any]],
) -> None:
    """Append a trial's task to `tasks` and its value of each field to `columns`."""
    record = mapping(value, file, "the file", _TRIAL)
    task = encodable(text(record.get("task_name"), file, "task_name", "Harbor names tasks in text"))
    where = f"{file} (task_name {task!r})"
    tasks.append(task)
    rule = "every Harbor trial has a trial_name (<task>__<suffix>, the name of its folder)"
    columns["trial_name"].append(
        text(record.get("trial_name"), where, "trial_name", rule, empty=False)
    )
    agent = _object(record, "agent_info", where)
    model = _object(agent, "model_info", where, "agent_info.")
    columns["agent"].append(_text(agent, "name", where, "agent_info."))
    columns["agent_version"].append(_text(agent, "version", where, "agent_info."))
    columns["model"].append(_text(model, "name", where, "agent_info.model_info."))
    columns["model_provider"].append(_text(model, "provider", where, "agent_info.model_info."))
    columns["source"].append(_text(record, "source", where))
    exception = _object(record, "exception_info", where)
    kind = _text(exception, "exception_type", where, "exception_info.")
    if record.get("exception_info") is not None and kind is None:
        raise absent(
            where, "exception_info.exception_type", "Harbor records every exception's type"
        )
    columns["exception_type"].append(kind)
    rewards = _object(record, "verifier_result", where).get("rewards")
    columns["judged"].append(rewards is not None)
    if rewards is None:
        if kind is None:
            raise ValueError(
                f"{where}: no verifier_result.rewards and no exception_info: the verifier did "
                f"not run (disabled, or an install-only job), so the trial has no verdict; "
                f"leave such trials out"
            )
        message = _text(exception, "exception_message", where, "exception_info.")
        columns["error"].append(f"{kind}: {message}" if message else kind)
        columns["reward"].append(math.nan)
    else:
        columns["error"].append(None)
        columns["reward"].append(trial_reward(rewards, reward, where))
    columns["started_at"].append(_text(record, "started_at", where))
    columns["finished_at"].append(_text(record, "finished_at", where))
    _usage(record, where, columns)


def _usage(record: dict[str, Any], where: str, columns: dict[str, list[Any]]) -> None:
    """Keep agent_result's tokens and cost, summed over step_results as Harbor sums them."""
    contexts = [record.get("agent_result")]
    steps = record.get("step_results")
    if contexts[0] is None and isinstance(steps, list):
        contexts = [step.get("agent_result") for step in steps if isinstance(step, dict)]
    rule = "Harbor records it as a number, or null"
    for name in ("cost_usd", "n_input_tokens", "n_cache_tokens", "n_output_tokens"):
        check = number if name == "cost_usd" else integer
        values = [context.get(name) if isinstance(context, dict) else None for context in contexts]
        given = [value for value in values if value is not None]
        for value in given:
            check(value, where, f"agent_result.{name}", rule)
        total = sum(given[1:], given[0]) if given else None
        columns[name].append(
            (math.nan if total is None else float(total)) if name == "cost_usd" else total
        )


def _object(record: dict[str, Any], name: str, where: str, prefix: str = "") -> dict[str, Any]:
    """Return a field that is an object, ``{}`` for null."""
    value = record.get(name)
    return {} if value is None else mapping(value, where, f"{prefix}{name}", _OBJECT)


def _text(record: dict[str, Any], name: str, where: str, prefix: str = "") -> str | None:
    """Return a field that is text, None for null."""
    value = record.get(name)
    return None if value is None else text(value, where, f"{prefix}{name}", _TEXT)


def times(texts: list[str | None], where: Callable[[int], str], name: str) -> pd.Series:
    """Return ISO 8601 times as UTC timestamps (a time without a zone is UTC), NaT for None.

    Raises
    ------
    ValueError
        If a time is not an ISO 8601 time, naming the trial.

    Examples
    --------
    >>> times(["2026-08-20T10:00:00Z", None], "trial {}".format, "started_at").tolist()
    [Timestamp('2026-08-20 10:00:00+0000', tz='UTC'), NaT]
    >>> times(["yesterday"], "trial {}".format, "started_at")
    Traceback (most recent call last):
    ...
    ValueError: trial 0: started_at is 'yesterday', not an ISO 8601 time; Harbor writes one ...
    """
    stamps = pd.to_datetime(
        pd.Series(texts, dtype=object), utc=True, format="ISO8601", errors="coerce"
    )
    bad = stamps.isna().to_numpy() & np.array([value is not None for value in texts], dtype=bool)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        rule = "Harbor writes one such as 2026-08-20T10:00:00.250000Z"
        raise refusal(where(row), name, texts[row], rule, "not an ISO 8601 time")
    return stamps
