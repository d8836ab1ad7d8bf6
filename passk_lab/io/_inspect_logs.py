"""Inspect AI eval logs (``.eval`` and ``.json``), read through inspect-ai's own log API."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import numpy as np
import pandas as pd

from passk_lab._data.verdicts import decide
from passk_lab._errors import with_keywords
from passk_lab._files import check_regular
from passk_lab._warnings import ReadWarning, warn

if TYPE_CHECKING:
    from inspect_ai.log import EvalLogInfo, EvalSampleSummary

__all__ = ["read_inspect_log"]

_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_MANIFEST = "logs.json"  # the listing Inspect may write beside the logs


def read_inspect_log(
    path: str | Path, *, scorer: str | None = None, threshold: float | None = None
) -> pd.DataFrame:
    """Read Inspect AI eval logs into a runs table: one row per sample and epoch.

    Needs inspect-ai (``pip install 'passk-lab[inspect]'``), whose public log
    API reads the logs. A score becomes a number as Inspect's reducers see it
    (``"C"`` is 1, ``"P"`` 0.5, ``"I"`` 0, ...) and the run passes when it
    reaches `threshold`; a sample that halted on an error keeps its
    ``error``, and one with neither a score nor an error is flagged as
    unscored. docs/reading.md ("Inspect AI" and "Inspect AI scores, errors
    and groups") gives the rules.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.eval`` or ``.json`` log, or a directory searched (recursively) for
        logs, as Inspect lists them (by their names, such as
        ``2026-01-01T10-00-00+00-00_task_Ab3.eval``); several logs give one
        table.
    scorer : str, optional
        The scorer whose score decides a pass, when a log has several.
    threshold : float, optional
        The score a run needs to pass. By default a pass is a score of 1
        (``"C"``), which needs numeric scores in [0, 1].

    Returns
    -------
    DataFrame
        Columns ``task`` (the sample id), ``run`` (epoch - 1), ``passed``,
        ``reward`` (the score as a number; NaN when unscored), ``error``
        and ``limit`` (missing unless the sample halted on an error or hit a
        limit: ``"token"``, ``"time"``, ...), ``model``, ``task_name`` and
        ``eval_id`` (Inspect's names), ``created`` (when the eval started,
        a UTC timestamp), ``scorer`` and ``log`` (the log's file name).
        ``attrs["files"]`` lists the logs read.

    Raises
    ------
    ImportError
        If inspect-ai is not installed.
    FileNotFoundError
        If there is no such file, or no log in the directory.
    ValueError
        If a log cannot be read (not JSON, cut short, not an Inspect log), the
        scorer is unknown or not chosen among several, or a score cannot be
        judged; the message names the log, the sample and epoch, and the field.

    Warns
    -----
    ReadWarning
        For a log whose eval did not finish, for unscored samples, and for
        ``.eval`` or ``.json`` files in a directory that Inspect does not list
        as logs (they are not read).

    Examples
    --------
    A log of two samples and two epochs, written here with inspect-ai's own
    log classes (an ``inspect_ai.eval`` writes one into its ``log_dir``):

    >>> import tempfile, pathlib, passk_lab as pk
    >>> from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec
    >>> from inspect_ai.log import write_eval_log
    >>> from inspect_ai.scorer import Score
    >>> spec = EvalSpec(
    ...     created="2026-01-01T10:00:00+00:00", task="quiz", model="mockllm/model",
    ...     dataset=EvalDataset(), config=EvalConfig(),
    ... )
    >>> samples = [
    ...     EvalSample(id=task, epoch=epoch, input="?", target="C",
    ...                scores={"match": Score(value=verdict)})
    ...     for task, verdicts in [("q0", "CC"), ("q1", "CI")]
    ...     for epoch, verdict in enumerate(verdicts, start=1)
    ... ]
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> log = EvalLog(eval=spec, samples=samples, status="success")
    >>> _ = write_eval_log(log, str(folder / "quiz.json"))
    >>> runs = read_inspect_log(folder / "quiz.json")
    >>> runs[["task", "run", "passed", "reward", "scorer", "log"]]
      task  run  passed  reward scorer       log
    0   q0    0    True     1.0  match  quiz.json
    1   q1    0    True     1.0  match  quiz.json
    2   q0    1    True     1.0  match  quiz.json
    3   q1    1   False     0.0  match  quiz.json
    >>> pk.pass_pow_k(runs, 2)
    0.5
    """
    try:
        from inspect_ai.log import list_eval_logs
    except ImportError as exc:
        raise ImportError(
            "reading Inspect AI logs needs inspect-ai: pip install 'passk-lab[inspect]'"
        ) from exc
    source = Path(path)
    logs = _logs(source, list_eval_logs)
    frames = []
    unscored = 0
    for log in logs:
        frame = _read_log(log, scorer, threshold)
        unscored += int(frame.attrs["n_unscored"])
        frames.append(frame)
    runs = pd.concat(frames, ignore_index=True)
    runs.attrs = {"files": [_location(log) for log in logs], "n_unscored": unscored}
    if unscored:
        warn(
            ReadWarning(
                f"{unscored} sample run(s) have no score and no error; they are kept as failed "
                "runs with error 'unscored' (left out with errors='exclude')",
                path=source,
            )
        )
    return runs


def _logs(source: Path, list_eval_logs: Any) -> list[str | EvalLogInfo]:
    """Return the logs a path names: the file, or the logs Inspect lists in the directory."""
    if os.path.isdir(source):
        logs: list[str | EvalLogInfo] = list(list_eval_logs(str(source), descending=False))
        if not logs:
            raise FileNotFoundError(f"no Inspect logs (.eval or .json) in the directory {source}")
        _warn_unlisted(source, {Path(_location(log)) for log in logs})
        return logs
    if os.path.lexists(source):
        return [str(source)]
    raise FileNotFoundError(f"no such Inspect log file or directory: {source}")


def _warn_unlisted(folder: Path, listed: set[Path]) -> None:
    """Warn about .eval and .json files that Inspect does not list as logs (by their names)."""
    others = sorted(
        str(file.relative_to(folder))
        for suffix in ("*.eval", "*.json")
        for file in folder.rglob(suffix)
        if file not in listed and file.name != _MANIFEST
    )
    if others:
        warn(
            ReadWarning(
                f"{len(others)} file(s) in {folder} are not named as Inspect logs and were not "
                f"read: {', '.join(others[:5])}{', ...' if len(others) > 5 else ''}; "
                f"give a file's path to read it",
                path=folder,
            )
        )


def _location(log: str | EvalLogInfo) -> str:
    """Return a log's path (a local file's path, decoded from Inspect's file URL)."""
    if isinstance(log, str):
        return log
    parsed = urlparse(log.name)
    return unquote(parsed.path) if parsed.scheme == "file" else log.name


def _read_log(log: str | EvalLogInfo, scorer: str | None, threshold: float | None) -> pd.DataFrame:
    """Return one log's rows, one per sample and epoch, with its count of unscored runs."""
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

    file = _location(log)
    if os.path.lexists(file):  # a local log (not one in the cloud)
        check_regular(Path(file), "log file")
    try:
        header = read_eval_log(log, header_only=True)
        samples = read_eval_log_sample_summaries(log)
    except Exception as exc:  # inspect-ai raises many kinds; all mean the same here
        raise ValueError(
            f"{file}: not a readable Inspect log ({type(exc).__name__}: {exc}); it may be cut "
            f"short, not an Inspect log, or written by a newer inspect-ai than the one "
            f"installed (pip install -U inspect-ai)"
        ) from exc
    if header.status != "success":
        warn(
            ReadWarning(
                f"{file}: the eval's status is {header.status!r}, so it may lack samples or "
                f"epochs; {len(samples)} sample run(s) were read",
                path=file,
            )
        )
    chosen = _scorer(file, samples, scorer)
    rewards = np.full(len(samples), np.nan)
    errors: list[str | None] = []
    unscored = "unscored: no " + (f"{chosen!r} score" if chosen else "score")
    n_unscored = 0
    for row, sample in enumerate(samples):
        score = (sample.scores or {}).get(chosen) if chosen is not None else None
        value = None if score is None else _number(score.value, file, sample, chosen)
        if value is not None:
            rewards[row] = value
        elif not sample.error:
            n_unscored += 1
        errors.append(sample.error or (None if value is not None else unscored))
    scored = ~np.isnan(rewards)
    passed = np.zeros(len(samples), dtype=np.bool_)
    positions = np.flatnonzero(scored)
    passed[positions] = decide(
        rewards[positions],
        threshold,
        lambda row: _where(file, samples[int(positions[row])]),
        field=f"scores[{chosen!r}]",
    )
    runs = pd.DataFrame(
        {
            "task": [sample.id for sample in samples],
            "run": np.array([sample.epoch - 1 for sample in samples], dtype=np.int64),
            "passed": passed,
            "reward": rewards,
            "error": pd.Series(errors, dtype="str"),
            "limit": pd.Series([sample.limit for sample in samples], dtype="str"),
            "model": header.eval.model,
            "task_name": header.eval.task,
            "eval_id": header.eval.eval_id,
            "created": pd.Timestamp(header.eval.created).tz_convert("UTC"),
            "scorer": pd.Series([chosen] * len(samples), dtype="str"),
            "log": Path(file).name,
        }
    )
    runs.attrs["n_unscored"] = n_unscored
    return runs


def _scorer(file: str, samples: list[EvalSampleSummary], scorer: str | None) -> str | None:
    """Return the scorer whose score decides a pass: the one given, or a log's only one."""
    names = list(dict.fromkeys(name for sample in samples for name in (sample.scores or {})))
    if scorer is not None:
        if scorer not in names:
            raise ValueError(
                f"{file}: no scorer {scorer!r}; its samples are scored by {names or 'none'}"
            )
        return scorer
    if len(names) > 1:
        raise with_keywords(
            ValueError(
                f"{file}: samples are scored by several scorers {names}; choose one with "
                "scorer='...'"
            ),
            "scorer",
        )
    return names[0] if names else None


def _number(value: Any, file: str, sample: EvalSampleSummary, scorer: str | None) -> float | None:
    """Read a score's value as Inspect's ``value_to_float`` does; None for NaN (unscored)."""
    if isinstance(value, str):
        number = _LETTERS.get(value, _WORDS.get(value.lower()))
        if number is None:
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not math.isfinite(number):
                raise ValueError(
                    f"{_where(file, sample)}: scores[{scorer!r}] is {value!r}, which is neither "
                    f"a verdict (C, I, P, N, yes, no, true, false) nor a number"
                )
        return number
    if isinstance(value, bool | int | float):
        return None if math.isnan(value) else float(value)
    raise ValueError(
        f"{_where(file, sample)}: scores[{scorer!r}] is {value!r}, a "
        f"{type(value).__name__} of several values; give a scorer with one value per sample"
    )


def _where(file: str, sample: EvalSampleSummary) -> str:
    """Name a log's sample and epoch, for the messages."""
    return f"{file}, sample {sample.id!r} epoch {sample.epoch}"
