"""From a file's rewards to pass/fail verdicts, refusing rewards the rule cannot judge."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from passk_lab._data.verdicts import REWARD_TOLERANCE, passed_from_reward
from passk_lab._errors import with_keywords
from passk_lab._typing import Bools

__all__ = ["decide"]


def decide(
    reward: npt.ArrayLike,
    threshold: float | None,
    where: Callable[[int], str],
    field: str = "reward",
) -> Bools:
    """Return ``reward >= threshold - 1e-6`` for each run, after checking every reward.

    Parameters
    ----------
    reward : array_like of float
        One reward per run, as read from a file; NaN where the file has none.
    threshold : float or None
        The reward a run needs to pass. None applies the default rule, a pass
        when the reward is 1 (up to 1e-6, as tau-bench decides), which only
        makes sense for rewards in [0, 1]: any other reward is refused.
    where : callable
        Maps a row position to the words that locate it in the file, such as
        ``"runs.csv, row 3"``; used in the messages.
    field : str
        The name of the reward in the file, for the messages.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        If a reward is missing, or lies outside [0, 1] under the default rule;
        the message names the file, the row and the field.

    Examples
    --------
    >>> decide([1.0, 0.4, 0.9999999], None, "row {}".format).tolist()
    [True, False, True]
    >>> decide([7.0, 9.5], 8.0, "row {}".format).tolist()
    [False, True]
    >>> decide([0.0, 2.0], None, "runs.csv, row {}".format)
    Traceback (most recent call last):
    ...
    ValueError: runs.csv, row 1: reward is 2.0, outside [0, 1] ...
    """
    values = np.asarray(reward, dtype=np.float64)
    missing = np.isnan(values)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{where(row)}: {field} is missing ({int(missing.sum())} run(s) have none); "
            f"a missing reward is neither a pass nor a fail: fill or drop those runs deliberately"
        )
    if threshold is None:
        outside = (values < -REWARD_TOLERANCE) | (values > 1.0 + REWARD_TOLERANCE)
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise with_keywords(
                ValueError(
                    f"{where(row)}: {field} is {float(values[row])!r}, outside [0, 1] "
                    f"({int(outside.sum())} run(s) are); the default rule (a pass when the reward "
                    f"is 1) needs rewards in [0, 1]: give threshold= for rewards on another scale"
                ),
                "threshold",
            )
        threshold = 1.0
    return passed_from_reward(values, threshold)
