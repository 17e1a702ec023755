"""Quoting untrusted text: window, decoding, cleaning, redaction and the cap (SPEC.md 7)."""

import base64
import contextlib
import html
import json
import logging
import re
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agenterr import Code, from_error, from_status, schema_invalid
from agenterr._quote import REDACTED, SCAN_WINDOW, SNIPPET_CAP, TRUNCATED, clean, snippet


def test_single_line_and_trimmed() -> None:
    """Whitespace runs, newlines included, fold to one space; ends are trimmed."""
    assert snippet("  line one\r\n\n  line\ttwo  ") == "line one line two"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("a\x1b[31mred\x1b[0m b", "ared b"),
        ("title\x1b]0;pwned\x07 ok", "title ok"),
        ("bell\x07 null\x00 del\x7f c1\x85 end", "bell null del c1 end"),
        ("safe\u202egnp.exe", "safegnp.exe"),  # right-to-left override
        ("iso\u2066late\u2069d", "isolated"),
        ("zero\u200bwidth\u200d join\ufeff", "zerowidth join"),
        ("arabic\u061cmark", "arabicmark"),
        ("tag\U000e0041\U000e0042s", "tags"),  # Unicode tag characters hide text
        ("vari\ufe0fation", "variation"),
        ("soft\xadhyphen", "softhyphen"),
        ("c1\x9b31mcsi", "c1csi"),
        ("nb\xa0sp\u2028ls\u3000id", "nb sp ls id"),
    ],
)
def test_invisible_and_escape_characters_stripped(raw: str, clean: str) -> None:
    """Control, ANSI-escape, bidi and zero-width characters never reach the hint."""
    assert snippet(raw) == clean


def test_cap_and_marker() -> None:
    """Quoted text is capped with a visible truncation marker."""
    text = "x " * 2000
    quoted = snippet(text)
    assert quoted.endswith(TRUNCATED)
    assert len(quoted) <= SNIPPET_CAP + len(TRUNCATED)
    assert snippet("y" * SNIPPET_CAP) == "y" * SNIPPET_CAP


def test_window_cut_is_marked() -> None:
    """A body longer than the scan window is marked truncated even if it cleans to little."""
    body = " " * (SCAN_WINDOW - 10) + "hello " + "z" * 100
    assert snippet(body) == "hello" + TRUNCATED


def test_window_cut_drops_partial_token() -> None:
    """A token cut by the scan window is dropped, so half a credential never shows."""
    body = "\n" * (SCAN_WINDOW - 30) + "key is sk-ant-" + "A" * 100
    assert snippet(body) == "key is" + TRUNCATED


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Authorization: Bearer abcdef1234567890.xyz", f"Authorization: Bearer {REDACTED}"),
        ("Authorization: rawtoken123", f"Authorization: {REDACTED}"),
        ("got bearer abcdefgh1jklmnop", f"got bearer {REDACTED}"),
        ("got bearer abcdefghijklmnopqrstuvwxyz", f"got bearer {REDACTED}"),
        ("Token 9f8e7d6c5b4a", f"Token {REDACTED}"),
        ("client-secret: 'abc def' x", f"client-secret: '{REDACTED}' x"),
        ('{"authorization": "Bearer abc123def456"}', f'{{"authorization": "{REDACTED}"}}'),
        ("Basic dXNlcjpwYXNzd29yZA==", f"Basic {REDACTED}"),
        ("key sk-abcdefghijklmnop1234 bad", f"key {REDACTED} bad"),
        ("key sk-proj-abcdefghijklmnop1234", f"key {REDACTED}"),
        ("key sk-ant-api03-abcdefghijklmnopqrst", f"key {REDACTED}"),
        ("stripe sk_live_abcdefghij12345", f"stripe {REDACTED}"),
        ("stripe rk_test_abcdefghij12345", f"stripe {REDACTED}"),
        ("id AKIAIOSFODNN7EXAMPLE here", f"id {REDACTED} here"),
        ("gh ghp_abcdefghijklmnopqrstuvwxyz0123", f"gh {REDACTED}"),
        ("gh github_pat_11ABCDEFG0123456789_abcdefghij", f"gh {REDACTED}"),
        ("slack xoxb-1234567890-abcdefghij", f"slack {REDACTED}"),
        ("g AIzaSyA1234567890abcdefghijklmnopqrstu", f"g {REDACTED}"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P",
            f"jwt {REDACTED}",
        ),
        ("password=hunter2&user=bob", f"password={REDACTED}&user=bob"),
        ('{"api_key": "abc123", "ok": 1}', f'{{"api_key": "{REDACTED}", "ok": 1}}'),
        ("client_secret: s3cr3t", f"client_secret: {REDACTED}"),
        ("ACCESS_TOKEN=zzz", f"ACCESS_TOKEN={REDACTED}"),
    ],
)
def test_credentials_are_redacted(raw: str, expected: str) -> None:
    """Credential-looking substrings are replaced by the redaction marker."""
    assert snippet(raw) == expected


