"""@classified_tool on plain functions and methods: identity, binding, propagation, observers."""

from __future__ import annotations

import asyncio
import inspect
import logging
import pickle
from typing import Any

import httpx
import pytest

from agenterr import (
    Code,
    IndeterminateToolError,
    Outcome,
    TransientToolError,
    classified_tool,
)


def search(query: str, limit: int = 5, *, exact: bool = False) -> list[str]:
    """Search the catalogue."""
    return [query] * limit


@pytest.mark.parametrize(
    "decorate",
    [classified_tool, classified_tool(), classified_tool(raises=True)],
    ids=["bare", "called", "raises"],
)
def test_introspection_is_the_wrapped_function(decorate: Any) -> None:
    """Signature, name, qualname, doc, module, annotations and __wrapped__ are the original's."""
    tool = decorate(search)
    assert inspect.signature(tool) == inspect.signature(search)
    assert tool.__name__ == "search"
    assert tool.__qualname__ == search.__qualname__
    assert tool.__doc__ == "Search the catalogue."
    assert tool.__module__ == search.__module__
    assert tool.__annotations__ == search.__annotations__
    assert tool.__wrapped__ is search
    assert not inspect.iscoroutinefunction(tool)
    assert not inspect.isgeneratorfunction(tool)
    assert inspect.unwrap(tool) is search


def test_bare_and_called_forms_agree() -> None:
    """@classified_tool and @classified_tool() both return Outcomes."""
    assert classified_tool(search)("a", 1) == classified_tool()(search)("a", 1)
    assert classified_tool(search)("a", 1).value == ["a"]


def test_raises_mode_returns_plain_value() -> None:
    """raises=True returns the value itself on success."""
    assert classified_tool(raises=True)(search)("a", limit=2) == ["a", "a"]


def test_decorating_does_not_call() -> None:
    """Decoration has no side effect on the function."""
    calls: list[int] = []

    @classified_tool
    def tool() -> None:
        calls.append(1)

    assert calls == []
    tool()
    assert calls == [1]


class Catalogue:
    """Every way a tool can live on a class."""

    prefix = "c:"

    def __init__(self) -> None:
        self.name = "main"

    @classified_tool
    def method(self, item: int) -> str:
        """Instance method."""
        return f"{self.name}:{item}"

    @classified_tool
    @classmethod
    def inner_classmethod(cls, item: int) -> str:
        return f"{cls.prefix}{item}"

    @classmethod
    @classified_tool
    def outer_classmethod(cls, item: int) -> str:
        return f"{cls.prefix}{item}"

    @classified_tool
    @staticmethod
    def inner_staticmethod(item: int) -> str:
        return f"s:{item}"

    @staticmethod
    @classified_tool
    def outer_staticmethod(item: int) -> str:
        return f"s:{item}"

    @classified_tool(raises=True)
    def failing(self, item: int) -> str:
        raise httpx.ConnectError("down")


@pytest.mark.parametrize(
    ("attribute", "expected"),
    [
        ("method", "main:1"),
        ("inner_classmethod", "c:1"),
        ("outer_classmethod", "c:1"),
        ("inner_staticmethod", "s:1"),
        ("outer_staticmethod", "s:1"),
    ],
)
def test_methods_bind_like_the_original(attribute: str, expected: str) -> None:
    """Instance, class and static methods (both decorator orders) bind as undecorated ones."""
    via_instance = getattr(Catalogue(), attribute)
    assert via_instance(1).value == expected
    assert via_instance(item=1).value == expected
    if attribute != "method":
        assert getattr(Catalogue, attribute)(1).value == expected
    assert "self" not in inspect.signature(via_instance).parameters
    assert "cls" not in inspect.signature(via_instance).parameters


def test_method_called_through_the_class() -> None:
    """Catalogue.method(instance, x) works as for an undecorated method."""
    shelf = Catalogue()
    assert Catalogue.method(shelf, 2).value == "main:2"
    assert Catalogue.method.__doc__ == "Instance method."
    assert Catalogue.method.__qualname__ == "Catalogue.method"


def test_method_raises_typed_error() -> None:
    """A method in raises mode raises the typed error."""
    with pytest.raises(TransientToolError):
        Catalogue().failing(1)


