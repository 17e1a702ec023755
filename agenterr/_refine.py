"""Provider-aware refinements: signals in headers and error bodies that override the table.

The status table (SPEC.md section 3) is right most of the time; real APIs say the needed
reaction elsewhere too. This module reads those signals — a bounded prefix of the body,
parsed as JSON or scanned for an XML ``<Code>``, and a handful of headers — and names the
code whose reaction is right. Every rule is a row of a table below, with its SPEC.md
anchor; SPEC.md section 11 gives each row's source and reason. Nothing here raises.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from ._headers import HeaderView
from ._quote import SPACE as _BLANK
from ._retry_after import (
    RETRY_AFTER_CEILING,
    Clock,
    _now_seconds,
    http_date_epoch,
    parse_retry_after,
)
from ._taxonomy import Class, Code

__all__ = [
    "GRPC_NAMES",
    "IDENTIFIERS",
    "LONG_WAIT",
    "PARSE_LIMIT",
    "REFINE_HEADERS",
    "Refined",
    "Signals",
    "code_for_identifier",
    "normalise",
    "parse_json",
    "read_signals",
    "refine",
    "server_clock",
]

PARSE_LIMIT = 32_768
"""Longest body (characters of text, bytes of bytes) parsed for signals; longer ones only
have their first PARSE_LIMIT units scanned for an XML ``<Code>``. Error bodies are small, and
a JSON document cut short does not parse anyway, so cost stays O(1) in body size."""

LONG_WAIT = 3600.0
"""A rate limit that asks for a longer wait than this is a quota, not a hiccup (SPEC 11.7)."""

_MAX_ITEMS = 16
"""Members of any JSON array looked at (``errors[]``, ``details[]``, violations)."""
_MAX_IDENTIFIER = 128
_MAX_MESSAGES = 8
_MAX_MESSAGE = 2048


# --- rule groups, in precedence order (SPEC 11.3): the first group with a match wins ------


class _Group(NamedTuple):
    anchor: str
    code: Code
    quota: bool  # the billing/quota hint wording (SPEC 11.7)


QUOTA = _Group("r-quota", Code.UNAUTHORIZED, True)
AUTH = _Group("r-auth", Code.UNAUTHORIZED, False)
THROTTLED = _Group("r-throttled", Code.RATE_LIMITED, False)
TIMED_OUT = _Group("r-timeout", Code.TIMEOUT, False)
BUSY = _Group("r-busy", Code.UNAVAILABLE, False)
MISSING = _Group("r-missing", Code.NOT_FOUND, False)
INVALID = _Group("r-invalid", Code.INVALID_REQUEST, False)
FATAL = _Group("r-fatal", Code.UNKNOWN, False)
_PRECEDENCE = (QUOTA, AUTH, THROTTLED, TIMED_OUT, BUSY, MISSING, INVALID, FATAL)
_RANK = {group.anchor: rank for rank, group in enumerate(_PRECEDENCE)}


_NOT_ALNUM = re.compile("[^A-Za-z0-9]+")


def normalise(identifier: str) -> str:
    """An identifier as SPEC 11.3 compares it: its ASCII letters and digits, lower-cased."""
    return _NOT_ALNUM.sub("", identifier[:_MAX_IDENTIFIER]).lower()


_BY_GROUP: dict[_Group, tuple[str, ...]] = {
    QUOTA: (
        "insufficient_quota",  # OpenAI: credits or monthly budget exhausted
        "billing_hard_limit_reached",  # OpenAI
        "billing_not_active",  # OpenAI
        "billing_error",  # Anthropic
        "BILLING_DISABLED",  # Google ErrorInfo reason
        "dailyLimitExceeded",  # Google API (daily quota)
        "quotaExceeded",  # Google API (a project quota, not a rate)
        "quotaLimitReached",  # Microsoft Graph (storage quota)
        "insufficient_space",  # Dropbox
        "insufficient_storage",  # Microsoft Graph / OneDrive
    ),
    AUTH: (
        # AWS (JSON __type, x-amzn-ErrorType, XML <Code>)
        "AccessDenied",
        "AccessDeniedException",
        "AuthFailure",
        "ExpiredToken",
        "ExpiredTokenException",
        "IncompleteSignature",
        "InvalidAccessKeyId",
        "InvalidClientTokenId",
        "InvalidSignatureException",
        "KMSAccessDeniedException",
        "MissingAuthenticationToken",
        "MissingAuthenticationTokenException",
        "NotAuthorized",
        "SignatureDoesNotMatch",
        "UnauthorizedOperation",
        "UnrecognizedClientException",
        # Google (gRPC status names and ErrorInfo reasons)
        "API_KEY_INVALID",
        "PERMISSION_DENIED",
        "UNAUTHENTICATED",
        "SERVICE_DISABLED",
        "accessNotConfigured",
        "insufficientPermissions",
        # Azure Resource Manager / Entra
        "AuthorizationFailed",
        "InvalidAuthenticationToken",
        "ExpiredAuthenticationToken",
        "MissingSubscriptionRegistration",
        # Slack
        "invalid_auth",
        "not_authed",
        "account_inactive",
        "token_revoked",
        "token_expired",
        "missing_scope",
        "not_in_channel",
        "no_permission",
        # GraphQL extensions.code conventions
        "ACCESS_DENIED",
        "FORBIDDEN",
    ),
    THROTTLED: (
        # AWS
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "LimitExceededException",
        "BandwidthLimitExceeded",
        "PriorRequestNotComplete",
        "EC2ThrottledException",
        # Google
        "rateLimitExceeded",
        "userRateLimitExceeded",
        "RATE_LIMIT_EXCEEDED",
        "RESOURCE_EXHAUSTED",
        # OpenAI, Anthropic, Slack, Shopify, HubSpot, Kubernetes, Microsoft Graph, Stripe
        "rate_limit_exceeded",
        "rate_limit_error",
        "rate_limited",
        "rate_limit",
        "THROTTLED",
        "TooManyRequests",
        "activityLimitReached",
    ),
    TIMED_OUT: (
        "RequestTimeout",
        "RequestTimeoutException",
        "DEADLINE_EXCEEDED",
        "CANCELLED",
        "Timeout",  # Kubernetes Status reason
        "request_timeout",  # Slack
    ),
    BUSY: (
        # AWS
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "InternalFailure",
        "InternalError",
        "IDPCommunicationError",
        "IDPCommunicationErrorException",
        "OperationAborted",
        "TransactionInProgressException",
        # Google (gRPC)
        "UNAVAILABLE",
        "ABORTED",
        "INTERNAL",
        "backendError",
        # Azure, Microsoft Graph
        "AnotherOperationInProgress",
        "ResourceGroupBeingDeleted",
        "ServerBusy",
        "Directory_ConcurrencyViolation",
        "serviceNotAvailable",
        # Stripe, Slack, Kubernetes
        "overloaded_error",  # Anthropic (HTTP 529, and as a streamed error event)
        "api_error",  # Anthropic: an unexpected internal error
        "idempotency_key_in_use",
        "lock_timeout",
        "internal_error",
        "service_unavailable",
        "ServerTimeout",
    ),
    MISSING: (
        "NOT_FOUND",
        "NotFound",
        "ResourceNotFound",
        "ResourceNotFoundException",
        "NoSuchKey",
        "NoSuchBucket",
        "channel_not_found",
        "user_not_found",
    ),
    INVALID: (
        "INVALID_ARGUMENT",
        "UNIMPLEMENTED",
        "FAILED_PRECONDITION",
        "OUT_OF_RANGE",
        "ALREADY_EXISTS",
        "AlreadyExists",
        "ValidationException",
        "InvalidParameterValue",
        "card_error",  # Stripe: the card, an argument, is what must change
        "invalid_arguments",
        "is_archived",
        "BAD_USER_INPUT",
        "GRAPHQL_VALIDATION_FAILED",
        "GRAPHQL_PARSE_FAILED",
    ),
    FATAL: (
        "fatal_error",  # Slack: "the server could not complete your operation(s)"
        "DATA_LOSS",
    ),
}

GRPC_NAMES = (
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
)
"""gRPC status names by number (``grpc-status: 14`` is ``UNAVAILABLE``); each name is an
identifier of the table below except OK and UNKNOWN (no reaction follows from them)."""

IDENTIFIERS: dict[str, _Group] = {}
"""Normalised error identifier → its rule group (SPEC 11.3, table "identifiers")."""
for _group, _names in _BY_GROUP.items():
    for _name in _names:
        IDENTIFIERS.setdefault(normalise(_name), _group)


def code_for_identifier(identifier: object) -> Code | None:
    """The code an error identifier names (SPEC 11.3), or ``None`` for an unknown one."""
    if not isinstance(identifier, str):
        return None
    group = IDENTIFIERS.get(normalise(identifier))
    return group.code if group is not None else None


# Phrases in an API's own message (lower-cased substring match) for the few providers whose
# documented errors carry no identifier for the distinction (SPEC 11.4).
_QUOTA_PHRASES = (
    "plan and billing",  # OpenAI, Gemini: "check your plan and billing details"
    "enable billing",  # Gemini free tier unavailable
    "credit balance",  # Anthropic: "Your credit balance is too low"
    "spend limit",  # Anthropic: monthly spend limit of the usage tier
    "usage limits",  # Anthropic: "You have reached your specified API usage limits"
    "daily limit",  # HubSpot, Google
    "monthly limit",
)
_RATE_PHRASES = ("rate limit", "too many requests", "throttl", "try again later")
_PHRASE_STATUSES = frozenset({400, 402, 403, 429})
_RATE_PHRASE_STATUSES = frozenset({400, 403})

# Quota names (Google QuotaFailure, ErrorInfo metadata) tell a rate from an allowance.
_LONG_PERIOD = ("perday", "daily", "permonth", "monthly", "peryear")
_SHORT_PERIOD = ("persecond", "perminute", "per100seconds", "perhour")


# --- body signals --------------------------------------------------------------------


class Signals(NamedTuple):
    """What a body says, read once (SPEC 11.2)."""

    identifiers: tuple[str, ...] = ()
    generic: tuple[str, ...] = ()  # Google's canonical error.status: consulted last
    messages: tuple[str, ...] = ()
    quota_names: tuple[str, ...] | None = None  # None: the body states no quota facts
    retry_delay: float | None = None  # Google RetryInfo.retryDelay, in seconds
    problem: str | None = None  # RFC 9457 title/detail text to quote


_NONE = Signals()
_XML_CODE = re.compile(r"<Code>[ \t\n\r]*([^< \t\n\r]{1,128})[ \t\n\r]*</Code>")
_XML_MESSAGE = re.compile(r"<Message>([^<]{0,2048})</Message>")
_DURATION = re.compile(r"([0-9]{1,12}(?:\.[0-9]{1,9})?)s\Z")


def _prefix(body: object) -> tuple[str, bool] | None:
    """The body's text if it is short enough to parse (else its scan prefix), or None."""
    if isinstance(body, str):
        return (body, True) if len(body) <= PARSE_LIMIT else (body[:PARSE_LIMIT], False)
    if isinstance(body, (bytes, bytearray, memoryview)):
        try:
            size = len(body)
            data = bytes(body[:PARSE_LIMIT])
        except Exception:
            return None
        return data.decode("utf-8", "replace"), size <= PARSE_LIMIT
    return None


