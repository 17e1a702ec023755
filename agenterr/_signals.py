"""The signal engine: what an error body or an envelope says, and which reading wins.

Both HTTP error bodies (SPEC Annex A) and errors inside 2xx replies (Annex B) are read here:
the bounded JSON/XML reading of a body into :class:`Signals`, the lookup of identifiers,
phrases and fields in the rule tables (built-in and user, :mod:`agenterr._rules`), the
ranking of competing readings by precedence, quota periods, and the delays a body or the
rate-limit headers give. ``_refine`` adds only what an HTTP status changes; ``_envelope`` only
recognises shapes. Nothing here raises on its inputs.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any, NamedTuple

from ._headers import HeaderView
from ._quote import SCAN_WINDOW, SPACE
from ._reason import Reason, reason
from ._retry_after import (
    RETRY_AFTER_CEILING,
    Clock,
    http_date_epoch,
    now_seconds,
    parse_retry_after,
    retry_after_from_headers,
)
from ._rules import ANCHORS, CONTENT_POLICY, INDEX, RANKS, Rule, RuleSet, normalise
from ._shared import BoundedCache, ascii_lower
from ._taxonomy import Class, Code

__all__ = [
    "LONG_WAIT",
    "PARSE_LIMIT",
    "PLAIN_WINDOW",
    "Signals",
    "Verdict",
    "body_text",
    "delay_after",
    "document_verdict",
    "field_verdict",
    "general_verdict",
    "header_delay",
    "http_verdict",
    "identifiers_verdict",
    "long_wait",
    "lookup",
    "parse_json",
    "phrase_verdict",
    "read_signals",
    "server_clock",
]

PARSE_LIMIT = 32_768
"""Longest body (characters of text, bytes of bytes) parsed for signals; longer ones only
have their first PARSE_LIMIT units scanned for an XML ``<Code>`` or event-stream frames.
Error bodies are small, and a JSON document cut short does not parse anyway, so cost stays
O(1) in body size."""

LONG_WAIT = 3600.0
"""A rate limit that asks for a longer wait than this is a quota, not a hiccup (SPEC A.7)."""

MAX_ITEMS = 16
"""Members of any JSON array looked at (``errors[]``, ``details[]``, violations, batches)."""
MAX_IDENTIFIERS = 4 * MAX_ITEMS
_MAX_IDENTIFIER = 128
_MAX_MESSAGES = 8
_MAX_MESSAGE = 2048
PLAIN_WINDOW = _MAX_MESSAGE
"""Code points of a body without JSON or XML structure that phrases read: it is read as one
message, cut as a message is (SPEC 11.2.2)."""
_JSON_SPACE = " \t\n\r"
"""JSON's white space (RFC 8259): the only characters skipped before a document."""


# --- reading a body ----------------------------------------------------------------------


def body_text(body: object, limit: int = PARSE_LIMIT) -> tuple[str, bool] | None:
    """A text or bytes body's first ``limit`` units (code points or bytes) as text, without a
    leading byte-order mark, and whether that is the whole body; None for other bodies."""
    if isinstance(body, str):
        whole = len(body) <= limit
        text = body if whole else body[:limit]
    elif isinstance(body, (bytes, bytearray, memoryview)):
        try:
            whole = len(body) <= limit
            data = bytes(body[:limit])
        except Exception:
            return None  # a released buffer
        text = data.decode("utf-8", "replace")
    else:
        return None
    return text.removeprefix("\ufeff"), whole  # RFC 8259 lets parsers ignore a BOM


_HEAD = 256
"""Units of a body decoded first, to see how it starts."""


def json_start(text: str) -> str:
    """The first character of ``text`` after JSON white space ("" when none)."""
    return text.lstrip(_JSON_SPACE)[:1]


class Signals(NamedTuple):
    """What a body says, read once (SPEC A.2)."""

    identifiers: tuple[str, ...] = ()
    generic: tuple[str, ...] = ()  # Google's canonical error.status: consulted last
    messages: tuple[str, ...] = ()
    quota_names: tuple[str, ...] | None = None  # None: the body states no quota facts
    retry_delay: float | None = None  # Google RetryInfo.retryDelay, in seconds
    problem: str | None = None  # RFC 9457 title/detail text to quote
    document: dict[str, Any] | None = None  # the object read, for field rules


NO_SIGNALS = Signals()
_XML_CODE = re.compile(r"<Code>[ \t\n\r]*([^< \t\n\r]{1,128})[ \t\n\r]*</Code>")
_XML_MESSAGE = re.compile(r"<Message>([^<]{0,2048})</Message>")
_DURATION = re.compile(r"([0-9]{1,12}(?:\.[0-9]{1,9})?)s\Z")


def read_signals(body: object, problem_json: bool = False) -> Signals:
    """The signals a body carries; parsed JSON (dict/list) is read as is. Never raises."""
    try:
        if type(body) is str and len(body) <= PARSE_LIMIT:
            # The common case, a whole text body: no window to cut, nothing to decode.
            text = body.removeprefix("\ufeff")
            return _from_text(text, text.lstrip(_JSON_SPACE), problem_json)
        if isinstance(body, (dict, list)):
            return _from_document(body, problem_json)
        # A body past the parse limit is looked at by its head first: cut JSON is not read,
        # so it need not be decoded either.
        big = isinstance(body, (str, bytes, bytearray, memoryview)) and len(body) > PARSE_LIMIT
        prefix = body_text(body, _HEAD if big else PARSE_LIMIT)
        if prefix is None:
            return NO_SIGNALS
        text, whole = prefix
        stripped = text.lstrip(_JSON_SPACE)
        if big and stripped[:1] not in ("{", "["):
            text, whole = body_text(body) or ("", False)
            stripped = text.lstrip(_JSON_SPACE)
        if stripped[:1] in ("{", "[") and not whole:
            return NO_SIGNALS  # JSON cut by the parse limit does not parse
        return _from_text(text, stripped, problem_json)
    except Exception:
        return NO_SIGNALS


