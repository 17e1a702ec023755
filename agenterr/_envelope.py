"""Error envelopes inside successful responses: the failures a 2xx status does not show.

Some protocols answer every call with HTTP 200 and put the failure in the payload: JSON-RPC
2.0 and MCP error objects, MCP tool results with ``isError``, GraphQL ``errors[]``, Slack-style
``{"ok": false, "error": "…"}``, an ``event: error`` frame in a server-sent event stream,
gRPC's ``grpc-status`` trailer, and any reply a user's field rule describes. This module
recognises those shapes; what their identifiers, phrases and fields mean is decided by the
signal engine (:mod:`agenterr._signals`) from the rule tables (:mod:`agenterr._rules`)::

    from agenterr import from_envelope

    outcome = from_envelope('{"ok": false, "error": "rate_limited"}')
    assert outcome.code == "RATE_LIMITED"

SPEC.md Annex B states the same rules for other ports. Parsing is bounded: only a payload of
at most :data:`~agenterr._signals.PARSE_LIMIT` characters (bytes) is parsed as JSON, and only
that prefix of a longer one is scanned for event-stream frames. Nothing here raises.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple
from urllib.parse import unquote

from ._classify import code_for_status, internal_failure, response_outcome, status_outcome
from ._headers import HeaderView
from ._hints import hint_for
from ._hints import where as http_where
from ._outcome import Failure, Outcome, Success
from ._quote import SCAN_WINDOW, Cleaned, snippet
from ._reason import reason
from ._responses import in_memory_body
from ._retry_after import Clock
from ._rules import (
    ACCESS_PHRASES,
    API_ERROR_DEFAULT,
    GRPC_NAMES,
    JSONRPC_CODES,
    JSONRPC_OTHER,
    JSONRPC_SERVER_ERROR,
    REASON_PHRASES,
    TOOL_ERROR_DEFAULT,
    Rules,
    RuleSet,
    layers,
    normalise,
)
from ._shared import attr
from ._signals import (
    MAX_IDENTIFIERS,
    MAX_ITEMS,
    NO_SIGNALS,
    Verdict,
    body_text,
    document_verdict,
    field_verdict,
    general_verdict,
    header_delay,
    identifiers_verdict,
    json_start,
    long_wait,
    lookup,
    moves_alone,
    parse_json,
    phrase_verdict,
    read_signals,
)
from ._status import as_status
from ._taxonomy import Code

__all__ = ["RELAY_CAP", "envelope_failure", "from_envelope"]

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
"""A status named in a tool error's text (SPEC B.4): after ``HTTP``, or with its own reason
phrase after it, matched case-sensitively; a bare number is not a status."""

RELAY_CAP = 2000
"""Most characters of an agenterr hint relayed from a peer's wire outcome (SPEC B.10)."""

_TEXT_CUT = SCAN_WINDOW + 1
"""A text is cut to this before joining: the quote's window, plus one to know it was cut."""
_INTEGER_LIMIT = 2**53
_SHOWN_IDENTIFIER = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_DIGITS = re.compile(r"[0-9]{1,9}")
"""A number written as text: a ``grpc-status`` value, a reply's ``code`` ("40001")."""
_EVENT_STREAM_START = ("event:", "data:", "id:", "retry:", ":")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_JSON_SPACE = " \t\n\r"

_Scopes = tuple[RuleSet, ...]


class _Failure(NamedTuple):
    """A failure found in an envelope, before its hint is written."""

    code: Code
    where: str
    quoted: str
    quota: bool = False
    retry_delay: float | None = None  # from the payload (Google RetryInfo)
    rule: str = "e-reply"  # the rule its reason names (SPEC 8.4)


class _Found(NamedTuple):
    """An envelope's result: the Outcome and the ``{where}`` of its hint."""

    outcome: Failure
    where: str


# --- the entry point -------------------------------------------------------------------


def from_envelope(
    payload: object, *, headers: object = None, now: Clock = None, rules: Rules = None
) -> Success[None] | Failure:
    """The failure an envelope inside a successful response reports, or an ok Outcome.

    ``payload`` is text, bytes, parsed JSON (dict or list), an MCP ``CallToolResult``
    object, or a response object (httpx, requests, aiohttp, urllib: anything with an integer
    status and headers; a 2xx one is read for its in-memory body, any other is classified as
    :func:`~agenterr.from_response` does). ``headers`` are the response's (case-insensitive):
    their ``grpc-status`` trailer is read first, and Retry-After for a transient failure.
    ``now`` is the clock an HTTP-date Retry-After is measured against. ``rules`` are user
    rules for this call: their field rules describe replies that are failures.

    Recognised, in order (SPEC.md Annex B): a non-zero ``grpc-status``; then, of a JSON
    object, a user field rule that matches; a JSON-RPC 2.0 response (``"jsonrpc": "2.0"``)
    with an ``error`` or with an MCP ``CallToolResult`` result whose ``isError`` is true; a
    ``CallToolResult`` itself; an ``"ok": false`` reply (an agenterr wire outcome is relayed,
    otherwise Slack-style ``error`` identifiers); a GraphQL ``errors[]`` without partial
    data, or mutation ``userErrors``; an Anthropic-style ``{"type": "error", "error": {…}}``;
    of a JSON array, the first failing JSON-RPC member of a batch; of other text, the first
    error frame of an event stream. Anything else, malformed input included, is no envelope.

    Never raises on its inputs (an input that defeats every guard gives ``UNKNOWN``); a
    malformed ``rules=`` raises ``TypeError``/``ValueError``.
    """
    scopes = layers(rules)
    try:
        found = _envelope(payload, headers, now, scopes)
    except Exception as exc:  # the last line of defence: never raise
        return internal_failure(exc)
    return _OK if found is None else found.outcome


