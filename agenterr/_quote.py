"""The quoting of untrusted API text: the one cleaning and redaction gate.

API text reaches a model's context and logs, so before it is quoted it is cut to a bounded
window, decoded leniently, stripped of control, ANSI-escape, bidi, format and zero-width
characters, folded onto one line, scrubbed of credential-looking substrings and capped. Every
step works on the window, never on the whole body, so a 100 MB body costs what 8 KiB costs.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import string
from collections.abc import Callable, Iterator
from functools import cache, cached_property
from typing import NamedTuple

from ._shared import BoundedCache, ascii_lower

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

# C0/C1 controls (tab, newline and carriage return are folded as white space instead), every
# format character (Unicode category Cf: the soft hyphen, bidi marks, embeddings, overrides
# and isolates, zero-width characters, the BOM, prepended concatenation marks, interlinear
# annotations, Egyptian, shorthand and musical format controls, tag characters), the other
# default-ignorable code points (variation selectors, the combining grapheme joiner, Hangul
# fillers, Khmer inherent vowels, Mongolian free variation selectors) and the blank Braille
# pattern: none of them belongs in a one-line quote, and each can hide or disguise text from
# a reader (tag characters are a known way to smuggle instructions to a model). Lone
# surrogates (from surrogateescape decoding or JSON escapes) cannot be written as UTF-8.
INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f"
    "\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u2800\u3164\ud800-\udfff\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
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
CUT_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./+=:~"

# --- redaction --------------------------------------------------------------------------------
#
# Rules 1-5, 17, 18, 20, 21 and 23 are case-insensitive in ASCII only. Rather than (?i),
# which keeps the regex engine from skipping ahead to a pattern's first characters and costs
# several times more, they are written in lower case and searched in an ASCII-lower-cased
# copy of the text (same length, so its spans are the text's spans). A test compares the
# whole fast path (prefilters, the copy, the key-start test) with the plain patterns applied
# in order.

# Keys whose value is a secret whatever it looks like, and the three that are also common
# words in error prose ("token: expired"), whose bare values must look generated.
_STRONG_KEYS = (
    r"password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey|"
    r"access[_-]?key|secret[_-]?key|private[_-]?key|access[_-]?token|auth[_-]?token|"
    r"refresh[_-]?token|id[_-]?token|session[_-]?token|account[_-]?key|auth[_-]?key|"
    r"subscription[_-]?key|api[_-]?token|csrf[_-]?token|xsrf[_-]?token"
)
_WORD_KEYS = r"token|authorization|auth"
# Strong keys written as words ("API key: …", {"secret key": "…"}): prose writes them so too
# ("Your API key: is invalid"), so they take a quoted value or a generated-looking bare one,
# as the word keys do.
_SPACED_KEYS = (
    r"(?:api|secret|access|private|account|subscription) key|"
    r"(?:access|refresh|auth|api|session|id) token|client secret"
)
# Session cookies and API keys in query strings: keys only before "=", where they are
# names rather than words of prose ("the session: expired" stays).
_SESSION_KEYS = r"session(?:[_-]?id)?|sid|jsessionid|phpsessid"
# Signatures of signed URLs (Azure SAS sig=, S3 X-Amz-Signature=, SigV4 Signature=): keys
# only before "=", like the session keys.
_SIGNATURE_KEYS = r"sig|signature"
# Query parameters named key or code (an OAuth authorization code): only after "?" or "&",
# plain or escaped, where they are names; "error code=500" stays. Every code key ends one of
# _CODE_STARTS (in the lower-cased text), which gate rule 2.
_QUERY_KEY = "(?:key|code)(?:{})".format(
    "|".join(
        f"(?<={before}{word})"
        for word in ("key", "code")
        for before in ("[?&]", "%26", "%3f", "%2526", "%253f", "\\\\u0026", "&amp;")
    )
)
# A key starts where no letter or digit precedes it, so a name may carry a prefix joined by
# "_", "-" or "." (DB_PASSWORD, aws_secret_access_key, x-api-key) but "mysecret" is no key;
# at a camel-case hump (newPassword, awsSecretAccessKey, githubToken); inside a name in
# capitals (PGPASSWORD); after a percent-escape, plain or encoded again (a URL inside a
# URL's parameter: %3Faccess_token, %253Fapi_key), or a JSON \u escape (Go's \u0026api_key)
# too. The case tests are case-sensitive inside case-insensitive patterns.
_KEY_START = (
    r"(?:(?<![a-z0-9])|(?-i:(?<=[a-z0-9])(?=[A-Z]))|(?-i:(?<=[A-Z])(?=[A-Z]{3}))"
    r"|(?<=%[0-9a-f][0-9a-f])|(?<=%25[0-9a-f][0-9a-f])|(?<=\\u00[0-9a-f][0-9a-f]))"
)
_CODE_STARTS = (
    "?code", "&code", "%26code", "%3fcode", "%2526code", "%253fcode", "\\u0026code",
    "&amp;code",
)  # fmt: skip
# Where a known token prefix may start: no letter, digit or "_" before it, or right after a
# percent-escape, plain or encoded again (q=Bearer%20sk-proj-…, key%3Dsk-…, key%253Dsk-…).
_TOKEN_START = r"(?:(?<![A-Za-z0-9_])|(?<=%[0-9A-Fa-f]{2})|(?<=%25[0-9A-Fa-f]{2}))"
# "=" and ":" plain, percent-encoded (once or twice) or JSON-escaped.
_EQUALS = r"(?:=|%3d|%253d|\\u003d)"
_COLON = r"(?::|%3a|%253a|\\u003a)"
_TOKEN_CHARS = r"[a-z0-9\-._~+/]"
_NON_DIGIT_TOKEN_CHARS = r"[a-z\-._~+/]"
# A generated-looking credential: 8+ token characters with a digit, or 24+ without one (so
# prose such as "Basic authentication required" is left alone). Every quantifier is
# possessive and every run ends where its class ends, so no attempt backtracks over a run:
# the cost is linear in the text (a test times each pattern on repetitions).
_CREDENTIAL = (
    rf"(?:(?={_NON_DIGIT_TOKEN_CHARS}*+[0-9]){_TOKEN_CHARS}{{8,}}+|{_TOKEN_CHARS}{{24,}}+)=*+"
)
# A value the gate already wrote: the marker, or what the cap left of it (a prefix of the
# marker, possibly empty, then the cap's "…[truncated]"). Never redacted again, so that
# cleaning a cleaned text changes nothing (a hint read back from the wire stays as written).
_DONE = r"(?:\[redacted\]|(?:\[(?:r(?:e(?:d(?:a(?:c(?:t(?:e(?:d)?)?)?)?)?)?)?)?)?…\[truncated\])"
# An unquoted value: up to the next separator, unless it is an auth scheme (rule 1
# handles those), an earlier redaction or an escaped quote (rule 3 redacted that value).
_BARE_VALUE = rf"""(?!(?:bearer|basic|token)(?:\s|\Z))(?!\\*+{_DONE}|\\++["'])[^\s"'&,;}}\]]++"""
# A doubled escape of a quote inside a double-quoted value: JSON inside a Python repr,
# where "hun\"ter2" is written "hun\\"ter2". It is part of the value unless what follows
# it can follow a closing quote (white space, , : ; } ] ) ' or the end), so that JSON's
# escaped backslash before a closing quote ("abc\\", "x") still closes the value.
_REPR_ESCAPED_QUOTE = r"""\\\\"(?=[^\s,:;}\])'])"""
# A quoted value up to its closing quote (or the end of the text), an escaped quote inside
# it included ("hun\"ter2", 'it\'s'); also JSON inside a JSON string, where the quotes are
# escaped: \"value\", and deeper, \\\"value\\\" (any run of backslashes before the quote);
# or a whole object or list, two levels deep ({"value": "…"}, ["…"]); or a tuple or call
# of a Python repr whose first argument is a string (('Bearer', '…'), SecretStr('…')), its
# opening only (structured_end reads it whole); not an earlier redaction in its quotes.
_QUOTED_VALUE = (
    rf"""(?!["']?\\*+"?{_DONE})(?:"(?:[^"\\]|{_REPR_ESCAPED_QUOTE}|\\.)*+"?|'(?:[^'\\]|\\.)*+'?|\\++"[^"]*+"?"""
    r"""|\{(?:[^{}]|\{[^{}]*+\})*+\}?|\[(?:[^\[\]]|\[[^\[\]]*+\])*+\]?"""
    r"""|(?:[a-z_][a-z0-9_.]{0,63}+)?\((?=\s*['"]))"""
)
# Cookie pairs: "a=1; b=2" (a cookie value holds no space, quote or semicolon). The first
# pair's "=" is required, so prose such as "invalid cookie: expired" stays. A comma and a
# space go on to the next cookie of a comma-joined Set-Cookie ("a=1; Path=/, sid=2"), or
# within an Expires date ("Expires=Wed, 21 Oct 2026 07:28:00 GMT").
_COOKIES = (
    r"""[^\s"';=]*+=(?:, (?=[^\s"';=,]++=)"""
    r"""|, [0-9]{1,2}[ -][a-z]{3}[ -][0-9]{2,4} [0-9]{2}:[0-9]{2}:[0-9]{2} gmt"""
    r"""|[^\s"';]|; ?)*+"""
)
# YAML's node properties and block indicators before a value (password: |, >-, !!str, &pw),
# one to three of them, each followed by white space (the line break, folded, or a JSON
# \n escape, which the view reads as two spaces).
_YAML_PROPERTIES = r"""(?:(?:[|>][-+0-9]*+|!!?[a-z]*+|&[^\s"'&,;}\]]++)\s++){1,3}+"""
# The name of an XML element that holds a credential (SPEC 7.1's list, in a pattern): an
# optional namespace prefix, then a name that ends so.
_SECRET_TAG = (
    r"(?:[a-z0-9_.\-]*+:)?[a-z0-9_.\-]*?(?:password|passwd|passphrase|secret|"
    r"(?:secret|api|access|private)[_.\-]?key|token|authorization|cookie)"
)
# A name whose end is a key, in a name/value entry (rules 24 and 25): "DB_PASSWORD".
_NAMED = rf"[a-z0-9_.\-]*?(?:{_STRONG_KEYS}|{_WORD_KEYS})"
# The members of a name/value entry (rules 24 and 28): the name's ("name", "key", "type",
# CloudFormation's "ParameterKey") and the value's ("value", "val", "ParameterValue"), with
# at most one other short member between them ("type": "string").
_ENTRY_NAME = r'"(?:name|key|type|parameterkey)"'
_ENTRY_VALUE = r'"(?:val(?:ue)?|parametervalue)"'
_OTHER_MEMBER = r'"[a-z_]{1,32}+"\s*:\s*(?:"[^"\\]{0,64}+"|[a-z0-9.\-]{1,32}+)'
# A token as a URL's user information, with no password (https://TOKEN@host): a
# generated-looking one only, so that ssh://git@host and https://user@host stay.
_URL_USER = r"(?:(?=[a-z_\-.~+%]*+[0-9])[a-z0-9_\-.~+%]{8,}+|[a-z0-9_\-.~+%]{24,}+)"


# A bare value after a strong key and a colon runs on over single spaces, word by word (a
# password can be words: "password: correct horse battery staple"), up to a separator,
# two spaces (in the view, an escaped line break), a value the gate already wrote, or a
# word that ends in ":" before a space or the end, which looks like the next key (a YAML
# block folded onto one line: "password: correct horse host: x").
_WORD = r"""[^\s"'&,;}\]]"""
_WORDS = rf"""{_BARE_VALUE}(?: (?!{_DONE}|[^\s"'&,;}}\]:]*+:(?:\s|\Z)){_WORD}++)*+"""
# Only in a YAML-like place, though (else the value is one word, so that "Invalid password:
# must be at least 8 characters" keeps all but "must"): where the key starts the text, or
# follows a parent key ("db:"), or a value this gate already wrote ("[redacted]", a previous
# key's), or an escaped line break (two spaces in the view: folding leaves no two spaces
# together), each then followed by up to five spaces (a folded line break, or an escaped one
# and the indentation after it), and the key optionally after a list item's "- ". Fixed-width
# look-behinds: tested once at each key's start, in constant time. (A real line break is
# gone once folded: _YAML_LINE reads those lines before.)
_YAML_HEAD = r"""(?:\A|(?<=[^\s"'&,;}\]:]:)|(?<=\[redacted\])|(?<=\[redacted\]["'])|(?<=  ))"""
_YAML_GAP = "(?:" + "|".join(f"(?<={_YAML_HEAD}{' ' * n})" for n in range(6)) + ")"
_YAML_BLOCK = rf"(?:{_YAML_GAP}|(?<={_YAML_GAP}- ))"


# A YAML line whose key is a strong one and whose plain value runs to the line's end
# (user: admin / password: correct horse battery staple): once folded, the value's words
# could not be told from the next line's prose, so the value is redacted before folding.
# Not a quoted, structured, block, tagged, anchored or aliased value: rules 3 and 4 read
# those whole after folding.
_YAML_LINE = re.compile(
    rf"""^([ \t]*+(?:-[ \t]++)?(?:[a-z0-9_.\-]*?[_.\-])?(?:{_STRONG_KEYS})[ \t]*+:[ \t]++)"""
    r"""(?![\s"'{\[|>&!*%@`])[^\r\n]*[^\s]""",
    re.ASCII | re.IGNORECASE | re.MULTILINE,
)


# A YAML key of a secret (strong or word) whose value is a block on the lines below it: the
# key's line ends after the colon, YAML's node properties or a comment (api_key: / token: #
# prod / password: |), after a name and ": " on the same line at most (an exception's
# type as a log writes it, "ValueError: token:", or a parent key). Group 1 is the line's
# indentation (and a list item's "- "): the block is the lines indented deeper; group 2 the
# key and its colon, which stay.
_YAML_PARENT = re.compile(
    rf"""^([ \t]*+(?:-[ \t]++)?)(?:[a-z_][a-z0-9_.]{{0,127}}+: )?"""
    rf"""((?:[a-z0-9_.\-]*?[_.\-])?(?:{_STRONG_KEYS}|{_WORD_KEYS})"""
    r"""[ \t]*+:)(?:[ \t]++(?:[|>][-+0-9]*+|!!?[a-z]*+|&[^\s]++))*+[ \t]*+(?:#[^\r\n]*+)?"""
    r"""(?=[\r\n])""",
    re.ASCII | re.IGNORECASE | re.MULTILINE,
)
_LINE_END = re.compile(r"\r\n?|\n")


def _block_end(text: str, position: int, column: int) -> int:
    """Where the YAML block of a key at ``column`` ends: after the last of the lines from
    ``position`` on (the end of the key's line) indented deeper than the key, blank lines
    between them included; ``position`` itself when no line is."""
    end = position
    while (line_end := _LINE_END.match(text, position)) is not None:
        start = line_end.end()
        following = _LINE_END.search(text, start)
        stop = len(text) if following is None else following.start()
        line = text[start:stop]
        if line.strip(" \t"):
            if len(line) - len(line.lstrip(" \t")) <= column:
                break
            end = stop
        position = stop
    return end


def yaml_lines(text: str) -> str:
    """Step 3 of cleaning, before folding (SPEC 7.3): the block under a secret's YAML key
    (a nested mapping, a block scalar, a value after a comment) becomes the marker, and each
    YAML line of a strong key with a plain value gets the marker for its value."""
    pieces: list[str] = []
    done = 0
    for parent in _YAML_PARENT.finditer(text):
        if parent.start() < done:
            continue  # a key inside a block already redacted
        end = _block_end(text, parent.end(), len(parent.group(1)))
        if end > parent.end():
            pieces += (text[done : parent.end(2)], " ", REDACTED)
            done = end
    if pieces:
        text = "".join((*pieces, text[done:]))
    return _YAML_LINE.sub(rf"\g<1>{REDACTED}", text)


def _value(bare: str) -> str:
    """Rule 4's value: after YAML's node properties, quoted or bare; else bare."""
    return f"(?:{_YAML_PROPERTIES}(?:{_QUOTED_VALUE}|{bare})|{bare})"


def _key(keys: str, separator: str) -> str:
    return rf"""({_KEY_START}(?:{keys})\b(?:\\*+["'])?\s*{separator}\s*)"""


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_HEX_PAIRS = frozenset(a + b for a in "0123456789abcdef" for b in "0123456789abcdef")


_UPPER = frozenset(string.ascii_uppercase)
_LOWER_OR_DIGIT = frozenset(string.ascii_lowercase + string.digits)


def _key_starts(lowered: str, index: int, view: str) -> bool:
    """Whether a key may start at ``index`` of the lower-cased text (``view`` is the text
    before lower-casing), as _KEY_START says (tested here rather than in the pattern, which
    then starts with its key words and lets the regex engine skip to the next possible
    first letter)."""
    if index == 0 or lowered[index - 1] not in _ALNUM:
        return True
    if view[index] in _UPPER:
        before = view[index - 1]
        if before in _LOWER_OR_DIGIT:
            return True
        if before in _UPPER and all(c in _UPPER for c in view[index + 1 : index + 3]):
            return len(view) >= index + 3
    if index < 3 or lowered[index - 2 : index] not in _HEX_PAIRS:
        return False
    return (
        lowered[index - 3] == "%"
        or (index >= 5 and lowered[index - 5 : index - 2] == "%25")
        or (index >= 6 and lowered[index - 6 : index - 2] == "\\u00")
    )


def _is_basic_credential(value: str) -> bool:
    """Whether ``value`` is base64 of "user:password" (RFC 7617), however short."""
    if len(value) % 4:
        return False
    try:
        return b":" in base64.b64decode(value, validate=True)
    except ValueError:
        return False


def _opening_quote(value: str) -> str:
    """The quote a redacted value opened with, to wrap the marker in: ``"``, ``'``, or an
    escaped quote (a run of backslashes, then ``"``: JSON inside JSON, to any depth)."""
    if value[:1] in ('"', "'"):
        return value[:1]
    escapes = len(value) - len(value.lstrip("\\"))
    return value[: escapes + 1] if escapes and value[escapes : escapes + 1] == '"' else ""


def _group_one(pattern: str) -> str | None:
    """The text of ``pattern``'s group 1 when the pattern starts with it (``(`` not
    followed by ``?``), parentheses included; else None. Escapes and character classes are
    skipped, so their parentheses do not count."""
    if not pattern.startswith("(") or pattern.startswith("(?"):
        return None
    depth = 0
    index = 0
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1 : index + 2] == "]":
                index += 1  # a "]" first in a class is a member
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pattern[: index + 1]
        index += 1
    return None


_BACKSLASHES = re.compile(r"\\*+")
_COOKIE_RUN = re.compile(r"""[^\s"';=]*+""", re.ASCII)


class _CookieValue:
    """Whether rule 17's value can match after a head that ends at ``end``: it opens with a
    quote (or an escaped one), a brace or a bracket (QUOTED), or its run of cookie
    characters ends at an "=" (COOKIES).
    A run is measured once: every head inside it ends in the same run, whose end is kept."""

    __slots__ = ("run_end", "run_start")

    def __init__(self) -> None:
        self.run_start = self.run_end = -1

    def __call__(self, subject: str, head: re.Match[str]) -> bool:
        end = head.end()
        first = subject[end : end + 1]
        if first in ('"', "'", "{", "["):  # QUOTED: quoted, or an object or a list
            return True
        if first == "\\":
            after = _BACKSLASHES.match(subject, end)
            if after is not None and subject[after.end() : after.end() + 1] == '"':
                return True
        if not self.run_start <= end <= self.run_end:
            run = _COOKIE_RUN.match(subject, end)
            self.run_start, self.run_end = end, end if run is None else run.end()
        return subject[self.run_end : self.run_end + 1] == "="


_URL_RUN = re.compile(r"""[^\s"'<>]*+""", re.ASCII)


class _UrlPassword:
    """Whether rule 16's password can match after a head that ends at ``end``: an "@"
    comes after it in its run of URL characters (no white space, quote or angle bracket).
    A run is measured once, and where its last "@" is: every head inside it shares them."""

    __slots__ = ("last_at", "run_end", "run_start")

    def __init__(self) -> None:
        self.run_start = self.run_end = self.last_at = -1

    def __call__(self, subject: str, head: re.Match[str]) -> bool:
        end = head.end()
        if not self.run_start <= end <= self.run_end:
            run = _URL_RUN.match(subject, end)
            self.run_start, self.run_end = end, end if run is None else run.end()
            self.last_at = subject.rfind("@", end, self.run_end)
        return self.last_at > end


_SECRET_ELEMENT_SPAN = 256
"""Most characters of an embedded credential element's content (rule 26)."""


def _closed_soon(subject: str, head: re.Match[str]) -> bool:
    """Rule 26's value can match: the element's closing tag starts within its span."""
    closing = f"</{head.group(2)}>"
    end = head.end()
    return subject.find(closing, end, end + _SECRET_ELEMENT_SPAN + len(closing)) >= 0


class _Rule:
    """One redaction.

    Group 1 of a pattern, when it has one, is kept (a key and its separator); the rest of the
    match is the value, replaced by the marker inside the value's own quotes. A match in
    which the group named ``keep`` took part, or whose value ``accept`` refuses, is left as
    it is. ``literals`` are strings one of which every match contains, in the lower-cased
    text: a cheap test that skips the pattern on text that cannot match, as is ``requires``,
    a character every match holds (tested in the text searched). ``viable``, when
    given, makes a fresh necessary condition on the value (the subject and where the head
    ends) for one pass over a text. ``block``, when given, splits a ``pattern`` whose key
    starts with an optional zero-width test that sets the group ``block`` (rule 4: several
    words only in a YAML-like place) into that test and the pattern's two forms, with and
    without the group: at each head the test is matched once, then the form it picks, so
    the search still skips ahead to the key's first letter.

    A rule whose value may be long and whose start may be refused (a key's start, or a
    value that turns out not to match) is searched head first: the head (group 1) is
    searched, its start tested, and only then the whole pattern matched there. Searching
    the whole pattern instead would scan the value before the start is refused, then
    resume one character later and scan the same value again: quadratic in the text
    (``xpwd:xpwd:…``).
    """

    # The patterns are compiled on first use, not at import: compiling all of them costs
    # more than importing the standard-library modules a client imports beside agenterr
    # (issue 22's import rail), and a process that never redacts never needs them.

    def __init__(
        self,
        pattern: str,
        literals: tuple[str, ...],
        *,
        fold: bool = False,
        accept: Callable[[str], bool] | None = None,
        viable: Callable[[], Callable[[str, re.Match[str]], bool]] | None = None,
        requires: str = "",
        block: tuple[str, str, str] | None = None,
    ) -> None:
        self.source = pattern
        self.block_sources = block
        self.literals = literals
        self.fold = fold
        self.accept = accept
        self.viable = viable
        self.requires = requires
        self.keyed = _KEY_START in pattern

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The rule's pattern as SPEC 7.4 writes it."""
        return re.compile(self.source, re.ASCII)

    @cached_property
    def keeps(self) -> bool:
        return "keep" in self.pattern.groupindex

    @cached_property
    def block(self) -> re.Pattern[str] | None:
        return None if self.block_sources is None else re.compile(self.block_sources[0], re.ASCII)

    @cached_property
    def alone(self) -> re.Pattern[str] | None:
        if self.block_sources is None:
            return None
        return _Rule(self.block_sources[2], self.literals, fold=self.fold).search

    @cached_property
    def fast(self) -> str:
        """The pattern searched: the same language, but starting with a letter, so that the
        regex engine skips ahead to where that letter occurs; a word boundary before the
        letter becomes a look-behind after it, and a key's start is tested in _matches."""
        source = self.source if self.block_sources is None else self.block_sources[1]
        fast = source.replace(_KEY_START, "")
        for boundary, after in (
            (r"\b", r"(?<![A-Za-z0-9_].)"),
            (r"(?<![A-Za-z0-9_])", r"(?<![A-Za-z0-9_].)"),
            (
                _TOKEN_START,
                r"(?:(?<![A-Za-z0-9_].)|(?<=%[0-9A-Fa-f]{2}.)|(?<=%25[0-9A-Fa-f]{2}.))",
            ),
        ):
            found = re.match(rf"(\(?){re.escape(boundary)}([A-Za-z])", fast)
            if found is not None:
                fast = found.group(1) + found.group(2) + after + fast[found.end() :]
        return fast

    @cached_property
    def search(self) -> re.Pattern[str]:
        return re.compile(self.fast, re.ASCII)

    @cached_property
    def head(self) -> re.Pattern[str] | None:
        head = _group_one(self.fast) if self.keyed or self.viable is not None else None
        return None if head is None else re.compile(head, re.ASCII)

    def _matches(self, subject: str, view: str) -> Iterator[re.Match[str]]:
        if self.head is None:
            yield from self.search.finditer(subject)
            return
        # The leftmost match whose key may start where it does (what self.pattern finds):
        # the heads in order, each tested before its value is read (see the class).
        search = self.head.search
        match_at = self.search.match
        keyed = self.keyed
        block = None if self.block is None else self.block.match
        alone = None if self.alone is None else self.alone.match
        viable = None if self.viable is None else self.viable()
        position = 0
        while (head := search(subject, position)) is not None:
            start = head.start()
            if (
                (not keyed or _key_starts(subject, start, view))
                and (viable is None or viable(subject, head))
                and (
                    match := (
                        match_at
                        if block is None or alone is None or block(subject, start)
                        else alone
                    )(subject, start)
                )
                is not None
            ):
                yield match
                position = match.end()
            else:
                position = start + 1

    def apply(self, text: str, view: str, lowered: str) -> str:
        """``text`` with every match redacted, matched in its view (_view), lower-cased when
        folding."""
        subject = lowered if self.fold else view
        if self.requires and self.requires not in subject:
            return text  # a character every match holds is missing: one fast scan
        if (self.search if self.head is None else self.head).search(subject) is None:
            return text  # the common case once a prefilter let the rule through
        pieces: list[str] = []
        done = 0
        for match in self._matches(subject, view):
            if self.keeps and match.group("keep") is not None:
                continue
            start, end = match.span()
            if self.pattern.groups and match.group(1) is not None:
                start = match.end(1)
            if start < done:
                continue  # inside a structured value already redacted whole
            end = structured_end(subject, start, end)
            value = text[start:end]
            if self.accept is not None and not self.accept(value):
                continue
            quote = _opening_quote(value)
            pieces += (text[done:start], quote, REDACTED, quote)
            done = end
        if not pieces:
            return text
        pieces.append(text[done:])
        return "".join(pieces)


_STRUCTURE_MARKS = re.compile(r"""[{}\[\]()"'\\]""").search
_STRING_MARKS = {'"': re.compile(r'["\\]').search, "'": re.compile(r"['\\]").search}


_CALL_OR_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,63}+(?=\()|[bBrRuUfF]{1,2}+(?=['\"])")


def structured_end(subject: str, start: int, end: int) -> int:
    """Where a value that a rule matched from ``start`` to ``end`` really ends (SPEC 7.4,
    structures): an object, list or tuple runs to its closing bracket, however deep, with
    brackets inside its strings skipped; so does a call written in a repr
    (``Secret(value='…')``, ``frozenset({…})``), and a prefixed string (``b'…'``) to its
    closing quote. Any other value ends where the rule's pattern ended it."""
    if subject[start : start + 1] in ("{", "[", "("):
        return structure_end(subject, start)
    lead = _CALL_OR_PREFIX.match(subject, start)
    if lead is not None and lead.end() <= end:
        return structure_end(subject, lead.end())
    return end


def structure_end(text: str, start: int) -> int:
    """Where the object, list or tuple opening at ``start`` closes (just after its bracket;
    brackets are not paired by kind), or the string opening there (just after its quote), or
    the end of ``text`` when it never does. Brackets inside a quoted string ("…" or '…', a
    backslash escaping the next character) do not count, nor does a bracket after a
    backslash outside one (JSON inside a JSON string). One pass: linear in the value."""
    depth = 0
    position = start
    while (mark := _STRUCTURE_MARKS(text, position)) is not None:
        char = mark.group()
        position = mark.end()
        if char == "\\":
            position += 1
        elif char in "\"'":
            inside = _STRING_MARKS[char]
            while (found := inside(text, position)) is not None and found.group() == "\\":
                position = found.end() + 1
            if found is None:
                return len(text)
            position = found.end()
            if depth == 0:
                return position  # the value was the string itself
        elif char in "{[(":
            depth += 1
        else:
            depth -= 1
            if depth <= 0:
                return position
    return len(text)


# Each rule names the credential shape it targets; SPEC 7.4 lists them in this order.
REDACTIONS: tuple[_Rule, ...] = (
    # 1. Authorization schemes: "Bearer <token>", "Basic <base64>", "Token <token>"; the
    # token may be a Laravel Sanctum one, its id and "|" first ("Bearer 1|abc…").
    _Rule(
        rf"(\b(?:bearer|basic|token)(?:\s+|%20))(?:[0-9]++\|)?{_CREDENTIAL}",
        ("bearer ", "basic ", "token ", "bearer%20", "basic%20", "token%20"),
        fold=True,
    ),
    # 2. key=value (query strings, env files, code, cookies): any value.
    _Rule(
        _key(
            f"{_STRONG_KEYS}|{_WORD_KEYS}|{_SESSION_KEYS}|{_SIGNATURE_KEYS}|{_QUERY_KEY}",
            _EQUALS,
        )
        + f"(?:{_QUOTED_VALUE}|{_BARE_VALUE})",
        ("pass", "pwd", "secret", "key", "token", "auth", "sid", "session", "sig", *_CODE_STARTS),
        fold=True,
    ),
    # 3. "key": "value" and key: 'value' (JSON, YAML): the quoted value, spaces and all.
    _Rule(
        _key(f"{_STRONG_KEYS}|{_WORD_KEYS}|{_SPACED_KEYS}", _COLON) + f"(?:{_QUOTED_VALUE})",
        ("pass", "pwd", "secret", "key", "token", "auth"),
        fold=True,
    ),
    # 4. password: value, api_key: value … — any bare value: a password can be a plain word;
    # after YAML's block indicators, tags and anchors (password: |, !!str, &pw), the value
    # that follows them, quoted or not.
    _Rule(
        _key(f"(?:{_YAML_BLOCK}(?P<block>))?(?:{_STRONG_KEYS})", _COLON)
        + _value(f"(?(block){_WORDS}|{_BARE_VALUE})"),
        ("pass", "pwd", "secret", "key", "token", "auth"),
        fold=True,
        block=(
            _YAML_BLOCK,
            _key(_STRONG_KEYS, _COLON) + _value(_WORDS),
            _key(_STRONG_KEYS, _COLON) + _value(_BARE_VALUE),
        ),
    ),
    # 5. token: value, authorization: value, API key: value — a bare value only when it looks
    # generated, so prose such as "the token: is invalid" or "token: expired" survives. It
    # may end where prose or markup closes around it too: "(token: abc123def456)",
    # "<td>token: …</td>".
    _Rule(
        _key(f"{_WORD_KEYS}|{_SPACED_KEYS}", _COLON) + rf"(?:{_CREDENTIAL})(?![^\s\"'&,;}}\])<>])",
        ("token", "auth", "key", "secret"),
        fold=True,
    ),
    # 6. JSON Web Tokens: three base64url segments, the first one a JSON object. When the
    # segments do not follow an "eyJ", the rest of its run is consumed and kept as it is:
    # no later "eyJ" in that run can start a token either, and retrying from each one
    # ("eyJ-eyJ-…") would rescan the run every time, quadratic in its length.
    _Rule(
        rf"{_TOKEN_START}eyJ(?:[A-Za-z0-9_-]{{8,}}+\.[A-Za-z0-9_-]{{8,}}+\.[A-Za-z0-9_-]*+"
        r"|(?P<keep>[A-Za-z0-9_-]*+))",
        ("eyj",),
    ),
    # 7. OpenAI and Anthropic keys (sk-…, sk-proj-…, sk-ant-…).
    _Rule(rf"{_TOKEN_START}sk-[A-Za-z0-9_\-]{{16,}}+", ("sk-",)),
    # 8. Stripe secret and restricted keys.
    _Rule(rf"{_TOKEN_START}[rs]k_(?:live|test)_[A-Za-z0-9]{{10,}}+", ("k_live_", "k_test_")),
    # 9. AWS access key ids.
    _Rule(
        rf"{_TOKEN_START}A(?:KIA|SIA|BIA|CCA|IDA|ROA)[0-9A-Z]{{16}}\b",
        ("akia", "asia", "abia", "acca", "aida", "aroa"),
    ),
    # 10. GitHub tokens, classic and fine-grained.
    _Rule(
        rf"{_TOKEN_START}g(?:h[pousr]_[A-Za-z0-9]{{20,}}+|ithub_pat_[A-Za-z0-9_]{{20,}}+)",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    # 11. Slack tokens: bot, user and app-level.
    _Rule(rf"{_TOKEN_START}x(?:ox[abprse]|app)-[A-Za-z0-9\-]{{10,}}+", ("xox", "xapp-")),
    # 12. Google API keys.
    _Rule(rf"{_TOKEN_START}AIza[0-9A-Za-z_\-]{{30,}}+", ("aiza",)),
    # 13. GitLab personal access tokens.
    _Rule(rf"{_TOKEN_START}glpat-[A-Za-z0-9_\-]{{20,}}+", ("glpat-",)),
    # 14. Hugging Face tokens.
    _Rule(rf"{_TOKEN_START}hf_[A-Za-z0-9]{{30,}}+", ("hf_",)),
    # 15. Webhook signing secrets (Stripe, Svix).
    _Rule(rf"{_TOKEN_START}whsec_[A-Za-z0-9+/=]{{20,}}+", ("whsec_",)),
    # 16. The password of a URL's user information: scheme://user:password@host. The
    # password runs to the last "@" before the next white space, quote or angle bracket (a
    # password may contain "@", and people write "/" and "#" in it unescaped).
    _Rule(
        r"""(://[^\s/?#@:"'<>]*+:)(?:[^\s"'<>@]++|@(?=[^\s"'<>@]*+@))++(?=@)""",
        ("://",),
        requires="@",
        viable=_UrlPassword,
    ),
    # 17. Cookie and Set-Cookie headers: every pair of the value.
    _Rule(
        rf"""(\bcookie(?:\\*+["'])?\s*:\s*)(?:{_QUOTED_VALUE}|{_COOKIES})""",
        ("cookie",),
        fold=True,
        viable=_CookieValue,
    ),
    # 18. Basic credentials too short for rule 1: base64 of "user:password".
    _Rule(
        r"(\bbasic\s+)[a-z0-9+/]{2,}+={0,2}+(?![a-z0-9\-._~+/=])",
        ("basic ",),
        fold=True,
        accept=_is_basic_credential,
    ),
    # 19. PEM private keys: what follows the BEGIN line, up to the END line or, when the
    # window cut the key, to the end of the text. The two lines stay, so that cleaning a
    # prefix of the text cut at a space quotes a prefix of the same result.
    _Rule(
        r"(-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----)(?![\[…])"
        r"(?:[^-]++|-(?!----END ))*+",
        ("-----begin",),
    ),
    # 20. Bearer credentials too short for rule 1: a run of token characters with a digit
    # ("Bearer hunter2"); not the id of a Sanctum token cut short ("Bearer 1|ab").
    _Rule(
        rf"(\bbearer(?:\s+|%20))(?={_NON_DIGIT_TOKEN_CHARS}*+[0-9]){_TOKEN_CHARS}++=*+(?!\|)",
        ("bearer ", "bearer%20"),
        fold=True,
    ),
    # 21. Authorization with any other scheme ("ApiKey …", "SSWS …", "Splunk …"): the
    # scheme stays, a generated-looking credential after it goes.
    _Rule(
        _key("(?:proxy-)?authorization", rf"{_COLON}\s*[a-z][a-z0-9._-]*+\s")
        + f"(?:{_CREDENTIAL})",
        ("auth",),
        fold=True,
    ),
    # 22. Laravel Sanctum tokens on their own: an id, "|", 40 or more random characters.
    _Rule(r"\b[0-9]++\|[A-Za-z0-9_]{40,}+", ("|",)),
    # 23. A token as a URL's user information: https://TOKEN@host, or with a password that
    # is not the secret, https://TOKEN:x-oauth-basic@host (GitHub's form; rule 16 has
    # redacted the password by then). No "/" after the colon: a host and port is not it.
    _Rule(rf"""(://){_URL_USER}(?=@|:[^\s"'<>@/]*+@)""", ("://",), fold=True, requires="@"),
    # 24. Name/value objects ({"name": "DB_PASSWORD", "value": "…"}: Kubernetes env, ECS
    # task definitions; "val" too): the value of an entry whose name ends in a key.
    _Rule(
        rf"""({_ENTRY_NAME}\s*:\s*"{_NAMED}"\s*,\s*(?:{_OTHER_MEMBER}\s*,\s*)?"""
        rf"""{_ENTRY_VALUE}\s*:\s*)(?:{_QUOTED_VALUE}|{_BARE_VALUE})""",
        ("pass", "pwd", "secret", "key", "token", "auth"),
        fold=True,
    ),
    # 25. Pairs in a list ([["Authorization", "…"], …]: headers as pairs): the second
    # string of a two-string list, itself in a list, whose first names a key.
    _Rule(
        rf"""(\[(?:(?<=[\[,]\[)|(?<=[\[,]\s\[))\s*"{_NAMED}"\s*,\s*)"""
        rf"""(?:{_QUOTED_VALUE})(?=\s*\])""",
        ("pass", "pwd", "secret", "key", "token", "auth"),
        fold=True,
    ),
    # 26. An XML element named like a credential inside text that is no markup document
    # ("Bad request: <Password><b>hun</b>ter2</Password>"): its content, child elements
    # included, up to its closing tag within 256 characters; the tags stay. Whether the
    # closing tag comes is asked first, with str.find over those characters only, so that
    # many unclosed tags cost linear time.
    _Rule(
        rf"(<({_SECRET_TAG})(?:\s[^<>]*+)?>)(?:[^<]|<(?!/\2>)){{0,{_SECRET_ELEMENT_SPAN}}}+"
        r"(?=</\2>)",
        ("<",),
        fold=True,
        viable=lambda: _closed_soon,
    ),
    # 27. A signature as a JSON member ({"sig": "…"}, a signed request or URL's parts as
    # an object): a generated-looking quoted value. Rule 2 reads sig= only, so that prose
    # ("the signature: is invalid") stays; quoted key and value say this is data.
    _Rule(
        rf"""(\\*+"(?:{_SIGNATURE_KEYS})\\*+"\s*:\s*\\*+")(?:{_CREDENTIAL})(?=\\*+")""",
        ('sig"', "sig\\", 'signature"', "signature\\"),
        fold=True,
    ),
    # 28. Rule 24 with the value first: {"value": "…", "name": "DB_PASSWORD"} (members
    # keep no order; serialisers that sort keys write it so).
    _Rule(
        rf"""({_ENTRY_VALUE}\s*:\s*)(?:{_QUOTED_VALUE}|{_BARE_VALUE})"""
        rf"""(?=\s*,\s*(?:{_OTHER_MEMBER}\s*,\s*)?{_ENTRY_NAME}\s*:\s*"{_NAMED}")""",
        # the key words' gates need a separator after the word; here none follows
        ('"val', '"parameterv'),
        fold=True,
    ),
    # 29. Rule 25 as Python writes pairs: tuples in a list or tuple ([('Authorization',
    # '…')], dict_items(...), a requests/urllib3 header list in a repr).
    _Rule(
        rf"""(\((?:(?<=[\[(,]\()|(?<=[\[(,]\s\())\s*['"]{_NAMED}['"]\s*,\s*)"""
        rf"""(?:{_QUOTED_VALUE})(?=\s*\))""",
        ("pass", "pwd", "secret", "key", "token", "auth"),
        fold=True,
    ),
    # 30. A command line's flag (mysql --password …, --api-key …): a quoted value, or a
    # generated-looking one ("--password is required" stays).
    _Rule(
        rf"""(--(?:[a-z0-9]{{1,32}}-){{0,3}}(?:{_STRONG_KEYS}|{_WORD_KEYS})\s+)"""
        rf"""(?:{_QUOTED_VALUE}|{_CREDENTIAL}(?![^\s"'&,;}}\])<>]))""",
        ("--",),
        fold=True,
    ),
    # 31. An HTML form's password field echoed in text that is no markup page (<input
    # type="password" value="…">, or named like a credential): its value attribute.
    _Rule(
        r"""(<input\b(?=[^<>]*?\b(?:type|name|id)\s*=\s*\\*+["']?[a-z0-9_.\-]*?"""
        r"""(?:passw(?:or)?d|secret|token|api[_-]?key))[^<>]*?\bvalue\s*=\s*)"""
        rf"""(?:{_QUOTED_VALUE}|(?!{_DONE})[^\s"'<>=\\]++)""",
        ("<input",),
        fold=True,
    ),
    # 32. A two-string tuple on its own whose first names a key (str() of ValueError("token",
    # "…"), a pair in a log line): a generated-looking second string only, so that a tuple of
    # field names (('password', 'email')) stays.
    _Rule(
        rf"""(\(\s*['"]{_NAMED}['"]\s*,\s*['"])(?:{_CREDENTIAL})(?=['"]\s*\))""",
        ("pass", "pwd", "secret", "key", "token", "auth"),
        fold=True,
        requires="(",
    ),
)
"""SPEC 7.4's redaction rules, in their order."""
# Which rules run at all is decided by cheap necessary conditions, tested on the
# lower-cased text (or, for capitals, on the text): a substring test per literal, and for a
# family of literals with a common start, one search that the regex engine begins by
# skipping to that start, as fast as a substring test. A key rule also needs a key followed
# by its separator: each key word below, completed to every key that contains it (what
# precedes it is left to the key-start test). That spares typical error prose ("tokens per
# minute", "Invalid API key provided") the key patterns themselves.
_KEY_WORDS = {
    "pass": "pass(?:word|wd|phrase)",
    "pwd": "pwd",
    "secret": "secret(?:[_-]?key)?",
    "key": "key",
    "token": "token",
    "auth": "auth(?:orization|[_-]?(?:token|key))?",
    "session": "session(?:[_-]?id|[_-]?token)?",
    "sid": "sid",
    "sig": "sig(?:nature)?",
    "cookie": "cookie",
}
_SEPARATOR = r"""\b(?:\\*+["'])?\s*(?:[:=,]|%3[ad]|%253[ad]|\\u003[ad])"""
# Keys that are names only before "=" (SIGNED): "signature: invalid" must not open rule 2.
_EQUALS_ONLY = frozenset({"sig"})
_EQUALS_SEPARATOR = r"""\b(?:\\*+["'])?\s*(?:=|%3d|%253d|\\u003d)"""
# (pattern, searched in the text rather than the lower-cased copy, a substring every match
# starts with, the literals of the rules it opens). Each pattern is written as its start
# (escaped where it has to be), then the rest.
_FAMILIES: tuple[tuple[str, bool, str, tuple[str, ...]], ...] = (
    *(
        (f"{key}{_EQUALS_SEPARATOR if word in _EQUALS_ONLY else _SEPARATOR}", False, word, (word,))
        for word, key in _KEY_WORDS.items()
    ),
    # QKEY's code, with what must precede it: "code" alone is in nearly every JSON error
    # body ('"code": 400'), and would send each through rule 2.
    *((re.escape(start) + _EQUALS_SEPARATOR, False, start, (start,)) for start in _CODE_STARTS),
    # Rule 30's flag: "--" with a key word after it and its name's other words.
    # Every key word rule 30 reads holds one of these words, after at most three name words
    # and a key's own parts ("--x-y-z-api-key", "--apikey", "--client_secret"): 128 name
    # characters bound the search.
    ("--[a-z0-9_-]{0,128}?(?:pass|pwd|secret|key|token|auth)", False, "--", ("--",)),
    # Rule 26's element: "<" starts every tag, a credential-named one is rare.
    (rf"<{_SECRET_TAG}(?:\s|>)", False, "<", ("<",)),
    ("k_(?:live|test)_", False, "k_", ("k_live_", "k_test_")),
    (
        "A(?:KIA|SIA|BIA|CCA|IDA|ROA|Iza)",
        True,
        "A",
        ("akia", "asia", "abia", "acca", "aida", "aroa", "aiza"),
    ),
    (
        "g(?:h[pousr]_|ithub_pat_)",
        False,
        "g",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    ("x(?:ox|app-)", False, "x", ("xox", "xapp-")),
)


def _opens(literals: tuple[str, ...]) -> int:
    return sum(1 << i for i, rule in enumerate(REDACTIONS) if set(literals) & set(rule.literals))


class _Gate(NamedTuple):
    """One necessary condition: ``start`` occurs in the subject and, when there is one,
    ``search`` finds its pattern there; met, it lets the ``rules`` (a bit set) run."""

    start: str
    search: Callable[[str], object] | None
    original: bool  # tested in the text rather than its lower-cased copy
    rules: int
    rest: str  # the pattern after ``start`` ("" for a literal), for the trigger below


def _rest(source: str, start: str) -> str:
    """A family's pattern after its start."""
    written = start if source.startswith(start) else re.escape(start)
    assert source.startswith(written), (source, start)
    return source[len(written) :]


# Two dozen substring tests cost two dozen scans of the text. Most gates contain a character
# that is rare in error text; a search that starts with that character (which the regex
# engine finds with a plain loop, far faster than a scan testing every position against a
# set) checks, at each place it occurs, the gate's start around it (look-behind) and its
# pattern after it (look-ahead), for all the gates of that character at once. Only the
# gates of a character found so are then tested one by one; the others are tested directly.
# Kept on purpose, though it is the least plain part of the gate: measured against it in one
# run (2026-12-06, benchmarks/bench_body.py's bodies), testing every gate one by one made the
# body row about 10 % slower (17.5× json.loads against 15.8×), and one search for any gate's
# start about 25 % slower (19.5×); the body rail (≤ 12×) is missed already.
_RARE = "|<?&%\\jkwxbh/-gp"
"""Characters from rarest to commonest in error bodies (measured on the corpus); a gate
whose start holds none of them is tested directly."""


def _anchor(gate: _Gate) -> int | None:
    """Where the gate's rarest character sits in its start, or None."""
    ranked = [(_RARE.index(c), i) for i, c in enumerate(gate.start) if c in _RARE]
    return min(ranked)[1] if ranked and not gate.original else None


def _around(gate: _Gate, index: int) -> str:
    """The gate after its start's character at ``index``: a look-behind for what precedes,
    the rest of the start as text, a look-ahead for the pattern. Text right after the
    character lets the regex engine skip to the whole literal when a group has one gate."""
    before, after = gate.start[: index + 1], gate.start[index + 1 :]
    behind = f"(?<={re.escape(before)})" if index else ""
    ahead = f"(?={gate.rest})" if gate.rest else ""
    return behind + re.escape(after) + ahead


class _Gates(NamedTuple):
    """The gates of every rule, and how _open tests them."""

    every: tuple[_Gate, ...]
    anchored: dict[str, tuple[_Gate, ...]]
    """The gates that have a rare character, grouped by it (in SPEC order within a group)."""
    direct_original: tuple[_Gate, ...]
    """The others tested in the text, directly,"""
    direct_lowered: tuple[_Gate, ...]
    """and those tested in its lower-cased copy."""
    direct_starts: Callable[[str], object]
    """Whether any of the direct lower-cased gates is met somewhere: one search, not one
    each (a family's start with its pattern after it, so that '"code": 400', in nearly every
    JSON error body, does not send the text through every gate)."""
    triggers: tuple[tuple[str, Callable[[str], object], tuple[_Gate, ...]], ...]
    """Per rare character: a search that finds it where some gate of that character may be
    met."""


@cache
def _gates() -> _Gates:
    """The gate tables, built on first use (see _Rule on why not at import)."""
    in_family = {literal for _, _, _, literals in _FAMILIES for literal in literals}
    every = (
        *(
            _Gate(literal, None, False, _opens((literal,)), "")
            for literal in dict.fromkeys(lit for rule in REDACTIONS for lit in rule.literals)
            if literal not in in_family
        ),
        *(
            _Gate(
                start,
                re.compile(source, re.ASCII).search,
                original,
                _opens(literals),
                _rest(source, start),
            )
            for source, original, start, literals in _FAMILIES
        ),
    )
    anchored: dict[str, tuple[_Gate, ...]] = {}
    for gate in every:
        index = _anchor(gate)
        if index is not None:
            anchored[gate.start[index]] = (*anchored.get(gate.start[index], ()), gate)
    direct = [g for g in every if _anchor(g) is None]
    lowered = tuple(g for g in direct if not g.original)
    direct_starts = "|".join(
        re.escape(g.start) + (f"(?={g.rest})" if g.rest else "") for g in lowered
    )
    triggers = tuple(
        (
            char,
            re.compile(
                f"{re.escape(char)}(?:{'|'.join(_around(g, g.start.index(char)) for g in gates)})",
                re.ASCII,
            ).search,
            gates,
        )
        for char, gates in anchored.items()
    )
    return _Gates(
        every,
        anchored,
        tuple(g for g in direct if g.original),
        lowered,
        re.compile(direct_starts, re.ASCII).search,
        triggers,
    )


def _open(view: str, lowered: str) -> int:
    """The rules whose gates are met: what testing every gate says (a test checks it)."""
    gates = _gates()
    opened = _opened(gates.direct_original, view, lowered)
    if gates.direct_starts(lowered) is not None:
        opened |= _opened(gates.direct_lowered, view, lowered)
    for char, search, anchored in gates.triggers:
        if char in lowered and search(lowered) is not None:
            opened |= _opened(anchored, view, lowered)
    return opened


def _opened(gates: tuple[_Gate, ...], view: str, lowered: str) -> int:
    opened = 0
    for start, search, original, rules, _ in gates:
        subject = view if original else lowered
        if start in subject and (search is None or search(subject)):
            opened |= rules
    return opened


def _view(text: str) -> str:
    """What the patterns see: ``text`` with each JSON escape \\n, \\r, \\t as two spaces, so
    that a key or token after an escaped line break in a JSON string starts a word (the
    same length, so the view's spans are the text's)."""
    if "\\" not in text:
        return text
    return text.replace("\\n", "  ").replace("\\r", "  ").replace("\\t", "  ")


def redact(text: str) -> str:
    """Step 5 of cleaning (SPEC 7.4): ``text`` with every credential shape replaced by the
    marker, the rules in order; what no rule's prefilter lets through is not searched."""
    view = _view(text)
    lowered = ascii_lower(view)
    opened = _open(view, lowered)
    while opened:
        lowest = opened & -opened  # the rules in SPEC order, visiting only the opened ones
        opened ^= lowest
        redacted = REDACTIONS[lowest.bit_length() - 1].apply(text, view, lowered)
        if redacted is not text:
            text = redacted
            view = _view(text)
            lowered = ascii_lower(view)
    return text


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


def body_window(body: object) -> tuple[str, bool]:
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


# A JSON \uXXXX escape of an invisible character, in raw JSON text quoted as it is: it would
# otherwise survive as six visible characters and split a credential ("sk-abc\u200bdef…")
# so that no redaction rule sees it whole. Escaped surrogates are left: a pair is an emoji.
_ESCAPED_CHAR = re.compile(r"\\u([0-9a-fA-F]{4})")


def _unescaped_invisible(match: re.Match[str]) -> str:
    return "" if _escapes_invisible(match.group(1)) else match.group(0)


def _escapes_invisible(digits: str) -> bool:
    char = chr(int(digits, 16))
    return not "\ud800" <= char <= "\udfff" and INVISIBLE.match(char) is not None


def _drop_invisible_escapes(text: str) -> str:
    """``text`` without JSON escapes of invisible characters, until none is left: removing
    one can join a new one (``\\u20`` + ``\\u200b`` + ``0b``), and cleaning must come out
    the same when applied again (SPEC 7.3)."""
    dropped = _ESCAPED_CHAR.sub(_unescaped_invisible, text)
    if len(dropped) == len(text) or not any(
        _escapes_invisible(m.group(1)) for m in _ESCAPED_CHAR.finditer(dropped)
    ):
        return dropped
    # Nested: one left-to-right pass that removes an escape as soon as its last digit
    # arrives, looking back over what is kept (each character is kept or removed once).
    kept: list[str] = []
    for char in text:
        kept.append(char)
        if (
            len(kept) >= 6
            and kept[-6] == "\\"
            and kept[-5] == "u"
            and all(c in string.hexdigits for c in kept[-4:])
            and _escapes_invisible("".join(kept[-4:]))
        ):
            del kept[-6:]
    return "".join(kept)


# HTML's quote entities, in text that is no markup page (an HTML-escaped JSON string in a
# body or log line): a quote, so that '&quot;password&quot;: &quot;x&quot;' is redacted as
# '"password": "x"' is. So are the entities of the separators "=" and ":"
# ('password&#61;x', 'token&colon; abc…').
_QUOTE_ENTITY = re.compile(
    r"&(?:quot|QUOT|apos|equals|colon|#0*+(?:3[49]|58|61)|#[xX]0*+(?:2[27]|3[aAdD]));"
)
_ENTITY_CHARS = {"quot": '"', "QUOT": '"', "apos": "'", "equals": "=", "colon": ":"}


def _quote_for(match: re.Match[str]) -> str:
    name = match.group(0)[1:-1]
    char = _ENTITY_CHARS.get(name)
    if char is not None:
        return char
    digits = name.lstrip("#xX0")  # "#x3d" → "3d", "#0061" → "61"
    return chr(int(digits, 16 if name[1:2] in ("x", "X") else 10))


def visible(text: str) -> str:
    """Steps 1-2 of cleaning: escape sequences and invisible characters removed."""
    return _shown(text)[0]


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def _shown(text: str) -> tuple[str, bool]:
    """:func:`visible`, and whether the result is printable ASCII (its only white space
    then is the space character)."""
    # The common case: no ESC, no control. For ASCII, printable is 0x20-0x7E: deleting those
    # bytes leaves nothing, found faster than str.isprintable() looks each character up.
    plain = text.isascii() and not text.encode("ascii").translate(None, _PRINTABLE_ASCII)
    if not plain:
        if "\x1b" in text or "\x9b" in text:
            text = _ANSI.sub("", text)
        # Before the textual escapes: an invisible character inside one ("&quo\u200bt;")
        # would otherwise hide it from this pass and leave it to the next (SPEC 7.3).
        text = INVISIBLE.sub("", text)
    if "\\" in text and "\\u" in text:  # one character is found far faster than two
        # Only escapes of invisible characters go: printable ASCII stays printable ASCII.
        text = _drop_invisible_escapes(text)
    if "&" in text:
        text = _QUOTE_ENTITY.sub(_quote_for, text)
    return text, plain


_DOUBLE_SPACE = re.compile("  ").search
"""Whether two spaces meet: the regex engine's literal scan beats a substring test here."""


def _finish(text: str, cap: int, plain: bool = False) -> str:
    """Steps 3-6 of cleaning: fold, trim, redact, cap. ``plain``: ``text`` is printable
    ASCII (see :func:`_shown`)."""
    return _finish_capped(text, cap, plain)[0]


def _finish_capped(text: str, cap: int, plain: bool = False) -> tuple[str, bool]:
    """:func:`_finish`, and whether the cap cut the text (a text may end with the marker
    on its own: only the cap proves that more text could not change the result)."""
    if not plain or _DOUBLE_SPACE(text) or text[:1] == " " or text[-1:] == " ":
        # Once the invisible characters are gone, str.split()'s white space is exactly
        # SPACE's set (a test checks it), and split/join folds and trims in one C pass.
        # Printable ASCII with single inner spaces is folded already.
        if "\n" in text or "\r" in text:
            text = yaml_lines(text)
        text = " ".join(text.split())
    text = redact(text)
    if len(text) > cap:
        return text[:cap].rstrip() + TRUNCATED, True
    return text, False


def clean(text: str, cap: int) -> str:
    """Strip, fold, redact and cap one piece of untrusted text (already windowed)."""
    return _finish(visible(text), cap)


# --- markup -----------------------------------------------------------------------------------
#
# An HTML or XML error page (a proxy's 502, an S3 <Error>) is quoted as its text: the markup
# costs a model tokens and tells it nothing. A window is markup when, after leading white
# space and invisible characters, it starts with an XML declaration, a doctype or an <html>
# tag, or with an element whose closing tag occurs later in the window ("<urlopen error …>"
# is no markup).
_MARKUP_HEAD = re.compile(
    rf"[\t\n\r {INVISIBLE.pattern[1:-1]}]*+"
    r"(?:(?i:<\?xml|<!doctype|<html\b)|<([A-Za-z][\w:.-]{0,63}+))",
    re.ASCII,
)
# One token at a time, each consuming at least one character and none backtracking, so the
# conversion is linear: a comment, a CDATA section (its text kept), a tag (name captured),
# or text up to the next "<". An unterminated comment, section or tag runs to the end (a tag:
# to the next "<").
_MARKUP_TOKEN = re.compile(
    r"<!--(?:[^-]++|-(?!->))*+(?:-->)?"
    r"|<!\[CDATA\[((?:[^\]]++|\](?!\]>))*+)(?:\]\]>)?"
    r"|<(/?)([A-Za-z][\w:.-]*+)?[^<>]*+>?"
    r"|([^<]++)",
    re.ASCII,
)
_HIDDEN_ELEMENTS = frozenset({"script", "style", "noscript", "template"})
_INLINE_ELEMENTS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i",
    "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup",
    "time", "tt", "u", "var", "wbr",
})  # fmt: skip
"""HTML's phrasing elements that do not start a new line: text on both sides runs on."""


def is_markup(text: str) -> bool:
    """Whether a window is an HTML or XML document to quote as its text (SPEC 7.1)."""
    first = text[:1]
    if "!" <= first <= "~" and first != "<":
        return False  # printable ASCII that is no "<": neither white space, invisible nor a tag
    match = _MARKUP_HEAD.match(text)
    if match is None:
        return False
    root = match.group(1)
    return root is None or f"</{root}" in text or f"</{root.lower()}" in ascii_lower(text)


# An element whose name ends like a credential's (<Password>, <SessionToken>,
# <aws:SecretAccessKey>, <client_secret>) holds a secret: its text is redacted, as the key
# rules would redact "Password=…".
_SECRET_ELEMENT_ENDINGS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "secretkey",
    "apikey",
    "accesskey",
    "privatekey",
    "token",
    "authorization",
    "cookie",
)


def _secret_element(name: str) -> bool:
    # Cached: a document's element names repeat, within it and across calls.
    found = _SECRET_BY_NAME.get(name)
    if found is None:
        local = name.rpartition(":")[2].replace("_", "").replace("-", "").replace(".", "")
        found = local.endswith(_SECRET_ELEMENT_ENDINGS)
        if len(name) <= 128:
            _SECRET_BY_NAME.remember(name, found)
    return found


_SECRET_BY_NAME: BoundedCache[str, bool] = BoundedCache(4096)


def markup_text(text: str) -> str:
    """The text of a markup document: character data and CDATA, entities decoded, the
    contents of script, style, noscript and template elements, comments and tags dropped,
    a piece equal to the one before it (a <title> repeated as <h1>) dropped too, and the
    text inside an element named like a credential redacted, its child elements' text
    included (``<Password><b>hun</b>ter2</Password>``, ``<Token><Value>…</Value></Token>``).
    Text that only inline elements and comments separate is joined as a browser shows it
    (``sk-abc<b>def</b>`` is ``sk-abcdef``), so markup cannot split a credential into
    pieces redaction misses."""
    pieces: list[str] = []
    hidden: str | None = None
    secrets: dict[str, int] = {}  # the credential-named elements open, by name
    secret = 0  # how many are open
    glued = False  # only inline tags since the last piece, which ended without a space
    for match in _MARKUP_TOKEN.finditer(text):
        cdata, closing, name, data = match.groups()
        if name is not None:
            name = name.lower()
            if hidden is None and not closing and name in _HIDDEN_ELEMENTS:
                hidden = name
            elif closing and name == hidden:
                hidden = None
            if _secret_element(name):
                if closing:
                    if secrets.get(name):
                        secrets[name] -= 1
                        secret -= 1
                elif not match.group(0).endswith("/>"):
                    secrets[name] = secrets.get(name, 0) + 1
                    secret += 1
            glued = glued and name in _INLINE_ELEMENTS
            continue
        if hidden is not None or (cdata is None and data is None):
            continue
        raw = (html.unescape(data) if "&" in data else data) if data is not None else cdata or ""
        piece = " ".join(raw.split())
        if piece and secret:
            if glued and pieces and pieces[-1].endswith(REDACTED) and not raw[:1].isspace():
                glued = not raw[-1:].isspace()
                continue  # one secret split by inline tags: one marker
            piece = REDACTED
        if not piece:
            glued = glued and not raw  # white space between tags separates words
        elif glued and pieces and not raw[:1].isspace():
            pieces[-1] += piece
            glued = not raw[-1:].isspace()
        elif not pieces or pieces[-1] != piece:
            pieces.append(piece)
            glued = not raw[-1:].isspace()
        else:
            glued = False
    return " ".join(pieces)


class Cleaned(str):
    """Text that passed this gate, or that was written only from such text and the
    package's own templates (a hint, a reason's evidence): what builds an Outcome trusts it
    instead of cleaning it again, as MarkupSafe's ``Markup`` marks escaped text. Any str
    operation on it returns a plain str, so changed text is cleaned again."""

    __slots__ = ()


def snippet(body: object, cap: int = SNIPPET_CAP) -> str:
    """The quotable form of untrusted text: one clean, redacted line of at most ``cap``."""
    if type(body) is str and len(body) <= SCAN_WINDOW:
        text, more = body, False  # the common case: the whole body is its own window
    elif body is None or (type(body) is bytes and not body):
        return ""
    else:
        text, more = body_window(body)
    if not text:
        return ""
    if is_markup(text):
        text = markup_text(text)
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
        if head and not _ESCAPES.search(head):
            quoted, capped = _finish_capped(visible(head), cap)
            if capped:
                return quoted
    text, plain = _shown(text)
    if more:
        # Invisible characters go first, or one inside a cut credential would stop the strip
        # and leave the credential's head. Unless the whole window is one token (then the cap
        # cuts it far earlier anyway).
        text = text.rstrip(CUT_TOKEN_CHARS) or text
    quoted = _finish(text, cap, plain)
    if more and quoted and not quoted.endswith(TRUNCATED):
        quoted += TRUNCATED
    return quoted