def _from_text(text: str, stripped: str, problem_json: bool) -> Signals:
    """The signals of a text; ``stripped`` is the text without leading JSON white space."""
    start = stripped[:1]
    if start in ("{", "["):
        document = parse_json(text, len(text) - len(stripped))
        return NO_SIGNALS if document is None else _from_document(document, problem_json)
    return _from_xml(text) if start == "<" else NO_SIGNALS


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON (RFC 8259)")


def _json_int(digits: str) -> int | float:
    # Python refuses int() of more than 4,300 digits; such a number is still valid JSON, and
    # no rule reads it as an integer (identifiers are strings, codes are small).
    return int(digits) if len(digits) <= 20 else float(digits)


_DECODER = json.JSONDecoder(parse_constant=_not_json, parse_int=_json_int)
"""Built once: ``json.loads`` with hooks builds a decoder on every call."""
# The decoder's scanner (CPython's C one): one value at an index, what raw_decode wraps. Not
# in the typed interface, hence the lookup; raw_decode where an implementation lacks it.
_SCAN: Callable[[str, int], tuple[Any, int]] = getattr(_DECODER, "scan_once", _DECODER.raw_decode)


def parse_json(text: str, start: int = -1) -> object:
    """RFC 8259 JSON (no NaN or Infinity), or None when ``text`` does not parse. ``start``:
    where the value begins after JSON white space, when the caller knows it."""
    # What JSONDecoder.decode does, without its Python-level wrapper: skip JSON white space,
    # scan one value, allow only JSON white space after it.
    if start < 0:
        start = len(text) - len(text.lstrip(_JSON_SPACE))
    try:
        value, end = _SCAN(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    if end != len(text) and text[end:].strip(_JSON_SPACE):
        return None
    return value


def _from_xml(text: str) -> Signals:
    code = _XML_CODE.search(text)
    if code is None:
        return NO_SIGNALS
    message = _XML_MESSAGE.search(text)
    return Signals(identifiers=(code[1],), messages=(message[1],) if message else ())


def items(value: object) -> Iterator[dict[str, Any]]:
    """The objects among the first MAX_ITEMS members of a JSON array."""
    if isinstance(value, list):
        for item in value[:MAX_ITEMS]:
            if isinstance(item, dict):
                yield item


class _Reader:
    __slots__ = ("generic", "identifiers", "messages", "quota_names", "retry_delay")

    def __init__(self) -> None:
        self.identifiers: list[str] = []
        self.generic: list[str] = []
        self.messages: list[str] = []
        self.quota_names: list[str] | None = None
        self.retry_delay: float | None = None

    def identifier(self, value: object, namespaced: bool = False) -> None:
        if isinstance(value, str) and len(self.identifiers) < MAX_IDENTIFIERS:
            value = value[:PARSE_LIMIT]  # a parsed body's strings cost what a text body's do
            if namespaced:  # "com.amazonaws.dynamodb.v20120810#ThrottlingException"
                value = value.rpartition("#")[2].partition(":")[0]
            if value:  # an empty one, as given or once reduced, is skipped and not counted
                self.identifiers.append(value[:_MAX_IDENTIFIER])

    def message(self, value: object) -> None:
        if isinstance(value, str) and value and len(self.messages) < _MAX_MESSAGES:
            self.messages.append(value[:_MAX_MESSAGE])

    def error_string(self, error: str) -> None:
        """An error given as a string: an identifier, and a message too when it is prose."""
        self.identifier(error)
        if " " in error[:_MAX_MESSAGE]:  # prose, not a code: {"error": "Your …"}
            self.message(error)

    def error_object(self, error: dict[str, Any]) -> None:
        """``error: {...}`` of OpenAI, Anthropic, Google, Azure, Stripe, Microsoft Graph."""
        for key in ("code", "type", "reason"):
            self.identifier(error.get(key))
        status = error.get("status")  # a gRPC canonical code: the reasons below are sharper
        if isinstance(status, str) and status:
            self.generic.append(status[:_MAX_IDENTIFIER])
        self.message(error.get("message"))
        self.message(error.get("error_msg"))  # VK {"error": {"error_code": 5, "error_msg": …}}
        for key in ("innerError", "innererror"):  # Microsoft Graph, Azure
            inner = error.get(key)
            if isinstance(inner, dict):
                self.identifier(inner.get("code"))
        for item in items(error.get("errors")):  # Google API "errors[].reason"
            self.identifier(item.get("reason"))
            self.identifier(item.get("code"))
        for item in items(error.get("details")):
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
            for violation in items(detail.get("violations")):
                for key in ("quotaId", "quotaMetric", "subject", "description"):
                    self.quota(violation.get(key))
        elif "reason" in detail:
            self.identifier(detail.get("reason"))

    def quota(self, value: object) -> None:
        if self.quota_names is None:
            self.quota_names = []
        if isinstance(value, str) and value and len(self.quota_names) < MAX_IDENTIFIERS:
            self.quota_names.append(value[:_MAX_MESSAGE])


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
            except OverflowError:  # a non-finite result: does not parse (SPEC A.8)
                return None
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, RETRY_AFTER_CEILING)


_IDENTIFIER_KEYS = ("code", "errorType", "reason", "type", "error_code", "errorCode", "name")
"""Top-level members read as identifiers (SPEC 11.2.2, item 5): Kubernetes ``reason``,
HubSpot ``errorType``, Klarna and monday.com ``error_code``, DataStax ``errorCode``, and the
``name`` of JavaScript-style error objects (Resend's ``daily_quota_exceeded``)."""
_MESSAGE_KEYS = (
    "message",
    "Message",
    "detail",
    "title",
    "error_description",
    "error_message",
    "errorMessage",
    "msg",
    "error_msg",
    "errmsg",
    "status_msg",
)
"""Top-level members read as messages: OAuth 2.0's ``error_description`` (RFC 6749, 5.2),
``msg`` beside a numeric ``code`` (Binance, Zulip and many others), and the messages of the
other numeric-code vocabularies (SPEC 12.16 step 7): ``error_msg`` (VK, Baidu), ``errmsg``
(WeChat) and ``status_msg`` (MiniMax's ``base_resp``)."""