def read_signals(body: object, problem_json: bool = False) -> Signals:
    """The signals a body carries; parsed JSON (dict/list) is read as is. Never raises."""
    try:
        if isinstance(body, (dict, list)):
            return _from_document(body, problem_json)
        prefix = _prefix(body)
        if prefix is None:
            return _NONE
        text, whole = prefix
        text = text.removeprefix("\ufeff")  # a byte-order mark, as RFC 8259 allows
        start = text.lstrip(" \t\n\r")[:1]
        if start in ("{", "[") and whole:
            document = parse_json(text)
            if document is None:
                return _NONE
            return _from_document(document, problem_json)
        if start == "<":
            return _from_xml(text)
        return _NONE
    except Exception:
        return _NONE


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON (RFC 8259)")


def _json_int(digits: str) -> int | float:
    # Python refuses int() of more than 4,300 digits; such a number is still valid JSON, and
    # no rule reads it as an integer (identifiers are strings, codes are small).
    return int(digits) if len(digits) <= 20 else float(digits)


def parse_json(text: str) -> object:
    """RFC 8259 JSON (no NaN or Infinity), or None when ``text`` does not parse."""
    try:
        return json.loads(text, parse_constant=_not_json, parse_int=_json_int)
    except (ValueError, RecursionError):
        return None


