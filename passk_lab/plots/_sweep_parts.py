"""What the sweep plots share: the columns they read, their labels, and the colour of each p.

A sweep's few p take the palette's hues, in order of p, and a legend names
them; more p than hues take a sequential map of p (viridis without its pale
end) and a colour bar gives it. :func:`p_colours` decides once, so that a p
has the same colour in :func:`~passk_lab.plots.sweep_lines` and in
:func:`~passk_lab.plots.measured_vs_analytic`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colorbar import Colorbar
from matplotlib.colors import ListedColormap, Normalize, to_rgba
from matplotlib.font_manager import FontProperties

from passk_lab._warnings import PasskDeprecationWarning, warn
from passk_lab.plots._style import PALETTE, POW_K, literal, require_table

__all__ = [
    "LINE_SPACING",
    "MOST_LINES",
    "P_LABEL",
    "SWEEP_LABELS",
    "TITLES",
    "PColours",
    "current",
    "grid_of",
    "label_of",
    "p_colours",
]

SWEEP_LABELS = {  # axis labels of the sweep columns
    "true_pow_k": "$p^k$",
    "pass_pow_k": f"mean measured {POW_K}",
    "pass_at_1": "mean measured pass@1",
}
TITLES = {  # a sweep plot's title by the column it draws; a column not named here has none
    "true_pow_k": "$p^k$: the chance that all k runs of a task pass",
    "pass_pow_k": "mean measured pass$^k$ of the simulated evaluations",
    "pass_at_1": "mean measured pass@1 of the simulated evaluations",
}
MOST_LINES = 10
"""The most p a sweep's lines draw unless told which: more merge into one another."""
LINE_SPACING = 1.3
"""The height a label takes, as a multiple of its size: the size and the gap to the next."""
P_LABEL = "p (chance a run passes)"


def current(value: str) -> str:
    """Return the sweep column `value` names: the truth's old name ``p_pow_k`` is ``true_pow_k``."""
    if value != "p_pow_k":
        return value
    warn(
        PasskDeprecationWarning(
            "the sweep's true p ** k is the column true_pow_k (p_pow_k is the curve's estimate); "
            "value='p_pow_k' goes in the next release",
            keywords=("value",),
        )
    )
    return "true_pow_k"


def grid_of(sweep: pd.DataFrame, value: str) -> pd.DataFrame:
    """Return `value` over the grid of p (rows) and k (columns), repeated cells averaged."""
    frame = require_table(sweep, ["p", "k", value], "simulate_sweep")
    return frame.pivot_table(index="p", columns="k", values=value, aggfunc="mean")


def _shades() -> ListedColormap:
    """Return the colours of many p: viridis without its pale yellow end, which fades into white."""
    return ListedColormap(plt.get_cmap("viridis")(np.linspace(0, 0.85, 256)))


@dataclass(frozen=True)
class PColours:
    """The colour of each p of a plot, and how a reader is told which is which."""

    ps: np.ndarray
    named: bool  # few p in the palette's hues, named by a legend; else a map and a colour bar

    def of(self, p: float) -> tuple[float, float, float, float]:
        """Return the colour of `p`, one of :attr:`ps`."""
        if self.named:
            index = int(np.flatnonzero(np.isclose(self.ps, p))[0])
            return to_rgba(PALETTE[index])
        return tuple(float(part) for part in _shades()(self._norm(p)))  # type: ignore[return-value]

    def _norm(self, p: float) -> float:
        return float(Normalize(float(self.ps.min()), float(self.ps.max()))(p))

    def colour_bar(self, ax: Axes, label: str, shrink: float = 1.0) -> Colorbar:
        """Draw the colour bar of p beside `ax`, a tick at each p if their labels stay apart.

        Each p is ticked when there are few enough (at most :data:`MOST_LINES`)
        and the nearest two are a tick label's height apart on the bar (judged
        from its size now); else the bar keeps its own ticks. A bar that
        `shrink` shortens is an inset of `ax` at the top of its right side,
        so that it stays by the axes however their aspect shrinks them, and
        is labelled ``p`` alone, which its length holds.
        """
        norm = Normalize(float(self.ps.min()), float(self.ps.max()))
        figure = ax.get_figure(root=True)
        assert figure is not None  # an Axes one draws on is in a figure
        shades = ScalarMappable(norm=norm, cmap=_shades())
        if shrink < 1.0:
            inset = ax.inset_axes((1.04, 1.0 - shrink, 0.05, shrink))
            bar = figure.colorbar(shades, cax=inset, label="p")
        else:
            bar = figure.colorbar(shades, ax=ax, label=label)
        values = np.sort(self.ps)
        if len(values) > MOST_LINES or values[-1] == values[0]:
            return bar
        size = float(FontProperties(size=plt.rcParams["ytick.labelsize"]).get_size_in_points())
        points_per_p = bar.ax.bbox.height * 72 / figure.dpi / (values[-1] - values[0])
        if np.diff(values).min() * points_per_p >= size * LINE_SPACING:
            bar.set_ticks(values.tolist(), labels=[f"{p:g}" for p in values])
        return bar

    def key(
        self,
        ax: Axes,
        handles: Sequence[Artist],
        label: str = P_LABEL,
        *,
        markerscale: float = 1.0,
        shrink: float = 1.0,
    ) -> Colorbar | None:
        """Say which colour is which p: a legend of `handles` beside `ax`, or a colour bar.

        Return the colour bar, if drawn (`shrink` times the height of `ax`).
        """
        if self.named:
            ax.legend(
                handles=list(handles),
                loc="upper left",
                bbox_to_anchor=(1.02, 1.0),
                markerscale=markerscale,
            )
            return None
        return self.colour_bar(ax, label, shrink)


def p_colours(ps: Sequence[float] | np.ndarray) -> PColours:
    """Return the colours of `ps`: the palette's hues in order of p for as many, else a map.

    Examples
    --------
    >>> few = p_colours([0.9, 0.5])
    >>> few.named, few.of(0.5) == p_colours([0.5]).of(0.5)
    (True, True)
    >>> p_colours(np.linspace(0.5, 0.99, 8)).named
    False
    """
    values = np.sort(np.asarray(ps, dtype=np.float64))
    return PColours(values, len(values) <= len(PALETTE))


def label_of(value: str) -> str:
    """Return the axis label of a sweep column: its own for the known ones, else its name."""
    return SWEEP_LABELS.get(value, literal(value))
