"""Harbor job folders: one ``result.json`` per trial, beside the job's ``config.json``."""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._choices import ERROR_KINDS
from passk_lab._errors import with_keywords
from passk_lab.io._json import json_kind
from passk_lab.io._records import check_trials, load_json, task_id
from passk_lab.io._rewards import decide

__all__ = ["HARBOR_ERROR_KINDS", "is_harbor", "read_harbor"]

_TIMEOUT = (
    "AgentTimeoutError",
    "AgentSetupTimeoutError",
    "EnvironmentStartTimeoutError",
    "VerifierTimeoutError",
    "TimeoutError",
)
_INFRASTRUCTURE = (
    "CancelledError",
    "SandboxBuildFailedError",
    "HealthcheckError",
    "RewardFileNotFoundError",
    "RewardFileEmptyError",
    "VerifierOutputParseError",
    "AddTestsDirError",
    "DownloadVerifierDirError",
    "ApiRateLimitError",
    "ApiUsageLimitError",
    "ApiInternalServerError",
    "ApiOverloadedError",
    "ApiConnectionClosedError",
    "ApiResponseStalledError",
    "ApiProviderResourceNotFoundError",
    "AgentAuthenticationError",
    "ModelNotFoundError",
    "NetworkConnectionError",
)
_AGENT = (
    "NonZeroAgentExitCodeError",
    "ContextLengthExceededError",
    "OutputLengthExceededError",
    "ContextWindowExceededError",
    "OutputTokenExceededError",
    "AgentSafetyRefusalError",
)

HARBOR_ERROR_KINDS: dict[str, str] = {
    **dict.fromkeys(_TIMEOUT, "timeout"),
    **dict.fromkeys(_INFRASTRUCTURE, "infrastructure"),
    **dict.fromkeys(_AGENT, "agent"),
}
"""The error kind of each Harbor exception type :func:`read_harbor` knows; others have none."""


@dataclass
class _Job:
    """One job folder: its trials' result files, and what its config and result declare.

    Each of `files` (paths as text, as ``str(Path)`` writes them) was seen to be a regular
    file when its folder was listed, so that :func:`_load_trial` may open it without
    looking at it again.
    """

    folder: Path | None
    files: list[str] = field(default_factory=list)
    declared: int | None = None
    declared_by: str = ""
    total: int | None = None


