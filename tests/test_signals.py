"""The signal engine: general evidence, its matching, its limits, and bounded envelopes."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agenterr import Code, from_envelope, from_status
from agenterr._rules import ACCESS_PHRASES, CONTENT_POLICY, GENERAL
from agenterr._signals import (
    _WORD_LEAD,
    GENERAL_PHRASES,
    Verdict,
    _alternation,
    _general_allowed,
    _general_words,
    general_verdict,
)


def _signals_module() -> Any:
    import agenterr._signals

    return agenterr._signals


# --- the trie pattern is the sorted alternation, faster ----------------------------------------

KEYS = st.lists(st.text(alphabet="abc d", min_size=1, max_size=5), min_size=1, max_size=12)


@given(keys=KEYS, text=st.text(alphabet="abcd ex", max_size=40))
def test_trie_pattern_matches_like_a_longest_first_alternation(keys: list[str], text: str) -> None:
    trie = re.compile(_alternation(keys))
    ordered = sorted(set(keys), key=lambda k: (-len(k), k))
    flat = re.compile("|".join(re.escape(k) for k in ordered))
    assert [m.group() for m in trie.finditer(text)] == [m.group() for m in flat.finditer(text)]


def test_every_general_phrase_is_found_at_a_word_start_only() -> None:
    words = _general_words()
    for phrase in GENERAL_PHRASES:
        assert words.search(f"x {phrase} y") is not None, phrase
        assert all(m.start() != 1 for m in words.finditer(f"x{phrase}")), phrase
    assert words.search("the block is") is None  # "lock" needs a word start


_PHRASE_PIECES = st.sampled_from(sorted(GENERAL_PHRASES)) | st.sampled_from(
    [" ", "-", "_", ".", "x", "9", "'", "(", "no", "un", "ed"]
)


@given(pieces=st.lists(_PHRASE_PIECES, max_size=12))
def test_the_fast_phrase_pattern_finds_what_the_look_behind_finds(pieces: list[str]) -> None:
    """_general_words() finds "separator, phrase" behind a leading space (so the engine skips
    to separators); the look-behind form it stands for must find the same phrases."""
    text = "".join(pieces)
    reference = re.compile(rf"(?<![a-z0-9])(?:{_alternation(GENERAL_PHRASES)})")
    expected = [m.group() for m in reference.finditer(text)]
    found = _general_words().finditer(_WORD_LEAD + text)
    assert [m.group(1) for m in found] == expected


def test_general_rules_are_data_with_sources() -> None:
    assert {r.scope for r in GENERAL} == {"general"}
    assert all(r.source.startswith("https://") for r in GENERAL)
    assert set(CONTENT_POLICY) <= set(GENERAL_PHRASES)
    assert set(ACCESS_PHRASES) <= set(GENERAL_PHRASES)


# --- what general evidence reads -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("texts", "identifiers", "code", "quota"),
    [
        (["Your current account balance is negative"], [], Code.UNAUTHORIZED, True),
        (["Incorrect API key provided"], [], Code.UNAUTHORIZED, False),
        (["Resource not found or permission denied"], [], Code.UNAUTHORIZED, False),
        (["The model is overloaded"], [], Code.UNAVAILABLE, False),
        (["usage limit reached: 100 requests per minute"], [], Code.RATE_LIMITED, False),
        (["daily quota exceeded"], [], Code.UNAUTHORIZED, True),
        ([], ["ContainerBeingDeleted"], Code.UNAVAILABLE, False),
        (["USER_DISABLED"], [], Code.UNAUTHORIZED, False),
        (["EMAIL_NOT_FOUND"], [], Code.NOT_FOUND, False),
        (["value must be positive"], [], Code.INVALID_REQUEST, False),
    ],
)
def test_general_verdict(texts: list[str], identifiers: list[str], code: Code, quota: bool) -> None:
    verdict = general_verdict(texts, identifiers)
    assert verdict is not None
    assert (verdict.code, verdict.quota, verdict.general) == (code, quota, True)


def test_general_verdict_finds_nothing_in_neutral_text() -> None:
    assert general_verdict(["The widget was frobnicated"], ["WidgetFrob"]) is None
    assert general_verdict([], []) is None
    assert general_verdict([None, 3, ""], [None]) is None  # type: ignore[list-item]


_AUTH = Verdict(Code.UNAUTHORIZED, False, "unauthorized", True)
_QUOTA = Verdict(Code.UNAUTHORIZED, True, "billing", True)
_BUSY = Verdict(Code.UNAVAILABLE, False, "in progress", True)
_INVALID = Verdict(Code.INVALID_REQUEST, False, "invalid", True)
_POLICY = Verdict(Code.INVALID_REQUEST, False, "moderation", True)


@pytest.mark.parametrize(
    ("status", "table", "verdict", "delay", "allowed"),
    [
        (400, Code.INVALID_REQUEST, _AUTH, None, True),
        (400, Code.INVALID_REQUEST, _BUSY, None, True),
        (401, Code.UNAUTHORIZED, _BUSY, None, False),
        (403, Code.UNAUTHORIZED, _INVALID, None, False),
        (403, Code.UNAUTHORIZED, _POLICY, None, True),
        (403, Code.UNAUTHORIZED, _BUSY, None, True),
        (402, Code.UNAUTHORIZED, _QUOTA, None, True),
        (429, Code.RATE_LIMITED, _QUOTA, None, True),
        (429, Code.RATE_LIMITED, _QUOTA, 30.0, False),
        (429, Code.RATE_LIMITED, _AUTH, None, False),
        (423, Code.UNAVAILABLE, _AUTH, None, True),
        (423, Code.UNAVAILABLE, _INVALID, None, False),
        # on a 500 or 507, the account's words only (SPEC 3.5); never on a 502-504
        (500, Code.UNAVAILABLE, _AUTH, None, True),
        (500, Code.UNAVAILABLE, _QUOTA, None, True),
        (500, Code.UNAVAILABLE, _QUOTA, 30.0, False),
        (500, Code.UNAVAILABLE, _BUSY, None, False),
        (500, Code.UNAVAILABLE, _INVALID, None, False),
        (507, Code.UNAVAILABLE, _QUOTA, None, True),
        (503, Code.UNAVAILABLE, _QUOTA, None, False),
        (502, Code.UNAVAILABLE, _AUTH, None, False),
        (302, Code.UNKNOWN, _AUTH, None, False),
    ],
)
def test_where_general_evidence_may_move_a_failure(
    status: int, table: Code, verdict: Verdict, delay: float | None, allowed: bool
) -> None:
    assert _general_allowed(status, table, verdict, delay) is allowed


def test_structure_speaks_before_general_evidence() -> None:
    body = json.dumps({"__type": "ValidationException", "message": "insufficient balance"})
    assert from_status(400, body).code is Code.INVALID_REQUEST
    assert from_status(400, json.dumps({"message": "insufficient balance"})).code is (
        Code.UNAUTHORIZED
    )


def test_a_millisecond_reset_is_a_unix_time() -> None:
    now = 1_741_305_000.0
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1741305600000"}
    out = from_status(429, "{}", headers=headers, now=now)
    assert out.code is Code.RATE_LIMITED
    assert out.retry_after == 600.0


# --- envelopes: credentials are never named, and cost does not grow with the payload ------------


@pytest.mark.parametrize(
    "secret",
    [
        "sk-abcdefghijklmnopqrstuvwxyz012345",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIAIOSFODNN7EXAMPLE",
        "xoxb-123456789012-abcdefghijkl",
        "sk-ant-api03-abcdefghijklmnopqrstuv",
    ],
)
def test_an_identifier_shaped_credential_is_not_named(secret: str) -> None:
    payloads = [
        {"ok": False, "error": secret},
        {"errors": [{"message": "x", "extensions": {"code": secret}}]},
        {"type": "error", "error": {"type": secret, "message": "x"}},
    ]
    for payload in payloads:
        hint = from_envelope(payload).llm_hint
        assert secret not in hint, hint
        assert secret not in from_envelope(json.dumps(payload)).llm_hint


def _cost(size: int) -> float:
    payload = {"ok": False, "error": "rate_limited", **{f"k{i}": i for i in range(size)}}
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        from_envelope(payload)
        best = min(best, time.perf_counter() - start)
    return best


def test_an_envelope_costs_the_same_whatever_its_size() -> None:
    """SPEC 12.12: O(1) in the payload, parsed objects included (a ratio within one run)."""
    small, large = _cost(100), _cost(200_000)
    assert large < 20 * small + 0.002, (small, large)


def test_the_per_identifier_caches_stay_bounded() -> None:
    """Identifiers, their fragments and quota names are cached (a provider's vocabulary
    repeats); a stream of distinct or huge ones must not grow the caches past their bound."""
    from agenterr import _signals

    for index in range(5000):
        body = {
            "error": {
                "code": f"NEW_{index}_QUOTA_EXCEEDED",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                        "violations": [{"quotaId": f"Requests{index}PerDay"}],
                    }
                ],
            }
        }
        from_status(400, json.dumps(body))  # a quota name per call
        from_status(400, json.dumps({"error": {"code": f"odd_{index}_thing"}}))  # fragments
    from_status(400, json.dumps({"error": {"code": "X" * 5000}}))
    caches = (_signals._NORMALISED, _signals._BY_KEY, _signals._PERIODS, _signals._BUILT_IN[False])
    for cache in caches:
        assert 0 < len(cache) <= 4096
        assert all(len(key) <= 5000 for key in cache)
    assert all(len(key) <= 128 for key in (*_signals._BY_KEY, *_signals._PERIODS))


_WINDOW_PIECES = st.sampled_from(
    ["per", "a", "each", "every", " ", "-", "/", "second", "sec", "minute", "min", "hour",
     "per 100 seconds", "requests per", "rpm", "tpm", "rps", "x", "9", "s", "quota"]
)  # fmt: skip


@given(pieces=st.lists(_WINDOW_PIECES, max_size=10))
def test_the_short_window_prefilter_changes_no_answer(pieces: list[str]) -> None:
    """_short_window runs _SHORT_WINDOW only where one of _SHORT_WORDS occurs: the same
    answer as the pattern alone on every text."""
    from agenterr._signals import _SHORT_WINDOW, _short_window

    text = "".join(pieces)
    assert _short_window([text]) == (_SHORT_WINDOW.search(text) is not None)


def test_the_built_in_reading_cache_never_hides_a_user_rule() -> None:
    """An identifier's built-in reading, once cached, still yields to a user rule for it, in
    the call's scope and process-wide; and a cached unknown identifier is read by a user rule."""
    from agenterr import Rule, RuleSet, add_rules, remove_rules

    body = json.dumps({"error": {"code": "rate_limit_exceeded"}})
    unknown = json.dumps({"error": {"code": "ERR_QUOTA_77"}})
    assert from_status(400, body).code is Code.RATE_LIMITED  # cached now
    assert from_status(400, unknown).code is Code.INVALID_REQUEST  # cached as unknown
    rules = (
        Rule.identifier("rate_limit_exceeded", Code.NOT_FOUND),
        Rule.identifier("ERR_QUOTA_77", Code.UNAUTHORIZED, quota=True),
    )
    mine = RuleSet(rules)
    assert from_status(400, body, rules=mine).code is Code.NOT_FOUND
    assert from_status(400, unknown, rules=mine).code is Code.UNAUTHORIZED
    add_rules(*rules)
    try:
        assert from_status(400, body).code is Code.NOT_FOUND
    finally:
        remove_rules(*rules)
    assert from_status(400, body).code is Code.RATE_LIMITED