# Credential shapes that were quoted as they are before (each pair: text, quote).
NEW_SHAPES = [
    # a prefix joined to the keyword
    ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG", f"aws_secret_access_key={REDACTED}"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", f"AWS_SECRET_ACCESS_KEY={REDACTED}"),
    ("env DB_PASSWORD=hunter2 set", f"env DB_PASSWORD={REDACTED} set"),
    ("OPENAI_API_KEY=abc123def", f"OPENAI_API_KEY={REDACTED}"),
    ("GITHUB_TOKEN=abc123def", f"GITHUB_TOKEN={REDACTED}"),
    ("GITHUB_TOKEN: abc123def456", f"GITHUB_TOKEN: {REDACTED}"),
    ('{"user_password": "hunter2"}', f'{{"user_password": "{REDACTED}"}}'),
    ("db.password: hunter2", f"db.password: {REDACTED}"),
    # camel-case and run-together names
    ('{"newPassword": "hunter2"}', f'{{"newPassword": "{REDACTED}"}}'),
    ("adminPassword=hunter2", f"adminPassword={REDACTED}"),
    ("awsSecretAccessKey: wJalrXUtnFEMI", f"awsSecretAccessKey: {REDACTED}"),
    ('{"openaiApiKey": "abc def"}', f'{{"openaiApiKey": "{REDACTED}"}}'),
    ("githubToken=abc123def", f"githubToken={REDACTED}"),
    ("stripeSecretKey=hunter2", f"stripeSecretKey={REDACTED}"),
    ("PGPASSWORD=hunter2 psql", f"PGPASSWORD={REDACTED} psql"),
    # escaped separators and JSON inside a JSON string
    ('"u": "/v1?a=1\\u0026api_key=abc123"', f'"u": "/v1?a=1\\u0026api_key={REDACTED}"'),
    ("%3Faccess_token%3Dabc123%26x%3D1", f"%3Faccess_token%3D{REDACTED}"),
    ('{\\"api_key\\": \\"abc def\\"}', f'{{\\"api_key\\": \\"{REDACTED}\\"}}'),
    # query parameters named key, cookies and sessions
    ("GET /maps?key=abc123&q=x", f"GET /maps?key={REDACTED}&q=x"),
    ("GET /maps?q=x&key=abc123", f"GET /maps?q=x&key={REDACTED}"),
    ("Cookie: sid=abc; theme=dark next", f"Cookie: {REDACTED} next"),
    ("Set-Cookie: session=abc123; Path=/; HttpOnly", f"Set-Cookie: {REDACTED}"),
    ('{"cookie": "a=1; b=2"}', f'{{"cookie": "{REDACTED}"}}'),
    ("login session=abc; x", f"login session={REDACTED}; x"),
    ("PHPSESSID=abc123", f"PHPSESSID={REDACTED}"),
    ("connect.sid=s%3Aabc", f"connect.sid={REDACTED}"),
    # short Basic credentials: base64 of "user:password"
    ("Authorization: Basic YTpi", f"Authorization: Basic {REDACTED}"),
    ("basic dTpwdw== ok", f"basic {REDACTED} ok"),
    # the password of a URL
    (
        "Invalid URL 'https://admin:hunter2@host/x'",
        f"Invalid URL 'https://admin:{REDACTED}@host/x'",
    ),
    ("redis://:p@ss@cache:6379/0", f"redis://:{REDACTED}@cache:6379/0"),
    # PEM private keys, whole or cut
    (
        "key -----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA7 -----END RSA PRIVATE KEY----- ok",
        f"key -----BEGIN RSA PRIVATE KEY-----{REDACTED}-----END RSA PRIVATE KEY----- ok",
    ),
    (
        "-----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
        f"-----BEGIN PRIVATE KEY-----{REDACTED}",
    ),
    (
        '"-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEI\\n-----END EC PRIVATE KEY-----\\n"',
        f'"-----BEGIN EC PRIVATE KEY-----{REDACTED}-----END EC PRIVATE KEY-----\\n"',
    ),
    # JSON inside JSON inside JSON: the quotes escaped twice (found by the property test)
    (
        r'{"e": "{\"m\": \" \\\"password\\\": \\\"a0b1c2d3e4\\\" \"}"}',
        r'{"e": "{\"m\": \" \\\"password\\\": \\\"' + REDACTED + r'\\\" \"}"}',
    ),
    (
        r'{"e": "{\"cookie\\\": \\\"sid=1; tok=2\\\"}"}',
        r'{"e": "{\"cookie\\\": \\\"' + REDACTED + r'\\\"}"}',
    ),
    # a URL quoted from a page, its "&" still an entity (found by the property test)
    ("link: /maps?q=1&amp;key=abc123def456 ok", f"link: /maps?q=1&amp;key={REDACTED} ok"),
    # provider tokens
    ("gl glpat-abcdefghij0123456789", f"gl {REDACTED}"),
    ("hf hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", f"hf {REDACTED}"),
    ("slack xapp-1-A0123456789-0123456789-abcdef", f"slack {REDACTED}"),
    ("hook whsec_abcdefghijklmnopqrstuvwxyz012345", f"hook {REDACTED}"),
    # rules 23, 24 and 27-29, and a percent-encoded colon
    (
        "https://abcdEFGH1234ijklMNOP5678qrst:x-oauth-basic@github.com/o",
        f"https://{REDACTED}:{REDACTED}@github.com/o",
    ),
    ("http://192.168.10.20:8080/v1", "http://192.168.10.20:8080/v1"),
    ('{"sig":"a8f5f167f44f4964e6c998dee827110c"}', f'{{"sig":"{REDACTED}"}}'),
    ('{\\"signature\\":\\"MEUCIQDx3abc123XYZ==\\"}', f'{{\\"signature\\":\\"{REDACTED}\\"}}'),
    ('{"signature":"John Smith"}', '{"signature":"John Smith"}'),
    ("password%3Ahunter2secret&u=1", f"password%3A{REDACTED}&u=1"),
    (
        '{"value":"hunter2abc","name":"DB_PASSWORD"}',
        f'{{"value":"{REDACTED}","name":"DB_PASSWORD"}}',
    ),
    ('{"key":"api_key","val":"sk-live-abcdef123456"}', f'{{"key":"api_key","val":"{REDACTED}"}}'),
    ("[('Authorization', 'Token hunter2')]", f"[('Authorization', '{REDACTED}')]"),
    ("('password', 'email')", "('password', 'email')"),
]


@pytest.mark.parametrize(("raw", "expected"), NEW_SHAPES)
def test_more_credential_shapes_are_redacted(raw: str, expected: str) -> None:
    """Prefixed key names, escaped separators, query keys, cookies, short Basic credentials,
    URL passwords, PEM keys and more provider tokens are redacted."""
    assert snippet(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # a JSON escape of an invisible character cannot split a token
        ('{"e": "sk-abc\\u200bdefghijklmnopqrstuvwxyz"}', f'{{"e": "{REDACTED}"}}'),
        ("ghp_\\u2060abcdefghijklmnopqrstuvwxyz0123456789", REDACTED),
        # HTML-escaped quotes are quotes
        ("&quot;password&quot;: &quot;hunter2&quot;", f'"password": "{REDACTED}"'),
        ("&#39;api_key&#39;: &#x27;abcdef123456&#x27;", f"'api_key': '{REDACTED}'"),
        ("&#34;token&#34;:&#x22;abc123def456&#x22;", f'"token":"{REDACTED}"'),
        # escapes of visible characters and other entities stay as written
        ("smile \\ud83d\\ude00 ok", "smile \\ud83d\\ude00 ok"),
        ("a \\u00e9 b &amp; c &lt;d&gt;", "a \\u00e9 b &amp; c &lt;d&gt;"),
    ],
)
def test_escaped_invisibles_and_quote_entities(raw: str, expected: str) -> None:
    """`\\uXXXX` escapes of invisible characters are dropped and HTML quote entities read as
    quotes before redaction, so neither hides a credential."""
    assert snippet(raw) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Basic auth required",
        "Basic realm=api",
        "see https://example.com:8080/docs",
        "mail me@example.com or https://x.com:443 now",
        "the session: expired",
        "max_tokens: Field required",
        "mysecret=abc",
        "api_key_id=42",
        "-----BEGIN CERTIFICATE----- MIIB -----END CERTIFICATE-----",
        "keyboard=us",
        "invalid cookie: expired",
    ],
)
def test_new_shapes_leave_prose_alone(text: str) -> None:
    """The new rules do not touch prose, ports, e-mail addresses or public certificates."""
    assert snippet(text) == text


@pytest.mark.parametrize(
    "text",
    [
        '{"error":"token expired"}',
        "the password you chose is weak",
        "Invalid API key provided.",
        "monkey=banana",
        "skeleton sk-short",
        "HTTP Basic authentication required",
        "Token validation failed",
        "Bearer token missing or malformed",
        "the token: is invalid",
    ],
)
def test_ordinary_text_is_not_redacted(text: str) -> None:
    """Error prose that mentions credentials without containing one is quoted as is."""
    assert snippet(text) == text


