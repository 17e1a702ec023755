"""The classifier: HTTP status, body, headers and transport exceptions to an Outcome.

None of these functions raises, whatever it is given, and each one's cost is bounded
independently of the size of the body (see ``_hints``) or the depth of an exception chain.
"""

from __future__ import annotations

import errno
import socket
from collections import deque
from collections.abc import Iterator
from typing import Any

from ._headers import MAX_HEADERS, HeaderView
from ._hints import hint_for, schema_hint, where
from ._outcome import Outcome
from ._quote import snippet
from ._refine import LONG_WAIT, REFINE_HEADERS, refine, server_clock
from ._responses import as_status, response_parts
from ._retry_after import (
    MS_HEADERS,
    RETRY_HEADERS,
    Clock,
    parse_retry_after,
    retry_after_from_headers,
)
from ._taxonomy import Code

__all__ = [
    "classify",
    "code_for_status",
    "from_error",
    "from_response",
    "from_status",
    "schema_invalid",
    "succeeded",
]

_OK: Outcome[None] = Outcome()

# The status table of SPEC.md, section "Status rules": explicit entries first, then the
# rule for the rest of the status's range. Each entry's reason is in SPEC.md.
_EXPLICIT: dict[int, Code] = {
    401: Code.UNAUTHORIZED,
    402: Code.UNAUTHORIZED,
    403: Code.UNAUTHORIZED,
    404: Code.NOT_FOUND,
    407: Code.UNAUTHORIZED,
    408: Code.TIMEOUT,
    410: Code.NOT_FOUND,
    421: Code.UNAVAILABLE,
    423: Code.UNAVAILABLE,
    425: Code.UNAVAILABLE,
    429: Code.RATE_LIMITED,
    451: Code.UNAUTHORIZED,
    501: Code.INVALID_REQUEST,
    505: Code.UNKNOWN,
    511: Code.UNAUTHORIZED,
}


def _range_rule(status: int) -> Code | None:
    if 200 <= status <= 299:
        return None
    if 400 <= status <= 499:
        return Code.INVALID_REQUEST
    if 500 <= status <= 599:
        return Code.UNAVAILABLE
    return Code.UNKNOWN  # 1xx and 3xx: a final answer was expected, not these


_TABLE: tuple[Code | None, ...] = tuple(_EXPLICIT.get(s) or _range_rule(s) for s in range(600))


def code_for_status(status: object) -> Code | None:
    """The code the status table gives ``status``; ``None`` for 2xx. Never raises."""
    value = as_status(status)
    if value is None or not 100 <= value <= 599:
        return Code.UNKNOWN
    return _TABLE[value]


def succeeded(status: object) -> bool:
    """True when ``status`` is an integer from 200 to 299."""
    value = as_status(status)
    return value is not None and 200 <= value <= 299


def _status_outcome(
    status: object, body: object, headers: object, now: Clock, error: BaseException | None
) -> Outcome[None]:
    value = as_status(status)
    if value is not None and 200 <= value <= 299:
        return _OK
    valid = value is not None and 100 <= value <= 599
    code = _TABLE[value] if valid else Code.UNKNOWN  # type: ignore[index]
    assert code is not None
    recorded = value if valid and value is not None else 0
    retry_after = None
    quota = False
    quote: str | None = None
    if valid and (headers is not None or _has_body(body)):
        # SPEC 11: headers and the error body may move the failure to another class.
        view = HeaderView.of(headers, _VIEW_NAMES)
        clock = server_clock(view, now) if view.get("date") is not None else now
        family = retry_after_from_headers(view, now=clock) if headers is not None else None
        refined = refine(recorded, code, body, view, retry_after=family, now=now)
        code, retry_after, quota, quote = (
            refined.code,
            refined.retry_after,
            refined.quota,
            refined.quote,
        )
    elif headers is not None and code.retryable:
        retry_after = retry_after_from_headers(headers, now=now)
    quoted = snippet(body if quote is None else quote)
    transport = value == 0 or (value is None and status is None)
    hint = hint_for(code, where(recorded, transport=transport), quoted, retry_after, quota=quota)
    return Outcome(code, hint, retry_after, recorded, None, error)


def _has_body(body: object) -> bool:
    """Whether a body may carry signals (type checks only: a body's __bool__ may raise)."""
    try:
        if isinstance(body, (str, bytes, bytearray, dict, list)):
            return len(body) > 0
        return isinstance(body, memoryview)
    except Exception:
        return False  # a hostile container: no signals, the table decides


# The only header names the status rules and the refinements read (SPEC 5.1, 11).
_VIEW_NAMES = REFINE_HEADERS | frozenset(RETRY_HEADERS)


