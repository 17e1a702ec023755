"""Error envelopes inside successful responses: the failures a 2xx status does not show.

Some protocols answer every call with HTTP 200 and put the failure in the payload: JSON-RPC
2.0 and MCP error objects, MCP tool results with ``isError``, GraphQL ``errors[]``, Slack-style
``{"ok": false, "error": "…"}``, an ``event: error`` frame in a server-sent event stream, and
gRPC's ``grpc-status`` trailer. :func:`from_envelope` reads those signals and returns the
failure, or an ok Outcome when there is none::

    from agenterr._envelope import from_envelope

    outcome = from_envelope('{"ok": false, "error": "rate_limited"}')
    assert outcome.code == "RATE_LIMITED"

Every decision is a row of a table below (signal → code, source, reason); SPEC.md section 12
states the same rules for other ports. Parsing is bounded: only a payload of at most
:data:`~agenterr._refine.PARSE_LIMIT` characters (bytes) is parsed as JSON, and only that
prefix of a longer one is scanned for event-stream frames. Nothing here raises.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple
from urllib.parse import unquote

from ._classify import _internal_failure, code_for_status, from_response
from ._headers import HeaderView
from ._hints import hint_for
from ._hints import where as http_where
from ._outcome import Outcome
from ._quote import SCAN_WINDOW, snippet
from ._refine import (
    GRPC_NAMES,
    IDENTIFIERS,
    LONG_WAIT,
    PARSE_LIMIT,
    Signals,
    normalise,
    parse_json,
    read_signals,
    server_clock,
)
from ._responses import _in_memory_body, as_status
from ._retry_after import Clock, retry_after_from_headers
from ._taxonomy import Code

__all__ = [
    "ENVELOPE_IDENTIFIERS",
    "JSONRPC_CODES",
    "PHRASES",
    "REASON_PHRASES",
    "RELAY_CAP",
    "Rule",
    "envelope_failure",
    "from_envelope",
]


class Rule(NamedTuple):
    """One row of a table: the code a signal gives, where that is documented, and why."""

    code: Code
    source: str
    reason: str


_JSONRPC = "https://www.jsonrpc.org/specification#error_object"
_MCP_TOOLS = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling"
_MCP_RESOURCES = (
    "https://modelcontextprotocol.io/specification/2025-11-25/server/resources#error-handling"
)
_MCP_ELICITATION = (
    "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation"
    "#url-elicitation-required-error"
)
_APOLLO = "https://www.apollographql.com/docs/apollo-server/data/errors#built-in-error-codes"
_SHOPIFY = "https://shopify.dev/docs/api/usage/response-codes"
_ANTHROPIC = "https://docs.claude.com/en/api/errors"
_OPENAI = "https://platform.openai.com/docs/guides/error-codes"

# --- JSON-RPC 2.0 error codes (SPEC 12.3) ------------------------------------------------

JSONRPC_CODES: dict[int, Rule] = {
    -32700: Rule(
        Code.INVALID_REQUEST, _JSONRPC, "Parse error: the JSON sent is invalid; it must change."
    ),
    -32600: Rule(Code.INVALID_REQUEST, _JSONRPC, "Invalid Request: not a valid request object."),
    -32601: Rule(Code.NOT_FOUND, _JSONRPC, "Method not found: the named method does not exist."),
    -32602: Rule(Code.INVALID_REQUEST, _JSONRPC, "Invalid params: the arguments must change."),
    -32603: Rule(
        Code.UNKNOWN,
        _JSONRPC,
        "Internal error: nothing says whether a retry or other arguments would help.",
    ),
    -32002: Rule(Code.NOT_FOUND, _MCP_RESOURCES, "MCP resource not found: the URI does not exist."),
    -32042: Rule(
        Code.UNAUTHORIZED,
        _MCP_ELICITATION,
        "MCP URL elicitation required: a human must complete an out-of-band step "
        "(authorization, payment) before the identical request can succeed.",
    ),
}
"""JSON-RPC ``error.code`` → rule. Other codes in -32099…-32000 ("server error") and every
application-defined code are ``UNKNOWN`` unless ``error.data`` or the message refines them."""

_JSONRPC_SERVER_ERROR = Rule(
    Code.UNKNOWN, _JSONRPC, "Server error (-32099…-32000): implementation-defined meaning."
)
_JSONRPC_OTHER = Rule(Code.UNKNOWN, _JSONRPC, "An application-defined code: no known meaning.")
_JSONRPC_FINAL = frozenset({-32601, -32002, -32042})
"""Codes whose meaning is specific: data and message never refine them."""

# --- identifiers that matter only without a failing status (SPEC 12.2) -------------------

_ENVELOPE_IDENTIFIERS: tuple[tuple[str, Rule], ...] = (
    # GraphQL extensions.code (Apollo Server's built-in codes, Shopify's documented ones)
    (
        "INTERNAL_SERVER_ERROR",
        Rule(
            Code.UNAVAILABLE,
            _SHOPIFY,
            "GraphQL's HTTP 500: Shopify returns it instead of a 500; the status table's row.",
        ),
    ),
    ("BAD_REQUEST", Rule(Code.INVALID_REQUEST, _APOLLO, "The request is malformed.")),
    (
        "OPERATION_RESOLUTION_FAILURE",
        Rule(Code.INVALID_REQUEST, _APOLLO, "The operation to run could not be determined."),
    ),
    (
        "PERSISTED_QUERY_NOT_FOUND",
        Rule(Code.INVALID_REQUEST, _APOLLO, "The request must send the full query."),
    ),
    (
        "PERSISTED_QUERY_NOT_SUPPORTED",
        Rule(Code.INVALID_REQUEST, _APOLLO, "The request must send the full query."),
    ),
    (
        "MAX_COST_EXCEEDED",
        Rule(Code.INVALID_REQUEST, _SHOPIFY, "The query itself is too costly: it must shrink."),
    ),
    (
        "SHOP_INACTIVE",
        Rule(Code.UNAUTHORIZED, _SHOPIFY, "The shop is not active: a human must act."),
    ),
    # Anthropic error types, also sent as a streamed error event after a 200
    (
        "invalid_request_error",
        Rule(Code.INVALID_REQUEST, _ANTHROPIC, "The format or content of the request is wrong."),
    ),
    (
        "authentication_error",
        Rule(Code.UNAUTHORIZED, _ANTHROPIC, "A problem with the API key."),
    ),
    (
        "permission_error",
        Rule(Code.UNAUTHORIZED, _ANTHROPIC, "The key may not use the resource."),
    ),
    (
        "not_found_error",
        Rule(Code.NOT_FOUND, _ANTHROPIC, "The requested resource was not found."),
    ),
    (
        "request_too_large",
        Rule(Code.INVALID_REQUEST, _ANTHROPIC, "The request must shrink."),
    ),
    # OpenAI error type of its 500s, also in a streamed error object
    (
        "server_error",
        Rule(Code.UNAVAILABLE, _OPENAI, "A server error: retry after a brief wait."),
    ),
)
ENVELOPE_IDENTIFIERS: dict[str, Rule] = {
    normalise(name): rule for name, rule in _ENVELOPE_IDENTIFIERS
}
"""Normalised identifier → rule, for identifiers the shared table (SPEC 11.3) leaves out
because a failing HTTP status already says what they mean; consulted after it."""

# --- phrases, for envelopes whose error carries no identifier (SPEC 12.2) ----------------

PHRASES: tuple[tuple[str, Rule], ...] = (
    (
        "rate limit",
        Rule(Code.RATE_LIMITED, _MCP_TOOLS, "The MCP spec's own example of a tool error."),
    ),
    ("rate-limit", Rule(Code.RATE_LIMITED, _MCP_TOOLS, "Rate-limit wording.")),
    ("ratelimit", Rule(Code.RATE_LIMITED, _MCP_TOOLS, "Rate-limit wording.")),
    ("too many requests", Rule(Code.RATE_LIMITED, _MCP_TOOLS, "HTTP 429's reason phrase.")),
    ("throttl", Rule(Code.RATE_LIMITED, _MCP_TOOLS, "Throttled, throttling.")),
    (
        "unknown tool",
        Rule(
            Code.NOT_FOUND,
            _MCP_TOOLS,
            "The MCP spec's example of a protocol error: the named tool does not exist.",
        ),
    ),
)
"""Lower-case phrase → rule, looked for in the first 8,192 characters of an error's text
with A-Z lowered; the first phrase of the table found in any of the texts decides."""

# --- HTTP statuses named in a tool error's text (SPEC 12.4) -----------------------------

REASON_PHRASES: dict[int, tuple[str, ...]] = {
    400: ("Bad Request",),
    401: ("Unauthorized",),
    402: ("Payment Required",),
    403: ("Forbidden",),
    404: ("Not Found",),
    405: ("Method Not Allowed",),
    406: ("Not Acceptable",),
    407: ("Proxy Authentication Required",),
    408: ("Request Timeout",),
    409: ("Conflict",),
    410: ("Gone",),
    411: ("Length Required",),
    412: ("Precondition Failed",),
    413: ("Content Too Large", "Payload Too Large", "Request Entity Too Large"),
    414: ("URI Too Long", "Request-URI Too Long", "Request URI Too Long"),
    415: ("Unsupported Media Type",),
    416: ("Range Not Satisfiable", "Requested Range Not Satisfiable"),
    417: ("Expectation Failed",),
    421: ("Misdirected Request",),
    422: ("Unprocessable Content", "Unprocessable Entity"),
    423: ("Locked",),
    424: ("Failed Dependency",),
    425: ("Too Early",),
    426: ("Upgrade Required",),
    428: ("Precondition Required",),
    429: ("Too Many Requests",),
    431: ("Request Header Fields Too Large",),
    451: ("Unavailable For Legal Reasons",),
    500: ("Internal Server Error",),
    501: ("Not Implemented",),
    502: ("Bad Gateway",),
    503: ("Service Unavailable",),
    504: ("Gateway Timeout",),
    505: ("HTTP Version Not Supported",),
    506: ("Variant Also Negotiates",),
    507: ("Insufficient Storage",),
    508: ("Loop Detected",),
    510: ("Not Extended",),
    511: ("Network Authentication Required",),
}
"""Registered 4xx and 5xx status → its reason phrases: the IANA registry's (RFC 9110
section 15 and the RFCs that added the others), and older wordings HTTP libraries still
print. A number in a tool error's text counts as a status only with ``HTTP`` before it or
its own phrase after it, matched case-sensitively: a bare number is not a status."""

_HTTP_STATUS = re.compile(
    r"(?<![A-Za-z0-9_])(?:"
    r"HTTP(?:/[0-9](?:\.[0-9])?)? +(?P<after_http>[45][0-9][0-9])"  # HTTP 503, HTTP/1.1 503
    r"|(?P<with_phrase>"  # 404 Not Found, as httpx, requests and Go's clients print it
    + "|".join(
        f"{status} {re.escape(phrase)}"
        for status, phrases in REASON_PHRASES.items()
        for phrase in phrases
    )
    + r"))(?![A-Za-z0-9_])"
)

RELAY_CAP = 2000
"""Most characters of an agenterr hint relayed from a peer's wire outcome (SPEC 12.10)."""

