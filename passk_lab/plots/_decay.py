"""The decay curve: measured pass^k against k, and past the runs the model's prediction."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from passk_lab._labels import interval_label
from passk_lab.plots._curve_axes import checked_ylim, fitted_range, k_axis, share_axis
from passk_lab.plots._decay_parts import (
    GroupCurve,
    Look,
    draw_group,
    mark_predictions,
    style_entries,
)
from passk_lab.plots._facets import (
    FACET_ABOVE,
    draw_others,
    label_panels,
    panel_grid,
)
from passk_lab.plots._keys import (
    STYLE_GREY,
    figure_of,
    place_keys,
    styles_key,
    styles_key_at,
    styles_key_below,
)
from passk_lab.plots._style import PALETTE, POW_K, axes_of, literal, require_table

__all__ = ["decay_curve"]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
"""The measured points' markers: a group past the palette's colours takes the next one."""
_DODGE = 0.3
"""How far apart in k the groups' measured points and error bars spread, first to last."""
_XLABEL = "k (runs that must all pass)"
_YLABEL = f"share of tasks, {POW_K}"


def _groups(curve: pd.DataFrame) -> tuple[str, list[GroupCurve]]:
    """Split a curve into its groups: the columns before ``k`` are the grouping columns.

    Returns the title of the groups' key (the columns' names) and each group's
    curve, named by its values.
    """
    by = list(curve.columns[: list(curve.columns).index("k")])
    if not by:
        return "", [GroupCurve.of("", curve)]
    return literal(", ".join(map(str, by))), [
        GroupCurve.of(literal(", ".join(map(str, key))), part)
        for key, part in curve.groupby(by, sort=False, dropna=False)
    ]


def decay_curve(
    curve: pd.DataFrame,
    *,
    ax: Axes | None = None,
    log: bool = False,
    bands: bool = True,
    naive_band: bool = False,
    facet: bool | None = None,
    ylim: str | tuple[float, float] = "data",
) -> Axes:
    r"""Draw measured pass^k against k and, past the runs, the model's prediction with its band.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    curve : DataFrame
        What :func:`~passk_lab.reliability_curve` returns, with or without
        groups; ask it for ``predict_to=`` to predict past the observed runs.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default. With panels, its place is
        split into their grid.
    log : bool
        A logarithmic pass^k axis, which turns ``(pass@1)^k`` into a straight
        line; its range is fitted to the measured values, the model and their
        intervals, so that ``(pass@1)^k`` may leave it.
    bands : bool
        Draw the intervals: error bars on the measured pass^k, and the
        beta-binomial band (``betabinom_pow_k_low``/``_high``) past the runs.
    naive_band : bool
        Also shade the band of ``(pass@1)^k`` (``p_pow_k_low``/``_high``),
        the pass@1 interval to the power k: off by default, as it treats
        every task alike.
    facet : bool, optional
        A panel per group, sharing both axes, each with the other groups
        faintly behind: by default past four groups; True or False forces it.
    ylim : {"data", "full"} or (float, float)
        The pass^k axis: ``"data"`` (the default) fitted to what is drawn,
        intervals included (linear: from 0 to just above it, at most 1.02);
        ``"full"`` up to 1.02 (linear: from 0); or the (low, high) given,
        whose low end must be above 0 on a log axis.

    Returns
    -------
    matplotlib Axes
        The Axes drawn on; with panels the first group's, whose figure holds
        the others as its last Axes, in the groups' order
        (``ax.figure.axes[-(groups - 1):]``), sharing both axes with it.

    Raises
    ------
    ValueError
        If `ylim` is none of its choices, or the table is not a curve.
    TypeError
        If `facet` is not True, False or None.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), rng=0, predict_to=8)
    >>> fig, ax = plt.subplots()
    >>> ax = decay_curve(curve, ax=ax)
    >>> measured = ax.get_lines()[0]
    >>> measured.get_xdata().tolist(), measured.get_ydata().round(2).tolist()
    ([1.0, 2.0, 3.0, 4.0, 5.0], [0.86, 0.74, 0.62, 0.53, 0.45])
    >>> [text.get_text() for text in ax.get_legend().get_texts()][1]
    '(pass@1)$^k$; beta-binomial\nthe same: tasks alike'
    >>> plt.close(fig)

    Groups are named by their values, under the grouping column's name:

    >>> both = pd.concat([
    ...     pk.simulate_coin(p=0.9, tasks=30, seed=1).assign(model="a"),
    ...     pk.simulate_coin(p=0.6, tasks=30, seed=2).assign(model="b"),
    ... ])
    >>> fig, ax = plt.subplots()
    >>> key = decay_curve(pk.reliability_curve(both, by="model"), ax=ax, ylim="full").get_legend()
    >>> key.get_title().get_text(), [text.get_text() for text in key.get_texts()]
    ('model', ['a', 'b'])
    >>> plt.close(fig)
    """
    frame = require_table(
        curve,
        ["k", "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high", "p_pow_k", "betabinom_pow_k"],
        "reliability_curve",
    )
    limits = checked_ylim(ylim, log)
    if facet is not None and not isinstance(facet, bool):
        raise TypeError(
            f"facet must be True (a panel per group), False (one Axes) or None (panels past "
            f"{FACET_ABOVE} groups), got {facet!r}"
        )
    title, curves = _groups(frame)
    paneled = len(curves) > FACET_ABOVE if facet is None else facet
    options = {"log": log, "bands": bands, "naive_band": naive_band}
    matters = [values for each in curves for values in each.matters(**options)]
    span = fitted_range(limits, log, matters)
    ax = axes_of(ax)
    level = interval_label(frame)
    single = len(frame["k"].unique()) == 1
    if paneled:
        return _panels(ax, curves, span, level, single=single, **options)
    _one_axes(ax, curves, span, level, title, single=single, **options)
    return ax