def _from_document(document: object, problem_json: bool) -> Signals:
    if isinstance(document, list):  # a batch or a bare error list: its first error object
        document = next(iter(items(document)), None)
    if not isinstance(document, dict):
        return NO_SIGNALS
    reader = _Reader()
    # The members SPEC 11.2.2 reads, in its order; only those present are looked at.
    error = document.get("error")
    if isinstance(error, dict):
        reader.error_object(error)
    elif isinstance(error, str):  # Slack {"ok": false, "error": "rate_limited"}
        reader.error_string(error)
    aws = document.get("Error")  # AWS query JSON {"Error": {"Code": …, "Message": …}}
    if isinstance(aws, dict):
        reader.identifier(aws.get("Code"))
        reader.message(aws.get("Message"))
    elif isinstance(aws, str) and error is None:  # OMDb {"Response": "False", "Error": …}
        reader.error_string(aws)
    if "__type" in document:
        reader.identifier(document["__type"], namespaced=True)
    for key in _IDENTIFIER_KEYS:
        if key in document:
            reader.identifier(document[key])
    for key in _MESSAGE_KEYS:
        if key in document:
            reader.message(document[key])
    for item in items(document.get("errors")):  # GraphQL, Cloudflare, Shopify REST
        extensions = item.get("extensions")
        if isinstance(extensions, dict):
            reader.identifier(extensions.get("code"))
        reader.identifier(item.get("code"))
        reader.identifier(item.get("type"))
        reader.message(item.get("message"))
    summary = document.get("error_summary")
    if isinstance(summary, str):  # Dropbox "error_summary": "path/insufficient_space/.."
        for part in summary[:PARSE_LIMIT].split("/", 4)[:4]:
            reader.identifier(part)
    return Signals(
        identifiers=tuple(reader.identifiers),
        generic=tuple(reader.generic),
        messages=tuple(reader.messages),
        quota_names=None if reader.quota_names is None else tuple(reader.quota_names),
        retry_delay=reader.retry_delay,
        problem=_problem_text(document) if problem_json else None,
        document=document,
    )


def _non_blank(value: object) -> bool:
    """A string with a character outside the whitespace that cleaning folds (SPEC 7.3)."""
    # Not all blank: the first non-blank character ends the match, no copy is made.
    return isinstance(value, str) and value != "" and not SPACE.fullmatch(value, 0, PARSE_LIMIT)


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
        for item in items(document.get(key)):
            reason = _first(item, ("reason", "detail", "message"), _non_blank)
            if reason is None:
                continue
            name = _first(item, ("name", "pointer", "field"), bool)
            params.append(f"{name}: {reason}" if name is not None else reason)
    if params:
        text = f"{text} ({'; '.join(params)})" if text else "; ".join(params)
    return text or None


# --- deciding ----------------------------------------------------------------------------


class Verdict(NamedTuple):
    """The reading that won: its code, the quota wording, and the identifier, phrase or
    field that decided, as written."""

    code: Code
    quota: bool
    shown: str | None = None
    general: bool = False  # from general evidence (SPEC 11.12): nothing structured spoke
    generic: bool = False  # from a generic identifier (Google's error.status) alone
    source: str = "identifier"  # what was read, for the reason: "identifier", "phrase", …
    user: bool = False  # from one of the user's rules
    word: str | None = None  # the general phrase or identifier part that decided

    @property
    def anchor(self) -> str:
        """The SPEC anchor of the reading's rule group."""
        return ANCHORS[(self.code, self.quota)]

    def reason(self, replaced: Code | None = None) -> Reason:
        """This reading as the reason for a failure's code (SPEC 8.4); ``replaced``: the
        code it replaced, if it changed one."""
        rule = "user-rule" if self.user else ANCHORS[(self.code, self.quota)]
        evidence = self.source if self.shown is None else f"{self.source} '{self.shown}'"
        return reason(rule, evidence, None if replaced is self.code else replaced)


_NORMALISED: BoundedCache[str, str] = BoundedCache(4096)


def _key(identifier: str) -> str:
    # Identifiers repeat endlessly across calls (the same few dozen per provider).
    key = _NORMALISED.get(identifier)
    if key is None:
        key = normalise(identifier)
        _NORMALISED.remember(identifier, key)
    return key


def lookup(identifier: object, layers: tuple[RuleSet, ...], *, envelope: bool) -> Rule | None:
    """The rule an identifier names: the user scopes nearest first, then SPEC A.3, then (in
    envelopes) SPEC B.2; None for an unknown one."""
    if not isinstance(identifier, str):
        return None
    key = _key(identifier)
    for layer in layers:
        rule = layer.identifiers.get(key)
        if rule is not None:
            return rule
    rule = INDEX.identifiers.get(key)
    if rule is None and envelope:
        rule = INDEX.envelope_identifiers.get(key)
    return rule


def _verdict(rule: Rule, shown: str, source: str = "identifier") -> Verdict:
    return Verdict(rule.code, rule.quota, shown, source=source, user=not built_in(rule))


def built_in(rule: Rule) -> bool:
    """Whether ``rule`` is one of the package's own (not one of the user's)."""
    return id(rule) in _BUILT_IN_IDS


_BUILT_IN_IDS = frozenset(
    id(rule) for rule in (*INDEX.identifiers.values(), *INDEX.envelope_identifiers.values())
)


def _better(candidate: Verdict | None, best: Verdict | None) -> Verdict | None:
    if candidate is None:
        return best
    if best is None or RANKS[(candidate.code, candidate.quota)] < RANKS[(best.code, best.quota)]:
        return candidate
    return best


