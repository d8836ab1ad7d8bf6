"""Result tables as text for reports."""

from __future__ import annotations

import pandas as pd

__all__ = ["to_markdown"]


def _cell(value: object, digits: int) -> str:
    if isinstance(value, float):
        return "" if value != value else f"{value:.{digits}f}"  # NaN prints as an empty cell
    return str(value).replace("|", "\\|")


def to_markdown(frame: pd.DataFrame, *, digits: int = 4) -> str:
    """Render a DataFrame as a GitHub-flavoured Markdown table, without the index.

    Parameters
    ----------
    frame : DataFrame
        The table; its columns become the header.
    digits : int
        Decimals for floating-point cells; missing values print as empty cells.

    Returns
    -------
    str
        The table, one line per row, numbers right-aligned.

    Examples
    --------
    >>> import pandas as pd
    >>> print(to_markdown(pd.DataFrame({"k": [1, 2], "pass_pow_k": [0.86, 0.735]}), digits=3))
    | k | pass_pow_k |
    |--:|-----------:|
    | 1 |      0.860 |
    | 2 |      0.735 |
    """
    header = [str(name) for name in frame.columns]
    rows = [[_cell(value, digits) for value in row] for row in frame.itertuples(index=False)]
    numeric = [pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes]
    widths = [max([len(name)] + [len(row[j]) for row in rows]) for j, name in enumerate(header)]

    def line(cells: list[str]) -> str:
        padded = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, numeric, strict=True)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = [
        "-" * (width + 1) + ":" if right else "-" * (width + 2)
        for width, right in zip(widths, numeric, strict=True)
    ]
    return "\n".join([line(header), "|" + "|".join(rule) + "|", *map(line, rows)])
