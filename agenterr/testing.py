"""Helpers for testing your own tools: failing responses, client exceptions, assertions.

The factories build the objects an HTTP client really produces — an ``httpx``, ``httpx2``
or ``requests`` response, the exception its ``raise_for_status()`` raises, the transport
error it raises for a refused connection or a timeout — without a network or a mock
transport. :func:`assert_classified` classifies whatever it is given and says what
differs::

    from agenterr import Code
    from agenterr.testing import assert_classified, http_status_error


    def test_a_rate_limited_lookup_waits_the_retry_after():
        error = http_status_error(429, headers={"Retry-After": "2"})
        outcome = lookup_tool(raise_this=error)  # your @classified_tool
        assert_classified(outcome, code=Code.RATE_LIMITED, retry_after=2)

Importing this module imports no third-party package; each factory imports its client on
first use (``pip install ".[httpx]"``, ``".[httpx2]"`` or ``".[requests]"`` in a clone of
agenterr, which is not on a package index).
"""

from __future__ import annotations

import json as _json
import math
from collections.abc import Iterable, Mapping
from http import HTTPStatus
from http.client import RemoteDisconnected
from typing import TYPE_CHECKING, Any, Literal, overload

from agenterr import AgentToolError, Class, Code, Outcome, from_error, from_response
from agenterr.integrations._require import require

if TYPE_CHECKING:
    import httpx
    import httpx2

__all__ = [
    "TRANSPORT_KINDS",
    "URL",
    "assert_classified",
    "http_response",
    "http_status_error",
    "transport_error",
]

Client = Literal["httpx", "httpx2", "requests"]
TransportKind = Literal[
    "timeout",
    "connect_timeout",
    "read_timeout",
    "write_timeout",
    "pool_timeout",
    "connect",
    "read",
    "write",
    "protocol",
    "proxy",
    "unsupported_protocol",
]

URL = "https://api.example.test/v1/tool"
"""The request URL the factories use unless given another."""

_NO_JSON: Any = object()
_UNSET: Any = object()

# kind -> (httpx class, message as httpx words it). "timeout" is a read timeout, the one
# a slow API produces.
_HTTPX_KINDS: dict[str, tuple[str, str]] = {
    "timeout": ("ReadTimeout", "timed out"),
    "connect_timeout": ("ConnectTimeout", "timed out"),
    "read_timeout": ("ReadTimeout", "timed out"),
    "write_timeout": ("WriteTimeout", "timed out"),
    "pool_timeout": ("PoolTimeout", "timed out"),
    "connect": ("ConnectError", "[Errno 111] Connection refused"),
    "read": ("ReadError", "[Errno 104] Connection reset by peer"),
    "write": ("WriteError", "[Errno 32] Broken pipe"),
    "protocol": ("RemoteProtocolError", "Server disconnected without sending a response."),
    "proxy": ("ProxyError", "502 Bad Gateway"),
    "unsupported_protocol": ("UnsupportedProtocol", ""),  # worded from the URL
}
_REQUESTS_KINDS = frozenset(
    {
        "timeout",
        "connect_timeout",
        "read_timeout",
        "connect",
        "read",
        "protocol",
        "proxy",
        "unsupported_protocol",
    }
)

TRANSPORT_KINDS: Mapping[str, Code] = {
    "timeout": Code.TIMEOUT,
    "connect_timeout": Code.TIMEOUT,
    "read_timeout": Code.TIMEOUT,
    "write_timeout": Code.TIMEOUT,
    "pool_timeout": Code.TIMEOUT,
    "connect": Code.UNAVAILABLE,
    "read": Code.UNAVAILABLE,
    "write": Code.UNAVAILABLE,
    "protocol": Code.UNAVAILABLE,
    "proxy": Code.UNAVAILABLE,
    "unsupported_protocol": Code.INVALID_REQUEST,
}
"""Every kind :func:`transport_error` builds, with the code agenterr gives it. ``requests``
has no ``write_timeout``, ``pool_timeout`` or ``write``."""


# --- responses ---------------------------------------------------------------------------


@overload
def http_response(
    status: int = 200,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Literal["httpx"] = "httpx",
) -> httpx.Response: ...
@overload
def http_response(
    status: int = 200,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Literal["httpx2"],
) -> httpx2.Response: ...
@overload
def http_response(
    status: int = 200,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Client,
) -> Any: ...
def http_response(
    status: int = 200,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Client = "httpx",
) -> Any:
    """A read response of ``client`` with the request attached, as a call would return it.

    ``body`` is the raw body (``str`` is UTF-8 encoded); ``json=`` encodes a value instead
    and sets ``Content-Type: application/json`` unless ``headers`` has one. Give ``headers``
    such as ``{"Retry-After": "2"}`` to test what agenterr reads from them.
    """
    content, all_headers = _body(body, json, headers)
    if client == "requests":
        return _requests_response(status, content, all_headers, url, method)
    module = _client(client)
    request = module.Request(method, url)
    return module.Response(status, headers=all_headers, content=content, request=request)