def read_harbor(
    path: str | Path,
    *,
    reward: str | None = None,
    threshold: float | None = None,
    partial: bool = False,
) -> pd.DataFrame:
    """Read Harbor job folders into a runs table, one row per trial.

    Harbor (the successor of Terminal-Bench's harness) writes a job to
    ``jobs/<job_name>/``: the job's ``config.json`` (with ``n_attempts``, the
    number of trials each task gets from each agent) and ``result.json``
    (with ``n_total_trials``), and one folder per trial,
    ``<task>__<random suffix>/``, whose ``result.json`` records the trial:
    ``task_name``, ``trial_name``, ``agent_info``, ``verifier_result.rewards``,
    ``exception_info``, ``agent_result`` (tokens, ``cost_usd``), ``started_at``
    and ``finished_at``.

    **Pass rule.** A trial passes when its reward is 1 (``reward >= threshold
    - 1e-6``, the one rule of :func:`passk_lab.tally`; rewards must lie in
    [0, 1] unless `threshold` is given). Harbor's own metrics judge a trial by
    its rewards alone (``harbor.utils.pass_at_k`` counts a reward of 1 as a
    success; ``harbor.metrics.Mean`` averages rewards) and count a trial with
    no rewards as 0, whatever its exception; the reader follows them. Harbor
    runs the verifier after an agent time-out (``AgentTimeoutError``) or an
    agent that exited with an error (``NonZeroAgentExitCodeError`` and its API
    errors), so such a trial has rewards: it is judged by them like any
    other, and its exception is kept in ``exception_type``, not in ``error``.

    **Error rule.** A trial whose exception left it without rewards (the
    environment did not start, the verifier wrote no reward, the agent's code
    raised) has no reward and is flagged in ``error``: a failed run under
    ``errors="fail"`` (the default, giving Harbor's numbers), left out with
    ``errors="exclude"`` unless its ``error_kind`` is ``"agent"``. The kind
    comes from the exception type (:data:`HARBOR_ERROR_KINDS`): Harbor's
    time-outs (``AgentTimeoutError``, ``AgentSetupTimeoutError``,
    ``EnvironmentStartTimeoutError``, ``VerifierTimeoutError``, the
    ``asyncio.TimeoutError`` subclasses of ``harbor.trial.errors``) are
    ``"timeout"``; a cancelled trial, an environment that did not build or
    pass its health check, a verifier that wrote no reward or one it could
    not parse, and the provider's errors (rate limits, overload, server
    errors, authentication, an unknown model) are ``"infrastructure"``:
    none measured the agent; the agent's own failures (its command exited
    with an error, its context or output ran out, it refused) are
    ``"agent"``. Any other type (``RuntimeError``, say) has no kind, and is
    left out under ``errors="exclude"``, as errors of unknown kind are.

    **Runs.** The runs of a task are its trials by one agent and model on one
    dataset, numbered 0, 1, 2, ... by ``started_at`` and then ``trial_name``
    (Harbor names trials with random suffixes, so their names carry no
    order); a job with several agents or models needs ``by=["agent",
    "model"]`` in :func:`passk_lab.tally`. The trials of several jobs in a
    folder of jobs are numbered together, as more runs of one evaluation.

    **Declared trials.** Each task has ``n_attempts`` trials per agent and
    model in each job (1 when the job's ``config.json`` leaves it out, as
    Harbor does for the default) and the job has ``n_total_trials`` in all: a
    trial folder without ``result.json`` (a trial that has not finished), a
    task with fewer trials or a job with fewer trials is refused, naming what
    is missing. Give ``partial=True`` to read the finished trials that are
    there. A job re-grading another (``source_jobs`` in its config) and a
    job folder without ``config.json`` declare no count.

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
        ``task`` (``task_name``), ``run`` (int64, as above), ``passed``,
        ``reward`` (float, the chosen reward; NaN without rewards), ``error``
        (``"<exception_type>: <exception_message>"`` for a trial an exception
        left without rewards, missing otherwise), ``error_kind``
        (categorical), ``exception_type`` (``exception_info.exception_type``
        of every trial that has one), ``trial_name``, ``agent``
        (``agent_info.name``), ``agent_version``, ``model`` and
        ``model_provider`` (``agent_info.model_info``), ``source`` (the
        dataset), ``job`` (the job folder's name), ``started_at`` and
        ``finished_at`` (UTC times; a time written without a zone is read as
        UTC), ``duration_s`` (``finished_at - started_at`` in seconds),
        ``cost_usd`` (float) and ``n_input_tokens``, ``n_cache_tokens``,
        ``n_output_tokens`` (Int64) from ``agent_result`` (summed over
        ``step_results`` for a multi-step trial, as Harbor sums them; missing
        where Harbor recorded none), and ``file`` (the result file's path
        within `path`). ``attrs["files"]`` lists the files read.

    Raises
    ------
    ValueError
        If a file is not a regular file, not UTF-8 JSON (or cut short), not a
        JSON object; a trial has no ``task_name`` or ``trial_name``, the same
        ``trial_name`` twice, rewards that are empty, not numbers, hold
        several without the one `reward` names, or are refused by the pass
        rule, or neither rewards nor an exception (the verifier did not run);
        a time is not an ISO 8601 time; a cost or token count is not a
        number; or trials are missing (see above). The message names the
        file, the task and the field.
    FileNotFoundError
        If there is no such path, or a folder holds no Harbor trial.

    Examples
    --------
    >>> import json, tempfile, pathlib, passk_lab as pk
    >>> job = pathlib.Path(tempfile.mkdtemp()) / "2026-08-20__10-00-00"
    >>> def trial(name, started, rewards, exception=None):
    ...     folder = job / name
    ...     folder.mkdir(parents=True)
    ...     _ = (folder / "result.json").write_text(json.dumps({
    ...         "task_name": "fix-git", "trial_name": name,
    ...         "agent_info": {"name": "terminus-2", "version": "2.0.0",
    ...                        "model_info": {"name": "gpt-5", "provider": "openai"}},
    ...         "verifier_result": None if rewards is None else {"rewards": rewards},
    ...         "exception_info": exception and {"exception_type": exception,
    ...                                          "exception_message": "no reward.txt"},
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
    if not isinstance(partial, bool):
        raise TypeError(f"partial must be True or False, got {partial!r}")
    if reward is not None and not isinstance(reward, str):
        raise TypeError(f"reward must be the name of a reward (a str), got {reward!r}")
    root = Path(path)
    jobs = _jobs(root, partial)
    files = [file for job in jobs for file in job.files]
    if not files:
        raise FileNotFoundError(f"no finished Harbor trial (a trial's result.json) in {root}")
    return _table(root, jobs, reward, threshold, partial)


def is_harbor(path: Path) -> bool:
    """Tell Harbor results: a trial's or job's ``result.json``, a job folder, a folder of jobs.

    A file is one when it is a ``.json`` object whose first 4096 characters
    name a ``trial_name`` and a ``task_name`` (a trial) or ``n_total_trials``
    (a job); a folder, when it holds such a ``result.json``, or a
    ``config.json`` beside folders with a ``result.json`` or ``config.json``
    (a job), or such a job folder among its first folders (a folder of jobs).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "result.json").write_text('{"task_name": "a", "trial_name": "a__x"}')
    >>> is_harbor(folder / "result.json"), is_harbor(folder), is_harbor(folder.parent / "no")
    (True, True, False)
    """
    if os.path.isdir(path):
        return _is_harbor_folder(path, depth=2)
    return path.suffix.lower() == ".json" and _is_result_file(path)


# --- finding the trials ----------------------------------------------------------------


def _first_characters(file: Path) -> str:
    try:
        with file.open(encoding="utf-8", errors="replace") as text:
            return text.read(4096).lstrip()
    except OSError:
        return ""


def _is_result_file(file: Path) -> bool:
    head = _first_characters(file)
    if not head.startswith("{"):
        return False
    return ('"trial_name"' in head and '"task_name"' in head) or '"n_total_trials"' in head


def _is_harbor_folder(folder: Path, depth: int) -> bool:
    if os.path.isfile(folder / "result.json") and _is_result_file(folder / "result.json"):
        return True
    children = _subfolders(folder)[:20]
    if os.path.isfile(folder / "config.json") and any(
        os.path.isfile(child / "result.json") or os.path.isfile(child / "config.json")
        for child in children
    ):
        return True
    return depth > 1 and any(_is_harbor_folder(child, depth - 1) for child in children[:5])


def _subfolders(folder: Path) -> list[Path]:
    with os.scandir(folder) as entries:
        return sorted(Path(entry.path) for entry in entries if entry.is_dir())


def _kind(folder: Path) -> str | None:
    """Tell a trial folder ("trial") from a job folder ("job") by its files; None for neither."""
    for name in ("config.json", "result.json"):
        file = folder / name
        if os.path.isfile(file):
            value = load_json(file, f"a Harbor {name} is a JSON object")
            if not isinstance(value, dict):
                raise ValueError(
                    f"{file}: expected a JSON object (a Harbor {name}), got {json_kind(value)}"
                )
            trial = "task" in value if name == "config.json" else "trial_name" in value
            return "trial" if trial or "task_name" in value else "job"
    return None


def _jobs(root: Path, partial: bool) -> list[_Job]:
    if not os.path.lexists(root):
        raise FileNotFoundError(f"no such Harbor job folder or result file: {root}")
    if not os.path.isdir(root):
        value = load_json(root, "a Harbor result.json is a JSON object")
        if not isinstance(value, dict):
            raise ValueError(
                f"{root}: expected a JSON object (a Harbor trial's result.json), "
                f"got {json_kind(value)}"
            )
        if "n_total_trials" in value and "task_name" not in value:
            return [_job(root.parent, partial)]
        return [_Job(None, [str(root)])]
    kind = _kind(root)
    if kind == "trial":
        return [_Job(None, [str(root / "result.json")])]
    if kind == "job":
        return [_job(root, partial)]
    kinds = {child: _kind(child) for child in _subfolders(root)}
    children = [child for child, kind in kinds.items() if kind is not None]
    if children and kinds[children[0]] == "trial":
        return [_job(root, partial)]
    trials = [child for child in children if kinds[child] == "trial"]
    if trials:
        raise ValueError(
            f"{trials[0]}: a trial folder among job folders in {root}; give the job folders, "
            f"or move the trial into its job's folder"
        )
    return [_job(child, partial) for child in children]


def _job(folder: Path, partial: bool) -> _Job:
    job = _Job(folder)
    unfinished: list[str] = []
    prefix = _prefix(folder)
    with os.scandir(folder) as entries:
        names = sorted(entry.name for entry in entries if entry.is_dir())
    for name in names:
        file = f"{prefix}{name}/result.json"
        if _is_regular(file):
            job.files.append(file)
        elif _is_regular(f"{prefix}{name}/config.json"):
            unfinished.append(name)
    if partial:
        return job
    if unfinished:
        shown = ", ".join(unfinished[:3])
        raise with_keywords(
            ValueError(
                f"{folder}: {len(unfinished)} trial folder(s) have no result.json ({shown}"
                f"{', ...' if len(unfinished) > 3 else ''}): those trials have not finished; "
                f"let the job finish (harbor jobs resume), or pass partial=True to read the "
                f"trials that did"
            ),
            "partial",
        )
    config = _object(folder / "config.json", "a Harbor job's config.json")
    if config is not None and not config.get("source_jobs"):
        attempts = config.get("n_attempts", 1)
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise ValueError(
                f"{folder / 'config.json'}: n_attempts is {attempts!r}, {json_kind(attempts)}; "
                f"Harbor runs each task n_attempts (an integer >= 1) times"
            )
        job.declared = attempts
        job.declared_by = f"{folder / 'config.json'} (n_attempts)"
    result = _object(folder / "result.json", "a Harbor job's result.json")
    total = None if result is None else result.get("n_total_trials")
    if isinstance(total, int) and not isinstance(total, bool) and len(job.files) < total:
        raise with_keywords(
            ValueError(
                f"{folder}: {len(job.files)} of the {total} trials {folder / 'result.json'} "
                f"declares (n_total_trials) have a result.json: the job stopped early or lost "
                f"trial folders; finish it (harbor jobs resume), or pass partial=True to read the "
                f"trials that are there"
            ),
            "partial",
        )
    return job


def _prefix(folder: Path) -> str:
    """Return the text that, followed by a name, is the path of that name in `folder`."""
    text = str(folder)
    if text == ".":
        return ""
    return text if text.endswith("/") else f"{text}/"


def _is_regular(file: str) -> bool:
    """Tell a regular file (following symbolic links), as os.path.isfile does."""
    try:
        return stat.S_ISREG(os.stat(file).st_mode)
    except (OSError, ValueError):
        return False


def _object(file: Path, what: str) -> dict[str, Any] | None:
    if not os.path.isfile(file):
        return None
    value = load_json(file, f"{what} is a JSON object")
    if not isinstance(value, dict):
        raise ValueError(f"{file}: expected a JSON object ({what}), got {json_kind(value)}")
    return value


# --- reading the trials ----------------------------------------------------------------


def _table(
    root: Path, jobs: list[_Job], reward: str | None, threshold: float | None, partial: bool
) -> pd.DataFrame:
    files = [file for job in jobs for file in job.files]
    columns: dict[str, list[Any]] = {name: [] for name in _FIELDS}
    tasks: list[str] = []
    for file in files:
        _read_trial(file, _load_trial(file), reward, tasks, columns)
    size = len(files)
    names: list[str] = columns["trial_name"]

    def where(row: int) -> str:
        return f"{files[row]} (task_name {tasks[row]!r})"

    first: dict[str, int] = {}
    for row, name in enumerate(names):
        earlier = first.setdefault(name, row)
        if earlier != row:
            raise ValueError(
                f"{where(row)}: trial_name {name!r} is recorded twice (first at "
                f"{files[earlier]}); a trial is counted once: drop the copy"
            )
    rewards = np.asarray(columns["reward"], dtype=np.float64)
    judged = np.flatnonzero(np.asarray(columns["judged"], dtype=bool))
    passed = np.zeros(size, dtype=bool)
    passed[judged] = decide(
        rewards[judged], threshold, lambda row: where(int(judged[row])), _reward_field(reward)
    )
    started = _times(columns["started_at"], where, "started_at")
    finished = _times(columns["finished_at"], where, "finished_at")
    keys: list[tuple[object, ...]] = list(
        zip(columns["agent"], columns["model"], columns["source"], tasks, strict=True)
    )
    start_ns = started.to_numpy(dtype="datetime64[ns]").view(np.int64)
    start_ns = np.where(started.isna().to_numpy(), np.iinfo(np.int64).max, start_ns)
    runs = _numbers(keys, start_ns, names, lambda row: 0)
    job_of = [number for number, job in enumerate(jobs) for _ in job.files]
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
    for job in jobs:
        rows = range(offset, offset + len(job.files))
        check_trials(
            [shown[row] for row in rows],
            [by_job[row] for row in rows],
            _shifted(where, offset),
            declared=None if partial else job.declared,
            declared_by=job.declared_by,
        )
        offset += len(job.files)
    errors: list[str | None] = columns["error"]
    kinds = [
        None if error is None else HARBOR_ERROR_KINDS.get(kind)
        for error, kind in zip(errors, columns["exception_type"], strict=True)
    ]
    table = {
        "task": tasks,
        "run": np.asarray(runs, dtype=np.int64),
        "passed": passed,
        "reward": rewards,
        "error": pd.Series(errors, dtype="str"),
        "error_kind": pd.Categorical(kinds, categories=ERROR_KINDS),
        **{
            name: pd.Series(columns[name], dtype="str")
            for name in (
                "exception_type",
                "trial_name",
                "agent",
                "agent_version",
                "model",
                "model_provider",
                "source",
            )
        },
        "job": pd.Series(
            [job.folder.name if job.folder else None for job in jobs for _ in job.files],
            dtype="str",
        ),
        "started_at": started,
        "finished_at": finished,
        "duration_s": (finished - started).dt.total_seconds().to_numpy(),
        "cost_usd": np.asarray(columns["cost_usd"], dtype=np.float64),
        **{
            name: pd.array(columns[name], dtype="Int64")
            for name in ("n_input_tokens", "n_cache_tokens", "n_output_tokens")
        },
        "file": pd.Series(_relative(files, root), dtype="str"),
    }
    frame = pd.DataFrame(table)
    frame.attrs["files"] = files
    return frame


_FIELDS = (
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


_TRIAL = "a Harbor trial's result.json is a JSON object"


def _read_trial(
    file: str,
    record: object,
    reward: str | None,
    tasks: list[str],
    columns: dict[str, list[Any]],
) -> None:
    if not isinstance(record, dict):
        raise ValueError(
            f"{file}: expected a JSON object (a Harbor trial's result.json), "
            f"got {json_kind(record)}"
        )
    task = task_id(record.get("task_name"), str(file), "task_name")
    where = f"{file} (task_name {task!r})"
    if not isinstance(task, str):
        raise ValueError(f"{where}: task_name is {task!r}, an integer; Harbor names tasks in text")
    tasks.append(task)
    name = record.get("trial_name")
    if not isinstance(name, str) or not name:
        raise ValueError(
            f"{where}: trial_name is {name!r}, {json_kind(name)}; every Harbor trial has a "
            f"trial_name (<task>__<suffix>, the name of its folder)"
        )
    columns["trial_name"].append(name)
    agent = _dict(record, "agent_info", where)
    model = _dict(agent, "model_info", where, "agent_info.")
    columns["agent"].append(_text(agent, "name", where, "agent_info."))
    columns["agent_version"].append(_text(agent, "version", where, "agent_info."))
    columns["model"].append(_text(model, "name", where, "agent_info.model_info."))
    columns["model_provider"].append(_text(model, "provider", where, "agent_info.model_info."))
    columns["source"].append(_text(record, "source", where))
    exception = _dict(record, "exception_info", where)
    kind = _text(exception, "exception_type", where, "exception_info.")
    if record.get("exception_info") is not None and kind is None:
        raise ValueError(f"{where}: exception_info has no exception_type")
    columns["exception_type"].append(kind)
    rewards = _dict(record, "verifier_result", where).get("rewards")
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
        columns["reward"].append(_reward(rewards, reward, where))
    columns["started_at"].append(_text(record, "started_at", where))
    columns["finished_at"].append(_text(record, "finished_at", where))
    _usage(record, where, columns)


def _reward_field(reward: str | None) -> str:
    return f"verifier_result.rewards.{reward or 'reward'}"


def _reward(rewards: object, reward: str | None, where: str) -> float:
    if not isinstance(rewards, dict) or not rewards:
        raise ValueError(
            f"{where}: verifier_result.rewards is {rewards!r}; Harbor's rewards are an object "
            f'of named numbers, such as {{"reward": 1.0}}'
        )
    if reward is None:
        reward = next(iter(rewards)) if len(rewards) == 1 else "reward"
    if reward not in rewards:
        raise with_keywords(
            ValueError(
                f"{where}: verifier_result.rewards has no {reward!r} (it has "
                f"{', '.join(map(repr, rewards))}); name the reward to judge with reward="
            ),
            "reward",
        )
    value = rewards[reward]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(
            f"{where}: verifier_result.rewards.{reward} is {value!r}, {json_kind(value)}; a "
            f"reward is a number in [0, 1]"
        )
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{where}: verifier_result.rewards.{reward} is NaN, not a number")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(
            f"{where}: verifier_result.rewards.{reward} is {value}, too large for a reward"
        ) from None


def _usage(record: dict[str, Any], where: str, columns: dict[str, list[Any]]) -> None:
    """Keep agent_result's tokens and cost, summed over step_results as Harbor sums them."""
    contexts = [record.get("agent_result")]
    steps = record.get("step_results")
    if contexts[0] is None and isinstance(steps, list):
        contexts = [step.get("agent_result") for step in steps if isinstance(step, dict)]
    for name, kinds in (
        ("cost_usd", int | float),
        ("n_input_tokens", int),
        ("n_cache_tokens", int),
        ("n_output_tokens", int),
    ):
        total: float | None = None
        for context in contexts:
            value = context.get(name) if isinstance(context, dict) else None
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, kinds):
                raise ValueError(
                    f"{where}: agent_result.{name} is {value!r}, {json_kind(value)}; Harbor "
                    f"records it as a number, or null"
                )
            total = value if total is None else total + value
        columns[name].append(
            (math.nan if total is None else float(total)) if name == "cost_usd" else total
        )


