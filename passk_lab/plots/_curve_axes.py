"""The axes of a curve against k: a tick at every k shown, and a share axis fitted to the data.

The k axis labels every k of the curve, k = 1 included, as long as the labels
fit the axes' width when drawn (:class:`KTicks` decides at drawing time, after
any layout); past that, every second, fifth, tenth, ... k, the first one kept.
The share axis is linear from 0 or logarithmic, its range fitted to what a
plot counts as its data (:func:`share_axis`).
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, Locator, LogLocator, NullFormatter

from passk_lab._typing import Floats

__all__ = ["TOP", "KTicks", "checked_ylim", "fitted_range", "k_axis", "labelled_ks", "share_axis"]

TOP = 1.02
"""The top of a share of tasks' axis: 1, with room for a point there."""
_YLIM_CHOICES = (
    "'data' (0 to just above the highest value drawn), 'full' (0 to 1.02) or a (low, high) pair"
)
_LABEL_WIDTH = (0.16, 0.075)
"""The room one k's tick label takes, in inches: a gap, and the width of each digit."""
_STEPS = (1, 2, 5)
"""The steps between labelled ks, times a power of ten: 1, 2, 5, 10, 20, 50, ..."""
_LOG_SUBS = ((1.0, 1.5, 2.0, 3.0, 5.0, 7.0), (1.0, 2.0, 5.0))
"""The labelled multiples of each power of ten on a log axis of under one decade, and of three."""
_LOG_PAD = 0.05
"""How far past the data a log axis reaches, as a share of its decades (at least a factor 1.15)."""


class KTicks(Locator):
    """Tick every k of `ks` that the axis has room to label; past that, a round step of them.

    The room is the axis' length when drawn, so a narrow panel gets fewer
    labels than a wide plot (:func:`labelled_ks`).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(6, 3))
    >>> ax.xaxis.set_major_locator(KTicks(range(1, 11)))
    >>> _ = ax.set_xlim(0.5, 10.5)
    >>> ax.xaxis.get_major_locator()()
    [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    >>> plt.close(fig)
    """

    def __init__(self, ks: object) -> None:
        self.ks = np.unique(np.asarray(ks, dtype=np.int64))

    def __call__(self) -> list[float]:
        """Return the ks to tick, judged from the axis' length now."""
        if self.axis is None:
            return [float(k) for k in self.ks]
        low, high = self.axis.get_view_interval()
        return self.tick_values(float(low), float(high))

    def tick_values(self, vmin: float, vmax: float) -> list[float]:
        """Return the ks between `vmin` and `vmax` to tick, as many as the axis has room for."""
        low, high = sorted((vmin, vmax))
        shown = self.ks[(self.ks >= low) & (self.ks <= high)]
        axes = getattr(self.axis, "axes", None)
        if axes is None:
            return [float(k) for k in shown]
        inches = axes.bbox.width / axes.get_figure(root=True).dpi
        return [float(k) for k in labelled_ks(shown, inches)]


def labelled_ks(ks: np.ndarray, inches: float) -> Floats:
    """Return which of the sorted `ks` to label on an axis `inches` long.

    Every k if their labels fit; else every 2nd k from the first (1, 3, 5,
    ...), or past that the first k and the multiples of 5, 10, 20, 50, ...
    (1, 5, 10, ...), the fewest steps that fit.

    Examples
    --------
    >>> labelled_ks(np.arange(1, 13), 6.0).tolist()
    [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
    >>> labelled_ks(np.arange(1, 13), 2.0).tolist(), labelled_ks(np.arange(1, 13), 1.0).tolist()
    ([1.0, 3.0, 5.0, 7.0, 9.0, 11.0], [1.0, 5.0, 10.0])
    """
    ks = np.asarray(ks, dtype=np.int64)
    if len(ks) <= 1:
        return np.asarray(ks, dtype=np.float64)
    gap, digit = _LABEL_WIDTH
    room = max(2, int(inches / (gap + digit * len(str(int(ks.max()))))))
    for step in (each * 10**power for power in range(7) for each in _STEPS):
        if step < 5:
            chosen = ks[(ks - ks[0]) % step == 0]
        else:
            multiples = ks[(ks % step == 0) & (ks - ks[0] >= 0.6 * step)]
            chosen = np.concatenate([ks[:1], multiples])
        if len(chosen) <= room:
            return np.asarray(chosen, dtype=np.float64)
    return np.asarray(ks[:1], dtype=np.float64)


