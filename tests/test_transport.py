"""The decorator's transport-vs-bug decision and ``from_error`` read one table and agree.

For every transport failure a client library (or an SDK wrapping one) raises, a tool
decorated with ``@classified_tool`` gives the very outcome ``from_error`` gives: the
decorator never calls a failure of the HTTP exchange a bug. botocore and azure-core are
not installed: stand-ins reproduce their classes' names, modules, bases and attributes.
"""

from __future__ import annotations

import asyncio
import errno
import http.client
import json
import socket
import ssl
import string
import sys
import urllib.error
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import httpx2
import openai
import pytest
import requests
import urllib3
from hypothesis import given
from hypothesis import strategies as st

from agenterr import Code, classified_tool, from_error
from agenterr._transport import MAX_CHAIN, is_transport

URL = "https://api.example.com/v1/orders"


def _class(module: str, name: str, *bases: type, **namespace: Any) -> Any:
    cls = type(name, bases or (Exception,), {"__module__": module, **namespace})
    cls.__qualname__ = name
    return cls


# --- botocore, as its exceptions module defines them ---------------------------------


def _botocore_init(self: BaseException, **kwargs: Any) -> None:
    fmt = type(self).fmt  # type: ignore[attr-defined]
    Exception.__init__(self, fmt.format(**kwargs))
    self.kwargs = kwargs  # type: ignore[attr-defined]


def _http_client_init(
    self: BaseException, request: object = None, response: object = None, **kwargs: Any
) -> None:
    self.request = request  # type: ignore[attr-defined]
    self.response = response  # type: ignore[attr-defined]
    _botocore_init(self, **kwargs)


_VENDORED = "botocore.vendored.requests.exceptions"
_VENDORED_U3 = "botocore.vendored.requests.packages.urllib3.exceptions"
_RequestException = _class(_VENDORED, "RequestException", OSError)
_VConnectionError = _class(_VENDORED, "ConnectionError", _RequestException)
_VTimeout = _class(_VENDORED, "Timeout", _RequestException)
_VConnectTimeout = _class(_VENDORED, "ConnectTimeout", _VConnectionError, _VTimeout)
_VReadTimeout = _class(_VENDORED, "ReadTimeout", _VTimeout)
_U3HTTPError = _class(_VENDORED_U3, "HTTPError")
_U3RequestError = _class(_VENDORED_U3, "RequestError", _U3HTTPError)
_U3TimeoutError = _class(_VENDORED_U3, "TimeoutError", _U3HTTPError)
_U3ReadTimeoutError = _class(_VENDORED_U3, "ReadTimeoutError", _U3TimeoutError, _U3RequestError)

_BOTO = "botocore.exceptions"
BotoCoreError = _class(_BOTO, "BotoCoreError", __init__=_botocore_init, fmt="An error")
HTTPClientError = _class(
    _BOTO, "HTTPClientError", BotoCoreError, __init__=_http_client_init, fmt="HTTP: {error}"
)
BotoConnectionError = _class(_BOTO, "ConnectionError", BotoCoreError, fmt="Connect: {error}")
EndpointConnectionError = _class(
    _BOTO, "EndpointConnectionError", BotoConnectionError, fmt='No endpoint "{endpoint_url}"'
)
BotoReadTimeoutError = _class(
    _BOTO,
    "ReadTimeoutError",
    HTTPClientError,
    _VReadTimeout,
    _U3ReadTimeoutError,
    fmt='Read timeout on endpoint URL: "{endpoint_url}"',
)
BotoConnectTimeoutError = _class(
    _BOTO,
    "ConnectTimeoutError",
    BotoConnectionError,
    _VConnectTimeout,
    fmt='Connect timeout on endpoint URL: "{endpoint_url}"',
)
ConnectionClosedError = _class(
    _BOTO, "ConnectionClosedError", HTTPClientError, fmt="Connection was closed: {endpoint_url}"
)


def botocore(cls: type, underlying: BaseException) -> BaseException:
    """As botocore's HTTP session raises: in the ``except`` of urllib3's error, as ``error``."""
    try:
        raise underlying
    except BaseException as caught:
        try:
            raise cls(endpoint_url=URL, error=caught)
        except BaseException as wrapped:
            return wrapped
    raise AssertionError("unreachable")


# --- azure-core -----------------------------------------------------------------------