def _body(
    body: str | bytes, json: Any, headers: Mapping[str, str] | None
) -> tuple[bytes, dict[str, str]]:
    all_headers = dict(headers or {})
    if json is not _NO_JSON:
        if body:
            raise ValueError("give body or json=, not both")
        body = _json.dumps(json)
        if not any(name.lower() == "content-type" for name in all_headers):
            all_headers["Content-Type"] = "application/json"
    content = body.encode() if isinstance(body, str) else bytes(body)
    return content, all_headers


def _client(client: str) -> Any:
    if client not in {"httpx", "httpx2"}:
        raise ValueError(f"client: {client!r} is not one of 'httpx', 'httpx2', 'requests'")
    return require(client, client)


def _requests_response(
    status: int, content: bytes, headers: dict[str, str], url: str, method: str
) -> Any:
    requests = require("requests", "requests")
    response = requests.Response()
    response.status_code = status
    # What requests sets once a body has been read; there is no public constructor.
    response._content = content
    response._content_consumed = True
    response.headers = requests.structures.CaseInsensitiveDict(headers)
    response.encoding = "utf-8"
    response.url = url
    response.reason = _reason(status)
    response.request = requests.Request(method, url).prepare()
    return response


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


# --- exceptions --------------------------------------------------------------------------


@overload
def http_status_error(
    status: int,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Literal["httpx"] = "httpx",
) -> httpx.HTTPStatusError: ...
@overload
def http_status_error(
    status: int,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Literal["httpx2"],
) -> httpx2.HTTPStatusError: ...
@overload
def http_status_error(
    status: int,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Client,
) -> Exception: ...
def http_status_error(
    status: int,
    body: str | bytes = b"",
    *,
    json: Any = _NO_JSON,
    headers: Mapping[str, str] | None = None,
    url: str = URL,
    method: str = "GET",
    client: Client = "httpx",
) -> Exception:
    """The exception ``raise_for_status()`` raises for such a response, not yet raised.

    ``HTTPStatusError`` for httpx and httpx2, ``requests.HTTPError`` for requests, with
    ``.request`` and ``.response`` attached (arguments as for :func:`http_response`).
    Raises ``ValueError`` for a status the client does not raise for (2xx; for requests,
    also 1xx and 3xx).
    """
    response: Any = http_response(
        status, body, json=json, headers=headers, url=url, method=method, client=client
    )
    try:
        response.raise_for_status()
    except Exception as exc:
        # Raised only to get the client's own exception and message; the traceback of
        # this frame is no part of the failure being simulated.
        return exc.with_traceback(None)
    raise ValueError(f"http_status_error: {client} does not raise for status {status}")


@overload
def transport_error(
    kind: TransportKind = "connect",
    *,
    url: str = URL,
    method: str = "GET",
    client: Literal["httpx"] = "httpx",
) -> httpx.TransportError: ...
@overload
def transport_error(
    kind: TransportKind = "connect",
    *,
    url: str = URL,
    method: str = "GET",
    client: Literal["httpx2"],
) -> httpx2.TransportError: ...
@overload
def transport_error(
    kind: TransportKind = "connect",
    *,
    url: str = URL,
    method: str = "GET",
    client: Client,
) -> Exception: ...
def transport_error(
    kind: TransportKind = "connect",
    *,
    url: str = URL,
    method: str = "GET",
    client: Client = "httpx",
) -> Exception:
    """The exception ``client`` raises when a request fails before any response.

    ``kind`` is one of :data:`TRANSPORT_KINDS` (which also gives the code agenterr assigns):
    ``"connect"`` (refused), ``"timeout"`` (a read timeout), ``"connect_timeout"``,
    ``"read"`` (connection reset), ``"protocol"`` (server hung up), ``"proxy"``,
    ``"unsupported_protocol"``… For requests the exception wraps urllib3's as requests
    does, so :func:`~agenterr.classified_tool`'s ``idempotent=False`` sees the same phase
    (sent or not) as with a real failure.
    """
    if kind not in TRANSPORT_KINDS:
        raise ValueError(f"kind: {kind!r} is not one of {', '.join(TRANSPORT_KINDS)}")
    if client == "requests":
        if kind not in _REQUESTS_KINDS:
            supported = ", ".join(k for k in TRANSPORT_KINDS if k in _REQUESTS_KINDS)
            raise ValueError(f"kind: requests has no {kind!r} error; it has {supported}")
        return _requests_error(kind, url, method)
    module = _client(client)
    name, message = _HTTPX_KINDS[kind]
    if kind == "unsupported_protocol":
        message = f"Request URL has an unsupported protocol '{url.partition(':')[0]}://'."
    error: Exception = getattr(module, name)(message, request=module.Request(method, url))
    return error


