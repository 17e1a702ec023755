"""The ``external`` marker: what drives the outside world or is slow carries it, so that
``pytest -m "not external"`` is the quick loop (under a minute) and plain ``pytest`` runs all.

Read with ``ast``, not by running: a test that starts a process, or a module that drives a
real SDK, framework, broker or example, is found by what its source says.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
# Modules whose every test drives a real client, framework, server, broker or example.
EXTERNAL_MODULES = (
    "test_integrations_*.py",
    "test_sdk_clients*.py",
    "test_examples*.py",
    "test_demo.py",
    "test_setup.py",
    "test_packaging.py",
    "test_classify_tls.py",
    "test_imports.py",
)
# What in a test's source starts a process.
SPAWNS = ("subprocess.", "sys.executable", "Popen(")


def _is_external_mark(node: ast.expr) -> bool:
    return ast.unparse(node).startswith("pytest.mark.external")


def _module_marked(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            marks = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            return any(_is_external_mark(mark) for mark in marks)
    return False


def _unmarked_spawning_tests(source: str) -> list[str]:
    """The test functions of ``source`` that start a process (directly or through a
    module-level helper) and carry no external marker, module-wide or their own."""
    tree = ast.parse(source)
    if _module_marked(tree):
        return []
    functions = [
        node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    spawning = {
        node.name
        for node in functions
        if any(word in (ast.get_source_segment(source, node) or "") for word in SPAWNS)
    }
    found = []
    for node in functions:
        if not node.name.startswith("test_"):
            continue
        if any(_is_external_mark(d) for d in node.decorator_list):
            continue
        calls = {
            n.func.id
            for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        if node.name in spawning or calls & spawning:
            found.append(node.name)
    return found


def test_external_modules_are_marked() -> None:
    unmarked = sorted(
        path.name
        for pattern in EXTERNAL_MODULES
        for path in TESTS.glob(pattern)
        if not _module_marked(ast.parse(path.read_text(encoding="utf-8")))
    )
    assert unmarked == []


def test_no_unmarked_test_starts_a_process() -> None:
    found = {
        path.name: names
        for path in sorted(TESTS.glob("test_*.py"))
        if path.name != Path(__file__).name  # its sample below quotes the words
        and (names := _unmarked_spawning_tests(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_check_finds_a_spawning_test() -> None:
    """The reader can fail: an unmarked test calling a helper that starts a process."""
    source = (
        "import subprocess, sys, pytest\n"
        "def _run():\n    return subprocess.run([sys.executable, '-c', 'pass'])\n"
        "def test_direct():\n    subprocess.run(['true'])\n"
        "def test_through_helper():\n    _run()\n"
        "@pytest.mark.external\ndef test_marked():\n    _run()\n"
        "def test_plain():\n    assert 1\n"
    )
    assert _unmarked_spawning_tests(source) == ["test_direct", "test_through_helper"]
    marked = "import pytest\npytestmark = pytest.mark.external\n" + source
    assert _unmarked_spawning_tests(marked) == []