_MAX_ITEMS = 16
"""Members of any array or object looked at: errors, content blocks, batch members."""
_TEXT_CUT = SCAN_WINDOW + 1
"""A text is cut to this before joining: the quote's window, plus one to know it was cut."""
_INTEGER_LIMIT = 2**53
_SHOWN_IDENTIFIER = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_GRPC_STATUS = re.compile(r"[0-9]{1,9}")
_EVENT_STREAM_START = ("event:", "data:", "id:", "retry:", ":")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_JSON_SPACE = " \t\n\r"
"""JSON's white space (RFC 8259): the only characters skipped before a document."""

# The order in which identifiers outrank each other, as SPEC 11.3's rule groups.
_RANK = (
    (Code.UNAUTHORIZED, True),
    (Code.UNAUTHORIZED, False),
    (Code.RATE_LIMITED, False),
    (Code.TIMEOUT, False),
    (Code.UNAVAILABLE, False),
    (Code.NOT_FOUND, False),
    (Code.INVALID_REQUEST, False),
    (Code.UNKNOWN, False),
)

_TOOL_DEFAULT = Rule(
    Code.INVALID_REQUEST,
    _MCP_TOOLS,
    "Tool execution errors carry feedback for the model to self-correct and retry with "
    "adjusted arguments.",
)
_API_DEFAULT = Rule(
    Code.INVALID_REQUEST,
    "https://docs.slack.dev/apis/web-api/#evaluating-responses",
    "A method's own error code: most name a problem with the arguments; those that need a "
    "human or a retry are in the identifier tables.",
)