@given(value=st.text(st.sampled_from([" ", "\t", "\n", "\u3000", "\xa0", "a", "\u200b", "é"])))
@example(value=" " * 40_000 + "a")  # the first non-blank past the parse limit
def test_non_blank_is_what_removing_the_blanks_leaves(value: str) -> None:
    """_non_blank stops at the first non-blank character: the same answer as removing every
    blank from the parse window and looking at what is left."""
    from agenterr._quote import SPACE
    from agenterr._signals import PARSE_LIMIT, _non_blank

    assert _non_blank(value) is bool(SPACE.sub("", value[:PARSE_LIMIT]))


# --- account concepts: SPEC 11.12's pattern and the package agree ------------------------


def _spec_account_pattern() -> re.Pattern[str]:
    """The patterns of SPEC 11.12's account and credential concepts, built from SPEC.md's
    own text (as one alternation: these samples match at most one of them)."""
    from .spec_tables import SPEC

    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index('<a id="r-general-account"></a>') :]
    section = section[: section.index('<a id="r-general-common"></a>')]
    codes = re.findall(r"`([^`]+)`", section)
    account = next(code for code in codes if code.startswith("(?<![a-z0-9])(?:(?:ALLOW)"))
    refusal = next(code for code in codes if code.startswith("(?<![a-z0-9])(?:(?:CRED)"))
    pattern = f"{account}|{refusal}"
    blocks = {}
    for name in ("ALLOW", "SPENT", "LACK", "HOLDER", "HELD", "CRED", "REFUSED", "CLAUSE"):
        found = re.search(rf"`{name}` is\s+`([^`]+)`", section)
        assert found is not None, name
        blocks[name] = found.group(1)
    for name, block in blocks.items():
        pattern = pattern.replace(name, block)
    return re.compile(pattern)