def _one_axes(
    ax: Axes,
    curves: list[GroupCurve],
    span: tuple[float, float] | None,
    level: str,
    title: str,
    *,
    single: bool,
    log: bool,
    bands: bool,
    naive_band: bool,
) -> None:
    """Draw every group on `ax`, each in its colour, with the keys beside it."""
    shown: set[str] = set()
    step = 0.0 if len(curves) == 1 else min(0.08, _DODGE / (len(curves) - 1))
    k_axis(ax, np.concatenate([each.k for each in curves]))
    groups: list[Artist] = []
    options = {"log": log, "bands": bands, "naive_band": naive_band}
    for index, each in enumerate(curves):
        color = PALETTE[index % len(PALETTE)]
        marker = _MARKERS[(index // len(PALETTE)) % len(_MARKERS)]
        look = Look(color, marker, (index - (len(curves) - 1) / 2) * step)
        same = each.same_lines(span, log)
        shown |= draw_group(ax, each, look, same=same, single=single, **options)
        groups.append(Line2D([], [], color=color, marker=marker, label=each.name))
    if len(curves) == 1:
        shown |= _pass_at_1(ax, curves[0], PALETTE[0])
    if mark_predictions(ax, [edge for each in curves if (edge := each.boundary) is not None]):
        shown.add("predicted")
    ax.set_xlabel(_XLABEL)
    ax.set_ylabel(_YLABEL)
    share_axis(ax, span, log)
    colour = PALETTE[0] if len(curves) == 1 else STYLE_GREY
    styles = style_entries(colour, shown, level, single=single)
    if title:
        place_keys(ax, groups, title, styles)
    else:
        styles_key(ax, styles)


def _pass_at_1(ax: Axes, curve: GroupCurve, color: str) -> set[str]:
    """Draw pass@1, the k = 1 row's (pass@1)^k, as a thin level line; return what it shows."""
    at_1 = curve.naive[curve.k == 1]
    if not len(at_1):
        return set()
    ax.axhline(float(at_1[0]), color=color, lw=0.8, ls="-.", alpha=0.7)
    return {"pass@1"}


def _panels(
    ax: Axes,
    curves: list[GroupCurve],
    span: tuple[float, float] | None,
    level: str,
    *,
    single: bool,
    log: bool,
    bands: bool,
    naive_band: bool,
) -> Axes:
    """Draw each group on a panel of its own, the others faintly behind; return the first panel."""
    made = panel_grid(ax, len(curves))
    panels, grid = made.axes, made.grid
    k_axis(panels[0], np.concatenate([each.k for each in curves]))
    shown: set[str] = set()
    look = Look(PALETTE[0], _MARKERS[0])
    options = {"log": log, "bands": bands, "naive_band": naive_band}
    for index, (panel, each) in enumerate(zip(panels, curves, strict=True)):
        if draw_others(panel, curves, index):
            shown.add("others")
        same = each.same_lines(span, log)
        shown |= draw_group(panel, each, look, same=same, single=single, **options)
        edge = each.boundary
        if mark_predictions(panel, [] if edge is None else [edge]):
            shown.add("predicted")
        panel.set_title(each.name, loc="left")
    label_panels(panels, grid, _XLABEL, _YLABEL)
    share_axis(panels[0], span, log)
    styles = style_entries(PALETTE[0], shown, level, single=single)
    if made.key is not None:  # an Axes of its own, beside or under the panels
        key = styles_key_at(made.key, styles, grid.key_columns)
        extent = key.get_window_extent()
        dpi = figure_of(ax).dpi
        made.fit(extent.width / dpi, extent.height / dpi)
    elif grid.key_below:
        bottom_left = panels[(grid.rows - 1) * grid.columns]
        styles_key_below(bottom_left, styles, grid.key_columns)
    else:
        styles_key(panels[grid.corner], styles)
    return panels[0]
