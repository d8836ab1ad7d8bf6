"""Result tables as files: labels, metadata and five formats.

A result DataFrame (a reliability curve, a comparison, a plan, ...) goes out
two ways. Data formats -- CSV and Parquet -- keep the library's column names
and every digit, so a program can read them back. Presentation formats --
Markdown, LaTeX and HTML -- get labels a reader knows (pass^k, pass@k,
``95% CI`` with both ends in one cell) and rounded numbers. Every format
carries the metadata a reader needs, as far as the table records it: tasks,
runs per task, confidence level, interval method, the error policy, the
package version and the date.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from passk_lab._choices import RESAMPLING_METHODS
from passk_lab._labels import LABELS, interval_label, label
from passk_lab._numbers import fixed, p_value_text
from passk_lab._version import __version__
from passk_lab.report._render import numeric_columns, to_html, to_latex, to_markdown

__all__ = [
    "FORMULA_STARTS",
    "P_VALUES",
    "export",
    "guard_formulas",
    "labelled",
    "metadata",
    "metadata_line",
]

_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".md": "markdown", ".tex": "latex"}
_SUFFIXES |= {".html": "html", ".htm": "html"}


P_VALUES = ("pvalue", "p_value", "p_adjusted")
"""How the names of p-value columns end."""


def labelled(frame: pd.DataFrame, *, digits: int = 3) -> pd.DataFrame:
    """Return a result table as a reader sees it: known labels, each interval in one column.

    Parameters
    ----------
    frame : DataFrame
        Any result table. Columns named in ``LABELS`` get their label (pass^k,
        pass@k, ...), a curve's cost columns theirs (``cost of k runs (usd)``,
        ``cost per pass^k task (usd)``, ``pass^k per usd``); others keep their
        names. A pair ``X_low``, ``X_high``
        becomes one column ``"<X's label> 95% CI"`` (at the table's confidence
        level) right after X, holding ``"[low, high]"``. A leaderboard's
        ``rank``, ``rank_low`` and ``rank_high`` become one column ``"rank
        (simultaneous 95% CI)"`` holding ``"2 (1-4)"`` (with an en dash). A
        p-value (a column ending in ``pvalue``, ``p_value`` or ``p_adjusted``)
        keeps two significant digits, so that a small one keeps its size, and
        is empty where there is none (NaN). A
        pairwise table's agents ``a`` and ``b`` become ``agent A`` and
        ``agent B``, beside their values ``A`` and ``B``. A curve's
        ``predicted`` is ``"yes"`` where the row is the models' alone, else empty.
    digits : int
        Decimals of the interval ends.

    Returns
    -------
    DataFrame
        A new table; its ``attrs`` are the input's.

    Examples
    --------
    >>> import passk_lab as pk
    >>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), [5])
    >>> labelled(curve)[["k", "pass^k", "pass^k 95% CI", "interval"]]
       k  pass^k   pass^k 95% CI         interval
    0  5    0.45  [0.293, 0.615]  clopper_pearson

    >>> import pandas as pd
    >>> runs = pd.concat(
    ...     [
    ...         pk.simulate_coin(p=p, tasks=60, k=3, seed=seed).assign(model=name)
    ...         for name, p, seed in [("a", 0.9, 1), ("b", 0.8, 2), ("c", 0.6, 3)]
    ...     ]
    ... )
    >>> shown = labelled(pk.leaderboard(runs, ks=[3]))
    >>> shown[["model", "pass^k", "tie group"]]
      model    pass^k  tie group
    0     a  0.750000          1
    1     b  0.383333          2
    2     c  0.233333          2
    >>> ranks = shown["rank (simultaneous 95% CI)"].str.replace("\N{EN DASH}", "-")
    >>> ranks.tolist()
    ['1 (1-1)', '2 (2-3)', '3 (2-3)']
    """
    columns: dict[str, pd.Series] = {}
    level = interval_label(frame)
    ranked = {"rank", "rank_low", "rank_high"} <= set(frame.columns)
    for name in map(str, frame.columns):
        if ranked and name in ("rank_low", "rank_high"):
            continue
        if ranked and name == "rank":  # a whole number and its interval: 2 (1-4)
            columns[f"rank (simultaneous {level})"] = pd.Series(
                [
                    f"{rank} ({low}\N{EN DASH}{high})"
                    for rank, low, high in zip(
                        frame["rank"], frame["rank_low"], frame["rank_high"], strict=True
                    )
                ],
                index=frame.index,
                dtype="str",
            )
            continue
        base = name.removesuffix("_low")
        if name.endswith("_high") and f"{name.removesuffix('_high')}_low" in frame.columns:
            continue
        if name.endswith("_low") and f"{base}_high" in frame.columns:
            columns[f"{label(base)} {level}"] = pd.Series(
                [
                    "" if np.isnan(low) else f"[{fixed(low, digits)}, {fixed(high, digits)}]"
                    for low, high in zip(frame[name], frame[f"{base}_high"], strict=True)
                ],
                index=frame.index,
                dtype="str",
            )
            continue
        column = frame[name]
        if name in ("a", "b") and "value_a" in frame.columns:  # a pairwise table's agents
            columns[f"agent {name.upper()}"] = column
            continue
        if name == "metric":
            column = column.map(lambda value: LABELS.get(value, value))
        if name == "predicted":  # a flag a reader looks for: "yes" where it is set
            column = column.map(lambda value: "yes" if value else "").astype("str")
        if name.endswith(P_VALUES):  # small p-values keep their size: 2.8e-09, not 0.000
            column = column.map(lambda value: p_value_text(float(value)))
            column = column.astype("str")
        columns[label(name)] = column
    table = pd.DataFrame(columns, index=frame.index)
    table.attrs = dict(frame.attrs)
    return table


_ADJUSTMENTS = {"holm": "Holm", "bh": "Benjamini-Hochberg", None: "no"}
"""A pairwise table's ``attrs["adjust"]``, as its metadata says it."""


