"""One group's decay curve: what it holds, what counts for the axis, and drawing it.

A group of a reliability curve is measured up to its last measured k and
predicted past it. :class:`GroupCurve` reads a group's rows once: the measured
pass^k and its interval, (pass@1)^k and its band, and the beta-binomial
prediction, whose line runs from the last measured k on and whose band is the
curve's ``betabinom_pow_k_low``/``_high`` on the predicted rows.
:func:`draw_group` draws it in one colour; :func:`style_entries` lists the
key of what was drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from passk_lab._typing import Bools, Floats
from passk_lab.plots._keys import Entry, bar_key
from passk_lab.plots._style import POW_K

__all__ = [
    "NAIVE",
    "OTHERS",
    "SAME_SHARE",
    "ZERO",
    "GroupCurve",
    "Look",
    "draw_group",
    "mark_predictions",
    "style_entries",
]

NAIVE = "(pass@1)$^k$"
ZERO = f"{POW_K} = 0 (below the axis)"
SAME_SHARE = 0.01
"""The beta-binomial line is drawn as (pass@1)^k's when it is this share of the axis from it,
or nearer, at every k it reaches: one line then says both (tasks alike)."""
_BAND_ALPHA = 0.2
"""How opaque the beta-binomial band is: light, so that lines read through it."""
_NAIVE_ALPHA = 0.12
"""How opaque the band of (pass@1)^k is, when drawn: lighter than the model's."""
_PREDICTED = {"color": "0.5", "alpha": 0.09, "lw": 0}
"""The shading of the predicted ks: a pale grey, behind everything."""
_RULE = {"color": "0.45", "lw": 0.9, "ls": "-"}
"""The rule between the last measured k and the first predicted one."""
OTHERS = {"color": "0.78", "lw": 1.0}
"""How a panel draws the other groups' measured pass^k behind its own: thin and pale grey."""
_ONE_K_MARKERS = {"--": "x", ":": "+"}
"""The predictions' markers on a curve of a single k, where a line of one point shows nothing."""


def _column(part: pd.DataFrame, name: str) -> Floats:
    """Return a column as floats, or NaN where the table has no such column."""
    if name not in part.columns:
        return np.full(len(part), np.nan)
    return part[name].to_numpy(dtype=np.float64)


@dataclass(frozen=True)
class GroupCurve:
    """One group's rows, read once: measured, naive and model values at each k (row)."""

    name: str
    k: Floats
    measured: Bools
    value: Floats
    low: Floats
    high: Floats
    naive: Floats
    naive_low: Floats
    naive_high: Floats
    model: Floats
    model_low: Floats
    model_high: Floats
    modelled: Bools  # the model line's rows: from the last measured k on

    @classmethod
    def of(cls, name: str, part: pd.DataFrame) -> GroupCurve:
        """Read a group's rows of a reliability curve."""
        part = part.sort_values("k")
        k = part["k"].to_numpy(dtype=np.float64)
        value = _column(part, "pass_pow_k")
        measured = np.isfinite(value)
        model = _column(part, "betabinom_pow_k")
        ahead = ~measured & (k > _last(k, measured))  # past the measured ks
        if "predicted" in part.columns:  # a curve of this release says which rows it predicts
            ahead |= part["predicted"].to_numpy(dtype=bool)
        modelled = np.zeros(len(k), dtype=bool)
        if np.any(ahead & np.isfinite(model)):
            modelled = np.isfinite(model) & (k >= _last(k, measured))
        return cls(
            name=name,
            k=k,
            measured=measured,
            value=value,
            low=_column(part, "pass_pow_k_low"),
            high=_column(part, "pass_pow_k_high"),
            naive=_column(part, "p_pow_k"),
            naive_low=_column(part, "p_pow_k_low"),
            naive_high=_column(part, "p_pow_k_high"),
            model=model,
            model_low=_column(part, "betabinom_pow_k_low"),
            model_high=_column(part, "betabinom_pow_k_high"),
            modelled=modelled,
        )

    @property
    def banded(self) -> Bools:
        """Return the rows where the model's band has both ends: the predicted ones."""
        return np.isfinite(self.model_low) & np.isfinite(self.model_high) & self.modelled

    @property
    def boundary(self) -> float | None:
        """Return the k between the last measured k and the first predicted one, if both exist."""
        last = _last(self.k, self.measured)
        ahead = self.k[self.modelled & (self.k > last)]
        if math.isinf(last) or not len(ahead):
            return None
        return (last + float(ahead.min())) / 2

    def matters(self, *, bands: bool, naive_band: bool, log: bool) -> list[Floats]:
        """Return the values the share axis is fitted to: all that is drawn, but (pass@1)^k on log.

        On a log axis (pass@1)^k of tasks that differ falls decades below the
        data: it may leave the axis, while the measured values, their
        intervals, the model's line and band (and the band of (pass@1)^k
        when drawn) stay in it.
        """
        values = [self.value, self.model[self.modelled]]
        if bands:
            values += [self.low, self.high, self.model_low[self.banded]]
            values.append(self.model_high[self.banded])
        if naive_band:
            values += [self.naive_low, self.naive_high]
        if not log:
            values.append(self.naive)
        return values

    def same_lines(self, span: tuple[float, float] | None, log: bool) -> bool:
        """Return whether the model's line is within :data:`SAME_SHARE` of the axis of the naive."""
        rows = self.modelled
        if span is None or not rows.any():
            return False
        model, naive = self.model[rows], self.naive[rows]
        if log:
            if np.any(model <= 0) or np.any(naive <= 0):
                return bool(np.all(model == naive))
            gap = np.abs(np.log10(model) - np.log10(naive)) / math.log10(span[1] / span[0])
        else:
            gap = np.abs(model - naive) / (span[1] - span[0])
        return bool(np.all(gap <= SAME_SHARE))


