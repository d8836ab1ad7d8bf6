"""Samples scored as lists of booleans per task: CRUXEval's ``raw_scored_generations``.

CRUXEval's ``evaluation/evaluate_generations.py`` (facebookresearch/cruxeval) dumps one JSON
object, ``{"raw_generations": ..., "raw_scored_generations": {"sample_0": [true, false,
...], ...}, "pass_at_1": ..., "pass_at_5": ...}``: for each task, one verdict per sample.
"""

from __future__ import annotations

import re
from itertools import chain
from pathlib import Path

import numpy as np
import pandas as pd

from passk_lab._files import check_regular, encodable
from passk_lab.io._json_files import load_json
from passk_lab.io._records import boolean, mapping, refusal

__all__ = ["is_samples", "read_samples"]

_KEY = "raw_scored_generations"
_SHAPE = (
    "a samples file is a JSON object mapping each task id to a list of booleans, one per "
    f'sample, or CRUXEval\'s scored results, an object whose "{_KEY}" is one'
)


def read_samples(path: str | Path) -> pd.DataFrame:
    """Read per-task lists of verdicts, one boolean per sample, as a runs table.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.json`` file holding an object that maps each task id to a list of booleans
        (``{"sample_0": [true, false], ...}``), or CRUXEval's scored results, whose
        ``raw_scored_generations`` is that object (its other keys are not read).

    Returns
    -------
    DataFrame
        ``task`` (the object's keys, text, in the file's order), ``run`` (int64: a
        sample's position in its list, 0 the first), ``passed`` (bool: the element) and
        ``file`` (the file's name); ``attrs["files"]`` lists the file.

    Raises
    ------
    ValueError
        If the file is not JSON (or is cut short), is not such an object, a task's value
        is not a list, a list is empty, or an element is not a boolean (``1``, ``"true"``,
        ``null`` or a nested list are refused: a verdict is ``true`` or ``false``); the
        message names the file, the task and the position.

    Examples
    --------
    >>> import json, tempfile, pathlib, passk_lab as pk
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "scored.json"
    >>> scored = {"sample_0": [True, True], "sample_1": [False, True]}
    >>> _ = file.write_text(json.dumps({"raw_scored_generations": scored, "pass_at_1": 75.0}))
    >>> runs = read_samples(file)
    >>> runs
           task  run  passed         file
    0  sample_0    0    True  scored.json
    1  sample_0    1    True  scored.json
    2  sample_1    0   False  scored.json
    3  sample_1    1    True  scored.json
    >>> float(pk.pass_at_k(runs, 1))
    0.75
    """
    file = Path(path)
    check_regular(file, "samples file")
    document = load_json(file, _SHAPE, kind=dict, unique_keys=True)
    scored = mapping(document[_KEY], str(file), _KEY, _SHAPE) if _KEY in document else document
    if not scored:
        raise ValueError(f"{file}: no tasks; {_SHAPE}")
    tasks = list(scored)
    lists = list(scored.values())
    sizes = np.fromiter(map(_size, lists), dtype=np.int64, count=len(lists))
    bad = sizes < 1
    if bad.any():
        row = int(np.argmax(bad))
        value = lists[row]
        raise refusal(
            str(file),
            f"task {tasks[row]!r}",
            value,
            "every task needs a list of verdicts, one boolean per sample (drop a task with no "
            "samples)",
            "an empty list" if isinstance(value, list) else None,
        )
    flat = list(chain.from_iterable(lists))
    try:
        passed = np.array(flat)
    except ValueError:  # lists nested unevenly
        passed = np.array([], dtype=object)
    if passed.dtype != np.bool_ or passed.shape != (len(flat),):
        position = next(index for index, value in enumerate(flat) if not isinstance(value, bool))
        row = int(np.searchsorted(np.cumsum(sizes), position, side="right"))
        sample = position - int(sizes[:row].sum())
        boolean(  # refuses the first value that is not a verdict
            flat[position],
            f"{file}, task {tasks[row]!r}",
            f"sample {sample}",
            "a verdict is true or false (write 1 and 0 as true and false)",
        )
    runs = np.arange(len(flat), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    frame = pd.DataFrame(
        {
            "task": np.repeat(np.array([encodable(task) for task in tasks], dtype=object), sizes),
            "run": runs,
            "passed": passed,
            "file": file.name,
        }
    )
    frame["task"] = frame["task"].astype("str")
    frame.attrs["files"] = [str(file)]
    return frame


def _size(value: object) -> int:
    """Return a list's length, and 0 for anything that is not a list."""
    return len(value) if isinstance(value, list) else 0


_START = re.compile(rb'\A\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\[\s*(?:true|false)\b')
_CRUXEVAL_START = re.compile(rb'\A\s*\{\s*"raw_(?:scored_)?generations"\s*:')


def is_samples(path: Path) -> bool:
    """Tell a samples file from its first bytes: a ``.json`` object of lists of booleans.

    The object's first key holds a list starting ``true`` or ``false``, or the file starts
    as CRUXEval's scored results do (``{"raw_generations":``). Inspect's ``.json`` logs
    start with other keys, tau-bench's files with a list.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "scored.json"
    >>> _ = file.write_text('{"sample_0": [true, false]}')
    >>> is_samples(file)
    True
    """
    if Path(path).suffix.lower() != ".json" or not Path(path).is_file():
        return False
    with open(path, "rb") as binary:
        start = binary.read(4096)
    return _CRUXEVAL_START.match(start) is not None or _START.match(start) is not None