# Outcomes without body or headers are the same every time: build them once.
_PLAIN: dict[int, Outcome[None]] = {
    s: _status_outcome(s, "", None, None, None) for s in range(100, 600)
}


# Names that send a body-less dict of headers down the general path: the refinements
# (SPEC 11) read them. Content-Type and Date only matter with a body or an HTTP-date.
_BAIL = REFINE_HEADERS - {"content-type", "date"}
_WATCHED = frozenset(RETRY_HEADERS) | _BAIL
_WATCHED_LENS = frozenset(len(n) for n in _WATCHED)


def _fast_headers(status: int, headers: dict[Any, Any]) -> Outcome[None] | None:
    """The outcome for a body-less status with a plain dict of headers, or None to fall back.

    Handles the common shape only (no refinement header, at most one Retry-After-like
    header with an integer value, on a transient code); anything else goes through the
    general path.
    """
    code = _TABLE[status]
    if code is None:
        return _PLAIN[status]
    if len(headers) > MAX_HEADERS:
        return None  # the general path reads only the first MAX_HEADERS fields
    found = None
    for name in headers:
        if type(name) is not str:
            return None
        if len(name) in _WATCHED_LENS:
            lowered = name.lower()
            if lowered in _BAIL:
                return None
            if lowered in _WATCHED:
                if found is not None:
                    return None
                found = name
    if found is None:
        return _PLAIN[status]
    if not code.retryable:
        return None  # a 400/403 with Retry-After: the refinements decide
    value = headers[found]
    if type(value) is not str:
        return None
    key = (status, found, value)
    cached = _BY_HEADER.get(key)
    if cached is not None:
        return cached
    if not (value.isdigit() and value.isascii()):
        return None  # dates and decimals: the general path (dates depend on the clock)
    delay = parse_retry_after(value, milliseconds=found.lower() in MS_HEADERS)
    if delay is None or delay > LONG_WAIT:
        return None  # a long wait may make a rate limit a quota: the refinements decide
    cached = Outcome(code, hint_for(code, where(status), "", delay), delay, status)
    if len(_BY_HEADER) < 4096:
        _BY_HEADER[key] = cached
    return cached


_BY_HEADER: dict[tuple[int, str, str], Outcome[None]] = {}


def from_status(
    status: object, body: object = "", *, headers: object = None, now: Clock = None
) -> Outcome[None]:
    """Classify a tool call by its HTTP status.

    ``body`` (text, bytes, parsed JSON, or None) is quoted in the hint after cleaning;
    ``headers`` supply Retry-After for transient codes; ``now`` is the clock HTTP-date
    Retry-After values are measured against. A 2xx status gives an ok Outcome.
    """
    try:
        return _from_status(status, body, headers, now)
    except Exception as exc:  # the last line of defence: never raise
        return _internal_failure(exc)


def _from_status(status: object, body: object, headers: object, now: Clock) -> Outcome[None]:
    # Identity and type checks only: a body's own __eq__ may raise (arrays, frames).
    if (
        headers is None
        and (body is None or (type(body) is str and not body))
        and (type(status) is int)
    ):
        cached = _PLAIN.get(status)
        if cached is not None:
            return cached
    if (
        type(headers) is dict
        and type(status) is int
        and 100 <= status <= 599
        and (body is None or (type(body) is str and not body))
    ):
        fast = _fast_headers(status, headers)
        if fast is not None:
            return fast
    return _status_outcome(status, body, headers, now, None)


def from_response(response: object, *, now: Clock = None) -> Outcome[None]:
    """Classify a response object from httpx, httpx2, requests, aiohttp or urllib.

    Reads the status, the headers (case-insensitively) and at most a small prefix of a body
    that is already in memory or can be peeked without consuming it; never closes
    anything. ``None`` or an object without a status gives ``UNKNOWN``.
    """
    try:
        parts = response_parts(response)
        if parts is None:
            return _status_outcome(None, "", None, now, None)
        status, headers, body = parts
        return _status_outcome(status, body, headers, now, None)
    except Exception as exc:  # the last line of defence: never raise
        return _internal_failure(exc)


# --- transport errors ---------------------------------------------------------------

_MAX_CHAIN = 64
"""Exceptions visited in one chain (causes, contexts, reasons, group members)."""