def _tasks_text(attrs: dict[Hashable, Any]) -> str:
    """Say the distinct tasks and, for a grouped table, how many groups ran them."""
    tasks = str(attrs["n_tasks"])
    if "tasks_per_group" not in attrs:
        return tasks
    fewest, most = attrs["tasks_per_group"]
    groups = attrs["n_groups"]
    if fewest == most == attrs["n_tasks"]:
        return f"{tasks} (each run by {groups} groups)" if groups > 1 else tasks
    per_group = str(most) if fewest == most else f"{fewest} to {most}"
    return f"{tasks} ({per_group} per group, {groups} groups)"


def metadata(frame: pd.DataFrame) -> dict[str, str]:
    """Return what a reader needs to know about a result table, from its ``attrs``.

    Parameters
    ----------
    frame : DataFrame
        A result table; :func:`~passk_lab.reliability_curve` records the
        tasks, runs per task, confidence level, interval method and error
        policy, other functions some of them.

    Returns
    -------
    dict of str to str
        Those of ``tasks``, ``runs per task``, ``confidence level``,
        ``interval method``, ``bootstrap resamples`` (for a method that
        resamples), ``errored runs``, and for a leaderboard or pairwise table
        ``ranked by``, ``p-values adjusted`` and ``tasks dropped`` (their
        number, when some were), that the table records, then always
        ``passk_lab`` (the version) and ``date`` (today, UTC).

    Examples
    --------
    >>> import passk_lab as pk
    >>> info = metadata(pk.reliability_curve(pk.simulate_coin(seed=42)))
    >>> {key: info[key] for key in ["tasks", "runs per task", "interval method"]}
    {'tasks': '40', 'runs per task': '5', 'interval method': 'auto'}

    With groups, a task every group ran counts once:

    >>> two = pd.concat([pk.simulate_coin(seed=1).assign(model=m) for m in "ab"])
    >>> metadata(pk.reliability_curve(two, by="model"))["tasks"]
    '40 (each run by 2 groups)'
    """
    attrs = frame.attrs
    info: dict[str, str] = {}
    if "n_tasks" in attrs:
        info["tasks"] = _tasks_text(attrs)
    if "runs_per_task" in attrs:
        fewest, most = attrs["runs_per_task"]
        info["runs per task"] = str(most) if fewest == most else f"{fewest} to {most}"
    if "confidence_level" in attrs:
        info["confidence level"] = f"{attrs['confidence_level']:g}"
    if "method" in attrs:
        info["interval method"] = str(attrs["method"])
    if "n_resamples" in attrs and attrs.get("method") in RESAMPLING_METHODS:
        info["bootstrap resamples"] = str(attrs["n_resamples"])
    if "errors" in attrs:
        info["errored runs"] = {"fail": "failures", "exclude": "left out"}.get(
            attrs["errors"], str(attrs["errors"])
        )
    if "metric" in attrs:
        info["ranked by"] = LABELS.get(attrs["metric"], str(attrs["metric"]))
    if "adjust" in attrs:
        info["p-values adjusted"] = _ADJUSTMENTS.get(attrs["adjust"], str(attrs["adjust"]))
    if attrs.get("dropped_tasks"):
        info["tasks dropped"] = f"{len(attrs['dropped_tasks'])}, not run by every agent"
    info["passk_lab"] = __version__
    info["date"] = datetime.now(UTC).date().isoformat()
    return info


