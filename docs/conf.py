"""Sphinx configuration of passk_lab's documentation site (``make docs`` builds it).

The pages are the Markdown files of this folder (MyST); the API reference is written at every
build from the ``__all__`` lists of the public modules, so that it lists exactly the public API;
the notebooks of ``notebooks/`` are executed and rendered. Nothing happens on import: the
build's steps run when Sphinx calls :func:`setup`.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pprint
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import passk_lab

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

PUBLIC_MODULES = ("passk_lab", "passk_lab.io", "passk_lab.plots", "passk_lab.report")
"""The modules whose ``__all__`` is the public API, each given a page of the reference."""

API = HERE / "api"
"""Where the reference's pages are written (made by the build, ignored by git)."""

NOTEBOOKS = HERE / "notebooks"
"""A link to ``notebooks/``, made by the build (ignored by git)."""

RENDERED = {ROOT / "CHANGELOG.md": "changelog", ROOT / "bench" / "README.md": "benchmarks"}
"""Files of the repository outside this folder that a page of the site renders (it includes
them): a link to one, written as GitHub reads it (``../CHANGELOG.md``), goes to that page."""

project = "passk_lab"
author = "passk_lab developers"
copyright = "passk_lab developers"
version = release = passk_lab.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc", "myst_nb"]
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "README.md"]
templates_path: list[str] = []
html_static_path = ["_static"]

# Pages: MyST Markdown, with GitHub's heading anchors so that links such as
# reading.md#on-the-command-line work here as on GitHub.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]

# Notebooks: executed at every build that reads them, in their own folder (through the link),
# as the tests execute them; a cell that raises fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_timeout = 600
nb_merge_streams = True

# API reference: numpydoc renders the sections; the signatures leave the types to the
# Parameters sections (the annotations name private aliases and other packages' classes).
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autosummary_generate = False  # the pages are written by _write_api, below
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# Every reference must resolve (-n). There is no network here for intersphinx, so a reference
# to another project's object (numpy's, scipy's, pandas', matplotlib's, Python's) cannot
# resolve: those, and only those, are ignored, by the name of their package. A reference to a
# passk_lab name that does not exist fails the build.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|scipy|pandas|matplotlib|dask|distributed|tqdm|jinja2)\..*"),
    (r"py:.*", r"(collections\.abc|typing|pathlib|os|asyncio|datetime|json)\..*"),
]

html_theme = "pydata_sphinx_theme"
html_title = f"passk_lab {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars: dict[str, list[str]] = {"index": []}


def _kind(value: object) -> str:
    """Return the autodoc directive that documents `value`."""
    if inspect.ismodule(value):
        return "module"
    if inspect.isclass(value):
        return "class"
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return "function"
    return "data"


def _attribute_doc(name: str, value: object) -> str:
    """Return the docstring under a module-level constant where it is defined, or ''."""
    from sphinx.pycode import ModuleAnalyzer

    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("passk_lab") or getattr(module, name, None) is not value:
            continue
        try:
            docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
        except Exception:  # a module without source (none in this package) has no such docs
            continue
        if ("", name) in docs:
            return "\n".join(docs[("", name)]).strip()
    return ""


def _data_page(module: str, name: str, value: object) -> str:
    """Write the reference page of a constant: its value, and its docstring where defined."""
    doc = _attribute_doc(name, value) or (
        "The installed release of passk_lab." if name == "__version__" else ""
    )
    lines = [f".. py:data:: {name}"]
    if isinstance(value, dict):
        lines += ["", *(f"   {line}" for line in doc.splitlines())]
        lines += ["", "   .. code-block:: python", ""]
        lines += [f"      {line}" for line in pprint.pformat(value, width=90).splitlines()]
    else:
        shown = repr(value).replace("collections.abc.", "").replace("typing.", "")
        lines += [f"   :value: {shown}", "", *(f"   {line}" for line in doc.splitlines())]
    return "\n".join(lines)


