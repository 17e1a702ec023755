"""A sync tool that returns an awaitable (issue 24): classified when awaited.

``def tool(x): return client.get(x)`` with an async client is typed, by the decorator's
overloads, exactly as ``async def`` is: the call returns a coroutine whose result is an
Outcome (or, with ``raises=True``, the value or the typed error). The wrapper keeps that
promise at run time, for a sync caller (``asyncio.run``) and an async one (``await``), and
leaves no "coroutine was never awaited" warning behind.
"""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import Awaitable, Callable, Coroutine, Iterator
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

SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123456789"


async def _body(x: int) -> int:
    await asyncio.sleep(0)
    if x == 1:
        raise httpx.ConnectTimeout("connect timed out")
    if x == 2:
        raise ValueError(f"bad key {SECRET}")
    if x == 3:
        raise TypeError("raised inside the body, not a bad call")
    return x * 10


observed: list[tuple[str, Code | None]] = []


def _observe(name: str, outcome: Outcome[Any], exc: BaseException | None) -> None:
    observed.append((name, outcome.code))


@classified_tool(on_failure=_observe)
def outcome_tool(x: int) -> Coroutine[Any, Any, int]:
    return _body(x)


@classified_tool(raises=True, on_failure=_observe)
def raising_tool(x: int) -> Coroutine[Any, Any, int]:
    return _body(x)


@classified_tool
def future_tool(x: int) -> Awaitable[int]:
    """Returns a task, not a coroutine: any awaitable is awaited and classified."""
    return asyncio.ensure_future(_body(x))


@pytest.fixture(autouse=True)
def no_unawaited_coroutine() -> Iterator[None]:
    """Every test here must leave no coroutine that was never awaited."""
    observed.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []


def _sync_caller(call: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    return asyncio.run(call())


def _async_caller(call: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    async def main() -> Any:
        return await call()

    return asyncio.run(main())


CALLERS = [_sync_caller, _async_caller]


@pytest.mark.parametrize("caller", CALLERS)
def test_outcome_mode_success(caller: Callable[..., Any]) -> None:
    result = outcome_tool(4)
    assert asyncio.iscoroutine(result)
    result.close()
    outcome = caller(lambda: outcome_tool(4))
    assert isinstance(outcome, Outcome) and outcome.ok and outcome.value == 40
    assert observed == []


@pytest.mark.parametrize("caller", CALLERS)
def test_outcome_mode_failures_are_classified(caller: Callable[..., Any]) -> None:
    timeout = caller(lambda: outcome_tool(1))
    assert timeout.code is Code.TIMEOUT and timeout.retryable
    bug = caller(lambda: outcome_tool(2))
    assert bug.code is Code.UNKNOWN and SECRET not in bug.llm_hint
    # A TypeError from awaiting the body is the tool's bug, not arguments that did not bind.
    assert caller(lambda: outcome_tool(3)).code is Code.UNKNOWN
    assert observed == [
        ("outcome_tool", Code.TIMEOUT),
        ("outcome_tool", Code.UNKNOWN),
        ("outcome_tool", Code.UNKNOWN),
    ]


@pytest.mark.parametrize("caller", CALLERS)
def test_raises_mode(caller: Callable[..., Any]) -> None:
    assert caller(lambda: raising_tool(4)) == 40
    with pytest.raises(TransientToolError) as transient:
        caller(lambda: raising_tool(1))
    assert isinstance(transient.value.__cause__, httpx.ConnectTimeout)
    assert transient.value.outcome.code is Code.TIMEOUT
    with pytest.raises(IndeterminateToolError) as bug:
        caller(lambda: raising_tool(2))
    assert isinstance(bug.value.__cause__, ValueError)
    assert [code for _, code in observed] == [Code.TIMEOUT, Code.UNKNOWN]


@pytest.mark.parametrize("caller", CALLERS)
def test_any_awaitable_is_classified(caller: Callable[..., Any]) -> None:
    async def both() -> tuple[Any, Any]:
        return await future_tool(4), await future_tool(1)  # type: ignore[misc]

    ok, failed = caller(both)
    assert ok.ok and ok.value == 40
    assert failed.code is Code.TIMEOUT


def test_arguments_that_do_not_bind_fail_at_the_call() -> None:
    """The sync call itself still binds its arguments: no coroutine is made."""
    outcome = outcome_tool()  # type: ignore[call-arg]
    assert isinstance(outcome, Outcome) and outcome.code is Code.SCHEMA_INVALID


def test_repeated_calls_are_never_taken_for_plain_values() -> None:
    """The result-type cache must not learn the coroutine type as a plain value."""
    for _ in range(3):
        assert _sync_caller(lambda: outcome_tool(4)).value == 40


def test_envelopes_mode_reads_what_was_awaited() -> None:
    async def reply() -> dict[str, Any]:
        return {"ok": False, "error": "ratelimited"}

    @classified_tool(envelopes=True)
    def slack(x: int) -> Coroutine[Any, Any, dict[str, Any]]:
        return reply()

    assert _sync_caller(lambda: slack(1)).code is Code.RATE_LIMITED


def test_a_dropped_call_is_reported_once_by_the_tools_name() -> None:
    """A caller that never awaits is told which coroutine it dropped, once; one that
    closes the call closes the tool's coroutine with it."""
    closed = outcome_tool(4)
    assert closed.__qualname__ == "_body"
    closed.close()
    del closed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome_tool(4)
        gc.collect()
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert messages == ["coroutine '_body' was never awaited"]


def test_a_sync_method_returning_a_coroutine() -> None:
    class Client:
        @classified_tool(raises=True)
        def get(self, x: int) -> Coroutine[Any, Any, int]:
            return _body(x)

    assert _sync_caller(lambda: Client().get(4)) == 40
    with pytest.raises(TransientToolError):
        _sync_caller(lambda: Client().get(1))
