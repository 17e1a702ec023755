"""Transport exceptions: what an HTTP client's or the network's exception means.

One table of client libraries and their exception names, read by two decisions that must
agree: :func:`from_error` (which code a failure gets) and :func:`is_transport` (whether an
exception a decorated tool raised is a failure of the HTTP exchange at all, or a bug). Both
walk links between exceptions under the same budget (``is_transport`` only the explicit
ones: causes, wrapped errors, group members). Client libraries are
recognised by class names in an exception's MRO together with the top-level package that
defines them, so nothing here imports httpx, requests, aiohttp, botocore or azure-core.

Nothing here raises, whatever it is given, and each walk visits at most :data:`MAX_CHAIN`
exceptions.
"""

from __future__ import annotations

import errno
import re
import socket
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import cache
from typing import NamedTuple

from ._classify import from_status, internal_failure, status_outcome
from ._hints import hint_for, where
from ._outcome import AgentToolError, Failure, Success
from ._quote import Cleaned, snippet
from ._reason import Reason, reason
from ._responses import response_parts
from ._retry_after import Clock
from ._rules import Rules, RuleSet, layers
from ._sdk import (
    CREDENTIALS,
    SIGN_IN,
    SLACK,
    TIMEOUT,
    WRAPPER,
    carried_parts,
    sdk_kind,
    sdk_parts,
)
from ._shared import BoundedCache, attr
from ._taxonomy import Code

__all__ = [
    "MAX_CHAIN",
    "Verdict",
    "chain",
    "classify",
    "exception_text",
    "from_error",
    "is_transport",
    "may_have_taken_effect",
    "package_of",
    "verdict",
]

_OK: Success[None] = Success()

MAX_CHAIN = 64
"""Exceptions visited by one walk (causes, contexts, wrapped errors, group members)."""


# --- the table ------------------------------------------------------------------------

# Top-level package → class names (anywhere in the MRO) that mean "the HTTP exchange
# failed". Everything else these packages raise (httpx StreamConsumed, TooManyRedirects,
# DecodingError; requests StreamConsumedError) is a programming error in the tool.
# The stdlib rows are an allow-list: an OSError is a transport failure only when it is one
# of these types (or carries a network errno, see _NETWORK_ERRNOS); io.UnsupportedOperation,
# ProcessLookupError, shutil.SameFileError, EBADF, ENOSPC and the like are bugs in the tool.
# botocore's HTTPClientError (read timeouts, closed connections) and ConnectionError
# (endpoint unreachable, connect timeout, proxy), and azure-core's ServiceRequestError and
# ServiceResponseError are those SDKs' wrappers around the HTTP client's own failure.
_CLIENT_FAMILIES: Mapping[str, frozenset[str]] = {
    "builtins": frozenset({"ConnectionError", "TimeoutError"}),  # socket.timeout included
    "socket": frozenset({"gaierror", "herror"}),
    "ssl": frozenset({"SSLError"}),
    "urllib": frozenset({"URLError"}),  # urllib.error: HTTPError, ContentTooShortError
    "http": frozenset({"HTTPException"}),  # http.client: RemoteDisconnected, IncompleteRead
    "asyncio": frozenset({"IncompleteReadError"}),
    "httpx": frozenset({"TransportError", "HTTPStatusError", "InvalidURL"}),
    "httpx2": frozenset({"TransportError", "HTTPStatusError", "InvalidURL"}),
    "httpcore": frozenset({"NetworkError", "TimeoutException", "ProtocolError", "ProxyError"}),
    "requests": frozenset({"RequestException"}),
    "urllib3": frozenset({"HTTPError"}),
    "aiohttp": frozenset({"ClientError"}),
    "openai": frozenset({"APIConnectionError", "APIStatusError"}),
    "anthropic": frozenset({"APIConnectionError", "APIStatusError"}),
    "botocore": frozenset({"HTTPClientError", "ConnectionError"}),
    "azure": frozenset({"ServiceRequestError", "ServiceResponseError"}),
}
# Names that are never a transport failure even though the class belongs to a client family:
# requests' errors for a body it cannot send or a response it cannot parse
# (requests.JSONDecodeError included), and a redirect loop (requests, like httpx's, which is
# outside httpx's TransportError anyway): repeating the call cannot fix any of them.
_NOT_TRANSPORT = frozenset(
    {
        "InvalidJSONError",
        "StreamConsumedError",
        "UnrewindableBodyError",
        "TooManyRedirects",
    }
)
# errno values of a plain OSError (one that is not a ConnectionError/TimeoutError subclass,
# as raised by some C extensions and by socket calls with no specific subclass) that mean the
# network failed. Looked up by name, as not every platform defines every one.
_NETWORK_ERRNOS = frozenset(
    getattr(errno, name)
    for name in (
        "ECONNREFUSED",
        "ECONNRESET",
        "ECONNABORTED",
        "ETIMEDOUT",
        "EHOSTUNREACH",
        "EHOSTDOWN",
        "ENETUNREACH",
        "ENETDOWN",
        "ENETRESET",
        "EPIPE",
        "ENOTCONN",
        "ESHUTDOWN",
        "EADDRNOTAVAIL",
    )
    if hasattr(errno, name)
)