def _azure_init(self: BaseException, message: object, *args: Any, **kwargs: Any) -> None:
    self.inner_exception = kwargs.get("error")  # type: ignore[attr-defined]
    self.exc_type, self.exc_value, self.exc_traceback = sys.exc_info()  # type: ignore[attr-defined]
    self.message = str(message)  # type: ignore[attr-defined]
    Exception.__init__(self, self.message)  # type: ignore[attr-defined]


_AZURE = "azure.core.exceptions"
AzureError = _class(_AZURE, "AzureError", __init__=_azure_init)
ServiceRequestError = _class(_AZURE, "ServiceRequestError", AzureError)
ServiceResponseError = _class(_AZURE, "ServiceResponseError", AzureError)
ServiceRequestTimeoutError = _class(_AZURE, "ServiceRequestTimeoutError", ServiceRequestError)
ServiceResponseTimeoutError = _class(_AZURE, "ServiceResponseTimeoutError", ServiceResponseError)


def azure(cls: type, underlying: BaseException) -> BaseException:
    """As azure-core's requests transport raises: built in the ``except``, raised after it."""
    error = None
    try:
        raise underlying
    except BaseException as caught:
        error = cls(caught, error=caught)
    assert isinstance(error, BaseException)
    return error


# --- the real clients -----------------------------------------------------------------


def _httpx_status(module: Any, status: int) -> BaseException:
    request = module.Request("GET", URL)
    response = module.Response(status, headers={"Retry-After": "7"}, request=request)
    error: BaseException = module.HTTPStatusError("status", request=request, response=response)
    return error


def _requests_status(status: int) -> BaseException:
    response = requests.Response()
    response.status_code = status
    response.headers.update({"Retry-After": "5"})
    return requests.HTTPError("status", response=response)


def _client_error(module: Any, name: str) -> Callable[[], BaseException]:
    return lambda: getattr(module, name)("x")


def _gaierror(number: int) -> BaseException:
    return socket.gaierror(number, "name resolution")


def _raised_from(outer: BaseException, cause: BaseException) -> BaseException:
    outer.__cause__ = cause
    return outer


def _group(*members: BaseException) -> BaseException:
    return BaseExceptionGroup("calls failed", list(members))


