"""What the readers of per-run records share: loading a JSON file, ids, and the checks of trials.

Every reader of a harness's own files (tau-bench, tau2-bench, lm-evaluation-harness,
HAL, Harbor) turns records into rows and must refuse the same damage in the same
words: a file that is not JSON, a task id that is not an id, a trial that is not
a trial number, a trial recorded twice, fewer trials than the file declares.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from passk_lab._errors import with_keywords
from passk_lab._files import check_regular, encodable, read_text
from passk_lab.io._json import json_kind

__all__ = ["check_trials", "load_json", "result_files", "task_id", "trial_number"]

_INT64 = np.iinfo(np.int64)
_GLOB = re.compile(r"[*?\[]")


def result_files(path: str | Path | Sequence[str | Path], what: str) -> list[Path]:
    """Return the files `path` names, each checked to be a regular file one may read.

    Parameters
    ----------
    path : str, pathlib.Path or sequence of them
        One file, a directory (its ``.json`` files, sorted by name), a glob pattern
        (``"results/*-airline.json"``, sorted) or a list of files (in its order).
    what : str
        What a file is, for the messages (``"tau-bench results file"``).

    Raises
    ------
    FileNotFoundError
        If no file matches, or a directory holds no ``.json`` file.
    ValueError
        If the list is empty, or a file is not a regular file one may read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.json", "a.json"):
    ...     _ = (folder / name).write_text("[]")
    >>> [file.name for file in result_files(folder, "results file")]
    ['a.json', 'b.json']
    >>> result_files(folder / "*-retail.json", "tau-bench results file")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no tau-bench results file matches '...*-retail.json'
    """
    # os.path.isdir and os.path.exists answer False for a path they may not look at (where
    # Path.is_dir raises), so that check_regular names the file and why it cannot be read
    if isinstance(path, str | Path):
        text = str(path)
        single = Path(path)
        if _GLOB.search(text) and not os.path.exists(text):
            candidates = [Path(match) for match in sorted(glob.glob(text))]
            if not candidates:
                raise FileNotFoundError(f"no {what} matches {text!r}")
        elif os.path.isdir(single):
            candidates = sorted(single.glob("*.json"))
            if not candidates:
                raise FileNotFoundError(f"no .json {what} in the directory {single}")
        else:
            candidates = [single]
    else:
        candidates = [Path(item) for item in path]
        if not candidates:
            raise ValueError(f"no {what} given: pass a path, a glob or a list")
    for file in candidates:
        check_regular(file, what)
    return candidates


def load_json(file: Path, what: str, *, unique_keys: bool = False) -> Any:
    """Return the JSON value a file holds, refusing a file that is not one as a ValueError.

    Parameters
    ----------
    file : pathlib.Path
        The file, checked to be a regular file one may read.
    what : str
        What the file should be, for the messages (``"a tau2-bench results file is a JSON
        object"``).
    unique_keys : bool
        Refuse an object that writes a key twice, which plain JSON reading settles by keeping
        the last value (a task's runs written twice would lose the first copy). Parsing then
        costs more, so it is for files whose objects are keyed by task.

    Raises
    ------
    ValueError
        If the file is not a regular file, cannot be read, is not UTF-8, is not JSON (a file
        cut short while it was written is said to be so) or nests past the recursion limit.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = file.write_text('{"simulations": [1, 2')
    >>> load_json(file, "a results file is a JSON object")
    Traceback (most recent call last):
    ...
    ValueError: ...results.json: not valid JSON at line 1, column 22: the file ends early (cut ...
    """
    check_regular(file)
    text = read_text(file)
    try:
        return json.loads(text, object_pairs_hook=_unique if unique_keys else None)
    except _RepeatedKey as repeated:
        raise ValueError(
            f"{file}: the key {repeated.key!r} appears twice in one object, and JSON readers keep "
            f"only its last value; {what}: merge the two entries or rename one"
        ) from None
    except RecursionError:
        raise ValueError(
            f"{file}: nested too deeply to read (lists or objects inside one another past "
            f"Python's recursion limit, {sys.getrecursionlimit()}); {what}"
        ) from None
    except json.JSONDecodeError as exc:
        body = text.strip()
        closing = {"[": "]", "{": "}"}.get(body[:1])
        cut = closing is not None and body[-1:] != closing
        reason = "the file ends early (cut short while it was written?)" if cut else exc.msg
        raise ValueError(
            f"{file}: not valid JSON at line {exc.lineno}, column {exc.colno}: {reason}; {what}"
        ) from None


class _RepeatedKey(Exception):
    """Raised by :func:`_unique` for a key an object writes twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Return an object's pairs as a dict, raising :class:`_RepeatedKey` for a repeated key."""
    result = dict(pairs)
    if len(result) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return result


def task_id(value: object, where: str, field: str = "task_id") -> int | str:
    """Return a record's task id, an integer or a text, refusing anything else.

    Examples
    --------
    >>> task_id("airline_3", "results.json, simulation 0"), task_id(7, "here")
    ('airline_3', 7)
    >>> task_id(1.5, "results.json, simulation 2")
    Traceback (most recent call last):
    ...
    ValueError: results.json, simulation 2: task_id is 1.5, a number with a fraction or an ...
    """
    if value is None:
        raise ValueError(f"{where}: no {field}; every run needs the task it belongs to")
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            f"{where}: {field} is {value!r}, {json_kind(value)}; a task id is a text or an integer"
        )
    if not _INT64.min <= value <= _INT64.max:
        raise ValueError(
            f"{where}: {field} is {value}, an integer too large for int64; write it as a JSON "
            f'string ("{value}")'
        )
    return value


def trial_number(value: object, where: str, field: str = "trial") -> int:
    """Return a record's trial number, an integer ``>= 0``, refusing a missing or other one.

    Examples
    --------
    >>> trial_number(3, "here")
    3
    >>> trial_number(None, "results.json, simulation 4 (task_id '7')")
    Traceback (most recent call last):
    ...
    ValueError: results.json, simulation 4 (task_id '7'): no trial; every run needs its trial ...
    """
    if value is None:
        raise ValueError(
            f"{where}: no {field}; every run needs its trial number (0, 1, 2, ...) within its task"
        )
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _INT64.max:
        raise ValueError(
            f"{where}: {field} is {value!r}, {json_kind(value)}; trials are numbered 0, 1, 2, ... "
            f"within a task"
        )
    return value


def check_trials(
    keys: Sequence[Hashable],
    trials: Sequence[int],
    where: Callable[[int], str],
    *,
    declared: int | None = None,
    declared_by: str = "",
    field: str = "trial",
    complete: bool = True,
) -> None:
    """Refuse a trial recorded twice, and a task with fewer (or more) trials than declared.

    Parameters
    ----------
    keys : sequence of hashable
        Each record's task (with its group, as a tuple, when the file has groups).
    trials : sequence of int
        Each record's trial number.
    where : callable
        Maps a record's position to the words that locate it (``"results.json, simulation
        3 (task_id '7')"``).
    declared : int, optional
        The number of trials the file says every task has (tau2-bench's ``num_trials``);
        None when it says none.
    declared_by : str
        Where the file declares it, for the message (``"info.num_trials"``).
    field : str
        The file's name for a trial number, for the messages.
    complete : bool
        Refuse a task with fewer than `declared` trials (the default); False reads an
        evaluation that stopped early (a reader's ``partial=True``), still refusing a trial
        number past `declared`.

    Raises
    ------
    ValueError
        If two records share a task and trial (naming both), a trial number is not below
        `declared`, or a task has fewer than `declared` trials (naming the task and the
        missing trial numbers).

    Examples
    --------
    >>> where = "record {}".format
    >>> check_trials(["a", "a", "b"], [0, 1, 0], where)
    >>> check_trials(["a", "a"], [0, 0], where)
    Traceback (most recent call last):
    ...
    ValueError: record 1: trial 0 of task 'a' is recorded twice (first at record 0); ...
    >>> check_trials(["a", "a", "b"], [0, 1, 0], where, declared=2, declared_by="num_trials")
    Traceback (most recent call last):
    ...
    ValueError: task 'b' has 1 of the 2 trials num_trials declares: trial 1 is missing; ...
    """
    first: dict[tuple[Hashable, int], int] = {}
    seen: dict[Hashable, set[int]] = {}
    for number, (key, trial) in enumerate(zip(keys, trials, strict=True)):
        earlier = first.setdefault((key, trial), number)
        if earlier != number:
            raise ValueError(
                f"{where(number)}: {field} {trial} of task {key!r} is recorded twice (first at "
                f"{where(earlier)}); a run is counted once: drop the copy, or read the two "
                f"evaluations apart"
            )
        if declared is not None and trial >= declared:
            raise ValueError(
                f"{where(number)}: {field} is {trial}, but {declared_by} declares {declared} "
                f"trial(s) (numbered 0 to {declared - 1}); the file is inconsistent"
            )
        seen.setdefault(key, set()).add(trial)
    if declared is None or not complete:
        return
    for key, numbers in seen.items():
        if len(numbers) < declared:
            missing = sorted(set(range(declared)) - numbers)
            shown = ", ".join(map(str, missing[:5])) + (", ..." if len(missing) > 5 else "")
            raise with_keywords(
                ValueError(
                    f"task {key!r} has {len(numbers)} of the {declared} trials {declared_by} "
                    f"declares: {field} {shown} {'is' if len(missing) == 1 else 'are'} missing; "
                    f"the run may have stopped early or the file lost records: finish or re-run "
                    f"it, or pass partial=True to read the trials that are there"
                ),
                "partial",
            )
