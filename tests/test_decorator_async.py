"""@classified_tool on coroutine functions and async methods."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx
import httpx2
import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestServer

from agenterr import (
    Code,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
)


async def lookup(user_id: int, *, verbose: bool = False) -> dict[str, int]:
    """Look a user up."""
    await asyncio.sleep(0)
    return {"id": user_id}


@pytest.mark.parametrize(
    "decorate", [classified_tool, classified_tool(raises=True)], ids=["outcome", "raises"]
)
def test_coroutine_function_stays_one(decorate: Any) -> None:
    """inspect sees a coroutine function with the original signature and metadata."""
    tool = decorate(lookup)
    assert inspect.iscoroutinefunction(tool)
    assert not inspect.isasyncgenfunction(tool)
    assert inspect.signature(tool) == inspect.signature(lookup)
    assert (tool.__name__, tool.__doc__, tool.__wrapped__) == ("lookup", "Look a user up.", lookup)
    assert tool.__annotations__ == lookup.__annotations__


@pytest.mark.asyncio
async def test_outcome_and_raises_modes() -> None:
    """Awaiting gives Outcome[T], or T in raises mode."""
    assert (await classified_tool(lookup)(3)).value == {"id": 3}
    assert await classified_tool(raises=True)(lookup)(3) == {"id": 3}


@pytest.mark.asyncio
async def test_call_returns_awaitable_without_running() -> None:
    """Calling the tool only creates the coroutine, as for the undecorated function."""
    ran: list[int] = []

    @classified_tool
    async def tool() -> None:
        ran.append(1)

    pending = tool()
    assert inspect.iscoroutine(pending)
    assert ran == []
    await pending
    assert ran == [1]


@pytest.mark.asyncio
async def test_binding_failure_surfaces_when_awaited() -> None:
    """Bad arguments give SCHEMA_INVALID (raises mode: SelfCorrectableToolError) on await."""
    outcome = await classified_tool(lookup)(user="7")  # type: ignore[call-arg]
    assert outcome.code is Code.SCHEMA_INVALID
    assert "unexpected argument 'user'" in outcome.llm_hint
    with pytest.raises(SelfCorrectableToolError):
        await classified_tool(raises=True)(lookup)()  # type: ignore[call-arg]


@pytest.mark.asyncio
async def test_type_error_after_an_await_is_a_bug() -> None:
    """A TypeError raised by the body, even after awaiting, is UNKNOWN."""

    @classified_tool
    async def tool(x: int) -> int:
        await asyncio.sleep(0)
        return x + "1"  # type: ignore[operator]

    assert (await tool(1)).code is Code.UNKNOWN


class Client:
    """Async methods in every binding."""

    base = 10

    @classified_tool
    async def method(self, x: int) -> int:
        return self.base + x

    @classified_tool
    @classmethod
    async def inner_classmethod(cls, x: int) -> int:
        return cls.base + x

    @classmethod
    @classified_tool
    async def outer_classmethod(cls, x: int) -> int:
        return cls.base + x

    @classified_tool
    @staticmethod
    async def inner_staticmethod(x: int) -> int:
        return x

    @staticmethod
    @classified_tool
    async def outer_staticmethod(x: int) -> int:
        return x

    @classified_tool(raises=True)
    async def failing(self) -> None:
        raise httpx.ReadTimeout("slow")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("attribute", "expected"),
    [
        ("method", 11),
        ("inner_classmethod", 11),
        ("outer_classmethod", 11),
        ("inner_staticmethod", 1),
        ("outer_staticmethod", 1),
    ],
)
async def test_async_methods(attribute: str, expected: int) -> None:
    """Every kind of async method binds and stays a coroutine function."""
    bound = getattr(Client(), attribute)
    assert inspect.iscoroutinefunction(bound)
    assert (await bound(1)).value == expected
    outcome = await bound(1, 2)
    assert outcome.code is Code.SCHEMA_INVALID
    assert "too many positional arguments" in outcome.llm_hint


@pytest.mark.asyncio
async def test_async_method_raises() -> None:
    """An async method in raises mode raises the typed error from the original."""
    with pytest.raises(TransientToolError) as info:
        await Client().failing()
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


@pytest.mark.asyncio
@pytest.mark.parametrize("raises", [False, True])
@pytest.mark.parametrize(
    "exc_type", [asyncio.CancelledError, KeyboardInterrupt, SystemExit, GeneratorExit]
)
async def test_base_exceptions_propagate(exc_type: type[BaseException], raises: bool) -> None:
    """CancelledError and the other BaseExceptions escape async tools untouched."""
    original = exc_type()

    @classified_tool(raises=raises, errors={Exception: Code.UNAVAILABLE})
    async def tool() -> None:
        await asyncio.sleep(0)
        raise original

    with pytest.raises(exc_type) as info:
        await tool()
    assert info.value is original


@pytest.mark.asyncio
async def test_task_cancellation_propagates() -> None:
    """Cancelling a task running a tool cancels it; nothing is classified."""
    seen: list[object] = []
    started = asyncio.Event()

    @classified_tool(on_failure=lambda *a: seen.append(a))
    async def slow() -> None:
        started.set()
        await asyncio.sleep(3600)

    task = asyncio.ensure_future(slow())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled() and seen == []


@pytest.mark.asyncio
async def test_asyncio_timeout_is_classified() -> None:
    """asyncio.timeout inside a tool raises TimeoutError: TIMEOUT, not a cancellation."""

    @classified_tool
    async def slow() -> None:
        async with asyncio.timeout(0.001):
            await asyncio.sleep(3600)

    assert (await slow()).code is Code.TIMEOUT


@pytest.mark.asyncio
async def test_concurrent_calls_are_independent() -> None:
    """gather() over many calls gives each its own outcome."""

    @classified_tool
    async def tool(i: int) -> int:
        await asyncio.sleep(0)
        if i % 2:
            raise httpx.ConnectError("odd")
        return i

    outcomes = await asyncio.gather(*(tool(i) for i in range(10)))
    assert [o.code for o in outcomes] == [None, Code.UNAVAILABLE] * 5
    assert [o.value for o in outcomes[::2]] == [0, 2, 4, 6, 8]


# --- real clients against a local server ------------------------------------------------


async def _status(request: web.Request) -> web.Response:
    status = int(request.match_info["status"])
    return web.Response(status=status, text=f"status {status}", headers={"Retry-After": "6"})


@pytest_asyncio.fixture
async def server() -> AsyncIterator[TestServer]:
    app = web.Application()
    app.router.add_get("/status/{status}", _status)
    async with TestServer(app, host="127.0.0.1") as running:
        yield running


@pytest.mark.asyncio
async def test_returned_aiohttp_response(server: TestServer) -> None:
    """A returned aiohttp ClientResponse is classified by status, headers and body."""
    async with aiohttp.ClientSession() as session:

        @classified_tool
        async def fetch(status: int) -> aiohttp.ClientResponse:
            response = await session.get(server.make_url(f"/status/{status}"))
            await response.read()
            return response

        ok = await fetch(200)
        assert ok.ok and isinstance(ok.value, aiohttp.ClientResponse)
        busy = await fetch(503)
        assert (busy.code, busy.status, busy.retry_after) == (Code.UNAVAILABLE, 503, 6.0)
        assert "status 503" in busy.llm_hint
        ok.value.release()


@pytest.mark.asyncio
async def test_aiohttp_raise_for_status(server: TestServer) -> None:
    """aiohttp's raise_for_status error is classified by its status."""

    @classified_tool(raises=True)
    async def fetch(status: int) -> bytes:
        async with (
            aiohttp.ClientSession(raise_for_status=True) as session,
            session.get(server.make_url(f"/status/{status}")) as response,
        ):
            return await response.read()

    assert await fetch(200) == b"status 200"
    with pytest.raises(SelfCorrectableToolError) as info:
        await fetch(404)
    assert info.value.status == 404


