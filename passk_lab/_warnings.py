"""Warnings that point at the caller's line, not into the library.

Every warning the package gives goes through :func:`warn`, which finds the
first frame outside ``passk_lab`` (as pandas' ``find_stack_level`` does), so a
warning names the notebook cell or script line that caused it however deep
in the library it was raised.
"""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Any

__all__ = ["UNSET", "find_stack_level", "renamed", "warn"]

_PACKAGE = str(Path(__file__).resolve().parent)


def find_stack_level() -> int:
    """Return the ``stacklevel`` of the first frame outside the package, for `warnings.warn`.

    The frame of this function counts as level 0 and its caller as level 1,
    as :func:`warnings.warn` counts from the function that calls it.
    """
    frame = inspect.currentframe()
    level = 0
    try:
        while frame is not None:
            name = frame.f_code.co_filename
            if not name.startswith(_PACKAGE):
                break
            frame = frame.f_back
            level += 1
    finally:
        del frame
    return level


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue `message` as a warning of `category`, attributed to the caller of the package.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("no task has 5 runs", RuntimeWarning)
    >>> caught[0].category.__name__, str(caught[0].message)
    ('RuntimeWarning', 'no task has 5 runs')
    """
    # find_stack_level counts its own frame; warnings.warn's stacklevel counts from warn's
    warnings.warn(message, category, stacklevel=find_stack_level())


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()
"""The default of a deprecated keyword: told apart from any value a caller could pass."""


def renamed(old: str, new: str, old_value: object, new_value: object) -> object:
    """Return the value of a keyword renamed from `old` to `new`, warning if `old` was used.

    The old keyword keeps working for one release, with a ``DeprecationWarning``
    that names the new one; giving both is an error.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed("runs", "runs_per_task", 5, None)
    5
    >>> str(caught[0].message)
    'runs= is now runs_per_task=; the old name goes in the next release'
    >>> renamed("runs", "runs_per_task", UNSET, 10)
    10
    """
    if old_value is UNSET:
        return new_value
    if new_value is not None:
        raise TypeError(f"give {new}= only ({old}= is its old name), not both")
    warn(f"{old}= is now {new}=; the old name goes in the next release", DeprecationWarning)
    return old_value