def success_value(payload: object) -> object:
    """What a successful envelope hands the caller (SPEC 12.13): a JSON-RPC 2.0 response
    object's ``result``; any other payload as it is."""
    try:
        if (
            isinstance(payload, dict)
            and payload.get("jsonrpc") == "2.0"
            and "result" in payload
            and payload.get("error") is None
        ):
            return payload["result"]
    except Exception:  # a hostile mapping: the payload as it is
        pass
    return payload


def envelope_failure(
    payload: object, headers: object = None, now: Clock = None, scopes: _Scopes = ()
) -> _Found | None:
    """:func:`from_envelope` for the decorator: the failure and its ``{where}``, or None."""
    try:
        return _envelope(payload, headers, now, scopes)
    except Exception as exc:
        return _Found(internal_failure(exc), " (no HTTP response)")


_OK: Success[None] = Success()


def _envelope(payload: object, headers: object, now: Clock, scopes: _Scopes) -> _Found | None:
    if not isinstance(payload, (str, bytes, bytearray, memoryview, dict, list)):
        # Responses first: httpx's Response has an ``is_error`` of its own.
        response = _response(payload)
        if response is not None:
            status, response_headers, body = response
            if not 200 <= status <= 299:  # the status decides (only a 2xx succeeds)
                outcome = response_outcome(payload, now, scopes)
                if isinstance(outcome, Failure):
                    return _Found(outcome, http_where(outcome.status))
            payload = body
            if headers is None:
                headers = response_headers
    view = HeaderView.of(headers) if headers is not None else None
    grpc = _grpc(view, scopes) if view is not None else None
    if grpc is not None:  # the trailer describes the whole call: it comes first
        return _Found(_outcome(grpc, view, now), grpc.where)
    failure = _payload(payload, scopes)
    if failure is None:
        return None
    if isinstance(failure, _Found):
        return _with_retry_after(failure, view, now)
    return _Found(_outcome(failure, view, now), failure.where)


def _outcome(failure: _Failure, view: HeaderView | None, now: Clock) -> Failure:
    code, quota = failure.code, failure.quota
    retry_after: float | None = None
    delay: float | None = None
    if code.retryable:
        if view is not None:
            retry_after = header_delay(view, now)
        if retry_after is None:
            retry_after = failure.retry_delay
        delay = retry_after
        code, quota, retry_after = long_wait(code, quota, retry_after)
    why = reason(failure.rule, failure.where.strip(" ()"))
    if code is not failure.code:
        why = reason("r-long-wait", f"a wait of {delay:g} s", failure.code)
    hint = hint_for(code, failure.where, failure.quoted, retry_after, quota=quota)
    return Failure(code, hint, retry_after, 0, None, why)


def _with_retry_after(found: _Found, view: HeaderView | None, now: Clock) -> _Found:
    """A relayed wire outcome keeps its own delay; the headers give one when it has none."""
    outcome = found.outcome
    code = outcome.code
    if code is not None and code.retryable and outcome.retry_after is None and view is not None:
        delay = header_delay(view, now)
        if delay is not None:
            hint = outcome.llm_hint
            if hint == hint_for(code, found.where, "", None):
                hint = hint_for(code, found.where, "", delay)  # the template, with its wait
            relayed = Failure(code, hint, delay, outcome.status, None, outcome.reason)
            return _Found(relayed, found.where)
    return found


# --- gRPC (SPEC B.7) -------------------------------------------------------------------


def _grpc(view: HeaderView, scopes: _Scopes) -> _Failure | None:
    raw = view.get("grpc-status")
    if raw is None:
        return None
    text = raw.strip(" \t")
    message = view.get("grpc-message")
    quoted = snippet(unquote(message, errors="replace")) if message else ""
    if not _DIGITS.fullmatch(text):
        return _Failure(Code.UNKNOWN, " (gRPC status)", quoted, rule="e-grpc")
    number = int(text)
    if number == 0:
        return None
    if number >= len(GRPC_NAMES):
        return _Failure(Code.UNKNOWN, f" (gRPC status {number})", quoted, rule="e-grpc")
    name = GRPC_NAMES[number]
    rule = lookup(name, scopes, envelope=True)
    code, quota = (rule.code, rule.quota) if rule is not None else (Code.UNKNOWN, False)
    return _Failure(code, f" (gRPC status {number} {name})", quoted, quota, rule="e-grpc")


