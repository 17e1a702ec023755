"""The package's import graph: layers with one direction, no cycle, no import of the root.

Every ``import`` in ``agenterr/`` counts, wherever it stands: at module level, inside a
function (a lazy import is still a dependency) and under ``if TYPE_CHECKING:``. The root
(``agenterr/__init__.py``) is the public surface: no module below it imports it. The
integrations and ``agenterr.testing`` stand on that surface as a user's code does (they
import the public API and, from private modules, only the ``_adapter`` seam: see
``test_adapter.py``); the root never imports them, so that makes no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "agenterr"

# Bottom first. A module may import only from its own layer or a lower one; inside a layer
# the graph must still be acyclic.
LAYERS: tuple[frozenset[str], ...] = (
    # helpers and tables that import nothing from the package
    frozenset(
        {"_shared", "_status", "_headers", "_quote", "_taxonomy", "_transcript", "_frameworks"}
    ),
    frozenset({"_retry_after", "_rules", "_hints", "_reason"}),
    # the value types
    frozenset({"_outcome", "errors"}),
    # the readers
    frozenset(
        {"_responses", "_sdk", "_signals", "_refine", "_classify", "_envelope", "_transport"}
    ),
    # acting on a tool call
    frozenset({"_exceptions", "_policy", "_decorator", "_tool_result", "_adapter"}),
    # the public surface, the command line and the demo
    frozenset({"__init__", "__main__", "_cli", "_protocol", "_demo"}),
    # code written against the public surface, as a user's is
    frozenset({"testing", "integrations"}),
)
PUBLIC_CLIENTS = frozenset({"testing", "integrations"})


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> int:
    top = module.split(".", maxsplit=1)[0]
    for index, layer in enumerate(LAYERS):
        if top in layer:
            return index
    raise AssertionError(f"agenterr/{module}.py is in no layer of LAYERS: add it")


def _package_of(module: str) -> list[str]:
    """The package a relative import in ``module`` starts from (``[]``: agenterr itself)."""
    return module.split(".")[:-1]


def _imports(module: str) -> set[str]:
    """The package modules ``module`` imports (names relative to ``agenterr``); the package
    root is ``__init__``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "agenterr" or alias.name.startswith("agenterr."):
                    found.add(alias.name.removeprefix("agenterr").lstrip(".") or "__init__")
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            package = _package_of(module)
            base = package[: len(package) - (node.level - 1)]
        elif node.module == "agenterr" or (node.module or "").startswith("agenterr."):
            base = []
        else:
            continue
        target = [*base, *((node.module or "").removeprefix("agenterr").lstrip(".").split("."))]
        target = [part for part in target if part]
        dotted = ".".join(target)
        submodules = [f"{dotted}.{a.name}" if dotted else a.name for a in node.names]
        if submodules and all(_exists(name) for name in submodules):
            found.update(submodules)  # ``from . import _rules``: the submodules themselves
        else:
            found.add(dotted if _exists(dotted) else f"{dotted}.__init__".lstrip("."))
    found.discard(module)
    return found


def _exists(dotted: str) -> bool:
    return dotted in MODULES or f"{dotted}.__init__" in MODULES


GRAPH = {module: _imports(module) for module in MODULES}


def test_the_graph_was_read() -> None:
    """The reader sees the imports it must see (so the checks below can fail)."""
    assert "_taxonomy" in GRAPH["_outcome"]
    assert "_outcome" in GRAPH["errors"]
    assert "_transport" in GRAPH["__init__"]
    assert "_rules" in GRAPH["_classify"]  # from . import _rules
    assert "_envelope" in GRAPH["_transport"]  # a function-level import
    assert GRAPH["_taxonomy"] == set()


INTERNAL = sorted(m for m in MODULES if m.split(".")[0] not in PUBLIC_CLIENTS)


