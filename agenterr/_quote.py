"""The quoting of untrusted API text: the one cleaning and redaction gate.

API text reaches a model's context and logs, so before it is quoted it is cut to a bounded
window, decoded leniently, stripped of control, ANSI-escape, bidi, format and zero-width
characters, folded onto one line, scrubbed of credential-looking substrings and capped. Every
step works on the window, never on the whole body, so a 100 MB body costs what 8 KiB costs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator

__all__ = [
    "REDACTED",
    "SCAN_WINDOW",
    "SNIPPET_CAP",
    "SPACE",
    "TRUNCATED",
    "clean",
    "snippet",
]

SNIPPET_CAP = 500
"""Most characters of API text quoted in a hint, before the truncation marker."""
SCAN_WINDOW = 8192
"""Most characters (or bytes) of a body looked at; text past it is never read."""
TRUNCATED = "…[truncated]"
"""Appended when quoted text was cut."""
REDACTED = "[REDACTED]"
"""Replaces anything that looks like a credential."""

# C0/C1 controls (tab, newline and carriage return are folded as white space instead),
# the soft hyphen, bidi marks, embeddings, overrides and isolates, zero-width characters,
# the BOM, interlinear annotations, variation selectors and Unicode tag characters: none
# of them belongs in a one-line quote, and each can hide or disguise text from a reader
# (tag characters are a known way to smuggle instructions to a model). Lone surrogates
# (from surrogateescape decoding or JSON escapes) cannot be written as UTF-8 at all.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufe00-\ufe0f\ufeff\ufff9-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# ANSI escape sequences: CSI (ESC [ or the C1 byte U+009B, parameters, final byte), OSC
# (ESC ] ... BEL or ST), then any other two-character escape.
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*+[ -/]*+[@-~]|\x1b\][^\x07\x1b]{0,512}+(?:\x07|\x1b\\)?|\x1b[@-_]?"
)
_ESCAPES = re.compile("[\x1b\x9b]")
# White space is listed, not left to a regex engine's idea of \s, so that ports agree.
SPACE = re.compile("[\t\n\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
# A credential cut in half by the scan window must not survive as a visible prefix: the
# run of these characters at a cut is dropped (str.rstrip, linear, unlike an anchored regex).
_CUT_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./+=:~"

# Keys whose value is a secret whatever it looks like, and the two that are also common
# words in error prose ("token: expired"), whose bare values must look generated.
_STRONG_KEYS = (
    r"password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|"
    r"access[_-]?key|secret[_-]?key|private[_-]?key|access[_-]?token|auth[_-]?token|"
    r"refresh[_-]?token|id[_-]?token|session[_-]?token"
)
_WORD_KEYS = r"token|authorization"
_SECRET_KEYS = f"{_STRONG_KEYS}|{_WORD_KEYS}"
_TOKEN_CHARS = r"[A-Za-z0-9\-._~+/]"
_NON_DIGIT_TOKEN_CHARS = r"[A-Za-z\-._~+/]"
# A credential after an auth scheme: 8+ token characters with a digit, or 24+ without
# one (so prose such as "Basic authentication required" is left alone). Every quantifier
# is possessive and every run ends where its class ends, so no match attempt backtracks
# over a run: the cost is linear in the text (a test times each pattern on repetitions).
_CREDENTIAL = (
    rf"(?:(?={_NON_DIGIT_TOKEN_CHARS}*+[0-9]){_TOKEN_CHARS}{{8,}}+|{_TOKEN_CHARS}{{24,}}+)=*+"
)
# An unquoted value: up to the next separator, unless it is an auth scheme (rule 1
# handles those) or an earlier redaction.
_BARE_VALUE = r"""(?!(?:bearer|basic|token)(?:\s|\Z))(?!\[REDACTED\])[^\s"'&,;}\]]+"""
_QUOTED_VALUE = r""""[^"]*"?|'[^']*'?"""


def _key(keys: str, separator: str) -> str:
    return rf"""(["']?\b(?:{keys})\b["']?\s*{separator}\s*)"""


class _Rule:
    """One redaction: a pattern, its replacement, and literals one of which any match
    contains — a cheap test that skips the pattern on text that cannot match (lower-case
    literals are looked for in the lower-cased text, the rest as they are)."""

    __slots__ = ("fold", "keeps", "literals", "pattern", "replacement")

    def __init__(self, pattern: str, replacement: str | None, literals: tuple[str, ...]) -> None:
        self.pattern = re.compile(pattern)
        self.replacement = replacement
        self.literals = literals
        self.fold = all(lit == lit.lower() for lit in literals)
        self.keeps = "keep" in self.pattern.groupindex

    def replace(self, match: re.Match[str]) -> str:
        if self.keeps and match.group("keep") is not None:
            return match.group(0)
        if self.replacement is None:
            return _redact_pair(match)
        return match.expand(self.replacement)

    def applies(self, text: str, lowered: str) -> bool:
        haystack = lowered if self.fold else text
        return any(lit in haystack for lit in self.literals)


# Literals that every match of a rule contains (each key of _STRONG_KEYS / _SECRET_KEYS
# contains one of these; "[REDACTED]" contains none, so earlier rules cannot add any).
_SCHEME_WORDS = ("bearer", "basic", "token")
_STRONG_WORDS = ("pass", "pwd", "secret", "key", "token")
_SECRET_WORDS = (*_STRONG_WORDS, "authorization")

# (pattern, replacement) — each names the credential shape it targets. All patterns are
# ASCII-only ((?a)) so that \b and (?i) mean the same in every port. A replacement of
# None keeps the key and the value's quotes and redacts the value (_redact_pair).
_REDACTIONS: tuple[_Rule, ...] = (
    # Authorization schemes: "Bearer <token>", "Basic <base64>", "Token <token>".
    _Rule(rf"(?ai)\b(bearer|basic|token)\s+{_CREDENTIAL}", rf"\1 {REDACTED}", _SCHEME_WORDS),
    # key=value (query strings, env files, code): any value.
    _Rule(rf"(?ai){_key(_SECRET_KEYS, '=')}(?:{_QUOTED_VALUE}|{_BARE_VALUE})", None, _SECRET_WORDS),
    # "key": "value" and key: 'value' (JSON, YAML): the quoted value, spaces and all.
    _Rule(rf"(?ai){_key(_SECRET_KEYS, ':')}(?:{_QUOTED_VALUE})", None, _SECRET_WORDS),
    # password: value, api_key: value … — any bare value: a password can be a plain word.
    _Rule(rf"(?ai){_key(_STRONG_KEYS, ':')}(?:{_BARE_VALUE})", None, _STRONG_WORDS),
    # token: value, authorization: value — a bare value only when it looks generated, so
    # prose such as "the token: is invalid" or "token: expired" survives.
    _Rule(
        rf"(?ai){_key(_WORD_KEYS, ':')}(?:{_CREDENTIAL})(?![^\s\"'&,;}}\]])",
        None,
        ("token", "authorization"),
    ),
    # JSON Web Tokens: three base64url segments, the first one a JSON object. When the
    # segments do not follow an "eyJ", the rest of its run is consumed and kept as it is:
    # no later "eyJ" in that run can start a token either, and retrying from each one
    # ("eyJ-eyJ-…") would rescan the run every time, quadratic in its length.
    _Rule(
        r"(?<![A-Za-z0-9_])eyJ(?:[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]*+"
        r"|(?P<keep>[A-Za-z0-9_-]*+))",
        REDACTED,
        ("eyJ",),
    ),
    # OpenAI and Anthropic keys (sk-…, sk-proj-…, sk-ant-…).
    _Rule(r"(?a)\bsk-[A-Za-z0-9_\-]{16,}", REDACTED, ("sk-",)),
    # Stripe secret and restricted keys.
    _Rule(r"(?a)\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}", REDACTED, ("k_live_", "k_test_")),
    # AWS access key ids.
    _Rule(
        r"(?a)\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[0-9A-Z]{16}\b",
        REDACTED,
        ("AKIA", "ASIA", "ABIA", "ACCA", "AIDA", "AROA"),
    ),
    # GitHub tokens, classic and fine-grained.
    _Rule(
        r"(?a)\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        REDACTED,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    # Slack tokens.
    _Rule(r"(?a)\bxox[abprse]-[A-Za-z0-9\-]{10,}", REDACTED, ("xox",)),
    # Google API keys.
    _Rule(r"(?a)\bAIza[0-9A-Za-z_\-]{30,}", REDACTED, ("AIza",)),
)


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    return data.decode("utf-8", "replace")


class _Bounded(Exception):
    """Stops the JSON encoder once the scan window is full."""


_MAX_JSON_DEPTH = 100


def _json_chunks(value: object, depth: int, stack: set[int]) -> Iterator[str]:
    """Compact JSON of ``value``, lazily, with every string cut to the window's length.

    Like ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` up to the window,
    but a single huge string (a base64 blob in a parsed body) costs O(window), not O(len).
    Unknown objects become ``"<TypeName>"``; a cycle or excessive depth ends the text.
    """
    if isinstance(value, str):
        yield json.dumps(value[: SCAN_WINDOW + 1], ensure_ascii=False)
    elif value is None or isinstance(value, (bool, int, float)):
        yield json.dumps(value)
    elif isinstance(value, (dict, list, tuple)):
        if depth > _MAX_JSON_DEPTH or id(value) in stack:
            raise _Bounded
        stack.add(id(value))
        if isinstance(value, dict):
            yield "{"
            for index, (key, item) in enumerate(value.items()):
                if isinstance(key, str):
                    name = key[: SCAN_WINDOW + 1]
                elif key is None or isinstance(key, (bool, int, float)):
                    name = json.dumps(key)
                else:
                    name = f"<{type(key).__name__}>"
                yield ("," if index else "") + json.dumps(name, ensure_ascii=False) + ":"
                yield from _json_chunks(item, depth + 1, stack)
            yield "}"
        else:
            yield "["
            for index, item in enumerate(value):
                if index:
                    yield ","
                yield from _json_chunks(item, depth + 1, stack)
            yield "]"
        stack.discard(id(value))
    else:
        yield json.dumps(f"<{type(value).__name__}>")


def _json_window(value: object) -> str:
    """At most a little more than the window of ``value``'s compact JSON (never raises)."""
    parts: list[str] = []
    size = 0
    try:
        for chunk in _json_chunks(value, 0, set()):
            parts.append(chunk)
            size += len(chunk)
            if size > SCAN_WINDOW:
                break
    except Exception:
        pass  # a cycle, a hostile container or a huge integer: keep what was written
    return "".join(parts)


def _window(body: object) -> tuple[str, bool]:
    """Up to SCAN_WINDOW characters of ``body`` as text, and whether there was more."""
    try:
        text, more = _window_of(body)
    except Exception:
        return "", False  # a hostile object (a str subclass that raises, a freed buffer)
    # A plain str from here on: subclasses could override slicing, and lone surrogates
    # cannot be written as UTF-8.
    return str.__str__(text) if type(text) is not str else text, more


def _window_of(body: object) -> tuple[str, bool]:
    if body is None:
        return "", False
    if isinstance(body, str):
        return body[:SCAN_WINDOW], len(body) > SCAN_WINDOW
    if isinstance(body, (bytes, bytearray, memoryview)):
        raw = bytes(memoryview(body)[:SCAN_WINDOW])
        more = len(body) > SCAN_WINDOW
        text = _decode(raw)
        if more and text.endswith("\ufffd"):
            text = text.rstrip("\ufffd")  # a multi-byte character cut by the window
        return text, more
    if isinstance(body, (dict, list, tuple)):
        text = _json_window(body)
    elif isinstance(body, (int, float, bool)):
        finite = not isinstance(body, float) or math.isfinite(body)
        text = json.dumps(body) if finite else ""
    else:
        try:
            text = str(body)
        except Exception:
            return "", False
        if not isinstance(text, str):
            return "", False
    return text[:SCAN_WINDOW], len(text) > SCAN_WINDOW


def _redact_pair(match: re.Match[str]) -> str:
    key, value = match.group(1), match.group(0)[len(match.group(1)) :]
    quote = value[0] if value[:1] in {'"', "'"} else ""
    return f"{key}{quote}{REDACTED}{quote}"


def clean(text: str, cap: int) -> str:
    """Strip, fold, redact and cap one piece of untrusted text (already windowed)."""
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    text = _INVISIBLE.sub("", text)
    # Once the invisible characters are gone, str.split()'s white space is exactly SPACE's
    # set (a test checks it), and split/join folds and trims in one C pass.
    text = " ".join(text.split())
    lowered = text.lower()
    for rule in _REDACTIONS:
        if rule.applies(text, lowered):
            text = rule.pattern.sub(rule.replace, text)
    if len(text) > cap:
        return text[:cap].rstrip() + TRUNCATED
    return text


def snippet(body: object, cap: int = SNIPPET_CAP) -> str:
    """The quotable form of untrusted text: one clean, redacted line of at most ``cap``."""
    if body is None or ((type(body) is str or type(body) is bytes) and not body):
        return ""
    text, more = _window(body)
    if not text:
        return ""
    if len(text) > 2 * cap:
        # Most bodies fill the quote from their first 2*cap characters: clean only up to
        # the last white space there, and look at the rest of the window only when the
        # quote came out short. Nothing but an escape sequence reaches across white space
        # (an OSC title can swallow it and join the text on both sides), so without one
        # this is a prefix of cleaning the whole window, and 100 MB cost what 1 KB does.
        cut = max(text.rfind(space, 0, 2 * cap) for space in " \n\t\r")
        head = text[:cut] if cut > 0 else ""
        quoted = clean(head, cap) if head and not _ESCAPES.search(head) else ""
        if quoted.endswith(TRUNCATED):
            return quoted
    if more:
        # Unless the whole window is one token (then the cap cuts it far earlier anyway).
        text = text.rstrip(_CUT_TOKEN_CHARS) or text
    quoted = clean(text, cap)
    if more and quoted and not quoted.endswith(TRUNCATED):
        quoted += TRUNCATED
    return quoted