_UNSEEN: Any = object()
_BUILT_IN: tuple[dict[str, tuple[Verdict, int] | None], dict[str, tuple[Verdict, int] | None]]
_BUILT_IN = ({}, {})  # by identifier as written, for HTTP bodies [False] and envelopes [True]


def _built_in(identifier: str, envelope: bool) -> tuple[Verdict, int] | None:
    """The built-in reading of an identifier and its rank, cached as _key caches."""
    rule = lookup(identifier, (), envelope=envelope)
    found = None if rule is None else (Verdict(rule.code, rule.quota, identifier), _rank(rule))
    cache = _BUILT_IN[envelope]
    if len(cache) < 4096 and len(identifier) <= _MAX_IDENTIFIER:
        cache[identifier] = found
    return found


_UNRANKED = len(RANKS)
"""A rank below every rule's."""


def _rank(rule: Rule) -> int:
    """A rule's place in the precedence order (SPEC A.6): lower wins."""
    return RANKS[(rule.code, rule.quota)]


def identifiers_verdict(
    identifiers: Iterable[object], layers: tuple[RuleSet, ...], *, envelope: bool
) -> Verdict | None:
    """The best-ranked known identifier (ties: the first in reading order); at most 64."""
    best: Verdict | None = None
    best_rank = _UNRANKED
    if type(identifiers) is not tuple or len(identifiers) > MAX_IDENTIFIERS:
        identifiers = tuple(itertools.islice(identifiers, MAX_IDENTIFIERS))
    if not layers:
        # The built-in tables alone: each identifier's reading is looked up once per process.
        cache = _BUILT_IN[envelope]
        for identifier in identifiers:
            found = cache.get(identifier, _UNSEEN) if type(identifier) is str else None
            if found is _UNSEEN:
                assert isinstance(identifier, str)
                found = _built_in(identifier, envelope)
            if found is not None and found[1] < best_rank:  # ties: the first in reading order
                best, best_rank = found
        return best
    for identifier in identifiers:
        rule = lookup(identifier, layers, envelope=envelope)
        if rule is not None:
            order = _rank(rule)
            if order < best_rank:  # ties: the first in reading order
                assert isinstance(identifier, str)
                best, best_rank = _verdict(rule, identifier), order
    return best


def document_verdict(signals: Signals, layers: tuple[RuleSet, ...]) -> Verdict | None:
    """An envelope's reading of a body (SPEC B.2): its identifiers and user rules decide, and
    only when none is known, its generic identifiers (Google's canonical ``error.status``)."""
    best = _user_evidence(signals, signals.messages, layers)
    best = _better(identifiers_verdict(signals.identifiers, layers, envelope=True), best)
    if best is None:
        best = identifiers_verdict(signals.generic, layers, envelope=True)
    return best


def _user_evidence(
    signals: Signals, texts: Iterable[str], layers: tuple[RuleSet, ...]
) -> Verdict | None:
    """What the user's phrase and field rules say of a body: structured evidence."""
    if not layers:
        return None
    best = field_verdict(signals.document, layers)
    for layer in layers:
        best = _better(_user_phrases(layer, texts), best)
    return best


def _user_phrases(layer: RuleSet, texts: Iterable[str]) -> Verdict | None:
    if not layer.phrases:
        return None
    lowered = _lowered(texts)
    best: Verdict | None = None
    for rule in layer.phrases:
        if any(str(rule.key) in text for text in lowered):
            found = Verdict(rule.code, rule.quota, str(rule.match), source="phrase", user=True)
            best = _better(found, best)
    return best


def field_verdict(document: object, layers: tuple[RuleSet, ...]) -> Verdict | None:
    """The best user field rule that matches a JSON object (SPEC A.11)."""
    if not isinstance(document, dict):
        return None
    best: Verdict | None = None
    for layer in layers:
        for rule in layer.fields:
            if _field_matches(document, str(rule.key), rule.value):
                found = Verdict(rule.code, rule.quota, str(rule.key), source="field", user=True)
                best = _better(found, best)
    return best


def _field_matches(document: dict[str, Any], path: str, expected: object) -> bool:
    value: object = document
    for step in path.split("."):
        if not isinstance(value, dict):
            return False
        value = value.get(step)
    if isinstance(expected, str):
        return isinstance(value, str) and _key(value[:_MAX_IDENTIFIER]) == normalise(expected)
    if isinstance(expected, bool) or isinstance(value, bool):
        return value is expected
    return type(value) is int and value == expected


def _lowered(texts: Iterable[object]) -> list[str]:
    lowered = []
    for text in texts:
        if isinstance(text, str) and text:
            window = text[:SCAN_WINDOW]
            lowered.append(ascii_lower(window))
    return lowered


def _contains(texts: list[str], phrases: tuple[str, ...]) -> str | None:
    """The first of ``phrases`` found in ``texts``, or None."""
    # A handful of literals: substring tests beat one alternation's scan of every position.
    for text in texts:
        for phrase in phrases:
            if phrase in text:
                return phrase
    return None


def phrase_verdict(texts: Iterable[object], layers: tuple[RuleSet, ...]) -> Verdict | None:
    """Envelope phrases (SPEC B.2): user phrases, nearest scope first, then the first row of
    the built-in table found in any text."""
    lowered = _lowered(texts)
    if not lowered:
        return None
    for layer in layers:
        found = _user_phrases(layer, lowered)
        if found is not None:
            return found
    for rule in INDEX.envelope_phrases:
        if any(str(rule.key) in text for text in lowered):
            return Verdict(rule.code, rule.quota, str(rule.key), source="phrase")
    return None


