"""The house's structure: layers that import only downwards, no circle, no private name shared.

The imports are read from the source with :mod:`ast` (module-level imports and
those inside functions alike), so the test sees what the code says, not what
happens to be imported at run time.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import IN_CI

import passk_lab as pk

PACKAGE = Path(pk.__file__).resolve().parent

# Each module's layer; a module may import only from its own layer or lower ones. The
# order is docs/architecture.md's: foundation, data, statistics, generation, input/output,
# presentation, entry points. The statistics are five sub-layers, in the same order:
# limits (2.0), models (2.1), curves (2.2), comparisons (2.3), plans (2.4).
LIMITS, MODELS, CURVES, COMPARISONS, PLANS = 2.0, 2.1, 2.2, 2.3, 2.4
LAYERS: dict[str, float] = {
    "passk_lab._version": 0,
    "passk_lab._typing": 0,
    "passk_lab._warnings": 0,
    "passk_lab._errors": 0,
    "passk_lab._checks": 0,
    "passk_lab._choices": 0,
    "passk_lab._files": 0,
    "passk_lab._summary": 0,
    "passk_lab._numbers": 0,
    "passk_lab._data": 1,
    "passk_lab.outcomes": 1,
    # limits: quantiles, the bootstrap, closed-form intervals and the policy over them, the
    # exact sign-flip test, the confidence sequence, the two-stage run plans
    "passk_lab._interval": LIMITS,
    "passk_lab._bootstrap": LIMITS,
    "passk_lab._mean_intervals": LIMITS,
    "passk_lab._interval_policy": LIMITS,
    "passk_lab.intervals": LIMITS,
    "passk_lab._permutation": LIMITS,
    "passk_lab._confidence_sequence": LIMITS,
    "passk_lab._two_stage": LIMITS,
    # models: the beta-binomial model of task difficulty
    "passk_lab._betabinom": MODELS,
    "passk_lab._betabinom_inflated": MODELS,
    "passk_lab._betabinom_fit": MODELS,
    "passk_lab._goodness_of_fit": MODELS,
    "passk_lab._betabinom_summary": MODELS,
    "passk_lab.heterogeneity": MODELS,
    # curves: pass^k and pass@k over k, measured and predicted
    "passk_lab._curve_checks": CURVES,
    "passk_lab._curve": CURVES,
    "passk_lab._curve_table": CURVES,
    "passk_lab.estimators": CURVES,
    # comparisons: agents against each other and against themselves
    "passk_lab._paired": COMPARISONS,
    "passk_lab.comparison": COMPARISONS,
    "passk_lab._agents": COMPARISONS,
    "passk_lab._pair_tests": COMPARISONS,
    "passk_lab._ranks": COMPARISONS,
    "passk_lab.ranking": COMPARISONS,
    "passk_lab._run_noise": COMPARISONS,
    "passk_lab.variability": COMPARISONS,
    "passk_lab.g_pass": COMPARISONS,
    # plans: before the runs, and the adaptive procedure that plans as it goes
    "passk_lab._plan_search": PLANS,
    "passk_lab.planning": PLANS,
    "passk_lab.coverage": PLANS,
    "passk_lab._sequential": PLANS,
    "passk_lab.mulberry": 3,
    "passk_lab.simulate": 3,
    "passk_lab.harness": 3,
    "passk_lab._labels": 4,
    "passk_lab.io": 4,
    "passk_lab.report._tables": 4,
    "passk_lab.report._render": 4,
    "passk_lab._styled": 4,
    "passk_lab.plots": 5,
    "passk_lab.report": 5,
    "passk_lab.cli": 6,
    "passk_lab.__main__": 6,
}
ROOT = "passk_lab"  # the package itself: the public API, above every layer
PRESENTATION = 5


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> float:
    """The layer of a module: that of the longest prefix LAYERS names."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise KeyError(module)


def resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module an ImportFrom node imports from."""
    if node.level == 0:
        return node.module or ""
    package = importer.split(".")
    if MODULES[importer].name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


Use = tuple[str, "str | None", int]
"""What a file uses of another module: the module, the name taken (None: the module), the line."""


def _dotted(node: ast.expr) -> str | None:
    """Return ``a.b.c`` for a chain of names and attributes, or None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def uses(source: str, importer: str | None = None) -> list[Use]:
    """Every (module, name or None, line) that `source` imports or reaches through an attribute.

    `importer` is the source's own module name, for relative imports. A name is
    taken from a module by ``from m import name`` or as ``m.name`` (``import m``,
    ``import m as alias``, ``from package import m``); a submodule so reached is
    the module itself.
    """
    tree = ast.parse(source)
    found: list[Use] = []
    aliases: dict[str, str] = {}  # a local name and the module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, None, node.lineno))
                local = alias.asname or alias.name.split(".")[0]
                aliases[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            base = resolve(importer, node) if importer is not None else node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in MODULES:  # `from passk_lab import plots` imports a module
                    found.append((submodule, None, node.lineno))
                    aliases[alias.asname or alias.name] = submodule
                else:
                    found.append((base, alias.name, node.lineno))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = _dotted(node.value)
        if chain is None or chain.split(".")[0] not in aliases:
            continue
        head, *rest = chain.split(".")
        module = ".".join([aliases[head], *rest])
        if f"{module}.{node.attr}" in MODULES:
            found.append((f"{module}.{node.attr}", None, node.lineno))
        elif module in MODULES:
            found.append((module, node.attr, node.lineno))
    return found


def imports(module: str) -> list[Use]:
    """Every module and name one of the package's modules uses of another (see `uses`)."""
    return uses(MODULES[module].read_text(encoding="utf-8"), module)


def is_private(name: str | None) -> bool:
    return name is not None and name.startswith("_") and not name.endswith("__")


def internal_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {module: set() for module in MODULES}
    for module in MODULES:
        for target, _, _ in imports(module):
            if target in MODULES and target != module:
                edges[module].add(target)
    return edges


def test_every_module_has_a_layer() -> None:
    unplaced = [module for module in MODULES if module != ROOT and not _placed(module)]
    assert not unplaced, f"give these modules a layer in LAYERS: {unplaced}"


def _placed(module: str) -> bool:
    try:
        layer(module)
    except KeyError:
        return False
    return True


def upward(module: str, found: list[Use]) -> list[str]:
    """The uses in `found` of `module` that reach the package root or a higher layer."""
    said = []
    for target, _, line in found:
        if target == ROOT:
            said.append(f"{module}:{line} imports the package root; import the module")
        elif target.startswith("passk_lab.") and layer(target) > layer(module):
            said.append(f"{module}:{line} imports {target}")
    return said


def test_no_module_imports_from_a_higher_layer() -> None:
    found = [
        said for module in MODULES if module != ROOT for said in upward(module, imports(module))
    ]
    assert not found, "\n".join(found)


def test_the_imports_have_no_circle() -> None:
    edges = internal_edges()
    state: dict[str, int] = {}  # 1 on the path, 2 done
    circles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(edges[module]):
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    # a package's __init__ importing its own modules, which import its siblings, is no circle
    real = [circle for circle in circles if not _through_own_init(circle)]
    assert not real, "\n".join(" -> ".join(circle) for circle in real)


def _through_own_init(circle: list[str]) -> bool:
    packages = {module for module in circle if MODULES[module].name == "__init__.py"}
    return any(all(m == p or m.startswith(p + ".") for m in circle) for p in packages)


def test_no_private_name_is_taken_from_another_module() -> None:
    taken = [
        f"{module}:{line} takes {name} from {target}"
        for module in MODULES
        for target, name, line in imports(module)
        if target.startswith("passk_lab") and target != module and is_private(name)
    ]
    assert not taken, "\n".join(taken)


def test_nothing_below_presentation_imports_matplotlib() -> None:
    drawing = [
        f"{module}:{line} imports {target}"
        for module in MODULES
        if module != ROOT and layer(module) < PRESENTATION
        for target, _, line in imports(module)
        if target.split(".")[0] == "matplotlib"
    ]
    assert not drawing, "\n".join(drawing)


def test_the_guard_catches_what_it_guards() -> None:
    """Its own extraction sees an upward import and private names, however they are reached."""
    planted = (
        "from passk_lab.plots import decay_curve\n"
        "from passk_lab.outcomes import _cells\n"
        "import passk_lab._curve as curve\n"
        "import passk_lab._data.rules\n"
        "from passk_lab import _interval_policy\n"
        "from ._data import tally\n"
        "def f():\n"
        "    return curve._check_ks, passk_lab._data.rules._hidden, _interval_policy._CHOICES,"
        " tally._row_passes, curve.curve_table\n"
    )
    found = uses(planted, "passk_lab.estimators")
    assert ("passk_lab.plots", "decay_curve", 1) in found
    private = {(target, name) for target, name, _ in found if is_private(name)}
    assert private == {
        ("passk_lab.outcomes", "_cells"),
        ("passk_lab._curve", "_check_ks"),
        ("passk_lab._data.rules", "_hidden"),
        ("passk_lab._interval_policy", "_CHOICES"),
        ("passk_lab._data.tally", "_row_passes"),
    }
    assert ("passk_lab._curve", "curve_table", 8) in found  # public names of a module are fine
    assert upward("passk_lab.estimators", found) == [
        "passk_lab.estimators:1 imports passk_lab.plots"
    ]
    # within the statistics: a curve may use a model, a model no curve
    below = uses("from passk_lab.heterogeneity import fit_cells\n", "passk_lab._curve")
    above = uses("from passk_lab._curve import curve_table\n", "passk_lab._betabinom")
    assert upward("passk_lab._curve", below) == []
    assert upward("passk_lab._betabinom", above) == [
        "passk_lab._betabinom:1 imports passk_lab._curve"
    ]


DESIGN = PACKAGE.parent.parent / "shared" / "DESIGN.md"


def test_the_public_api_is_the_stubs_and_every_name_loads() -> None:
    stub = ast.parse((PACKAGE / "__init__.pyi").read_text(encoding="utf-8"))
    imported = [
        (alias, node.module)
        for node in stub.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]
    # `from m import x as x`: the form that tells a type checker x is exported
    assert [alias.asname for alias, _ in imported] == [alias.name for alias, _ in imported]
    declared = {alias.name: f"{module}.{alias.name}" for alias, module in imported}
    assert pk.__all__ == sorted(declared)
    assert dir(pk) == sorted(declared)
    for name, home in declared.items():
        module, _, attribute = home.rpartition(".")
        expected = (
            importlib.import_module(home)
            if module == "passk_lab"
            else getattr(importlib.import_module(module), attribute)
        )
        assert getattr(pk, name) is expected, name


def test_every_name_the_design_promises_is_there() -> None:
    """The names DESIGN.md's public API lists (all but those it marks as next) resolve."""
    if not DESIGN.exists() and not IN_CI:  # CI always has ../shared beside the project
        pytest.skip("../shared/DESIGN.md is not beside this checkout: the design cannot be read")
    text = DESIGN.read_text(encoding="utf-8")
    block = text[text.index("## Public API") :].split("```python", 1)[1].split("```", 1)[0]
    promised = block.split("# next", 1)[0]
    names = set(re.findall(r"\bpk\.([A-Za-z_][\w.]*)", promised))
    assert len(names) > 20  # the block was found
    for dotted in sorted(names):
        value: object = pk
        for part in dotted.split("."):
            value = getattr(value, part)
    assert issubclass(pk.UnequalRunsWarning, pk.PasskWarning)


def test_no_public_name_is_also_a_module_of_the_package() -> None:
    """Importing a module sets it on its package: a function of its name would be replaced."""
    modules = {module.split(".")[1] for module in MODULES if module.count(".") == 1}
    assert not (set(pk.__all__) - {"io", "plots", "report"}) & modules


def test_report_and_plots_load_on_first_use() -> None:
    assert pk.report.export.__module__.startswith("passk_lab.report")
    assert pk.plots.decay_curve.__module__.startswith("passk_lab.plots")
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        _ = pk.nonsense  # type: ignore[attr-defined]


def test_an_old_name_still_works_with_a_warning_that_names_the_new_one() -> None:
    with pytest.warns(DeprecationWarning, match="PassAt1SE"):
        old = pk.PassAt1Error  # type: ignore[attr-defined]
    assert old is pk.PassAt1SE
    with pytest.warns(DeprecationWarning, match="PassAt1SE"):
        from passk_lab.intervals import PassAt1Error  # noqa: F401
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pk.PassAt1SE.__name__ == "PassAt1SE"


def _imported_after(code: str) -> set[str]:
    """The heavy modules a fresh interpreter holds after running `code`."""
    heavy = ["numpy", "pandas", "scipy.special", "scipy.stats", "scipy.optimize", "matplotlib"]
    script = f"import sys\n{code}\nprint(' '.join(m for m in {heavy!r} if m in sys.modules))"
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    return set(completed.stdout.splitlines()[-1].split())


def test_the_package_and_the_command_line_import_nothing_heavy() -> None:
    assert _imported_after("import passk_lab") == set()
    assert _imported_after("import passk_lab.cli") == set()
    help_only = (
        "from passk_lab.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert _imported_after(help_only) == set()


def test_a_curve_with_the_default_intervals_imports_only_scipy_special() -> None:
    code = (
        "import numpy as np, passk_lab as pk\n"
        "runs = np.random.default_rng(0).random((40, 8)) < 0.7\n"
        "pk.reliability_curve(runs, rng=0)\n"
        "pk.fit_betabinom(runs).confidence_interval(3, n_resamples=20, rng=0)"
    )
    # the beta quantiles come from scipy.special (about 0.2 s); scipy.stats takes 0.5 s more
    assert _imported_after(code) == {"numpy", "pandas", "scipy.special"}


MOST_LINES = 550
"""The most lines of a module of the package: past it, a module is two things to split."""
MOST_FUNCTION_LINES = 120
"""The most lines of a function, its docstring included."""


def test_no_module_or_function_is_too_long() -> None:
    long = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MOST_LINES:
            long.append(f"{module}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if size > MOST_FUNCTION_LINES:
                    long.append(f"{module}:{node.lineno} {node.name}: {size} lines")
    assert not long, "\n".join(long)


def message_matching(source: str) -> list[int]:
    """Lines of `source` that decide by a message's wording: a warning filter on a message, or
    a regular expression (or ``in``) applied to the text of a caught warning or error."""
    tree = ast.parse(source)
    caught = {  # names bound to an error (except ... as e) or to caught warnings' records
        node.name for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler) and node.name
    } | {
        item.optional_vars.id
        for node in ast.walk(tree)
        if isinstance(node, ast.With)
        for item in node.items
        if isinstance(item.optional_vars, ast.Name) and "catch_warnings" in ast.dump(item)
    }

    def about_caught(node: ast.AST) -> bool:
        names = {child.id for child in ast.walk(node) if isinstance(child, ast.Name)}
        texts = any(
            isinstance(child, ast.Attribute) and child.attr == "message" for child in ast.walk(node)
        )
        return bool(names & caught) or texts

    lines = []
    patterns = (".search", ".match", ".fullmatch", ".sub", ".finditer", ".findall", ".split")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func) or ""
            filtered = name.endswith("filterwarnings") and (
                len(node.args) > 1 or any(keyword.arg == "message" for keyword in node.keywords)
            )
            matched = (name.split(".")[0] == "re" or name.endswith(patterns)) and any(
                about_caught(arg) for arg in node.args
            )
            if filtered or matched:
                lines.append(node.lineno)
        elif isinstance(node, ast.Compare):
            tested = any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            if tested and any(
                about_caught(side) and _stringified(side) for side in node.comparators
            ):
                lines.append(node.lineno)
    return lines


def _stringified(node: ast.AST) -> bool:
    """Whether `node` is the text of something: ``str(x)`` or ``x.message`` (a warning's)."""
    return any(
        (isinstance(child, ast.Call) and _dotted(child.func) == "str")
        or (isinstance(child, ast.Attribute) and child.attr == "message")
        for child in ast.walk(node)
    )


def test_no_code_decides_by_the_wording_of_a_message() -> None:
    found = [
        f"{module}:{line}"
        for module, path in MODULES.items()
        for line in message_matching(path.read_text(encoding="utf-8"))
    ]
    assert not found, "decide by the warning's class and fields: " + ", ".join(found)


def test_the_message_guard_sees_filters_and_patterns_over_messages() -> None:
    planted = (
        "import re, warnings\n"
        "warnings.filterwarnings('ignore', 'ranked the .* tasks')\n"
        "warnings.simplefilter('ignore', RuntimeWarning)\n"
        "try:\n"
        "    pass\n"
        "except ValueError as error:\n"
        "    text = re.sub('runs_a', 'A', str(error))\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    pass\n"
        "notes = [w for w in caught if 'different runs' in str(w.message)]\n"
        "kinds = [w for w in caught if isinstance(w.message, RuntimeWarning)]\n"
    )
    assert message_matching(planted) == [2, 7, 10]


INTERNAL_INTERFACE: dict[str, set[str]] = {
    "passk_lab._betabinom": {"beta_shapes"},
    "passk_lab._betabinom_fit": {"Model"},
    "passk_lab._bootstrap": {
        *("acceleration", "bca_levels", "quantile_limits", "resample_cells", "tails"),
        *("task_bootstrap", "weighted_means"),
    },
    "passk_lab._curve_table": {"curve_table"},
    "passk_lab._curve_checks": {"group_ks"},
    "passk_lab._data.cells": {"Cells", "products"},
    "passk_lab._data.tally": {"as_tally"},
    "passk_lab._interval": {"clopper_pearson"},
    "passk_lab._interval_policy": {"IntervalSpec", "Statistics"},
    "passk_lab._mean_intervals": {"TaskMoments", "effective_n_interval", "paired_interval"},
    "passk_lab._pair_tests": {"adjusted_p_values"},
    "passk_lab._permutation": {"permutation_test"},
    "passk_lab._ranks": {"rank_intervals"},
    "passk_lab._sequential": {"Design", "Job", "Outcome", "Stop", "procedure", "target_limits"},
    "passk_lab._two_stage": {"Statistic"},
    "passk_lab.heterogeneity": {"fit_cells"},
}
"""What the studies and benchmarks may use besides the public API: the internals they measure.

A change to one of these names changes a study or a benchmark too (docs/architecture.md)."""


def public_names() -> dict[str, set[str]]:
    names = {"passk_lab": set(pk.__all__)}
    for module in ("io", "plots", "report"):
        names[f"passk_lab.{module}"] = set(importlib.import_module(f"passk_lab.{module}").__all__)
    return names


@pytest.mark.parametrize("folder", ["study", "bench"])
def test_studies_and_benchmarks_use_the_public_api_or_the_declared_internals(folder):
    allowed = {module: {*public_names().get(module, set())} for module in public_names()}
    for module, names in INTERNAL_INTERFACE.items():
        allowed.setdefault(module, set()).update(names)
    outside = []
    for path in sorted((PACKAGE.parent / folder).glob("*.py")):
        for target, name, line in uses(path.read_text(encoding="utf-8")):
            if not target.startswith("passk_lab") or (target in allowed and name is None):
                continue
            if name not in allowed.get(target, set()):
                outside.append(f"{path.name}:{line} uses {target}.{name}")
    assert not outside, "\n".join(outside)
    for module, names in INTERNAL_INTERFACE.items():  # every declared name exists
        for name in names:
            assert hasattr(importlib.import_module(module), name), f"{module}.{name}"
