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

__all__ = ["find_stack_level", "warn"]

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