# Quota names (Google QuotaFailure, ErrorInfo metadata) tell a rate from an allowance.
_LONG_PERIOD = ("perday", "daily", "permonth", "monthly", "peryear")
_SHORT_PERIOD = ("persecond", "perminute", "per100seconds", "perhour")
_QUOTA = Verdict(Code.UNAUTHORIZED, True, source="quota names")
_THROTTLED = Verdict(Code.RATE_LIMITED, False, source="quota names")
_THROTTLED_GENERAL = Verdict(
    Code.RATE_LIMITED, False, general=True, source="general evidence of a short window"
)
_PHRASE_STATUSES = frozenset({400, 402, 403, 429})
_RATE_PHRASE_STATUSES = frozenset({400, 403})
_NOT_ALNUM = re.compile("[^A-Za-z0-9]+")
_QUOTA_PHRASES = tuple(str(r.key) for r in INDEX.http_phrases if r.quota)
_RATE_PHRASES = tuple(str(r.key) for r in INDEX.http_phrases if r.code is Code.RATE_LIMITED)


def quota_period(names: tuple[str, ...], has_retry_info: bool) -> Verdict:
    """SPEC A.5: a quota that resets within the hour is a rate limit; others need a human."""
    periods = [_period(name) for name in names]
    if _LONG in periods:
        return _QUOTA
    if has_retry_info or _SHORT in periods:
        return _THROTTLED
    return _QUOTA  # an allowance (VMs per project, free tier): someone must raise it


_LONG, _SHORT, _NONE = 2, 1, 0
_PERIODS: BoundedCache[str, int] = BoundedCache(4096)


def _period(name: str) -> int:
    """Whether a quota name speaks of a long period, a short one, or none (long first)."""
    # Cached as identifiers are: quota names are a provider's fixed vocabulary.
    found = _PERIODS.get(name)
    if found is None:
        squeezed = _NOT_ALNUM.sub("", name).lower()  # not cut at 128
        if any(p in squeezed for p in _LONG_PERIOD):
            found = _LONG
        elif any(p in squeezed for p in _SHORT_PERIOD):
            found = _SHORT
        else:
            found = _NONE
        if len(name) <= _MAX_IDENTIFIER:
            _PERIODS.remember(name, found)
    return found


def http_verdict(
    status: int,
    signals: Signals,
    header_identifier: str | None,
    retry_after: float | None,
    layers: tuple[RuleSet, ...],
    *,
    table: Code | None = None,
    plain_text: str | None = None,
) -> Verdict | None:
    """The reading of a failed response's body and identifier header (SPEC A.3–A.5, A.11).

    ``plain_text`` is a body without JSON or XML structure, read as its only message by the
    user phrases and general evidence (not by the built-in phrases of SPEC A.4).
    """
    texts: tuple[str, ...] = signals.messages or ((plain_text,) if plain_text else ())
    best = identifiers_verdict(signals.identifiers, layers, envelope=False)
    if layers:
        best = _better(best, _user_evidence(signals, texts, layers))
    if header_identifier is not None:
        rule = lookup(header_identifier, layers, envelope=False)
        if rule is not None:
            found = _verdict(rule, header_identifier, "header x-amzn-errortype")
            best = _better(found, best)
    if signals.quota_names is not None:
        best = _better(quota_period(signals.quota_names, signals.retry_delay is not None), best)
    # Phrases (SPEC A.4) are weaker than structure. A quota phrase may only sharpen a rate
    # limit (Anthropic's spend limits arrive as rate_limit_error) and yields to quota facts,
    # RetryInfo and a server that says to come back within the hour; a rate phrase counts
    # only when nothing else spoke (a ValidationException about a throttle setting).
    if best is not None and best.code is not Code.RATE_LIMITED:
        return best  # structure spoke; no phrase can change it (nor is lowering needed)
    lowered = _lowered(signals.messages) if signals.messages else []
    if (
        signals.quota_names is None
        and signals.retry_delay is None
        and (retry_after is None or retry_after > LONG_WAIT)
        and status in _PHRASE_STATUSES
        and lowered
    ):
        phrase = _contains(lowered, _QUOTA_PHRASES)
        if phrase is not None:
            best = _better(Verdict(Code.UNAUTHORIZED, True, phrase, source="phrase"), best)
    if (
        best is None
        and status in _RATE_PHRASE_STATUSES
        and lowered
        and not _generic_invalid(signals.generic, layers)
    ):
        phrase = _contains(lowered, _RATE_PHRASES)
        if phrase is not None:
            best = Verdict(Code.RATE_LIMITED, False, phrase, source="phrase")
    if best is None and signals.generic:
        best = identifiers_verdict(signals.generic, layers, envelope=False)
        if best is not None:
            best = best._replace(generic=True, source="generic identifier")
    if best is None:
        identifiers = (*signals.identifiers, *signals.generic)
        if header_identifier is not None:
            identifiers = (*identifiers, header_identifier)
        general = (
            general_verdict(texts, identifiers, lowered=lowered or None)
            if _may_move(status, table)
            else None
        )
        if general is not None and _general_allowed(status, table, general, retry_after):
            best = general
    return best


# --- general evidence (SPEC A.12) -----------------------------------------------------


def _alternation(keys: Iterable[str]) -> str:
    """One pattern matching any key, longest first at a position, written as a trie (``ab``,
    ``abc`` → ``ab(?:c)?``) so that the regex engine branches on each character instead of
    trying every key in turn: the same leftmost-longest matches, in time that does not grow
    with the number of keys."""
    trie: dict[str, Any] = {}
    for key in set(keys):
        node = trie
        for char in key:
            node = node.setdefault(char, {})
        node[""] = {}  # the end of a key
    return _branches(trie)


def _branches(node: dict[str, Any]) -> str:
    ends = "" in node
    children = [re.escape(c) + _branches(sub) for c, sub in sorted(node.items()) if c]
    if not children:
        return ""
    body = children[0] if len(children) == 1 else f"(?:{'|'.join(children)})"
    if not ends:
        return body
    return f"(?:{body})?" if len(children) > 1 or len(body) > 1 else f"{body}?"