# Which code a failure gets. Class names that mean "no answer in time", matched anywhere in
# an exception's MRO: httpx/httpx2 TimeoutException, requests Timeout (and botocore's
# vendored copy), urllib3 TimeoutError, openai/anthropic APITimeoutError, google-api-core
# DeadlineExceeded. aiohttp's and asyncio's timeouts derive from the builtin TimeoutError.
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
_TIMEOUT, _MALFORMED, _PERMANENT, _CONNECTION = "timeout", "malformed", "permanent", "connection"

# Failures relayed as text from other runtimes — an MCP server written in Go or Node, a
# subprocess, a curl call — arrive as a plain exception whose message is all there is. Each
# wording is the runtime's own fixed text, specific enough not to occur in ordinary error
# prose (SPEC 4.2, step 3.6, which is rendered from this table).


class ForeignWordings(NamedTuple):
    """One concept's wordings of a transport failure in other runtimes (SPEC 4.2, step 3.6).

    ``texts`` are found anywhere in the message, ``words`` only where no ASCII letter, digit
    or ``_`` touches either end (``ENOTFOUND``, not ``XENOTFOUNDX``); both case-sensitively.
    """

    concept: str  # certificate (verification failed), host name (does not exist), timed
    # out, connection (refused, reset or dropped; a resolver hiccup), cancelled (by the
    # caller; last, so that a cancellation a timeout caused reads as the timeout)
    kind: str  # "permanent", "timeout" or "connection" (not decisive)
    runtimes: str
    texts: tuple[str, ...]
    words: tuple[str, ...] = ()

    def pattern(self) -> re.Pattern[str]:
        """Literal alternatives only: the same search in every regex dialect."""
        texts = [re.escape(text) for text in self.texts]
        if self.words:
            words = "|".join(re.escape(word) for word in self.words)
            texts.append(f"(?<![A-Za-z0-9_])(?:{words})(?![A-Za-z0-9_])")
        return re.compile("|".join(texts))


