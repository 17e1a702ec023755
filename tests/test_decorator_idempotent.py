"""idempotent=False: a retryable failure that may have reached the server becomes UNKNOWN."""

from __future__ import annotations

import asyncio
import http.client
import logging
import socket
from collections.abc import Callable
from typing import Any

import aiohttp
import httpx
import httpx2
import pytest
import requests
import urllib3.exceptions

from agenterr import Code, IndeterminateToolError, Outcome, TransientToolError, classified_tool

URL = "https://pay.example.test/v1/charges"
REQUEST = httpx.Request("POST", URL)
MAYBE = "may already have taken effect"


def status_error(status: int) -> httpx.HTTPStatusError:
    response = httpx.Response(status, request=REQUEST)
    return httpx.HTTPStatusError(str(status), request=REQUEST, response=response)


def requests_wrapping(reason: BaseException) -> requests.ConnectionError:
    """requests' ConnectionError as urllib3 leaves it: MaxRetryError with a reason."""
    return requests.ConnectionError(urllib3.exceptions.MaxRetryError(None, "/", reason=reason))


# (exception, code when idempotent=False). Left: the request may have been acted on.
# Right: it provably was not, so repeating is as safe as for an idempotent call.
TABLE: dict[str, tuple[Callable[[], BaseException], Code]] = {
    "httpx ReadTimeout": (lambda: httpx.ReadTimeout("x"), Code.UNKNOWN),
    "httpx WriteTimeout": (lambda: httpx.WriteTimeout("x"), Code.UNKNOWN),
    "httpx ReadError": (lambda: httpx.ReadError("x"), Code.UNKNOWN),
    "httpx RemoteProtocolError": (lambda: httpx.RemoteProtocolError("x"), Code.UNKNOWN),
    "httpx2 ReadTimeout": (lambda: httpx2.ReadTimeout("x"), Code.UNKNOWN),
    "requests ReadTimeout": (lambda: requests.ReadTimeout("x"), Code.UNKNOWN),
    "requests ChunkedEncodingError": (
        requests.exceptions.ChunkedEncodingError,
        Code.UNKNOWN,
    ),
    "requests connection aborted": (
        lambda: requests.ConnectionError(
            urllib3.exceptions.ProtocolError(
                "Connection aborted.", http.client.RemoteDisconnected("closed")
            )
        ),
        Code.UNKNOWN,
    ),
    "aiohttp ServerDisconnectedError": (aiohttp.ServerDisconnectedError, Code.UNKNOWN),
    "aiohttp SocketTimeoutError": (aiohttp.SocketTimeoutError, Code.UNKNOWN),
    "ConnectionResetError": (lambda: ConnectionResetError(104, "reset"), Code.UNKNOWN),
    "asyncio IncompleteReadError": (lambda: asyncio.IncompleteReadError(b"", 9), Code.UNKNOWN),
    "bare TimeoutError (phase unknown)": (TimeoutError, Code.UNKNOWN),
    "HTTP 500": (lambda: status_error(500), Code.UNKNOWN),
    "HTTP 502": (lambda: status_error(502), Code.UNKNOWN),
    "HTTP 504": (lambda: status_error(504), Code.UNKNOWN),
    # Never sent, or refused before acting: still retryable.
    "httpx ConnectTimeout": (lambda: httpx.ConnectTimeout("x"), Code.TIMEOUT),
    "httpx ConnectError": (lambda: httpx.ConnectError("x"), Code.UNAVAILABLE),
    "httpx PoolTimeout": (lambda: httpx.PoolTimeout("x"), Code.TIMEOUT),
    "httpx2 ConnectError": (lambda: httpx2.ConnectError("x"), Code.UNAVAILABLE),
    "requests ConnectTimeout": (lambda: requests.ConnectTimeout("x"), Code.TIMEOUT),
    "requests new connection refused": (
        lambda: requests_wrapping(urllib3.exceptions.NewConnectionError(None, "refused")),
        Code.UNAVAILABLE,
    ),
    "aiohttp ConnectionTimeoutError": (aiohttp.ConnectionTimeoutError, Code.TIMEOUT),
    "ConnectionRefusedError": (lambda: ConnectionRefusedError(111, "refused"), Code.UNAVAILABLE),
    "socket.gaierror": (lambda: socket.gaierror(socket.EAI_AGAIN, "try again"), Code.UNAVAILABLE),
    "HTTP 429": (lambda: status_error(429), Code.RATE_LIMITED),
    "HTTP 503": (lambda: status_error(503), Code.UNAVAILABLE),
    "HTTP 408": (lambda: status_error(408), Code.TIMEOUT),
    # Not retryable anyway: unchanged.
    "HTTP 404": (lambda: status_error(404), Code.NOT_FOUND),
    "HTTP 401": (lambda: status_error(401), Code.UNAUTHORIZED),
}


def charge(exc: BaseException, **options: Any) -> Outcome[Any]:
    @classified_tool(idempotent=False, **options)
    def create_charge(amount: int) -> str:
        raise exc

    return create_charge(100)