def test_secret_in_hint_is_redacted_end_to_end() -> None:
    """The hint a model sees never carries the key an API echoed back."""
    hint = from_status(401, "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwx").llm_hint
    assert "abcdefghij" not in hint
    assert REDACTED in hint


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("café".encode(), "café"),
        (b"\xef\xbb\xbfwith bom", "with bom"),
        ("utf16 text".encode("utf-16"), "utf16 text"),
        ("utf16 be".encode("utf-16-be").join([b"\xfe\xff", b""]), "utf16 be"),
        (b"latin \xe9t\xe9", "latin \ufffdt\ufffd"),
        (bytearray(b"array"), "array"),
        (memoryview(b"view"), "view"),
        ({"error": {"message": "bad"}}, '{"error":{"message":"bad"}}'),
        (["a", 1, None, True], '["a",1,null,true]'),
        (404, "404"),
        (None, ""),
        ({"obj": object()}, '{"obj":"<object>"}'),
    ],
)
def test_body_types(body: object, expected: str) -> None:
    """Bytes decode leniently; JSON values are encoded; other objects use str()."""
    assert snippet(body) == expected


def test_body_whose_str_raises() -> None:
    """A body whose __str__ raises quotes nothing instead of failing."""

    class Evil:
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert snippet(Evil()) == ""
    assert from_status(400, Evil()).code is Code.INVALID_REQUEST


def test_huge_and_cyclic_json_bodies_are_bounded() -> None:
    """A huge or self-referencing structure is encoded only as far as the window."""
    huge = {"items": list(range(5_000_000))}
    assert snippet(huge).endswith(TRUNCATED)
    cyclic: list[object] = []
    cyclic.append(cyclic)
    assert isinstance(snippet(cyclic), str)


def test_split_multibyte_character_at_window_edge() -> None:
    """A UTF-8 character cut by the window leaves no replacement character behind."""
    body = b"a" * (SCAN_WINDOW - 1) + "é".encode() + b"tail"
    quoted = snippet(body)
    assert "\ufffd" not in quoted


def test_window_cut_drops_tilde_tokens_too() -> None:
    """Every credential character counts as part of a cut token, '~' included."""
    body = "\n" * (SCAN_WINDOW - 30) + "auth Bearer abcdefg~1x" + "y" * 100
    assert snippet(body) == "auth Bearer" + TRUNCATED


def test_fast_path_never_leaks_past_the_head() -> None:
    """A credential just past the fast path's prefix is still judged whole."""
    body = "q" * 485 + " " * 500 + "Bearer abcdefg~1xyz more text"
    assert "abcdefg" not in snippet(body)


def test_folded_white_space_is_the_spec_set() -> None:
    """After invisible characters are removed, str.split()'s white space is SPEC's set."""
    from agenterr._quote import INVISIBLE, SPACE

    python_space = {c for c in map(chr, range(0x110000)) if c.isspace()}
    left = {c for c in python_space if not INVISIBLE.fullmatch(c)}
    assert left == {c for c in map(chr, range(0x110000)) if SPACE.fullmatch(c)}


def test_redaction_prefilters_are_necessary() -> None:
    """Every rule's literals occur in every text it redacts (checked on the rule examples)."""
    from agenterr._quote import REDACTIONS
    from agenterr._shared import ascii_lower

    samples = [
        "Authorization: Bearer abcdef1234567890.xyz",
        "Basic dXNlcjpwYXNzd29yZA==",
        "PASSWORD=hunter2",
        '{"API_KEY": "abc def"}',
        "Client-Secret: s3cr3t",
        "TOKEN: abc123def456",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "sk-proj-abcdefghijklmnop1234",
        "rk_live_abcdefghij12345",
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "xoxb-1234567890-abcdefghij",
        "AIzaSyA1234567890abcdefghijklmnopqrstu",
        *(raw for raw, _ in NEW_SHAPES),
    ]
    for text in samples:
        lowered = ascii_lower(text)
        for rule in REDACTIONS:
            if rule.apply(text, text, lowered) != text:
                assert any(lit in lowered for lit in rule.literals), (rule.pattern.pattern, text)


# --- linear time ------------------------------------------------------------------------------

# Repetitions that make a backtracking pattern rescan the rest of the text from every start:
# each rule's literals with the characters its runs are made of, separators and quotes.
_TAILS = ("-", "a1", "=", ": a", '"', "/")
_SHAPES = (
    "eyJ-",
    "eyJhbGciOiJIUzI1NiJ9.",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9",
    "sk-",
    "token ",
    "token:a1",
    "Bearer a1",
    "Basic YTpi",
    'password="',
    "password: ",
    '"api_key":"',
    "a_",
    "a1",
    "\x1b[1",
    "\x1b]",
    "\x9b",
    "\u200b",
    " \t",
    "\\u200b",
    "\\u",
    '\\\\\\"',
    "password\\\\",
    "&amp;key",
    "&quot;",
    "&#x2",
    "&#0",
)


def _cost(function: object, text: str) -> float:
    assert callable(function)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - start)
    return best


def _adversarial(literals: tuple[str, ...]) -> list[str]:
    units: list[str] = list(_SHAPES)
    for literal in literals:
        for variant in {literal, literal.upper()}:
            units += [variant + tail for tail in _TAILS]
    return units


