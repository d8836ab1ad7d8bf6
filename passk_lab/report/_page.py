"""The whole report: every table, every plot and one self-contained ``report.html``.

:func:`write_report` checks its input once -- it reduces it to the per-task
tally -- and computes every table from that tally, so it takes whatever the
estimators take: a runs table, a tally, an outcome matrix or a Dask
DataFrame. Only the outcome heatmap needs the runs themselves; it is drawn
for a pandas runs table and left out, with a sentence saying so, otherwise.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Hashable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab._data.grid import grid_frame, run_grid
from passk_lab._data.rules import By, ErrorPolicy, by_columns
from passk_lab._data.tally import Tally, as_tally
from passk_lab._interval_policy import IntervalMethod
from passk_lab.estimators import error_sensitivity, reliability_curve
from passk_lab.heterogeneity import fit_betabinom, success_counts
from passk_lab.report._tables import export, html_text, labelled, metadata, metadata_line, to_html

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["write_report"]


def _slug(key: Iterable[Hashable], by: list[str]) -> str:
    text = "-".join(f"{name}-{value}" for name, value in zip(by, key, strict=True))
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", text)


def _with_group(frame: pd.DataFrame, by: list[str], key: Iterable[Hashable]) -> pd.DataFrame:
    """Put a group's labels in front of a table about that group."""
    for name, value in reversed(list(zip(by, key, strict=True))):
        frame.insert(0, name, [value] * len(frame))
    return frame


def _checked(runs: object, by: By, errors: ErrorPolicy) -> tuple[Tally, pd.DataFrame | None]:
    """Check the input once: its tally under `errors`, and for a runs table every run's state.

    A pandas runs table gives both from one check (:func:`run_grid`); any
    other input gives its tally, and no states.
    """
    if isinstance(runs, pd.DataFrame) and "run" in runs.columns:
        grid = run_grid(runs, by_columns(by), 1.0, states=True)
        return grid.tally.under(errors), grid_frame(grid)
    return as_tally(runs, by, errors=errors), None


def _group_states(states: pd.DataFrame, rows: npt.NDArray[np.bool_], by: list[str]) -> pd.DataFrame:
    """One group's states, indexed by task, with the run indices that group has."""
    part = states[rows]
    if by:
        part = part.droplevel(tuple(by))
    return part.loc[:, part.notna().any().to_numpy()]


def _extent(counted: pd.DataFrame) -> dict[Hashable | None, Any]:
    """Return the tasks and the runs per task (fewest, most) of a tally table, as ``attrs``."""
    return {
        "n_tasks": len(counted),
        "runs_per_task": [int(counted["n"].min()), int(counted["n"].max())],
    }


_TABLE_HEADINGS = {
    "curve": "pass<sup>k</sup> and pass@k with intervals",
    "betabinom": "Beta-binomial fit: how much tasks differ",
    "success_counts": "Tasks by runs passed, observed and expected",
    "errors": "Errored runs as failures, or left out",
}
_NO_HEATMAP = (
    "The outcome heatmap is left out: it draws every run of a pandas runs table, and this "
    "report was given a tally, an outcome matrix or a Dask DataFrame."
)
_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
caption { caption-side: bottom; text-align: left; color: #555; font-size: 0.8rem;
          padding-top: 0.3rem; }