def k_axis(ax: Axes, ks: Floats) -> None:
    """Set the k axis of `ax`: a tick at every k that fits, and half a k of room at each end."""
    distinct = np.unique(ks[np.isfinite(ks)])
    ax.xaxis.set_major_locator(KTicks(distinct))
    pad = max(0.5, 0.03 * float(distinct[-1] - distinct[0]))
    ax.set_xlim(float(distinct[0]) - pad, float(distinct[-1]) + pad)


def checked_ylim(ylim: object, log: bool) -> str | tuple[float, float]:
    """Return `ylim` as a curve's plot reads it, or say what it takes."""
    if isinstance(ylim, str) and ylim in ("data", "full"):
        return ylim
    if isinstance(ylim, (tuple, list)) and len(ylim) == 2:
        low, high = ylim
        numbers = all(isinstance(end, Real) and not isinstance(end, bool) for end in ylim)
        if numbers and math.isfinite(low) and math.isfinite(high) and low < high:
            if log and low <= 0:
                raise ValueError(
                    f"ylim's low end must be above 0 on a log axis (log=True), got {ylim!r}: "
                    f"give a positive one, e.g. ({high / 1000:g}, {high:g}), or log=False"
                )
            return float(low), float(high)
    raise ValueError(f"ylim must be {_YLIM_CHOICES} with low < high; got {ylim!r}")


def fitted_range(
    limits: str | tuple[float, float], log: bool, values: list[Floats]
) -> tuple[float, float] | None:
    """Return the share axis' range: `limits` if a pair, else fitted to `values`.

    Linear: from 0 to just above the highest value (at most :data:`TOP`), or
    to :data:`TOP` with ``"full"``. Log: from just below the lowest value above
    0 to just above the highest, or to :data:`TOP` with ``"full"``. None
    where there is nothing to fit to on a log axis (matplotlib's own range).
    """
    if isinstance(limits, tuple):
        return limits
    finite = np.concatenate([np.asarray(array, dtype=np.float64).ravel() for array in values])
    finite = finite[np.isfinite(finite)]
    if not log:
        if limits == "full" or not len(finite):
            return 0.0, TOP
        return 0.0, min(max(float(finite.max()) * 1.05, 0.05), TOP)
    positive = finite[finite > 0]
    if not len(positive):
        return None
    low, high = float(positive.min()), float(positive.max())
    pad = max((high / low) ** _LOG_PAD, 1.15)
    return low / pad, TOP if limits == "full" else min(high * pad, TOP)


def share_axis(ax: Axes, span: tuple[float, float] | None, log: bool) -> None:
    """Set the share axis of `ax`: log or linear, over `span`; a log axis labels 0.1, 0.2, 0.5.

    A log axis of under one decade labels 1, 1.5, 2, 3, 5 and 7 times each
    power of ten, of under three 1, 2 and 5 times, past that each power, and
    past six decades matplotlib's own choice; each written as a number
    (0.05, not 5e-2).
    """
    if log:
        ax.set_yscale("log")
    if span is None:
        return
    ax.set_ylim(*span)
    if not log:
        return
    decades = math.log10(span[1] / span[0])
    if decades <= 6:
        subs = _LOG_SUBS[0] if decades < 1 else _LOG_SUBS[1] if decades < 3 else (1.0,)
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