# Class names that mean "no answer in time", matched anywhere in an exception's MRO so no
# client library needs importing: httpx/httpx2 TimeoutException, requests Timeout,
# urllib3 TimeoutError, openai/anthropic APITimeoutError, google-api-core DeadlineExceeded.
# aiohttp's and asyncio's timeouts derive from the builtin TimeoutError.
_TIMEOUT_NAMES = frozenset(
    {"TimeoutError", "TimeoutException", "Timeout", "APITimeoutError", "DeadlineExceeded"}
)
# Class names that mean the client refused to build the request: the request, not the
# network, is wrong (httpx InvalidURL/UnsupportedProtocol/LocalProtocolError, requests
# InvalidURL/MissingSchema/InvalidSchema/URLRequired/InvalidHeader, urllib3
# LocationParseError/LocationValueError/URLSchemeUnknown, aiohttp InvalidUrlClientError/
# NonHttpUrlClientError).
_MALFORMED_NAMES = frozenset(
    {
        "InvalidURL",
        "UnsupportedProtocol",
        "LocalProtocolError",
        "MissingSchema",
        "InvalidSchema",
        "URLRequired",
        "InvalidHeader",
        "LocationParseError",
        "LocationValueError",
        "URLSchemeUnknown",
        "InvalidUrlClientError",
        "NonHttpUrlClientError",
    }
)
# urllib3's NewConnectionError (refused, unreachable, name resolution) derives from its
# ConnectTimeoutError for historical reasons; it is a connection failure, not a timeout.
_NOT_TIMEOUT_NAMES = frozenset({"NewConnectionError"})
# A server certificate that fails verification is a configuration or security problem: the
# identical call fails again, and retrying would hammer a possibly hostile endpoint
# (ssl.SSLCertVerificationError, aiohttp's ClientConnectorCertificateError).
_CERTIFICATE_NAMES = frozenset({"SSLCertVerificationError", "ClientConnectorCertificateError"})
# getaddrinfo's "this name does not exist" (as opposed to EAI_AGAIN, a resolver hiccup).
_NAME_NOT_FOUND = frozenset(
    n for n in (getattr(socket, "EAI_NONAME", None), getattr(socket, "EAI_NODATA", None)) if n
)
_TIMEOUT, _MALFORMED, _PERMANENT = "timeout", "malformed", "permanent"
_KINDS: dict[type, str | None] = {}
_MAX_KINDS = 1024


def _kind_of_type(tp: type) -> str | None:
    try:
        return _kind_of_type_cached(tp)
    except Exception:
        return None  # an unhashable or hostile exception class is no known kind


def _kind_of_type_cached(tp: type) -> str | None:
    kind = _KINDS.get(tp)
    if kind is not None or tp in _KINDS:
        return kind
    names = {c.__name__ for c in tp.__mro__}
    if names & _NOT_TIMEOUT_NAMES:
        kind = None
    elif issubclass(tp, TimeoutError) or names & _TIMEOUT_NAMES:
        kind = _TIMEOUT
    elif names & _MALFORMED_NAMES:
        kind = _MALFORMED
    elif names & _CERTIFICATE_NAMES:
        kind = _PERMANENT
    if len(_KINDS) < _MAX_KINDS:
        _KINDS[tp] = kind
    return kind