th, td { padding: 0.2rem 0.6rem; border-bottom: 1px solid #ddd; }
th { border-bottom: 2px solid #888; text-align: center; }
img { max-width: 100%; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.1rem 1rem; }
dt { color: #555; }
dd { margin: 0; }
"""


def write_report(
    runs: object,
    out: str | Path,
    *,
    by: By = None,
    errors: ErrorPolicy = "fail",
    confidence_level: float = 0.95,
    method: IntervalMethod = "auto",
    n_resamples: int = 10_000,
    rng: int | np.random.Generator | None = 0,
    title: str = "Reliability report",
) -> list[Path]:
    """Write the tables, the plots and one self-contained ``report.html`` for a set of runs.

    Parameters
    ----------
    runs : DataFrame, numpy.ndarray or dask.dataframe.DataFrame
        Whatever :func:`~passk_lab.reliability_curve` takes: a runs table (for
        example from :func:`passk_lab.io.read`), a tally ``[*by, task, n, c]``
        (with ``n_errors`` for the error table), an outcome matrix, or a Dask
        DataFrame of runs. It is checked once, when it is reduced to its tally.
    out : str or Path
        The folder to write into; made if missing.
    by : str or list of str, optional
        Grouping columns: one curve per group, and per-group heatmaps and
        histograms.
    errors, confidence_level, method, n_resamples, rng
        As in :func:`~passk_lab.reliability_curve`. A tally's ``n`` counts
        the runs under `errors`, as the estimators read it.
    title : str
        The report's heading.

    Returns
    -------
    list of Path
        Every file written: ``curve``, ``betabinom``, ``success_counts`` and
        (when the runs record errors) ``errors`` tables as CSV and Markdown,
        each with the metadata of that table; ``decay_curve``,
        ``outcome_heatmap`` (for a pandas runs table) and
        ``success_histogram`` plots (one per group, the group in the name) as
        PNG and SVG; and ``report.html``, which inlines every plot and table
        and needs no network.

    Examples
    --------
    >>> import tempfile
    >>> import passk_lab as pk
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_report(pk.simulate_coin(seed=42), folder, n_resamples=1000)
    ...     names = [path.name for path in written]
    >>> names[:2], names[-1]
    (['curve.csv', 'curve.md'], 'report.html')

    A tally gives the same tables, and a report without the outcome heatmap:

    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_report(pk.tally(pk.simulate_coin(seed=42)), folder, n_resamples=1000)
    ...     names = [path.name for path in written]
    >>> [name for name in names if name.endswith(".png")]
    ['decay_curve.png', 'success_histogram.png']
    """
    from matplotlib.figure import Figure  # plots are drawn only for a report

    from passk_lab import plots

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    summary, states = _checked(runs, by, errors)  # the one check of the runs
    groups_by = list(summary.by)
    counted = summary.to_frame()
    recorded = summary.with_errors().to_frame()
    curve = reliability_curve(
        counted,
        by=by,
        errors=errors,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
        rng=rng,
        predict_to=max(2 * int(recorded["n"].max()), 10),
    )
    codes, labels = summary.groups()
    keys = list(labels.itertuples(index=False, name=None))
    fits, counts = [], []
    for group, key in enumerate(keys):
        part = counted[codes == group]
        fits.append(_with_group(fit_betabinom(part, errors=errors).to_frame(), groups_by, key))
        counts.append(_with_group(success_counts(part, errors=errors), groups_by, key))
    tables = {
        "curve": curve[curve["n_tasks"] > 0].reset_index(drop=True),
        "betabinom": pd.concat(fits, ignore_index=True),
        "success_counts": pd.concat(counts, ignore_index=True),
    }
    tables["curve"].attrs = dict(curve.attrs)
    tables["betabinom"].attrs = {**_extent(counted), "errors": errors}
    tables["success_counts"].attrs = {**_extent(counted), "errors": errors}
    if "n_errors" in counted:
        tables["errors"] = error_sensitivity(recorded, by=by)
        tables["errors"].attrs = _extent(recorded)
    written: list[Path] = []
    for name, table in tables.items():
        written += [export(table, folder / f"{name}.csv"), export(table, folder / f"{name}.md")]

    images: list[tuple[str, bytes]] = []

    def figure(name: str, heading: str, draw: Callable[..., Axes]) -> None:
        with plots.style():
            fig = Figure()
            draw(ax=fig.add_subplot())
            for suffix in (".svg", ".png"):
                fig.savefig(folder / f"{name}{suffix}")
                written.append(folder / f"{name}{suffix}")
        images.append((heading, (folder / f"{name}.png").read_bytes()))

    figure("decay_curve", "pass^k against k", partial(plots.decay_curve, curve))
    for group, (key, count) in enumerate(zip(keys, counts, strict=True)):
        suffix = f"-{_slug(key, groups_by)}" if groups_by else ""
        where = ", ".join(f"{n}={v}" for n, v in zip(groups_by, key, strict=True))
        where = f" ({where})" if where else ""
        if states is not None:
            part = _group_states(states, codes == group, groups_by)
            figure(
                f"outcome_heatmap{suffix}",
                f"Every run{where}",
                partial(plots.outcome_heatmap, part),
            )
        figure(
            f"success_histogram{suffix}",
            f"Tasks by runs passed{where}",
            partial(plots.success_histogram, count),
        )

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
        "<dl>",  # the tasks, their runs and the error policy, as the fit table records them
        *(
            f"<dt>{html.escape(key)}</dt><dd>{html.escape(value)}</dd>"
            for key, value in metadata(tables["betabinom"]).items()
        ),
        "</dl>",
    ]
    if states is None:
        parts.append(f"<p>{_NO_HEATMAP}</p>")
    for heading, data in images:
        encoded = base64.b64encode(data).decode("ascii")
        parts += [
            f"<h2>{html_text(heading)}</h2>",
            f'<img alt="{html.escape(heading)}" src="data:image/png;base64,{encoded}">',
        ]
    for name, table in tables.items():
        parts += [
            f'<h2 id="{name}">{_TABLE_HEADINGS[name]}</h2>',
            to_html(labelled(table), caption=metadata_line(metadata(table))),
        ]
    parts += ["</body>", "</html>"]
    report = folder / "report.html"
    report.write_text("\n".join(parts) + "\n", encoding="utf-8")
    written.append(report)
    return written