def test_nested_function_and_closure() -> None:
    """A nested function keeps its closure and qualname."""
    factor = 3

    @classified_tool
    def scale(x: int) -> int:
        return x * factor

    assert scale(2).value == 6
    assert scale.__qualname__.endswith("<locals>.scale")


def test_callable_object() -> None:
    """A callable instance can be decorated; its __call__ is the body."""

    class Adder:
        def __call__(self, x: int) -> int:
            if x < 0:
                raise TypeError("negative")
            return x + 1

    tool = classified_tool(Adder())
    assert tool(1).value == 2
    assert tool(1, 2).code is Code.SCHEMA_INVALID
    assert tool(-1).code is Code.UNKNOWN  # raised in the body


def test_pickled_error_keeps_outcome() -> None:
    """The typed error raised by a tool survives pickling (Celery, multiprocessing)."""

    @classified_tool(raises=True)
    def tool() -> None:
        raise httpx.ReadTimeout("slow")

    with pytest.raises(TransientToolError) as info:
        tool()
    clone = pickle.loads(pickle.dumps(info.value))
    assert clone.outcome == info.value.outcome


# --- exceptions that are never classified -----------------------------------------------

PROPAGATED = [KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError]


@pytest.mark.parametrize("exc_type", PROPAGATED)
@pytest.mark.parametrize("raises", [False, True])
def test_base_exceptions_propagate(exc_type: type[BaseException], raises: bool) -> None:
    """KeyboardInterrupt, SystemExit, GeneratorExit, CancelledError escape untouched."""
    seen: list[object] = []
    original = exc_type()

    @classified_tool(raises=raises, on_failure=lambda *a: seen.append(a))
    def tool() -> None:
        raise original

    with pytest.raises(exc_type) as info:
        tool()
    assert info.value is original
    assert info.value.__cause__ is None
    assert seen == []


@pytest.mark.parametrize("exc_type", PROPAGATED)
def test_base_exceptions_propagate_from_methods(exc_type: type[BaseException]) -> None:
    """The same holds for methods, even with a catch-all errors= mapping."""

    class Service:
        @classified_tool(errors={Exception: Code.UNAVAILABLE})
        def run(self) -> None:
            raise exc_type()

    with pytest.raises(exc_type):
        Service().run()


# --- observers ---------------------------------------------------------------------------


def test_on_failure_sees_name_outcome_and_exception() -> None:
    """on_failure gets the tool name, the outcome and the original exception, once."""
    seen: list[tuple[str, Outcome[Any], BaseException | None]] = []
    original = httpx.ConnectError("down")

    @classified_tool(on_failure=lambda *args: seen.append(args))
    def fetch(item: int) -> str:
        raise original

    outcome = fetch(1)
    assert seen == [("fetch", outcome, original)]
    assert seen[0][1] is outcome


def test_on_failure_for_results_and_binding() -> None:
    """Returned failures report no exception; binding failures report the TypeError."""
    seen: list[tuple[str, Outcome[Any], BaseException | None]] = []

    @classified_tool(on_failure=lambda *args: seen.append(args))
    def fetch(status: int) -> httpx.Response:
        return httpx.Response(status, request=httpx.Request("GET", "https://x.test"))

    fetch(200)
    assert seen == []
    fetch(404)
    fetch(status=1, extra=2)  # type: ignore[call-arg]
    assert [(name, o.code, type(e)) for name, o, e in seen] == [
        ("fetch", Code.NOT_FOUND, type(None)),
        ("fetch", Code.SCHEMA_INVALID, TypeError),
    ]


def test_on_failure_in_raises_mode() -> None:
    """The observer runs before the typed error is raised."""
    seen: list[Code | None] = []

    @classified_tool(raises=True, on_failure=lambda name, o, e: seen.append(o.code))
    def tool() -> None:
        raise KeyError("x")

    with pytest.raises(IndeterminateToolError):
        tool()
    assert seen == [Code.UNKNOWN]