TRANSPORT: dict[str, Callable[[], BaseException]] = {
    # stdlib
    "ConnectionResetError": lambda: ConnectionResetError(errno.ECONNRESET, "reset"),
    "ConnectionRefusedError": lambda: ConnectionRefusedError(errno.ECONNREFUSED, "refused"),
    "BrokenPipeError": lambda: BrokenPipeError(errno.EPIPE, "broken pipe"),
    "TimeoutError": lambda: TimeoutError("timed out"),
    "gaierror EAI_NONAME": lambda: _gaierror(socket.EAI_NONAME),
    "gaierror EAI_AGAIN": lambda: _gaierror(socket.EAI_AGAIN),
    "ssl.SSLError": lambda: ssl.SSLError(1, "handshake failure"),
    "ssl.SSLCertVerificationError": lambda: ssl.SSLCertVerificationError(1, "bad cert"),
    "URLError": lambda: urllib.error.URLError(ConnectionRefusedError(111, "refused")),
    "URLError timeout": lambda: urllib.error.URLError(TimeoutError("timed out")),
    "RemoteDisconnected": lambda: http.client.RemoteDisconnected("closed"),
    "IncompleteRead": lambda: http.client.IncompleteRead(b"par"),
    "asyncio.IncompleteReadError": lambda: asyncio.IncompleteReadError(b"x", 10),
    "OSError ENETUNREACH": lambda: OSError(errno.ENETUNREACH, "unreachable"),
    "OSError ETIMEDOUT": lambda: OSError(errno.ETIMEDOUT, "timed out"),
    # httpx and httpx2
    **{
        f"{module.__name__}.{name}": _client_error(module, name)
        for module in (httpx, httpx2)
        for name in (
            "ConnectError",
            "ConnectTimeout",
            "ReadTimeout",
            "WriteTimeout",
            "PoolTimeout",
            "ReadError",
            "RemoteProtocolError",
            "ProxyError",
            "UnsupportedProtocol",
            "LocalProtocolError",
            "InvalidURL",
        )
    },
    "httpx.HTTPStatusError 429": lambda: _httpx_status(httpx, 429),
    "httpx2.HTTPStatusError 503": lambda: _httpx_status(httpx2, 503),
    # requests
    "requests.ConnectionError": lambda: requests.ConnectionError(
        urllib3.exceptions.MaxRetryError(
            None,  # type: ignore[arg-type]
            "/",
            reason=urllib3.exceptions.NewConnectionError(None, "refused"),  # type: ignore[arg-type]
        )
    ),
    "requests.ReadTimeout": lambda: requests.ReadTimeout("read timed out"),
    "requests.ConnectTimeout": lambda: requests.ConnectTimeout("connect timed out"),
    "requests.SSLError": lambda: requests.exceptions.SSLError("bad handshake"),
    "requests.ChunkedEncodingError": lambda: requests.exceptions.ChunkedEncodingError("cut"),
    "requests.MissingSchema": lambda: requests.exceptions.MissingSchema("no scheme"),
    "requests.InvalidURL": lambda: requests.exceptions.InvalidURL("bad url"),
    "requests.HTTPError 503": lambda: _requests_status(503),
    # urllib3
    "urllib3.MaxRetryError": lambda: urllib3.exceptions.MaxRetryError(
        None,  # type: ignore[arg-type]
        "/",
        reason=urllib3.exceptions.ReadTimeoutError(None, "/", "read timed out"),  # type: ignore[arg-type]
    ),
    "urllib3.NewConnectionError": lambda: urllib3.exceptions.NewConnectionError(
        None,  # type: ignore[arg-type]
        "refused",
    ),
    "urllib3.ReadTimeoutError": lambda: urllib3.exceptions.ReadTimeoutError(
        None,  # type: ignore[arg-type]
        "/",
        "read timed out",
    ),
    "urllib3.ProtocolError": lambda: urllib3.exceptions.ProtocolError(
        "Connection aborted.", ConnectionResetError(104, "reset")
    ),
    "urllib3.LocationParseError": lambda: urllib3.exceptions.LocationParseError("bad"),
    # aiohttp
    "aiohttp.ServerTimeoutError": lambda: aiohttp.ServerTimeoutError("timed out"),
    "aiohttp.ServerDisconnectedError": aiohttp.ServerDisconnectedError,
    "aiohttp.ClientPayloadError": lambda: aiohttp.ClientPayloadError("cut"),
    "aiohttp.ClientOSError": lambda: aiohttp.ClientOSError(errno.ECONNRESET, "reset"),
    "aiohttp.InvalidUrlClientError": lambda: aiohttp.InvalidUrlClientError("bad url"),
    # an SDK on httpx
    "openai.APIConnectionError": lambda: openai.APIConnectionError(
        request=httpx2.Request("GET", URL)
    ),
    "openai.APITimeoutError": lambda: openai.APITimeoutError(request=httpx2.Request("GET", URL)),
    # botocore: the urllib3 error in __context__ and in kwargs["error"]
    "botocore.ReadTimeoutError": lambda: botocore(
        BotoReadTimeoutError,
        urllib3.exceptions.ReadTimeoutError(None, "/", "read timed out"),  # type: ignore[arg-type]
    ),
    "botocore.ConnectTimeoutError": lambda: botocore(
        BotoConnectTimeoutError,
        urllib3.exceptions.ConnectTimeoutError(None, "connect timed out"),
    ),
    "botocore.EndpointConnectionError": lambda: botocore(
        EndpointConnectionError,
        urllib3.exceptions.NewConnectionError(None, "refused"),  # type: ignore[arg-type]
    ),
    "botocore.ConnectionClosedError": lambda: botocore(
        ConnectionClosedError,
        urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionResetError()),
    ),
    # azure-core: the requests error in inner_exception, exc_value and args[0]
    "azure.ServiceRequestError": lambda: azure(
        ServiceRequestError, requests.ConnectionError("refused")
    ),
    "azure.ServiceResponseError": lambda: azure(
        ServiceResponseError, requests.exceptions.ChunkedEncodingError("cut")
    ),
    "azure.ServiceResponseTimeoutError": lambda: azure(
        ServiceResponseTimeoutError, requests.ReadTimeout("read timed out")
    ),
    "azure.ServiceRequestTimeoutError": lambda: azure(
        ServiceRequestTimeoutError, requests.ConnectTimeout("connect timed out")
    ),
    # links the decorator follows: raise ... from, groups
    "RuntimeError from ConnectionResetError": lambda: _raised_from(
        RuntimeError("fetch failed"), ConnectionResetError(104, "reset")
    ),
    "group of transport errors": lambda: _group(httpx.ConnectError("x"), requests.ReadTimeout("y")),
    "group of 8 groups of 8": lambda: _group(
        *(_group(*(ConnectionResetError(104, "reset") for _ in range(8))) for _ in range(8))
    ),
    "group of 16 groups of 16": lambda: _group(
        *(_group(*(httpx.ReadTimeout("slow") for _ in range(16))) for _ in range(16))
    ),
}


