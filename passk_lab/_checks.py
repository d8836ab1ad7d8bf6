"""Argument checks shared by the public functions, with messages that name the fix."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Iterable, Sequence

import numpy as np

from passk_lab._errors import with_keywords
from passk_lab._typing import Ints

__all__ = [
    "MEMORY_BUDGET",
    "as_int",
    "check_size",
    "confidence",
    "k_values",
    "positive_int",
    "probability",
]


def as_int(name: str, value: object) -> int:
    """Return `value` as an ``int`` if it is a Python or numpy integer (not a bool).

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        What the caller gave.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        If `value` is a bool, a float (even ``2.0``), a string or any other non-integer.

    Examples
    --------
    >>> as_int("seed", np.int32(7))
    7
    >>> as_int("seed", 2.0)
    Traceback (most recent call last):
    ...
    TypeError: seed must be an integer, got 2.0 of type float
    """
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got the bool {value!r}")
    try:
        return int(operator.index(value))  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{name} must be an integer, got {value!r} of type {type(value).__name__}"
        ) from None


def positive_int(name: str, value: object) -> int:
    """Return `value` as an ``int >= 1``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        What the caller gave.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        If `value` is not an integer (see :func:`as_int`).
    ValueError
        If it is below 1.

    Examples
    --------
    >>> positive_int("k", 3)
    3
    >>> positive_int("k", 0)
    Traceback (most recent call last):
    ...
    ValueError: k must be a positive integer, got 0
    """
    number = as_int(name, value)
    if number < 1:
        raise ValueError(f"{name} must be a positive integer, got {number}")
    return number


def _as_float(value: numbers.Real) -> float:
    """Return `value` as a float; an integer past every float (``10**400``) is infinity."""
    try:
        return float(value)
    except OverflowError:
        return -math.inf if value < 0 else math.inf


def probability(name: str, value: object) -> float:
    """Return `value` as a float in ``[0, 1]``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        What the caller gave: a real number (not a bool).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If `value` is not a real number.
    ValueError
        If it is outside ``[0, 1]`` or NaN.

    Examples
    --------
    >>> probability("p", 1)
    1.0
    >>> probability("p", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: p must be a probability in [0, 1], got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1], got {value!r}")
    number = _as_float(value)
    if not 0.0 <= number <= 1.0:  # NaN fails this test too
        raise ValueError(f"{name} must be a probability in [0, 1], got {number}")
    return number


def confidence(confidence_level: object) -> float:
    """Return `confidence_level` as a float in the open interval (0, 1).

    Parameters
    ----------
    confidence_level : object
        What the caller gave: a real number (not a bool).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If it is not a real number.
    ValueError
        If it is not strictly between 0 and 1 (a percentage, say).

    Examples
    --------
    >>> confidence(0.9)
    0.9
    >>> confidence(95)
    Traceback (most recent call last):
    ...
    ValueError: confidence_level must be strictly between 0 and 1 (0.95 for a 95% interval), ...
    """
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(f"confidence_level must be a number in (0, 1), got {confidence_level!r}")
    level = _as_float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ValueError(
            f"confidence_level must be strictly between 0 and 1 (0.95 for a 95% interval), "
            f"got {level}"
        )
    return level


_LARGEST_K = int(np.iinfo(np.int64).max)


def k_values(ks: Iterable[object] | None, largest: int) -> Ints:
    """Return the asked k values sorted and without repeats; 1 to `largest` for None.

    Parameters
    ----------
    ks : iterable of int, or None
        The ks a caller asked for.
    largest : int
        The most runs of any task: the last k of the default (at least 1).

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    TypeError
        If `ks` is a string or not iterable, or a k is not an integer.
    ValueError
        If `ks` is empty, or a k is below 1 or beyond a 64-bit integer.

    Examples
    --------
    >>> k_values([5, 1, 5], 10).tolist(), k_values(None, 3).tolist()
    ([1, 5], [1, 2, 3])
    """
    if ks is None:
        return np.arange(1, max(largest, 1) + 1, dtype=np.int64)
    if isinstance(ks, str) or not isinstance(ks, Iterable):
        raise TypeError(f"ks must be a sequence of positive integers, got {ks!r}")
    values = sorted({positive_int("k", k) for k in ks})
    if not values:
        raise ValueError("ks is empty; give at least one k, or None for 1 to the largest n")
    if values[-1] > _LARGEST_K:
        raise ValueError(
            f"ks holds k = {values[-1]}, which no 64-bit integer holds; no task has more than "
            f"{largest:,} runs, so ask for k up to about that"
        )
    return np.asarray(values, dtype=np.int64)


MEMORY_BUDGET = 2 * 1024**3
"""The most bytes (2 GiB) that one computation of passk_lab may hold; a larger one is refused.

A computation whose size the caller sets -- resamples x ks, cells x ks, tasks
x runs -- checks its estimate against this budget before it allocates, so a
mistyped size is a ValueError that says the size, not a MemoryError or a
machine that swaps.
"""


def check_size(
    what: str,
    shape: Sequence[int],
    bytes_each: int,
    fix: str,
    *,
    names: Sequence[str] | None = None,
    cells: str = "cells",
    keywords: Sequence[str] = (),
) -> None:
    """Refuse, before allocating, an array of `shape` that would take more than the budget.

    Parameters
    ----------
    what : str
        What would hold the array, to start the message.
    shape : sequence of int
        Its dimensions (Python integers: no overflow however large).
    bytes_each : int
        The bytes it takes per cell, everything held at once counted.
    fix : str
        What the caller can do instead, to end the message.
    names : sequence of str, optional
        The dimensions' names, one each.
    cells : str, default "cells"
        What one cell of the array is, for the message (``"runs"``).
    keywords : sequence of str
        The keywords of the call that `fix` changes.

    Returns
    -------
    None
        When the array fits the budget.

    Raises
    ------
    ValueError
        If ``prod(shape) * bytes_each`` exceeds :data:`MEMORY_BUDGET`.

    Examples
    --------
    >>> check_size("the draws", [10**8, 15], 16, "draw fewer")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: the draws would hold 100,000,000 x 15 = 1,500,000,000 cells at 16 bytes each ...
    >>> check_size("the draws", [10**6, 15], 16, "draw fewer")  # 0.2 GiB: allowed
    """
    needed = math.prod(int(size) for size in shape) * bytes_each
    if needed <= MEMORY_BUDGET:
        return
    sizes = [f"{int(size):,}" for size in shape]
    if names is not None:
        sizes = [f"{size} {name}" for size, name in zip(sizes, names, strict=True)]
    total = f" = {needed // bytes_each:,} {cells}" if len(sizes) > 1 else ""
    raise with_keywords(
        ValueError(
            f"{what} would hold {' x '.join(sizes)}{total} at {bytes_each} bytes each "
            f"({needed / 1024**3:.3g} GiB), more than the {MEMORY_BUDGET / 1024**3:g} GiB "
            f"passk_lab lets one computation hold; {fix}"
        ),
        *keywords,
    )
