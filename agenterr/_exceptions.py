"""What an exception raised inside a tool means: argument error, validation, transport or bug.

Client libraries are recognised by the class names in an exception's MRO together with the
top-level package that defines them, so nothing here imports httpx, requests, aiohttp,
pydantic or jsonschema. Each rule is a table; the functions below only walk the tables.

The one exception is the pass-through registry: the integration modules, which import
their framework anyway, register the framework's control-flow exceptions by type.
"""

from __future__ import annotations

import errno
import inspect
import threading
from collections.abc import Mapping
from types import CodeType, TracebackType
from typing import Any

from ._classify import _attr, _chain
from ._responses import response_parts
from .errors import AgentToolError

__all__ = [
    "binding_problems",
    "entered",
    "is_transport",
    "may_have_taken_effect",
    "package_of",
    "passes_through",
    "register_pass_through",
    "validation_problems",
]

# --- a framework's control flow ------------------------------------------------------

_pass_through: tuple[type[Exception], ...] = ()
"""Exception types that ``@classified_tool`` lets propagate unchanged (see below)."""
_registry_lock = threading.Lock()


def register_pass_through(*types: type[Exception]) -> None:
    """Let ``types`` (and their subclasses) propagate out of ``@classified_tool`` unchanged.

    For an integration module, on import: the exceptions its framework reads as
    instructions from the tool (Pydantic AI's ``ModelRetry``, Celery's ``Retry``, Temporal's
    ``ApplicationError``…) are not failures for agenterr to classify. Registering a type
    again is a no-op.
    """
    global _pass_through
    for tp in types:
        if not (isinstance(tp, type) and issubclass(tp, Exception)):
            raise TypeError(f"register_pass_through needs Exception subclasses, got {tp!r}")
    with _registry_lock:  # two integrations imported at once by two threads
        _pass_through = tuple(dict.fromkeys((*_pass_through, *types)))


def passes_through(exc: BaseException) -> bool:
    """Whether a tool's ``exc`` is a registered framework exception to leave alone.

    An ``AgentToolError`` never is, even when it is also one of the framework's types (the
    LangChain ``ToolException`` subclasses): it carries agenterr's own outcome.
    """
    return isinstance(exc, _pass_through) and not isinstance(exc, AgentToolError)


# --- transport or bug ----------------------------------------------------------------

# Top-level package → class names (anywhere in the MRO) that mean "the HTTP exchange
# failed". Everything else these packages raise (httpx StreamConsumed, TooManyRedirects,
# DecodingError; requests StreamConsumedError) is a programming error in the tool.
# The stdlib rows are an allow-list: an OSError is a transport failure only when it is one
# of these types (or carries a network errno, see _NETWORK_ERRNOS); io.UnsupportedOperation,
# ProcessLookupError, shutil.SameFileError, EBADF, ENOSPC and the like are bugs in the tool.
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
_TRANSPORT_CACHE: dict[type, bool] = {}
_CACHE_LIMIT = 1024
_MAX_DEPTH = 16
"""Frames searched by :func:`entered`; group members looked at by is_transport."""


def package_of(cls: type) -> str:
    """The top-level package that defines ``cls`` ("" when unknown)."""
    module = getattr(cls, "__module__", None)
    return module.partition(".")[0] if isinstance(module, str) else ""


def _transport_type(tp: type) -> bool:
    cached = _TRANSPORT_CACHE.get(tp)
    if cached is not None:
        return cached
    mro = tp.__mro__
    if any(c.__name__ in _NOT_TRANSPORT for c in mro):
        verdict = False
    else:
        verdict = any(c.__name__ in _CLIENT_FAMILIES.get(package_of(c), ()) for c in mro)
    if len(_TRANSPORT_CACHE) < _CACHE_LIMIT:
        _TRANSPORT_CACHE[tp] = verdict
    return verdict


def _carries_response(exc: BaseException) -> bool:
    # Any status counts, 2xx included (an error event inside a streamed 200): the call
    # failed on the wire. The core's _carried_response ignores a carried 2xx because it
    # decides *which* code; this only decides *whether* the exception is an HTTP failure.
    response = _attr(exc, "response")
    if response is not None and response_parts(response) is not None:
        return True
    return response_parts(exc, exception=True) is not None


def _transport_itself(exc: BaseException) -> bool:
    if _transport_type(type(exc)):
        return True
    if isinstance(exc, OSError) and _attr(exc, "errno") in _NETWORK_ERRNOS:
        return True
    return _carries_response(exc)


def is_transport(exc: BaseException) -> bool:
    """True when ``exc``, or an exception it was raised ``from``, is an HTTP or network failure.

    Only explicit links are followed: ``__cause__`` (``raise … from …``) and the members of an
    exception group (a group counts only when every member is a transport failure). The
    implicit ``__context__`` is not: an exception raised *while handling* a network failure
    without ``from`` is, by Python's own reading ("during handling of the above exception,
    another exception occurred"), a second failure — usually a bug in the handler — and must
    not become retryable. Once this says "transport", :func:`~agenterr.from_error` picks the
    code from the whole chain (causes, contexts, reasons, members), so a timeout anywhere in
    it still gives TIMEOUT. Bounded (:data:`_MAX_LINKS` exceptions), never raises.
    """
    try:
        return _is_transport(exc, {})
    except Exception:  # a hostile exception's attributes must not break the decision
        return False