def _requests_error(kind: str, url: str, method: str) -> Exception:
    requests = require("requests", "requests")
    urllib3 = require("urllib3", "requests")
    errors, low = requests.exceptions, urllib3.exceptions
    request = requests.Request(method, url).prepare()
    if kind == "unsupported_protocol":
        exc: Exception = errors.InvalidSchema(f"No connection adapters were found for {url!r}")
        return exc
    # urllib3 describes the pool and connection by their reprs; strings stand in for them.
    parsed = urllib3.util.parse_url(url)
    scheme = "HTTPS" if parsed.scheme == "https" else "HTTP"
    port = parsed.port or (443 if scheme == "HTTPS" else 80)
    pool = f"{scheme}ConnectionPool(host={parsed.host!r}, port={port})"
    conn = f"{scheme}Connection(host={parsed.host!r}, port={port})"
    path = parsed.request_uri
    cause: Exception
    if kind in {"timeout", "read_timeout"}:
        cause = low.ReadTimeoutError(pool, path, "Read timed out. (read timeout=10)")
        exc = errors.ReadTimeout(cause, request=request)
    elif kind == "connect_timeout":
        reason = low.ConnectTimeoutError(conn, f"Connection to {parsed.host} timed out.")
        cause = low.MaxRetryError(pool, path, reason)
        exc = errors.ConnectTimeout(cause, request=request)
    elif kind == "connect":
        reason = low.NewConnectionError(
            conn, "Failed to establish a new connection: [Errno 111] Connection refused"
        )
        cause = low.MaxRetryError(pool, path, reason)
        exc = errors.ConnectionError(cause, request=request)
    elif kind == "proxy":
        reason = low.ProxyError("Unable to connect to proxy", OSError("Tunnel connection failed"))
        cause = low.MaxRetryError(pool, path, reason)
        exc = errors.ProxyError(cause, request=request)
    else:  # read, protocol: the connection dropped after the request went out
        dropped = (
            ConnectionResetError(104, "Connection reset by peer")
            if kind == "read"
            else RemoteDisconnected("Remote end closed connection without response")
        )
        cause = low.ProtocolError("Connection aborted.", dropped)
        exc = errors.ConnectionError(cause, request=request)
    # requests raises inside the handler of urllib3's error, which makes it the context.
    exc.__context__ = cause
    return exc


# --- assertions --------------------------------------------------------------------------


def assert_classified(
    value: object,
    *,
    ok: bool | None = None,
    code: Code | str | None = None,
    class_: Class | str | None = None,
    retryable: bool | None = None,
    retry_after: float | None = _UNSET,
    status: int | None = None,
    hint_contains: str | Iterable[str] | None = None,
) -> Outcome[Any]:
    """Classify ``value`` and check the given fields; return the Outcome.

    ``value`` is an :class:`~agenterr.Outcome` (checked as it is), an
    :class:`~agenterr.AgentToolError` (its outcome), any other exception
    (:func:`~agenterr.from_error`) or a response (:func:`~agenterr.from_response`). Only the
    fields given are checked; ``retry_after=None`` checks that there is none. On a mismatch
    raises ``AssertionError`` listing every field that differs, with the Outcome and hint.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    expected_code = None if code is None else _parse(Code, code, "code")
    expected_class = None if class_ is None else _parse(Class, class_, "class_")
    outcome = _classify(value)
    problems: list[tuple[str, str]] = []

    def check(name: str, wanted: object, got: object) -> None:
        if wanted != got:
            problems.append((name, f"expected {_text(wanted)}, got {_text(got)}"))

    if ok is not None:
        check("ok", ok, outcome.ok)
    if expected_code is not None:
        check("code", expected_code.value, _show(outcome.code))
    if expected_class is not None:
        check("class", expected_class.value, _show(outcome.class_))
    if retryable is not None:
        check("retryable", retryable, outcome.retryable)
    if retry_after is not _UNSET and not _same_delay(retry_after, outcome.retry_after):
        check("retry_after", retry_after, outcome.retry_after)
    if status is not None:
        check("status", status, outcome.status)
    fragments = [hint_contains] if isinstance(hint_contains, str) else list(hint_contains or ())
    problems.extend(
        ("llm_hint", f"does not contain {fragment!r}")
        for fragment in fragments
        if fragment not in outcome.llm_hint
    )
    if problems:
        raise AssertionError(_report(value, outcome, problems))
    return outcome


def _parse(enum: Any, value: object, name: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        raise ValueError(
            f"{name}: {value!r} is not one of {', '.join(m.value for m in enum)}"
        ) from None


def _classify(value: object) -> Outcome[Any]:
    if isinstance(value, Outcome):
        return value
    if isinstance(value, AgentToolError):
        return value.outcome
    if isinstance(value, BaseException):
        return from_error(value)
    return from_response(value)


def _show(member: Code | Class | None) -> str:
    return "None (ok)" if member is None else member.value


def _same_delay(wanted: float | None, got: float | None) -> bool:
    if wanted is None or got is None:
        return wanted is got
    return math.isclose(wanted, got, rel_tol=0.0, abs_tol=1e-6)


def _report(value: object, outcome: Outcome[Any], problems: list[tuple[str, str]]) -> str:
    width = max(len(name) for name, _ in problems) + 1
    lines = [f"{type(value).__name__} was not classified as expected:"]
    lines += [f"  {name + ':':<{width}} {problem}" for name, problem in problems]
    lines.append(f"classified as: {outcome}")
    if outcome.llm_hint:
        lines.append(f"llm_hint: {outcome.llm_hint}")
    return "\n".join(lines)


def _text(value: object) -> str:
    return value if isinstance(value, str) else repr(value)