def _from_xml(text: str) -> Signals:
    code = _XML_CODE.search(text)
    if code is None:
        return _NONE
    message = _XML_MESSAGE.search(text)
    return Signals(identifiers=(code[1],), messages=(message[1],) if message else ())


class _Reader:
    __slots__ = ("generic", "identifiers", "messages", "quota_names", "retry_delay")

    def __init__(self) -> None:
        self.identifiers: list[str] = []
        self.generic: list[str] = []
        self.messages: list[str] = []
        self.quota_names: list[str] | None = None
        self.retry_delay: float | None = None

    def identifier(self, value: object, namespaced: bool = False) -> None:
        if isinstance(value, str) and len(self.identifiers) < 4 * _MAX_ITEMS:
            value = value[:PARSE_LIMIT]  # a parsed body's strings cost what a text body's do
            if namespaced:  # "com.amazonaws.dynamodb.v20120810#ThrottlingException"
                value = value.rpartition("#")[2].partition(":")[0]
            if value:  # an empty one, as given or once reduced, is skipped and not counted
                self.identifiers.append(value[:_MAX_IDENTIFIER])

    def message(self, value: object) -> None:
        if isinstance(value, str) and value and len(self.messages) < _MAX_MESSAGES:
            self.messages.append(value[:_MAX_MESSAGE])

    def error_object(self, error: dict[str, Any]) -> None:
        """``error: {...}`` of OpenAI, Anthropic, Google, Azure, Stripe, Microsoft Graph."""
        for key in ("code", "type", "reason"):
            self.identifier(error.get(key))
        status = error.get("status")  # a gRPC canonical code: the reasons below are sharper
        if isinstance(status, str) and status:
            self.generic.append(status[:_MAX_IDENTIFIER])
        self.message(error.get("message"))
        for key in ("innerError", "innererror"):  # Microsoft Graph, Azure
            inner = error.get(key)
            if isinstance(inner, dict):
                self.identifier(inner.get("code"))
        for item in _items(error.get("errors")):  # Google API "errors[].reason"
            self.identifier(item.get("reason"))
            self.identifier(item.get("code"))
        for item in _items(error.get("details")):
            self.google_detail(item)
        tag = error.get(".tag")  # Dropbox unions: {".tag": "path", "path": {".tag": …}}
        if isinstance(tag, str) and tag:
            self.identifier(tag)
            nested = error.get(tag)
            if isinstance(nested, dict):
                self.identifier(nested.get(".tag"))

    def google_detail(self, detail: dict[str, Any]) -> None:
        kind = detail.get("@type")
        if not isinstance(kind, str) or not kind:
            return
        kind = kind.rpartition(".")[2]
        if kind == "RetryInfo":
            if self.retry_delay is None:  # the first one that parses
                self.retry_delay = _duration(detail.get("retryDelay"))
        elif kind == "ErrorInfo":
            self.identifier(detail.get("reason"))
            metadata = detail.get("metadata")
            if isinstance(metadata, dict):
                for key in ("quota_metric", "quota_limit", "quota_id"):
                    if key in metadata:
                        self.quota(metadata[key])
        elif kind == "QuotaFailure":
            self.quota(None)
            for violation in _items(detail.get("violations")):
                for key in ("quotaId", "quotaMetric", "subject", "description"):
                    self.quota(violation.get(key))
        elif "reason" in detail:
            self.identifier(detail.get("reason"))

    def quota(self, value: object) -> None:
        if self.quota_names is None:
            self.quota_names = []
        if isinstance(value, str) and value and len(self.quota_names) < 4 * _MAX_ITEMS:
            self.quota_names.append(value[:_MAX_MESSAGE])