def metadata_line(info: dict[str, str]) -> str:
    """Join :func:`metadata` into one line, ``key: value; key: value``, for a caption.

    Examples
    --------
    >>> metadata_line({"tasks": "40", "runs per task": "5"})
    'tasks: 40; runs per task: 5'
    """
    return "; ".join(f"{key}: {value}" for key, value in info.items())


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""The first characters that make a spreadsheet read a CSV cell as a formula (OWASP)."""


def guard_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """Return `frame` with every text cell and header a spreadsheet would run made inert.

    A text cell (or column name) that starts with one of
    :data:`FORMULA_STARTS` -- ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return -- gets a single quote in front, OWASP's recipe against CSV
    injection: a spreadsheet then shows the text and runs nothing. Numbers,
    negative ones too, are numbers in the CSV and are left alone.

    Parameters
    ----------
    frame : DataFrame
        Any table.

    Returns
    -------
    DataFrame
        A new table (`frame` itself when nothing needs the quote); ``attrs`` kept.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"model": ["=1+1", "gpt-4"], "difference": [-0.5, 0.25]})
    >>> guard_formulas(table)
       model  difference
    0  '=1+1       -0.50
    1  gpt-4        0.25
    """

    def inert(value: object) -> object:
        if isinstance(value, str) and value.startswith(FORMULA_STARTS):
            return "'" + value
        return value

    text = [
        name
        for name, numeric in zip(frame.columns, numeric_columns(frame), strict=True)
        if not numeric
    ]
    names = [inert(name) for name in frame.columns]
    risky = names != list(frame.columns) or any(
        frame[name].map(lambda value: inert(value) is not value).any() for name in text
    )
    if not risky:
        return frame
    guarded = frame.copy()
    for name in text:
        guarded[name] = guarded[name].map(inert)
    guarded.columns = pd.Index(names)
    return guarded


def export(
    frame: pd.DataFrame,
    path: str | Path,
    *,
    digits: int = 3,
    labels: bool | None = None,
    formula_guard: bool = True,
) -> Path:
    """Write a result table to a file, in the format its suffix names, with its metadata.

    Parameters
    ----------
    frame : DataFrame
        Any result table.
    path : str or Path
        ``.csv``, ``.parquet``, ``.md``, ``.tex`` or ``.html``.
    digits : int
        Decimals in Markdown, LaTeX and HTML; CSV and Parquet keep every digit.
    labels : bool, optional
        Use :func:`labelled` columns. By default yes for Markdown, LaTeX and
        HTML, and no for CSV and Parquet, which keep the names a program reads.
    formula_guard : bool
        In a CSV, put a single quote before each text cell and header that
        starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, so
        that a spreadsheet shows it and runs no formula (OWASP's guard against CSV injection).
        Numbers are never changed. False writes every text as it is, for a
        program that reads the file back.

    Returns
    -------
    Path
        The file written.

    Notes
    -----
    Where the metadata (:func:`metadata`) goes: CSV, ``# key: value`` lines
    before the header (read back with ``pandas.read_csv(path,
    comment="#")``, or with ``skiprows=`` the number of those lines when a
    cell may hold ``#``); Parquet, the table's ``attrs``, which pandas restores
    on reading (through pyarrow); Markdown, an
    italic line under the table; LaTeX and HTML, the caption.

    Examples
    --------
    >>> import tempfile, pandas as pd, passk_lab as pk
    >>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), [5])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = export(curve, f"{folder}/curve.csv")
    ...     lines = written.read_text().splitlines()
    ...     back = pd.read_csv(written, comment="#")
    >>> lines[:3]
    ['# tasks: 40', '# runs per task: 5', '# confidence level: 0.95']
    >>> back.loc[0, "pass_pow_k"]
    np.float64(0.45)
    """
    target = Path(path)
    kind = _SUFFIXES.get(target.suffix.lower())
    if kind is None:
        raise ValueError(
            f"cannot tell the format of {target.name!r}: end the name in {', '.join(_SUFFIXES)}"
        )
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"export writes a DataFrame, got {type(frame).__name__}")
    info = metadata(frame)
    presented = kind in ("markdown", "latex", "html")
    table = labelled(frame, digits=digits) if (presented if labels is None else labels) else frame
    if kind == "csv":
        header = "".join(f"# {key}: {value}\n" for key, value in info.items())
        shown = guard_formulas(table) if formula_guard else table
        target.write_text(header + shown.to_csv(index=False), encoding="utf-8")
    elif kind == "parquet":
        stored = table.copy()
        stored.attrs.clear()
        stored.attrs.update(info)
        try:
            stored.to_parquet(target, index=False)
        except ImportError as exc:
            raise ImportError(
                f"writing Parquet needs pyarrow: pip install 'passk-lab[parquet]' ({exc})"
            ) from None
    elif kind == "markdown":
        target.write_text(
            f"{to_markdown(table, digits=digits)}\n\n*{metadata_line(info)}*\n", encoding="utf-8"
        )
    elif kind == "latex":
        latex = to_latex(table, digits=digits, caption=metadata_line(info))
        target.write_text(latex + "\n", encoding="utf-8")
    else:
        page = to_html(table, digits=digits, caption=metadata_line(info))
        target.write_text(page + "\n", encoding="utf-8")
    return target