def _object_page(module: str, name: str, value: object) -> str:
    """Write the reference page of one public name."""
    title = name.replace("_", r"\_")  # __version__ is no hyperlink reference
    head = f"{title}\n{'=' * len(title)}\n\n.. currentmodule:: {module}\n\n"
    kind = _kind(value)
    if kind == "class":
        body = f".. autoclass:: {name}\n   :members:\n"
    elif kind == "function":
        body = f".. autofunction:: {name}\n"
    else:
        body = _data_page(module, name, value) + "\n"
    return head + body


def _module_page(module: ModuleType, names: list[str]) -> str:
    """Write the reference page of a public module: its docstring, a table of its names."""
    title = module.__name__
    lines = [title, "=" * len(title), "", f".. automodule:: {title}", "   :no-members:", ""]
    lines += [f".. currentmodule:: {title}", "", ".. autosummary::", ""]
    lines += [f"   {name}" for name in names]
    lines += ["", ".. toctree::", "   :hidden:", ""]
    lines += [f"   {title}.{name}" for name in names]
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    """Write `text` to `path` unless it holds it already (so Sphinx rereads only what changed)."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _write_api(*_: Any) -> None:
    """Write a page for each public module and for each name in its ``__all__``."""
    API.mkdir(exist_ok=True)
    pages: dict[str, str] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        names = []
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.ismodule(value) and f"{module_name}.{name}" in PUBLIC_MODULES:
                continue  # a public subpackage has its own page
            names.append(name)
            pages[f"{module_name}.{name}.rst"] = _object_page(module_name, name, value)
        pages[f"{module_name}.rst"] = _module_page(module, names)
    for stale in set(os.listdir(API)) - set(pages):
        (API / stale).unlink()
    for file_name, text in pages.items():
        _write(API / file_name, text)


def _link_notebooks(*_: Any) -> None:
    """Make ``docs/notebooks`` a link to ``notebooks/``.

    Through it the notebooks are pages of the site, and each runs in its own folder, where its
    relative paths (``../../shared/data``) point where they point when the tests run it.
    """
    target = Path("..") / "notebooks"
    if NOTEBOOKS.is_symlink() and Path(os.readlink(NOTEBOOKS)) == target:
        return
    if NOTEBOOKS.exists() or NOTEBOOKS.is_symlink():
        raise RuntimeError(f"{NOTEBOOKS} is in the way: the build makes it a link to {target}")
    try:
        NOTEBOOKS.symlink_to(target, target_is_directory=True)
    except OSError as error:  # Windows without the right to make links
        raise RuntimeError(
            f"the documentation needs a symbolic link {NOTEBOOKS} -> {target} ({error}); "
            "on Windows, enable Developer Mode or build under WSL"
        ) from error


def _link_rendered_files(app: Any, doctree: Any) -> None:
    """Point the links to `RENDERED` files at the pages that render them.

    MyST reads ``../CHANGELOG.md`` as a document outside the source folder; a link inside an
    included file (``bench/README.md`` in the changelog) is read from the including page.
    """
    from sphinx import addnodes

    for node in doctree.findall(addnodes.pending_xref):
        if node.get("reftype") != "myst":
            continue
        target = node["reftarget"]
        if node.get("refdomain") == "doc":
            candidates = [Path(target + ".md")]
        elif node.get("refdomain") is None and "://" not in target:
            candidates = [ROOT / target.split("#")[0]]
        else:
            continue
        for candidate in candidates:
            if candidate in RENDERED:
                node["refdomain"] = "doc"
                node["reftarget"] = RENDERED[candidate]
                node["reftargetid"] = None


def setup(app: Any) -> dict[str, bool]:
    """Write the API reference and link the notebooks before Sphinx looks for its sources."""
    app.connect("builder-inited", _write_api)
    app.connect("builder-inited", _link_notebooks)
    app.connect("doctree-read", _link_rendered_files)
    return {"parallel_read_safe": True}