def _items(value: object) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        for item in value[:_MAX_ITEMS]:
            if isinstance(item, dict):
                yield item


def _duration(value: object) -> float | None:
    """A google.protobuf.Duration in its JSON form ("1.5s") or as {seconds, nanos}."""
    seconds: float | None = None
    if isinstance(value, str):
        match = _DURATION.match(value)
        seconds = float(match[1]) if match else None
    elif isinstance(value, dict):
        whole, nanos = value.get("seconds", 0), value.get("nanos", 0)
        if isinstance(whole, str) and whole.isascii() and whole.isdigit() and len(whole) <= 12:
            whole = int(whole)
        if type(whole) is int and type(nanos) is int and 0 <= whole <= 10**12:
            try:
                seconds = whole + nanos / 1e9
            except OverflowError:  # a non-finite result: does not parse (SPEC 11.8)
                return None
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, RETRY_AFTER_CEILING)


def _from_document(document: object, problem_json: bool) -> Signals:
    if isinstance(document, list):  # a batch or a bare error list: its first error object
        document = next(iter(_items(document)), None)
    if not isinstance(document, dict):
        return _NONE
    reader = _Reader()
    error = document.get("error")
    if isinstance(error, dict):
        reader.error_object(error)
    elif isinstance(error, str):  # Slack {"ok": false, "error": "rate_limited"}
        reader.identifier(error)
    inner = document.get("Error")  # AWS query JSON {"Error": {"Code": …, "Message": …}}
    if isinstance(inner, dict):
        reader.identifier(inner.get("Code"))
        reader.message(inner.get("Message"))
    reader.identifier(document.get("__type"), namespaced=True)
    for key in ("code", "errorType", "reason", "type"):
        reader.identifier(document.get(key))
    for key in ("message", "Message", "detail", "title"):
        reader.message(document.get(key))
    for item in _items(document.get("errors")):  # GraphQL, Cloudflare, Shopify REST
        extensions = item.get("extensions")
        if isinstance(extensions, dict):
            reader.identifier(extensions.get("code"))
        reader.identifier(item.get("code"))
        reader.identifier(item.get("type"))
        reader.message(item.get("message"))
    summary = document.get("error_summary")  # Dropbox "path/insufficient_space/.."
    if isinstance(summary, str):
        for part in summary[:PARSE_LIMIT].split("/", 4)[:4]:
            reader.identifier(part)
    return Signals(
        tuple(reader.identifiers),
        tuple(reader.generic),
        tuple(reader.messages),
        None if reader.quota_names is None else tuple(reader.quota_names),
        reader.retry_delay,
        _problem_text(document) if problem_json else None,
    )


