"""The page's figures with their captions: the decay curve, and each group's part.

:func:`curve_figure` is the decay curve of every group, with a caption that
tells its measured points from its model-based lines. :func:`group_parts`
gives each group a part of its own: its runs drawn (the outcome heatmap), its
tasks by runs passed (the success histogram) with the table of those counts
and a caption that says its key's symbols in words. With two groups or more
the page folds each part (see :mod:`passk_lab.report._html`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt
import pandas as pd

from passk_lab.report._captions import decay_caption, histogram_caption
from passk_lab.report._explained import unidentified
from passk_lab.report._figures import Figure
from passk_lab.report._folder import slugs
from passk_lab.report._inputs import Input, group_states
from passk_lab.report._prose import group_name
from passk_lab.report._tables import labelled

__all__ = ["Part", "curve_figure", "group_parts"]


@dataclass(frozen=True)
class Part:
    """One group's part of the page: every run, and its tasks by runs passed.

    Attributes
    ----------
    name : str
        The group as a reader names it (``model a``); ``""`` without groups.
    anchor : str
        Its id on the page (``runs-model-a``).
    heatmap : Figure or None
        Every run of the group; None when the report has no runs table.
    histogram : Figure
        Its tasks by runs passed, against the binomial and the beta-binomial.
    caption : str
        The histogram's caption, as HTML.
    counts : DataFrame
        Its tasks by runs passed, observed and expected, as the page shows them.
    notes : tuple of str
        Why a cell of `counts` is blank, where one is (HTML).
    """

    name: str
    anchor: str
    heatmap: Figure | None
    histogram: Figure
    caption: str
    counts: pd.DataFrame
    notes: tuple[str, ...]

    @property
    def figures(self) -> tuple[Figure, ...]:
        """Return the part's figures, in the page's order."""
        return (self.histogram,) if self.heatmap is None else (self.heatmap, self.histogram)


def _most_runs(counted: pd.DataFrame, by: list[str], names: list[str]) -> dict[str, int]:
    """Return per group, by its name, the most runs a task of it has under the error policy."""
    if not by:
        return {"": int(counted["n"].max()) if len(counted) else 0}
    most = counted.groupby(by, sort=False)["n"].max()
    return dict(zip(names, (int(value) for value in most.to_numpy()), strict=True))


def curve_figure(
    curve: pd.DataFrame,
    counted: pd.DataFrame,
    by: list[str],
    names: list[str],
    measured: list[int],
) -> tuple[Figure, str]:
    """Return the decay curve of every group, and its caption (HTML).

    Its file's title says where its lines stop being measured, as the
    caption does on the page.
    """
    from passk_lab import plots
    from passk_lab.plots._facets import FACET_ABOVE

    across = f" by {', '.join(by)}" if by else ""
    heading = f"pass^k against k{across}"
    last = int(curve["k"].max()) if len(curve) else 0
    most = _most_runs(counted, by, names)
    ends = set(most.values())
    title = heading
    if last > max(ends, default=0):
        past = f"k = {ends.pop()}" if len(ends) == 1 else "each group's most runs"
        title = f"{heading}; past {past}, model predictions"
    panels = len(most) > FACET_ABOVE  # a panel a group: taller, so that each reads
    size = (7.2, 1.6 + 1.5 * math.ceil(len(most) / 2)) if panels else None
    figure = Figure("decay_curve", heading, partial(plots.decay_curve, curve), size, title=title)
    return figure, decay_caption(measured, last, most)


def group_parts(
    given: Input,
    counts: list[pd.DataFrame],
    fits: pd.DataFrame,
    by: list[str],
    rates: list[float],
) -> tuple[Part, ...]:
    """Return each group's part of the page, in the order of the tally's groups.

    `counts` are each group's success counts, `fits` the ``betabinom`` table
    (a row a group), `rates` each group's pass@1.
    """
    from passk_lab import plots

    codes, labels = given.summary.groups()
    keys: list[tuple[Hashable, ...]] = list(labels.itertuples(index=False, name=None))
    anchors = [f"runs-{slug}" for slug in slugs(keys, by)] if by else ["runs"]
    parts = []
    for group, (key, anchor, rows, rate) in enumerate(
        zip(keys, anchors, counts, rates, strict=True)
    ):
        name = group_name(by, key)
        suffix = anchor.removeprefix("runs")
        where = f": {name}" if name else ""
        heatmap = None
        if given.states is not None:
            rows_of: npt.NDArray[np.bool_] = codes == group
            states = group_states(given.states, rows_of, by)
            heatmap = Figure(
                f"outcome_heatmap{suffix}",
                "Every run",
                partial(plots.outcome_heatmap, states),
                title=f"Every run{where}",
            )
        histogram = Figure(
            f"success_histogram{suffix}",
            "Tasks by runs passed",
            partial(plots.success_histogram, rows),
            title=f"Tasks by runs passed{where}",
        )
        blank = unidentified(fits.iloc[[group]], [name], "The fit's expected count")
        parts.append(
            Part(
                name=name,
                anchor=anchor,
                heatmap=heatmap,
                histogram=histogram,
                caption=histogram_caption(rows, rate),
                counts=labelled(rows.drop(columns=by)),
                notes=(blank,) if blank else (),
            )
        )
    return tuple(parts)