GENERAL_PHRASES = {str(rule.key): rule for rule in INDEX.general_phrases}
"""SPEC A.12's general phrases, by phrase."""
_GENERAL_FRAGMENTS = {str(rule.key): rule for rule in INDEX.general_fragments}
_WORD_EDGE = re.compile("[a-z0-9]")
# A phrase counts at a word start: after a character outside a-z0-9, or at the start. Found
# as "one such character, then the phrase" in the text behind a space, which lets the regex
# engine skip to the next separator instead of trying the phrases at every position. The
# same matches as a look-behind while no phrase ends outside a-z0-9 (a match then never ends
# on the separator the next one needs); otherwise the look-behind form is used.
_WORD_LEAD = " " if all(_WORD_EDGE.fullmatch(phrase[-1]) for phrase in GENERAL_PHRASES) else ""


# The phrase and fragment patterns are built on first use: their alternations hold several
# hundred phrases, and compiling them at import would cost as much as importing the modules
# a client imports beside agenterr (issue 22's import rail).
@cache
def _general_words() -> re.Pattern[str]:
    phrases = _alternation(GENERAL_PHRASES)
    return re.compile(rf"[^a-z0-9]({phrases})" if _WORD_LEAD else rf"(?<![a-z0-9])({phrases})")


@cache
def _general_parts() -> re.Pattern[str]:
    return re.compile(_alternation(_GENERAL_FRAGMENTS))


_SHORT_WINDOW = re.compile(
    r"(?:(?<![a-z0-9])(?:per|a|each|every)[ -]|/ ?)(?:second|sec|minute|min|hour)(?![a-z0-9])|"
    r"(?<![a-z0-9])(?:per 100 seconds|requests per|rpm|tpm|rps)(?![a-z0-9])"
)
"""Words that make a quota a short window: "quota exceeded … per minute" is a rate limit."""
_IDENTIFIER_SHAPED = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
"""A message that is itself an error code (Firebase's ``"message": "EMAIL_NOT_FOUND"``)."""
_BY_PHRASE = {
    k: Verdict(r.code, r.quota, k, True, source="general evidence", word=k)
    for k, r in GENERAL_PHRASES.items()
}
_BY_FRAGMENT = {
    k: Verdict(
        r.code, r.quota, None, True, source=f"general evidence, identifier part '{k}'", word=k
    )
    for k, r in _GENERAL_FRAGMENTS.items()
}


_ACCOUNT_STATUSES = (500, 507)
"""5xx statuses that claim no passing condition, on which a quota, balance or suspension
still speaks (SPEC A.12): 502, 503 and 504 say the server is temporarily unable."""


def _may_move(status: int, table: Code | None) -> bool:
    """Whether general evidence could move this status at all (see _general_allowed)."""
    return (
        (400 <= status <= 499 and status != 401) or status in _ACCOUNT_STATUSES
    ) and table is not None


def general_verdict(
    texts: Iterable[object], identifiers: Iterable[object], *, lowered: list[str] | None = None
) -> Verdict | None:
    """What general evidence says (SPEC A.12): the best-ranked phrase found at a word start
    in the texts (each cut to the scan window, A-Z lowered; ``lowered`` when the caller has
    them already) or fragment found in the normalised identifiers; a quota reading becomes a
    rate limit when the texts speak of a window of seconds, minutes or an hour."""
    if lowered is None:
        lowered = _lowered(texts)
    best: Verdict | None = None
    for text in lowered:
        subject = _WORD_LEAD + text
        words = _general_words()
        match = words.search(subject)  # most messages hold none: no iterator built
        echoes: _Echoes | None = None
        while match is not None:
            if echoes is None:
                echoes = _Echoes(subject)
            if not echoes.around(match.start(1)):
                best = _better(_BY_PHRASE[match.group(1)], best)
            match = words.search(subject, match.end())
    # A message that is one identifier has no space in its first 128 characters.
    shaped = [
        t
        for t in texts
        if isinstance(t, str) and t.find(" ", 0, 128) < 0 and _IDENTIFIER_SHAPED.fullmatch(t[:128])
    ]
    for identifier in itertools.islice(itertools.chain(identifiers, shaped), MAX_IDENTIFIERS):
        if isinstance(identifier, str):
            best = _better(_fragments_verdict(_key(identifier)), best)
    account = _account_verdict(lowered)
    if account is not None:
        # A concept outranks one common word it contains ("credits exhausted")
        common = best is not None and best.word in COMMON_WORDS
        best = account if common else _better(account, best)
    if best is not None and best.quota and _short_window(lowered):
        return _THROTTLED_GENERAL
    return best


