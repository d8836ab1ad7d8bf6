"""Curves against k: one agent's pass^k with its predictions, and two agents compared."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from passk_lab._labels import interval_label
from passk_lab.plots._style import POW_K, axes_of, integer_ticks, literal, require_table

__all__ = ["comparison", "decay_curve"]

P_POW_K = r"$\hat{p}^{\,k}$"


def _groups(curve: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Split a curve into its groups: the columns before ``k`` are the grouping columns."""
    by = list(curve.columns[: list(curve.columns).index("k")])
    if not by:
        return [("", curve)]
    return [
        (literal(", ".join(f"{name}={value}" for name, value in zip(by, key, strict=True))), part)
        for key, part in curve.groupby(by, sort=False, dropna=False)
    ]


def decay_curve(
    curve: pd.DataFrame,
    *,
    ax: Axes | None = None,
    log: bool = False,
    bands: bool = True,
) -> Axes:
    """Draw pass^k against k with its interval, beside pass@1 and the curves that predict it.

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
        Shade the intervals of the measured pass^k and of ``p̂^k``.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Per group, in one colour: the measured pass^k (solid, with its interval
    shaded), ``p̂^k`` = pass@1 to the power k (dashed, with the pass@1
    interval raised to the power k shaded lightly), the beta-binomial
    prediction (dotted) and pass@1 as a thin horizontal reference. Measured
    pass^k above the dashed curve means the same tasks keep passing.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), rng=0, predict_to=8)
    >>> fig, ax = plt.subplots()
    >>> ax = decay_curve(curve, ax=ax)
    >>> measured = ax.get_lines()[0]
    >>> measured.get_xdata().tolist(), measured.get_ydata().round(2).tolist()
    ([1, 2, 3, 4, 5], [0.86, 0.74, 0.62, 0.53, 0.45])
    >>> plt.close(fig)
    """
    frame = require_table(
        curve,
        ["k", "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high", "p_pow_k", "betabinom_pow_k"],
        "reliability_curve",
    )
    ax = axes_of(ax)
    groups = _groups(frame)
    level = interval_label(frame)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    handles: list[Artist] = []
    for index, (name, part) in enumerate(groups):
        color = colors[index % len(colors)]
        k = part["k"].to_numpy()
        measured = part["pass_pow_k"].notna().to_numpy()
        pass_at_1 = part.loc[part["k"] == 1, "p_pow_k"]
        (line,) = ax.plot(
            k[measured],
            part["pass_pow_k"].to_numpy()[measured],
            "o-",
            color=color,
            label=name,
        )
        handles.append(line)
        ax.plot(k, part["p_pow_k"].to_numpy(), "--", color=color)
        ax.plot(k, part["betabinom_pow_k"].to_numpy(), ":", color=color, lw=2.2)
        if len(pass_at_1):
            ax.axhline(float(pass_at_1.iloc[0]), color=color, lw=0.8, ls="-.", alpha=0.7)
        if bands:
            ax.fill_between(
                k[measured],
                part["pass_pow_k_low"].to_numpy()[measured],
                part["pass_pow_k_high"].to_numpy()[measured],
                color=color,
                alpha=0.22,
                lw=0,
            )
            if "p_pow_k_low" in part.columns:
                ax.fill_between(
                    k,
                    part["p_pow_k_low"].to_numpy(),
                    part["p_pow_k_high"].to_numpy(),
                    color=color,
                    alpha=0.08,
                    lw=0,
                )
    grey = "0.35"
    styles: list[Artist] = [
        Line2D([], [], color=grey, marker="o", label=f"measured {POW_K}"),
        Line2D([], [], color=grey, ls="--", label=f"{P_POW_K} = (pass@1)$^k$: tasks alike"),
        Line2D([], [], color=grey, ls=":", lw=2.2, label="beta-binomial: tasks differ"),
        Line2D([], [], color=grey, ls="-.", lw=0.8, label="pass@1"),
    ]
    if bands:
        styles.insert(1, Patch(color=grey, alpha=0.3, label=f"{level} of measured {POW_K}"))
        styles.insert(3, Patch(color=grey, alpha=0.12, label=f"{level} of {P_POW_K}"))
    handles = styles if len(groups) == 1 else handles + styles
    ax.legend(handles=handles, loc="lower left" if log else "upper right")
    ax.set_xlabel("k (runs that must all pass)")
    ax.set_ylabel(f"share of tasks, {POW_K}")
    integer_ticks(ax)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, 1.02)
    return ax


def comparison(
    table: pd.DataFrame,
    *,
    metric: str = "pass_pow_k",
    names: Sequence[Hashable] = ("A", "B"),
    ax: Axes | None = None,
) -> Axes:
    """Draw two agents' curves and their paired difference with its interval, against k.

    Parameters
    ----------
    table : DataFrame
        What :func:`~passk_lab.compare` returns.
    metric : {"pass_pow_k", "pass_at_k"}
        Which of its curves to draw.
    names : pair of str
        The agents' names, for the legend (``runs_a`` first).
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Both curves and the difference share one axis in probability points; the
    difference (grey, with its paired bootstrap interval shaded) sits around
    the zero line, and a band clear of zero is a difference the tasks support.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> strong = pk.simulate_coin(p=0.9, tasks=100, k=4, seed=1)
    >>> weak = pk.simulate_coin(p=0.7, tasks=100, k=4, seed=2)
    >>> table = pk.compare(strong, weak, rng=0, n_resamples=1000)
    >>> fig, ax = plt.subplots()
    >>> ax = comparison(table, names=("strong", "weak"), ax=ax)
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['strong', 'weak']
    >>> plt.close(fig)
    """
    frame = require_table(
        table,
        ["metric", "k", "value_a", "value_b", "difference", "difference_low", "difference_high"],
        "compare",
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
    label = {"pass_pow_k": POW_K, "pass_at_k": "pass@k"}.get(metric, metric)
    first, second = literal(names[0]), literal(names[1])
    k = rows["k"].to_numpy()
    ax.plot(k, rows["value_a"].to_numpy(), "o-", label=first)
    ax.plot(k, rows["value_b"].to_numpy(), "s-", label=second)
    ax.axhline(0, color="0.3", lw=0.8)
    difference = f"{first} \N{MINUS SIGN} {second}"
    ax.plot(k, rows["difference"].to_numpy(), "d-", color="0.25", label=difference)
    ax.fill_between(
        k,
        rows["difference_low"].to_numpy(),
        rows["difference_high"].to_numpy(),
        color="0.5",
        alpha=0.3,
        lw=0,
        label=f"paired {interval_label(frame)} of the difference",
    )
    integer_ticks(ax)
    ax.set_xlabel("k")
    ax.set_ylabel(label)
    ax.legend(loc="best")
    return ax