FOREIGN_WORDINGS = (
    ForeignWordings(
        "certificate",
        _PERMANENT,
        "Go crypto/x509, Java PKIX, Node, curl",
        (
            "x509: ",
            "PKIX path building failed",
            "unable to find valid certification path",
            "CERT_HAS_EXPIRED",
            "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
            "SELF_SIGNED_CERT_IN_CHAIN",
            "DEPTH_ZERO_SELF_SIGNED_CERT",
            "ERR_TLS_CERT_ALTNAME_INVALID",
            "curl: (60)",
            "SSL certificate problem",
            "certificate verify failed",
            "invalid peer certificate",
            "The remote certificate is invalid",
            "unable to get local issuer certificate",
            "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
            "self signed certificate",
            "self-signed certificate",
            "certificate has expired",
            "No subject alternative",
            "no alternative certificate subject name",
        ),
    ),
    ForeignWordings(
        "host name",
        _PERMANENT,
        "Go, Node, glibc, macOS, curl, Windows and .NET, Java",
        (
            "no such host",
            "Name or service not known",
            "nodename nor servname provided",
            "hostname nor servname provided",
            "Could not resolve host",
            "Could not resolve: ",
            "curl: (6)",
            "No such host is known",
            "UnknownHostException",
        ),
        ("ENOTFOUND", "NXDOMAIN"),
    ),
    ForeignWordings(
        "timed out",
        _TIMEOUT,
        "Go context and net, Node, undici, curl, Java, .NET, Rust, Ruby, macOS",
        (
            "context deadline exceeded",
            "Client.Timeout exceeded",
            "i/o timeout",
            "UND_ERR_HEADERS_TIMEOUT",
            "UND_ERR_BODY_TIMEOUT",
            "UND_ERR_CONNECT_TIMEOUT",
            "curl: (28)",
            "SocketTimeoutException",
            "HttpTimeoutException",
            "HttpClient.Timeout",
            "aborted due to timeout",
            "signal timed out",
            "operation timed out",
            "Operation timed out",
            "connection timed out",
            "Connection timed out",
            "Net::ReadTimeout",
            "Net::OpenTimeout",
        ),
        ("ETIMEDOUT", "ESOCKETTIMEDOUT"),
    ),
    ForeignWordings(
        "connection",
        _CONNECTION,
        "POSIX error names, glibc, Go, Node, undici, curl, Java, Windows and .NET, Rust, Ruby",
        (
            "connection refused",
            "Connection refused",
            "connection reset by peer",
            "Connection reset by peer",
            "socket hang up",
            "UND_ERR_SOCKET",
            "curl: (7)",
            "curl: (52)",
            "curl: (56)",
            "ConnectException: Connection refused",
            "SocketException: Connection reset",
            "broken pipe",
            "Broken pipe",
            "Temporary failure in name resolution",
            "temporary error during hostname resolution",
            "An existing connection was forcibly closed",
            "target machine actively refused it",
            "connection closed before message completed",
            "Failed to open TCP connection",
        ),
        ("ECONNREFUSED", "ECONNRESET", "EPIPE", "EAI_AGAIN"),
    ),
    ForeignWordings(
        "cancelled",
        _PERMANENT,
        "Go context, JavaScript fetch, .NET",
        (
            "context canceled",
            "AbortError",
            "This operation was aborted",
            "The operation was aborted",
            "The user aborted a request",
            "TaskCanceledException",
            "OperationCanceledException",
            "A task was canceled",
            "The operation was canceled",
            "operation was canceled",
            "signal is aborted without reason",
        ),
    ),
)


@cache
def _foreign_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each group's kind and pattern, compiled on first use rather than at import."""
    return tuple((group.kind, group.pattern()) for group in FOREIGN_WORDINGS)


FOREIGN_WINDOW = 1024


class Verdict(NamedTuple):
    """What the table says about one exception class."""

    transport: bool
    """A client family's failure of the HTTP exchange (not a bug in the tool)."""
    kind: str | None
    """``"timeout"``, ``"malformed"``, ``"permanent"``, or None: which code it points to."""


_NOTHING = Verdict(False, None)
_VERDICTS: BoundedCache[type, Verdict] = BoundedCache(1024)


def package_of(cls: type) -> str:
    """The top-level package that defines ``cls`` ("" when unknown)."""
    module = getattr(cls, "__module__", None)
    return module.partition(".")[0] if isinstance(module, str) else ""


def verdict(tp: type) -> Verdict:
    """The table's reading of exception class ``tp``, computed once per class. Never raises."""
    try:
        found = _VERDICTS.get(tp)
        if found is not None:
            return found
        found = _verdict(tp)
        return _VERDICTS.remember(tp, found)
    except Exception:
        return _NOTHING  # an unhashable or hostile exception class is no known kind