def _last(k: Floats, measured: Bools) -> float:
    """Return the last measured k, or -inf when none is measured."""
    return float(k[measured].max()) if measured.any() else -math.inf


@dataclass(frozen=True)
class Look:
    """How a group is drawn: its colour, its marker, how far its points are set apart in k."""

    color: str
    marker: str
    offset: float = 0.0


def draw_group(
    ax: Axes,
    curve: GroupCurve,
    look: Look,
    *,
    log: bool,
    bands: bool,
    naive_band: bool,
    same: bool,
    single: bool,
) -> set[str]:
    """Draw a group's curves on `ax` and return what the styles' key should list.

    The measured pass^k (solid, its interval as error bars), (pass@1)^k over
    every k (dashed; the model's line too when `same`), and the model's line
    (dotted) with its band from the last measured k on. `single`: the curve
    has one k, so the predictions are markers.
    """
    color, k = look.color, curve.k
    x, y = k[curve.measured] + look.offset, curve.value[curve.measured]
    shown = set()
    if len(y):
        ax.plot(x, y, "-", marker=look.marker, color=color, label=curve.name, zorder=3)
        shown.add("measured")
    if log and np.any(y == 0):
        ax.plot(
            x[y == 0],
            np.zeros(int(np.sum(y == 0))),
            "v",
            color=color,
            transform=ax.get_xaxis_transform(),  # y = 0 is the axis' floor
            clip_on=False,
            zorder=3,
        )
        shown.add("zero")
    if bands and len(y):
        ax.vlines(x, curve.low[curve.measured], curve.high[curve.measured], color=color, lw=1.4)
        shown.add("interval")
    if np.isfinite(curve.naive).any():
        marker = _ONE_K_MARKERS["--"] if single else ""
        ax.plot(k, curve.naive, "--", color=color, lw=1.3, marker=marker, zorder=2)
        shown.add("same" if same else "naive")
    if naive_band and np.isfinite(curve.naive_low).any():
        _band(ax, k, curve.naive_low, curve.naive_high, color, _NAIVE_ALPHA)
        shown.add("naive band")
    rows = curve.modelled
    if rows.any() and not same:
        marker = _ONE_K_MARKERS[":"] if single or rows.sum() == 1 else ""
        ax.plot(k[rows], curve.model[rows], ":", color=color, lw=2.2, marker=marker, zorder=2.5)
        shown.add("model")
    banded = curve.banded
    if bands and banded.any():
        _band(ax, k[banded], curve.model_low[banded], curve.model_high[banded], color, _BAND_ALPHA)
        shown.add("model band")
    return shown


