"""passk_lab: measure how reliably an AI agent does a job.

Run every task several times, keep every run, and report pass@1 (the mean
single-run success rate) next to pass^k (the share of tasks that succeed on all
k runs), against the analytic curve p^k.

Examples
--------
>>> import passk_lab as pk
>>> result = pk.evaluate(pk.coin_tasks(p=0.85, tasks=40, seed=42), k=5)
>>> result.pass_at_1, result.pass_pow_k
(0.86, 0.45)
"""

import ast
import importlib
from pathlib import Path
from typing import Any

from passk_lab._version import __version__ as __version__


def _homes() -> dict[str, str]:
    """Read the public API from ``__init__.pyi``: each name, and the module that defines it.

    The stub is the one place the API is written; type checkers read it, and
    so does this function, so that ``import passk_lab`` imports none of numpy,
    pandas or scipy: a name's module is imported the first time it is used.
    """
    stub = Path(__file__).with_name("__init__.pyi").read_text(encoding="utf-8")
    homes = {}
    for node in ast.parse(stub).body:
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                homes[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return homes


_HOMES = _homes()
"""Each public name and where it is defined: ``module.name`` (a subpackage: ``passk_lab.io``)."""

_RENAMED = {"PassAt1Error": "PassAt1SE"}
"""Names of the last release that still work, with a DeprecationWarning, until the next."""

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use; serve the last release's names."""
    if name in _HOMES:
        module, _, attribute = _HOMES[name].rpartition(".")
        value = (
            importlib.import_module(_HOMES[name])
            if module == __name__
            else getattr(importlib.import_module(module), attribute)
        )
        globals()[name] = value
        return value
    if name in _RENAMED:
        from passk_lab._warnings import PasskDeprecationWarning, warn

        new = _RENAMED[name]
        warn(
            PasskDeprecationWarning(
                f"passk_lab.{name} is now passk_lab.{new}; the old name goes in the next release"
            )
        )
        return __getattr__(new)
    raise AttributeError(f"module 'passk_lab' has no attribute {name!r}")


def __dir__() -> list[str]:
    """List the public API."""
    return __all__