class _Failure(NamedTuple):
    """A failure found in an envelope, before its hint is written."""

    code: Code
    where: str
    quoted: str
    quota: bool = False
    retry_delay: float | None = None  # from the payload (Google RetryInfo)


class _Found(NamedTuple):
    """An envelope's result: the Outcome and the ``{where}`` of its hint."""

    outcome: Outcome[None]
    where: str


# --- the entry point -------------------------------------------------------------------


def from_envelope(payload: object, *, headers: object = None, now: Clock = None) -> Outcome[None]:
    """The failure an envelope inside a successful response reports, or an ok Outcome.

    ``payload`` is text, bytes, parsed JSON (dict or list), an MCP ``CallToolResult``
    object, or a response object (httpx, requests, aiohttp, urllib: anything with an integer
    status and headers; a 2xx one is read for its in-memory body, any other is classified as
    :func:`~agenterr.from_response` does). ``headers`` are the response's (case-insensitive):
    their ``grpc-status`` trailer is read first, and Retry-After for a transient failure.
    ``now`` is the clock an HTTP-date Retry-After is measured against.

    Recognised, in order (SPEC.md section 12): a non-zero ``grpc-status``; then, of a JSON
    object, a JSON-RPC 2.0 response (``"jsonrpc": "2.0"``) with an ``error`` or with an MCP
    ``CallToolResult`` result whose ``isError`` is true; a ``CallToolResult`` itself; an
    ``"ok": false`` reply (an agenterr wire outcome is relayed, otherwise Slack-style
    ``error`` identifiers); a GraphQL ``errors[]`` without partial data, or mutation
    ``userErrors``; an Anthropic-style ``{"type": "error", "error": {…}}``; of a JSON array,
    the first failing JSON-RPC member of a batch; of other text, the first error frame of
    an event stream. Anything else, malformed input included, is no envelope: ok.

    Never raises; an input that defeats every guard gives ``UNKNOWN``.
    """
    try:
        found = _envelope(payload, headers, now)
    except Exception as exc:  # the last line of defence: never raise
        return _internal_failure(exc)
    return _OK if found is None else found.outcome