# Account concepts (SPEC 11.12): an allowance of the account and a word saying it is spent
# ("Your subscription has expired", "Credits exhausted", "not enough balance"), or a holder
# of the account and a word saying it is held ("Organization has been suspended"), within
# one clause of 40 characters at most. Words, not phrases: the providers' wordings vary.
# Not "quota": a quota exceeded is as often a per-minute one (DashScope's 429), which the
# quota facts and phrases of 11.2-11.5 tell apart.
_ALLOWANCE = (
    r"subscription|free trial|trial|budget|credits?|balance|billing|invoices?|"
    r"spend(?:ing)? (?:cap|limit)|(?:your|the) plan|plan(?:'s)? limits?"
)
_SPENT = (
    r"expired|exceeded|exhausted|ended|insufficient|overdue|past due|depleted|used up|"
    r"r[au]n out|reached"
)
_LACKING = r"no|zero|not enough|out of"
_HOLDER = r"account|organi[sz]ation|org|workspace|team|project|api access|api key|subscription"
_HELD = r"suspended|deactivated|disabled|banned|blocked"
_CLAUSE = r"[^.;!?\n]{0,40}?"
# Credential concepts (SPEC 11.12, 3.6): a credential the caller presents and a word saying
# the server refused it, either way round ("access_token is invalid or not latest", "invalid
# credential", "the provided credentials could not be validated"). Not a bare "token": a
# model's tokens and a parser's "unexpected token" are no credential; not "failed" or
# "wrong" either, which a tool's own report ("failed: run --api_key …") or a server's
# ("something went wrong while checking your API key") holds; and not a credential word that
# starts a longer name ("access_key_id must be 20 characters" is about an argument).
_CREDENTIAL = (
    r"access[ _-]?tokens?|access[ _-]?keys?|auth(?:entication|orization)?[ _-]?tokens?|"
    r"bearer[ _-]?tokens?|refresh[ _-]?tokens?|api[ _-]?(?:keys?|tokens?|secrets?)|"
    r"secret[ _-]?(?:keys?|ids?)|app[ _-]?(?:secrets?|keys?)|client[ _-]?secrets?|"
    r"credentials?"
)
_REFUSED = (
    r"invalid|expired|not valid|no longer valid|incorrect|revoked|missing|illegal|"
    r"could not be (?:validated|verified)|not recogni[sz]ed|mismatch(?:ed)?|does not match"
)
_ACCOUNT = (
    rf"(?<![a-z0-9])(?:(?:{_ALLOWANCE})(?![a-z0-9]){_CLAUSE}(?<![a-z0-9])(?:{_SPENT})"
    rf"|(?:{_SPENT}|{_LACKING})(?![a-z0-9]){_CLAUSE}(?<![a-z0-9])(?:{_ALLOWANCE})"
    rf"|(?:{_HOLDER})(?![a-z0-9]){_CLAUSE}(?<![a-z0-9])(?P<held>{_HELD}))(?![a-z0-9])"
)
_REFUSAL = (
    rf"(?<![a-z0-9])(?:(?:{_CREDENTIAL})(?![a-z0-9_]){_CLAUSE}(?<![a-z0-9])(?:{_REFUSED})"
    rf"|(?:{_REFUSED})(?![a-z0-9]){_CLAUSE}(?<![a-z0-9])(?:{_CREDENTIAL})(?![a-z0-9_]))"
    r"(?![a-z0-9])"
)
_ACCOUNT_WORDS = (
    *("subscription", "trial", "budget", "credit", "balance", "billing", "invoice", "spend"),
    *("plan", "suspended", "deactivated", "disabled", "banned", "blocked"),
)
"""Substrings every match of _ACCOUNT holds (an allowance, or a held account's word): its
pattern runs only where one occurs, as _REFUSAL's does."""
_CREDENTIAL_WORDS = ("token", "key", "secret", "credential")
"""Substrings every match of _REFUSAL holds: its pattern runs only where one occurs (a
window of JSON full of "invalid" would otherwise try every credential after each one)."""


@cache
def _account() -> re.Pattern[str]:
    return re.compile(_ACCOUNT)


@cache
def _refusal() -> re.Pattern[str]:
    return re.compile(_REFUSAL)


_SPENT_ALLOWANCE = Verdict(
    Code.UNAUTHORIZED, True, None, True, source="general evidence, an allowance spent"
)
_HELD_ACCOUNT = Verdict(
    Code.UNAUTHORIZED, False, None, True, source="general evidence, an account held"
)
_REFUSED_CREDENTIAL = Verdict(
    Code.UNAUTHORIZED, False, None, True, source="general evidence, a credential refused"
)


def _account_verdict(lowered: list[str]) -> Verdict | None:
    """An account or credential concept in the texts (outside echoes), the spent allowance
    first."""
    best: Verdict | None = None
    for text in lowered:
        echoes: _Echoes | None = None  # found once, at the first match
        spoken = any(word in text for word in _ACCOUNT_WORDS)
        for match in _account().finditer(text) if spoken else ():
            if echoes is None:
                echoes = _Echoes(text)
            if echoes.around(match.start()):
                continue
            found = _HELD_ACCOUNT if match.group("held") else _SPENT_ALLOWANCE
            best = _better(found, best)
        if not any(word in text for word in _CREDENTIAL_WORDS):
            continue
        for match in _refusal().finditer(text):
            if echoes is None:
                echoes = _Echoes(text)
            if not echoes.around(match.start()):
                best = _better(_REFUSED_CREDENTIAL, best)
    return best


_ECHO = re.compile(
    r"'(?<!:')(?<!: ')(?<![a-z0-9]')[^'\n]{1,200}'(?![a-z0-9])"
    r"|\"(?<!:\")(?<!: \")[^\"\n]{1,200}\""
    r"|`(?<!:`)(?<!: `)[^`\n]{1,200}`"
)
"""A quoted value in a message: a name or value the API repeats from the request. A quote
right after a colon is a mapping's value (``{'error': 'invalid api key'}`` relayed as text),
the API's own words, and not an echo. SPEC 11.12's pattern with each look-behind moved after
the quote it guards: the same matches, but every branch starts with its quote, so the regex
engine skips from quote to quote instead of testing look-behinds at every position (about
three times faster on a window of JSON)."""


class _Echoes:
    """The quoted values in one text (SPEC 11.12: an echo is not evidence), but not a quote
    around the whole message, which is the message itself; asked by position."""

    __slots__ = ("ends", "starts")

    def __init__(self, text: str) -> None:
        whole = (len(text) - len(text.lstrip()), len(text.rstrip()))
        spans = [m.span() for m in _ECHO.finditer(text) if m.span() != whole]
        self.starts = [start for start, _ in spans]
        self.ends = [end for _, end in spans]

    def around(self, at: int) -> bool:
        """Whether ``at`` lies strictly inside a quoted value. The spans are in order and
        never overlap, so only the last one starting before ``at`` can hold it: a window
        full of quoted names costs a binary search per match, not a scan of every quote."""
        index = bisect.bisect_left(self.starts, at) - 1
        return index >= 0 and at < self.ends[index]