def _decorated(exc: BaseException) -> Any:
    @classified_tool
    def tool() -> None:
        raise exc

    return tool()


@pytest.mark.parametrize("make", list(TRANSPORT.values()), ids=list(TRANSPORT))
def test_decorator_and_from_error_agree(make: Callable[[], BaseException]) -> None:
    """Each is a transport failure for the decorator, with from_error's very outcome."""
    exc = make()
    assert is_transport(exc)
    expected = from_error(exc)
    got = _decorated(exc)
    assert expected.failed
    assert (got.code, got.llm_hint, got.retry_after, got.status) == (
        expected.code,
        expected.llm_hint,
        expected.retry_after,
        expected.status,
    )
    assert got.error is exc


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("botocore.ReadTimeoutError", Code.TIMEOUT),
        ("botocore.ConnectTimeoutError", Code.TIMEOUT),
        ("botocore.EndpointConnectionError", Code.UNAVAILABLE),
        ("azure.ServiceRequestError", Code.UNAVAILABLE),
        ("azure.ServiceResponseTimeoutError", Code.TIMEOUT),
        ("group of 8 groups of 8", Code.UNAVAILABLE),
    ],
)
def test_sdk_wrappers_and_large_groups_get_their_code(name: str, code: Code) -> None:
    """The cases the decorator used to call bugs (UNKNOWN) get from_error's transient code."""
    assert _decorated(TRANSPORT[name]()).code is code


def test_a_wrapped_error_counts_as_an_explicit_link() -> None:
    """An SDK exception of no known family that wraps a network failure on purpose."""
    wrapper = _class("someaws.errors", "ServiceCallError")
    by_keyword = wrapper("failed")
    by_keyword.kwargs = {"error": ConnectionResetError(104, "reset")}
    by_attribute = wrapper("failed")
    by_attribute.inner_exception = TimeoutError("slow")
    assert is_transport(by_keyword) and _decorated(by_keyword).code is Code.UNAVAILABLE
    assert is_transport(by_attribute) and _decorated(by_attribute).code is Code.TIMEOUT


@pytest.mark.asyncio
async def test_nested_task_groups_of_transport_errors_are_transport() -> None:
    """8 task groups of 8 failed calls each: UNAVAILABLE in the decorator as in from_error."""

    async def call() -> None:
        raise ConnectionResetError(errno.ECONNRESET, "reset by peer")

    async def batch() -> None:
        async with asyncio.TaskGroup() as group:
            for _ in range(8):
                group.create_task(call())

    @classified_tool
    async def tool() -> None:
        async with asyncio.TaskGroup() as group:
            for _ in range(8):
                group.create_task(batch())

    outcome = await tool()
    assert outcome.code is Code.UNAVAILABLE
    assert outcome.code is from_error(outcome.error).code


BUGS: dict[str, Callable[[], BaseException]] = {
    "KeyError": lambda: KeyError("id"),
    "FileNotFoundError": lambda: FileNotFoundError(errno.ENOENT, "missing"),
    "httpx.StreamConsumed": httpx.StreamConsumed,
    "requests.InvalidJSONError": lambda: requests.exceptions.InvalidJSONError("bad body"),
    "botocore.BotoCoreError": BotoCoreError,
    "azure.AzureError": lambda: AzureError("no credential"),
    "raised while handling a network failure": lambda: botocore(
        _class("mytool", "HandlerBug"), ConnectionResetError(104, "reset")
    ),
    "a group with one bug": lambda: _group(httpx.ConnectError("x"), ValueError("y")),
    "a group of groups with one bug": lambda: _group(
        _group(ConnectionResetError(104, "r"), KeyError("k")),
        *(_group(*(ConnectionResetError(104, "r") for _ in range(8))) for _ in range(7)),
    ),
}


