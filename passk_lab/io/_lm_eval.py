"""lm-evaluation-harness sample logs: ``samples_<task>_<date_id>.jsonl``, one document a line.

``lm_eval --log_samples`` writes, per task, one JSON object per document and filter (the
document, its requests, the responses, the filter's name and each metric's value) beside
``results_<date_id>.json``, in ``<output_path>/<model_name_sanitized>/``. The harness scores a
document once: with ``repeats: N`` its metric combines the N responses into one number. A
run is thus one samples file (lm-eval run again with another ``--seed``), or one entry of a
metric a task's ``process_results`` writes as a list, one value per repeat.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.verdicts import decide
from passk_lab._errors import with_keywords
from passk_lab._files import encodable, read_text
from passk_lab.io._json_files import load_json, result_files
from passk_lab.io._records import (
    absent,
    check_name,
    check_partial,
    check_trials,
    integer,
    mapping,
    refusal,
    text,
)

__all__ = ["is_lm_eval", "read_lm_eval"]

_WHAT = "lm-evaluation-harness samples file"
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)$")
_COMBINED = (
    "the harness combined the {n} responses of a document into this one number (the first "
    "response, a majority vote or a pass@k estimate), so the repeats' own verdicts are not in "
    "the file: use a task whose process_results returns one value per repeat (a list), or run "
    "lm_eval several times with --seed and read the samples files together"
)


def read_lm_eval(
    path: str | Path | Sequence[str | Path],
    *,
    metric: str | None = None,
    filter: str | None = None,
    threshold: float | None = None,
    partial: bool = False,
) -> pd.DataFrame:
    r"""Read lm-evaluation-harness sample logs (``--log_samples``) into a runs table.

    Each line of a ``samples_<task>_<date_id>.jsonl`` file is one document (``doc_id``) under
    one filter (``filter``), with each metric's value under the metric's name. A run is

    * one samples file: the files of one lm-eval task in one model folder are that task's
      runs (lm-eval run again with another ``--seed``), numbered 0, 1, ... in the order of
      their ``date_id`` (their names), and every document must be in each of them;
    * or one entry of a metric whose value is a list, one number per repeat (a task whose
      ``process_results`` scores each of its ``repeats``): entry ``i`` is run ``i``, and the
      list has as many entries as the document has responses (``len(resps[0])``).

    A single number with ``repeats`` > 1 is refused: the harness combined the responses
    (first response, majority vote, pass@k estimate) and the repeats' verdicts are lost;
    a metric holding a pass@k estimate (an object) likewise. Responses are never re-scored.

    Parameters
    ----------
    path : str, pathlib.Path or sequence of them
        One samples file, a glob pattern or a list of them, or a folder (searched, with its
        subfolders, for ``samples_*.jsonl``).
    metric : str, optional
        The metric judged (``"exact_match"``). By default the only one each line's
        ``metrics`` lists; a line listing several is refused, naming them.
    filter : str, optional
        The filter whose lines are read (``"strict-match"``). By default the only filter in
        each file; a file with several is refused, naming them.
    threshold : float, optional
        The metric value a run needs to pass; by default a pass when it is 1 (values must
        then lie in [0, 1]). A ``true``/``false`` value counts as 1/0.
    partial : bool
        Read the runs that are there when a document is missing from some samples files of
        its task (refused by default).

    Returns
    -------
    DataFrame
        One row per document and run, in the files' order: ``task`` (``doc_id``), ``run``,
        ``passed``, ``reward`` (the metric's value), ``lm_eval_task`` (from the file name),
        ``filter``, ``metric``, ``model`` (``model_name`` of the ``results_<date_id>.json``
        beside the file, else the folder's name), ``doc_hash``, ``prompt_hash``,
        ``target_hash``, ``target`` and ``file``. ``attrs["files"]`` lists the files read.

    Raises
    ------
    ValueError
        If a line is not JSON (or is cut short) or not an object, lacks ``doc_id`` or the
        metric, has a ``doc_id`` that is not an integer, a metric value that is not a
        number in [0, 1] (under the default rule), a single number where the document has
        several responses, a list of another length, or a document appears twice in a
        file, or is missing from one of its task's files (unless `partial`); the message
        names the file, the line, the ``doc_id`` and the field.
    FileNotFoundError
        If no file matches `path`.
    TypeError
        If `metric` or `filter` is not a str, or `partial` not True or False.

    Examples
    --------
    >>> import json, tempfile, pathlib, passk_lab as pk
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "pythia-160m"
    >>> folder.mkdir()
    >>> def line(doc_id, value):
    ...     return json.dumps({"doc_id": doc_id, "resps": [["4"]], "filtered_resps": ["4"],
    ...                        "filter": "none", "metrics": ["exact_match"],
    ...                        "exact_match": value}) + "\n"
    >>> days = {"2024-05-01T10-00-00": [1.0, 0.0], "2024-05-02T10-00-00": [1.0, 1.0]}
    >>> for date, values in days.items():
    ...     text = "".join(line(doc_id, value) for doc_id, value in enumerate(values))
    ...     _ = (folder / f"samples_arith_{date}.jsonl").write_text(text)
    >>> runs = read_lm_eval(folder)
    >>> runs[["task", "run", "passed", "lm_eval_task", "model"]]
       task  run  passed lm_eval_task        model
    0     0    0    True        arith  pythia-160m
    1     1    0   False        arith  pythia-160m
    2     0    1    True        arith  pythia-160m
    3     1    1    True        arith  pythia-160m
    >>> pk.pass_pow_k(runs, 2)
    0.5
    """
    check_name(metric, "metric", "a metric's name")
    check_name(filter, "filter", "a filter's name")
    check_partial(partial)
    files = result_files(path, _WHAT, within="samples_*.jsonl")
    groups: dict[tuple[str, str], list[tuple[str, str, Path]]] = {}
    for file in files:
        named = _NAME.match(file.stem)
        task, date = (named["task"], named["date"]) if named else (file.stem, "")
        groups.setdefault((str(file.parent), task), []).append((date, file.name, file))
    frames: list[pd.DataFrame] = []
    for (_, task), members in groups.items():
        members.sort()
        offset = 0
        group: list[pd.DataFrame] = []
        for _, _, file in members:
            frame, width = _read_file(file, task, metric, filter, threshold, offset)
            group.append(frame)
            offset += width
        runs = pd.concat(group, ignore_index=True)
        _check_runs(runs, offset, len(members), task, partial)
        frames.append(runs)
    result = pd.concat(frames, ignore_index=True)
    result.attrs["files"] = [str(file) for file in files]
    return result


def is_lm_eval(path: Path) -> bool:
    r"""Tell lm-evaluation-harness sample logs by their first line, or a folder by its files.

    A ``.jsonl`` file whose first line is an object with ``doc_id`` and ``filtered_resps``,
    or a folder holding ``samples_*.jsonl`` files (in it or one level down).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> file = folder / "samples_gsm8k_2024-05-01T10-00-00.jsonl"
    >>> _ = file.write_text('{"doc_id": 0, "filtered_resps": ["4"]}\n')
    >>> is_lm_eval(file), is_lm_eval(folder), is_lm_eval(folder / "missing.csv")
    (True, True, False)
    """
    if os.path.isdir(path):
        pattern = "samples_*.jsonl"
        return any(True for _ in path.glob(pattern)) or any(True for _ in path.glob(f"*/{pattern}"))
    if path.suffix.lower() != ".jsonl" or not os.path.isfile(path):
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as text:
            first = json.loads(text.readline())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(first, dict) and "doc_id" in first and "filtered_resps" in first


def _results(file: Path) -> dict[str, Any]:
    """Return the ``results_<date_id>.json`` written with a samples file, or ``{}``."""
    named = _NAME.match(file.stem)
    if named is None:
        return {}
    results = file.with_name(f"results_{named['date']}.json")
    if not results.is_file():
        return {}
    value: dict[str, Any] = load_json(
        results, "an lm-evaluation-harness results file is a JSON object", kind=dict
    )
    return value


def _lines(file: Path) -> list[dict[str, Any]]:
    # a text file's lines end at "\n" (or "\r"), which JSON escapes inside strings; U+2028 and
    # U+0085, which lm-eval writes unescaped (ensure_ascii=False), stay inside their line
    """Return a samples file's lines as JSON objects, refusing a line that is not one."""
    try:
        with file.open(encoding="utf-8") as stream:
            lines = stream.readlines()
    except UnicodeDecodeError:
        read_text(file)  # refuses the file, naming the first byte that is not UTF-8
        raise
    except OSError as exc:
        raise ValueError(f"{file}: cannot be read ({exc.strerror})") from None
    try:
        records: list[Any] = [json.loads(line) for line in lines]
    except (json.JSONDecodeError, RecursionError):
        raise _not_json(file, lines) from None
    if not records:
        raise ValueError(f"{file}: no lines; a samples file with no document has nothing to read")
    for number, record in enumerate(records, start=1):
        mapping(
            record, f"{file}, line {number}", "the line", f"an {_WHAT} holds one JSON object a line"
        )
    return records


def _not_json(file: Path, lines: list[str]) -> ValueError:
    """Return the refusal of the first line of `lines` that is not JSON."""
    for number, line in enumerate(lines):
        try:
            json.loads(line)
        except json.JSONDecodeError as exc:
            reason = exc.msg
        except RecursionError:
            reason = "nested too deeply"
        else:
            continue
        if number == len(lines) - 1 and not line.endswith(("\n", "\r")):
            reason = "the line ends early (the file cut short while it was written?)"
        return ValueError(
            f"{file}, line {number + 1}: not valid JSON ({reason}); an {_WHAT} holds one JSON "
            f"object a line"
        )
    raise AssertionError("unreachable")  # pragma: no cover


def _choose(file: Path, records: list[dict[str, Any]], filter: str | None) -> str:
    """Return the filter whose lines are read: the one given, or a file's only one."""
    found = list(dict.fromkeys(record.get("filter") for record in records))
    if filter is None:
        if len(found) != 1:
            raise with_keywords(
                ValueError(
                    f"{file}: lines of {len(found)} filters ({', '.join(map(repr, found))}); "
                    f"choose one with filter="
                ),
                "filter",
            )
        return text(found[0], f"{file}, line 1", "filter", "lm-eval writes a filter's name")
    if filter not in found:
        raise ValueError(
            f"{file}: no line of filter {filter!r}; its filters are {', '.join(map(repr, found))}"
        )
    return filter


def _metric(file: Path, line: int, record: dict[str, Any], metric: str | None) -> str:
    """Return the metric judged: the one given, or the only one a line lists."""
    if metric is not None:
        return metric
    names = record.get("metrics")
    if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str):
        rule = "the metric to judge is the only one a line lists, else choose it with metric="
        kind = f"a list of {len(names)}" if isinstance(names, list) else None
        raise with_keywords(
            refusal(_where(file, line, record), "metrics", names, rule, kind), "metric"
        )
    return names[0]


def _read_file(
    file: Path,
    task: str,
    metric: str | None,
    filter: str | None,
    threshold: float | None,
    offset: int,
) -> tuple[pd.DataFrame, int]:
    """Return one samples file's rows, runs numbered from `offset`, and how many runs it holds."""
    records = _lines(file)
    chosen = _choose(file, records, filter)
    results = _results(file)
    configs = results.get("configs")
    config = configs.get(task) if isinstance(configs, dict) else None
    repeats = config.get("repeats") if isinstance(config, dict) else None
    declared = repeats if isinstance(repeats, int) and not isinstance(repeats, bool) else 1
    model = results.get("model_name")
    model = encodable(model) if isinstance(model, str) and model else file.parent.name
    name: str | None = None
    lines: list[int] = []
    docs: list[object] = []
    runs: list[int] = []
    rewards: list[float] = []
    kept: list[dict[str, Any]] = []
    width = 1
    for number, record in enumerate(records):
        if record.get("filter") != chosen:
            continue
        if name is None:
            name = _metric(file, number + 1, record, metric)
        if "doc_id" not in record:
            raise absent(f"{file}, line {number + 1}", "doc_id", "every line is one document")
        value = record.get(name, _MISSING)
        kind = type(value)
        if kind is float or kind is int or kind is bool:
            responses = _responses(record)
            if responses > 1 or declared > 1:
                raise ValueError(
                    f"{_where(file, number + 1, record)}: {name} is {value!r} for "
                    f"{max(responses, declared)} responses; "
                    + _COMBINED.format(n=max(responses, declared))
                )
            lines.append(number + 1)
            docs.append(record["doc_id"])
            runs.append(offset)
            rewards.append(float(value))
            kept.append(record)
        elif kind is list:
            responses = _responses(record)
            if len(value) != responses:
                raise ValueError(
                    f"{_where(file, number + 1, record)}: {name} holds {len(value)} value(s) "
                    f"but the document has {responses} response(s) (len(resps[0])); a list "
                    f"metric has one value per repeat"
                )
            width = max(width, responses)
            for run, item in enumerate(value):
                lines.append(number + 1)
                docs.append(record["doc_id"])
                runs.append(offset + run)
                rewards.append(_number(item, file, number + 1, record, f"{name}[{run}]"))
                kept.append(record)
        else:
            _refuse(value, file, number + 1, record, name)

    def where(row: int) -> str:
        """Name the line of a row, for the messages."""
        return _where(file, lines[row], kept[row])

    tasks = _doc_ids(docs, where)
    values = np.asarray(rewards, dtype=np.float64)
    size = len(docs)
    frame = pd.DataFrame(
        {
            "task": tasks,
            "run": np.asarray(runs, dtype=np.int64),
            "passed": decide(values, threshold, where, field=str(name)),
            "reward": values,
            "lm_eval_task": pd.Series([task] * size, dtype="str"),
            "filter": pd.Series([chosen] * size, dtype="str"),
            "metric": pd.Series([name] * size, dtype="str"),
            "model": pd.Series([model] * size, dtype="str"),
            "doc_hash": pd.Series([record.get("doc_hash") for record in kept], dtype="str"),
            "prompt_hash": pd.Series([record.get("prompt_hash") for record in kept], dtype="str"),
            "target_hash": pd.Series([record.get("target_hash") for record in kept], dtype="str"),
            "target": pd.Series([_text(record.get("target")) for record in kept], dtype="str"),
            "file": pd.Series([file.name] * size, dtype="str"),
        }
    )
    return frame, width


_MISSING = object()


def _doc_ids(docs: list[object], where: Callable[[int], str]) -> npt.NDArray[np.int64]:
    """Return the doc_ids as int64, refusing one that is not an integer."""
    if all(type(doc) is int for doc in docs):
        try:
            return np.asarray(docs, dtype=np.int64)
        except OverflowError:
            pass
    for row, doc in enumerate(docs):
        integer(doc, where(row), "doc_id", "lm-eval numbers documents 0, 1, 2, ...")
    raise AssertionError("unreachable")  # pragma: no cover


def _responses(record: dict[str, Any]) -> int:
    """Return how many responses a document has, ``len(resps[0])`` (1 when unknown)."""
    resps = record.get("resps")
    if isinstance(resps, list) and resps and isinstance(resps[0], list):
        return len(resps[0])
    return 1


def _text(value: object) -> object:
    """Return a value with its text made encodable (lone surrogates as escapes)."""
    return encodable(value) if isinstance(value, str) else value


def _number(value: object, file: Path, line: int, record: dict[str, Any], field: str) -> float:
    """Return a metric's value (a number or a boolean) as a float, refusing anything else."""
    if type(value) is float or type(value) is int or type(value) is bool:
        return float(value)
    _refuse(value, file, line, record, field)
    raise AssertionError("unreachable")  # pragma: no cover


def _refuse(value: object, file: Path, line: int, record: dict[str, Any], field: str) -> None:
    """Refuse a metric's value: missing, a pass@k estimate, or not a number."""
    where = _where(file, line, record)
    if value is _MISSING:
        names = record.get("metrics")
        rule = f"the line's metrics are {names!r}: choose one with metric="
        raise with_keywords(absent(where, field, rule), "metric")
    if isinstance(value, dict):
        combined = _COMBINED.format(n=_responses(record))
        raise refusal(where, field, value, combined, "an object (a pass@k estimate)")
    raise refusal(where, field, value, "a metric value is a number")


def _check_runs(runs: pd.DataFrame, width: int, count: int, task: str, partial: bool) -> None:
    """Refuse a document recorded twice in a run, or missing from one (unless `partial`)."""
    files = runs["file"].tolist()
    docs = runs["task"].tolist()
    check_trials(
        docs,
        runs["run"].tolist(),
        lambda row: f"{files[row]}, doc_id {docs[row]}",
        declared=None if partial else width,
        declared_by=f"the {count} samples file(s) of lm-eval task {task!r} ({width} run(s))",
        field="run",
    )


def _where(file: Path, line: int, record: dict[str, Any]) -> str:
    """Name a line of a samples file and its doc_id, for the messages."""
    doc = record.get("doc_id")
    return f"{file}, line {line}" + ("" if doc is None else f" (doc_id {doc!r})")