# --- the payload -----------------------------------------------------------------------


def _payload(payload: object, scopes: _Scopes) -> _Failure | _Found | None:
    if isinstance(payload, dict):
        return _document(payload, payload, scopes)
    if isinstance(payload, list):
        return _batch(payload, scopes)
    if isinstance(payload, (str, bytes, bytearray, memoryview)):
        return _text_payload(payload, scopes)
    return _tool_object(payload, scopes)


def _text_payload(payload: object, scopes: _Scopes) -> _Failure | _Found | None:
    prefix = body_text(payload)
    if prefix is None:
        return None
    text, whole = prefix
    if json_start(text) in ("{", "["):
        # A document cut short does not parse: not read as one.
        document = parse_json(text) if whole else None
        if isinstance(document, dict):
            return _document(document, payload, scopes)
        if isinstance(document, list):
            return _batch(document, scopes)
        return _json_lines(text, whole, scopes) if document is None else None
    if json_start(text) == "<":
        return _xml_error(text, scopes)
    return _event_stream(text, whole, scopes)


def _json_lines(text: str, whole: bool, scopes: _Scopes) -> _Failure | _Found | None:
    """Line-delimited JSON (JSON Lines, NDJSON: a model server's streamed reply), SPEC 12.17:
    when each of its first 16 non-blank lines is an object, the first whose reading reports
    a failure; the last line of a cut prefix is not read."""
    lines = [line for line in _LINE_BREAK.split(text) if line.strip(_JSON_SPACE)]
    if not whole:
        lines = lines[:-1]
    documents: list[tuple[dict[str, Any], str]] = []
    for line in lines[:MAX_ITEMS]:
        document = parse_json(line)
        if not isinstance(document, dict):
            return None  # not line-delimited JSON
        documents.append((document, line))
    if len(documents) < 2:
        return None  # one value on one line would have parsed as the whole text
    for document, line in documents:
        found = _document(document, line, scopes)
        if found is not None:
            return found
    return None


_XML_ERROR_ROOT = re.compile(r"<(?:Error|ErrorResponse)[ \t\r\n>]")
_XML_ACK = re.compile(r"<Ack>[ \t\r\n]*Failure[ \t\r\n]*</Ack>")
"""An acknowledgement of failure (eBay's and PayPal's XML APIs answer 200 with it)."""
_XML_ACK_MESSAGE = re.compile(r"<(LongMessage|ShortMessage)>([^<]{0,2048})</\1>")
_XML_ACK_WINDOW = 8192
_MAX_ACK_MESSAGES = 8


def _xml_error(text: str, scopes: _Scopes) -> _Failure | None:
    """An XML error document in a 2xx (Amazon S3 documents that CopyObject and
    CompleteMultipartUpload can fail after their 200): read as 11.2.1 reads XML; or an XML
    acknowledgement of failure, read by its messages."""
    if _XML_ERROR_ROOT.search(text, 0, 1024) is None:
        return _xml_ack(text)
    signals = read_signals(text)
    if not signals.identifiers:
        return None
    verdict = identifiers_verdict(signals.identifiers, scopes, envelope=True)
    verdict = verdict or general_verdict(signals.messages, signals.identifiers)
    code, quota = (verdict.code, verdict.quota) if verdict is not None else (Code.UNKNOWN, False)
    where = _named(" (XML error", signals.identifiers[0])
    return _Failure(code, where, snippet(text), quota)


def _xml_ack(text: str) -> _Failure | None:
    """``<Ack>Failure</Ack>`` in the first 8,192 code points (SPEC 12.16, XML): general
    evidence over the first 8 long and short messages decides, else UNKNOWN."""
    if _XML_ACK.search(text, 0, _XML_ACK_WINDOW) is None:
        return None
    found = _XML_ACK_MESSAGE.finditer(text, 0, _XML_ACK_WINDOW)
    messages = [match[2] for match in itertools.islice(found, _MAX_ACK_MESSAGES)]
    verdict = general_verdict(messages, ())
    code, quota = (verdict.code, verdict.quota) if verdict is not None else (Code.UNKNOWN, False)
    return _Failure(code, " (XML acknowledgement Failure)", snippet(text), quota)


def _batch(members: list[Any], scopes: _Scopes) -> _Failure | _Found | None:
    """A JSON-RPC batch response: its first failing member, among the first 16."""
    for member in members[:MAX_ITEMS]:
        if isinstance(member, dict) and member.get("jsonrpc") == "2.0":
            failure = _jsonrpc(member, scopes)
            if failure is not None:
                return failure
    return None