def envelope_failure(payload: object, headers: object = None, now: Clock = None) -> _Found | None:
    """:func:`from_envelope` for the decorator: the failure and its ``{where}``, or None."""
    try:
        return _envelope(payload, headers, now)
    except Exception as exc:
        return _Found(_internal_failure(exc), " (no HTTP response)")


_OK: Outcome[None] = Outcome()


def _envelope(payload: object, headers: object, now: Clock) -> _Found | None:
    if not isinstance(payload, (str, bytes, bytearray, memoryview, dict, list)):
        # Responses first: httpx's Response has an ``is_error`` of its own.
        response = _response(payload)
        if response is not None:
            status, response_headers, body = response
            if not 200 <= status <= 299:
                outcome = from_response(payload, now=now)
                return _Found(outcome, http_where(outcome.status))
            payload = body
            if headers is None:
                headers = response_headers
    view = HeaderView.of(headers) if headers is not None else None
    grpc = _grpc(view) if view is not None else None
    if grpc is not None:  # the trailer describes the whole call: it comes first
        return _Found(_outcome(grpc, headers, now), grpc.where)
    failure = _payload(payload)
    if failure is None:
        return None
    if isinstance(failure, _Found):
        return _with_retry_after(failure, headers, now)
    return _Found(_outcome(failure, headers, now), failure.where)


def _outcome(failure: _Failure, headers: object, now: Clock) -> Outcome[None]:
    code, quota = failure.code, failure.quota
    retry_after: float | None = None
    if code.retryable:
        if headers is not None:
            retry_after = _header_delay(headers, now)
        if retry_after is None:
            retry_after = failure.retry_delay
        if code is Code.RATE_LIMITED and retry_after is not None and retry_after > LONG_WAIT:
            # SPEC 11.7: a wait this long is a quota, not a hiccup.
            code, quota, retry_after = Code.UNAUTHORIZED, True, None
    hint = hint_for(code, failure.where, failure.quoted, retry_after, quota=quota)
    return Outcome(code, hint, retry_after if code.retryable else None, 0, None, None)


def _header_delay(headers: object, now: Clock) -> float | None:
    """The Retry-After family (SPEC 5), an HTTP-date measured by the response's Date."""
    view = HeaderView.of(headers)
    clock = server_clock(view, now) if view.get("date") is not None else now
    return retry_after_from_headers(view, now=clock)