def _assert_linear(function: object, units: list[str], label: str) -> None:
    """Cost at 8n within 20× the cost at n (quadratic would be 64×), for every unit."""
    size = 1000
    for unit in units:
        small = unit * (size // len(unit) + 1)
        large = unit * (8 * size // len(unit) + 1)
        ratio = 0.0
        for _attempt in range(3):  # a busy machine can stall one measurement
            ratio = _cost(function, large) / max(_cost(function, small), 1e-7)
            if ratio < 8 * 2.5:
                break
        else:
            pytest.fail(f"{label}: cost grows {ratio:.0f}× for 8× the text of {unit!r}")


def test_every_redaction_pattern_is_linear() -> None:
    """Each redaction pattern costs linear time on repetitions of its own fragments."""
    from agenterr._quote import REDACTIONS
    from agenterr._shared import ascii_lower

    for index, rule in enumerate(REDACTIONS):
        units = _adversarial(rule.literals)
        _assert_linear(
            lambda text, r=rule: r.apply(text, text, ascii_lower(text)), units, f"rule {index + 1}"
        )


def test_cleaning_patterns_are_linear() -> None:
    """The escape, invisible-character and white-space patterns, and clean itself, are
    linear on repetitions of every fragment."""
    from agenterr._quote import _ANSI, _ESCAPED_CHAR, _QUOTE_ENTITY, INVISIBLE, SPACE, clean

    units = _adversarial(("\x1b[", "\x1b]", "\x9b", "eyJ", "token", "password"))
    patterns = (
        ("ansi", _ANSI),
        ("invisible", INVISIBLE),
        ("space", SPACE),
        ("escaped", _ESCAPED_CHAR),
        ("entity", _QUOTE_ENTITY),
    )
    for label, pattern in patterns:
        _assert_linear(lambda text, p=pattern: p.sub("", text), units, label)
    _assert_linear(lambda text: clean(text, 10**6), units, "clean")


def _nested_escapes(depth: int) -> str:
    """Escapes of U+200B that removing the innermost joins, one after another, ``depth`` deep."""
    return "\\u20" * depth + "\\u200b" + "0b" * depth


def _escapes_removed_again_and_again(text: str) -> str:
    """SPEC 7.3's JSON-escape removal written plainly: one pass after another until none."""
    from agenterr._quote import _ESCAPED_CHAR, _unescaped_invisible

    while (removed := _ESCAPED_CHAR.sub(_unescaped_invisible, text)) != text:
        text = removed
    return text


@pytest.mark.parametrize(
    "text",
    [
        "a" + _nested_escapes(1) + "b",
        "a" + _nested_escapes(40) + "b",
        "\\u20\\u200b0B \\u0041 \\u20\\u200c0b\\u200b",
        "\\u20\\u200x0b",
        "\\\\u200b\\u200\\u200bb",
        "sk-abc\\u20\u200b0bdef",
    ],
)
def test_json_escapes_of_invisibles_are_removed_until_none_is_left(text: str) -> None:
    """Removing one escape can join another; what is left holds none (SPEC 7.3), as passes
    repeated until nothing changes would leave."""
    from agenterr._quote import INVISIBLE, _drop_invisible_escapes

    expected = _escapes_removed_again_and_again(INVISIBLE.sub("", text))
    assert _drop_invisible_escapes(INVISIBLE.sub("", text)) == expected
    assert clean(clean(text, 10**6), 10**6) == clean(text, 10**6)


def test_nested_json_escapes_cost_linear_time() -> None:
    """The nested case is undone in one pass, not one pass per level."""
    from agenterr._quote import _drop_invisible_escapes

    small, large = _nested_escapes(200), _nested_escapes(1600)
    assert _drop_invisible_escapes(large) == ""
    ratio = 0.0
    for _attempt in range(3):  # a busy machine can stall one measurement
        ratio = _cost(_drop_invisible_escapes, large) / max(
            _cost(_drop_invisible_escapes, small), 1e-7
        )
        if ratio < 8 * 2.5:
            break
    else:
        pytest.fail(f"nested escapes: cost grows {ratio:.0f}× for 8× the depth")


def test_an_invisible_inside_an_entity_is_read_in_one_cleaning() -> None:
    """Regression (found by the idempotence property): invisible characters go before the
    entities are read, so "&quo\u200bt;" is a quote in the first cleaning, not the second."""
    once = clean("say &quo\u200bt;password&quot;: &quot;hunter2&quot;", 100)
    assert once == f'say "password": "{REDACTED}"'
    assert clean(once, 100) == once


def test_jwt_repetitions_cost_what_plain_text_costs() -> None:
    """Regression: "eyJ-" repeated made the JWT rule rescan the run from every "eyJ"."""
    body = "eyJ-" * 2048
    plain = "abc " * 2048
    ratio = _cost(lambda text: from_status(400, text), body) / _cost(
        lambda text: from_status(400, text), plain
    )
    assert ratio < 10


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("id-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.sig x", f"id-{REDACTED} x"),
        ("eyJabc.eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.s", f"eyJabc.{REDACTED}"),
        ("eyJ-eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.s", REDACTED),
        ("eyJ-" * 3 + "x", "eyJ-eyJ-eyJ-x"),
        (
            "xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.s",
            "xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.s",
        ),
    ],
)
def test_jwt_rule_keeps_its_leftmost_semantics(raw: str, expected: str) -> None:
    """The linear JWT rule redacts exactly what a backtracking search from every "eyJ" would."""
    assert snippet(raw) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["eyJ", "-", "_", ".", "a", "1", "abcdefgh", " ", "x"]), max_size=40)
)
def test_jwt_rule_equals_the_backtracking_search(parts: list[str]) -> None:
    """On any mix of its fragments, the linear JWT rule agrees with the plain pattern."""
    from agenterr._quote import REDACTIONS

    plain = re.compile(r"(?a)\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")
    (rule,) = [r for r in REDACTIONS if r.literals == ("eyj",)]
    text = "".join(parts)
    assert rule.apply(text, text, text.lower()) == plain.sub(REDACTED, text)


# --- invisible characters ---------------------------------------------------------------------

# Blank or default-ignorable characters outside category Cf that render as nothing.
FILLERS = {
    0x034F,  # combining grapheme joiner
    0x115F,  # Hangul choseong filler
    0x1160,  # Hangul jungseong filler
    0x17B4,  # Khmer vowel inherent aq
    0x17B5,  # Khmer vowel inherent aa
    0x180B,  # Mongolian free variation selectors
    0x180C,
    0x180D,
    0x180F,
    0x2800,  # Braille pattern blank
    0x3164,  # Hangul filler
    0xFFA0,  # halfwidth Hangul filler
    *range(0xFE00, 0xFE10),  # variation selectors
    *range(0xE0100, 0xE01F0),  # variation selectors supplement
}


