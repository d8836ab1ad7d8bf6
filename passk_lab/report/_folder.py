"""A report's folder: the names of its files, and the manifest that makes the folder a report's.

A report writes into a folder that is new, empty, or an earlier report's: the
manifest (:data:`MANIFEST`) lists what a report wrote and the input it was of,
so the next report of that input may replace those files and remove the ones
it no longer writes, while a folder holding anything else is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Hashable
from pathlib import Path

from passk_lab._errors import with_keywords
from passk_lab._version import __version__

__all__ = ["MANIFEST", "Folder", "slugs"]

MANIFEST = ".passk-report.json"
"""The file, in a report's folder, that lists what the report wrote: it makes the folder ours."""
_SLUG_LIMIT = 56
"""The most characters of a group's part of a file name: success_histogram-<slug>.png, the
longest name, stays within 80 characters on every file system."""
_HASH_LENGTH = 10
"""Hex digits of the hash that sets apart groups whose names a file name cannot keep."""


def slugs(keys: list[tuple[Hashable, ...]], by: list[str]) -> list[str]:
    """Return one file-name part per group: unique, at most _SLUG_LIMIT characters.

    A group's ``name-value`` text keeps letters, digits, ``.``, ``=`` and
    ``-``, the rest turned into ``_``. Where that changed the text, cut it
    short or gave two groups one name -- upper and lower case counted as one,
    as macOS and Windows count them -- a hash of the group's values follows,
    so that ``gpt 4`` and ``gpt/4``, or ``GPT-4`` and ``gpt-4``, write two
    files each.

    Examples
    --------
    >>> slugs([("a",), ("gpt 4",)], ["model"])
    ['model-a', 'model-gpt_4-5d54860ac8']
    """
    texts = [
        "-".join(f"{name}-{value}" for name, value in zip(by, key, strict=True)) for key in keys
    ]
    plain = [re.sub(r"[^A-Za-z0-9.=-]+", "_", text) for text in texts]
    taken = Counter(slug.lower() for slug in plain)  # GPT_4 and gpt_4: one file on macOS
    named = []
    for key, text, slug in zip(keys, texts, plain, strict=True):
        if slug == text and len(slug) <= _SLUG_LIMIT and taken[slug.lower()] == 1:
            named.append(slug)
            continue
        digest = hashlib.sha1(repr(key).encode("utf-8")).hexdigest()[:_HASH_LENGTH]
        named.append(f"{slug[: _SLUG_LIMIT - _HASH_LENGTH - 1]}-{digest}")
    return named


class Folder:
    """The folder a report writes into, and what an earlier report there wrote.

    Parameters
    ----------
    path : Path
        The folder.
    origin : str, optional
        The input the report is of, as its manifest records it.
    """

    def __init__(self, path: Path, origin: str | None) -> None:
        self.path = path
        self.origin = origin
        self._earlier: set[str] = set()

    def _manifest(self) -> dict[str, object]:
        try:
            manifest = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return manifest if isinstance(manifest, dict) else {}

    def _listed(self) -> set[str]:
        """Return the files an earlier report listed in its manifest (none if no list)."""
        listed = self._manifest().get("files")
        if not isinstance(listed, list):
            return set()
        return {name for name in listed if isinstance(name, str) and Path(name).name == name}

    def claim(self, names: list[str], force: bool) -> None:
        """Make sure the folder may take the report's `names`, making it if missing.

        A missing or empty folder, or one with a manifest of an earlier report
        of the same input whose files are the only ones that `names` would
        replace, is the report's; any other is refused unless `force`. A
        manifest listing the files to come is written at once, so that a
        report cut short leaves a folder still a report's.
        """
        folder = self.path
        if folder.exists() and not folder.is_dir():
            raise with_keywords(
                ValueError(
                    f"out={str(folder)!r} is a file, not a folder; give a folder to write into"
                ),
                "out",
            )
        folder.mkdir(parents=True, exist_ok=True)
        present = {path.name for path in folder.iterdir()}
        ours = self._listed()
        theirs = sorted((set(names) if MANIFEST in present else present) - ours - {MANIFEST})
        theirs = [name for name in theirs if name in present]
        earlier = self._manifest().get("source") if MANIFEST in present else None
        if (
            isinstance(earlier, str)
            and self.origin is not None
            and earlier != self.origin
            and not force
        ):
            raise with_keywords(
                ValueError(
                    f"out={str(folder)!r} holds the report of {earlier}, not of {self.origin}; "
                    "give another folder, or force=True to replace that report"
                ),
                "out",
                "force",
            )
        if theirs and not force:
            shown = ", ".join(theirs[:5]) + (
                f" and {len(theirs) - 5} more" if len(theirs) > 5 else ""
            )
            raise with_keywords(
                ValueError(
                    f"out={str(folder)!r} holds files no passk_lab report wrote ({shown}); give "
                    "an empty or new folder, or force=True to write over them"
                ),
                "out",
                "force",
            )
        self._earlier = ours & present
        self._write_manifest([*self._earlier, *names])

    def finish(self, names: list[str]) -> None:
        """Remove what an earlier report wrote and this one did not; list this one's files."""
        for stale in sorted(self._earlier - set(names)):
            (self.path / stale).unlink(missing_ok=True)
        self._write_manifest(names)

    def _write_manifest(self, names: list[str]) -> None:
        manifest = {"passk_lab": __version__, "source": self.origin, "files": sorted(set(names))}
        text = json.dumps(manifest, indent=1) + "\n"
        (self.path / MANIFEST).write_text(text, encoding="utf-8")