def _with_retry_after(found: _Found, headers: object, now: Clock) -> _Found:
    """A relayed wire outcome keeps its own delay; the headers give one when it has none."""
    outcome = found.outcome
    code = outcome.code
    if code is not None and code.retryable and outcome.retry_after is None and headers is not None:
        delay = _header_delay(headers, now)
        if delay is not None:
            hint = outcome.llm_hint
            if hint == hint_for(code, found.where, "", None):
                hint = hint_for(code, found.where, "", delay)  # the template, with its wait
            return _Found(Outcome(code, hint, delay, outcome.status, None, None), found.where)
    return found


# --- gRPC (SPEC 12.7) ------------------------------------------------------------------


def _grpc(view: HeaderView) -> _Failure | None:
    raw = view.get("grpc-status")
    if raw is None:
        return None
    text = raw.strip(" \t")
    message = view.get("grpc-message")
    quoted = snippet(unquote(message, errors="replace")) if message else ""
    if not _GRPC_STATUS.fullmatch(text):
        return _Failure(Code.UNKNOWN, " (gRPC status)", quoted)
    number = int(text)
    if number == 0:
        return None
    if number >= len(GRPC_NAMES):
        return _Failure(Code.UNKNOWN, f" (gRPC status {number})", quoted)
    name = GRPC_NAMES[number]
    hit = _lookup(name)
    code, quota = hit if hit is not None else (Code.UNKNOWN, False)
    return _Failure(code, f" (gRPC status {number} {name})", quoted, quota)


# --- the payload -----------------------------------------------------------------------


def _payload(payload: object) -> _Failure | _Found | None:
    if isinstance(payload, dict):
        return _document(payload, payload)
    if isinstance(payload, list):
        return _batch(payload)
    if isinstance(payload, (str, bytes, bytearray, memoryview)):
        return _text_payload(payload)
    return _tool_object(payload)


def _text_payload(payload: str | bytes | bytearray | memoryview) -> _Failure | _Found | None:
    if isinstance(payload, str):
        whole = len(payload) <= PARSE_LIMIT
        text = payload if whole else payload[:PARSE_LIMIT]
        if text.startswith("\ufeff"):
            text = text[1:]
    else:
        size = len(payload)
        whole = size <= PARSE_LIMIT
        data = bytes(payload[:PARSE_LIMIT])
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        text = data.decode("utf-8", "replace")
    start = text.lstrip(_JSON_SPACE)[:1]
    if start in ("{", "["):
        if not whole:
            return None  # a document cut short does not parse: not read at all
        document = parse_json(text)
        if isinstance(document, dict):
            return _document(document, payload)
        if isinstance(document, list):
            return _batch(document)
        return None
    return _event_stream(text, whole)


def _batch(members: list[Any]) -> _Failure | _Found | None:
    """A JSON-RPC batch response: its first failing member, among the first 16."""
    for member in members[:_MAX_ITEMS]:
        if isinstance(member, dict) and member.get("jsonrpc") == "2.0":
            failure = _jsonrpc(member)
            if failure is not None:
                return failure
    return None


def _document(document: dict[str, Any], payload: object) -> _Failure | _Found | None:
    """A JSON object: the first shape it has decides (SPEC 12.1)."""
    if document.get("jsonrpc") == "2.0":
        return _jsonrpc(document)
    if _is_tool_error(document):
        return _tool_error(document)
    if document.get("ok") is False:
        return _api_error(document, payload)
    errors = document.get("errors")
    data = document.get("data")
    if (isinstance(errors, list) and errors) or isinstance(data, dict):
        return _graphql(document, errors, data)
    if document.get("type") == "error" and isinstance(document.get("error"), dict):
        return _stream_error(document, payload)
    return None


# --- JSON-RPC 2.0 and MCP (SPEC 12.3, 12.4) --------------------------------------------


