"""Refusals that name the keywords whose values would fix them.

A refusal is a plain ``ValueError`` or ``TypeError``, as everywhere in
scientific Python. One whose fix is a keyword of the call (``run``, ``by``,
``predict_to``, ...) also carries those keywords, in a ``keywords``
attribute set by :func:`with_keywords`; the command line names its options for
them from that attribute (:func:`keywords_of`), never from the message's
wording.

Examples
--------
>>> error = with_keywords(ValueError("no run column; name it with run='...'"), "run")
>>> type(error).__name__, keywords_of(error), keywords_of(KeyError("x"))
('ValueError', ('run',), ())
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["keywords_of", "with_keywords"]

_E = TypeVar("_E", bound=BaseException)


def with_keywords(error: _E, *keywords: str) -> _E:
    """Return `error`, noting the keywords of the call that its message tells the caller to fix.

    Parameters
    ----------
    error : BaseException
        The refusal, its message naming the keywords (``give run='...'``).
    *keywords : str
        Those keywords, by their names in the library.

    Returns
    -------
    BaseException
        `error` itself, with ``error.keywords`` the tuple of `keywords`.
    """
    error.keywords = keywords  # type: ignore[attr-defined]  # read by keywords_of alone
    return error


def keywords_of(error: BaseException) -> tuple[str, ...]:
    """Return the keywords a refusal (or a warning) names as its fix; none for any other."""
    found = getattr(error, "keywords", ())
    return tuple(found) if isinstance(found, tuple) else ()
