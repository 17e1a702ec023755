"""Generator and async-generator tools: what each mode yields or raises mid-iteration.

Outcome mode: every item is an Outcome; an exception ends the iteration with one last
failed Outcome. Raises mode: items pass through; an exception raises the typed error.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Generator, Iterator
from typing import Any

import httpx
import pytest

from agenterr import (
    Code,
    IndeterminateToolError,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
)


def pages(n: int, fail: BaseException | None = None) -> Iterator[int]:
    """Yield n pages, then fail."""
    yield from range(n)
    if fail is not None:
        raise fail


async def apages(n: int, fail: BaseException | None = None) -> AsyncIterator[int]:
    """Yield n pages, then fail."""
    for i in range(n):
        await asyncio.sleep(0)
        yield i
    if fail is not None:
        raise fail


async def collect(iterator: AsyncIterator[Any]) -> list[Any]:
    return [item async for item in iterator]


def test_kind_is_preserved() -> None:
    """inspect still sees a generator / async generator function."""
    assert inspect.isgeneratorfunction(classified_tool(pages))
    assert inspect.isasyncgenfunction(classified_tool(apages))
    assert not inspect.iscoroutinefunction(classified_tool(apages))
    assert inspect.signature(classified_tool(pages)) == inspect.signature(pages)


def test_outcome_mode_wraps_each_item() -> None:
    """Every item is Outcome.success(item); a clean end yields nothing more."""
    assert list(classified_tool(pages)(3)) == [Outcome.success(i) for i in range(3)]
    assert [o.value for o in classified_tool(pages)(3)] == [0, 1, 2]


def test_outcome_mode_ends_with_one_failure() -> None:
    """An exception mid-iteration ends the iteration with one failed Outcome."""
    items = list(classified_tool(pages)(2, httpx.ReadTimeout("slow")))
    assert [o.value for o in items[:2]] == [0, 1]
    assert items[2].code is Code.TIMEOUT
    assert isinstance(items[2].error, httpx.ReadTimeout)
    assert len(items) == 3


def test_outcome_mode_bad_arguments_yield_one_failure() -> None:
    """Arguments that do not bind give an iterator with one SCHEMA_INVALID Outcome."""
    items = list(classified_tool(pages)(count=2))  # type: ignore[call-arg]
    assert [o.code for o in items] == [Code.SCHEMA_INVALID]
    assert "unexpected argument 'count'" in items[0].llm_hint


def test_raises_mode_passes_items_and_raises() -> None:
    """Raises mode yields the raw items, then raises the typed error from the original."""
    gen = classified_tool(raises=True)(pages)(2, httpx.ConnectError("down"))
    assert next(gen) == 0
    assert next(gen) == 1
    with pytest.raises(TransientToolError) as info:
        next(gen)
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    with pytest.raises(StopIteration):
        next(gen)


def test_raises_mode_bad_arguments_raise_at_call() -> None:
    """Like a plain generator function, bad arguments fail at the call, not at next()."""
    with pytest.raises(SelfCorrectableToolError):
        classified_tool(raises=True)(pages)(1, 2, 3)  # type: ignore[call-arg]


def test_bug_mid_iteration_is_unknown() -> None:
    """A TypeError mid-iteration is a bug, never an argument error."""
    items = list(classified_tool(pages)(1, TypeError("bad")))
    assert items[-1].code is Code.UNKNOWN
    with pytest.raises(IndeterminateToolError):
        list(classified_tool(raises=True)(pages)(1, TypeError("bad")))


def test_yielded_items_are_treated_like_return_values() -> None:
    """A yielded failed Outcome or error response is a failure item; iteration goes on."""
    request = httpx.Request("GET", "https://x.test")

    @classified_tool
    def mixed() -> Iterator[Any]:
        yield Outcome.failure(Code.NOT_FOUND, "no page 2")
        yield httpx.Response(503, request=request)
        yield "fine"

    assert [o.code for o in mixed()] == [Code.NOT_FOUND, Code.UNAVAILABLE, None]
    with pytest.raises(SelfCorrectableToolError):
        list(classified_tool(raises=True)(mixed.__wrapped__)())


def test_return_value_send_and_throw_are_forwarded() -> None:
    """send(), throw() and the generator's return value reach through the wrapper."""
    log: list[Any] = []

    def echo() -> Generator[int, str, str]:
        try:
            while True:
                received = yield len(log)
                log.append(received)
        except KeyError:
            log.append("caught")
            yield -1
        return "done"

    gen = classified_tool(raises=True)(echo)()
    assert next(gen) == 0
    assert gen.send("a") == 1
    assert gen.throw(KeyError("k")) == -1
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert stop.value.value == "done"
    assert log == ["a", "caught"]

    wrapped = classified_tool(echo)()
    assert next(wrapped) == Outcome.success(2)
    assert wrapped.send("b") == Outcome.success(3)


