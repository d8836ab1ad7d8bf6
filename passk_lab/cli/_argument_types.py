"""The types of the options' values: whole numbers, numbers in a range, lists, and ks.

Each is what argparse takes as ``type=``: it reads the text of one value and
returns it, or raises ``argparse.ArgumentTypeError`` with what the option takes
(argparse puts the option's name in front).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["k_values", "listed", "number_in", "probability", "whole_number"]


def whole_number(least: int) -> Callable[[str], int]:
    """Return the type of a whole number of at least `least`.

    Parameters
    ----------
    least : int
        The smallest number taken.

    Returns
    -------
    callable
        Reads a value's text; raises ``argparse.ArgumentTypeError`` for another.

    Examples
    --------
    >>> whole_number(1)("5")
    5
    >>> whole_number(1)("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: takes a whole number >= 1, got '0'
    """

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"takes a whole number >= {least}, got {text!r}")
        return value

    return whole


def number_in(low: float, high: float, *, low_in: bool, high_in: bool) -> Callable[[str], float]:
    """Return the type of a number from `low` to `high`.

    Parameters
    ----------
    low, high : float
        The ends of the range.
    low_in, high_in : bool
        Whether each end is in it.

    Returns
    -------
    callable
        Reads a value's text; raises ``argparse.ArgumentTypeError`` for another (NaN too).

    Examples
    --------
    >>> number_in(0, 0.5, low_in=False, high_in=True)("0.5")
    0.5
    >>> number_in(0, 0.5, low_in=False, high_in=True)("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: takes a number in (0, 0.5], got '0'
    """
    shown = f"{'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        above = value >= low if low_in else value > low
        below = value <= high if high_in else value < high
        if not (above and below):  # NaN too
            raise argparse.ArgumentTypeError(f"takes a number in {shown}, got {text!r}")
        return value

    return number


probability = number_in(0, 1, low_in=False, high_in=False)
"""The type of a probability strictly between 0 and 1: a confidence level, a pass rate."""


def listed(one: Callable[[str], Any], example: str) -> Callable[[str], list[Any]]:
    """Return the type of one value, or a comma-separated list of them.

    Parameters
    ----------
    one : callable
        The type of each value.
    example : str
        A list to show when a value is refused (``0.8,0.9``).

    Returns
    -------
    callable
        Reads the text into a list of values.

    Examples
    --------
    >>> listed(whole_number(1), "5,10")("5,10")
    [5, 10]
    >>> listed(whole_number(1), "5,10")("5,x")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: takes a whole number, got 'x' (one, or a list: 5,10)
    """

    def values(text: str) -> list[Any]:
        try:
            return [one(part) for part in text.split(",")]
        except argparse.ArgumentTypeError as error:
            raise argparse.ArgumentTypeError(f"{error} (one, or a list: {example})") from None

    return values


def k_values(text: str) -> Sequence[int]:
    """Read ``--k``: one k, a list of them or a range (kept a range: the curve sizes it).

    Parameters
    ----------
    text : str
        ``5``, ``1,2,4`` or ``1..8``.

    Returns
    -------
    sequence of int
        A list, or a ``range`` for a range.

    Raises
    ------
    argparse.ArgumentTypeError
        For anything else, a k below 1, or an empty range.

    Examples
    --------
    >>> k_values("1,2,4"), k_values("1..8")
    ([1, 2, 4], range(1, 9))
    >>> k_values("4..2")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: the range '4..2' is empty; write the smaller k first: 2..4
    """
    try:
        if ".." in text:
            first, last = (int(part) for part in text.split(".."))
            values: Sequence[int] = range(first, last + 1)
            smallest = min(first, last)
        else:
            values = [int(part) for part in text.split(",")]
            smallest = min(values)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"takes a number, a list (1,2,4) or a range (1..8), got {text!r}"
        ) from None
    if smallest < 1:
        raise argparse.ArgumentTypeError(f"needs k >= 1, got {text!r}")
    if not values:  # only a range can be empty: its first k above its last
        raise argparse.ArgumentTypeError(
            f"the range {text!r} is empty; write the smaller k first: {last}..{first}"
        )
    return values