def _verdict(tp: type) -> Verdict:
    mro = tp.__mro__
    names = {c.__name__ for c in mro}
    transport = not names & _NOT_TRANSPORT and any(
        c.__name__ in _CLIENT_FAMILIES.get(package_of(c), ()) for c in mro
    )
    kind = None
    if names & _NOT_TIMEOUT_NAMES:
        kind = None
    elif issubclass(tp, TimeoutError) or names & _TIMEOUT_NAMES:
        kind = _TIMEOUT
    elif names & _MALFORMED_NAMES:
        kind = _MALFORMED
    elif names & _CERTIFICATE_NAMES:
        kind = _PERMANENT
    return Verdict(transport, kind)


# --- links between exceptions -----------------------------------------------------------


_MAX_MEMBERS = 8
"""Members of one exception group followed by :func:`chain`."""


def _wrapped(exc: BaseException) -> Iterator[BaseException]:
    """The failure an SDK's exception wraps explicitly, as ``raise … from`` would.

    azure-core keeps it in ``inner_exception``; botocore passes it as the ``error`` keyword
    that its exceptions keep in ``kwargs``.
    """
    inner = attr(exc, "inner_exception")
    if isinstance(inner, BaseException):
        yield inner
    kwargs = attr(exc, "kwargs")
    if isinstance(kwargs, dict):
        error = kwargs.get("error")
        if isinstance(error, BaseException):
            yield error


def _links(exc: BaseException) -> Iterator[BaseException]:
    cause = attr(exc, "__cause__")
    if isinstance(cause, BaseException):
        yield cause
    context = attr(exc, "__context__")
    if isinstance(context, BaseException) and not attr(exc, "__suppress_context__"):
        yield context
    yield from _wrapped(exc)
    # urllib's URLError and urllib3's MaxRetryError keep the underlying failure in .reason;
    # requests wraps the urllib3 error as its first argument.
    reason = attr(exc, "reason")
    if isinstance(reason, BaseException):
        yield reason
    args = attr(exc, "args")
    if isinstance(args, tuple):
        for arg in args[:2]:
            if isinstance(arg, BaseException):
                yield arg
    members = attr(exc, "exceptions")
    if isinstance(members, tuple):
        for member in members[:_MAX_MEMBERS]:
            if isinstance(member, BaseException):
                yield member


def chain(error: BaseException) -> Iterator[BaseException]:
    """Breadth-first over the chain, outermost first, each exception once, bounded."""
    seen: set[int] = set()
    queue = deque([error])
    while queue and len(seen) < MAX_CHAIN:
        exc = queue.popleft()
        if id(exc) in seen:
            continue
        seen.add(id(exc))
        yield exc
        queue.extend(_links(exc))


# --- which code: from_error -------------------------------------------------------------


def _carried_response(
    exc: BaseException, now: Clock, original: BaseException, rules: tuple[RuleSet, ...] = ()
) -> Failure | None:
    """The outcome of the HTTP response an exception carries, if it carries a failed one.

    A carried 2xx is not decisive: the exception says the call failed after a successful
    status line (for example an error event inside a streamed 200), so the walk goes on.
    """
    sdk = _sdk_outcome(exc, now, original, rules)  # the SDK table (_sdk.py) first
    if sdk is not None:
        return None if sdk.ok else sdk
    response = attr(exc, "response")
    parts = response_parts(response) if response is not None else None
    if parts is None:
        parts = carried_parts(exc)
    if parts is None:
        return None
    status, headers, body = parts
    source = response if response is not None else exc  # where a status rule finds the host
    outcome = status_outcome(status, body, headers, now, original, rules=rules, host=source)
    return None if outcome.ok else outcome