def _integer(value: object) -> int | None:
    """A JSON number with an integral value of magnitude at most 2**53, as an int."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) <= _INTEGER_LIMIT else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value) if abs(value) <= _INTEGER_LIMIT else None
    return None


def _jsonrpc(response: dict[str, Any]) -> _Failure | _Found | None:
    error = response.get("error")
    if error is None:
        result = response.get("result")
        if isinstance(result, dict) and _is_tool_error(result):
            return _tool_error(result)
        return None
    number: int | None = None
    message: object = error
    data: object = None
    if isinstance(error, dict):
        number = _integer(error.get("code"))
        message = error.get("message")
        data = error.get("data")
    rule = JSONRPC_CODES.get(number) if number is not None else None
    if rule is None:
        server = number is not None and -32099 <= number <= -32000
        rule = _JSONRPC_SERVER_ERROR if server else _JSONRPC_OTHER
    code, quota = rule.code, False
    text = _text(message)
    if number not in _JSONRPC_FINAL:
        if isinstance(data, (dict, list)):
            decided = _decide_signals(read_signals(data))
        else:
            decided = _decide([data] if isinstance(data, str) else [])
        if decided is not None:
            code, quota = decided[0], decided[1]
        else:
            phrase = _phrase((text, data) if isinstance(data, str) else (text,))
            if phrase is not None:
                code = phrase.code
    said = snippet(data) if data is not None else ""
    quoted = snippet(f"{text}: {said}" if text and said else text or said)
    where = f" (JSON-RPC error {number})" if number is not None else " (JSON-RPC error)"
    return _Failure(code, where, quoted, quota)


def _is_tool_error(result: object) -> bool:
    """A CallToolResult that failed: ``isError`` (``is_error`` in Python SDKs) is true and
    ``content`` is a list."""
    return _field(result, "isError", "is_error") is True and isinstance(
        _field(result, "content"), list
    )


def _field(result: object, *names: str) -> Any:
    for name in names:
        value = result.get(name) if isinstance(result, dict) else _attr(result, name)
        if value is not None:
            return value
    return None


def _attr(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _tool_object(payload: object) -> _Failure | _Found | None:
    """An SDK's CallToolResult object (``mcp`` 1.x ``isError``, 2.x ``is_error``)."""
    if _is_tool_error(payload):
        return _tool_error(payload)
    return None


def _tool_error(result: object) -> _Failure | _Found:
    structured = _field(result, "structuredContent", "structured_content")
    if isinstance(structured, dict) and structured.get("ok") is False:
        relayed = _relay(structured)
        if relayed is not None:
            return relayed
    texts: list[str] = []
    content = _field(result, "content")
    if isinstance(content, list):
        for block in content[:_MAX_ITEMS]:
            if _field(block, "type") == "text":
                text = _field(block, "text")
                if isinstance(text, str):
                    texts.append(text[:_TEXT_CUT])
    quoted = snippet("\n".join(texts))
    phrase = _phrase(texts)
    if phrase is not None:
        return _Failure(phrase.code, " (tool error)", quoted)
    status = _status_named(texts)
    if status is not None:
        code = code_for_status(status) or _TOOL_DEFAULT.code
        # The status was read, not received: the recorded status stays 0 (SPEC 12.11).
        return _Failure(code, f" (tool error, HTTP {status})", quoted)
    return _Failure(_TOOL_DEFAULT.code, " (tool error)", quoted)


def _status_named(texts: Iterable[str]) -> int | None:
    """The first 4xx or 5xx status a text names as one (SPEC 12.4), or None."""
    for text in texts:
        match = _HTTP_STATUS.search(text, 0, SCAN_WINDOW)
        if match is not None:
            return int((match.group("after_http") or match.group("with_phrase"))[:3])
    return None


def _relay(wire: dict[str, Any]) -> _Found | None:
    """A peer's agenterr wire outcome, read back; its hint is cleaned like quoted text."""
    try:
        outcome = Outcome.from_dict(wire)
    except ValueError:
        return None
    if outcome.code is None:
        return None
    place = http_where(outcome.status) if outcome.status else " (tool error)"
    hint = snippet(outcome.llm_hint, RELAY_CAP) or hint_for(
        outcome.code, place, "", outcome.retry_after
    )
    relayed: Outcome[None] = Outcome(
        outcome.code, hint, outcome.retry_after, outcome.status, None, None
    )
    return _Found(relayed, place)


# --- {"ok": false} (SPEC 12.5) ---------------------------------------------------------


def _api_error(document: dict[str, Any], payload: object) -> _Failure | _Found:
    relayed = _relay(document)
    if relayed is not None:
        return relayed
    error = document.get("error")
    decided = _decide_signals(read_signals(document))
    if decided is not None:
        code, quota, shown = decided
    else:
        named = isinstance(error, str) and error != ""
        code, quota, shown = (_API_DEFAULT.code if named else Code.UNKNOWN), False, None
    if isinstance(error, str) and _SHOWN_IDENTIFIER.fullmatch(error):
        shown = error
    where = _named(" (API error", shown)
    return _Failure(code, where, snippet(payload), quota)


# --- GraphQL (SPEC 12.6) ---------------------------------------------------------------


def _graphql(document: dict[str, Any], errors: object, data: object) -> _Failure | None:
    if isinstance(errors, list) and errors and not _partial(data):
        return _graphql_errors(errors, "data" in document)
    if isinstance(data, dict):
        return _user_errors(data)
    return None


