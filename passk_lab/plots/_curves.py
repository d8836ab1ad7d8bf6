"""Pictures of reliability: decay curves, outcomes, success counts, sweeps and comparisons.

Every function draws a table that a statistics function returned on a
matplotlib Axes -- the one given, or the current one -- and returns it. None
shows or saves a figure, and importing this module changes no setting: the
shipped style applies only inside ``with style():``.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> import passk_lab as pk
>>> curve = pk.reliability_curve(pk.simulate_coin(seed=42), rng=0, predict_to=10)
>>> with style():
...     fig, ax = plt.subplots()
...     ax = decay_curve(curve, ax=ax)
>>> ax.get_xlabel()
'k (runs that must all pass)'
>>> plt.close(fig)
"""

from __future__ import annotations

import contextlib
from collections.abc import Hashable, Iterator, Sequence
from importlib import resources

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from passk_lab._labels import interval_label
from passk_lab.outcomes import outcome_matrix

__all__ = [
    "comparison",
    "decay_curve",
    "measured_vs_analytic",
    "outcome_heatmap",
    "style",
    "success_histogram",
    "sweep_heatmap",
    "sweep_lines",
]

POW_K = "pass$^k$"
P_POW_K = r"$\hat{p}^{\,k}$"
_SWEEP_LABELS = {  # axis labels of the sweep columns
    "p_pow_k": "$p^k$",
    "pass_pow_k": f"mean measured {POW_K}",
    "pass_at_1": "mean measured pass@1",
}


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Apply passk_lab's matplotlib style inside a ``with`` block.

    A colour-blind-safe palette (Okabe-Ito), light grid, no top or right
    spine, and sizes that read well in a notebook and in print (SVG keeps
    text as text). Figures made inside the block keep the style when drawn
    later.

    Yields
    ------
    None

    Examples
    --------
    >>> import matplotlib
    >>> with style():
    ...     matplotlib.rcParams["axes.spines.top"]
    False
    >>> matplotlib.rcParams["axes.spines.top"]
    True
    """
    with resources.as_file(resources.files("passk_lab") / "styles" / "passk.mplstyle") as path:
        with plt.style.context(str(path)):
            try:
                yield
            finally:
                # a backend first loaded inside the block (Jupyter's inline one) turns on
                # interactive mode; keep it, or later figures stop showing
                interactive = matplotlib.is_interactive()
        matplotlib.interactive(interactive)


def _axes(ax: Axes | None) -> Axes:
    return plt.gca() if ax is None else ax


def _require(frame: object, columns: Sequence[str], made_by: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"expected a DataFrame from {made_by}, got {type(frame).__name__}")
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise ValueError(
            f"the table has no column {', '.join(map(repr, missing))}; pass the DataFrame that "
            f"{made_by} returns"
        )
    if frame.empty:
        raise ValueError(f"the table is empty; pass the DataFrame that {made_by} returns")
    return frame


def _groups(curve: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Split a curve into its groups: the columns before ``k`` are the grouping columns."""
    by = list(curve.columns[: list(curve.columns).index("k")])
    if not by:
        return [("", curve)]
    return [
        (", ".join(f"{name}={value}" for name, value in zip(by, key, strict=True)), part)
        for key, part in curve.groupby(by, sort=False, dropna=False)
    ]


def _integer_ticks(ax: Axes) -> None:
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


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
    frame = _require(
        curve,
        ["k", "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high", "p_pow_k", "betabinom_pow_k"],
        "reliability_curve",
    )
    ax = _axes(ax)
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
    _integer_ticks(ax)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, 1.02)
    return ax


_STATES = {  # code: (label, colour); the heatmap's categories in legend order
    4: ("passed", "#0072B2"),
    1: ("failed", "#F5C6A5"),
    2: ("errored", "#D55E00"),
    3: ("timed out", "#7A3E9D"),
    0: ("no run", "#FFFFFF"),
}
_CODES = {name: code for code, (name, _) in _STATES.items()}