@pytest.mark.parametrize("module", INTERNAL)
def test_no_module_imports_the_package_root(module: str) -> None:
    """Each module imports what it uses from the module that owns it, never ``agenterr``."""
    assert "__init__" not in GRAPH[module], f"{module} imports the package root"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    """A module imports only from its own layer or below."""
    upward = sorted(name for name in GRAPH[module] if _layer(name) > _layer(module))
    assert upward == [], f"{module} (layer {_layer(module)}) imports from above: {upward}"


def test_no_import_cycle() -> None:
    """A depth-first walk finds no module that reaches itself."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if target not in GRAPH:
                continue
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)


def test_the_cycle_check_can_fail() -> None:
    """The walk reports a cycle when there is one (guarding the test above)."""
    saved = dict(GRAPH)
    try:
        GRAPH["_taxonomy"] = {"_outcome"}
        with pytest.raises(AssertionError, match="import cycle"):
            test_no_import_cycle()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)


def _private_names_imported(module: str) -> set[str]:
    """``_name``s that ``module`` imports from another package module (submodules aside)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        inside = node.level > 0 or (node.module or "").split(".")[0] == "agenterr"
        if not inside:
            continue
        for alias in node.names:
            if alias.name.startswith("_") and not _exists(_submodule(module, node, alias.name)):
                found.add(f"{node.module}.{alias.name}")
    return found


def _submodule(module: str, node: ast.ImportFrom, name: str) -> str:
    package = _package_of(module)
    base = package[: len(package) - (node.level - 1)] if node.level else []
    target = [*base, *(node.module or "").removeprefix("agenterr").lstrip(".").split("."), name]
    return ".".join(part for part in target if part)


def test_no_private_name_crosses_a_module_line() -> None:
    """What one module shares with another has a package-public name in the module that owns
    it (private modules keep it off the public surface); ``_name`` stays inside its module."""
    crossing = {m: names for m in MODULES if (names := _private_names_imported(m))}
    assert crossing == {}


def test_the_private_name_check_can_fail(tmp_path: Path) -> None:
    MODULES["_probe"] = tmp_path / "_probe.py"
    try:
        MODULES["_probe"].write_text("from ._outcome import _raise\nfrom . import _rules\n")
        assert _private_names_imported("_probe") == {"_outcome._raise"}
    finally:
        del MODULES["_probe"]


# --- what the tests reach into ------------------------------------------------------------

TESTS = Path(__file__).resolve().parent
PRIVATE_NAMES_IN_TESTS = 30
"""Most ``_name``s of the package the tests may use. Tests go through the package-public names
of each module; what is left are white-box checks that a fast path equals its plain rule
(the quoting gate's prefilters, the phrase searches) and that every cache stays bounded."""


def _private_names_used(source: str) -> set[str]:
    """The package's ``_name``s a test file imports from a module or reads off one."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # a local name bound to a package module -> that module
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agenterr"):
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                if _exists(dotted.removeprefix("agenterr.")):
                    modules[alias.asname or alias.name] = dotted
                elif alias.name.startswith("_"):
                    found.add(dotted)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("agenterr"):
                    modules[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and ast.unparse(node.value) in modules
        ):
            found.add(f"{modules[ast.unparse(node.value)]}.{node.attr}")
    return found


def test_the_tests_use_few_private_names() -> None:
    used = set().union(
        *(_private_names_used(p.read_text(encoding="utf-8")) for p in TESTS.rglob("*.py"))
    )
    assert len(used) <= PRIVATE_NAMES_IN_TESTS, sorted(used)


def test_the_private_names_count_can_fail() -> None:
    source = (
        "import agenterr._quote as quote\n"
        "from agenterr import _signals\n"
        "from agenterr._quote import _open, snippet\n"
        "quote._REDACT_CACHE\n_signals._BY_KEY\nquote.snippet\n"
    )
    assert _private_names_used(source) == {
        "agenterr._quote._open",
        "agenterr._quote._REDACT_CACHE",
        "agenterr._signals._BY_KEY",
    }
