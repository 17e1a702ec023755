"""Exceptions registered as a framework's control flow leave ``@classified_tool`` unchanged.

The integration modules register their framework's types (their own tests prove each one
end to end); here a stand-in type, registered for each test only, proves the mechanism on
every code path: sync, async, generators, both modes, at the call and during iteration.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agenterr import (
    Code,
    Outcome,
    SelfCorrectableToolError,
    classified_tool,
)
from agenterr import _exceptions as exceptions
from agenterr._exceptions import passes_through, register_pass_through


class FrameworkSignal(Exception):
    """Stands for a framework's instruction, such as Pydantic AI's ModelRetry."""


class NarrowerSignal(FrameworkSignal):
    """A subclass: registered through its base."""


class ClassifiedSignal(FrameworkSignal, SelfCorrectableToolError):
    """Both a framework type and agenterr's, like the LangChain ToolException subclasses."""


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """FrameworkSignal registered for this test; the registry restored afterwards."""
    monkeypatch.setattr(exceptions, "_pass_through", exceptions._pass_through)
    register_pass_through(FrameworkSignal)


MODES = [pytest.param(False, id="outcome"), pytest.param(True, id="raises")]


class Observed:
    """An on_failure observer that records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Outcome[Any], BaseException | None]] = []

    def __call__(self, name: str, outcome: Outcome[Any], exc: BaseException | None) -> None:
        self.calls.append((name, outcome, exc))


@pytest.mark.parametrize("raises", MODES)
@pytest.mark.parametrize("signal_type", [FrameworkSignal, NarrowerSignal])
def test_sync_tool_lets_the_signal_through(
    raises: bool, signal_type: type[Exception], caplog: pytest.LogCaptureFixture
) -> None:
    """The very exception propagates: not classified, not observed, not logged."""
    signal = signal_type("retry with a valid id")
    observed = Observed()

    @classified_tool(raises=raises, on_failure=observed)
    def tool(order_id: str) -> str:
        raise signal

    caplog.set_level(logging.DEBUG, logger="agenterr")
    with pytest.raises(signal_type) as caught:
        tool("o-1")
    assert caught.value is signal
    assert caught.value.__context__ is None
    assert caught.value.__cause__ is None
    assert observed.calls == []
    assert [r for r in caplog.records if r.name == "agenterr"] == []


@pytest.mark.asyncio
@pytest.mark.parametrize("raises", MODES)
async def test_async_tool_lets_the_signal_through(raises: bool) -> None:
    """The same for a coroutine function."""
    signal = FrameworkSignal("later")
    observed = Observed()

    @classified_tool(raises=raises, on_failure=observed)
    async def tool(order_id: str) -> str:
        await asyncio.sleep(0)
        raise signal

    with pytest.raises(FrameworkSignal) as caught:
        await tool("o-1")
    assert caught.value is signal
    assert observed.calls == []


@pytest.mark.parametrize("raises", MODES)
def test_generator_lets_the_signal_through_mid_iteration(raises: bool) -> None:
    """Items before the signal are delivered as usual; then the signal itself, not a final
    failed Outcome or a typed error."""
    signal = FrameworkSignal("stop here")
    observed = Observed()

    @classified_tool(raises=raises, on_failure=observed)
    def pages(n: int) -> Iterator[int]:
        yield n
        raise signal

    items = pages(1)
    assert next(items) == (1 if raises else Outcome.success(1))
    with pytest.raises(FrameworkSignal) as caught:
        next(items)
    assert caught.value is signal
    assert observed.calls == []


@pytest.mark.parametrize("raises", MODES)
def test_generator_failing_before_its_first_item(raises: bool) -> None:
    """A signal raised before the first item propagates from the first next()."""
    signal = FrameworkSignal("not now")

    @classified_tool(raises=raises)
    def pages(n: int) -> Iterator[int]:
        if n:
            raise signal
        yield n

    with pytest.raises(FrameworkSignal) as caught:
        next(pages(1))
    assert caught.value is signal


@pytest.mark.parametrize("raises", MODES)
def test_generator_cleanup_raising_the_signal(raises: bool) -> None:
    """A signal raised by the tool's cleanup when the consumer closes the wrapper comes out
    of close(), as from a plain generator: not swallowed, not observed."""
    signal = FrameworkSignal("cleanup")
    observed = Observed()

    @classified_tool(raises=raises, on_failure=observed)
    def pages(n: int) -> Iterator[int]:
        try:
            yield n
        finally:
            raise signal

    items = pages(1)
    next(items)
    with pytest.raises(FrameworkSignal) as caught:
        items.close()
    assert caught.value is signal
    assert observed.calls == []


@pytest.mark.asyncio
@pytest.mark.parametrize("raises", MODES)
async def test_async_generator_lets_the_signal_through(raises: bool) -> None:
    """The same for an async generator, during iteration and in its cleanup."""
    signal = FrameworkSignal("async stop")
    observed = Observed()

    @classified_tool(raises=raises, on_failure=observed)
    async def pages(n: int) -> AsyncIterator[int]:
        yield n
        raise signal

    items = pages(1).__aiter__()
    assert await items.__anext__() == (1 if raises else Outcome.success(1))
    with pytest.raises(FrameworkSignal) as caught:
        await items.__anext__()
    assert caught.value is signal

    @classified_tool(raises=raises, on_failure=observed)
    async def closing(n: int) -> AsyncIterator[int]:
        try:
            yield n
        finally:
            raise signal

    agen = closing(1)
    await agen.__anext__()
    with pytest.raises(FrameworkSignal):
        await agen.aclose()  # type: ignore[attr-defined]
    assert observed.calls == []


@pytest.mark.parametrize("raises", MODES)
def test_a_catch_all_errors_rule_does_not_see_the_signal(raises: bool) -> None:
    """The check comes before classification: even errors={Exception: ...} cannot turn
    the framework's instruction into a failure."""
    signal = FrameworkSignal("retry")

    @classified_tool(raises=raises, errors={Exception: Code.UNAVAILABLE})
    def tool() -> None:
        raise signal

    with pytest.raises(FrameworkSignal) as caught:
        tool()
    assert caught.value is signal