def _state_codes(states: pd.DataFrame) -> np.ndarray:
    """Codes of every (task, run) cell of ``outcome_matrix(..., states=True)``; see ``_STATES``."""
    codes = np.zeros(states.shape, dtype=np.int64)  # "no run" where a task has no such run
    for column, (_, values) in enumerate(states.items()):
        for position, state in enumerate(values.cat.categories):
            codes[(values.cat.codes == position).to_numpy(), column] = _CODES[state]
    return codes


def outcome_heatmap(
    runs: pd.DataFrame,
    *,
    ax: Axes | None = None,
    threshold: float = 1.0,
    task_labels: bool | None = None,
) -> Axes:
    """Draw every run as a cell, tasks down (most reliable first) and runs across.

    Parameters
    ----------
    runs : DataFrame
        One agent's runs table (filter a grouped table to one group first);
        ``error`` and ``timed_out`` columns, when present, mark those runs.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.
    threshold : float
        The reward a run needs to pass, when the table has ``reward``.
    task_labels : bool, optional
        Label the rows with task ids; by default when there are at most 60.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Tasks are sorted by their number of passes, most first (ties keep their
    order). A failed run is pale; an errored run is vermilion and a timed-out
    one purple, both counted as failures as everywhere else, so that a run
    lost to infrastructure is not mistaken for the agent's mistake. A cell
    with no run is white.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> fig, ax = plt.subplots()
    >>> ax = outcome_heatmap(pk.simulate_coin(seed=42), ax=ax)
    >>> ax.images[0].get_array().shape  # 40 tasks x 5 runs
    (40, 5)
    >>> plt.close(fig)
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a DataFrame, got {type(runs).__name__}")
    matrix = outcome_matrix(runs, threshold=threshold, states=True)
    codes = _state_codes(matrix)
    order = np.argsort(-(codes == 4).sum(axis=1), kind="stable")
    codes = codes[order]
    ax = _axes(ax)
    colors = ListedColormap([_STATES[code][1] for code in range(5)])
    ax.imshow(
        codes,
        cmap=colors,
        norm=BoundaryNorm(np.arange(-0.5, 5.5), 5),
        aspect="auto",
        interpolation="nearest",
    )
    ax.grid(False)
    ax.set_xticks(range(len(matrix.columns)), [str(run) for run in matrix.columns])
    if task_labels if task_labels is not None else len(matrix) <= 60:
        ax.set_yticks(range(len(matrix)), [str(task) for task in matrix.index[order]])
        ax.tick_params(axis="y", labelsize=6 if len(matrix) > 25 else 8)
    else:
        ax.set_yticks([])
    ax.set_xlabel("run")
    ax.set_ylabel(f"task ({len(matrix)}, most passes first)")
    present = set(np.unique(codes).tolist()) | {1, 4}
    ax.legend(
        handles=[
            Patch(facecolor=color, edgecolor="0.6", label=name)
            for code, (name, color) in _STATES.items()
            if code in present
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
    )
    return ax


def success_histogram(counts: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Draw how many tasks passed 0, 1, ..., n of their runs, against the models' expectations.

    Parameters
    ----------
    counts : DataFrame
        What :func:`~passk_lab.success_counts` returns.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Bars are the tasks observed; circles the binomial expectation at the
    pooled pass rate (every task alike), squares the beta-binomial fit (tasks
    differ). Bars taller than the circles at both ends mean heterogeneity:
    some tasks nearly always pass and some nearly never do.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> import passk_lab as pk
    >>> counts = pd.DataFrame({"task": range(6), "n": 4, "c": [0, 0, 1, 3, 4, 4]})
    >>> fig, ax = plt.subplots()
    >>> ax = success_histogram(pk.success_counts(counts), ax=ax)
    >>> [int(bar.get_height()) for bar in ax.patches]
    [2, 1, 0, 1, 2]
    >>> plt.close(fig)
    """
    frame = _require(counts, ["successes", "n_tasks", "binomial", "betabinom"], "success_counts")
    ax = _axes(ax)
    successes = frame["successes"].to_numpy()
    ax.bar(successes, frame["n_tasks"].to_numpy(), width=0.7, color="0.75", label="tasks observed")
    p_hat = frame.attrs.get("binomial_mean")
    icc = frame.attrs.get("icc")
    binomial = "binomial, every task alike" + (
        f" ($\\hat{{p}}$ = {p_hat:.3f})" if isinstance(p_hat, float) else ""
    )
    betabinom = "beta-binomial fit" + (
        f" ($\\hat{{\\rho}}$ = {icc:.2f})" if isinstance(icc, float) and icc == icc else ""
    )
    ax.plot(successes, frame["binomial"].to_numpy(), "o--", label=binomial)
    ax.plot(successes, frame["betabinom"].to_numpy(), "s:", lw=2.2, label=betabinom)
    ax.set_xticks(successes)
    ax.set_xlabel(f"runs passed (of {int(successes.max())})")
    ax.set_ylabel("tasks")
    tallest = float(frame[["n_tasks", "binomial", "betabinom"]].max().max())
    ax.set_ylim(0, 1.4 * tallest)  # room for the legend above the bars
    ax.legend(loc="upper center", ncols=2)
    return ax