_ACCOUNT_SAMPLES = [
    "Your subscription has expired",
    "Credits exhausted for this workspace",
    "not enough balance to run this job",
    "your plan's limits were reached",
    "Organization has been suspended",
    "the free trial ended yesterday",
    "invoice is past due",
    "Spend cap reached",
    "api key was disabled by an admin",
    "The execution plan reached the maximum depth",
    "Allocated quota exceeded, please increase your quota limit.",
    "account not found",
    "subscription id is required",
    "project closed. trial",
    "Payment amount exceeded the maximum",
    "invalid credential, access_token is invalid or not latest",
    "The provided credentials could not be validated.",
    "login fail: Please carry the API secret key in the Authorization header",
    "tool failed: run --api_key abcdefgh12345678",
    "Access token invalid or no longer valid",
    "your app secret is incorrect",
    "Unexpected token < in JSON at position 0",
    "max_tokens is invalid",
    "the signature field of the document is invalid",
    "credential rotation completed",
    "Something went wrong while checking your API key, please retry",
    "invalid request: access_key_id must be 20 characters",
]


@pytest.mark.parametrize("message", _ACCOUNT_SAMPLES)
def test_the_account_concepts_are_the_spec_pattern(message: str) -> None:
    """A message the SPEC pattern matches gets an account or credential reading, and only
    such a message (none of these has another general phrase that would outrank it)."""
    spec = _spec_account_pattern().search(message.lower()) is not None
    verdict = general_verdict([message], [])
    reading = verdict is not None and verdict.source in {
        "general evidence, an allowance spent",
        "general evidence, an account held",
        "general evidence, a credential refused",
    }
    assert reading is spec, message


