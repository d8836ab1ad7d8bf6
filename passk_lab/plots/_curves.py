"""Curves against k: one agent's pass^k with its predictions, and two agents compared."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from numbers import Real

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import ScaledTranslation

from passk_lab._labels import interval_label
from passk_lab._typing import Floats
from passk_lab.plots._style import POW_K, axes_of, integer_ticks, literal, require_table

__all__ = ["comparison", "decay_curve"]

P_POW_K = r"$\hat{p}^{\,k}$"
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
"""The measured points' markers: a group past the palette's colours takes the next one."""
_DODGE = 0.3
"""How far apart in k the groups' measured points and error bars spread, first to last."""
_TOP = 1.02
"""The top of a share of tasks' axis: 1, with room for a point there."""
_GROUPS_PER_COLUMN = 10
"""The most groups one column of the groups' key lists (fewer where the axes are short)."""
_KEY_GAP = 0.12
"""The space between the groups' key and the styles' key, in inches."""
_ONE_K_MARKERS = {"--": "x", ":": "+"}
"""The predictions' markers on a curve of a single k, where a line of one point shows nothing."""
_STYLE_GREY = "0.3"
"""The colour of a style's key where several groups draw it, each in its own colour."""
_HEIGHTS = (3, 2)
"""The heights of a comparison's two axes: both agents above, their difference below."""
_PAIR_DODGE = 0.08
"""How far apart in k a comparison sets the two agents' points and error bars."""
_YLIM_CHOICES = (
    "'data' (0 to just above the highest value drawn), 'full' (0 to 1.02) or a (low, high) pair"
)


def _groups(curve: pd.DataFrame) -> tuple[str, list[tuple[str, pd.DataFrame]]]:
    """Split a curve into its groups: the columns before ``k`` are the grouping columns.

    Returns the title of the groups' key (the columns' names) and, per group,
    its name (its values) and its rows.
    """
    by = list(curve.columns[: list(curve.columns).index("k")])
    if not by:
        return "", [("", curve)]
    return literal(", ".join(map(str, by))), [
        (literal(", ".join(map(str, key))), part)
        for key, part in curve.groupby(by, sort=False, dropna=False)
    ]


def _checked_ylim(ylim: object, log: bool) -> str | tuple[float, float]:
    """Return `ylim` as decay_curve reads it, or say what it takes."""
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


def _whole_ks(ax: Axes, ks: Floats) -> None:
    """Tick the k axis of `ax` at whole numbers; a single k gets its own tick, k +- 0.5 around."""
    integer_ticks(ax)
    distinct = np.unique(ks)
    if len(distinct) == 1:
        only = float(distinct[0])
        ax.set_xticks([only])
        ax.set_xlim(only - 0.5, only + 0.5)


def _figure_of(ax: Axes) -> Figure:
    """Return the figure `ax` draws in."""
    figure = ax.get_figure(root=True)
    assert figure is not None  # an Axes one draws on is in a figure
    return figure


def _groups_key(ax: Axes, groups: list[Artist], title: str, room: float) -> float:
    """Draw the groups' key right of `ax`, in the fewest columns that keep it `room` inches high.

    Returns its height in inches.
    """
    columns = math.ceil(len(groups) / _GROUPS_PER_COLUMN)
    while True:
        key = ax.legend(
            handles=groups,
            title=title,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
            frameon=False,
            ncols=columns,
            alignment="left",
        )
        height = key.get_window_extent().height / _figure_of(ax).dpi
        if height <= room or columns >= len(groups):
            return height
        columns += 1


def _place_keys(ax: Axes, groups: list[Artist], title: str, styles: list[Artist]) -> None:
    """Put the groups' key right of `ax` and the styles' key right below it.

    The groups' key takes as many columns as it needs to fit the height of
    the axes. The styles' key is placed at the groups' key's height in
    inches below the top of the axes (a legend's size in inches is fixed by
    its fonts), so that no layout of the figure makes the two overlap; where
    both are taller than the axes, the styles' key reaches below them.
    """
    figure = _figure_of(ax)
    height = _groups_key(ax, groups, title, ax.get_window_extent().height / figure.dpi)
    styles_key = Legend(
        ax,
        styles,
        [str(style.get_label()) for style in styles],
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        bbox_transform=ax.transAxes
        + ScaledTranslation(0.0, -(height + _KEY_GAP), figure.dpi_scale_trans),
        borderaxespad=0.0,
        frameon=False,
    )
    ax.add_artist(styles_key).set_clip_on(False)  # an added artist is clipped to the axes


