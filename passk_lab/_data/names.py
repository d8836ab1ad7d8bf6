"""A runs table's column names: the names other tools give them, and the refusal of missing ones.

A runs table needs ``task`` and ``passed`` or ``reward`` (and ``run``, which
is numbered when it is absent); tables written by other tools call them
``problem_id``, ``attempt``, ``score``, ... :data:`SYNONYMS` lists such names,
:func:`likely_columns` finds the columns of a table that look like each one
(by those names, then by close spelling), and :func:`missing_columns` refuses
a table that lacks some, naming all of them at once, the table's own columns,
the likely ones and how to map them. :func:`rename_columns` maps the columns
a caller names. Every reader of runs -- the tally of a DataFrame,
:func:`passk_lab.runs` and :func:`passk_lab.io.read_runs` -- refuses through
these functions, so that the messages read the same from each.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence

import pandas as pd

from passk_lab._errors import with_keywords

__all__ = [
    "OWN_COLUMNS",
    "SYNONYMS",
    "likely_columns",
    "missing_columns",
    "rename_columns",
    "runs_lacks",
]

OWN_COLUMNS = ("task", "run", "passed", "reward")
"""The columns of a runs table that a caller may name otherwise (``task="problem_id"``)."""

SYNONYMS: dict[str, tuple[str, ...]] = {
    "task": (
        "task_id",
        "problem_id",
        "instance_id",
        "sample_id",
        "question_id",
        "example_id",
        "item_id",
        "doc_id",
        "prompt_id",
        "task_name",
        "problem",
        "instance",
        "question",
        "example",
        "item",
        "prompt",
        "id",
    ),
    "run": (
        "run_id",
        "run_index",
        "attempt",
        "attempt_id",
        "trial",
        "trial_id",
        "epoch",
        "seed",
        "sample",
        "sample_index",
        "repeat",
        "repetition",
        "rollout",
        "iteration",
    ),
    "passed": (
        "pass",
        "success",
        "succeeded",
        "successful",
        "resolved",
        "is_resolved",
        "correct",
        "is_correct",
        "solved",
        "is_solved",
        "is_success",
        "is_pass",
        "ok",
        "verdict",
    ),
    "reward": ("score", "accuracy", "acc", "grade", "points", "value", "result", "metric"),
}
"""Names other tools give each column of a runs table, the likeliest first."""

_CLOSE = 0.8
"""How alike a name must be to a column's or one of its synonyms (difflib's ratio) to be told."""

_MEANT = 0.6
"""How alike a column must be to a name the caller gave (difflib's ratio) to be told as meant."""

_RESERVED = frozenset({*OWN_COLUMNS, "error", "error_kind", "timed_out", "n", "c"})


def _plain(name: str) -> str:
    """Return a name as compared: lower-case letters and digits (``ProblemID``: ``problemid``)."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _likeness(name: str, own: str) -> tuple[int, float]:
    """Return how much a name looks like `own`: (0, place) by name, (1, -ratio) by spelling."""
    plain = _plain(name)
    names = [_plain(own), *map(_plain, SYNONYMS[own])]
    if plain in names:
        return 0, float(names.index(plain))
    ratio = max(difflib.SequenceMatcher(None, plain, other).ratio() for other in names)
    return (1, -ratio) if ratio >= _CLOSE else (2, 0.0)


def likely_columns(
    columns: Iterable[Hashable], wanted: Sequence[str], taken: Iterable[str] = ()
) -> dict[str, str]:
    """Return, for each of `wanted`, the column of `columns` that looks likeliest to be it.

    A column named as one of the column's :data:`SYNONYMS` (compared in lower
    case, letters and digits alone) is likelier than one spelled close to
    them; the earlier synonym the likelier. A column a runs table knows
    (``error``, ``n``, ...) or one of `taken` (the groups) is never told, and
    no column is told twice. ``passed`` and ``reward`` are two ways to give a
    verdict: only one of them is told, ``passed`` when a column looks like it.

    Parameters
    ----------
    columns : iterable of hashable
        The table's columns; only text names are looked at.
    wanted : sequence of str
        Columns of :data:`OWN_COLUMNS` the table lacks.
    taken : iterable of str
        Columns that are something else (the groups named in ``by``).

    Returns
    -------
    dict of str to str
        The likely column of each of `wanted` that has one.

    Examples
    --------
    >>> likely_columns(["problem_id", "attempt", "score"], ["task", "run", "passed", "reward"])
    {'task': 'problem_id', 'run': 'attempt', 'reward': 'score'}
    >>> likely_columns(["Task", "sucess", "model"], ["task", "passed"])
    {'task': 'Task', 'passed': 'sucess'}
    """
    free = [
        name
        for name in columns
        if isinstance(name, str) and name not in _RESERVED and name not in set(taken)
    ]
    found: dict[str, str] = {}
    for own in wanted:
        if own == "reward" and "passed" in found:
            continue
        scored = sorted(
            (_likeness(name, own), place, name)
            for place, name in enumerate(free)
            if name not in found.values()
        )
        if scored and scored[0][0][0] < 2:
            found[own] = scored[0][2]
    return found


def runs_lacks(columns: Iterable[Hashable], by: Sequence[str] = ()) -> list[str]:
    """Return what a runs table with `columns` lacks: ``task``, ``verdict``, groups of `by`.

    ``verdict`` stands for a ``passed`` or a ``reward`` column; ``run`` is
    not needed (runs are numbered in order when it is absent).

    Examples
    --------
    >>> runs_lacks(["problem_id", "score"], ["model"])
    ['task', 'verdict', 'model']
    >>> runs_lacks(["task", "reward"])
    []
    """
    has = set(columns)
    lacks = [] if "task" in has else ["task"]
    if "passed" not in has and "reward" not in has:
        lacks.append("verdict")
    return [*lacks, *(name for name in by if name not in has)]


def _listed(items: Sequence[str]) -> str:
    """Return items as a sentence lists them: ``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def missing_columns(
    columns: Sequence[Hashable],
    lacks: Sequence[str],
    *,
    what: str,
    call: str | None,
    by: Sequence[str] = (),
) -> ValueError:
    """Return the refusal of a runs table that lacks columns, naming every one at once.

    The message names what is missing (`lacks`, as :func:`runs_lacks` gives
    it), the table's own columns, and the mapping that would give the table
    the columns: for each missing one the column that looks likeliest
    (:func:`likely_columns`), or ``'...'`` where none does. A ``run`` column
    is not needed, but one that looks like it (``attempt``) is named too. The
    fix is written as a call, ``pk.runs(runs, task='problem_id', ...)``, or
    with `call` None as the keywords alone (a reader's, whose keywords are
    the same), and the refusal carries those keywords, so that the command
    line names its options for them.

    Parameters
    ----------
    columns : sequence of hashable
        The table's columns.
    lacks : sequence of str
        What it lacks: ``task``, ``verdict``, and grouping columns.
    what : str
        What the message calls the table (``runs``, a file's path).
    call : str or None
        The call that maps columns, with ``{}`` where its keywords go; None
        to give the keywords alone.
    by : sequence of str
        The grouping columns, never told as a runs table's own.

    Returns
    -------
    ValueError
        To raise.

    Examples
    --------
    >>> columns = ["problem_id", "attempt", "score"]
    >>> print(missing_columns(columns, ["task", "verdict"], what="runs", call="pk.runs(runs, {})"))
    runs has no task column, no passed or reward column and no run column (its columns are \
['problem_id', 'attempt', 'score']); by their names, map yours: \
pk.runs(runs, task='problem_id', run='attempt', reward='score') (run is optional: \
without it, each task's runs are numbered in the order of the rows)
    """
    own = [name for name in lacks if name in ("task", "verdict")]
    groups = [name for name in lacks if name not in own]
    wanted = [
        *(["task"] if "task" in own else []),
        *(["run"] if own and "run" not in columns else []),
        *(["passed", "reward"] if "verdict" in own else []),
    ]
    likely = likely_columns(columns, wanted, taken=by)
    said = [
        *(["no task column"] if "task" in own else []),
        *(["no passed or reward column"] if "verdict" in own else []),
        *(["no run column"] if "run" in likely else []),
        *(f"no column {name!r}, named in by" for name in groups),
    ]
    head = f"{what} has {_listed(said)} (its columns are {list(map(str, columns))})"
    if not own:
        return with_keywords(ValueError(f"{head}; {_groups_fix(columns, groups)}"), "by")
    verdict = "reward" if "reward" in likely else "passed"
    mapping = {
        **({"task": likely.get("task", "...")} if "task" in own else {}),
        **({"run": likely["run"]} if "run" in likely else {}),
        **({verdict: likely.get(verdict, "...")} if "verdict" in own else {}),
    }
    keywords = ", ".join(f"{name}={given!r}" for name, given in mapping.items())
    found = sum(given != "..." for given in mapping.values())
    lead = "name yours:" if not found else "by their names, map yours:"
    if 0 < found < len(mapping):
        lead = "name yours (the columns given look like them):"
    notes = []
    if "verdict" in own and verdict not in likely:
        notes.append("passed= names a column of verdicts, reward= one of scores")
    if "run" in mapping:
        notes.append(
            "run is optional: without it, each task's runs are numbered in the order of the rows"
        )
    text = f"{head}; {lead} {keywords if call is None else call.format(keywords)}"
    text += f" ({'; '.join(notes)})" if notes else ""
    text += f"; and {_groups_fix(columns, groups)}" if groups else ""
    return with_keywords(ValueError(text), *mapping, *(["by"] if groups else []))


