"""What the JSON readers share: the name of a JSON value's kind, as a message puts it."""

from __future__ import annotations

import numpy as np

__all__ = ["json_kind"]


def json_kind(value: object) -> str:
    """Name the kind of a JSON value, as read by Python or pandas, for a message.

    Examples
    --------
    >>> for value in (None, True, 7, 1e20, "7", [7], {"id": 7}):
    ...     print(json_kind(value))
    null
    a boolean
    an integer
    a number with a fraction or an exponent
    text
    a list
    an object
    """
    if value is None:
        return "null"
    if isinstance(value, bool | np.bool_):
        return "a boolean"
    if isinstance(value, int | np.integer):
        return "an integer"
    if isinstance(value, float | np.floating):
        return "a number with a fraction or an exponent"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple | np.ndarray):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"