def test_every_format_character_and_filler_is_stripped() -> None:
    """Category Cf (from this Python's Unicode database) and the fillers never reach a quote."""
    import unicodedata

    from agenterr._quote import INVISIBLE

    format_characters = {c for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"}
    kept = sorted(c for c in format_characters | FILLERS if not INVISIBLE.fullmatch(chr(c)))
    assert kept == [], [f"U+{c:04X}" for c in kept]
    hidden = "".join(chr(c) for c in sorted(format_characters | FILLERS))
    assert snippet(f"a{hidden}b") == "ab"


@pytest.mark.parametrize(
    "character", ["\u0600", "\u06dd", "\u070f", "\u08e2", "\U000110bd", "\U00013430", "\u3164"]
)
def test_format_characters_listed_in_the_audit_are_stripped(character: str) -> None:
    """Regression: these survived cleaning before."""
    assert snippet(f"to{character}ken") == "token"


@pytest.mark.parametrize("hidden", ["\u200b", "\u2060", "\ufeff", "\u3164", "\U000e0041"])
def test_window_cut_credential_with_interleaved_invisibles_is_dropped(hidden: str) -> None:
    """A credential cut by the window is dropped even when invisible characters are woven
    into it: they are removed before the cut token is."""
    secret = hidden.join("abcd1234efgh5678")
    body = " " * (SCAN_WINDOW - 40) + "key is " + secret + "9" * 100
    quoted = snippet(body)
    assert quoted == "key is" + TRUNCATED
    assert "abcd" not in quoted


# --- the fast redaction path is the plain one -------------------------------------------------


def _plain_redact(text: str) -> str:
    """SPEC 7.4 applied naively: every rule's pattern over the whole view of the text, in
    order, case-insensitive ones with (?i), no prefilter, no lower-cased copy."""
    from agenterr._quote import REDACTIONS, structured_end

    for rule in REDACTIONS:
        view = text.replace("\\n", "  ").replace("\\r", "  ").replace("\\t", "  ")
        pattern = re.compile(rule.pattern.pattern, re.ASCII | (re.IGNORECASE if rule.fold else 0))
        pieces, done = [], 0
        for match in pattern.finditer(view):
            if "keep" in pattern.groupindex and match.group("keep") is not None:
                continue
            start = match.end(1) if pattern.groups and match.group(1) is not None else match.start()
            if start < done:
                continue
            end = structured_end(view, start, match.end())
            value = text[start:end]
            if rule.accept is not None and not rule.accept(value):
                continue
            quote = '\\"' if value.startswith('\\"') else value[:1] if value[:1] in "\"'" else ""
            pieces += [text[done:start], quote, REDACTED, quote]
            done = end
        text = "".join([*pieces, text[done:]])
    return text


_REDACTION_FRAGMENTS = [
    " ",
    "\\n",
    "\\t",
    "a",
    "x1",
    "_",
    "-",
    ".",
    ":",
    "=",
    '"',
    "'",
    "\\",
    "&",
    "?",
    "%3D",
    "%26",
    "\\u0026",
    ";",
    "@",
    "/",
    "Bearer ",
    "basic ",
    "YTpi",
    "token",
    "TOKEN",
    "password",
    "Api_Key",
    "secret",
    "session",
    "sid",
    "key",
    "Cookie",
    "DB_",
    "PG",
    "new",
    "Password",
    "ApiKey",
    "Token",
    "authorization",
    "abc12345",
    "abcdefghijklmnopqrstuvwxyz",
    "eyJhbGciOiJIUzI1NiJ9",
    "sk-",
    "sk_live_",
    "AKIA",
    "IOSFODNN7EXAMPLE",
    "ghp_",
    "github_pat_",
    "xoxb-",
    "xapp-",
    "AIza",
    "glpat-",
    "hf_",
    "whsec_",
    "https://",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "[REDACTED]",
    "é",
    "\u212a",
]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_REDACTION_FRAGMENTS), max_size=30))
def test_fast_redaction_equals_the_plain_rules(parts: list[str]) -> None:
    """Prefilters, the lower-cased copy and the key-start test never change a redaction."""
    from agenterr._quote import redact

    text = " ".join("".join(parts).split())
    assert redact(text) == _plain_redact(text)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *_REDACTION_FRAGMENTS,
                "Token ",
                'KEY\\":',
                "Auth_Token =",
                "PassPhrase%3d",
                "pwd\\u003d",
                "k_test_",
                "k_",
                "COOKIE",
                "-----",
                "://",
                ":/",
                "eyj",
                "gh",
                "ox",
            ]
        ),
        max_size=30,
    )
)
def test_the_trigger_opens_what_every_gate_opens(parts: list[str]) -> None:
    """One search over the rare characters opens exactly the rules that testing every gate
    of SPEC 7.4's prefilters, one by one, opens."""
    from agenterr._quote import _gates, _open, _opened
    from agenterr._shared import ascii_lower

    for text in ("".join(parts), " ".join(parts)):
        lowered = ascii_lower(text)
        assert _open(text, lowered) == _opened(_gates().every, text, lowered)


@given(st.text(alphabet=st.characters(max_codepoint=0x2FF)))
def test_plain_is_printable_ascii(text: str) -> None:
    """The quick test for printable ASCII agrees with the str methods it replaces, and the
    folding it lets _finish skip changes nothing."""
    from agenterr._quote import _shown

    shown, plain = _shown(text)
    assert plain == (text.isascii() and text.isprintable())
    if plain and "  " not in shown and shown.strip(" ") == shown:
        assert " ".join(shown.split()) == shown


def test_the_trigger_covers_the_gates_it_claims() -> None:
    """Every gate is tested either directly or behind one rare character of its start."""
    from agenterr._quote import _gates

    gates = _gates()
    anchored = [g for group in gates.anchored.values() for g in group]
    direct = [*gates.direct_original, *gates.direct_lowered]
    assert sorted(map(id, anchored + direct)) == sorted(map(id, gates.every))
    assert all(
        char in g.start and not g.original for char, gs in gates.anchored.items() for g in gs
    )
    assert all(g.original for g in gates.direct_original)
    assert not any(g.original for g in gates.direct_lowered)


# --- property: no credential of a claimed shape survives any quoting path ----------------------


class Credential(NamedTuple):
    """A credential as it appears in text, and the secret part that must never be quoted."""

    text: str
    secret: str


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _core(pairs_min: int, pairs_max: int, letters: str = _LETTERS) -> st.SearchStrategy[str]:
    """A generated secret: letter-digit pairs, so no part of it reads as template prose."""
    pair = st.tuples(st.sampled_from(letters), st.sampled_from("0123456789")).map("".join)
    return st.lists(pair, min_size=pairs_min, max_size=pairs_max).map("".join)


_KEYS = [
    "password", "passwd", "pwd", "passphrase", "secret", "client_secret", "client-secret",
    "api_key", "api-key", "apikey", "access_key", "secret_key", "private_key", "access_token",
    "auth_token", "refresh_token", "id_token", "session_token", "token", "authorization",
]  # fmt: skip
_PREFIXES = ["", "DB_", "aws_", "OPENAI_", "GITHUB_", "user_", "x-", "my.app."]
_KEY_FORMATS = [
    "{k}={v}",
    "{k}: {v}",
    '"{k}": "{v}"',
    "{k}='{v}'",
    "\\u0026{k}={v}",
    "%3F{k}%3D{v}",
    "?{k}={v}&x=1",
]


_CAMEL_PREFIXES = ["new", "admin", "db", "aws", "openai", "github", "stripe", "user2"]


def _camel(key: str) -> str:
    """``client_secret`` -> ``ClientSecret``: a key as the hump of a camel-case name."""
    return "".join(part[:1].upper() + part[1:] for part in key.replace("-", "_").split("_"))


@st.composite
def _keyed(draw: st.DrawFn) -> Credential:
    name = draw(st.sampled_from(_KEYS))
    key = draw(st.sampled_from(_PREFIXES)) + name
    key = draw(
        st.sampled_from(
            [key, key.upper(), key.lower(), draw(st.sampled_from(_CAMEL_PREFIXES)) + _camel(name)]
        )
    )
    value = draw(_core(8, 10))
    return Credential(draw(st.sampled_from(_KEY_FORMATS)).format(k=key, v=value), value)


@st.composite
def _basic(draw: st.DrawFn) -> Credential:
    user = draw(st.text(_LETTERS + "0123456789", min_size=1, max_size=8))
    password = draw(st.text(_LETTERS + "0123456789!", min_size=1, max_size=12))
    encoded = base64.b64encode(f"{user}:{password}".encode()).decode()
    return Credential(f"{draw(st.sampled_from(['Basic', 'basic', 'BASIC']))} {encoded}", encoded)