def _groups_fix(columns: Sequence[Hashable], groups: Sequence[str]) -> str:
    """Return how to name groups the table has: by= its columns, a close spelling told."""
    names = list(map(str, columns))
    close = [
        match
        for group in groups
        for match in difflib.get_close_matches(group, names, n=1, cutoff=_MEANT)
    ]
    told = f" ({_listed([repr(name) for name in close])}?)" if close else ""
    return f"name in by= columns the table has{told}"


def rename_columns(frame: pd.DataFrame, names: Mapping[str, str], what: str) -> pd.DataFrame:
    """Rename the columns a caller names otherwise: `names` maps a column to its name there.

    Parameters
    ----------
    frame : DataFrame
        The table.
    names : mapping of str to str
        Each column's name in the table (``{"task": "problem_id"}``).
    what : str
        What the messages call the table (``table``, a file's path).

    Returns
    -------
    DataFrame
        `frame` with the columns renamed (a new frame; `frame` is left as it is).

    Raises
    ------
    ValueError
        If a column so named is not in the table (a close spelling is told),
        or the table has a column of the name too; the fix is the keyword
        that named it.

    Examples
    --------
    >>> frame = pd.DataFrame({"problem": ["a"], "ok": [True]})
    >>> rename_columns(frame, {"task": "problem", "passed": "ok"}, "runs.csv").columns.tolist()
    ['task', 'passed']
    >>> rename_columns(frame, {"task": "problme"}, "runs.csv")
    Traceback (most recent call last):
    ...
    ValueError: runs.csv has no column 'problme' (given as task=; its columns are \
['problem', 'ok']): did you mean 'problem'?
    """
    columns = list(map(str, frame.columns))
    for own, given in names.items():
        if given == own:
            continue
        if given not in frame.columns:
            close = difflib.get_close_matches(given, columns, n=1, cutoff=_MEANT)
            fix = f": did you mean {close[0]!r}?" if close else ""
            raise with_keywords(
                ValueError(
                    f"{what} has no column {given!r} (given as {own}=; its columns are "
                    f"{columns}){fix}"
                ),
                own,
            )
        if own in frame.columns:
            raise with_keywords(
                ValueError(
                    f"{what} has both a {own!r} column and {given!r} (given as {own}=); "
                    f"rename one of them, or name {own!r} itself"
                ),
                own,
            )
    return frame.rename(columns={given: own for own, given in names.items() if given != own})