def _sdk_outcome(
    exc: BaseException, now: Clock, original: BaseException, rules: tuple[RuleSet, ...] = ()
) -> Success[None] | Failure | None:
    """The outcome an SDK exception carries by the table, or None when it is not in it.

    Slack's ``SlackApiError`` with a 2xx is the envelope it was raised for (``ok: false``)
    and is read by :func:`~agenterr._envelope.from_envelope`; google-auth credential errors
    give UNAUTHORIZED (UNAVAILABLE when the library calls them retryable), and so does
    azure-core's authentication error when it carries no response; a transport
    wrapper is classified by the failure it wraps; every other row gives its
    ``(status, headers, body)`` to the status rules.
    """
    kind = sdk_kind(exc)
    if kind is None:
        return None
    if kind == SLACK:
        response = attr(exc, "response")
        status, headers, data = (
            attr(response, "status_code"),
            attr(response, "headers"),
            attr(response, "data"),
        )
        if type(status) is int and 200 <= status <= 299:
            # Loaded on first use, as the package root loads it: the envelope reader
            # compiles its tables, and most programs never meet a Slack error.
            from ._envelope import envelope_failure

            found = envelope_failure(data, headers, now, rules)
            if found is None:
                return _OK
            return replace(found.outcome, error=original)
        return status_outcome(status, data, headers, now, original, rules=rules, host=response)
    if kind == CREDENTIALS:
        return _credentials(exc, original)
    if kind == TIMEOUT:
        return _transport_outcome(Code.TIMEOUT, original, exc, _class_reason("error-class", exc))
    if kind == WRAPPER:
        return _sdk_wrapped(exc, original, now, rules)
    parts = sdk_parts(exc)
    if parts is None:
        # azure-core's ClientAuthenticationError without a response: a credential (or
        # token) source refused before any request was sent
        return _credentials(exc, original) if kind == SIGN_IN else None
    status, headers, body = parts
    return status_outcome(status, body, headers, now, original, rules=rules, host=exc)


def _sdk_wrapped(
    exc: BaseException, original: BaseException, now: Clock, rules: tuple[RuleSet, ...]
) -> Failure | None:
    inner = attr(exc, "inner_exception")
    if not isinstance(inner, BaseException):
        kwargs = attr(exc, "kwargs")
        inner = kwargs.get("error") if isinstance(kwargs, dict) else None
    # One level only: an inner exception that is itself in the table is not unwrapped
    # again, so a chain of wrappers (or a cycle) costs one extra classification at most.
    if not isinstance(inner, BaseException) or sdk_kind(inner) is not None:
        return None
    outcome = _from_error(inner, now, rules)
    return replace(outcome, error=original) if isinstance(outcome, Failure) else None


def _credentials(exc: BaseException, original: BaseException) -> Failure:
    code = Code.UNAVAILABLE if attr(exc, "retryable") is True else Code.UNAUTHORIZED
    hint = hint_for(code, where(0, transport=True), exception_text(exc))
    return Failure(code, hint, None, 0, original, _class_reason("sdk-credentials", exc))


MALFORMED_HINT = (
    "This call could not be sent because the request it builds is malformed (for example an "
    "invalid URL or an unsupported scheme). Your arguments are wrong in a way you can fix: "
    "correct the values the request is built from and resend."
)


_CLIENT_TEXT_CAP = 300
"""Most characters of an HTTP client's own message quoted in the malformed-request hint."""


def exception_text(exc: BaseException) -> str:
    """``str(exc)`` through the cleaning and redaction gate, capped; "" if it cannot be read."""
    try:
        text = str(exc)
    except Exception:
        return ""
    return snippet(text, _CLIENT_TEXT_CAP) if isinstance(text, str) else ""


def foreign_kind(exc: BaseException) -> str | None:
    """The transport failure a plain exception's message relays from another runtime, or
    None: only exceptions the class table does not know are read, and only the first
    1,024 characters of their text. Never raises."""
    found = foreign_wording(exc)
    return None if found is None else found[0]