def _grid(sweep: pd.DataFrame, value: str) -> pd.DataFrame:
    frame = _require(sweep, ["p", "k", value], "simulate_sweep")
    return frame.pivot_table(index="p", columns="k", values=value, aggfunc="mean")


def sweep_heatmap(
    sweep: pd.DataFrame,
    *,
    value: str = "p_pow_k",
    levels: Sequence[float] = (0.5, 0.9, 0.99),
    ax: Axes | None = None,
) -> Axes:
    """Draw a value over the grid of p (up) and k (across), with contours at `levels`.

    Parameters
    ----------
    sweep : DataFrame
        What :func:`~passk_lab.simulate_sweep` returns, or any table with
        ``p``, ``k`` and `value` columns; repeated cells are averaged.
    value : str
        The column to draw: ``"p_pow_k"`` (the truth) or ``"pass_pow_k"``
        (the mean measured).
    levels : sequence of float
        Contour lines, labelled: the p a target pass^k demands at each k.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.8, 0.9, 0.99], range(1, 11), evaluations=10, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = sweep_heatmap(sweep, ax=ax)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('k (runs per task)', 'p (chance a run passes)')
    >>> plt.close(fig)
    """
    grid = _grid(sweep, value)
    ax = _axes(ax)
    ks, ps = grid.columns.to_numpy(), grid.index.to_numpy()
    mesh = ax.pcolormesh(ks, ps, grid.to_numpy(), vmin=0, vmax=1, shading="nearest")
    ax.figure.colorbar(mesh, ax=ax, label=_SWEEP_LABELS.get(value, value))
    if len(ks) > 1 and len(ps) > 1 and levels:
        lines = ax.contour(ks, ps, grid.to_numpy(), levels=sorted(levels), colors="white")
        ax.clabel(lines, fmt="%.2g", fontsize=8)
    ax.grid(False)
    _integer_ticks(ax)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel("p (chance a run passes)")
    return ax