def _bar_key(color: str, label: str) -> Line2D:
    """Return the key's entry of an interval drawn as error bars: a short upright bar."""
    return Line2D([], [], color=color, ls="none", marker="|", markersize=11, mew=1.4, label=label)


def _highest(values: list[Floats]) -> float:
    """Return the greatest finite value of `values`, or NaN if there is none."""
    finite = np.concatenate([np.asarray(array, dtype=np.float64).ravel() for array in values])
    finite = finite[np.isfinite(finite)]
    return float(finite.max()) if len(finite) else math.nan


def decay_curve(
    curve: pd.DataFrame,
    *,
    ax: Axes | None = None,
    log: bool = False,
    bands: bool = True,
    ylim: str | tuple[float, float] = "data",
) -> Axes:
    """Draw pass^k against k with its interval, beside pass@1 and the curves that predict it.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    curve : DataFrame
        What :func:`~passk_lab.reliability_curve` returns, with or without
        groups; ask it for ``predict_to=`` to extend the predictions past the
        observed runs.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.
    log : bool
        A logarithmic pass^k axis, which turns ``p^k`` into a straight line.
    bands : bool
        Draw the intervals: error bars on the measured pass^k and, with one
        group, the band of ``p̂^k``.
    ylim : {"data", "full"} or (float, float)
        The pass^k axis: ``"data"`` (the default) from 0 to just above the
        highest value drawn, intervals included (at most 1.02); ``"full"``
        from 0 to 1.02; or the (low, high) given. On a log axis only a pair
        sets the limits, and its low end must be above 0.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        If `ylim` is none of its choices, or the table is not a curve.

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
    >>> low, high = ax.get_ylim()  # 0 to just above the highest value drawn
    >>> float(low), bool(high > curve["p_pow_k_high"].max()), bool(high < 1)
    (0.0, True, True)
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
    limits = _checked_ylim(ylim, log)
    ax = axes_of(ax)
    title, groups = _groups(frame)
    level = interval_label(frame)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    one = len(groups) == 1
    ks = frame["k"].to_numpy(dtype=np.float64)
    single = len(np.unique(ks)) == 1
    shaded = bands and one and not single and "p_pow_k_low" in frame.columns
    step = 0.0 if one else min(0.08, _DODGE / (len(groups) - 1))
    handles: list[Artist] = []
    drawn: list[Floats] = []
    shown: set[str] = set()  # what the styles' key lists: only what is drawn
    for index, (name, part) in enumerate(groups):
        color = colors[index % len(colors)]
        marker = _MARKERS[(index // len(colors)) % len(_MARKERS)]
        offset = (index - (len(groups) - 1) / 2) * step
        options = {"one": one, "single": single, "log": log, "bands": bands, "shaded": shaded}
        handle, values, said = _draw_group(ax, part, name, (color, marker), offset, **options)
        handles.append(handle)
        drawn += values
        shown |= said
    ax.set_xlabel("k (runs that must all pass)")
    ax.set_ylabel(f"share of tasks, {POW_K}")
    styles = _styles(colors[0] if one else _STYLE_GREY, shown, bands, shaded, single, level)
    if title:
        _place_keys(ax, handles, title, styles)
    else:
        ax.legend(
            handles=styles,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
            frameon=False,
        )
    _whole_ks(ax, ks)
    _pass_pow_k_axis(ax, limits, log, drawn)
    return ax


def _pass_pow_k_axis(
    ax: Axes, limits: str | tuple[float, float], log: bool, drawn: list[Floats]
) -> None:
    """Set the pass^k axis: log or linear, to the limits given or just above what is drawn."""
    if log:
        ax.set_yscale("log")
    if isinstance(limits, tuple):
        ax.set_ylim(*limits)
    elif not log:
        highest = _highest(drawn)
        top = _TOP if limits == "full" or math.isnan(highest) else max(highest * 1.05, 0.05)
        ax.set_ylim(0.0, min(top, _TOP))


def _draw_group(
    ax: Axes,
    part: pd.DataFrame,
    name: str,
    look: tuple[str, str],
    offset: float,
    *,
    one: bool,
    single: bool,
    log: bool,
    bands: bool,
    shaded: bool,
) -> tuple[Artist, list[Floats], set[str]]:
    """Draw one group's curves in its colour and marker (`look`), its points set `offset` apart.

    Return the measured line (the group's key entry), every value drawn (for the
    axis' limits) and what the styles' key should list. `single`: the curve has one k.
    """
    color, marker = look
    k = part["k"].to_numpy()
    measured = part["pass_pow_k"].notna().to_numpy()
    x = k[measured] + offset
    y = part["pass_pow_k"].to_numpy(dtype=np.float64)[measured]
    (line,) = ax.plot(x, y, "-", marker=marker, color=color, label=name, zorder=3)
    shown = {"measured"} if len(y) else set()
    drawn: list[Floats] = [y]
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
    for column, style, width in (("p_pow_k", "--", 1.4), ("betabinom_pow_k", ":", 2.2)):
        values = part[column].to_numpy(dtype=np.float64)
        ax.plot(k, values, style, color=color, lw=width, marker=_marker(style, single))
        drawn.append(values)
        shown |= {column} if np.isfinite(values).any() else set()
    pass_at_1 = part.loc[part["k"] == 1, "p_pow_k"]
    if one and len(pass_at_1):
        ax.axhline(float(pass_at_1.iloc[0]), color=color, lw=0.8, ls="-.", alpha=0.7)
        shown.add("pass@1")
    if bands:
        low = part["pass_pow_k_low"].to_numpy(dtype=np.float64)[measured]
        high = part["pass_pow_k_high"].to_numpy(dtype=np.float64)[measured]
        ax.vlines(x, low, high, color=color, lw=1.4, zorder=2.5)
        drawn += [low, high]
    if shaded:
        band = part[["p_pow_k_low", "p_pow_k_high"]].to_numpy(dtype=np.float64)
        ax.fill_between(k, band[:, 0], band[:, 1], color=color, alpha=0.15, lw=0)
        drawn.append(band)
    return line, drawn, shown


def _marker(style: str, single: bool) -> str:
    """Return the marker of a prediction drawn in line `style`: none unless the curve has one k."""
    return _ONE_K_MARKERS[style] if single else ""


def _styles(
    color: str, shown: set[str], bands: bool, shaded: bool, single: bool, level: str
) -> list[Artist]:
    """Return the styles' key: an entry per kind of line or mark that the plot shows."""
    styles: list[Artist] = []
    if "measured" in shown:
        styles.append(Line2D([], [], color=color, marker="o", label=f"measured {POW_K}"))
        if bands:
            styles.append(_bar_key(color, f"{level} of measured {POW_K}"))
    if "zero" in shown:
        zero = f"{POW_K} = 0 (below the axis)"
        styles.append(Line2D([], [], color=color, ls="none", marker="v", label=zero))
    if "p_pow_k" in shown:
        alike = f"{P_POW_K} = (pass@1)$^k$: tasks alike"
        marker = _marker("--", single)
        styles.append(Line2D([], [], color=color, ls="--", lw=1.4, marker=marker, label=alike))
    if shaded:
        styles.append(Patch(color=color, alpha=0.15, lw=0, label=f"{level} of {P_POW_K}"))
    if "betabinom_pow_k" in shown:
        differ = "beta-binomial: tasks differ"
        marker = _marker(":", single)
        styles.append(Line2D([], [], color=color, ls=":", lw=2.2, marker=marker, label=differ))
    if "pass@1" in shown:
        styles.append(Line2D([], [], color=color, ls="-.", lw=0.8, label="pass@1"))
    return styles


def _lower_axes(ax: Axes) -> Axes:
    """Give the lower part of `ax`'s place to a new Axes sharing its k axis, and return it.

    An Axes of a grid keeps the upper cell of a split of its cell (which
    constrained layout lays out as any other); one placed by a rectangle keeps
    the upper part of it.
    """
    figure = ax.get_figure()
    assert figure is not None  # an Axes one draws on is in a figure
    spec = ax.get_subplotspec()
    if spec is not None:
        grid = spec.subgridspec(2, 1, height_ratios=_HEIGHTS, hspace=0.1)
        ax.set_subplotspec(grid[0])
        return figure.add_subplot(grid[1], sharex=ax)
    left, bottom, width, height = ax.get_position().bounds
    share = _HEIGHTS[1] / sum(_HEIGHTS)
    gap = 0.06 * height
    ax.set_position((left, bottom + share * height + gap, width, (1 - share) * height - gap))
    return figure.add_axes((left, bottom, width, share * height), sharex=ax)


def comparison(
    table: pd.DataFrame,
    *,
    metric: str = "pass_pow_k",
    names: Sequence[Hashable] = ("A", "B"),
    ax: Axes | None = None,
) -> Axes:
    """Draw two agents' curves with their intervals and, below, their paired difference.

    docs/report.md ("The plots in detail") says how it draws each case.

    Parameters
    ----------
    table : DataFrame
        What :func:`~passk_lab.compare` returns.
    metric : {"pass_pow_k", "pass_at_k"}
        Which of its curves to draw.
    names : pair of str
        The agents' names, for the keys (``runs_a`` first).
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default. Its place is split: it
        keeps the upper part, and a new Axes below takes the difference.

    Returns
    -------
    matplotlib Axes
        The upper Axes: both agents. The difference is on the Axes the
        figure gained last, ``ax.figure.axes[-1]``, which shares its k axis.

    Raises
    ------
    ValueError
        If `names` is not two names, the table has no rows for `metric`, or
        it is not compare's table.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> strong = pk.simulate_coin(p=0.9, tasks=100, k=4, seed=1)
    >>> weak = pk.simulate_coin(p=0.7, tasks=100, k=4, seed=2)
    >>> table = pk.compare(strong, weak, rng=0, n_resamples=1000)
    >>> fig, ax = plt.subplots()
    >>> ax = comparison(table, names=("strong", "weak"), ax=ax)
    >>> [line.get_label() for line in ax.get_lines()]
    ['strong', 'weak']
    >>> below = fig.axes[-1]
    >>> below.get_lines()[-1].get_ydata().round(3).tolist() == (
    ...     table.loc[table["metric"] == "pass_pow_k", "difference"].round(3).tolist()
    ... )
    True
    >>> plt.close(fig)
    """
    columns = ["value_a", "value_a_low", "value_a_high", "value_b", "value_b_low", "value_b_high"]
    frame = require_table(
        table,
        ["metric", "k", *columns, "difference", "difference_low", "difference_high"],
        "compare",
    )
    if isinstance(names, str):
        raise TypeError(
            f"names must be a pair of names, e.g. names=('A', 'B'), not one str {names!r}"
        )
    if len(names) != 2:
        raise ValueError(f"names must name the two agents, got {list(names)}")
    rows = frame[frame["metric"] == metric]
    if rows.empty:
        raise ValueError(
            f"the table has no rows for metric {metric!r}; choose one of "
            f"{sorted(frame['metric'].unique())}"
        )
    ax = axes_of(ax)
    below = _lower_axes(ax)
    label = {"pass_pow_k": POW_K, "pass_at_k": "pass@k"}.get(metric, metric)
    level = interval_label(frame)
    first, second = literal(names[0]), literal(names[1])
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    k = rows["k"].to_numpy(dtype=np.float64)
    agents: list[Artist] = []
    for index, (side, name, marker) in enumerate((("a", first, "o"), ("b", second, "s"))):
        x = k + (index - 0.5) * _PAIR_DODGE
        value = rows[f"value_{side}"].to_numpy(dtype=np.float64)
        (line,) = ax.plot(x, value, "-", marker=marker, color=colors[index], label=name)
        low, high = (
            rows[f"value_{side}_{end}"].to_numpy(dtype=np.float64) for end in ("low", "high")
        )
        ax.vlines(x, low, high, color=colors[index], lw=1.4)
        agents.append(line)
    ax.legend(
        handles=[*agents, _bar_key(_STYLE_GREY, f"{level} of each")],
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0,
    )
    ax.set_ylabel(label)
    ax.tick_params(labelbottom=False)
    below.axhline(0, color="0.3", lw=0.8)
    (difference,) = below.plot(
        k,
        rows["difference"].to_numpy(dtype=np.float64),
        "d-",
        color="0.25",
        label=f"{first} \N{MINUS SIGN} {second}",
    )
    ends = rows[["difference_low", "difference_high"]].to_numpy(dtype=np.float64)
    band: Artist
    if len(np.unique(k)) > 1:
        band = below.fill_between(
            k, ends[:, 0], ends[:, 1], color="0.5", alpha=0.3, lw=0, label=f"paired {level}"
        )
    else:  # a band of one k has no width: its interval is an error bar
        below.vlines(k, ends[:, 0], ends[:, 1], color="0.25", lw=1.4)
        band = _bar_key("0.25", f"paired {level}")
    below.legend(
        handles=[difference, band], loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0
    )
    below.set_ylabel(f"difference in {label}")
    below.set_xlabel("k")
    _whole_ks(below, k)
    return ax
