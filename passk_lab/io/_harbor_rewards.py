"""Harbor's rewards and error kinds: the reward a trial is judged by, and whose failure an error is.

docs/reading.md ("Harbor job folders") gives the pass rule and the error rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from passk_lab._choices import ERROR_KINDS
from passk_lab._errors import with_keywords
from passk_lab.io._records import number, refusal

__all__ = ["HARBOR_ERROR_KINDS", "error_kinds", "reward_field", "trial_reward"]

_TIMEOUT = (
    "AgentTimeoutError",
    "AgentSetupTimeoutError",
    "EnvironmentStartTimeoutError",
    "VerifierTimeoutError",
    "TimeoutError",
)
_INFRASTRUCTURE = (
    "CancelledError",
    "SandboxBuildFailedError",
    "HealthcheckError",
    "RewardFileNotFoundError",
    "RewardFileEmptyError",
    "VerifierOutputParseError",
    "AddTestsDirError",
    "DownloadVerifierDirError",
    "ApiRateLimitError",
    "ApiUsageLimitError",
    "ApiInternalServerError",
    "ApiOverloadedError",
    "ApiConnectionClosedError",
    "ApiResponseStalledError",
    "ApiProviderResourceNotFoundError",
    "AgentAuthenticationError",
    "ModelNotFoundError",
    "NetworkConnectionError",
)
_AGENT = (
    "NonZeroAgentExitCodeError",
    "ContextLengthExceededError",
    "OutputLengthExceededError",
    "ContextWindowExceededError",
    "OutputTokenExceededError",
    "AgentSafetyRefusalError",
)

HARBOR_ERROR_KINDS: dict[str, str] = {
    **dict.fromkeys(_TIMEOUT, "timeout"),
    **dict.fromkeys(_INFRASTRUCTURE, "infrastructure"),
    **dict.fromkeys(_AGENT, "agent"),
}
"""The error kind of each Harbor exception type :func:`read_harbor` knows; others have none."""


def error_kinds(errors: Sequence[str | None], types: Sequence[str | None]) -> pd.Categorical:
    """Return each trial's error kind: from its exception type when an exception left it unjudged.

    Examples
    --------
    >>> error_kinds([None, "AgentTimeoutError: ..."], ["AgentTimeoutError"] * 2).tolist()
    [nan, 'timeout']
    """
    kinds = [
        None if error is None or kind is None else HARBOR_ERROR_KINDS.get(kind)
        for error, kind in zip(errors, types, strict=True)
    ]
    return pd.Categorical(kinds, categories=ERROR_KINDS)


def reward_field(reward: str | None) -> str:
    """Return the path, in a trial's result, of the reward named `reward` (for the messages).

    Examples
    --------
    >>> reward_field(None), reward_field("tests")
    ('verifier_result.rewards.reward', 'verifier_result.rewards.tests')
    """
    return f"verifier_result.rewards.{reward or 'reward'}"


def trial_reward(rewards: object, reward: str | None, where: str) -> float:
    """Return the reward a trial is judged by, from its ``verifier_result.rewards``.

    Parameters
    ----------
    rewards : object
        The trial's rewards: an object of named numbers.
    reward : str or None
        The name of the reward to judge; by default the one reward when there
        is one (whatever its name), ``"reward"`` when there are several.
    where : str
        The file and the trial, for the messages.

    Raises
    ------
    ValueError
        If the rewards are not a non-empty object, lack the reward, or it is
        not a finite number.

    Examples
    --------
    >>> trial_reward({"tests": 0.5}, None, "result.json")
    0.5
    >>> trial_reward({"reward": True}, None, "result.json")
    Traceback (most recent call last):
    ...
    ValueError: result.json: verifier_result.rewards.reward is True, a boolean; a reward is ...
    """
    if not isinstance(rewards, dict) or not rewards:
        rule = 'Harbor\'s rewards are an object of named numbers, such as {"reward": 1.0}'
        kind = "an empty object" if rewards == {} else None
        raise refusal(where, "verifier_result.rewards", rewards, rule, kind)
    if reward is None:
        reward = next(iter(rewards)) if len(rewards) == 1 else "reward"
    if reward not in rewards:
        raise with_keywords(
            ValueError(
                f"{where}: verifier_result.rewards has no {reward!r} (it has "
                f"{', '.join(map(repr, rewards))}); name the reward to judge with reward="
            ),
            "reward",
        )
    return number(rewards[reward], where, reward_field(reward), "a reward is a number in [0, 1]")