def sweep_lines(
    sweep: pd.DataFrame,
    *,
    value: str = "p_pow_k",
    ps: Sequence[float] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Draw a value against k, one line per p.

    Parameters
    ----------
    sweep : DataFrame
        What :func:`~passk_lab.simulate_sweep` returns, or any table with
        ``p``, ``k`` and `value` columns; repeated cells are averaged.
    value : str
        The column to draw.
    ps : sequence of float, optional
        The p values to draw; by default every one (a colour bar replaces the
        legend past eight).
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.8, 0.9, 0.99], range(1, 11), evaluations=10, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = sweep_lines(sweep, ax=ax)
    >>> [line.get_label() for line in ax.get_lines()]
    ['p = 0.8', 'p = 0.9', 'p = 0.99']
    >>> plt.close(fig)
    """
    grid = _grid(sweep, value)
    if ps is not None:
        unknown = [p for p in ps if p not in grid.index]
        if unknown:
            raise ValueError(f"p = {unknown} is not in the sweep; choose from {list(grid.index)}")
        grid = grid.loc[list(ps)]
    ax = _axes(ax)
    shades = ListedColormap(plt.get_cmap("viridis")(np.linspace(0, 0.85, 256)))  # no pale yellow
    norm = Normalize(float(grid.index.min()), float(grid.index.max()))
    for p in grid.index:
        row = grid.loc[p]
        ax.plot(row.index, row.to_numpy(), "-", color=shades(norm(float(p))), label=f"p = {p:g}")
    if len(grid) <= 8:
        ax.legend(loc="upper right")
    else:
        ax.figure.colorbar(
            ScalarMappable(norm=norm, cmap=shades), ax=ax, label="p (chance a run passes)"
        )
    _integer_ticks(ax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k (runs per task)")
    ax.set_ylabel(_SWEEP_LABELS.get(value, value))
    return ax


def measured_vs_analytic(
    sweep: pd.DataFrame, *, coverage: float = 0.95, ax: Axes | None = None
) -> Axes:
    """Draw the measured pass^k of simulated evaluations against the true ``p^k``.

    Parameters
    ----------
    sweep : DataFrame
        What :func:`~passk_lab.simulate_sweep` returns.
    coverage : float
        The share of evaluations each vertical bar spans (central quantiles).
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    One point per (p, k): the mean measured pass^k, and a bar over the
    middle `coverage` of the evaluations (which need not contain the mean
    when passing all k runs is rare). Points on the diagonal mean the
    measure is unbiased; the bars show how far one evaluation can land.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import passk_lab as pk
    >>> sweep = pk.simulate_sweep([0.7, 0.9], [1, 5, 10], evaluations=200, rng=0)
    >>> fig, ax = plt.subplots()
    >>> ax = measured_vs_analytic(sweep, ax=ax)
    >>> len(ax.get_lines()[1].get_xdata())  # one point per (p, k)
    6
    >>> plt.close(fig)
    """
    frame = _require(sweep, ["p", "k", "p_pow_k", "pass_pow_k"], "simulate_sweep")
    if not 0 < coverage < 1:
        raise ValueError(f"coverage must lie in (0, 1), got {coverage}")
    tail = (1 - coverage) / 2
    cells = frame.groupby(["p", "k"])
    truth = cells["p_pow_k"].first().to_numpy()
    mean = cells["pass_pow_k"].mean().to_numpy()
    low = cells["pass_pow_k"].quantile(tail).to_numpy()
    high = cells["pass_pow_k"].quantile(1 - tail).to_numpy()
    evaluations = int(cells.size().min())
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.5", lw=1, label="measured = true")
    # a range, not error bars around the mean: with rare passes the mean can lie above it
    (points,) = ax.plot(truth, mean, "o", ms=3, label=f"mean of {evaluations} evaluations")
    ax.vlines(
        truth,
        low,
        high,
        color=points.get_color(),
        lw=0.8,
        alpha=0.8,
        label=f"middle {coverage:.0%} of them",
    )
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel("true $p^k$")
    ax.set_ylabel("measured pass$^k$")
    ax.legend(loc="lower right")
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
    frame = _require(
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
    ax = _axes(ax)
    label = {"pass_pow_k": POW_K, "pass_at_k": "pass@k"}.get(metric, metric)
    first, second = str(names[0]), str(names[1])
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
    _integer_ticks(ax)
    ax.set_xlabel("k")
    ax.set_ylabel(label)
    ax.legend(loc="best")
    return ax
