"""The whole report: every table, every plot and one self-contained ``report.html``.

:func:`write_report` checks its input once -- it reduces it to the per-task
tally (:mod:`passk_lab.report._inputs`) -- builds the report's content from
that tally (:mod:`passk_lab.report._content`), and writes it: the tables as
CSV and Markdown, the figures as PNG and SVG, and the page
(:mod:`passk_lab.report._html`), into a folder that is new, empty or an
earlier report's (:mod:`passk_lab.report._folder`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import cast

import numpy as np

from passk_lab._checks import confidence, positive_int
from passk_lab._choices import ErrorPolicy, IntervalMethod
from passk_lab._data.rules import By, policy
from passk_lab._errors import with_keywords
from passk_lab._warnings import UNSET, renamed
from passk_lab.report._content import Content, Options, build
from passk_lab.report._figures import save
from passk_lab.report._folder import Folder
from passk_lab.report._html import render
from passk_lab.report._inputs import checked, source_name
from passk_lab.report._tables import export

__all__ = ["report_ks", "write_report"]

_EVERY_K = 20
"""A report shows every k up to this; above it, only the ks of a 1-2-5 series (see _shown_ks)."""


def _shown_ks(most: int, last: int | None = None) -> list[int]:
    """Return the ks a report shows when a task has at most `most` runs, predictions included.

    Every k up to :data:`_EVERY_K`; above it 50, 100, 200, 500, 1000, ...;
    and `most` and `last` (by default twice `most`, at least 10) themselves,
    so that a table stays a few dozen rows however many runs a task has.

    >>> _shown_ks(5)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> _shown_ks(300)[18:]
    [19, 20, 50, 100, 200, 300, 500, 600]
    """
    last = max(2 * most, 10) if last is None else last
    series = (step * 10**power for power in range(1, len(str(last))) for step in (1, 2, 5))
    shown = {*range(1, min(_EVERY_K, last) + 1), *series, max(most, 1), last}
    return sorted(k for k in shown if k <= last)


def _asked_ks(ks: object) -> list[int]:
    """Return the ks a caller named, sorted and whole, or refuse them naming what to give."""
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable):
        raise with_keywords(
            TypeError(f"ks must be a sequence of whole numbers such as [1, 5], got {ks!r}"), "ks"
        )
    asked = sorted({positive_int("k", each) for each in ks})
    if not asked:
        raise with_keywords(
            ValueError("ks is empty: give at least one k, such as ks=[1, 5], or leave it out"),
            "ks",
        )
    return asked


def report_ks(
    ks: Iterable[int] | None, predict_to: int | None, most: int
) -> tuple[list[int], list[int]]:
    """Return the report's ks: those the curve measures (up to `most` runs), those it predicts.

    By default every k to :data:`_EVERY_K`, then a 1-2-5 series, predicted to
    twice `most` (at least 10); `ks` names the ks instead, and `predict_to`
    extends the predictions to it, on the same series.

    Examples
    --------
    >>> report_ks(None, None, 5)
    ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    >>> report_ks([1, 5], 8, 5)
    ([1, 5], [6, 7, 8])
    """
    if ks is None:
        asked = [each for each in _shown_ks(most) if each <= most]
        last = max(2 * most, 10) if predict_to is None else predict_to
    else:
        asked = _asked_ks(ks)
        last = asked[-1] if predict_to is None else predict_to
    if predict_to is not None:
        predict_to = positive_int("predict_to", predict_to)
    if predict_to is not None and predict_to < asked[-1]:
        raise with_keywords(
            ValueError(
                f"predict_to={predict_to} is below the report's largest k, {asked[-1]}: give "
                f"predict_to of at least {asked[-1]}, or leave it out"
            ),
            "predict_to",
        )
    return asked, [each for each in _shown_ks(most, last) if each > asked[-1]]


def write_report(
    runs: object,
    out: str | Path,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = None,
    ks: Iterable[int] | None = None,
    predict_to: int | None = None,
    source: str | Path | None = None,
    title: str | None = None,
    force: bool = False,
    formula_guard: bool = True,
    k: Iterable[int] | None = UNSET,
) -> list[Path]:
    """Write the tables, the plots and one self-contained ``report.html`` for a set of runs.

    docs/report.md says what the page holds, how it reads each case, and which
    files it writes.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray or dask.dataframe.DataFrame
        Whatever :func:`~passk_lab.reliability_curve` takes: a runs table (for
        example from :func:`passk_lab.io.read`), a tally ``[*by, task, n, c]``
        (with ``n_errors`` for the error table), an outcome matrix, or a Dask
        DataFrame of runs. It is checked once, when it is reduced to its tally.
    out : str or Path
        The folder to write into; made if missing. A folder that holds files
        is refused unless an earlier report wrote them (its manifest,
        ``.passk-report.json``, lists them) or `force` is true.
    by : str or list of str, optional
        Grouping columns: one curve per group, and per-group heatmaps and
        histograms. Two or more groups are also ranked as agents, in the
        report's leaderboard section.
    errors, confidence_level, method, n_resamples, rng
        As in :func:`~passk_lab.reliability_curve`. A tally's ``n`` counts
        the runs under `errors`, as the estimators read it.
    ks : sequence of int, optional
        The ks of the curve and its tables. By default every k up to the most
        runs of a task, thinned past 20 (every k to 20, then 50, 100, 200,
        500, ...).
    predict_to : int, optional
        Extend the predictions (``p_pow_k``, ``betabinom_pow_k``) to this k,
        on the same thinned series. By default to twice the most runs (at
        least 10) without `ks`, and no further than `ks` with it.
    source : str or Path, optional
        The input's name on the page, for example the file it was read from
        (a path is named by its file name); the manifest records it (a path
        whole), and a folder holding the report of another source is refused
        unless `force`.
    title : str, optional
        The report's heading and page title; by default "Reliability
        report: " and `source`.
    force : bool
        Write into a folder that holds other files, replacing those with the
        report's names; files the report does not write are left alone.
    formula_guard : bool
        Quote the CSV text cells a spreadsheet would run as formulas, as
        :func:`export` does (True by default).
    k : sequence of int, optional
        The old name of `ks`; it goes in the next release.

    Returns
    -------
    list of Path
        Every file written: the tables ``curve``, ``betabinom``,
        ``success_counts`` (and ``errors``, ``costs``, ``leaderboard``,
        ``pairwise`` where they apply) as CSV and Markdown; the figures as SVG
        and PNG; ``report.html`` last.

    Raises
    ------
    ValueError
        If `out` is a file, or a folder holding files no report wrote (without
        `force`), or a plot would not fit the memory budget; if a k is not a
        positive whole number, or `predict_to` is below the largest k.
    TypeError
        If `ks` is not a sequence, or `source` or `title` not text.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> runs = pk.simulate_coin(seed=42)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_report(runs, folder, ks=[1, 5], predict_to=8, source="coin.csv")
    ...     names = [path.name for path in written]
    ...     page = (Path(folder) / "report.html").read_text()
    ...     ks = pd.read_csv(Path(folder) / "curve.csv", comment="#")["k"].tolist()
    >>> names[:2], names[-1], ks
    (['curve.csv', 'curve.md'], 'report.html', [1, 5])
    >>> "<h1>Reliability report: coin.csv</h1>" in page
    True
    """
    asked = cast("Iterable[int] | None", renamed("k", "ks", k, ks))
    report_ks(asked, predict_to, 1)  # refused before the runs are read
    named, origin, title = source_name(source, title)
    given = checked(runs, by, policy(errors), named)
    most = int(given.recorded.n.max()) if len(given.recorded.n) else 0
    measured, predicted = report_ks(asked, predict_to, most)
    options = Options(
        by=list(given.summary.by),
        errors=given.summary.errors,
        confidence_level=confidence(confidence_level),
        method=method,
        n_resamples=positive_int("n_resamples", n_resamples),
        rng=rng,
        asked=measured,
        predicted=predicted,
    )
    if title is None:
        title = "Reliability report" + (f": {named}" if named is not None else "")
    return _write(build(given, options, title), Folder(Path(out), origin), force, formula_guard)


def _write(content: Content, folder: Folder, force: bool, formula_guard: bool) -> list[Path]:
    """Write `content` into `folder`: tables, then figures, then the page; return every file."""
    files = [f"{name}{ending}" for name in content.tables for ending in (".csv", ".md")]
    files += [name for figure in content.all_figures for name in figure.files]
    files.append("report.html")
    folder.claim(files, force)
    written = []
    for name, table in content.tables.items():
        written += [
            export(table, folder.path / f"{name}.csv", formula_guard=formula_guard),
            export(table, folder.path / f"{name}.md"),
        ]
    pictures = {}
    for figure in content.all_figures:  # drawn only once the folder is the report's
        paths, pictures[figure.name] = save(figure, folder.path)
        written += paths
    page = folder.path / "report.html"
    page.write_text(render(content, pictures), encoding="utf-8")
    folder.finish(files)
    return [*written, page]