def _dict(record: dict[str, Any], name: str, where: str, prefix: str = "") -> dict[str, Any]:
    value = record.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(
            f"{where}: {prefix}{name} is {value!r}, {json_kind(value)}; Harbor writes an object "
            f"or null"
        )
    return value


def _text(record: dict[str, Any], name: str, where: str, prefix: str = "") -> str | None:
    value = record.get(name)
    if value is None or isinstance(value, str):
        return value
    raise ValueError(
        f"{where}: {prefix}{name} is {value!r}, {json_kind(value)}; Harbor writes it as text"
    )


def _times(texts: list[str | None], where: Callable[[int], str], name: str) -> pd.Series:
    times = pd.to_datetime(
        pd.Series(texts, dtype=object), utc=True, format="ISO8601", errors="coerce"
    )
    bad = times.isna().to_numpy() & np.array([text is not None for text in texts], dtype=bool)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{where(row)}: {name} is {texts[row]!r}, not an ISO 8601 time such as "
            f"2026-08-20T10:00:00.250000Z"
        )
    return times


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


def _relative(files: list[str], root: Path) -> list[str]:
    """Return each file's path within `root` (a folder), or its name (`root` a file)."""
    if not os.path.isdir(root):
        return [os.path.basename(file) for file in files]
    start = len(_prefix(root))
    return [file[start:] for file in files]
