"""Properties that hold for any input: never raises, bounded hints, JSON round-trips."""

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agenterr import (
    RETRY_AFTER_CEILING,
    Outcome,
    classify,
    from_error,
    from_status,
    parse_retry_after,
    schema_invalid,
)
from agenterr._quote import SNIPPET_CAP, TRUNCATED

from . import strategies as s

# The longest template plus its longest expansions, then the capped quote.
HINT_BOUND = 600 + SNIPPET_CAP + len(TRUNCATED)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b\ufeff]")


def _check(out: Outcome[None]) -> None:
    assert isinstance(out, Outcome)
    wire = out.to_dict()
    assert Outcome.from_dict(json.loads(json.dumps(wire))).to_dict() == wire
    assert json.loads(out.to_json()) == wire
    if out.failed:
        assert out.llm_hint
        assert len(out.llm_hint) <= HINT_BOUND
        assert "\n" not in out.llm_hint
        assert not CONTROL.search(out.llm_hint)
    if out.retry_after is not None:
        assert out.retryable
        assert 0 <= out.retry_after <= RETRY_AFTER_CEILING


@settings(max_examples=400)
@given(status=s.statuses, body=s.bodies, error=s.errors, headers=s.headers)
def test_classify_never_raises(
    status: object, body: object, error: object, headers: object
) -> None:
    """Any status, body, error and headers give a well-formed Outcome."""
    _check(classify(status, body, error, headers=headers))
    _check(from_status(status, body, headers=headers))
    _check(from_error(error))


@given(problems=st.lists(s.bodies, max_size=50))
def test_schema_invalid_bounded(problems: list[object]) -> None:
    """schema_invalid's hint is bounded and control-free whatever the problems are."""
    hint = schema_invalid(*problems).llm_hint
    assert len(hint) <= 100 + 20 * (300 + 20) + 40
    for line in hint.splitlines():
        assert not CONTROL.search(line)


@given(value=st.one_of(s.header_values, st.text()), now=st.floats() | st.none())
def test_retry_after_parse_total(value: object, now: float | None) -> None:
    """parse_retry_after never raises and returns None or a delay within the ceiling."""
    for ms in (False, True):
        seconds = parse_retry_after(value, now=now, milliseconds=ms)
        assert seconds is None or 0 <= seconds <= RETRY_AFTER_CEILING


@given(seconds=st.integers(min_value=0, max_value=86_400))
def test_delta_seconds_exact(seconds: int) -> None:
    """Integer delta-seconds read back exactly, and the wire rounds up."""
    out = from_status(503, headers={"Retry-After": str(seconds)})
    assert out.retry_after == seconds
    assert out.to_dict().get("retry_after_seconds", 0) == seconds


def _invisible() -> frozenset[int]:
    """SPEC 7.3 step 2's invisible characters, from the table shipped for ports."""
    shipped = Path(__file__).parent.parent / "spec" / "quoting.json"
    ranges = json.loads(shipped.read_text(encoding="utf-8"))["invisible"]
    return frozenset(point for low, high in ranges for point in range(low, high + 1))


_INVISIBLE = _invisible()


def _shown(text: str) -> bool:
    """Printable text of which something is left once step 2 removes the invisible."""
    return text.isprintable() and any(ord(c) not in _INVISIBLE and not c.isspace() for c in text)


@given(body=st.text(min_size=1, max_size=300).filter(_shown))
def test_plain_text_is_quoted(body: str) -> None:
    """Ordinary printable one-line text appears in the hint (modulo spacing and redaction)."""
    hint = from_status(400, body).llm_hint
    assert "The API said: " in hint


_FRAGMENTS = [
    "a",
    "word ",
    " ",
    "\n\t",
    "x" * 97,
    "\x1b[31m",
    "\x1b]0;",
    '"api_key": "',
    '"',
    "'",
    "password=",
    "token: ",
    "sk-abcdefghijklmnopqrstu",
    "Bearer abc123def456ghi",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc",
    "é",
    "\u202e",
    "\u200b",
    "{",
    "}",
    ",",
    "Cookie: sid=abc; ",
    "Basic YTpi",
    "https://admin:pw@",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "DB_PASSWORD=",
    "\\u0026api_key=",
    '\\"',
    "\u3164",
    "<html><p>",
    "</p>",
    "&amp;",
    # The body's own text may hold the cap's marker, and a run of white space folds a long
    # head into a short quote: the fast path must not take the marker for its cap (7.2).
    "…[truncated]",
    " " * 200,
]


def _reference_snippet(body: object, cap: int = SNIPPET_CAP) -> str:
    """SPEC.md's pipeline, written plainly: window, markup to text, strip invisibles, drop a
    cut token, clean the window."""
    from agenterr._quote import CUT_TOKEN_CHARS, body_window, clean, is_markup, markup_text, visible

    text, more = body_window(body)
    if text and is_markup(text):
        text = markup_text(text)
    if not text:
        return ""
    text = visible(text)
    if more:
        text = text.rstrip(CUT_TOKEN_CHARS) or text
    quoted = clean(text, cap)
    if more and quoted and not quoted.endswith(TRUNCATED):
        quoted += TRUNCATED
    return quoted


@settings(max_examples=500)
@given(parts=st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=400))
def test_fast_snippet_equals_the_plain_pipeline(parts: list[str]) -> None:
    """Cleaning only a prefix first (the fast path) never changes what is quoted."""
    from agenterr._quote import snippet

    body = "".join(parts)
    assert snippet(body) == _reference_snippet(body)
    assert snippet(body, 50) == _reference_snippet(body, 50)


def test_fast_snippet_own_marker_regression() -> None:
    """A head whose quote ends with the body's own marker, not the cap's, is not the quote:
    the text after it is kept (SPEC 7.2)."""
    from agenterr._quote import snippet

    body = "bad field…[truncated]" + " " * 1200 + "the rest matters"
    assert snippet(body) == "bad field…[truncated] the rest matters"
    assert snippet(body) == _reference_snippet(body)


def test_fast_snippet_escape_regression() -> None:
    """An OSC escape spanning the fast path's cut joins text across white space (found by
    differential fuzzing): such a head is never judged alone."""
    from agenterr._quote import snippet

    body = (
        "x" * 45
        + 'api_key: Basic ,123"m'
        + "q" * 200
        + "Bearer AIzaabcdefghijklmnop:sk-AIza\x1b] '\t\xa0"
        + "q" * 120
        + "z" * 421
    )
    assert snippet(body, 300) == _reference_snippet(body, 300)