def _document(
    document: dict[str, Any], payload: object, scopes: _Scopes
) -> _Failure | _Found | None:
    """A JSON object: the first shape it has decides (SPEC B.1)."""
    if scopes:
        verdict = field_verdict(document, scopes)
        if verdict is not None:  # SPEC A.11: the user says this reply is a failure
            where = _named(" (reply field", verdict.shown)
            quoted = snippet(payload)
            return _Failure(verdict.code, where, quoted, verdict.quota, rule="user-rule")
    if document.get("jsonrpc") == "2.0":
        return _jsonrpc(document, scopes)
    if _is_tool_error(document):
        return _tool_error(document, scopes)
    if document.get("ok") is False:
        return _api_error(document, payload, scopes, rule="e-ok-false")
    errors = document.get("errors")
    data = document.get("data")
    if (isinstance(errors, list) and errors) or isinstance(data, dict):
        return _graphql(document, errors, data, scopes)
    if document.get("type") == "error" and isinstance(document.get("error"), dict):
        return _stream_error(document, payload, scopes)
    return _reply_error(document, payload, scopes)


# --- other replies that report a failure (SPEC 12.16) ----------------------------------

_FAILED_STATUS = frozenset(
    {"error", "failed", "failure", "fail", "rejected", "denied", "requestdenied",
     "overquerylimit", "overdailylimit", "invalidrequest", "unknownerror"}
)  # fmt: skip
"""Normalised values of a top-level ``status`` string that report a failure (Google Maps
``OVER_QUERY_LIMIT``, ``REQUEST_DENIED``; JSend's ``"status": "error"`` beside a
``message``). ``OK`` and ``ZERO_RESULTS`` (a search with no result) are not failures."""
_LIFECYCLE = frozenset(
    {"failed", "error", "errored", "failure", "cancelled", "canceled", "timedout", "aborted",
     "expired"}
)  # fmt: skip
"""Normalised ``status``/``state`` values that end a job's life (a prediction, a batch, a
build, an execution). Without a ``message`` beside them they describe the resource the call
fetched, not the call: the GET worked, and its data says the job failed (SPEC 12.16 step 0)."""
_RESULT_MEMBERS = ("result", "ack", "Ack")
"""Members whose word may report the call's failure beside its message (Zulip's ``result``,
eBay's ``Ack``), SPEC 12.16 step 2."""
_FAILED_RESULT = frozenset({"error", "failed", "failure", "fail"})
_REFUSED = frozenset({"refused", "declined", "error", "cancelled"})
"""Normalised payment ``resultCode`` values that report a failure (Adyen, Authorize.net)."""
_PAYMENT_REFUSED = frozenset({"refused", "declined"})


_WRAPPERS = ("result", "response", "Response", "base_resp")
"""Members that wrap a whole reply one level down (SPEC 12.16 step 9): Tencent Cloud's
``Response``, MiniMax's ``base_resp``."""
_MESSAGE_MEMBERS = ("message", "msg", "error_msg", "errmsg", "status_msg")
"""Members a reply speaks its failure in, the first present one read (SPEC 12.16): the
plain pair, and each numeric-code vocabulary's own (VK and Baidu ``error_msg``, WeChat
``errmsg``, MiniMax ``status_msg``)."""
_CODE_MEMBERS = ("code", "error_code", "errcode", "status_code")
"""Members that carry a reply's numeric result code (SPEC 12.16 step 7), 0 on success:
``error_code`` (VK, Baidu), ``errcode`` (WeChat), ``status_code`` (MiniMax)."""
_ERROR_MEMBERS = ("error", "Error")
"""Members that hold a reply's error (SPEC 12.16 step 6): Tencent Cloud writes ``Error``."""
_ERROR_TEXTS = ("message", "code", "type", "error_msg", "Message", "Code")
"""Members of an error object whose non-empty text says it reports a failure."""
_BOOKKEEPING = frozenset(
    {"request_id", "requestId", "trace_id", "traceId", "timestamp", "time", "id"}
)
"""Members beside a lone message that carry no data of their own (SPEC 12.16 step 8)."""
_MESSAGE_ALONE_GROUPS = frozenset(
    {Code.UNAUTHORIZED, Code.RATE_LIMITED, Code.NOT_FOUND, Code.INVALID_REQUEST}
)
"""What a lone message may report: a 202's "in progress" or a job's "timed out" is news
about work, not a failed call."""
_STATUS_MEMBERS = ("statusCode", "status_code", "httpStatus", "http_status", "status")
"""Members that carry the HTTP status of a failure reported inside a 2xx (SPEC 12.16 step 5):
a gateway or framework that always answers 200 writes the real status into the body."""