def _non_blank(value: object) -> bool:
    """A string with a character outside the whitespace that cleaning folds (SPEC 7.3)."""
    return isinstance(value, str) and bool(_BLANK.sub("", value[:PARSE_LIMIT]))


def _first(item: dict[str, Any], keys: tuple[str, ...], test: Any) -> str | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and test(value):
            return value[:PARSE_LIMIT]
    return None


def _problem_text(document: dict[str, Any]) -> str | None:
    """RFC 9457: "title: detail", then the invalid parameters, as one sentence to quote."""
    parts = [
        value[:PARSE_LIMIT]
        for value in (document.get("title"), document.get("detail"))
        if isinstance(value, str) and _non_blank(value)
    ]
    text = ": ".join(parts)
    params: list[str] = []
    for key in ("invalid-params", "invalid_params", "errors"):
        for item in _items(document.get(key)):
            reason = _first(item, ("reason", "detail", "message"), _non_blank)
            if reason is None:
                continue
            name = _first(item, ("name", "pointer", "field"), bool)
            params.append(f"{name}: {reason}" if name is not None else reason)
    if params:
        text = f"{text} ({'; '.join(params)})" if text else "; ".join(params)
    return text or None


# --- headers -------------------------------------------------------------------------

_SHOULD_RETRY = "x-should-retry"
_REMAINING = "x-ratelimit-remaining"
_AMZN_TYPE = "x-amzn-errortype"
_DATE = "date"
REFINE_HEADERS = frozenset(
    {
        _SHOULD_RETRY,
        _REMAINING,
        _AMZN_TYPE,
        _DATE,
        "content-type",
        "x-amz-retry-after",
        "ratelimit",
        "ratelimit-reset",
        "x-ratelimit-reset",
        "x-ratelimit-reset-after",
    }
)
"""Header names (lower case) the refinements read, besides the Retry-After family."""