@pytest.mark.asyncio
async def test_aiohttp_connection_refused() -> None:
    """A refused aiohttp connection is UNAVAILABLE."""
    probe = TestServer(web.Application(), host="127.0.0.1")
    await probe.start_server()
    url = probe.make_url("/")
    await probe.close()  # nothing listens there any more

    @classified_tool
    async def fetch() -> str:
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            return await response.text()

    assert (await fetch()).code is Code.UNAVAILABLE


@pytest.mark.asyncio
async def test_httpx_mock_transport() -> None:
    """httpx and httpx2 clients over mock transports: returned and raised failures."""

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/boom":
            raise httpx.ConnectTimeout("connect", request=request)
        return httpx.Response(429, headers={"Retry-After": "2"}, text="slow down")

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:

        @classified_tool
        async def get(path: str) -> httpx.Response:
            return await client.get(f"https://api.test{path}")

        @classified_tool(raises=True)
        async def get_checked(path: str) -> dict[str, Any]:
            response = await client.get(f"https://api.test{path}")
            response.raise_for_status()
            result: dict[str, Any] = response.json()
            return result

        limited = await get("/items")
        assert (limited.code, limited.retry_after) == (Code.RATE_LIMITED, 2.0)
        assert (await get("/boom")).code is Code.TIMEOUT
        with pytest.raises(TransientToolError) as info:
            await get_checked("/items")
        assert info.value.retry_after == 2.0

    def handler2(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, json={"error": "expired token"})

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler2)) as client2:

        @classified_tool
        async def get2() -> httpx2.Response:
            return await client2.get("https://api.test/me")

        outcome: Outcome[httpx2.Response] = await get2()
        assert outcome.code is Code.UNAUTHORIZED and "expired token" in outcome.llm_hint


@pytest.mark.asyncio
async def test_callable_object_with_inherited_async_call() -> None:
    """An object whose class inherits an async __call__ is wrapped as a coroutine function."""

    class Base:
        async def __call__(self, x: int) -> int:
            if x < 0:
                raise TypeError("negative")
            return x

    class Child(Base):
        pass

    tool = classified_tool(Child())
    assert (await tool(1)).value == 1
    assert (await tool(-1)).code is Code.UNKNOWN  # raised inside __call__
    assert (await tool()).code is Code.SCHEMA_INVALID