def _first_present(document: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` that ``document`` has (``None`` when it has none;
    a member present with a null value counts as present)."""
    return next((document[key] for key in keys if key in document), None)


def _reply_error(
    document: dict[str, Any], payload: object, scopes: _Scopes, *, nested: bool = False
) -> _Failure | _Found | None:
    """The shapes without a protocol of their own: a per-item error of a bulk reply, a
    ``status`` or payment ``resultCode`` word saying so, a false ``success`` or ``status``
    flag beside a message, a non-empty ``error`` member, a numeric ``code`` other than 0 or
    2xx beside a message and no data; then, once, the same in a ``result`` or ``response``
    object that wraps the reply."""
    if "ok" in document:
        return None  # an explicit "ok" that is not false speaks for the reply (SPEC 12.5)
    if document.get("errors") is True:
        return _bulk(document.get("items"), scopes)
    if _resource_state(document):
        return None
    found = _reply_shape(document, payload, scopes, nested=nested)
    if found is not None or nested:
        return found
    for key in _WRAPPERS:
        inner = document.get(key)
        if type(inner) is dict:
            return _reply_error(inner, payload, scopes, nested=True)
    return None


def _reply_shape(
    document: dict[str, Any], payload: object, scopes: _Scopes, *, nested: bool
) -> _Failure | _Found | None:
    """Steps 2 to 8 of SPEC 12.16 on one object (``nested``: one level down in
    ``payload``)."""
    status = document.get("status")
    if isinstance(status, str) and _key(status) in _FAILED_STATUS:
        return _api_error(document, payload, scopes, status)
    message = _message(document)
    error = document.get("error")
    said = message or (isinstance(error, str) and error.strip())
    for key in _RESULT_MEMBERS if said else ():
        word = document.get(key)
        if isinstance(word, str) and _key(word) in _FAILED_RESULT:
            return _api_error(document, payload, scopes, word)
    outcome = document.get("messages")
    result = document.get("resultCode")
    if result is None and isinstance(outcome, dict):
        result = outcome.get("resultCode")
    if isinstance(result, str) and _key(result) in _REFUSED:
        return _payment(document, payload, scopes, result)
    if (document.get("success") is False or document.get("status") is False) and (
        message or _text(error).strip()
    ):
        return _api_error(document, payload, scopes)  # a false flag beside its reason
    for key in _STATUS_MEMBERS if said else ():
        number = _integer(document.get(key))
        if number is not None and 400 <= number <= 599:
            # The body as given (quoted as written), or the wrapped reply it stands for.
            body = document if nested else payload
            failed = status_outcome(number, body, None, None, None, rules=scopes)
            if isinstance(failed, Failure):  # a 4xx/5xx always is
                return _Found(failed, f" (reply status {number})")
    member = _first_present(document, _ERROR_MEMBERS)
    if isinstance(member, str) and member.strip():
        return _api_error(document, payload, scopes)
    if isinstance(member, dict):
        # A result code, when the object has one, says whether it reports a failure (VK's
        # error_code; 0 is success); otherwise any non-empty text does.
        if "error_code" in member:
            reports = _failed_code(member["error_code"])
        else:
            reports = any(_text(member.get(key)) for key in _ERROR_TEXTS)
        if reports:
            return _api_error(document, payload, scopes)
    code = _first_present(document, _CODE_MEMBERS)
    if _failed_code(code) and message and document.get("data") is None:
        return _api_error(document, payload, scopes)
    return _message_alone(document, message, payload)


def _message_alone(document: dict[str, Any], message: str, payload: object) -> _Failure | None:
    """Step 8: a message standing where the data should be (``{"message": "Invalid API
    key"}``), when general evidence in it names a failed call, and no common word alone."""
    if not message:
        return None
    if any(key not in _BOOKKEEPING and key not in _MESSAGE_MEMBERS for key in document):
        return None
    verdict = general_verdict((message[:_TEXT_CUT],), ())
    if verdict is None or verdict.code not in _MESSAGE_ALONE_GROUPS or not moves_alone(verdict):
        return None
    return _Failure(verdict.code, " (reply message)", snippet(payload), verdict.quota)


def _failed_code(value: object) -> bool:
    """A result code that reports a failure: a code (``_code``) other than 0 and 200-299."""
    code = _code(value)
    return code is not None and code != 0 and not 200 <= code <= 299


def _code(value: object) -> int | None:
    """A reply's ``code``: an integer, or a string of 1 to 9 ASCII digits ("40001")."""
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    return _integer(value)


def _resource_state(document: dict[str, Any]) -> bool:
    """A fetched resource whose own life ended in failure: a lifecycle ``status`` or
    ``state``, and no ``message``/``msg`` (the member a reply speaks its failure in)."""
    state = document.get("status", document.get("state"))
    if not (isinstance(state, str) and _key(state) in _LIFECYCLE):
        return False
    return not _message(document)


def _message(document: dict[str, Any]) -> str:
    """The message a reply speaks in (the first of _MESSAGE_MEMBERS present), when it is a
    non-blank string; else ""."""
    message = _first_present(document, _MESSAGE_MEMBERS)
    return message if isinstance(message, str) and message.strip() else ""


def _key(value: str) -> str:
    return normalise(value[:64])


def _bulk(entries: object, scopes: _Scopes) -> _Found | None:
    """A bulk reply (Elasticsearch ``_bulk``): its first item that failed, by its own status
    and error, as a failed response is read."""
    for entry in entries[:MAX_ITEMS] if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        for item in itertools.islice(entry.values(), 4):
            if not isinstance(item, dict):
                continue
            status = _integer(item.get("status"))
            error = item.get("error")
            if status is not None and 400 <= status <= 599 and error is not None:
                outcome = status_outcome(status, error, None, None, None, rules=scopes)
                if isinstance(outcome, Failure):  # a 4xx/5xx always is
                    return _Found(outcome, " (bulk item error)")
    return None


def _payment(document: dict[str, Any], payload: object, scopes: _Scopes, result: str) -> _Failure:
    """A payment reply whose ``resultCode`` says it failed: a refusal needs the card holder
    (Adyen documents ``Refused`` as "the issuer refused"); an error is read for what it
    says."""
    texts: list[str] = []
    identifiers: list[str] = []
    for key in ("refusalReason", "refusalReasonCode"):
        value = document.get(key)
        if isinstance(value, str) and value:
            (texts if key == "refusalReason" else identifiers).append(value[:_TEXT_CUT])
    messages = document.get("messages")
    entries = messages.get("message") if isinstance(messages, dict) else None
    for entry in entries[:MAX_ITEMS] if isinstance(entries, list) else ():
        if isinstance(entry, dict):
            for key in ("text", "description"):
                value = entry.get(key)
                if isinstance(value, str) and value:
                    texts.append(value[:_TEXT_CUT])
            value = entry.get("code")
            if isinstance(value, str) and value:
                identifiers.append(value[:128])
    verdict = identifiers_verdict(identifiers, scopes, envelope=True)
    verdict = verdict or phrase_verdict(texts, scopes) or general_verdict(texts, identifiers)
    if verdict is not None:
        code, quota = verdict.code, verdict.quota
    elif _key(result) in _PAYMENT_REFUSED:
        code, quota = Code.UNAUTHORIZED, True
    else:
        code, quota = API_ERROR_DEFAULT.code, False
    where = _named(" (payment result", result)
    return _Failure(code, where, snippet(payload), quota)


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


def _jsonrpc(response: dict[str, Any], scopes: _Scopes) -> _Failure | _Found | None:
    error = response.get("error")
    if error is None:
        result = response.get("result")
        if isinstance(result, dict) and _is_tool_error(result):
            return _tool_error(result, scopes)
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
        rule = JSONRPC_SERVER_ERROR if server else JSONRPC_OTHER
    code, quota = rule.code, False
    text = _text(message)
    if not rule.final:
        general = general_verdict if number != _INTERNAL_ERROR else _no_verdict
        verdict: Verdict | None
        signals = read_signals(data) if isinstance(data, (dict, list)) else NO_SIGNALS
        if isinstance(data, (dict, list)):
            verdict = document_verdict(signals, scopes)
        else:
            verdict = identifiers_verdict(
                [data] if isinstance(data, str) else [], scopes, envelope=True
            )
        if verdict is None:
            texts = (text, data) if isinstance(data, str) else (text,)
            verdict = phrase_verdict(texts, scopes) or general(
                (*texts, *signals.messages), (*signals.identifiers, *signals.generic)
            )
        if verdict is not None:
            code, quota = verdict.code, verdict.quota
    said = snippet(data) if data is not None else ""
    quoted = snippet(f"{text}: {said}" if text and said else text or said)
    where = f" (JSON-RPC error {number})" if number is not None else " (JSON-RPC error)"
    return _Failure(code, where, quoted, quota, rule="e-jsonrpc")


_INTERNAL_ERROR = -32603
"""JSON-RPC's "Internal error": like an HTTP 500, its words are not evidence (SPEC 12.3)."""


def _no_verdict(*_: object) -> Verdict | None:
    return None


def _is_tool_error(result: object) -> bool:
    """A CallToolResult that failed: ``isError`` (``is_error`` in Python SDKs) is true and
    ``content`` is a list."""
    return _field(result, "isError", "is_error") is True and isinstance(
        _field(result, "content"), list
    )


def _field(result: object, *names: str) -> Any:
    for name in names:
        value = result.get(name) if isinstance(result, dict) else attr(result, name)
        if value is not None:
            return value
    return None


def _tool_object(payload: object, scopes: _Scopes) -> _Failure | _Found | None:
    """An SDK's CallToolResult object (``mcp`` 1.x ``isError``, 2.x ``is_error``)."""
    if _is_tool_error(payload):
        return _tool_error(payload, scopes)
    return None


def _tool_error(result: object, scopes: _Scopes) -> _Failure | _Found:
    structured = _field(result, "structuredContent", "structured_content")
    if isinstance(structured, dict) and structured.get("ok") is False:
        relayed = _relay(structured)
        if relayed is not None:
            return relayed
    texts: list[str] = []
    content = _field(result, "content")
    if isinstance(content, list):
        for block in content[:MAX_ITEMS]:
            if _field(block, "type") == "text":
                text = _field(block, "text")
                if isinstance(text, str):
                    texts.append(text[:_TEXT_CUT])
    quoted = snippet("\n".join(texts))
    verdict = phrase_verdict(texts, scopes)
    if verdict is not None:
        return _Failure(verdict.code, " (tool error)", quoted, verdict.quota, rule="e-mcp-tool")
    status = _status_named(texts)
    if status is not None:
        code = code_for_status(status) or TOOL_ERROR_DEFAULT.code
        # The status was read, not received: the recorded status stays 0 (SPEC B.11).
        return _Failure(code, f" (tool error, HTTP {status})", quoted, rule="e-mcp-tool")
    verdict = general_verdict(texts, ())
    if verdict is not None and verdict.shown not in ACCESS_PHRASES:
        return _Failure(verdict.code, " (tool error)", quoted, verdict.quota, rule="e-mcp-tool")
    return _Failure(TOOL_ERROR_DEFAULT.code, " (tool error)", quoted, rule="e-mcp-tool")


def _status_named(texts: Iterable[str]) -> int | None:
    """The first 4xx or 5xx status a text names as one (SPEC B.4), or None."""
    for text in texts:
        match = _HTTP_STATUS.search(text, 0, SCAN_WINDOW)
        if match is not None:
            return int((match.group("after_http") or match.group("with_phrase"))[:3])
    return None


def _relay(wire: dict[str, Any]) -> _Found | None:
    """A peer's agenterr wire outcome, read back; its hint is cleaned like quoted text."""
    try:
        outcome = Outcome.from_dict(wire)
    except ValueError as exc:
        if not str(exc).startswith("reason"):
            return None
        # A malformed explanation does not unmake the relay: its code and hint still stand.
        try:
            outcome = Outcome.from_dict({k: v for k, v in wire.items() if k != "reason"})
        except ValueError:
            return None
    if outcome.code is None:
        return None
    place = http_where(outcome.status) if outcome.status else " (tool error)"
    hint = Cleaned(snippet(outcome.llm_hint, RELAY_CAP)) or hint_for(
        outcome.code, place, "", outcome.retry_after
    )
    said = outcome.reason
    # The peer's rule and evidence, not its "(replaced …)": that code was the peer's, not ours.
    peer = (
        "" if said is None else f", {said.rule}" + (f": {said.evidence}" if said.evidence else "")
    )
    why = reason("e-relay", "a peer's outcome" + peer)
    relayed = Failure(outcome.code, hint, outcome.retry_after, outcome.status, None, why)
    return _Found(relayed, place)


# --- {"ok": false} (SPEC B.5) ----------------------------------------------------------


def _api_error(
    document: dict[str, Any],
    payload: object,
    scopes: _Scopes,
    status: str | None = None,
    rule: str = "e-reply",
) -> _Failure | _Found:
    relayed = _relay(document) if status is None else None
    if relayed is not None:
        return relayed
    error = _first_present(document, _ERROR_MEMBERS)
    if status is not None and not (isinstance(error, str) and error):
        error = status  # Google Maps' "status": "REQUEST_DENIED" names the error
    signals = read_signals(document)
    verdict = document_verdict(signals, scopes) or general_verdict(
        signals.messages, (*signals.identifiers, *signals.generic)
    )
    shown: str | None = None
    if verdict is not None:
        code, quota = verdict.code, verdict.quota
        shown = None if verdict.general else verdict.shown
    else:
        named = isinstance(error, str) and error != ""
        code, quota = (API_ERROR_DEFAULT.code if named else Code.UNKNOWN), False
    if _showable(error):
        shown = error
    return _Failure(code, _named(" (API error", shown), snippet(payload), quota, rule=rule)


# --- GraphQL (SPEC B.6) ----------------------------------------------------------------


def _graphql(
    document: dict[str, Any], errors: object, data: object, scopes: _Scopes
) -> _Failure | None:
    if isinstance(errors, list) and errors and not _partial(data):
        return _graphql_errors(errors, "data" in document, scopes)
    if isinstance(data, dict):
        return _user_errors(data)
    return None


def _partial(data: object, depth: int = 0) -> bool:
    """Partial success: ``data`` is an object with a present member among its first 16 — a
    member that is not null, and, if an object, has a present member itself (checked to a
    depth of 8): GraphQL propagates a failed field's null up to the nearest nullable field,
    so ``{"actor": {"account": {"nrql": null}}}`` holds no data."""
    if not isinstance(data, dict) or depth > 8:
        return False
    for value in itertools.islice(data.values(), MAX_ITEMS):
        if value is not None and (not isinstance(value, dict) or _partial(value, depth + 1)):
            return True
    return False


def _graphql_errors(errors: list[Any], executed: bool, scopes: _Scopes) -> _Failure:
    identifiers: list[str] = []
    messages: list[str] = []
    for item in errors[:MAX_ITEMS]:
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
    verdict = identifiers_verdict(identifiers, scopes, envelope=True)
    shown = verdict.shown if verdict is not None else _first(identifiers)
    if verdict is None:
        verdict = phrase_verdict(messages, scopes) or general_verdict(messages, identifiers)
    if verdict is not None:
        code, quota = verdict.code, verdict.quota
    else:
        # A request error (no "data" member) is the request's fault by the GraphQL spec;
        # an execution error says nothing about what would help.
        code, quota = (Code.UNKNOWN if executed else Code.INVALID_REQUEST), False
    where = _named(" (GraphQL error", shown)
    return _Failure(code, where, snippet("; ".join(messages)), quota, rule="e-graphql")


def _user_errors(data: dict[str, Any]) -> _Failure | None:
    """Mutation payloads' ``userErrors`` (Shopify): input the caller must correct."""
    for payload in itertools.islice(data.values(), MAX_ITEMS):
        if not isinstance(payload, dict):
            continue
        for key, value in itertools.islice(payload.items(), MAX_ITEMS):
            if (
                isinstance(key, str)
                and (key == "userErrors" or key.endswith("UserErrors"))
                and isinstance(value, list)
                and value
            ):
                text = _user_error_text(value)
                return _Failure(
                    Code.INVALID_REQUEST, " (GraphQL userErrors)", text, rule="e-graphql"
                )
    return None


def _step(step: object) -> str | None:
    """A userErrors field step: a string, or an integer written without fraction (SPEC B.6)."""
    if isinstance(step, str):
        return step
    if isinstance(step, int) and not isinstance(step, bool):
        return str(step)
    if isinstance(step, float) and step.is_integer() and abs(step) <= 2**53:
        return str(int(step))
    return None


def _user_error_text(entries: list[Any]) -> str:
    parts: list[str] = []
    for item in entries[:MAX_ITEMS]:
        if not isinstance(item, dict):
            continue
        message = item.get("message")
        if not isinstance(message, str):
            continue
        field = item.get("field")
        if isinstance(field, list):
            steps = [_step(step) for step in field[:MAX_ITEMS]]
            field = ".".join(step for step in steps if step is not None)
        text = message[:_TEXT_CUT]
        parts.append(f"{field[:_TEXT_CUT]}: {text}" if isinstance(field, str) and field else text)
    return snippet("; ".join(parts))


# --- streamed errors (SPEC B.8, B.9) ---------------------------------------------------


def _stream_error(document: object, quote_source: object, scopes: _Scopes) -> _Failure:
    """An error event's data: Anthropic ``{"type": "error", "error": {…}}``, OpenAI
    ``{"error": {…}}`` or ``{"type": "error", "code": …}``, or text."""
    signals = read_signals(document) if isinstance(document, (dict, list)) else NO_SIGNALS
    messages = (document[:_TEXT_CUT],) if isinstance(document, str) else signals.messages
    verdict = document_verdict(signals, scopes)
    if verdict is not None:
        shown = verdict.shown
    else:
        identifiers = (*signals.identifiers, *signals.generic)
        shown = _first(i for i in identifiers if normalise(i) != "error")
        verdict = phrase_verdict(messages, scopes) or general_verdict(messages, identifiers)
    code, quota = (verdict.code, verdict.quota) if verdict is not None else (Code.UNKNOWN, False)
    where = _named(" (stream error", shown)
    quoted = snippet(quote_source)
    return _Failure(code, where, quoted, quota, signals.retry_delay, "e-stream-error")


def _event_stream(text: str, whole: bool, scopes: _Scopes) -> _Failure | _Found | None:
    """The first failing event of a server-sent event stream (WHATWG HTML, 9.2.6)."""
    if not text.lstrip("\r\n").startswith(_EVENT_STREAM_START):
        return None
    for event, data in _events(text, whole):
        if event == "error":
            start = json_start(data)
            document = parse_json(data) if start in ("{", "[") else None
            event_error = _stream_error(document if document is not None else data, data, scopes)
            return event_error._replace(rule="e-event-stream")
        if json_start(data) != "{":
            continue
        document = parse_json(data)
        if not isinstance(document, dict):
            continue
        if document.get("jsonrpc") == "2.0":  # MCP over Streamable HTTP
            failure = _jsonrpc(document, scopes)
            if failure is not None:
                return failure
        elif isinstance(document.get("error"), dict):
            return _stream_error(document, data, scopes)._replace(rule="e-event-stream")
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


def _first(identifiers: Iterable[object]) -> str | None:
    """The first identifier that can be shown, among the first 64."""
    for identifier in itertools.islice(identifiers, MAX_IDENTIFIERS):
        if _showable(identifier):
            return identifier  # type: ignore[return-value]
    return None


def _showable(identifier: object) -> bool:
    """An identifier may be named in a hint when it looks like one and the quoting gate
    leaves it unchanged: a credential-shaped value (an API key sent as an "error") is not
    named, since it would bypass the redaction a quote gets (SPEC B.2)."""
    return (
        isinstance(identifier, str)
        and _SHOWN_IDENTIFIER.fullmatch(identifier) is not None
        and snippet(identifier) == identifier
    )


def _named(prefix: str, identifier: str | None) -> str:
    return f'{prefix} "{identifier}")' if _showable(identifier) else f"{prefix})"


def _response(obj: object) -> tuple[int, object, object] | None:
    """``(status, headers, in-memory body)`` of a response-like object, or None."""
    status = as_status(attr(obj, "status_code"))
    if status is None:
        status = as_status(attr(obj, "status"))
    headers = attr(obj, "headers")
    if status is None or not 100 <= status <= 599 or headers is None:
        return None
    if not 200 <= status <= 299:
        return status, headers, None
    return status, headers, in_memory_body(obj)