_RATELIMIT_RESET = re.compile(r"(?:^|[;, \t])(?:reset|t)=([^;, \t]*)")
_EPOCH_FLOOR = 1_000_000_000
"""An X-RateLimit-Reset at or above this (September 2001) is a Unix time, below it a delay."""


def server_clock(view: HeaderView, now: Clock) -> float:
    """The server's clock when it stated a time: its Date header, else ``now``."""
    date = view.get(_DATE)
    if date is not None:
        epoch = http_date_epoch(date.strip(" \t"), _now_seconds(now))
        if epoch is not None:
            return epoch
    try:
        return _now_seconds(now)
    except Exception:
        return math.nan  # an unusable clock: no time-of-day delay can be measured


_NUMBER = re.compile(r"[0-9]{1,20}(?:\.[0-9]{1,9})?\Z")


def extra_retry_after(
    view: HeaderView, signals: Signals, now: Clock, *, rate_limited: bool
) -> float | None:
    """The delay from the sources after the Retry-After family (SPEC 11.8); first wins.

    A rate-limit window's reset is the delay of a rate limit only: GitHub and others send
    it on every response, and a 502 is not fixed by waiting for the window.
    """
    raw = view.get("x-amz-retry-after")
    if raw is not None:
        seconds = parse_retry_after(raw, milliseconds=True)
        if seconds is not None:
            return seconds
    if signals.retry_delay is not None:
        return signals.retry_delay
    if not rate_limited:
        return None
    for name in ("ratelimit-reset", "x-ratelimit-reset-after", "ratelimit", "x-ratelimit-reset"):
        raw = view.get(name)
        if raw is None:
            continue
        if name == "ratelimit":
            match = _RATELIMIT_RESET.search(raw)
            raw = match[1] if match else ""
        seconds = _reset(raw, view, now)
        if seconds is not None:
            return seconds
    return None


def _reset(raw: str, view: HeaderView, now: Clock) -> float | None:
    """A window reset: a delay in seconds, or a Unix time when at or above _EPOCH_FLOOR."""
    text = raw.strip(" \t")
    if not _NUMBER.match(text):
        return None
    value = float(text)
    if int(text.partition(".")[0]) >= _EPOCH_FLOOR:
        value -= server_clock(view, now)
    if not math.isfinite(value):
        return None
    return max(0.0, min(value, RETRY_AFTER_CEILING))


# --- the decision --------------------------------------------------------------------


class Refined(NamedTuple):
    """The refined reading of a failed response."""

    code: Code
    rule: str | None  # SPEC anchor of the rule that moved the code, None: the table's
    quota: bool
    retry_after: float | None
    quote: str | None  # text to quote instead of the body (problem+json), or None


def _phrases(phrases: tuple[str, ...]) -> re.Pattern[str]:
    # ASCII-only case folding, so every port agrees (no Unicode lower-casing surprises).
    return re.compile("|".join(map(re.escape, phrases)), re.IGNORECASE | re.ASCII)


_QUOTA_WORDS = _phrases(_QUOTA_PHRASES)
_RATE_WORDS = _phrases(_RATE_PHRASES)


def _contains(texts: tuple[str, ...], phrases: re.Pattern[str]) -> bool:
    return any(phrases.search(text) for text in texts)


def _quota_group(names: tuple[str, ...], has_retry_info: bool) -> _Group:
    squeezed = tuple(_NOT_ALNUM.sub("", name).lower() for name in names)
    if any(p in name for name in squeezed for p in _LONG_PERIOD):
        return QUOTA
    if has_retry_info or any(p in name for name in squeezed for p in _SHORT_PERIOD):
        return THROTTLED
    return QUOTA  # an allowance (VMs per project, free tier): someone must raise it