def test_closing_closes_the_tool() -> None:
    """Breaking out of the loop closes the wrapped generator (its finally runs)."""
    closed: list[bool] = []

    @classified_tool
    def stream() -> Iterator[int]:
        try:
            yield from range(10)
        finally:
            closed.append(True)

    for outcome in stream():
        if outcome.value == 1:
            break
    assert closed == [True]


@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_base_exceptions_propagate(exc_type: type[BaseException]) -> None:
    """BaseExceptions raised mid-iteration are not classified."""
    with pytest.raises(exc_type):
        list(classified_tool(pages)(1, exc_type()))


def test_methods() -> None:
    """Generator methods bind like plain ones."""

    class Feed:
        size = 2

        @classified_tool
        def items(self) -> Iterator[int]:
            yield from range(self.size)

    assert [o.value for o in Feed().items()] == [0, 1]


# --- async generators -------------------------------------------------------------------


@pytest.mark.asyncio
async def test_async_outcome_mode() -> None:
    """Async generators: every item an Outcome, one failure at the end."""
    items = await collect(classified_tool(apages)(2, httpx.ConnectError("down")))
    assert [o.value for o in items[:2]] == [0, 1]
    assert items[2].code is Code.UNAVAILABLE and len(items) == 3
    clean = await collect(classified_tool(apages)(2))
    assert clean == [Outcome.success(0), Outcome.success(1)]


@pytest.mark.asyncio
async def test_async_raises_mode() -> None:
    """Async raises mode: raw items, then the typed error."""
    seen: list[int] = []
    with pytest.raises(TransientToolError):
        async for item in classified_tool(raises=True)(apages)(2, TimeoutError()):
            seen.append(item)
    assert seen == [0, 1]


@pytest.mark.asyncio
async def test_async_bad_arguments() -> None:
    """Bad arguments: a one-item async iterator, or a raise at the call in raises mode."""
    items = await collect(classified_tool(apages)(pages=3))  # type: ignore[call-arg]
    assert [o.code for o in items] == [Code.SCHEMA_INVALID]
    with pytest.raises(SelfCorrectableToolError):
        classified_tool(raises=True)(apages)()  # type: ignore[call-arg]


@pytest.mark.asyncio
async def test_async_cancellation_propagates() -> None:
    """CancelledError raised mid-iteration escapes."""
    with pytest.raises(asyncio.CancelledError):
        await collect(classified_tool(apages)(1, asyncio.CancelledError()))


@pytest.mark.asyncio
async def test_async_send_throw_and_close() -> None:
    """asend/athrow are forwarded; aclose closes the wrapped generator."""
    closed: list[bool] = []

    async def echo() -> Any:
        try:
            received = yield 0
            try:
                yield received
            except KeyError:
                yield "caught"
            yield "after"
        finally:
            closed.append(True)

    agen = classified_tool(raises=True)(echo)()
    assert await agen.__anext__() == 0
    assert await agen.asend("hello") == "hello"
    assert await agen.athrow(KeyError("k")) == "caught"
    await agen.aclose()
    assert closed == [True]


@pytest.mark.asyncio
async def test_async_generator_method() -> None:
    """Async generator methods bind like plain ones."""

    class Feed:
        @classified_tool
        async def items(self, n: int) -> AsyncIterator[int]:
            for i in range(n):
                yield i

    assert [o.value for o in await collect(Feed().items(2))] == [0, 1]


# --- failed items, the consumer's throw(), cleanup failures -------------------------------

REQUEST = httpx.Request("GET", "https://x.test")


def forgiving_feed(thrown: list[str]) -> Iterator[Any]:
    """Yields 0, a 404 response, 2; swallows anything thrown into it."""
    for i in range(3):
        try:
            yield httpx.Response(404, request=REQUEST) if i == 1 else i
        except Exception as exc:
            thrown.append(type(exc).__name__)


async def aforgiving_feed(thrown: list[str]) -> AsyncIterator[Any]:
    """The async twin of forgiving_feed."""
    for i in range(3):
        try:
            yield httpx.Response(404, request=REQUEST) if i == 1 else i
        except Exception as exc:
            thrown.append(type(exc).__name__)


def test_raises_mode_failed_item_reaches_the_consumer_not_the_tool() -> None:
    """A failed yielded item raises its typed error to the consumer, once observed; it is
    not thrown into the tool (which could swallow it)."""
    thrown: list[str] = []
    seen: list[Code | None] = []
    tool = classified_tool(raises=True, on_failure=lambda n, o, e: seen.append(o.code))(
        forgiving_feed
    )
    items: list[Any] = []
    with pytest.raises(SelfCorrectableToolError):
        items.extend(tool(thrown))
    assert items == [0]
    assert thrown == []
    assert seen == [Code.NOT_FOUND]


