"""Argument checks shared by the public functions, with messages that name the fix."""

from __future__ import annotations

import numbers
import operator
from collections.abc import Iterable

import numpy as np

from passk_lab._typing import Ints

__all__ = ["as_int", "confidence", "k_values", "positive_int", "probability"]


def as_int(name: str, value: object) -> int:
    """Return `value` as an ``int`` if it is a Python or numpy integer (not a bool).

    Raises
    ------
    TypeError
        If `value` is a bool, a float (even ``2.0``), a string or any other non-integer.
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
    """Return `value` as an ``int >= 1``; a `TypeError` or `ValueError` otherwise."""
    number = as_int(name, value)
    if number < 1:
        raise ValueError(f"{name} must be a positive integer, got {number}")
    return number


def probability(name: str, value: object) -> float:
    """Return `value` as a float in ``[0, 1]``; a `TypeError` or `ValueError` otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1], got {value!r}")
    number = float(value)
    if not 0.0 <= number <= 1.0:  # NaN fails this test too
        raise ValueError(f"{name} must be a probability in [0, 1], got {number}")
    return number


def confidence(confidence_level: object) -> float:
    """Return `confidence_level` as a float in the open interval (0, 1), or raise."""
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, numbers.Real):
        raise TypeError(f"confidence_level must be a number in (0, 1), got {confidence_level!r}")
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ValueError(
            f"confidence_level must be strictly between 0 and 1 (0.95 for a 95% interval), "
            f"got {level}"
        )
    return level


def k_values(ks: Iterable[object] | None, largest: int) -> Ints:
    """Return the asked k values sorted and without repeats; 1 to `largest` for None."""
    if ks is None:
        return np.arange(1, max(largest, 1) + 1, dtype=np.int64)
    if isinstance(ks, str) or not isinstance(ks, Iterable):
        raise TypeError(f"ks must be a sequence of positive integers, got {ks!r}")
    values = sorted({positive_int("k", k) for k in ks})
    if not values:
        raise ValueError("ks is empty; give at least one k, or None for 1 to the largest n")
    return np.asarray(values, dtype=np.int64)
