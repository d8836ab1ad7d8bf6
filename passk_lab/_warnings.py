"""The warnings passk_lab gives: typed, carrying their data, pointing at the caller's line.

Every warning is an instance of a :class:`PasskWarning` subclass that says
what kind of thing happened and holds its figures as attributes, so that a
view (the report, the command line) or a user's filter decides by class and
fields, never by the wording of a message. Each also carries ``keywords``:
the keywords of the call whose values would change what it says, so that the
command line can name its options for them.

Every warning goes through :func:`warn`, which finds the first frame outside
``passk_lab`` (as pandas' ``find_stack_level`` does), so a warning names the
notebook cell or script line that caused it however deep in the library it
was raised. The keyword conventions' deprecations (a renamed keyword, a
positional ``by``) live here too.

Examples
--------
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn(FitRejectedWarning("the fit is rejected", p_value=0.001, most_runs=5))
>>> found = caught[0].message
>>> isinstance(found, RuntimeWarning), found.p_value, found.most_runs
(True, 0.001, 5)
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "UNSET",
    "ConflictingVerdictWarning",
    "EmptySequenceWarning",
    "EvaluationWarning",
    "FewRunsWarning",
    "FewTasksWarning",
    "FitRejectedWarning",
    "NoEstimateWarning",
    "NoSeparationWarning",
    "NoVariationWarning",
    "PasskDeprecationWarning",
    "PasskWarning",
    "ReadWarning",
    "ResolutionWarning",
    "TasksLeftOutWarning",
    "UnequalRunsWarning",
    "UnmatchedTasksWarning",
    "by_keyword",
    "find_stack_level",
    "renamed",
    "warn",
]

_PACKAGE = str(Path(__file__).resolve().parent)


class PasskWarning(UserWarning):
    """The base of every warning passk_lab gives.

    Parameters
    ----------
    message : str
        What happened and what to do about it.
    keywords : iterable of str
        The keywords of the call whose values would change what the warning
        says (``errors``, ``n_resamples``, ...): the command line names its
        options for them.
    """

    def __init__(self, message: str, *, keywords: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.keywords: tuple[str, ...] = tuple(keywords)


class PasskDeprecationWarning(PasskWarning, DeprecationWarning):
    """A name or a way of calling of the last release that goes in the next one."""


class NoEstimateWarning(PasskWarning, RuntimeWarning):
    """No estimate at some ks: no task has that many runs, so the values there are NaN.

    Attributes ``ks`` (the ks without an estimate) and ``most_runs`` (the most
    runs a task has, where the first of them was found).
    """

    def __init__(self, message: str, *, ks: Sequence[int], most_runs: int) -> None:
        super().__init__(message, keywords=("ks",))
        self.ks = tuple(int(k) for k in ks)
        self.most_runs = int(most_runs)


class FewTasksWarning(PasskWarning, RuntimeWarning):
    """An interval (or a variance) is NaN: too few tasks to say anything about the next one.

    Attributes ``ks`` (where it happened; empty when it does not depend on k)
    and ``tasks`` (the tasks there were).
    """

    def __init__(self, message: str, *, ks: Sequence[int] = (), tasks: int) -> None:
        super().__init__(message)
        self.ks = tuple(int(k) for k in ks)
        self.tasks = int(tasks)


class FewRunsWarning(PasskWarning, RuntimeWarning):
    """A statistic needs more runs of each task than the tasks have: it is NaN.

    Attribute ``needed``: the runs per task it needs.
    """

    def __init__(self, message: str, *, needed: int) -> None:
        super().__init__(message)
        self.needed = int(needed)


class NoVariationWarning(PasskWarning, RuntimeWarning):
    """Every run has the same outcome, so a share of variance is undefined (NaN)."""


class TasksLeftOutWarning(PasskWarning, RuntimeWarning):
    """A k counts fewer tasks than the first k: the tasks with fewer than k runs are left out.

    Attributes ``k``, ``counted`` (the tasks counted at `k`), ``first``
    (those counted at the first k) and ``left_out`` (the difference).
    """

    def __init__(
        self, message: str, *, k: int, counted: int, first: int, keywords: Iterable[str] = ()
    ) -> None:
        super().__init__(message, keywords=keywords)
        self.k = int(k)
        self.counted = int(counted)
        self.first = int(first)
        self.left_out = self.first - self.counted


class UnmatchedTasksWarning(PasskWarning):
    """Tasks that not every agent ran were dropped, and the rest compared.

    Attributes ``kept`` (the tasks compared) and ``dropped`` (the ids of
    those dropped).
    """

    def __init__(self, message: str, *, kept: int, dropped: Sequence[Hashable]) -> None:
        super().__init__(message, keywords=("unmatched",))
        self.kept = int(kept)
        self.dropped = tuple(dropped)


class UnequalRunsWarning(PasskWarning, RuntimeWarning):
    """Agents have different runs on some shared tasks: their paired tests are approximate.

    Attributes ``tasks`` (the shared tasks with unequal runs) and ``shared``
    (all the shared tasks).
    """

    def __init__(self, message: str, *, tasks: int, shared: int) -> None:
        super().__init__(message)
        self.tasks = int(tasks)
        self.shared = int(shared)


class ResolutionWarning(PasskWarning, RuntimeWarning):
    """Monte Carlo tests cannot show a p-value as small as the adjusted threshold needs.

    Attributes ``tests`` (how many tests are Monte Carlo ones) and ``needed``
    (the resamples that would let them reach it).
    """

    def __init__(self, message: str, *, tests: int, needed: int) -> None:
        super().__init__(message, keywords=("n_resamples",))
        self.tests = int(tests)
        self.needed = int(needed)


class NoSeparationWarning(PasskWarning, RuntimeWarning):
    """Too few tasks for any two agents to be told apart at the level, whatever their runs.

    Attributes ``smallest_p`` (the smallest adjusted p-value any pair can
    reach on those tasks), ``level`` (the tests' level, ``1 -
    confidence_level``), ``tasks`` (the most tasks a pair is counted on
    there), ``needed`` (the fewest tasks on which a pair could be told apart),
    ``pairs`` (the pairs of agents) and ``ks`` (the ks where it holds).
    """

    def __init__(
        self,
        message: str,
        *,
        smallest_p: float,
        level: float,
        tasks: int,
        needed: int,
        pairs: int,
        ks: Sequence[int],
        keywords: Iterable[str] = ("confidence_level",),
    ) -> None:
        super().__init__(message, keywords=keywords)
        self.smallest_p = float(smallest_p)
        self.level = float(level)
        self.tasks = int(tasks)
        self.needed = int(needed)
        self.pairs = int(pairs)
        self.ks = tuple(int(k) for k in ks)


class FitRejectedWarning(PasskWarning, RuntimeWarning):
    """The beta-binomial model fits the runs badly: its predictions past them are not trusted.

    Attributes ``p_value`` (of the goodness-of-fit test) and ``most_runs``
    (the most runs observed: predictions start past it).
    """

    def __init__(self, message: str, *, p_value: float, most_runs: int) -> None:
        super().__init__(message)
        self.p_value = float(p_value)
        self.most_runs = int(most_runs)


class EmptySequenceWarning(PasskWarning, RuntimeWarning):
    """A confidence sequence became empty: every mean was excluded by some prefix.

    Attribute ``position``: where it is empty from, as the message indexes the values
    (``"7"``, or ``"2, 7"`` for a row and a position).
    """

    def __init__(self, message: str, *, position: str) -> None:
        super().__init__(message)
        self.position = position


class ConflictingVerdictWarning(PasskWarning):
    """Runs are marked passed but also errored or timed out: they count as failed runs.

    Attribute ``runs``: how many.
    """

    def __init__(self, message: str, *, runs: int) -> None:
        super().__init__(message, keywords=("errors",))
        self.runs = int(runs)


class ReadWarning(PasskWarning):
    """A file was read, with something in it to know: a cut-short line, a run without a score.

    Attribute ``path``: the file (or folder) read, as text.
    """

    def __init__(self, message: str, *, path: object, keywords: Iterable[str] = ()) -> None:
        super().__init__(message, keywords=keywords)
        self.path = str(path)


class EvaluationWarning(PasskWarning, RuntimeWarning):
    """An evaluation ran, with something in it to know: a blocked event loop, a bad cost."""


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


def warn(warning: Warning) -> None:
    """Issue `warning`, attributed to the caller of the package.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn(FewRunsWarning("no task has 2 runs", needed=2))
    >>> caught[0].category.__name__, str(caught[0].message), caught[0].message.needed
    ('FewRunsWarning', 'no task has 2 runs', 2)
    """
    # find_stack_level counts its own frame; warnings.warn's stacklevel counts from warn's
    warnings.warn(warning, stacklevel=find_stack_level())


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
    warn(
        PasskDeprecationWarning(
            f"{old}= is now {new}=; the old name goes in the next release", keywords=(new,)
        )
    )
    return old_value


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _names_columns(value: object) -> bool:
    """Tell whether `value` reads as ``by``: a column name, or a list of them (not of ks)."""
    if isinstance(value, str):
        return True
    if isinstance(value, list | tuple) and value:
        return all(isinstance(item, str) for item in value)
    return False


def by_keyword(position: int) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Keep a positional ``by`` of the last release working, with a DeprecationWarning.

    ``by`` is keyword-only everywhere. A function that took it positionally
    at `position` (counted from 0, the data first) is decorated so that such a
    call still works for one release: an argument at `position` is taken as
    ``by`` when no positional parameter is left there, or when it names
    columns (a string, or a list of strings: never a k),
    with a warning that says to write ``by=``; the positional arguments after
    it move up one place, so that the last release's ``leaderboard(runs,
    "model", [3])`` is today's ``leaderboard(runs, [3], by="model")``.

    Examples
    --------
    >>> import warnings
    >>> @by_keyword(1)
    ... def grouped(runs, ks=None, *, by=None):
    ...     return ks, by
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     grouped("runs", "model", [3])
    ([3], 'model')
    >>> str(caught[0].message)
    "by is keyword-only: write grouped(..., by='model'); a positional by goes in the next release"
    >>> grouped("runs", [3], by="model")
    ([3], 'model')
    """

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        positional = sum(
            parameter.kind in kinds for parameter in inspect.signature(function).parameters.values()
        )

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> _R:
            # past the positional parameters an argument can only be by; among them, one that
            # names columns is by (a k never does)
            if len(args) > position and (position >= positional or _names_columns(args[position])):
                if "by" in kwargs:
                    raise TypeError(f"{function.__name__}() got by twice: give it as by= only")
                by = args[position]
                warn(
                    PasskDeprecationWarning(
                        f"by is keyword-only: write {function.__name__}(..., by={by!r}); a "
                        "positional by goes in the next release",
                        keywords=("by",),
                    )
                )
                args = (*args[:position], *args[position + 1 :])
                kwargs["by"] = by
            return function(*args, **kwargs)

        return wrapper

    return decorate