def test_observer_that_raises_does_not_break_the_call(caplog: pytest.LogCaptureFixture) -> None:
    """An observer's own exception is logged and the tool's outcome is still returned."""

    def observer(name: str, outcome: Outcome[Any], exc: BaseException | None) -> None:
        raise RuntimeError("observer bug")

    @classified_tool(on_failure=observer)
    def tool() -> None:
        raise httpx.ConnectError("down")

    with caplog.at_level(logging.WARNING, logger="agenterr"):
        outcome = tool()
    assert outcome.code is Code.UNAVAILABLE
    record = next(r for r in caplog.records if "observer" in r.getMessage())
    # The traceback is the record's exc_text, through the redaction gate (not exc_info).
    assert record.exc_text is not None and "RuntimeError: observer bug" in record.exc_text


def test_logger_levels(caplog: pytest.LogCaptureFixture) -> None:
    """Failures are logged to 'agenterr': UNKNOWN at WARNING with a traceback, others at INFO."""

    @classified_tool
    def tool(kind: str) -> None:
        if kind == "bug":
            raise ZeroDivisionError("x")
        raise httpx.ConnectError("down")

    with caplog.at_level(logging.DEBUG, logger="agenterr"):
        tool("bug")
        tool("net")
    bug, net = [r for r in caplog.records if r.name == "agenterr"]
    assert bug.levelno == logging.WARNING and bug.exc_text is not None
    assert "ZeroDivisionError: x" in bug.exc_text
    assert net.levelno == logging.INFO and net.exc_text is None and net.exc_info is None
    assert net.getMessage() == "tool tool failed: UNAVAILABLE class=transient"
    assert net.agenterr_tool == "tool"  # type: ignore[attr-defined]
    assert net.agenterr_outcome.code is Code.UNAVAILABLE  # type: ignore[attr-defined]


def test_success_is_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    """Nothing is logged, and no observer runs, on success."""
    seen: list[object] = []
    tool = classified_tool(on_failure=lambda *a: seen.append(a))(search)
    with caplog.at_level(logging.DEBUG, logger="agenterr"):
        tool("a")
    assert caplog.records == [] and seen == []


# --- pickling and copying ---------------------------------------------------------------


@classified_tool
def module_level_tool(query: str) -> str:
    """A decorated tool reachable by module and qualified name."""
    return query.upper()


@classified_tool(raises=True)
async def module_level_async_tool(query: str) -> str:
    return query


def test_decorated_tool_pickles_by_reference() -> None:
    """Like a function, a module-level decorated tool pickles by reference (process pools,
    Celery), with every protocol."""
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(module_level_tool, protocol)) is module_level_tool
    clone = pickle.loads(pickle.dumps(module_level_async_tool))
    assert clone is module_level_async_tool
    assert module_level_tool("a").value == "A"


def test_decorated_tool_copies_as_itself() -> None:
    """copy and deepcopy return the tool itself, as for functions (LangChain's
    model_copy(deep=True) deep-copies the function it holds)."""
    import copy

    assert copy.copy(module_level_tool) is module_level_tool
    assert copy.deepcopy(module_level_tool) is module_level_tool
    assert copy.deepcopy({"tool": module_level_tool})["tool"] is module_level_tool


def test_local_tool_does_not_pickle() -> None:
    """A tool defined inside a function cannot be found by name, as for functions."""

    @classified_tool
    def local(x: int) -> int:
        return x

    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(local)


# --- logging that raises ----------------------------------------------------------------


class _RaisingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        raise RuntimeError("filter blew up")


class _RaisingHandler(logging.Handler):
    def handle(self, record: logging.LogRecord) -> bool:
        raise RuntimeError("handler.handle blew up")

    def emit(self, record: logging.LogRecord) -> None:  # pragma: no cover - never reached
        pass


@pytest.mark.parametrize("breaker", ["filter", "handler"])
def test_raising_logging_setup_does_not_escape(breaker: str) -> None:
    """A Filter or Handler of the application that raises neither escapes Outcome mode nor
    replaces raises mode's typed error."""
    log = logging.getLogger("agenterr")
    level = log.level
    filt, handler = _RaisingFilter(), _RaisingHandler()
    log.setLevel(logging.INFO)
    if breaker == "filter":
        log.addFilter(filt)
    else:
        log.addHandler(handler)
    try:

        def tool() -> None:
            raise ValueError("x")

        assert classified_tool(tool)().code is Code.UNKNOWN
        with pytest.raises(IndeterminateToolError):
            classified_tool(raises=True)(tool)()
    finally:
        log.removeFilter(filt)
        log.removeHandler(handler)
        log.setLevel(level)