@st.composite
def _prefixed(draw: st.DrawFn) -> Credential:
    """A token recognised by its prefix alone."""
    prefix, pairs, letters = draw(
        st.sampled_from(
            [
                ("sk-", 8, _LETTERS),
                ("sk-proj-", 8, _LETTERS),
                ("sk-ant-api03-", 8, _LETTERS),
                ("sk_live_", 5, _LETTERS),
                ("rk_test_", 5, _LETTERS),
                ("AKIA", 8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
                ("ASIA", 8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
                ("ghp_", 10, _LETTERS),
                ("github_pat_11A", 10, _LETTERS),
                ("xoxb-1234-", 5, _LETTERS),
                ("xapp-1-A01-", 5, _LETTERS),
                ("AIza", 15, _LETTERS),
                ("glpat-", 10, _LETTERS),
                ("hf_", 15, _LETTERS),
                ("whsec_", 10, _LETTERS),
            ]
        )
    )
    core = draw(_core(pairs, pairs + 2, letters))
    if prefix in ("AKIA", "ASIA"):
        core = core[:16]
    return Credential(prefix + core, core)


@st.composite
def _other(draw: st.DrawFn) -> Credential:
    core = draw(_core(8, 10))
    shape = draw(st.sampled_from(range(8)))
    if shape == 0:
        scheme = draw(st.sampled_from(["Bearer", "bearer", "Token", "BEARER"]))
        return Credential(f"{scheme} {core}", core)
    if shape == 1:
        return Credential(f"eyJ{core}.eyJ{core[::-1]}.{core[:6]}", core)
    if shape == 2:
        user = draw(st.sampled_from(["admin", "", "u"]))
        return Credential(f"https://{user}:{core}@example.com/v1", core)
    if shape == 3:
        return Credential(f"Cookie: theme=dark; sid={core}; lang=en", core)
    if shape == 4:
        return Credential(f"Set-Cookie: session={core}; Path=/; HttpOnly", core)
    if shape == 5:
        name = draw(st.sampled_from(["session", "sid", "sessionid", "PHPSESSID", "connect.sid"]))
        return Credential(f"{name}={core}", core)
    if shape == 6:
        key = draw(st.sampled_from(["?key=", "&key="]))
        return Credential(f"/maps{key}{core}", core)
    kind = draw(st.sampled_from(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "]))
    lines = "\n".join([core, core[::-1], core])
    return Credential(
        f"-----BEGIN {kind}PRIVATE KEY-----\n{lines}\n-----END {kind}PRIVATE KEY-----", core
    )


credential_strategy: st.SearchStrategy[Credential] = st.one_of(
    _keyed(), _basic(), _prefixed(), _other()
)
"""Credentials of every shape SPEC 7.4 claims to redact (reusable by other test modules)."""

_WORDS = st.lists(
    st.sampled_from(["error", "request", "failed", "the", "value", "is", "invalid", "(x)", ":"]),
    max_size=12,
).map(" ".join)
_HIDDEN = st.sampled_from(
    ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u3164", "\U000e0041", "\u0600"]
)


@st.composite
def _interleave(draw: st.DrawFn, text: str) -> str:
    """``text`` with invisible characters woven in at random places."""
    chars = list(text)
    for _ in range(draw(st.integers(1, 4))):
        chars.insert(draw(st.integers(0, len(chars))), draw(_HIDDEN))
    return "".join(chars)


@st.composite
def embedded_credential_strategy(draw: st.DrawFn) -> tuple[str, str]:
    """(body, secret): a credential inside prose, JSON, a query string or HTML, possibly with
    invisible characters woven in, possibly cut by the scan window."""
    credential = draw(credential_strategy)
    text = credential.text
    if draw(st.booleans()):
        text = draw(_interleave(text))
    before, after = draw(_WORDS), draw(_WORDS)
    separator = draw(st.sampled_from([" ", "\n", ", ", "\t", " ("]))
    context = draw(st.sampled_from(["prose", "json", "query", "html"]))
    if context == "prose":
        body = f"{before}{separator}{text}{separator}{after}"
    elif context == "json":
        message = f"{before}{separator}{text}{separator}{after}"
        body = json.dumps({"error": {"message": message, "code": 400}}, ensure_ascii=False)
    elif context == "query":
        body = f"GET /v1/items?limit=10&q={text}&page=2 {after}"
    else:
        body = f"<html><body><h1>Error</h1><p>{before} {html.escape(text)}</p></body></html>"
    if draw(st.booleans()):
        # Cut by the window somewhere inside the credential.
        written = {
            "json": json.dumps(text, ensure_ascii=False)[1:-1],
            "html": html.escape(text),
        }.get(context, text)
        # Late in the credential more often, where a surviving head would be longest.
        offset = draw(
            st.integers(1, len(written) - 1) | st.integers(len(written) // 2, len(written) - 1)
        )
        cut = body.index(written) + offset
        if draw(st.booleans()):
            # An invisible character just before the cut, inside what the cut leaves.
            at = cut - draw(st.integers(1, min(8, offset)))
            body, cut = body[:at] + draw(_HIDDEN) + body[at:], cut + 1
        # White space and invisible characters fill the window and clean to nothing, so
        # what the cut leaves is quoted rather than capped away.
        filler = (draw(st.sampled_from([" ", "\n", " \u200b", "\r\n"])) * SCAN_WINDOW)[
            : SCAN_WINDOW - cut
        ]
        body = filler + body
    return body, credential.secret


def _assert_hidden(secret: str, *texts: str) -> None:
    for text in texts:
        assert secret not in text, (secret, text)
        for start in range(len(secret) - 5):
            assert secret[start : start + 6] not in text, (secret, text)


@settings(max_examples=400, deadline=None)
@given(embedded_credential_strategy(), st.sampled_from([400, 401, 404, 422, 429, 500, 503]))
def test_no_credential_survives_a_status_hint(case: tuple[str, str], status: int) -> None:
    """Whatever the shape and however it is embedded, no credential reaches the hint of
    from_status, its str() or its wire form, as text or as bytes."""
    body, secret = case
    for quoted in (body, body.encode()):
        outcome = from_status(status, quoted)
        _assert_hidden(secret, outcome.llm_hint, str(outcome), outcome.to_json())


@settings(max_examples=300, deadline=None)
@given(embedded_credential_strategy())
def test_no_credential_survives_error_and_schema_hints(case: tuple[str, str]) -> None:
    """The HTTP client's message (from_error), a response body carried by an exception and a
    schema problem (schema_invalid) are quoted through the same gate."""
    httpx = pytest.importorskip("httpx")
    body, secret = case
    request = httpx.Request("GET", "https://api.example.com/v1")
    status_error = httpx.HTTPStatusError(
        "failed", request=request, response=httpx.Response(400, text=body, request=request)
    )
    hints = [
        from_error(httpx.InvalidURL(body)).llm_hint,
        from_error(status_error).llm_hint,
        schema_invalid(body, f"{body} (at /x)").llm_hint,
    ]
    _assert_hidden(secret, *hints)


def _cli_output(argv: list[str], stdin: bytes = b"") -> str:
    """What ``agenterr`` writes to standard output and error for ``argv``, in this process."""
    import io
    import sys

    from agenterr._cli import main

    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8"),
        io.TextIOWrapper(err, encoding="utf-8"),
    )
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        with contextlib.suppress(SystemExit):  # usage errors exit; their text is checked too
            main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in streams:
            stream.flush()
            stream.detach()  # the buffers outlive the wrappers
    return (out.getvalue() + err.getvalue()).decode("utf-8", "replace")


class _Records(logging.Handler):
    """Every record the agenterr logger emits, formatted as a log file would show it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def _framework_texts(outcome: Any) -> list[str]:
    """The text each integration hands its framework for a failed outcome."""
    from agenterr.integrations.langchain import handle_tool_error, tool_exception
    from agenterr.integrations.mcp import to_call_tool_result
    from agenterr.integrations.openai import tool_result_text
    from agenterr.integrations.temporal import to_application_error

    application_error = to_application_error(outcome)
    return [
        tool_result_text(outcome),
        handle_tool_error(tool_exception(outcome)),
        *(item.text for item in to_call_tool_result(outcome).content),
        str(application_error),
        application_error.message,
    ]


@settings(max_examples=150, deadline=None)
@given(embedded_credential_strategy())
def test_no_credential_survives_any_other_path(case: tuple[str, str]) -> None:
    """The same credentials, on every other way untrusted text reaches a model, a log or a
    terminal: envelopes (and the decorator's envelopes=True), the decorator's own messages
    (a mapped exception's text, an exposed bug's text, raises=True), its log records with
    their traceback, the CLI (a classification, a JSONL answer and a JSONL error object, a
    wire object read back), and what the integrations hand a framework."""
    from agenterr import AgentToolError, classified_tool, from_envelope

    body, secret = case
    texts: list[str] = []

    # Envelopes: every field a hint quotes, as parsed JSON and as text.
    envelopes: list[object] = [
        {"ok": False, "error": body},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": body}},
        {"data": None, "errors": [{"message": body, "extensions": {"code": body[:80]}}]},
        {"content": [{"type": "text", "text": body}], "isError": True},
    ]
    for envelope in envelopes:
        for form in (envelope, json.dumps(envelope, ensure_ascii=False)):
            outcome = from_envelope(form)
            texts += [outcome.llm_hint, str(outcome), outcome.to_json()]

    # The decorator: a mapped exception, an exposed bug, raises=True, envelopes=True.
    @classified_tool(errors={LookupError: Code.NOT_FOUND})
    def mapped() -> None:
        raise LookupError(body)

    @classified_tool(expose_errors=True)
    def buggy() -> None:
        raise RuntimeError(body)

    @classified_tool(raises=True)
    def raising() -> None:
        raise LookupError(body)

    @classified_tool(envelopes=True)
    def enveloped() -> dict[str, object]:
        return {"ok": False, "error": body}

    records = _Records()
    logger = logging.getLogger("agenterr")
    logger.addHandler(records)
    try:
        for outcome in (mapped(), buggy(), enveloped()):
            texts += [outcome.llm_hint, str(outcome), repr(outcome), *_framework_texts(outcome)]
        try:
            raising()
        except AgentToolError as exc:
            texts += [str(exc), repr(exc), exc.outcome.llm_hint]
    finally:
        logger.removeHandler(records)
    assert records.lines  # the bug was logged, with its traceback
    texts += records.lines

    # The CLI.
    texts.append(_cli_output(["classify", "--status", "400", "--body", body]))
    lines = [
        json.dumps({"status": 422, "body": body}),
        json.dumps({"status": 400, body[:300]: 1}),
        json.dumps({"envelope": {"ok": False, "error": body}}),
        json.dumps({"wire": {"ok": False, "code": "NOT_FOUND", "llm_hint": body}}),
        json.dumps({"wire": {"ok": False, "code": body}}),
    ]
    texts.append(_cli_output(["classify", "--jsonl"], "\n".join(lines).encode()))
    _assert_hidden(secret, *texts)


@settings(max_examples=300, deadline=None)
@given(embedded_credential_strategy(), st.integers(20, 600))
@example(  # the cap cut an escaped quote, leaving a backslash before the marker
    case=(
        '{"error": {"message": "error error the the is is \\"DB_client_secret\\": '
        '\\"a0a0a0a0a0a0a0a0\\" ", "code": 400}}',
        "a0a0a0a0a0a0a0a0",
    ),
    cap=72,
)
def test_cleaning_a_cleaned_text_changes_nothing(case: tuple[str, str], cap: int) -> None:
    """The gate is idempotent, what its cap cut included (a second pass with room for the
    whole text): a hint read back from the wire, which passes the gate again, is the hint
    that was written."""
    from agenterr import Outcome
    from agenterr._quote import clean

    body, _secret = case
    once = clean(body, cap)
    assert clean(once, len(once)) == once
    quoted = snippet(body)
    assert snippet(quoted, len(quoted)) == quoted
    outcome = from_status(400, body)
    assert Outcome.from_dict(outcome.to_dict()) == outcome


def test_json_escaped_line_breaks_start_a_word() -> None:
    """Regression (found by the property test): after a JSON-escaped line break the next key
    or token starts a word, so it is redacted; the escape itself is quoted as written."""
    body = '{"m":"a\\npassword=hunter2\\tBasic YTpi\\rsk-abcdefghijklmnopqrstu\\nok"}'
    assert snippet(body) == (
        f'{{"m":"a\\npassword={REDACTED}\\tBasic {REDACTED}\\r{REDACTED}\\nok"}}'
    )


# --- markup -----------------------------------------------------------------------------------

NGINX_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)
CLOUDFLARE_LIKE = (
    "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
    "<title>Error 429 | Too Many Requests</title><style>body{font:12px sans-serif}</style>"
    "<script>window.__cf = {token: 'abc'};</script></head><body>"
    "<div class='header'><h1>Rate limited</h1><p>You are being rate limited. Retry in "
    "<b>30</b>&nbsp;seconds &amp; slow down.</p></div><!-- ray id 7f --></body></html>"
)
S3_XML = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
    "<Message>Please reduce your request rate.</Message><RequestId>4442587FB7D0A2F9</RequestId>"
    "</Error>"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (NGINX_502, "502 Bad Gateway nginx"),
        (
            CLOUDFLARE_LIKE,
            "Error 429 | Too Many Requests Rate limited You are being rate limited. Retry in "
            "30 seconds & slow down.",
        ),
        (S3_XML, "SlowDown Please reduce your request rate. 4442587FB7D0A2F9"),
        (S3_XML.encode("utf-8"), "SlowDown Please reduce your request rate. 4442587FB7D0A2F9"),
        ("\ufeff  <Error><Code>Throttling</Code></Error>", "Throttling"),
        ("<x><![CDATA[a < b]]></x>", "a < b"),
        ("<HTML><BODY><SCRIPT>var x=1</SCRIPT>shown</BODY></HTML>", "shown"),
        ("<html><body><p>unterminated <!-- comment", "unterminated"),
    ],
)
def test_markup_is_quoted_as_its_text(body: object, expected: str) -> None:
    """HTML and XML error pages are quoted as their text: title, headings, paragraphs, the
    code and message of an XML error; no tags, comments, scripts or styles."""
    assert snippet(body) == expected


@pytest.mark.parametrize(
    "text",
    [
        "<urlopen error [Errno 111] Connection refused>",
        "<no message> from upstream",
        "a <b> c",
        '{"error": "<html> is not allowed"}',
    ],
)
def test_text_that_only_contains_a_tag_is_not_markup(text: str) -> None:
    """Only a document (a declaration, a doctype, <html>, or an element closed later) is
    converted; a message that merely starts with an angle bracket is quoted as it is."""
    assert snippet(text) == text


def test_nginx_page_hint_keeps_what_the_model_needs() -> None:
    """The 502 hint names the status text and the server, without markup."""
    hint = from_status(502, NGINX_502).llm_hint
    assert hint.endswith("The API said: 502 Bad Gateway nginx")
    assert "<" not in hint


def test_markup_text_is_cleaned_and_redacted() -> None:
    """Entities decode to text that then goes through the same gate."""
    body = (
        "<html><body><p>key&#61;x sk-abcdefghijklmnopqrstu &#8203;zero&#x200B;width</p>"
        "</body></html>"
    )
    assert snippet(body) == f"key=x {REDACTED} zerowidth"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # inline tags and comments inside a token do not split it (a browser shows it whole)
        (
            "<html><body><p>key sk-abc<b>defghijklmnopqrstuvwxyz</b>0123</p></body></html>",
            f"key {REDACTED}",
        ),
        ("<html><body><p>sk-abc<!-- x -->defghijklmnopqrstuvwxyz</p></body></html>", REDACTED),
        (
            "<html><body><p>ghp_<span>abcdefghijklmnopqrstuvwxyz0123456789</span></p></body></html>",
            REDACTED,
        ),
        # white space or a block element still separates words
        ("<html><body><p>a <b>bold</b> word</p><p>next</p></body></html>", "a bold word next"),
        ("<html><body><h1>Bad</h1><p>Gateway</p></body></html>", "Bad Gateway"),
        (
            "<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>",
            "SlowDown Reduce your rate",
        ),
    ],
)
def test_inline_markup_joins_text_as_shown(body: str, expected: str) -> None:
    """Regression: pieces were joined with a space at every tag, so ``sk-abc<b>def…</b>``
    became two short pieces that no redaction rule recognised."""
    assert snippet(body) == expected


def test_markup_conversion_is_linear() -> None:
    """The markup tokenizer costs linear time on repetitions of every construct."""
    from agenterr._quote import markup_text

    units = ["<!--", "<![CDATA[", "<a ", "<", "<script>", "&amp;", "&#", "-->", "]]", "<a>b</a>"]
    _assert_linear(markup_text, units, "markup")
    _assert_linear(lambda text: snippet("<html>" + text), units, "markup snippet")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "<Response><Credentials><AccessKeyId>id1</AccessKeyId>"
            "<SecretAccessKey>wJalrXUtnFEMI</SecretAccessKey><Expiration>2026</Expiration>"
            "</Credentials></Response>",
            f"id1 {REDACTED} 2026",
        ),
        ("<r><aws:SessionToken>AQoDYXdz</aws:SessionToken></r>", REDACTED),
        ("<r><client_secret><![CDATA[s3cr3t]]></client_secret><ok>1</ok></r>", f"{REDACTED} 1"),
        ("<r><Password>hunter2</Password></r>", REDACTED),
        (
            "<html><body><p>password</p><input type='password'/><p>wrong</p></body></html>",
            "password wrong",
        ),
    ],
)
def test_markup_elements_named_like_credentials_are_redacted(body: str, expected: str) -> None:
    """The text of an element named like a credential is redacted: the tag that said so is
    gone once markup is quoted as text."""
    assert snippet(body) == expected


def _corpus_markup_bodies() -> list[tuple[str, str]]:
    corpus = Path(__file__).resolve().parent / "corpus"
    found = []
    for path in sorted(corpus.glob("*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]:
            body = entry["response"]["body"]
            if isinstance(body, str) and body.lstrip().startswith("<"):
                found.append((entry["id"], body))
    return found


_TELLING_ELEMENT = re.compile(
    r"<(title|h1|Code|Message|Detail|description)>([^<]+)</\1>", re.IGNORECASE
)


@pytest.mark.parametrize("case", _corpus_markup_bodies(), ids=lambda case: case[0])
def test_markup_in_the_corpus_keeps_the_words_a_model_needs(case: tuple[str, str]) -> None:
    """Every HTML or XML error page of the corpus loses its markup in the hint and keeps the
    words that say what happened: its title or heading, its error code and message (as far
    as the quote's cap reaches)."""
    _, body = case
    quoted = snippet(body)
    assert "<" not in quoted.replace("<redacted>", "")
    telling = [" ".join(m[2].split()) for m in _TELLING_ELEMENT.finditer(body)]
    assert telling
    for text in telling:
        head = html.unescape(text)[:40]
        shown = quoted.removesuffix(TRUNCATED)
        # Within the cap, the start of each element's text appears in the quote.
        assert head in shown or len(shown) >= SNIPPET_CAP - len(head), (head, quoted)


@given(
    text=st.text(
        st.sampled_from(["<", "{", "a", " ", "\t", "\u200b", "\x00", "!", "~", "\x7f", "é", "?"]),
        max_size=8,
    ).map(lambda head: head + "<html><p>x</p></html>")
)
@example(text=" <html><p>x</p></html>")
@example(text="\u200b<html><p>x</p></html>")
@example(text="!<html><p>x</p></html>")
def test_markup_prefilter_agrees_with_the_head_pattern(text: str) -> None:
    """is_markup turns away a text that starts with printable ASCII other than "<" before its
    regex runs: exactly the texts the head pattern itself rejects."""
    from agenterr._quote import _MARKUP_HEAD, is_markup
    from agenterr._shared import ascii_lower

    match = _MARKUP_HEAD.match(text)
    root = match.group(1) if match else None
    expected = match is not None and (
        root is None or f"</{root}" in text or f"</{root.lower()}" in ascii_lower(text)
    )
    assert is_markup(text) is expected


def test_secret_element_cache_is_bounded_and_agrees() -> None:
    """Element names are cached with their secrecy; a stream of distinct names stays within
    the bound, and a cached name is judged as a fresh one is."""
    from agenterr import _quote

    for index in range(5000):
        _quote.markup_text(f"<x{index}><k{index}Password>v</k{index}Password></x{index}>")
    _quote.markup_text(f"<{'a' * 5000}>v</{'a' * 5000}>")
    assert 0 < len(_quote._SECRET_BY_NAME) <= 4096
    assert all(len(name) <= 128 for name in _quote._SECRET_BY_NAME)
    for name in ("aws:secretaccesskey", "client_secret", "requestid", "api-key.x"):
        first = _quote._secret_element(name)
        _quote._SECRET_BY_NAME.pop(name, None)
        assert _quote._secret_element(name) is first
    body = "<r><Password>hunter2</Password><n>and</n><Password>x</Password></r>"
    assert snippet(body) == f"{REDACTED} and {REDACTED}"  # the second one from the cache


@pytest.mark.parametrize(
    "flag",
    [
        *("api_key", "client_secret", "access_token", "csrf_token", "private_key", "api-key"),
        *("apikey", "privatekey", "accesstoken", "subscriptionkey", "x-y-z-api-key"),
        "a-b-c-client-secret",
    ],
)
def test_a_flag_whose_key_word_has_an_underscore_is_redacted(flag: str) -> None:
    """Regression: rule 30's gate read only "-" between a flag's words, so the rule never ran
    on ``--api_key VALUE`` (found by test_fast_redaction_equals_the_plain_rules)."""
    from agenterr._quote import redact

    assert redact(f"run --{flag} abcdefgh12345678 now") == f"run --{flag} {REDACTED} now"