def foreign_wording(exc: BaseException) -> tuple[str, str] | None:
    """:func:`foreign_kind` and the wording that decided it, or None."""
    if verdict(type(exc)).transport:
        return None
    try:
        text = str(exc)
    except Exception:
        return None
    if not isinstance(text, str) or not text:
        return None
    window = str.__str__(text)[:FOREIGN_WINDOW]
    for kind, pattern in _foreign_patterns():
        match = pattern.search(window)
        if match is not None:
            return kind, match.group()
    return None


def _transport_outcome(
    code: Code, original: BaseException, decisive: BaseException, why: Reason
) -> Failure:
    if code is Code.INVALID_REQUEST or code is Code.UNKNOWN:
        # The client's own words name what a human must fix (the URL, the certificate).
        detail = exception_text(decisive)
        lead = MALFORMED_HINT if code is Code.INVALID_REQUEST else _TRANSPORT_HINTS[code]
        # The gate's words after a template: clean as they are.
        hint = Cleaned(lead + (f" The HTTP client said: {detail}" if detail else ""))
        return Failure(code, hint, None, 0, original, why)
    return Failure(code, _TRANSPORT_HINTS[code], None, 0, original, why)


def _class_reason(rule: str, exc: BaseException) -> Reason:
    """A transport reason whose evidence is the deciding exception's class name."""
    return reason(rule, type(exc).__name__)


_TRANSPORT_HINTS = {
    code: hint_for(code, where(0, transport=True))
    for code in (Code.TIMEOUT, Code.UNAVAILABLE, Code.UNKNOWN)
}


def from_error(error: object, *, now: Clock = None, rules: Rules = None) -> Success[None] | Failure:
    """Classify an exception from a tool call's transport (no HTTP response, usually).

    ``None`` gives an ok Outcome. An :class:`~agenterr.AgentToolError` gives its own
    outcome. An exception carrying an HTTP response or status (httpx ``HTTPStatusError``,
    requests ``HTTPError``, urllib ``HTTPError``, SDK errors) is classified by that response.
    Otherwise the cause/context chain decides: a timeout anywhere gives ``TIMEOUT``, a
    client refusing a malformed request gives ``INVALID_REQUEST``, and anything else
    ``UNAVAILABLE``. A non-exception gives ``UNKNOWN``. ``rules`` are user rules for this
    call, applied to a carried response.
    """
    if error is None:
        return _OK
    scopes = layers(rules)
    try:
        return _from_error(error, now, scopes)
    except Exception as exc:  # the last line of defence: never raise
        return internal_failure(exc)


def classify(
    status: object = 0,
    body: object = "",
    error: object = None,
    *,
    headers: object = None,
    now: Clock = None,
    rules: Rules = None,
) -> Success[None] | Failure:
    """The combined entry point: a non-None ``error`` wins; otherwise status and body decide."""
    if error is not None:
        return from_error(error, now=now, rules=rules)
    return from_status(status, body, headers=headers, now=now, rules=rules)


def _from_error(
    error: object, now: Clock, rules: tuple[RuleSet, ...] = ()
) -> Success[None] | Failure:
    if not isinstance(error, Exception):
        # Not an exception at all, or a BaseException that is a control signal
        # (cancellation, KeyboardInterrupt, SystemExit), not a failed call: never retryable.
        exc = error if isinstance(error, BaseException) else None
        not_one = reason("not-an-error", type(error).__name__)
        return Failure(Code.UNKNOWN, _TRANSPORT_HINTS[Code.UNKNOWN], None, 0, exc, not_one)
    for exc in chain(error):
        if isinstance(exc, AgentToolError):
            carried_outcome = attr(exc, "outcome")
            if isinstance(carried_outcome, Failure):
                return carried_outcome
        carried = _carried_response(exc, now, error, rules)
        if carried is not None:
            return carried
        kind = verdict(type(exc)).kind
        number = attr(exc, "errno") if kind is None and isinstance(exc, OSError) else None
        why: Reason | None = None
        if type(number) is int:
            if number == errno.ETIMEDOUT:
                kind = _TIMEOUT
            elif number in _NAME_NOT_FOUND and isinstance(exc, socket.gaierror):
                kind = _PERMANENT
            if kind is not None:
                name = _ERRNO_NAMES.get(number, str(number))
                why = reason("errno", f"{name} in {type(exc).__name__}")
        elif kind is None:
            wording = foreign_wording(exc)
            if wording is not None:
                kind = wording[0]
                why = reason("foreign-transport", f"'{wording[1]}' in {type(exc).__name__}")
        code = _KIND_CODES.get(kind) if kind is not None else None
        if code is not None:
            return _transport_outcome(code, error, exc, why or _class_reason("error-class", exc))
    return _transport_outcome(
        Code.UNAVAILABLE, error, error, _class_reason("transport-default", error)
    )


