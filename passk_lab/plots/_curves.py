"""Two agents' curves against k, compared: each with its interval, and their paired difference."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes

from passk_lab._labels import interval_label
from passk_lab.plots._curve_axes import k_axis
from passk_lab.plots._keys import STYLE_GREY, bar_key
from passk_lab.plots._room import split_below
from passk_lab.plots._style import PALETTE, POW_K, axes_of, literal, require_table

__all__ = ["comparison"]

_PAIR_DODGE = 0.08
"""How far apart in k a comparison sets the two agents' points and error bars."""


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
    below = split_below(ax)  # both agents above, their difference below
    label = {"pass_pow_k": POW_K, "pass_at_k": "pass@k"}.get(metric, metric)
    level = interval_label(frame)
    first, second = literal(names[0]), literal(names[1])
    k = rows["k"].to_numpy(dtype=np.float64)
    agents: list[Artist] = []
    for index, (side, name, marker) in enumerate((("a", first, "o"), ("b", second, "s"))):
        x = k + (index - 0.5) * _PAIR_DODGE
        value = rows[f"value_{side}"].to_numpy(dtype=np.float64)
        (line,) = ax.plot(x, value, "-", marker=marker, color=PALETTE[index], label=name)
        low, high = (
            rows[f"value_{side}_{end}"].to_numpy(dtype=np.float64) for end in ("low", "high")
        )
        ax.vlines(x, low, high, color=PALETTE[index], lw=1.4)
        agents.append(line)
    ax.legend(
        handles=[*agents, bar_key(STYLE_GREY, f"{level} of each")],
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
        band = bar_key("0.25", f"paired {level}")
    below.legend(
        handles=[difference, band], loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0
    )
    below.set_ylabel(f"difference in {label}")
    below.set_xlabel("k")
    k_axis(below, k)
    return ax
