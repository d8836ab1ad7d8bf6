"""Harbor job folders: finding a job's trials, and what its config and result declare.

A path is a job folder, a folder of jobs, a trial folder or a trial's (or job's)
``result.json``; :func:`jobs` returns the jobs it names, each with its finished trials'
result files and the trials it declares (docs/reading.md, "Harbor job folders").
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from passk_lab._errors import with_keywords
from passk_lab.io._json_files import load_json
from passk_lab.io._records import integer

__all__ = ["Job", "is_harbor", "jobs", "relative_paths"]


@dataclass
class Job:
    """One job folder: its trials' result files, and what its config and result declare.

    Each of `files` (paths as text, as ``str(Path)`` writes them) was seen to be a regular
    file when its folder was listed, so that a trial's reader may open it without looking at
    it again. `declared` is the trials each task has per agent and model (``n_attempts``),
    None when the job declares none; `declared_by` says where, for the messages.

    Examples
    --------
    >>> Job(Path("jobs/2026-08-20__10-00-00"), ["jobs/2026-08-20__10-00-00/a__x/result.json"])
    Job(folder=PosixPath('jobs/2026-08-20__10-00-00'), files=[...], declared=None, declared_by='')
    """

    folder: Path | None
    files: list[str] = field(default_factory=list)
    declared: int | None = None
    declared_by: str = ""


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


def _first_characters(file: Path) -> str:
    """Return a file's first 4096 characters past blanks ("" if it cannot be read)."""
    try:
        with file.open(encoding="utf-8", errors="replace") as text:
            return text.read(4096).lstrip()
    except OSError:
        return ""


def _is_result_file(file: Path) -> bool:
    """Tell a trial's or job's result.json by its first characters."""
    head = _first_characters(file)
    if not head.startswith("{"):
        return False
    return ('"trial_name"' in head and '"task_name"' in head) or '"n_total_trials"' in head


def _is_harbor_folder(folder: Path, depth: int) -> bool:
    """Tell a trial, job or jobs folder, looking `depth` folders down."""
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
    """Return a folder's subfolders, sorted."""
    with os.scandir(folder) as entries:
        return sorted(Path(entry.path) for entry in entries if entry.is_dir())


def _kind(folder: Path) -> str | None:
    """Tell a trial folder ("trial") from a job folder ("job") by its files; None for neither."""
    for name in ("config.json", "result.json"):
        file = folder / name
        if os.path.isfile(file):
            value = load_json(file, f"a Harbor {name} is a JSON object", kind=dict)
            trial = "task" in value if name == "config.json" else "trial_name" in value
            return "trial" if trial or "task_name" in value else "job"
    return None


def jobs(root: Path, partial: bool) -> list[Job]:
    """Return the jobs a path names, each with its finished trials' result files.

    Parameters
    ----------
    root : pathlib.Path
        A job folder, a folder of jobs, a trial folder, or a trial's (or job's)
        ``result.json``.
    partial : bool
        Read a job whose trials have not all finished, instead of refusing it.

    Raises
    ------
    FileNotFoundError
        If there is no such path.
    ValueError
        If a config or result file is not a JSON object, a trial folder stands
        among job folders, or (without `partial`) a job lacks trials it declares.

    Examples
    --------
    >>> import json, tempfile
    >>> trial = Path(tempfile.mkdtemp()) / "fix-git__zQ7mK2p"
    >>> trial.mkdir()
    >>> _ = (trial / "result.json").write_text(json.dumps({"task_name": "fix-git"}))
    >>> [Path(file).name for job in jobs(trial, partial=False) for file in job.files]
    ['result.json']
    """
    if not os.path.lexists(root):
        raise FileNotFoundError(f"no such Harbor job folder or result file: {root}")
    if not os.path.isdir(root):
        value = load_json(root, "a Harbor result.json is a JSON object", kind=dict)
        if "n_total_trials" in value and "task_name" not in value:
            return [_job(root.parent, partial)]
        return [Job(None, [str(root)])]
    kind = _kind(root)
    if kind == "trial":
        return [Job(None, [str(root / "result.json")])]
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


def _job(folder: Path, partial: bool) -> Job:
    """Return a job folder's finished trials and the trials it declares."""
    job = Job(folder)
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
        job.declared = integer(
            config.get("n_attempts", 1),
            str(folder / "config.json"),
            "n_attempts",
            "Harbor runs each task n_attempts (an integer >= 1) times",
            minimum=1,
        )
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
    """Return the object a job's config or result file holds; None without the file."""
    if not os.path.isfile(file):
        return None
    value: dict[str, Any] = load_json(file, f"{what} is a JSON object", kind=dict)
    return value


def relative_paths(files: list[str], root: Path) -> list[str]:
    """Return each file's path within `root` (a folder), or its name (`root` a file).

    Examples
    --------
    >>> relative_paths(["jobs/a/result.json"], Path("jobs/a/result.json"))
    ['result.json']
    """
    if not os.path.isdir(root):
        return [os.path.basename(file) for file in files]
    start = len(_prefix(root))
    return [file[start:] for file in files]