def _partial(data: object) -> bool:
    """Partial success: ``data`` is an object with a non-null member (among the first 16)."""
    if not isinstance(data, dict):
        return False
    return any(value is not None for value in itertools.islice(data.values(), _MAX_ITEMS))


def _graphql_errors(errors: list[Any], executed: bool) -> _Failure:
    identifiers: list[str] = []
    messages: list[str] = []
    for item in errors[:_MAX_ITEMS]:
        if isinstance(item, str):
            messages.append(item[:_TEXT_CUT])
            continue
        if not isinstance(item, dict):
            continue
        extensions = item.get("extensions")
        candidates = (
            extensions.get("code") if isinstance(extensions, dict) else None,
            item.get("type"),
            item.get("code"),
        )
        identifiers.extend(c for c in candidates if isinstance(c, str) and c)
        message = item.get("message")
        if isinstance(message, str):
            messages.append(message[:_TEXT_CUT])
    decided = _decide(identifiers)
    quota = False
    if decided is not None:
        code, quota, shown = decided
    else:
        phrase = _phrase(messages)
        # A request error (no "data" member) is the request's fault by the GraphQL spec;
        # an execution error says nothing about what would help.
        default = Code.UNKNOWN if executed else Code.INVALID_REQUEST
        code = phrase.code if phrase is not None else default
        shown = _first_shown(identifiers)
    where = _named(" (GraphQL error", shown)
    return _Failure(code, where, snippet("; ".join(messages)), quota)


def _user_errors(data: dict[str, Any]) -> _Failure | None:
    """Mutation payloads' ``userErrors`` (Shopify): input the caller must correct."""
    for payload in itertools.islice(data.values(), _MAX_ITEMS):
        if not isinstance(payload, dict):
            continue
        for key, value in itertools.islice(payload.items(), _MAX_ITEMS):
            if (
                isinstance(key, str)
                and (key == "userErrors" or key.endswith("UserErrors"))
                and isinstance(value, list)
                and value
            ):
                return _Failure(
                    Code.INVALID_REQUEST, " (GraphQL userErrors)", _user_error_text(value)
                )
    return None


def _step(step: object) -> str | None:
    """A userErrors field step: a string, or an integer written without fraction (SPEC 12.6)."""
    if isinstance(step, str):
        return step
    if isinstance(step, int) and not isinstance(step, bool):
        return str(step)
    if isinstance(step, float) and step.is_integer() and abs(step) <= 2**53:
        return str(int(step))
    return None


def _user_error_text(items: list[Any]) -> str:
    parts: list[str] = []
    for item in items[:_MAX_ITEMS]:
        if not isinstance(item, dict):
            continue
        message = item.get("message")
        if not isinstance(message, str):
            continue
        field = item.get("field")
        if isinstance(field, list):
            steps = [_step(step) for step in field[:_MAX_ITEMS]]
            field = ".".join(step for step in steps if step is not None)
        text = message[:_TEXT_CUT]
        parts.append(f"{field[:_TEXT_CUT]}: {text}" if isinstance(field, str) and field else text)
    return snippet("; ".join(parts))


# --- streamed errors (SPEC 12.8, 12.9) -------------------------------------------------


def _stream_error(document: object, quote_source: object) -> _Failure:
    """An error event's data: Anthropic ``{"type": "error", "error": {…}}``, OpenAI
    ``{"error": {…}}`` or ``{"type": "error", "code": …}``, or text."""
    signals = read_signals(document) if isinstance(document, (dict, list)) else Signals()
    identifiers = (*signals.identifiers, *signals.generic)
    messages = signals.messages
    if isinstance(document, str):
        messages = (document[:_TEXT_CUT],)
    decided = _decide_signals(signals)
    quota = False
    if decided is not None:
        code, quota, shown = decided
    else:
        phrase = _phrase(messages)
        code = phrase.code if phrase is not None else Code.UNKNOWN
        shown = _first_shown(i for i in identifiers if normalise(i) != "error")
    where = _named(" (stream error", shown)
    return _Failure(code, where, snippet(quote_source), quota, signals.retry_delay)