@pytest.mark.parametrize("name", list(TABLE))
def test_table(name: str) -> None:
    """Each failure gets the documented code for a non-idempotent tool."""
    make, code = TABLE[name]
    outcome = charge(make())
    assert outcome.code is code
    assert (MAYBE in outcome.llm_hint) is (code is Code.UNKNOWN)
    if code is Code.UNKNOWN:
        assert not outcome.retryable and outcome.retry_after is None
        assert "Do not retry it blindly" in outcome.llm_hint


@pytest.mark.parametrize("name", list(TABLE))
def test_idempotent_default_keeps_core_classification(name: str) -> None:
    """With the default idempotent=True nothing is downgraded."""
    make, _ = TABLE[name]

    @classified_tool
    def read(item: int) -> str:
        raise make()

    outcome = read(1)
    assert MAYBE not in outcome.llm_hint
    assert outcome.code is not Code.UNKNOWN


def test_keeps_status_and_error() -> None:
    """The downgraded outcome keeps the HTTP status and the original exception."""
    exc = status_error(504)
    outcome = charge(exc)
    assert outcome.status == 504 and outcome.error is exc
    assert "(HTTP 504)" in outcome.llm_hint


def test_returned_response_is_guarded_too() -> None:
    """A returned 502 response of a non-idempotent tool is UNKNOWN; a 503 stays retryable."""

    @classified_tool(idempotent=False)
    def send(status: int) -> httpx.Response:
        return httpx.Response(status, request=REQUEST)

    assert send(502).code is Code.UNKNOWN
    assert send(503).code is Code.UNAVAILABLE


def test_raises_mode_raises_indeterminate() -> None:
    """In raises mode a maybe-applied failure is an IndeterminateToolError, not transient."""

    @classified_tool(raises=True, idempotent=False)
    def send_email(to: str) -> None:
        raise httpx.ReadTimeout("x")

    with pytest.raises(IndeterminateToolError) as info:
        send_email("a@example.test")
    assert not isinstance(info.value, TransientToolError)
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


@pytest.mark.asyncio
async def test_async_tool() -> None:
    """The rule applies to async tools alike."""

    @classified_tool(idempotent=False)
    async def transfer(amount: int) -> None:
        raise aiohttp.ServerDisconnectedError()

    assert (await transfer(5)).code is Code.UNKNOWN


def test_explicit_errors_mapping_is_not_second_guessed() -> None:
    """An errors= mapping is the tool author's decision and is kept as given."""
    outcome = charge(httpx.ReadTimeout("x"), errors={httpx.ReadTimeout: Code.TIMEOUT})
    assert outcome.code is Code.TIMEOUT


def test_exception_with_raising_bool_still_gives_an_outcome() -> None:
    """The guard compares the original error with ``is not None``, never its truth value."""

    class Odd(ConnectionResetError):
        def __bool__(self) -> bool:
            raise RuntimeError("__bool__")

    outcomes: list[Outcome[Any]] = []
    escaped = ""
    try:
        outcomes.append(charge(Odd("reset")))
    except Exception as exc:  # kept out of pytest's report, which would call __bool__ too
        escaped = type(exc).__name__
    assert not escaped, f"{escaped} escaped Outcome mode"
    (outcome,) = outcomes
    assert outcome.code is Code.UNKNOWN and MAYBE in outcome.llm_hint
    assert isinstance(outcome.error, Odd)


@pytest.mark.parametrize(
    ("make", "was"),
    [
        (lambda: httpx.ReadTimeout("x"), "TIMEOUT"),
        (lambda: status_error(502), "UNAVAILABLE"),
    ],
)
def test_the_escalation_is_logged_as_what_it_was_not_as_a_bug(
    make: Callable[[], BaseException], was: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The UNKNOWN made of a timeout or a 5xx is logged at INFO, naming the code it was,
    without a traceback: it is the tool's declared caution, not a bug. A real bug still
    gets WARNING and its traceback."""
    caplog.set_level(logging.INFO, logger="agenterr")
    outcome = charge(make())
    assert outcome.code is Code.UNKNOWN
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert f"(was {was}; escalated because the tool is not idempotent" in record.getMessage()
    assert record.agenterr_escalated_from is Code[was]  # type: ignore[attr-defined]
    assert record.agenterr_outcome is outcome  # type: ignore[attr-defined]
    assert record.exc_text is None and record.exc_info is None

    caplog.clear()
    assert charge(KeyError("bug")).code is Code.UNKNOWN
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_text
    assert "escalated" not in record.getMessage()


def test_an_escalated_envelope_is_logged_as_what_it_was(caplog: pytest.LogCaptureFixture) -> None:
    """envelopes=True: a 2xx body reporting a timeout is escalated and logged alike."""

    @classified_tool(idempotent=False, envelopes=True)
    def post() -> dict[str, Any]:
        return {"error": {"code": 504, "status": "DEADLINE_EXCEEDED", "message": "slow"}}

    caplog.set_level(logging.INFO, logger="agenterr")
    assert post().code is Code.UNKNOWN
    (record,) = caplog.records
    assert record.levelno == logging.INFO and record.exc_text is None
    assert record.agenterr_escalated_from is Code.TIMEOUT  # type: ignore[attr-defined]