def test_an_agenterr_error_of_a_registered_type_is_still_classified() -> None:
    """An AgentToolError is agenterr's own failure even when it is also a framework type."""
    outcome = Outcome.failure(Code.NOT_FOUND, status=404)
    raised = ClassifiedSignal(outcome)
    assert not passes_through(raised)

    @classified_tool
    def tool() -> None:
        raise raised

    @classified_tool(raises=True)
    def raising() -> None:
        raise raised

    assert tool() == outcome
    with pytest.raises(ClassifiedSignal) as caught:
        raising()
    assert caught.value is raised


def test_unregistered_exceptions_are_classified_as_before() -> None:
    """Only registered types pass: any other exception is still a failure."""

    class Other(Exception):
        pass

    @classified_tool
    def tool() -> None:
        raise Other("bug")

    assert tool().code is Code.UNKNOWN
    assert passes_through(FrameworkSignal()) and passes_through(NarrowerSignal())
    assert not passes_through(Other())


def test_registration_is_read_when_the_tool_fails() -> None:
    """A type registered after the tool was decorated passes too (integration modules may be
    imported after the tools are defined)."""

    class Late(Exception):
        pass

    @classified_tool
    def tool() -> None:
        raise Late("x")

    assert tool().code is Code.UNKNOWN
    register_pass_through(Late)
    with pytest.raises(Late):
        tool()


def test_register_pass_through_is_idempotent_and_checks_its_arguments() -> None:
    """Registering twice keeps one entry; only Exception subclasses are accepted
    (BaseExceptions propagate anyway)."""
    before = exceptions._pass_through
    register_pass_through(FrameworkSignal, FrameworkSignal)
    assert exceptions._pass_through == before
    for wrong in (KeyboardInterrupt, FrameworkSignal("instance"), "FrameworkSignal", int):
        with pytest.raises(TypeError, match="Exception subclasses"):
            register_pass_through(wrong)  # type: ignore[arg-type]
    assert exceptions._pass_through == before


# --- the frameworks' own types, whatever has been imported ------------------------------

FRAMEWORKS = {
    "pydantic_ai": [
        ("pydantic_ai.exceptions", "ModelRetry"),
        ("pydantic_ai.exceptions", "ToolFailed"),
        ("pydantic_ai.exceptions", "CallDeferred"),
        ("pydantic_ai.exceptions", "ApprovalRequired"),
    ],
    "langchain_core": [("langchain_core.tools", "ToolException")],
    "mcp": [
        ("mcp.server.mcpserver.exceptions", "ToolError"),
        ("mcp.server.mcpserver.exceptions", "ResourceError"),
        ("mcp.shared.exceptions", "UrlElicitationRequiredError"),
    ],
    "celery": [
        ("celery.exceptions", "Retry"),
        ("celery.exceptions", "Ignore"),
        ("celery.exceptions", "Reject"),
        ("celery.exceptions", "SoftTimeLimitExceeded"),
        ("celery.exceptions", "TimeLimitExceeded"),
    ],
    "dramatiq": [("dramatiq", "Retry")],
    "temporalio": [
        ("temporalio.exceptions", "ApplicationError"),
        ("temporalio.exceptions", "CancelledError"),
    ],
}

_PROBE = """
import importlib, sys
import agenterr

names = {names!r}
classes = [getattr(importlib.import_module(module), name) for module, name in names]
for cls in classes:
    signal = cls.__new__(cls)  # no framework-specific constructor arguments needed
    for raises in (False, True):
        tool = agenterr.classified_tool(raises=raises)(lambda: (_ for _ in ()).throw(signal))
        try:
            tool()
        except BaseException as caught:
            assert caught is signal, (cls, raises, caught)
        else:
            raise AssertionError(f"{{cls}} did not pass through (raises={{raises}})")
loaded = sorted(m for m in sys.modules if m.startswith("agenterr.integrations"))
print(len(classes), loaded)
"""


@pytest.mark.external
@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_framework_control_flow_passes_without_the_integration(framework: str) -> None:
    """In a fresh interpreter that imports only the framework and agenterr (no integration
    module), each of the framework's control-flow exceptions leaves the tool unchanged."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip(framework)
    probe = _PROBE.format(names=FRAMEWORKS[framework])
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split(maxsplit=1) == [str(len(FRAMEWORKS[framework])), "[]"]


def test_the_table_names_each_installed_framework_class_where_it_is_defined() -> None:
    """Every class above, as installed, is matched by its own MRO entry in the table."""
    import importlib

    for framework, names in FRAMEWORKS.items():
        if importlib.util.find_spec(framework) is None:
            continue
        for module, name in names:
            cls = getattr(importlib.import_module(module), name)
            assert any(
                (c.__module__, c.__qualname__) in exceptions.FRAMEWORK_CONTROL_FLOW
                for c in cls.__mro__
            ), cls
            assert passes_through(cls.__new__(cls))


def test_an_unhashable_exception_class_is_classified() -> None:
    """The table's lookup never fails the call: an exception whose class cannot be hashed
    is a bug like any other."""

    class Unhashable(type):
        __hash__ = None  # type: ignore[assignment]

    class Odd(Exception, metaclass=Unhashable):
        pass

    @classified_tool
    def tool() -> None:
        raise Odd("x")

    assert not passes_through(Odd())
    assert tool().code is Code.UNKNOWN