def _event_stream(text: str, whole: bool) -> _Failure | _Found | None:
    """The first failing event of a server-sent event stream (WHATWG HTML, 9.2.6)."""
    if not text.lstrip("\r\n").startswith(_EVENT_STREAM_START):
        return None
    for event, data in _events(text, whole):
        if event == "error":
            start = data.lstrip(_JSON_SPACE)[:1]
            document = parse_json(data) if start in ("{", "[") else None
            return _stream_error(document if document is not None else data, data)
        if data.lstrip(_JSON_SPACE)[:1] != "{":
            continue
        document = parse_json(data)
        if not isinstance(document, dict):
            continue
        if document.get("jsonrpc") == "2.0":  # MCP over Streamable HTTP
            failure = _jsonrpc(document)
            if failure is not None:
                return failure
        elif isinstance(document.get("error"), dict):
            return _stream_error(document, data)
    return None


def _events(text: str, whole: bool) -> Iterator[tuple[str, str]]:
    """``(event type, data)`` of each event, as the HTML standard dispatches them, except
    that the end of a whole payload also ends its last event (a returned payload is
    complete). Of a prefix cut by the limit, the last line and the event still open are
    dropped. An event named ``error`` counts even without data."""
    lines = _LINE_BREAK.split(text)
    if not whole:
        lines.pop()  # possibly cut in the middle
    event = ""
    data: list[str] = []
    for line in lines:
        if line == "":
            if data or event == "error":
                yield event or "message", "\n".join(data)
            event, data = "", []
        elif not line.startswith(":"):
            name, colon, value = line.partition(":")
            if colon and value.startswith(" "):
                value = value[1:]
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if whole and (data or event == "error"):
        yield event or "message", "\n".join(data)


# --- shared helpers --------------------------------------------------------------------


def _text(value: object) -> str:
    return value[:_TEXT_CUT] if isinstance(value, str) else ""


def _lookup(identifier: object) -> tuple[Code, bool] | None:
    """The code and quota flag an identifier names: the shared table, then this module's."""
    if not isinstance(identifier, str):
        return None
    key = normalise(identifier)
    group = IDENTIFIERS.get(key)
    if group is not None:
        return group.code, group.quota
    rule = ENVELOPE_IDENTIFIERS.get(key)
    return (rule.code, False) if rule is not None else None


def _decide(identifiers: Iterable[object]) -> tuple[Code, bool, str | None] | None:
    """The best-ranked known identifier: its code, quota flag and displayable form."""
    best: tuple[int, Code, bool, str] | None = None
    for identifier in itertools.islice(identifiers, 4 * _MAX_ITEMS):
        hit = _lookup(identifier)
        if hit is None:
            continue
        rank = _RANK.index(hit)
        if best is None or rank < best[0]:
            assert isinstance(identifier, str)
            best = (rank, hit[0], hit[1], identifier)
    if best is None:
        return None
    return best[1], best[2], best[3] if _SHOWN_IDENTIFIER.fullmatch(best[3]) else None


def _decide_signals(signals: Signals) -> tuple[Code, bool, str | None] | None:
    """SPEC 11.3's reading of a body: its identifiers decide, and only when none is known,
    its generic ones (Google's canonical ``error.status``)."""
    return _decide(signals.identifiers) or _decide(signals.generic)


def _first_shown(identifiers: Iterable[object]) -> str | None:
    for identifier in itertools.islice(identifiers, 4 * _MAX_ITEMS):
        if isinstance(identifier, str) and _SHOWN_IDENTIFIER.fullmatch(identifier):
            return identifier
    return None


def _named(prefix: str, identifier: str | None) -> str:
    return f'{prefix} "{identifier}")' if identifier else f"{prefix})"


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
"""Only A-Z are lowered, so that every port finds the same phrases (Unicode case mappings
differ between languages, and some map non-ASCII letters to ASCII ones)."""


def _phrase(texts: Iterable[object]) -> Rule | None:
    lowered = [t[:SCAN_WINDOW].translate(_ASCII_LOWER) for t in texts if isinstance(t, str) and t]
    if not lowered:
        return None
    for phrase, rule in PHRASES:
        if any(phrase in text for text in lowered):
            return rule
    return None


def _response(obj: object) -> tuple[int, object, object] | None:
    """``(status, headers, in-memory body)`` of a response-like object, or None."""
    status = as_status(_attr(obj, "status_code"))
    if status is None:
        status = as_status(_attr(obj, "status"))
    headers = _attr(obj, "headers")
    if status is None or not 100 <= status <= 599 or headers is None:
        return None
    if not 200 <= status <= 299:
        return status, headers, None
    return status, headers, _in_memory_body(obj)
