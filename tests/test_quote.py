"""Quoting untrusted text: window, decoding, cleaning, redaction and the cap (SPEC.md 7)."""

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenterr import Code, from_status
from agenterr._quote import REDACTED, SCAN_WINDOW, SNIPPET_CAP, TRUNCATED, snippet


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
    from agenterr._quote import _INVISIBLE, SPACE

    python_space = {c for c in map(chr, range(0x110000)) if c.isspace()}
    left = {c for c in python_space if not _INVISIBLE.fullmatch(c)}
    assert left == {c for c in map(chr, range(0x110000)) if SPACE.fullmatch(c)}


def test_redaction_prefilters_are_necessary() -> None:
    """Every rule's literals occur in every text it redacts (checked on the rule examples)."""
    from agenterr._quote import _REDACTIONS

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
    ]
    for text in samples:
        for rule in _REDACTIONS:
            if rule.pattern.search(text):
                assert rule.applies(text, text.lower()), (rule.pattern.pattern, text)


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
    units = list(_SHAPES)
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
        for _attempt in range(3):  # a busy machine can stall one measurement
            ratio = _cost(function, large) / max(_cost(function, small), 1e-7)
            if ratio < 8 * 2.5:
                break
        else:
            pytest.fail(f"{label}: cost grows {ratio:.0f}× for 8× the text of {unit!r}")


def test_every_redaction_pattern_is_linear() -> None:
    """Each redaction pattern costs linear time on repetitions of its own fragments."""
    from agenterr._quote import _REDACTIONS

    for index, rule in enumerate(_REDACTIONS):
        units = _adversarial(rule.literals)
        _assert_linear(lambda text, r=rule: r.pattern.sub("", text), units, f"rule {index + 1}")


def test_cleaning_patterns_are_linear() -> None:
    """The escape, invisible-character and white-space patterns, and clean itself, are
    linear on repetitions of every fragment."""
    from agenterr._quote import _ANSI, _INVISIBLE, SPACE, clean

    units = _adversarial(("\x1b[", "\x1b]", "\x9b", "eyJ", "token", "password"))
    for label, pattern in (("ansi", _ANSI), ("invisible", _INVISIBLE), ("space", SPACE)):
        _assert_linear(lambda text, p=pattern: p.sub("", text), units, label)
    _assert_linear(lambda text: clean(text, 10**6), units, "clean")


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
    from agenterr._quote import _REDACTIONS

    plain = re.compile(r"(?a)\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")
    (rule,) = [r for r in _REDACTIONS if r.literals == ("eyJ",)]
    text = "".join(parts)
    assert rule.pattern.sub(rule.replace, text) == plain.sub(REDACTED, text)