@pytest.mark.asyncio
async def test_async_raises_mode_failed_item_reaches_the_consumer_not_the_tool() -> None:
    """Async: the same as the sync case."""
    thrown: list[str] = []
    seen: list[Code | None] = []
    tool = classified_tool(raises=True, on_failure=lambda n, o, e: seen.append(o.code))(
        aforgiving_feed
    )
    items: list[Any] = []
    with pytest.raises(SelfCorrectableToolError):
        async for item in tool(thrown):
            items.append(item)
    assert items == [0]
    assert thrown == []
    assert seen == [Code.NOT_FOUND]


def two_items() -> Iterator[int]:
    yield 1
    yield 2


async def atwo_items() -> AsyncIterator[int]:
    yield 1
    yield 2


@pytest.mark.parametrize("raises", [False, True])
def test_consumer_throw_not_handled_comes_back_unchanged(raises: bool) -> None:
    """throw() of the consumer's own exception, unhandled by the tool, is re-raised as is
    (as a plain generator does), not classified or observed as a tool failure."""
    seen: list[object] = []
    gen = classified_tool(raises=raises, on_failure=lambda *a: seen.append(a))(two_items)()
    next(gen)
    mine = ValueError("consumer's own")
    with pytest.raises(ValueError) as info:
        gen.throw(mine)
    assert info.value is mine
    assert seen == []


@pytest.mark.asyncio
@pytest.mark.parametrize("raises", [False, True])
async def test_async_consumer_athrow_not_handled_comes_back_unchanged(raises: bool) -> None:
    """athrow() of the consumer's own exception comes back unchanged."""
    seen: list[object] = []
    agen = classified_tool(raises=raises, on_failure=lambda *a: seen.append(a))(atwo_items)()
    await agen.__anext__()
    mine = ValueError("consumer's own")
    with pytest.raises(ValueError) as info:
        await agen.athrow(mine)
    assert info.value is mine
    assert seen == []


def test_consumer_throw_turned_into_another_error_is_classified() -> None:
    """If the tool answers a thrown exception by raising another one, that one is its
    failure, classified as usual."""

    def translating() -> Iterator[int]:
        try:
            yield 1
        except ValueError as exc:
            raise httpx.ConnectError("gone") from exc

    gen = classified_tool(translating)()
    next(gen)
    assert gen.throw(ValueError("x")).code is Code.UNAVAILABLE


def failing_cleanup() -> Iterator[int]:
    try:
        yield 1
        yield 2
    finally:
        raise ConnectionResetError("cleanup failed")


async def afailing_cleanup() -> AsyncIterator[int]:
    try:
        yield 1
        yield 2
    finally:
        raise ConnectionResetError("cleanup failed")


def test_cleanup_failure_on_close() -> None:
    """The tool's cleanup raising on close: observed in both modes; swallowed in Outcome
    mode (which never raises), the typed error in raises mode."""
    seen: list[Code | None] = []
    observe = classified_tool(on_failure=lambda n, o, e: seen.append(o.code))
    gen = observe(failing_cleanup)()
    next(gen)
    gen.close()
    for _ in observe(failing_cleanup)():
        break
    assert seen == [Code.UNAVAILABLE, Code.UNAVAILABLE]

    raising = classified_tool(raises=True)(failing_cleanup)()
    next(raising)
    with pytest.raises(TransientToolError) as info:
        raising.close()
    assert isinstance(info.value.__cause__, ConnectionResetError)


def test_cleanup_failure_does_not_replace_an_error_in_flight() -> None:
    """A failed item's typed error wins over the cleanup failure it triggers."""

    def feed() -> Iterator[Any]:
        try:
            yield httpx.Response(404, request=REQUEST)
        finally:
            raise ConnectionResetError("cleanup failed")

    with pytest.raises(SelfCorrectableToolError):
        list(classified_tool(raises=True)(feed)())


@pytest.mark.asyncio
async def test_async_cleanup_failure_on_close() -> None:
    """Async: aclose() in Outcome mode swallows the cleanup failure; raises mode raises."""
    seen: list[Code | None] = []
    agen = classified_tool(on_failure=lambda n, o, e: seen.append(o.code))(afailing_cleanup)()
    await agen.__anext__()
    await agen.aclose()
    assert seen == [Code.UNAVAILABLE]

    raising = classified_tool(raises=True)(afailing_cleanup)()
    await raising.__anext__()
    with pytest.raises(TransientToolError):
        await raising.aclose()
