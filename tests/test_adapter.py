"""The integrations reach the core through the public API and one internal seam only.

``agenterr._adapter`` is the seam; the rest of the core's private modules can be
reorganised without touching an integration. Read from the source, so every import counts,
including those inside functions and ``if TYPE_CHECKING:`` blocks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import agenterr._adapter as adapter
from agenterr import Code, Reason

INTEGRATIONS = Path(__file__).resolve().parent.parent / "agenterr" / "integrations"
SEAM = "agenterr._adapter"
# Private modules an integration may import besides the seam: the integrations' own
# helper for a missing framework.
ALLOWED_PRIVATE = {SEAM, "agenterr.integrations._require"}


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(absolute module, imported names, line) for every import in ``path``."""
    package = "agenterr.integrations"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append((module, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((a.name, [], node.lineno) for a in node.names)
    return found


def _private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


MODULES = sorted(p for p in INTEGRATIONS.glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=[p.stem for p in MODULES])
def test_integration_imports_nothing_private_but_the_seam(path: Path) -> None:
    """No underscore name from any agenterr module, no private module but the seam."""
    problems = []
    for module, names, line in _imports(path):
        if module != "agenterr" and not module.startswith("agenterr."):
            continue
        if _private(module) and module not in ALLOWED_PRIVATE:
            problems.append(f"line {line}: imports from private module {module}")
        private_names = [n for n in names if n.startswith("_")]
        if private_names:
            problems.append(f"line {line}: imports {', '.join(private_names)} from {module}")
    assert problems == []


def test_the_seam_exports_only_public_names() -> None:
    """The seam's surface is what it lists, each name defined, none underscored."""
    assert all(not name.startswith("_") for name in adapter.__all__)
    assert all(hasattr(adapter, name) for name in adapter.__all__)


def test_the_parser_sees_relative_and_absolute_imports() -> None:
    """The check above would catch the imports the integrations used to make."""
    probe = INTEGRATIONS / "openai_agents.py"
    modules = {module for module, _, _ in _imports(probe)}
    assert SEAM in modules and "agenterr" in modules


# --- call_arguments: what the failure text may name ------------------------------------


class _Context:
    """Stands in for a framework's context object (not something the model sent)."""


def _tool(ctx: object, order_id: str, limit: int = 10, *rest: object, **extra: object) -> None:
    """A tool with every kind of parameter."""


def test_call_arguments_keep_the_models_values_by_name() -> None:
    """Positional and keyword values by parameter name; defaults not sent are left out."""
    assert adapter.call_arguments(_tool, (_Context(), "o-1"), {}) == {"order_id": "o-1"}
    assert adapter.call_arguments(_tool, (None,), {"order_id": "o-2", "limit": 3}) == {
        "ctx": None,
        "order_id": "o-2",
        "limit": 3,
    }


def test_call_arguments_drop_what_the_model_did_not_write() -> None:
    """A context object, ``*args`` and non-data ``**kwargs`` values are not the call's."""
    got = adapter.call_arguments(
        _tool, (_Context(), "o-1", 5, "spare"), {"tag": ["a"], "hook": _Context()}
    )
    assert got == {"order_id": "o-1", "limit": 5, "tag": ["a"]}


def test_call_arguments_of_a_bound_method_leave_out_self() -> None:
    class Orders:
        def get(self, order_id: str) -> None:
            """Get."""

    assert adapter.call_arguments(Orders().get, ("o-1",), {}) == {"order_id": "o-1"}


@pytest.mark.parametrize(
    ("fn", "args", "kwargs"),
    [
        (_tool, (), {"limit": 1}),  # order_id missing: a partial binding is kept
        (lambda order_id: None, ("a", "b"), {}),  # too many
        (lambda order_id: None, (), {"order_id": 1, "other": 2}),  # unexpected keyword
        (len, ("a",), {}),  # a builtin may have no signature; this one has
        (object(), (), {}),  # not callable
    ],
)
def test_call_arguments_never_raise(
    fn: object, args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    """Arguments that do not bind give ``None`` or what did bind; nothing raises."""
    got = adapter.call_arguments(fn, args, kwargs)  # type: ignore[arg-type]
    assert got is None or isinstance(got, dict)


def test_call_arguments_that_do_not_bind_are_none() -> None:
    assert adapter.call_arguments(lambda order_id: None, ("a", "b"), {}) is None
    assert adapter.call_arguments(object(), (), {}) is None  # type: ignore[arg-type]


def test_tool_name_is_the_functions_name() -> None:
    assert adapter.tool_name(_tool) == "_tool"
    assert adapter.tool_name(object()) is None  # type: ignore[arg-type]


def test_a_validation_error_a_framework_caught_reads_as_the_decorators() -> None:
    """SCHEMA_INVALID with the error kept and its class in the reason, as the decorator."""
    pydantic = pytest.importorskip("pydantic")

    class Args(pydantic.BaseModel):
        days: int

    try:
        Args(days="many")
    except pydantic.ValidationError as exc:
        caught = adapter.failure_outcome(exc)
        assert caught.code is Code.SCHEMA_INVALID
        assert caught.error is exc
        assert caught.reason == Reason("schema-invalid", "ValidationError")
    else:
        pytest.fail("pydantic accepted 'many' as an int")
