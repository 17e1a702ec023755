"""Never run: type checkers (mypy --strict, pyright) check every public call shape of
``@classified_tool`` and of the integration adapters against the types they promise."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Generator, Iterator
from typing import Any, assert_type

import httpx

from agenterr import Code, Failure, Outcome, Success, TransientToolError, classified_tool
from agenterr.integrations.openai_agents import unwrap_outcome
from agenterr.integrations.temporal import classified_activity

# --- Outcome mode ----------------------------------------------------------------------


@classified_tool
def get_user(user_id: int, *, verbose: bool = False) -> dict[str, str]:
    return {}


assert_type(get_user(1), Success[dict[str, str]] | Failure)
assert_type(get_user(1, verbose=True).value, dict[str, str] | None)


@classified_tool()
def called_form(x: str) -> int:
    return 0


assert_type(called_form("a"), Success[int] | Failure)


@classified_tool(errors={KeyError: Code.NOT_FOUND}, expose_errors=True, idempotent=False)
def with_options(x: str) -> None:
    return None


assert_type(with_options("a"), Success[None] | Failure)


@classified_tool(envelopes=True)
def post_message(channel: str) -> dict[str, object]:
    return {"ok": True}


assert_type(post_message("C1"), Success[dict[str, object]] | Failure)


def on_failure(name: str, outcome: Outcome[Any], exc: BaseException | None) -> None:
    pass


def on_conflict(exc: httpx.HTTPStatusError) -> Outcome[Any] | None:
    return None


@classified_tool(on_failure=on_failure, errors={httpx.HTTPStatusError: on_conflict})
async def fetch(url: str) -> httpx.Response:
    return httpx.Response(200)


def fetch_is_a_coroutine() -> None:
    pending = fetch("u")
    _ = assert_type(pending, Coroutine[Any, Any, Success[httpx.Response] | Failure])
    pending.close()


async def use_fetch() -> None:
    outcome = await fetch("https://example.test")
    assert_type(outcome, Success[httpx.Response] | Failure)
    if outcome.retryable:
        assert_type(outcome.retry_after, float | None)


@classified_tool
def pages(n: int) -> Iterator[int]:
    yield n


assert_type(pages(2), Iterator[Success[int] | Failure])


@classified_tool
def echo(n: int) -> Generator[int, str, bool]:
    yield n
    return True


assert_type(echo(1), Generator[Success[int] | Failure, str, bool | None])


@classified_tool
async def apages(n: int) -> AsyncIterator[int]:
    yield n


assert_type(apages(1), AsyncIterator[Success[int] | Failure])


class Service:
    @classified_tool
    def method(self, x: int) -> str:
        return ""

    @classified_tool
    async def amethod(self, x: int) -> str:
        return ""

    @classmethod
    @classified_tool
    def build(cls, x: int) -> str:
        return ""

    @staticmethod
    @classified_tool
    def helper(x: int) -> str:
        return ""


async def use_service(service: Service) -> None:
    assert_type(service.method(1), Success[str] | Failure)
    assert_type(await service.amethod(1), Success[str] | Failure)
    assert_type(Service.build(1), Success[str] | Failure)
    assert_type(Service.helper(1), Success[str] | Failure)


# --- raises mode: the wrapped type, unchanged --------------------------------------------


@classified_tool(raises=True)
def get_value(key: str, default: int = 0) -> int:
    return default


assert_type(get_value("k"), int)


@classified_tool(raises=True, envelopes=True, idempotent=False)
async def call_rpc(method: str) -> bytes:
    return b""


async def use_call_rpc() -> None:
    assert_type(await call_rpc("tools/call"), bytes)


@classified_tool(raises=True, idempotent=False, on_failure=on_failure)
async def charge(amount: int) -> str:
    return ""


async def use_charge() -> None:
    assert_type(await charge(1), str)


@classified_tool(raises=True)
def stream(n: int) -> Iterator[bytes]:
    yield b""


assert_type(stream(1), Iterator[bytes])


class RaisingService:
    @classified_tool(raises=True)
    def method(self, x: int) -> str:
        return ""

    @classified_tool(raises=True)
    @staticmethod
    def inner_static(x: int) -> str:
        return ""

    @classified_tool(raises=True)
    @classmethod
    def inner_class(cls, x: int) -> str:
        return ""


assert_type(RaisingService().method(1), str)
assert_type(RaisingService.inner_static(1), str)
assert_type(RaisingService.inner_class(1), str)


def retry_on_transient() -> None:
    try:
        get_value("k")
    except TransientToolError as exc:
        assert_type(exc.retry_after, float | None)
        assert_type(exc.outcome, Failure)


# --- parameters stay checked -----------------------------------------------------------

get_user("not an int")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
get_value(key=1)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


# --- integration adapters --------------------------------------------------------------


@unwrap_outcome
@classified_tool
def unwrapped(x: int) -> str:
    return ""


@unwrap_outcome
@classified_tool
async def aunwrapped(x: int) -> str:
    return ""


@unwrap_outcome  # a raises-mode tool, or any function: its type passes through unchanged
@classified_tool(raises=True)
def already_plain(x: int) -> bytes:
    return b""


async def use_unwrapped() -> None:
    assert_type(unwrapped(1), str)
    assert_type(await aunwrapped(1), str)
    assert_type(already_plain(1), bytes)


@classified_activity
def activity_value(city: str) -> Outcome[float]:
    return Outcome.success(1.0)


@classified_activity
async def aactivity_value(city: str) -> Outcome[float]:
    return Outcome.success(1.0)


@classified_activity(idempotent=False)
def activity_value_with_options(city: str) -> Outcome[int]:
    return Outcome.success(1)


@classified_activity
def activity_plain(city: str) -> dict[str, int]:
    return {}


@classified_activity(expose_errors=True)
async def aactivity_plain(city: str) -> str:
    return city


async def use_activities() -> None:
    # An Outcome-annotated activity returns the value: its type is the value type.
    assert_type(activity_value("Oslo"), float)
    assert_type(await aactivity_value("Oslo"), float)
    assert_type(activity_value_with_options("Oslo"), int)
    assert_type(activity_plain("Oslo"), dict[str, int])
    assert_type(await aactivity_plain("Oslo"), str)


activity_value(1)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