def _body_group(
    status: int, signals: Signals, view: HeaderView, retry_after: float | None
) -> _Group | None:
    best: _Group | None = None

    def consider(group: _Group | None) -> None:
        nonlocal best
        if group is not None and (best is None or _RANK[group.anchor] < _RANK[best.anchor]):
            best = group

    for identifier in signals.identifiers:
        consider(IDENTIFIERS.get(normalise(identifier)))
    amzn = view.get(_AMZN_TYPE)
    if amzn is not None:
        consider(IDENTIFIERS.get(normalise(amzn.partition(":")[0])))
    if signals.quota_names is not None:
        consider(_quota_group(signals.quota_names, signals.retry_delay is not None))
    # Phrases (SPEC 11.4) are weaker than structure. A quota phrase may only sharpen a rate
    # limit (Anthropic's spend limits arrive as rate_limit_error) and yields to quota facts,
    # RetryInfo and a server that says to come back within the hour; a rate phrase counts
    # only when no identifier spoke (a ValidationException about a throttle setting).
    if (
        (best is None or best is THROTTLED)
        and signals.quota_names is None
        and signals.retry_delay is None
        and (retry_after is None or retry_after > LONG_WAIT)
        and status in _PHRASE_STATUSES
        and _contains(signals.messages, _QUOTA_WORDS)
    ):
        consider(QUOTA)
    if (
        best is None
        and status in _RATE_PHRASE_STATUSES
        and not any(IDENTIFIERS.get(normalise(i)) is INVALID for i in signals.generic)
        and _contains(signals.messages, _RATE_WORDS)
    ):
        consider(THROTTLED)
    if best is None:
        for identifier in signals.generic:
            consider(IDENTIFIERS.get(normalise(identifier)))
    return best


def refine(
    status: int,
    code: Code,
    body: object,
    view: HeaderView,
    *,
    retry_after: float | None,
    now: Clock,
) -> Refined:
    """Apply SPEC section 11 to a failed response whose table code is ``code``.

    ``retry_after`` is what the Retry-After family said (SPEC 5), measured against the
    response's Date header. Never raises (a failure keeps the table's reading).
    """
    try:
        return _refine(status, code, body, view, retry_after=retry_after, now=now)
    except Exception:
        return Refined(code, None, False, retry_after if code.retryable else None, None)


def _refine(
    status: int,
    code: Code,
    body: object,
    view: HeaderView,
    *,
    retry_after: float | None,
    now: Clock,
) -> Refined:
    content_type = view.get("content-type") or ""
    signals = read_signals(body, "problem+json" in content_type.lower())
    group = _body_group(status, signals, view, retry_after)
    if status == 429 and group is not QUOTA:
        group = None  # a 429 is a rate limit by definition; only an exhausted quota differs
    rule: str | None = None
    quota = False
    if group is not None and group.code.class_ is not code.class_:
        code, rule, quota = group.code, group.anchor, group.quota
    elif group is QUOTA and code is Code.UNAUTHORIZED:
        rule, quota = group.anchor, True  # same class, but the hint must say billing/quota
    if code.class_ is not Class.TRANSIENT and rule is None:
        if status in (400, 403):
            # r-ratelimit-headers: a 400/403 that carries rate-limit state is a rate limit
            remaining = view.get(_REMAINING)
            if retry_after is not None or (remaining is not None and remaining.strip(" \t") == "0"):
                code, rule = Code.RATE_LIMITED, "r-ratelimit-headers"
        elif status == 409 and retry_after is not None:
            # r-conflict-retry-after: the server says when the identical request will pass
            code, rule = Code.UNAVAILABLE, "r-conflict-retry-after"
    if code.retryable and retry_after is None:
        retry_after = extra_retry_after(view, signals, now, rate_limited=code is Code.RATE_LIMITED)
    if code is Code.RATE_LIMITED and retry_after is not None and retry_after > LONG_WAIT:
        code, rule, quota, retry_after = Code.UNAUTHORIZED, "r-long-wait", True, None
    advice = view.get(_SHOULD_RETRY)
    if advice is not None:  # r-should-retry: the server's explicit advice has the last word
        advice = advice.strip(" \t").lower()
        if advice == "true" and not code.retryable:
            code, rule, quota = Code.UNAVAILABLE, "r-should-retry", False
            if retry_after is None:
                retry_after = extra_retry_after(view, signals, now, rate_limited=False)
        elif advice == "false" and code.retryable:
            code, rule, quota = Code.UNKNOWN, "r-should-retry", False
    return Refined(code, rule, quota, retry_after if code.retryable else None, signals.problem)
