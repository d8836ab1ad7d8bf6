"""How a number is written for a reader: the one set of rules for tables, sentences and reprs.

Every view writes numbers through these functions, so that 0.5425 reads the
same in the report, a styled table, the command line and a result's repr:

* :func:`settled` takes a float to 12 significant digits first, so float noise
  (0.54249999...) never decides a rounding;
* :func:`fixed` gives a table cell: a fixed number of decimals, an empty cell
  for NaN, ``∞`` for infinity, and no ``-0.000``;
* :func:`number` gives a value in a sentence or a summary: three significant
  digits, never an exponent past 1, never a share just short of 1 as 1;
* :func:`p_value_text` and :func:`level_text` write p-values and confidence
  levels.

The module uses the standard library alone, so every layer may use it.

Examples
--------
>>> fixed(0.5424999999999999, 3), fixed(-0.0001, 3), fixed(float("nan"), 3)
('0.542', '0.000', '')
>>> number(0.428063), p_value_text(2.8e-09), level_text(0.975)
('0.428', '2.8e-09', '97.5%')
"""

from __future__ import annotations

import math

__all__ = ["fixed", "level_text", "number", "p_value_text", "settled"]

INFINITY = "\N{INFINITY}"


def settled(value: float) -> float:
    """Return `value` to 12 significant digits: float noise gone before a number is rounded.

    0.5425 computed two ways may be stored as 0.54249999... or 0.54250000...; settled
    first, both are one number, which rounds one way in every table and sentence.

    Examples
    --------
    >>> [f"{value:.3f}" for value in (0.5424999999999999, 0.5425000000000001)]
    ['0.542', '0.543']
    >>> [f"{settled(value):.3f}" for value in (0.5424999999999999, 0.5425000000000001)]
    ['0.542', '0.542']
    """
    return float(f"{value:.12g}")


def fixed(value: float, digits: int) -> str:
    """Return a table cell: `value` to `digits` decimals, settled first.

    NaN is an empty cell, infinity ``∞`` (``-∞``), and a negative number that
    rounds to zero is written without its sign.

    Examples
    --------
    >>> [fixed(value, 2) for value in (0.125, -0.001, float("inf"), 3.0)]
    ['0.12', '0.00', '∞', '3.00']
    """
    if math.isnan(value):
        return ""
    if math.isinf(value):
        return INFINITY if value > 0 else f"-{INFINITY}"
    text = f"{settled(value):.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def number(value: float) -> str:
    """Return a number as a reader wants it: three significant digits, never an exponent past 1.

    Whole numbers print without decimals, numbers of magnitude 1 or more with
    at most three significant decimals' worth of digits (but every digit left
    of the point), smaller ones with three significant digits, or as many
    more as it takes not to read as 1: a share just short of 1 (0.9996) is
    not a certainty.

    Examples
    --------
    >>> [number(x) for x in [0.428063, 50.0, -41.42618, 0.0228708, 1e-9, 12345.6, float("inf")]]
    ['0.428', '50', '-41.4', '0.0229', '1e-09', '12346', 'inf']
    >>> [number(x) for x in [0.9996, 0.99999, -0.9996]]
    ['0.9996', '0.99999', '-0.9996']
    """
    if math.isnan(value) or math.isinf(value):
        return str(float(value))
    if value == 0:
        return "0"
    if abs(value) < 1:
        return next(
            text
            for text in (f"{value:.{places}g}" for places in range(3, 18))
            if text.lstrip("-") != "1"
        )
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def level_text(level: float) -> str:
    """Return a confidence level as a percentage with every digit it has: 0.975 as ``97.5%``.

    Examples
    --------
    >>> [level_text(level) for level in [0.95, 0.975, 0.9, 0.999]]
    ['95%', '97.5%', '90%', '99.9%']
    """
    return f"{level * 100:.6g}%"


def p_value_text(value: float) -> str:
    """Return a p-value to two significant digits, trailing zeros kept; empty for NaN.

    One rule for every table, sentence and summary: ``0.10`` stays ``0.10``
    beside ``0.098``, and a small p-value keeps its size (``2.8e-09``), with
    no cut-off such as ``<0.001``.

    Examples
    --------
    >>> [p_value_text(p) for p in [0.0425, 0.1, 0.098, 2.8e-09, 1.0, float("nan")]]
    ['0.043', '0.10', '0.098', '2.8e-09', '1.0', '']
    """
    if math.isnan(value):
        return ""
    return f"{float(f'{value:.12g}'):#.2g}"