COMMON_WORDS = frozenset({"busy", "credits", "lock", "locked", "timeout"})
"""General evidence too common to move a failed status's class on its own (SPEC 11.12): a
field, file or resource is named so as often as a condition is (``Movie credits not found``,
``File 'lock' …``). It still gives the code where no status row spoke (an envelope)."""


def moves_alone(verdict: Verdict) -> bool:
    """Whether ``verdict`` may change a failed status's class: anything but general
    evidence that is one common word, as a phrase or as an identifier's part
    (``team_locked``)."""
    return not (verdict.general and verdict.word in COMMON_WORDS)


_BY_KEY: BoundedCache[str, Verdict | None] = BoundedCache(4096)


def _fragments_verdict(key: str) -> Verdict | None:
    """The best-ranked fragment in a normalised identifier (the first of equal rank)."""
    # Cached as _key is: identifiers are a small vocabulary that repeats across calls.
    if key in _BY_KEY:
        return _BY_KEY[key]
    best: Verdict | None = None
    for match in _general_parts().finditer(key):
        best = _better(_BY_FRAGMENT[match.group()], best)
    if len(key) <= _MAX_IDENTIFIER:
        _BY_KEY.remember(key, best)
    return best


_SHORT_WORDS = ("sec", "min", "hour", "requests per", "rpm", "tpm", "rps")
"""Substrings every match of _SHORT_WINDOW holds: the pattern runs only where one occurs."""


def _short_window(lowered: list[str]) -> bool:
    for text in lowered:
        for word in _SHORT_WORDS:
            if word in text:
                if _SHORT_WINDOW.search(text):
                    return True
                break
    return False


def _general_allowed(
    status: int, table: Code | None, verdict: Verdict, retry_after: float | None
) -> bool:
    """Where general evidence may move an HTTP failure (SPEC A.12). Never a 401 (it already
    says credentials), a 1xx or 3xx; a quota reading not when the server asked to come back
    within the hour. Otherwise by the class the status already gives: a self-correctable
    failure may move anywhere; an auth failure (403, 402, …) only to a transient reading, to
    the quota wording, or to a content-policy block; a transient 4xx (408, 423, …) only to
    the auth class; a 429 only to a quota. A 5xx is the server's own failure: its words are
    evidence only of the account (a quota, a balance, a suspension: no retry helps), and
    only on a 500 or 507."""
    if status == 401 or table is None:
        return False
    if verdict.quota and retry_after is not None and retry_after <= LONG_WAIT:
        return False
    if status in _ACCOUNT_STATUSES:
        return verdict.code is Code.UNAUTHORIZED
    if not 400 <= status <= 499:
        return False
    if status == 429:
        return verdict.quota
    if table.class_ is Class.SELF_CORRECTABLE:
        return True
    if table.class_ is Class.AUTH:
        return (
            verdict.code.class_ is Class.TRANSIENT
            or verdict.quota
            or verdict.shown in CONTENT_POLICY
        )
    if table.class_ is Class.TRANSIENT:
        return verdict.code.class_ is Class.AUTH
    return False


def _generic_invalid(generic: tuple[str, ...], layers: tuple[RuleSet, ...]) -> bool:
    for identifier in generic:
        rule = lookup(identifier, layers, envelope=False)
        if rule is not None and rule.code is Code.INVALID_REQUEST:
            return True
    return False


# --- delays ------------------------------------------------------------------------------

_DATE = "date"
_RATELIMIT_RESET = re.compile(r"(?:^|[;, \t])(?:reset|t)=([^;, \t]*)")
_EPOCH_FLOOR = 1_000_000_000
"""An X-RateLimit-Reset at or above this (September 2001) is a Unix time, below it a delay."""
_EPOCH_FLOOR_MS = 1_000_000_000_000
"""… and at or above this, a Unix time in milliseconds (no delay in seconds is that long)."""
_NUMBER = re.compile(r"[0-9]{1,20}(?:\.[0-9]{1,9})?\Z")


def header_delay(view: HeaderView, now: Clock) -> float | None:
    """The Retry-After family (SPEC 5), an HTTP-date measured by the response's Date
    (SPEC A.8, step 1)."""
    clock = server_clock(view, now) if view.get(_DATE) is not None else now
    return retry_after_from_headers(view, now=clock)


def long_wait(code: Code, quota: bool, delay: float | None) -> tuple[Code, bool, float | None]:
    """SPEC A.7: a rate limit asking for a wait longer than LONG_WAIT is a quota."""
    if code is Code.RATE_LIMITED and delay is not None and delay > LONG_WAIT:
        return Code.UNAUTHORIZED, True, None
    return code, quota, delay


def server_clock(view: HeaderView, now: Clock) -> float:
    """The server's clock when it stated a time: its Date header, else ``now``."""
    date = view.get(_DATE)
    if date is not None:
        epoch = http_date_epoch(date.strip(" \t"), now_seconds(now))
        if epoch is not None:
            return epoch
    try:
        return now_seconds(now)
    except Exception:
        return math.nan  # an unusable clock: no time-of-day delay can be measured


def delay_after(
    view: HeaderView, retry_delay: float | None, now: Clock, *, rate_limited: bool
) -> float | None:
    """The delay from the sources after the Retry-After family (SPEC A.8); first wins.

    A rate-limit window's reset is the delay of a rate limit only: GitHub and others send
    it on every response, and a 502 is not fixed by waiting for the window.
    """
    raw = view.get("x-amz-retry-after")
    if raw is not None:
        seconds = parse_retry_after(raw, milliseconds=True)
        if seconds is not None:
            return seconds
    if retry_delay is not None:
        return retry_delay
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
    whole = int(text.partition(".")[0])
    if whole >= _EPOCH_FLOOR_MS:
        value = value / 1000 - server_clock(view, now)  # OpenRouter sends milliseconds
    elif whole >= _EPOCH_FLOOR:
        value -= server_clock(view, now)
    if not math.isfinite(value):
        return None
    return max(0.0, min(value, RETRY_AFTER_CEILING))