_ERRNO_NAMES = {
    **errno.errorcode,
    **{getattr(socket, n): n for n in dir(socket) if n.startswith("EAI_")},
}
"""Names for the errnos a reason shows: the OS's, and getaddrinfo's (negative on Linux)."""
_KIND_CODES = {_TIMEOUT: Code.TIMEOUT, _MALFORMED: Code.INVALID_REQUEST, _PERMANENT: Code.UNKNOWN}
"""The code each decisive kind of transport failure gives (SPEC 4.2)."""


# --- transport or bug: is_transport -----------------------------------------------------

_MAX_GROUP = 16
"""Members of one exception group looked at by :func:`is_transport`."""


def _carries_response(exc: BaseException) -> bool:
    # Any status counts, 2xx included (an error event inside a streamed 200): the call
    # failed on the wire. from_error's _carried_response ignores a carried 2xx because it
    # decides *which* code; this only decides *whether* the exception is an HTTP failure.
    response = attr(exc, "response")
    if response is not None and response_parts(response) is not None:
        return True
    return carried_parts(exc) is not None


def _transport_itself(exc: BaseException) -> bool:
    if verdict(type(exc)).transport:
        return True
    if isinstance(exc, OSError) and attr(exc, "errno") in _NETWORK_ERRNOS:
        return True
    return _carries_response(exc) or foreign_kind(exc) is not None


def is_transport(exc: BaseException) -> bool:
    """True when ``exc``, or an exception it explicitly wraps, is an HTTP or network failure.

    Only explicit links are followed: ``__cause__`` (``raise … from …``), the failure an SDK
    wraps on purpose (azure-core's ``inner_exception``, botocore's ``kwargs["error"]``) and
    the members of an exception group (a group counts when every member looked at is a
    transport failure). The implicit ``__context__`` is not: an exception raised *while
    handling* a network failure without ``from`` is, by Python's own reading ("during
    handling of the above exception, another exception occurred"), a second failure —
    usually a bug in the handler — and must not become retryable. Once this says
    "transport", :func:`from_error` picks the code from the whole chain (causes, contexts,
    reasons, members), so a timeout anywhere in it still gives TIMEOUT.

    Bounded like :func:`from_error`'s walk: at most :data:`MAX_CHAIN` exceptions and
    :data:`_MAX_GROUP` members per group are looked at, and what the budget leaves unseen
    neither proves nor disproves anything, so a large tree of transport failures (nested
    task groups) is one. Never raises.
    """
    try:
        return _is_transport(exc, {}) is True
    except Exception:  # a hostile exception's attributes must not break the decision
        return False


def _is_transport(exc: BaseException, seen: dict[int, bool]) -> bool | None:
    """The verdict for ``exc``; None when the budget ran out before it was looked at."""
    known = seen.get(id(exc))
    if known is not None:
        return known  # False while still being decided: a cycle proves nothing
    if len(seen) >= MAX_CHAIN:
        return None
    seen[id(exc)] = False
    if _transport_itself(exc):
        verdict_ = True
    elif isinstance(exc, BaseExceptionGroup):
        members = attr(exc, "exceptions")
        members = members[:_MAX_GROUP] if isinstance(members, tuple) else ()
        verdict_ = _all_transport(members, seen)
    else:
        verdict_ = False
        for link in _explicit_links(exc):
            if _is_transport(link, seen) is True:
                verdict_ = True
                break
    seen[id(exc)] = verdict_
    return verdict_