@pytest.mark.parametrize("make", list(BUGS.values()), ids=list(BUGS))
def test_other_exceptions_stay_bugs(make: Callable[[], BaseException]) -> None:
    """Not a failure of the HTTP exchange: UNKNOWN in the decorator, whatever from_error says."""
    exc = make()
    assert not is_transport(exc)
    assert _decorated(exc).code is Code.UNKNOWN


def test_the_walks_share_one_budget() -> None:
    """A cause chain longer than the budget proves nothing, in the decorator as in from_error."""
    exc: BaseException = ConnectionResetError(104, "reset")
    for i in range(MAX_CHAIN + 1):
        exc = _raised_from(RuntimeError(f"layer {i}"), exc)
    assert not is_transport(exc)
    assert _decorated(exc).code is Code.UNKNOWN


# --- foreign transport messages (SPEC 4.2, step 3.6) ------------------------------------------


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ('Get "https://api.x/v1": x509: certificate signed by unknown authority', Code.UNKNOWN),
        ("sun.security.validator.ValidatorException: PKIX path building failed", Code.UNKNOWN),
        ("dial tcp: lookup api.nope.example on 127.0.0.53:53: no such host", Code.UNKNOWN),
        ("getaddrinfo ENOTFOUND api.nope.example", Code.UNKNOWN),
        ("curl: (6) Could not resolve host: api.nope.example", Code.UNKNOWN),
        ('Post "https://x": context deadline exceeded', Code.TIMEOUT),
        ("read tcp 10.0.0.2:5123->10.0.0.9:443: i/o timeout", Code.TIMEOUT),
        ("connect ETIMEDOUT 10.0.0.9:443", Code.TIMEOUT),
        ("fetch failed: UND_ERR_HEADERS_TIMEOUT", Code.TIMEOUT),
        ("curl: (28) Operation timed out after 30000 milliseconds", Code.TIMEOUT),
        ("connect ECONNREFUSED 127.0.0.1:8080", Code.UNAVAILABLE),
        ("read: connection reset by peer", Code.UNAVAILABLE),
    ],
)
def test_a_foreign_transport_message_is_read_alike_by_both_decisions(
    message: str, code: Code
) -> None:
    error = RuntimeError(message)

    @classified_tool
    def tool() -> None:
        raise error

    assert from_error(error).code is code
    assert tool().code is code


@pytest.mark.parametrize(
    "message", ["timeout must be a positive number", "no such user", "x509 parser bug"]
)
def test_ordinary_prose_is_not_a_foreign_transport_message(message: str) -> None:
    error = ValueError(message)

    @classified_tool
    def tool() -> None:
        raise error

    assert tool().code is Code.UNKNOWN  # a bug, not a transport failure


# --- SPEC 4.2 step 3.6 from its data alone ----------------------------------------------

_FOREIGN_DATA = json.loads(
    (Path(__file__).resolve().parent.parent / "spec" / "foreign-transport.json").read_text("utf-8")
)
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")


def _port_reads(message: str) -> str | None:
    """Step 3.6 as a port would write it from spec/foreign-transport.json: substrings and
    whole words, no regular expression; the code decided, "" when not decisive, or None."""
    window = message[: _FOREIGN_DATA["window"]]
    for group in _FOREIGN_DATA["groups"]:
        found = any(text in window for text in group["anywhere"])
        for word in group["whole_word"]:
            start = window.find(word)
            while start >= 0 and not found:
                end = start + len(word)
                found = (start == 0 or window[start - 1] not in _WORD_CHARS) and (
                    end == len(window) or window[end] not in _WORD_CHARS
                )
                start = window.find(word, start + 1)
        if found:
            return group["decides"] or ""
    return None


_PIECES = st.sampled_from(
    [
        *(t for g in _FOREIGN_DATA["groups"] for t in g["anywhere"] + g["whole_word"]),
        " ",
        "_",
        "x",
        ":",
        "é",
        "\n",
        "deadline",
        "NO SUCH HOST",
    ]
)


@given(st.lists(_PIECES, max_size=12), st.integers(0, 1030))
def test_the_foreign_table_is_all_a_port_needs(pieces: list[str], padding: int) -> None:
    """A plain reading of the shipped table gives the code from_error gives a plain error
    with that message, near the window's edge too."""
    message = "x" * padding + "".join(pieces)
    expected = _port_reads(message)
    code = from_error(Exception(message)).code
    if expected:
        assert code is Code(expected), (message, expected)
    else:
        assert code is Code.UNAVAILABLE, message
