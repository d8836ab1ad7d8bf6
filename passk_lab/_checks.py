"""Argument checks shared by the public functions, with messages that name the fix."""

from __future__ import annotations

import numbers
import operator


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