def _all_transport(members: tuple[object, ...], seen: dict[int, bool]) -> bool:
    looked = False
    for member in members:
        if not isinstance(member, BaseException):
            return False
        found = _is_transport(member, seen)
        if found is False:
            return False
        looked = looked or found is True
    return looked


def _explicit_links(exc: BaseException) -> Iterator[BaseException]:
    cause = attr(exc, "__cause__")
    if isinstance(cause, BaseException):
        yield cause
    yield from _wrapped(exc)


# --- idempotency -----------------------------------------------------------------------

# Failures that happen after the request (or part of it) went out on an open connection:
# the server may have acted on it. Matched by class name anywhere in the MRO.
_MAYBE_SENT = frozenset(
    {
        "ReadTimeout",  # httpx, httpx2, requests: sent, no answer in time
        "WriteTimeout",  # httpx, httpx2: part of the request was written
        "ReadError",  # httpx, httpx2: connection broke while reading the answer
        "WriteError",  # httpx, httpx2: connection broke while writing the request
        "RemoteProtocolError",  # httpx, httpx2: the server hung up or answered garbage
        "ReadTimeoutError",  # urllib3
        "ProtocolError",  # urllib3 "Connection aborted." (httpx's subclasses are above)
        "ChunkedEncodingError",  # requests: the answer was cut short
        "IncompleteRead",  # http.client, urllib3
        "RemoteDisconnected",  # http.client: closed without an answer
        "BadStatusLine",  # http.client
        "IncompleteReadError",  # asyncio streams
        "ServerDisconnectedError",  # aiohttp
        "SocketTimeoutError",  # aiohttp: read timeout
        "ClientPayloadError",  # aiohttp: the answer was cut short
        "ConnectionResetError",  # stdlib
        "ConnectionAbortedError",  # stdlib
        "BrokenPipeError",  # stdlib
    }
)
# Failures that happen before a byte of the request is sent: repeating is safe.
_NEVER_SENT = frozenset(
    {
        "ConnectTimeout",  # httpx, httpx2, requests
        "ConnectError",  # httpx, httpx2: refused, DNS, TLS handshake
        "PoolTimeout",  # httpx, httpx2: no free connection
        "ConnectTimeoutError",  # urllib3 (NewConnectionError, NameResolutionError derive)
        "EmptyPoolError",  # urllib3
        "ClientConnectorError",  # aiohttp: DNS, refused, TLS, proxy connect
        "ConnectionTimeoutError",  # aiohttp: connect timeout
        "ConnectionRefusedError",  # stdlib
        "gaierror",  # socket: DNS
        "SSLCertVerificationError",  # ssl: handshake, before the request
    }
)
# HTTP statuses with which a server says it did not act on the request.
_NOT_ACTED_STATUSES = frozenset({408, 421, 423, 425, 429, 503})


def _phase(exc: BaseException) -> bool | None:
    """True if the request may have been sent, False if it was not, None if unknown."""
    for cls in type(exc).__mro__:
        if cls.__name__ in _MAYBE_SENT:
            return True
        if cls.__name__ in _NEVER_SENT:
            return False
    return None


def may_have_taken_effect(status: int, exc: BaseException | None) -> bool:
    """Whether a transient failure may have happened after the server got the request.

    A status decides by :data:`_NOT_ACTED_STATUSES`; otherwise the outermost exception in
    the chain that names its phase decides, walking the chain :func:`from_error` walks
    (causes, unsuppressed contexts, wrapped errors, ``.reason``, wrapped arguments, group
    members); an unknown phase counts as "may have".
    """
    if status:
        return status not in _NOT_ACTED_STATUSES
    if exc is None:
        return True
    try:
        for link in chain(exc):
            phase = _phase(link)
            if phase is not None:
                return phase
    except Exception:  # a hostile exception's attributes must not break the decision
        return True
    return True