def _attr(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _links(exc: BaseException) -> Iterator[BaseException]:
    cause = _attr(exc, "__cause__")
    if isinstance(cause, BaseException):
        yield cause
    context = _attr(exc, "__context__")
    if isinstance(context, BaseException) and not _attr(exc, "__suppress_context__"):
        yield context
    # urllib's URLError and urllib3's MaxRetryError keep the underlying failure in .reason;
    # requests wraps the urllib3 error as its first argument.
    reason = _attr(exc, "reason")
    if isinstance(reason, BaseException):
        yield reason
    args = _attr(exc, "args")
    if isinstance(args, tuple):
        for arg in args[:2]:
            if isinstance(arg, BaseException):
                yield arg
    members = _attr(exc, "exceptions")
    if isinstance(members, tuple):
        for member in members[:8]:
            if isinstance(member, BaseException):
                yield member


def _chain(error: BaseException) -> Iterator[BaseException]:
    """Breadth-first over the chain, outermost first, each exception once, bounded."""
    seen: set[int] = set()
    queue = deque([error])
    while queue and len(seen) < _MAX_CHAIN:
        exc = queue.popleft()
        if id(exc) in seen:
            continue
        seen.add(id(exc))
        yield exc
        queue.extend(_links(exc))


def _carried_response(
    exc: BaseException, now: Clock, original: BaseException
) -> Outcome[None] | None:
    """The outcome of the HTTP response an exception carries, if it carries a failed one.

    A carried 2xx is not decisive: the exception says the call failed after a successful
    status line (for example an error event inside a streamed 200), so the walk goes on.
    """
    response = _attr(exc, "response")
    parts = response_parts(response) if response is not None else None
    if parts is None:
        parts = response_parts(exc, exception=True)
    if parts is None:
        return None
    status, headers, body = parts
    outcome = _status_outcome(status, body, headers, now, original)
    return None if outcome.ok else outcome


_MALFORMED_HINT = (
    "This call could not be sent because the request it builds is malformed (for example an "
    "invalid URL or an unsupported scheme). Your arguments are wrong in a way you can fix: "
    "correct the values the request is built from and resend."
)


_CLIENT_TEXT_CAP = 300
"""Most characters of an HTTP client's own message quoted in the malformed-request hint."""


def _exception_text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        return ""
    return snippet(text, _CLIENT_TEXT_CAP) if isinstance(text, str) else ""


def _transport_outcome(
    code: Code, original: BaseException, decisive: BaseException
) -> Outcome[None]:
    if code is Code.INVALID_REQUEST or code is Code.UNKNOWN:
        # The client's own words name what a human must fix (the URL, the certificate).
        detail = _exception_text(decisive)
        lead = _MALFORMED_HINT if code is Code.INVALID_REQUEST else _TRANSPORT_HINTS[code]
        hint = lead + (f" The HTTP client said: {detail}" if detail else "")
        return Outcome(code, hint, None, 0, None, original)
    return Outcome(code, _TRANSPORT_HINTS[code], None, 0, None, original)


_TRANSPORT_HINTS = {
    code: hint_for(code, where(0, transport=True))
    for code in (Code.TIMEOUT, Code.UNAVAILABLE, Code.UNKNOWN)
}


def from_error(error: object, *, now: Clock = None) -> Outcome[None]:
    """Classify an exception from a tool call's transport (no HTTP response, usually).

    ``None`` gives an ok Outcome. An :class:`~agenterr.AgentToolError` gives its own
    outcome. An exception carrying an HTTP response or status (httpx ``HTTPStatusError``,
    requests ``HTTPError``, urllib ``HTTPError``, SDK errors) is classified by that response.
    Otherwise the cause/context chain decides: a timeout anywhere gives ``TIMEOUT``, a
    client refusing a malformed request gives ``INVALID_REQUEST``, and anything else
    ``UNAVAILABLE``. A non-exception gives ``UNKNOWN``.
    """
    if error is None:
        return _OK
    try:
        return _from_error(error, now)
    except Exception as exc:  # the last line of defence: never raise
        return _internal_failure(exc)


def _from_error(error: object, now: Clock) -> Outcome[None]:
    if not isinstance(error, Exception):
        # Not an exception at all, or a BaseException that is a control signal
        # (cancellation, KeyboardInterrupt, SystemExit), not a failed call: never retryable.
        exc = error if isinstance(error, BaseException) else None
        return Outcome(Code.UNKNOWN, _TRANSPORT_HINTS[Code.UNKNOWN], None, 0, None, exc)
    from .errors import AgentToolError

    for exc in _chain(error):
        if isinstance(exc, AgentToolError):
            carried_outcome = _attr(exc, "outcome")
            if isinstance(carried_outcome, Outcome) and carried_outcome.failed:
                return carried_outcome
        carried = _carried_response(exc, now, error)
        if carried is not None:
            return carried
        kind = _kind_of_type(type(exc))
        number = _attr(exc, "errno") if kind is None and isinstance(exc, OSError) else None
        if type(number) is int:
            if number == errno.ETIMEDOUT:
                kind = _TIMEOUT
            elif number in _NAME_NOT_FOUND and isinstance(exc, socket.gaierror):
                kind = _PERMANENT
        if kind == _TIMEOUT:
            return _transport_outcome(Code.TIMEOUT, error, exc)
        if kind == _MALFORMED:
            return _transport_outcome(Code.INVALID_REQUEST, error, exc)
        if kind == _PERMANENT:
            return _transport_outcome(Code.UNKNOWN, error, exc)
    return _transport_outcome(Code.UNAVAILABLE, error, error)


def classify(
    status: object = 0,
    body: object = "",
    error: object = None,
    *,
    headers: object = None,
    now: Clock = None,
) -> Outcome[None]:
    """The combined entry point: a non-None ``error`` wins; otherwise status and body decide."""
    if error is not None:
        return from_error(error, now=now)
    return from_status(status, body, headers=headers, now=now)


def schema_invalid(*problems: object) -> Outcome[None]:
    """A SCHEMA_INVALID outcome listing validation problems, for a pre-flight check.

    Bring your own validator and pass its messages; each is cleaned and capped, and only
    the first twenty are listed ("… and N more").
    """
    try:
        return Outcome(Code.SCHEMA_INVALID, schema_hint(problems))
    except Exception:  # a hostile problem object: the generic pre-flight hint
        return Outcome(Code.SCHEMA_INVALID, schema_hint(()))


def _internal_failure(exc: Exception) -> Outcome[None]:
    """UNKNOWN for an input that defeated every guard (a hostile object): never raised."""
    return Outcome(Code.UNKNOWN, _TRANSPORT_HINTS[Code.UNKNOWN], None, 0, None, exc)