_SPEC_ECHO = re.compile(
    r"(?<!:)(?<!: )(?:(?<![a-z0-9])'[^'\n]{1,200}'(?![a-z0-9])|\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`)"
)
"""SPEC 11.12's quoted values, as it writes them."""


@given(text=st.text(alphabet="ab9 :'\"`\n", max_size=60))
@example(text="x: 'a' b 'c'")
@example(text="a'b' 'c'")
def test_echoes_are_the_quoted_values_spec_names(text: str) -> None:
    """_Echoes finds SPEC's quoted values (its pattern reordered to start at the quote) and
    says a position is inside one exactly when a scan of every span would."""
    from agenterr._signals import _ECHO, _Echoes

    spans = [m.span() for m in _SPEC_ECHO.finditer(text)]
    assert [m.span() for m in _ECHO.finditer(text)] == spans
    whole = (len(text) - len(text.lstrip()), len(text.rstrip()))
    kept = [span for span in spans if span != whole]
    echoes = _Echoes(text)
    for at in range(len(text) + 1):
        assert echoes.around(at) == any(start < at < end for start, end in kept), at


@given(credential=st.from_regex(_signals_module()._CREDENTIAL, fullmatch=True))
def test_every_credential_holds_a_prefilter_word(credential: str) -> None:
    """_account_verdict runs the refusal pattern only where a credential word occurs: each
    credential the pattern names holds one."""
    from agenterr._signals import _CREDENTIAL_WORDS

    assert any(word in credential for word in _CREDENTIAL_WORDS), credential


_ALLOWANCE_OR_HELD = st.one_of(
    st.from_regex(_signals_module()._ALLOWANCE, fullmatch=True),
    st.from_regex(_signals_module()._HELD, fullmatch=True),
)


@given(word=_ALLOWANCE_OR_HELD)
def test_every_account_match_holds_a_prefilter_word(word: str) -> None:
    """Every match of the account pattern holds an allowance (its first two forms) or a held
    account's word (its third): each holds one of the words its prefilter looks for."""
    from agenterr._signals import _ACCOUNT_WORDS

    assert any(w in word for w in _ACCOUNT_WORDS), word