def _band(ax: Axes, k: Floats, low: Floats, high: Floats, color: str, alpha: float) -> None:
    """Shade an interval over k; an interval of one k, which has no width, as an error bar."""
    if len(np.unique(k)) > 1:
        ax.fill_between(k, low, high, color=color, alpha=alpha, lw=0, zorder=1)
    else:
        ax.vlines(k, low, high, color=color, lw=6, alpha=alpha * 2, zorder=1)


def mark_predictions(ax: Axes, boundaries: list[float]) -> bool:
    """Rule off the predicted ks of `ax` and shade them, from the last boundary to the right edge.

    A thin rule stands at each group's boundary (half way between its last
    measured k and its first predicted one); the shade starts at the last of
    them, where every group's values are predictions. Return whether any was drawn.
    """
    if not boundaries:
        return False
    for boundary in sorted(set(boundaries)):
        ax.axvline(boundary, zorder=1, **_RULE)  # type: ignore[arg-type]
    right = ax.get_xlim()[1]
    ax.axvspan(max(boundaries), right, zorder=0, **_PREDICTED)  # type: ignore[arg-type]
    ax.set_xlim(right=right)
    return True


def style_entries(color: str, shown: set[str], level: str, *, single: bool) -> list[Entry]:
    """Return the styles' key: an entry per kind of line, band or mark that the plot shows.

    `shown` holds what :func:`draw_group` returned for every group, and
    ``"predicted"``, ``"pass@1"`` and ``"others"`` when those were drawn. A
    line and its interval are one entry, the interval drawn in its handle.
    """
    naive_marker = _ONE_K_MARKERS["--"] if single else ""
    model_marker = _ONE_K_MARKERS[":"] if single else ""
    point = Line2D([], [], color=color, marker="o", label="")
    dashed = Line2D([], [], color=color, ls="--", lw=1.3, marker=naive_marker)
    dotted = Line2D([], [], color=color, ls=":", lw=2.2, marker=model_marker)
    measured: Entry = (point, f"measured {POW_K}")
    if "interval" in shown:
        measured = ((bar_key(color, ""), point), f"measured {POW_K}\nwith its {level}")
    handle: Artist | tuple[Artist, ...] = dashed
    naive: Entry = (handle, f"{NAIVE}: if runs\nwere independent")
    if "naive band" in shown:
        handle = (Patch(color=color, alpha=_NAIVE_ALPHA, lw=0), dashed)
        naive = (handle, f"{NAIVE}, {level}:\nif runs were independent")
    if "same" in shown and "naive" not in shown:  # one line says both: the model lies on it
        naive = (handle, f"{NAIVE}; beta-binomial\nthe same: tasks alike")
    differ = "tasks differ"
    if "model" in shown and "same" in shown:  # left out for groups whose lines are the same
        differ += "\n(if alike, the dashed line)"
    band = Patch(color=color, alpha=_BAND_ALPHA, lw=0)
    model: Entry = (dotted, f"beta-binomial:\n{differ}")
    if "model band" in shown and "model" in shown:
        model = ((band, dotted), f"beta-binomial, {level}:\n{differ}")
    elif "model band" in shown:  # the model's line is (pass@1)^k's, whose entry says so
        model = (band, f"{level} of the\nbeta-binomial")
    entries: list[tuple[str, Entry]] = [
        ("measured", measured),
        ("zero", (Line2D([], [], color=color, ls="none", marker="v"), ZERO)),
        ("naive" if "naive" in shown else "same", naive),
        ("model" if "model" in shown else "model band", model),
        ("predicted", (Patch(**_PREDICTED), "predicted: k past\nthe runs")),  # type: ignore[arg-type]
        ("pass@1", (Line2D([], [], color=color, ls="-.", lw=0.8), "pass@1")),
        ("others", (Line2D([], [], **OTHERS), "the other groups")),  # type: ignore[arg-type]
    ]
    return [entry for kind, entry in entries if kind in shown]