_MAX_LINKS = 64
"""Exceptions looked at by one is_transport call (causes and group members together)."""


def _is_transport(exc: BaseException, seen: dict[int, bool]) -> bool:
    known = seen.get(id(exc))
    if known is not None:
        return known  # False while still being decided: a cycle proves nothing
    if len(seen) >= _MAX_LINKS:
        return False
    seen[id(exc)] = False
    if _transport_itself(exc):
        verdict = True
    elif isinstance(exc, BaseExceptionGroup):
        members = _attr(exc, "exceptions")
        members = members[:_MAX_DEPTH] if isinstance(members, tuple) else ()
        verdict = bool(members) and all(
            isinstance(m, BaseException) and _is_transport(m, seen) for m in members
        )
    else:
        cause = _attr(exc, "__cause__")
        verdict = isinstance(cause, BaseException) and _is_transport(cause, seen)
    seen[id(exc)] = verdict
    return verdict


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
    the chain that names its phase decides, walking the chain the core's ``from_error``
    walks (causes, unsuppressed contexts, ``.reason``, wrapped arguments, group members);
    an unknown phase counts as "may have".
    """
    if status:
        return status not in _NOT_ACTED_STATUSES
    if exc is None:
        return True
    try:
        for link in _chain(exc):
            phase = _phase(link)
            if phase is not None:
                return phase
    except Exception:  # a hostile exception's attributes must not break the decision
        return True
    return True


# --- validation errors -----------------------------------------------------------------


def _location(loc: object) -> str:
    if not isinstance(loc, (tuple, list)):
        return str(loc)
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int) and i:
            out += f"[{part}]"
        else:
            out += f".{part}" if i else str(part)
    return out


def _pydantic(exc: BaseException) -> list[str]:
    try:
        errors = exc.errors(include_url=False, include_input=False)  # type: ignore[attr-defined]
    except TypeError:
        errors = exc.errors()  # type: ignore[attr-defined]
    problems = []
    for error in errors:
        loc = _location(error.get("loc", ()))
        msg = str(error.get("msg", "invalid value"))
        problems.append(f"{loc}: {msg}" if loc else msg)
    return problems


def _jsonschema(exc: BaseException) -> list[str]:
    message = str(getattr(exc, "message", "") or exc)
    path = getattr(exc, "json_path", None)
    if not isinstance(path, str):
        path = "$" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in getattr(exc, "absolute_path", ())
        )
    return [message if path == "$" else f"{path}: {message}"]


def validation_problems(exc: BaseException) -> list[str] | None:
    """One problem per error location of a pydantic or jsonschema ``ValidationError``.

    ``None`` when ``exc`` is neither (or its details cannot be read).
    """
    for cls in type(exc).__mro__:
        if cls.__name__ != "ValidationError":
            continue
        root = package_of(cls)
        try:
            if root in ("pydantic", "pydantic_core") and hasattr(exc, "errors"):
                return _pydantic(exc)
            if root == "jsonschema":
                return _jsonschema(exc)
        except Exception:
            return None
    return None


# --- argument binding ------------------------------------------------------------------


def entered(tb: TracebackType | None, code: CodeType | None) -> bool:
    """Whether the traceback passes through a frame running ``code`` (the tool's body)."""
    depth = 0
    while tb is not None and depth < _MAX_DEPTH:
        if tb.tb_frame.f_code is code:
            return True
        tb = tb.tb_next
        depth += 1
    return False


def binding_problems(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> list[str]:
    """Why ``args``/``kwargs`` do not bind to ``signature``; empty when they do."""
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        reason = str(exc)
    else:
        return []
    params = list(signature.parameters.values())
    kinds = inspect.Parameter
    positional = [
        p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)
    ]
    by_name = {p.name: p for p in params if p.kind is not kinds.POSITIONAL_ONLY}
    var_positional = any(p.kind is kinds.VAR_POSITIONAL for p in params)
    var_keyword = any(p.kind is kinds.VAR_KEYWORD for p in params)

    problems: list[str] = []
    if len(args) > len(positional) and not var_positional:
        problems.append(
            f"too many positional arguments: got {len(args)}, expected at most {len(positional)}"
        )
    filled = {p.name for p in positional[: len(args)]}
    for name in kwargs:
        param = by_name.get(name)
        if param is None or param.kind is kinds.VAR_KEYWORD:
            if not var_keyword:
                problems.append(f"unexpected argument {name!r}")
        elif name in filled:
            problems.append(f"argument {name!r} given twice")
        else:
            filled.add(name)
    for p in params:
        if (
            p.default is kinds.empty
            and p.kind not in (kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD)
            and p.name not in filled
        ):
            problems.append(f"missing required argument {p.name!r}")
    if not problems:
        problems.append(reason)
    problems.append("expected parameters: " + _describe(params))
    return problems


def _describe(params: list[inspect.Parameter]) -> str:
    kinds = inspect.Parameter
    parts = []
    for p in params:
        if p.kind is kinds.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.kind is kinds.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.default is kinds.empty:
            parts.append(f"{p.name} (required)")
        else:
            parts.append(p.name)
    return ", ".join(parts) if parts else "none"
