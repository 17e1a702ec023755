"""Error envelopes inside successful responses (SPEC.md section 12): ``from_envelope`` and
``@classified_tool(envelopes=True)``.

Every rule is a row of a table here, checked by code and by the ``{where}`` its hint names;
the provider corpus's 2xx entries must all get their documented class; hypothesis checks that
nothing raises and that only the documented prefix of a payload is ever read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http import HTTPStatus
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from agenterr import (
    AuthToolError,
    Class,
    Code,
    IndeterminateToolError,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
)
from agenterr._classify import code_for_status
from agenterr._envelope import RELAY_CAP, from_envelope
from agenterr._hints import hint_for
from agenterr._quote import SCAN_WINDOW, SNIPPET_CAP, TRUNCATED, snippet
from agenterr._rules import (
    GRPC_NAMES,
    INDEX,
    JSONRPC_CODES,
    REASON_PHRASES,
    CodeRule,
    Rule,
    normalise,
)
from agenterr._signals import PARSE_LIMIT

from . import strategies as s

ENVELOPE_IDENTIFIERS = INDEX.envelope_identifiers
IDENTIFIERS = INDEX.identifiers
PHRASES = [(str(rule.key), rule) for rule in INDEX.envelope_phrases]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = [
    entry
    for path in sorted((ROOT / "tests" / "corpus").glob("providers_*.json"))
    for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]
    if 200 <= entry["response"]["status"] <= 299
]


def where_of(outcome: Outcome[Any]) -> str:
    """The parenthetical the hint names (the first one)."""
    hint = outcome.llm_hint
    start = hint.index(" (")
    return hint[start : hint.index(")", start) + 1]


def rpc(error: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "error": error}


def tool_result(text: str, **extra: object) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True, **extra}


def sse(*frames: str) -> str:
    return "".join(frame + "\n\n" for frame in frames)


# --- the corpus ----------------------------------------------------------------------------


def test_corpus_has_the_2xx_entries() -> None:
    """JSON-RPC, MCP, Slack and Shopify GraphQL failures carried in a 2xx."""
    assert len(CORPUS) >= 25
    assert {entry["provider"] for entry in CORPUS} >= {"JSON-RPC 2.0", "MCP", "Slack", "Shopify"}


@pytest.mark.parametrize("entry", CORPUS, ids=[e["id"] for e in CORPUS])
def test_corpus_2xx_entries_get_their_documented_class(entry: dict[str, Any]) -> None:
    """Except the corpus's known misses (tests/test_corpus.py lists each with its reason)."""
    from .test_corpus import KNOWN_MISSES

    response = entry["response"]
    outcome = from_envelope(response["body"], headers=response["headers"])
    right = outcome.class_ is Class(entry["expected"]["class"])
    assert right is (entry["id"] not in KNOWN_MISSES), outcome.llm_hint
    if response["body"].lstrip()[:1] in ("{", "["):  # the same body, already parsed, reads the same
        parsed = from_envelope(json.loads(response["body"]), headers=response["headers"])
        assert parsed.code is outcome.code


# --- the tables ----------------------------------------------------------------------------


def _rules() -> list[Rule | CodeRule]:
    return [
        *JSONRPC_CODES.values(),
        *ENVELOPE_IDENTIFIERS.values(),
        *(rule for _, rule in PHRASES),
    ]


def test_every_rule_names_a_source_and_a_reason() -> None:
    for rule in _rules():
        assert isinstance(rule.code, Code)
        assert rule.source.startswith("https://")
        assert rule.reason.strip().endswith(".")


def test_envelope_identifiers_do_not_shadow_the_shared_table() -> None:
    """The module's identifiers only add: none is in SPEC 11.3's table, and all normalised."""
    assert not set(ENVELOPE_IDENTIFIERS) & set(IDENTIFIERS)
    assert all(key == normalise(key) for key in ENVELOPE_IDENTIFIERS)


def test_phrases_are_lower_case() -> None:
    assert all(phrase == phrase.lower() and phrase.strip() == phrase for phrase, _ in PHRASES)


# --- JSON-RPC 2.0 and MCP protocol errors ----------------------------------------------------


@pytest.mark.parametrize("number", sorted(JSONRPC_CODES))
def test_jsonrpc_standard_codes(number: int) -> None:
    outcome = from_envelope(rpc({"code": number, "message": "m"}))
    assert outcome.code is JSONRPC_CODES[number].code
    assert where_of(outcome) == f" (JSON-RPC error {number})"
    assert outcome.llm_hint.endswith(" The API said: m")
    assert outcome.status == 0 and outcome.error is None


JSONRPC_CASES = [
    ("server-error-range-low", {"code": -32099, "message": "x"}, Code.UNKNOWN, "-32099"),
    ("server-error-range-high", {"code": -32000, "message": "x"}, Code.UNKNOWN, "-32000"),
    ("reserved-not-defined", {"code": -32100, "message": "x"}, Code.UNKNOWN, "-32100"),
    ("application-code", {"code": 42, "message": "x"}, Code.UNKNOWN, "42"),
    ("integral-float-code", {"code": -32601.0, "message": "x"}, Code.NOT_FOUND, "-32601"),
    ("exponent-code", {"code": -3.2601e4}, Code.NOT_FOUND, "-32601"),
    ("huge-code", {"code": 1e300}, Code.UNKNOWN, None),
    ("string-code", {"code": "-32601"}, Code.UNKNOWN, None),
    ("boolean-code", {"code": True}, Code.UNKNOWN, None),
    ("missing-code", {"message": "x"}, Code.UNKNOWN, None),
    ("error-is-a-string", "boom", Code.UNKNOWN, None),
    ("error-is-a-number", 7, Code.UNKNOWN, None),
    # refinements of the generic codes: identifiers in data, then phrases
    (
        "data-object-identifier",
        {"code": -32000, "message": "Server error", "data": {"code": "rate_limited"}},
        Code.RATE_LIMITED,
        "-32000",
    ),
    (
        "data-string-identifier",
        {"code": -32603, "data": "invalid_auth"},
        Code.UNAUTHORIZED,
        "-32603",
    ),
    (
        "data-array-identifier",
        {"code": -32000, "data": [{"error": {"type": "overloaded_error"}}]},
        Code.UNAVAILABLE,
        "-32000",
    ),
    (
        "message-rate-phrase",
        {"code": -32005, "message": "Daily request count exceeded, request rate limited"},
        Code.RATE_LIMITED,
        "-32005",
    ),
    (
        "message-unknown-tool",
        {"code": -32602, "message": "Unknown tool: invalid_tool_name"},
        Code.NOT_FOUND,
        "-32602",
    ),
    (
        "data-text-phrase",
        {"code": -32603, "message": "Internal error", "data": "Too Many Requests"},
        Code.RATE_LIMITED,
        "-32603",
    ),
    ("string-error-phrase", "rate limit hit", Code.RATE_LIMITED, None),
    # the specific codes are never refined
    (
        "method-not-found-final",
        {"code": -32601, "message": "rate limit", "data": "rate_limited"},
        Code.NOT_FOUND,
        "-32601",
    ),
    (
        "elicitation-final",
        {"code": -32042, "message": "Too many requests", "data": {"code": "THROTTLED"}},
        Code.UNAUTHORIZED,
        "-32042",
    ),
]


@pytest.mark.parametrize(
    ("error", "code", "number"),
    [case[1:] for case in JSONRPC_CASES],
    ids=[case[0] for case in JSONRPC_CASES],
)
def test_jsonrpc_rules(error: object, code: Code, number: str | None) -> None:
    outcome = from_envelope(rpc(error))
    assert outcome.code is code
    expected = f" (JSON-RPC error {number})" if number else " (JSON-RPC error)"
    assert where_of(outcome) == expected


def test_jsonrpc_shows_the_exact_hint() -> None:
    body = (
        '{"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params", '
        '"data": "expected 2 positional params, got 1"}, "id": 7}'
    )
    assert from_envelope(body).llm_hint == (
        "The API rejected this call as invalid (JSON-RPC error -32602). Your arguments are "
        "wrong in a way you can fix: correct them to satisfy the API's requirements and "
        "resend. The API said: Invalid params: expected 2 positional params, got 1"
    )


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            {"code": -32002, "message": "Resource not found", "data": {"uri": "file:///x"}},
            ('Resource not found: {"uri":"file:///x"}'),
        ),
        ({"code": -32000, "data": "only data"}, "only data"),
        ({"code": -32000, "message": "only message", "data": None}, "only message"),
        ({"code": -32000}, None),
        ("a string error", "a string error"),
    ],
)
def test_jsonrpc_quotes_message_and_data(error: object, said: str | None) -> None:
    hint = from_envelope(rpc(error)).llm_hint
    if said is None:
        assert "The API said" not in hint
    else:
        assert hint.endswith(f" The API said: {said}")


def test_jsonrpc_quote_is_bounded_and_clean() -> None:
    error = {"code": -32000, "message": "m" * 100_000, "data": "sk-" + "a" * 40}
    hint = from_envelope(rpc(error)).llm_hint
    assert hint.endswith(TRUNCATED)
    assert len(hint) < 1200
    redacted = from_envelope(rpc({"code": -32000, "message": "key sk-" + "b" * 30})).llm_hint
    assert "bbbbbbbb" not in redacted and "[REDACTED]" in redacted


@pytest.mark.parametrize(
    "document",
    [
        {"jsonrpc": "2.0", "id": 1, "result": {"content": []}},
        {"jsonrpc": "2.0", "id": 1, "result": None, "error": None},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": False}},
        {"jsonrpc": "2.0", "id": 1, "result": [1, 2]},
        # the JSON-RPC shape decides alone: its result is not read as another envelope
        {"jsonrpc": "2.0", "id": 1, "result": {"ok": False, "error": "rate_limited"}},
        # not JSON-RPC 2.0: the error member of another version is not read
        {"jsonrpc": "1.0", "id": 1, "error": {"code": -32601}},
    ],
)
def test_jsonrpc_successes(document: dict[str, Any]) -> None:
    assert from_envelope(document).ok


def test_jsonrpc_batch_first_failing_member() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "result": 19},
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32700, "message": "Parse error"}},
    ]
    assert from_envelope(batch).code is Code.NOT_FOUND
    assert from_envelope(json.dumps(batch)).code is Code.NOT_FOUND
    assert from_envelope(batch[:1]).ok
    # Only the first 16 members are looked at.
    assert from_envelope([batch[0]] * 16 + [batch[1]]).ok
    assert from_envelope([batch[0]] * 15 + [batch[1]]).code is Code.NOT_FOUND


def test_arrays_are_only_jsonrpc_batches() -> None:
    """A list of records is data, whatever its members say."""
    assert from_envelope([{"ok": False, "error": "rate_limited"}]).ok
    assert from_envelope([{"errors": [{"message": "x"}]}]).ok
    assert from_envelope([1, "event: error"]).ok


# --- MCP tool results --------------------------------------------------------------------


TOOL_CASES = [
    ("input-validation", "Invalid departure date: must be in the future.", Code.INVALID_REQUEST),
    ("rate-limit", "Failed to fetch weather data: API rate limit exceeded", Code.RATE_LIMITED),
    ("rate-limit-hyphen", "Rate-limit reached", Code.RATE_LIMITED),
    ("ratelimited", "upstream ratelimited us", Code.RATE_LIMITED),
    ("too-many-requests", "HTTP 429 Too Many Requests", Code.RATE_LIMITED),
    ("throttled", "Request was THROTTLED", Code.RATE_LIMITED),
    ("unknown-tool", "Unknown tool: search_web", Code.NOT_FOUND),
    # no phrase: general evidence (SPEC 11.12) reads other wording, the strongest reading first
    ("not-authorized-words", "Unauthorized: token expired", Code.UNAUTHORIZED),
    ("timeout-words", "The request timed out", Code.TIMEOUT),
    ("neutral-words", "The widget could not be frobnicated", Code.INVALID_REQUEST),
    ("empty", "", Code.INVALID_REQUEST),
    # only A-Z are lowered: the Kelvin sign is not a k in any port
    ("kelvin-sign", "UN\u212aNOWN TOOL: x", Code.INVALID_REQUEST),
]


@pytest.mark.parametrize(
    ("text", "code"), [case[1:] for case in TOOL_CASES], ids=[case[0] for case in TOOL_CASES]
)
def test_tool_error_rules(text: str, code: Code) -> None:
    for envelope in (
        tool_result(text),
        {"jsonrpc": "2.0", "id": 4, "result": tool_result(text)},
        {"content": [{"type": "text", "text": text}], "is_error": True},
    ):
        outcome = from_envelope(envelope)
        assert outcome.code is code
        assert where_of(outcome) == " (tool error)"
    said = from_envelope(tool_result(text)).llm_hint
    assert said.endswith(f" The API said: {text}") if text else "The API said" not in said


def test_tool_error_reads_only_text_blocks_joined() -> None:
    result = {
        "isError": True,
        "content": [
            {"type": "image", "data": "rate limit", "mimeType": "image/png"},
            {"type": "text", "text": "first"},
            {"type": "text", "text": "second"},
            {"type": "text", "text": 5},
        ],
    }
    outcome = from_envelope(result)
    assert outcome.code is Code.INVALID_REQUEST
    assert outcome.llm_hint.endswith(" The API said: first second")


@pytest.mark.parametrize("flag", [False, None, "true", 1])
def test_tool_result_without_a_true_is_error_is_a_success(flag: object) -> None:
    assert from_envelope({"content": [{"type": "text", "text": "rate limit"}], "isError": flag})


@pytest.mark.parametrize("content", [None, "rate limit", {"type": "text"}])
def test_tool_result_needs_a_content_list(content: object) -> None:
    """``isError`` alone is not enough: a CallToolResult always has a content list."""
    assert from_envelope({"isError": True, "content": content}).ok
    assert from_envelope({"isError": True, "message": "rate limit"}).ok


def test_tool_error_relays_an_agenterr_wire_outcome() -> None:
    peer = Outcome.failure(Code.RATE_LIMITED, status=429, retry_after=7).to_dict()
    outcome = from_envelope(tool_result("ignored", structuredContent=peer))
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 7
    assert outcome.status == 429
    assert outcome.llm_hint == peer["llm_hint"]


def test_relayed_hint_is_cleaned_and_capped() -> None:
    wire = {
        "ok": False,
        "code": "INVALID_REQUEST",
        "llm_hint": "fix it\n\x1b[31mnow\u202e sk-" + "c" * 30 + " " + "x" * 5000,
    }
    outcome = from_envelope(tool_result("t", structured_content=wire))
    assert outcome.code is Code.INVALID_REQUEST
    assert outcome.llm_hint.startswith("fix it now [REDACTED] ")
    assert outcome.llm_hint.endswith(TRUNCATED)
    assert len(outcome.llm_hint) <= RELAY_CAP + len(TRUNCATED)


def test_relayed_wire_without_hint_gets_the_standard_one() -> None:
    outcome = from_envelope(tool_result("t", structuredContent={"ok": False, "code": "NOT_FOUND"}))
    assert outcome.llm_hint == hint_for(Code.NOT_FOUND, " (tool error)")


@pytest.mark.parametrize(
    "structured",
    [
        {"ok": True},
        {"ok": False, "code": "NOPE"},
        {"ok": False, "code": "UNKNOWN", "retry_after_seconds": 3},
        {"temperature": 21},
    ],
)
def test_tool_error_ignores_other_structured_content(structured: dict[str, Any]) -> None:
    outcome = from_envelope(tool_result("Too many requests", structuredContent=structured))
    assert outcome.code is Code.RATE_LIMITED


def test_mcp_sdk_call_tool_result_objects() -> None:
    """The installed ``mcp`` SDK's CallToolResult (2.x: ``is_error``) and a 1.x-shaped one."""
    import mcp.types

    failed = mcp.types.CallToolResult(
        content=[mcp.types.TextContent(type="text", text="API rate limit exceeded")],
        is_error=True,
    )
    assert from_envelope(failed).code is Code.RATE_LIMITED
    ok = mcp.types.CallToolResult(content=[mcp.types.TextContent(type="text", text="rate limit")])
    assert from_envelope(ok).ok
    relayed = mcp.types.CallToolResult(
        content=[], is_error=True, structured_content=Outcome.failure(Code.TIMEOUT).to_dict()
    )
    assert from_envelope(relayed).code is Code.TIMEOUT

    class Block:
        type = "text"
        text = "Unknown tool: nope"

    class Legacy:  # mcp 1.x spelling
        def __init__(self) -> None:
            self.isError = True
            self.content = [Block()]
            self.structuredContent = None

    assert from_envelope(Legacy()).code is Code.NOT_FOUND


# --- HTTP statuses named in a tool error (SPEC 12.4) --------------------------------------


def test_reason_phrases_are_the_registered_ones() -> None:
    """Every registered 4xx and 5xx (418 is unassigned) with the phrase Python's own table
    prints among its wordings; no phrase names two statuses."""
    registered = {int(s) for s in HTTPStatus if s >= 400 and s != 418}
    assert set(REASON_PHRASES) == registered
    for status in HTTPStatus:
        if status in registered:
            assert status.phrase in REASON_PHRASES[status]
    phrases = [phrase for wordings in REASON_PHRASES.values() for phrase in wordings]
    assert len(phrases) == len(set(phrases))


NAMED_STATUS_CASES = [
    ("http-space", "upstream returned HTTP 503", 503),
    ("http-version", "HTTP/1.1 502 Bad Gateway", 502),
    ("http-major-version", "got HTTP/2 404 from the API", 404),
    ("http-spaces", "HTTP   408", 408),
    ("http-in-brackets", "request failed (HTTP 429)", 429),
    ("httpx", "Client error '401 Unauthorized' for url 'https://a.test/x'", 401),
    ("go-github", "GET https://api.github.com/repos/o/r: 403 Forbidden []", 403),
    ("old-wording", "413 Payload Too Large", 413),
    ("new-wording", "422 Unprocessable Content", 422),
    ("phrase-with-http", "505 HTTP Version Not Supported", 505),
    ("first-failure-counts", "HTTP 200 OK, retried: HTTP 504, then 503 Service Unavailable", 504),
    ("legal", "451 Unavailable For Legal Reasons", 451),
]


@pytest.mark.parametrize(
    ("text", "status"),
    [case[1:] for case in NAMED_STATUS_CASES],
    ids=[case[0] for case in NAMED_STATUS_CASES],
)
def test_tool_error_naming_a_status(text: str, status: int) -> None:
    """The status table's code; {where} names the status; the recorded status stays 0."""
    code = code_for_status(status)
    assert code is not None
    for envelope in (
        tool_result(text),
        {"jsonrpc": "2.0", "id": 4, "result": tool_result(text)},
        {"content": [{"type": "text", "text": text}], "is_error": True},
    ):
        outcome = from_envelope(envelope)
        assert outcome == Outcome(
            code, hint_for(code, f" (tool error, HTTP {status})", snippet(text)), None, 0
        )


@pytest.mark.parametrize(
    "text",
    [
        "order 404 is missing",  # a bare number
        "http 503",  # HTTP as written, upper-case
        "XHTTP 503",
        "HTTP 5030",
        "HTTP 503rd",
        "HTTP_503",
        "HTTP:503",
        "HTTP\t503",
        "HTTP 302 Found",  # not a failure
        "HTTP 600",
        "1404 Not Found",
        "404 not found",  # the phrase as registered
        "404 Not Founder",
        "500 Not Found",  # another status's phrase
        "423 locked accounts",
        "failed with status 429",
        "Error code: 401",
        "404 Client Error: Not Found for url: https://a.test/x",
    ],
)
def test_tool_error_status_needs_the_exact_form(text: str) -> None:
    """No status is named (general evidence may still read the words: 'Not Found')."""
    outcome = from_envelope(tool_result(text))
    assert where_of(outcome) == " (tool error)"
    assert outcome.status == 0


def test_tool_error_phrases_come_before_a_named_status() -> None:
    """GitHub's 403 that is a rate limit, in the words of section 11.4."""
    outcome = from_envelope(tool_result("HTTP 403: API rate limit exceeded"))
    assert outcome.code is Code.RATE_LIMITED
    assert where_of(outcome) == " (tool error)"
    assert from_envelope(tool_result("HTTP 404: Unknown tool x")).code is Code.NOT_FOUND


def test_tool_error_status_in_any_text_block_and_only_in_the_window() -> None:
    two = {
        "isError": True,
        "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "HTTP 502"}],
    }
    assert where_of(from_envelope(two)) == " (tool error, HTTP 502)"
    # The last character of the window completes the status; one more pushes it out.
    fits = " " * (SCAN_WINDOW - len("HTTP 503")) + "HTTP 503"
    assert from_envelope(tool_result(fits)).code is Code.UNAVAILABLE
    assert from_envelope(tool_result("x" + fits)).code is Code.INVALID_REQUEST


def test_tool_error_named_status_takes_the_headers_delay() -> None:
    outcome = from_envelope(tool_result("HTTP 429"), headers={"Retry-After": "5"})
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 5
    assert outcome.status == 0
    long_wait = from_envelope(tool_result("HTTP 429"), headers={"Retry-After": "7200"})
    assert long_wait.code is Code.UNAUTHORIZED
    assert long_wait.llm_hint.startswith(
        "The API refused this call because a quota or billing limit is exhausted"
        " (tool error, HTTP 429)."
    )


# --- {"ok": false} ----------------------------------------------------------------------


API_CASES = [
    ("rate_limited", Code.RATE_LIMITED),
    ("ratelimited", Code.RATE_LIMITED),
    ("invalid_auth", Code.UNAUTHORIZED),
    ("not_authed", Code.UNAUTHORIZED),
    ("missing_scope", Code.UNAUTHORIZED),
    ("channel_not_found", Code.NOT_FOUND),
    ("is_archived", Code.INVALID_REQUEST),
    ("internal_error", Code.UNAVAILABLE),
    ("request_timeout", Code.TIMEOUT),
    ("fatal_error", Code.UNKNOWN),
    ("msg_too_long", Code.INVALID_REQUEST),  # unknown identifier: the method's own error
    ("cant_update_message", Code.INVALID_REQUEST),
]


@pytest.mark.parametrize(("error", "code"), API_CASES)
def test_api_error_identifiers(error: str, code: Code) -> None:
    outcome = from_envelope({"ok": False, "error": error})
    assert outcome.code is code
    assert where_of(outcome) == f' (API error "{error}")'


@pytest.mark.parametrize(
    ("document", "code", "where"),
    [
        ({"ok": False}, Code.UNKNOWN, " (API error)"),
        ({"ok": False, "error": ""}, Code.UNKNOWN, " (API error)"),
        ({"ok": False, "error": None}, Code.UNKNOWN, " (API error)"),
        ({"ok": False, "error": "Something went wrong"}, Code.INVALID_REQUEST, " (API error)"),
        ({"ok": False, "error": "x" * 65}, Code.INVALID_REQUEST, " (API error)"),
        (
            {"ok": False, "error": {"code": "rate_limit_exceeded", "message": "slow down"}},
            Code.RATE_LIMITED,
            ' (API error "rate_limit_exceeded")',
        ),
        ({"ok": False, "error": {"message": "?"}}, Code.UNKNOWN, " (API error)"),
        ({"ok": False, "code": "AccessDenied"}, Code.UNAUTHORIZED, ' (API error "AccessDenied")'),
    ],
)
def test_api_error_shapes(document: dict[str, Any], code: Code, where: str) -> None:
    outcome = from_envelope(document)
    assert outcome.code is code
    assert where_of(outcome) == where


@pytest.mark.parametrize("ok", [True, "false", 0, None])
def test_ok_must_be_false_itself(ok: object) -> None:
    assert from_envelope({"ok": ok, "error": "rate_limited"}).ok


def test_api_error_quotes_the_payload_as_given() -> None:
    text = '{"ok": false, "error": "missing_scope", "needed": "chat:write"}'
    assert from_envelope(text).llm_hint.endswith(f" The API said: {text}")
    parsed = from_envelope(json.loads(text)).llm_hint
    assert parsed.endswith(
        ' The API said: {"ok":false,"error":"missing_scope","needed":"chat:write"}'
    )


def test_ok_false_relays_an_agenterr_wire_outcome() -> None:
    peer = Outcome.failure(Code.UNAVAILABLE, retry_after=3).to_dict()
    outcome = from_envelope(json.dumps(peer))
    assert outcome.code is Code.UNAVAILABLE
    assert outcome.retry_after == 3
    assert outcome.llm_hint == peer["llm_hint"]
    # Without a delay of its own, the response's Retry-After counts.
    bare = Outcome.failure(Code.UNAVAILABLE).to_dict()
    assert from_envelope(bare, headers={"Retry-After": "9"}).retry_after == 9


def test_retry_after_is_honoured_for_transient_codes_only() -> None:
    headers = {"Retry-After": "12"}
    limited = from_envelope({"ok": False, "error": "rate_limited"}, headers=headers)
    assert limited.retry_after == 12
    assert limited.to_dict()["retry_after_seconds"] == 12
    assert "after at least 12 seconds" in limited.llm_hint
    auth = from_envelope({"ok": False, "error": "invalid_auth"}, headers=headers)
    assert auth.retry_after is None
    dated = from_envelope(
        {"ok": False, "error": "rate_limited"},
        headers={"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"},
        now=784111737.0,
    )
    assert dated.retry_after == 40


def test_retry_after_measured_against_the_response_date() -> None:
    headers = {
        "Date": "Sun, 06 Nov 1994 08:49:00 GMT",
        "Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT",
    }
    outcome = from_envelope({"ok": False, "error": "rate_limited"}, headers=headers, now=0.0)
    assert outcome.retry_after == 37


def test_a_very_long_wait_is_a_quota() -> None:
    outcome = from_envelope({"ok": False, "error": "rate_limited"}, headers={"Retry-After": "7200"})
    assert outcome.code is Code.UNAUTHORIZED
    assert outcome.retry_after is None
    assert outcome.llm_hint == hint_for(
        Code.UNAUTHORIZED,
        ' (API error "rate_limited")',
        '{"ok":false,"error":"rate_limited"}',
        quota=True,
    )


# --- GraphQL ----------------------------------------------------------------------------


def gql(*errors: object, **document: object) -> dict[str, Any]:
    return {"errors": list(errors), **document}


GRAPHQL_CASES = [
    ("THROTTLED", Code.RATE_LIMITED),
    ("ACCESS_DENIED", Code.UNAUTHORIZED),
    ("SHOP_INACTIVE", Code.UNAUTHORIZED),
    ("INTERNAL_SERVER_ERROR", Code.UNAVAILABLE),
    ("MAX_COST_EXCEEDED", Code.INVALID_REQUEST),
    ("BAD_USER_INPUT", Code.INVALID_REQUEST),
    ("BAD_REQUEST", Code.INVALID_REQUEST),
    ("GRAPHQL_VALIDATION_FAILED", Code.INVALID_REQUEST),
    ("GRAPHQL_PARSE_FAILED", Code.INVALID_REQUEST),
    ("PERSISTED_QUERY_NOT_FOUND", Code.INVALID_REQUEST),
    ("PERSISTED_QUERY_NOT_SUPPORTED", Code.INVALID_REQUEST),
    ("OPERATION_RESOLUTION_FAILURE", Code.INVALID_REQUEST),
    ("UNAUTHENTICATED", Code.UNAUTHORIZED),
    ("FORBIDDEN", Code.UNAUTHORIZED),
]


@pytest.mark.parametrize(("identifier", "code"), GRAPHQL_CASES)
def test_graphql_extensions_codes(identifier: str, code: Code) -> None:
    outcome = from_envelope(gql({"message": "m", "extensions": {"code": identifier}}))
    assert outcome.code is code
    assert where_of(outcome) == f' (GraphQL error "{identifier}")'
    assert outcome.llm_hint.endswith(" The API said: m")


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ({"type": "NOT_FOUND", "message": "Could not resolve"}, Code.NOT_FOUND),  # GitHub
        ({"type": "RATE_LIMITED", "message": "API rate limit exceeded"}, Code.RATE_LIMITED),
        ({"type": "FORBIDDEN", "message": "SAML enforcement"}, Code.UNAUTHORIZED),
        ({"code": "THROTTLED", "message": "m"}, Code.RATE_LIMITED),
    ],
)
def test_graphql_type_and_code_members(error: dict[str, Any], code: Code) -> None:
    assert from_envelope(gql(error, data={"repository": None})).code is code


def test_graphql_identifiers_outrank_each_other() -> None:
    outcome = from_envelope(
        gql(
            {"message": "bad", "extensions": {"code": "BAD_USER_INPUT"}},
            {"message": "who?", "extensions": {"code": "UNAUTHENTICATED"}},
        )
    )
    assert outcome.code is Code.UNAUTHORIZED
    assert where_of(outcome) == ' (GraphQL error "UNAUTHENTICATED")'
    assert outcome.llm_hint.endswith(" The API said: bad; who?")


@pytest.mark.parametrize(
    ("document", "code", "where"),
    [
        # a request error (no data member) is the request's fault
        (gql({"message": 'Cannot query field "x"'}), Code.INVALID_REQUEST, " (GraphQL error)"),
        # an execution error (data null) says nothing about what would help
        (gql({"message": "boom"}, data=None), Code.UNKNOWN, " (GraphQL error)"),
        (gql({"message": "boom"}, data={"a": None}), Code.UNKNOWN, " (GraphQL error)"),
        # an unknown identifier is shown, and the default still applies
        (
            gql({"message": "m", "extensions": {"code": "WEIRD"}}, data=None),
            Code.UNKNOWN,
            ' (GraphQL error "WEIRD")',
        ),
        (gql({"message": "Secondary rate limit"}), Code.RATE_LIMITED, " (GraphQL error)"),
        (gql("plain string error"), Code.INVALID_REQUEST, " (GraphQL error)"),
    ],
)
def test_graphql_without_a_known_identifier(
    document: dict[str, Any], code: Code, where: str
) -> None:
    outcome = from_envelope(document)
    assert outcome.code is code
    assert where_of(outcome) == where


def test_graphql_partial_data_is_a_success() -> None:
    document = {
        "data": {"a0": {"id": "R_1"}, "a1": None},
        "errors": [{"type": "NOT_FOUND", "path": ["a1"], "message": "Could not resolve"}],
    }
    assert from_envelope(document).ok
    assert from_envelope({"data": {"a": 1}, "errors": [{"extensions": {"code": "THROTTLED"}}]})


@pytest.mark.parametrize(
    "document",
    [
        {"errors": []},
        {"errors": "x"},
        {"data": {"shop": {"name": "x"}}},
        {"data": {"productCreate": {"product": {"id": 1}, "userErrors": []}}},
        {"data": None},
        {"data": [1]},
    ],
)
def test_graphql_successes(document: dict[str, Any]) -> None:
    assert from_envelope(document).ok


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ({"userErrors": [{"field": ["title"], "message": "Title can't be blank"}]}, None),
        (
            {
                "customerUserErrors": [
                    {"field": ["input", "email"], "message": "Email is invalid", "code": "INVALID"},
                    {"field": ["lines", 0, "quantity"], "message": "Too many"},
                    {"message": "No field"},
                    {"field": "note", "message": "Too long"},
                ]
            },
            "input.email: Email is invalid; lines.0.quantity: Too many; No field; note: Too long",
        ),
    ],
)
def test_graphql_user_errors(payload: dict[str, Any], said: str | None) -> None:
    outcome = from_envelope({"data": {"mutation": {"result": None, **payload}}})
    assert outcome.code is Code.INVALID_REQUEST
    assert where_of(outcome) == " (GraphQL userErrors)"
    assert outcome.llm_hint.endswith(" The API said: " + (said or "title: Title can't be blank"))


def test_graphql_user_errors_after_partial_errors() -> None:
    document = {
        "data": {"m": {"x": 1, "userErrors": [{"message": "bad input"}]}},
        "errors": [{"message": "field failed"}],
    }
    assert from_envelope(document).code is Code.INVALID_REQUEST


# --- event streams ------------------------------------------------------------------------

ANTHROPIC_OVERLOADED = (
    'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
    '"message": "Overloaded"}}'
)


def test_anthropic_streamed_error_exact_hint() -> None:
    stream = sse(
        'event: message_start\ndata: {"type": "message_start", "message": {}}',
        "event: ping\ndata: {}",
        ANTHROPIC_OVERLOADED,
    )
    outcome = from_envelope(stream, headers={"content-type": "text/event-stream"})
    assert outcome.code is Code.UNAVAILABLE
    assert outcome.llm_hint == (
        'The API is temporarily unavailable (stream error "overloaded_error"). This is NOT a '
        "problem with your arguments — do not modify them. Retry the identical call after a "
        'short delay. The API said: {"type": "error", "error": {"type": "overloaded_error", '
        '"message": "Overloaded"}}'
    )


STREAM_CASES = [
    (
        "anthropic-rate",
        'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error"}}',
        Code.RATE_LIMITED,
        ' (stream error "rate_limit_error")',
    ),
    (
        "anthropic-invalid",
        'event: error\ndata: {"type":"error","error":'
        '{"type":"invalid_request_error","message":"bad"}}',
        Code.INVALID_REQUEST,
        ' (stream error "invalid_request_error")',
    ),
    (
        "anthropic-auth",
        'event: error\ndata: {"type":"error","error":{"type":"authentication_error"}}',
        Code.UNAUTHORIZED,
        ' (stream error "authentication_error")',
    ),
    (
        "anthropic-billing",
        'event: error\ndata: {"type":"error","error":{"type":"billing_error"}}',
        Code.UNAUTHORIZED,
        ' (stream error "billing_error")',
    ),
    (
        "openai-responses",
        'event: error\ndata: {"type":"error","code":"rate_limit_exceeded",'
        '"message":"slow down","param":null}',
        Code.RATE_LIMITED,
        ' (stream error "rate_limit_exceeded")',
    ),
    (
        "openai-chat-data-only",
        'data: {"error":{"message":"The server had an error","type":"server_error","code":null}}',
        Code.UNAVAILABLE,
        ' (stream error "server_error")',
    ),
    (
        "unknown-type",
        'event: error\ndata: {"type":"error","error":{"type":"mystery_error"}}',
        Code.UNKNOWN,
        ' (stream error "mystery_error")',
    ),
    ("text-data", "event: error\ndata: Internal server error", Code.UNKNOWN, " (stream error)"),
    (
        "text-rate-words",
        "event: error\ndata: rate limit reached",
        Code.RATE_LIMITED,
        " (stream error)",
    ),
    ("no-data", "event: error", Code.UNKNOWN, " (stream error)"),
    (
        "empty-error-object",
        'event: error\ndata: {"type":"error","error":{}}',
        Code.UNKNOWN,
        " (stream error)",
    ),
    (
        "mcp-over-sse",
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"error":'
        '{"code":-32601,"message":"Method not found"}}',
        Code.NOT_FOUND,
        " (JSON-RPC error -32601)",
    ),
    (
        "mcp-tool-over-sse",
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":'
        '{"content":[{"type":"text","text":"rate limit"}],"isError":true}}',
        Code.RATE_LIMITED,
        " (tool error)",
    ),
    (
        "comment-first",
        ': keep-alive\n\nevent: error\ndata: {"error":{"type":"overloaded_error"}}',
        Code.UNAVAILABLE,
        ' (stream error "overloaded_error")',
    ),
    (
        "multi-line-data",
        'event: error\ndata: {"type":"error",\ndata: "error":{"type":"api_error"}}',
        Code.UNAVAILABLE,
        ' (stream error "api_error")',
    ),
    (
        "no-space-after-colon",
        'event:error\ndata:{"error":{"type":"overloaded_error"}}',
        Code.UNAVAILABLE,
        ' (stream error "overloaded_error")',
    ),
]


@pytest.mark.parametrize(
    ("frame", "code", "where"),
    [case[1:] for case in STREAM_CASES],
    ids=[case[0] for case in STREAM_CASES],
)
def test_stream_errors(frame: str, code: Code, where: str) -> None:
    for stream in (sse('data: {"delta": "hi"}', frame), 'data: {"delta": "hi"}\n\n' + frame):
        outcome = from_envelope(stream)
        assert outcome.code is code, stream
        assert where_of(outcome) == where
        assert from_envelope(stream.encode()).code is code
        assert from_envelope(stream.replace("\n", "\r\n")).code is code


def test_stream_error_quotes_the_event_data() -> None:
    outcome = from_envelope(sse("event: error\ndata: line one\ndata: line two"))
    assert outcome.llm_hint.endswith(" The API said: line one line two")


def test_stream_error_honours_retry_delays() -> None:
    frame = 'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error"}}'
    assert from_envelope(sse(frame), headers={"retry-after": "4"}).retry_after == 4
    google = {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "6s"}],
        }
    }
    outcome = from_envelope(sse("data: " + json.dumps(google)))
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 6


def test_the_first_failing_event_decides() -> None:
    stream = sse(
        'event: error\ndata: {"error":{"type":"rate_limit_error"}}',
        'event: error\ndata: {"error":{"type":"authentication_error"}}',
    )
    assert from_envelope(stream).code is Code.RATE_LIMITED


@pytest.mark.parametrize(
    "text",
    [
        sse('event: message_start\ndata: {"type":"message_start"}', "data: [DONE]"),
        sse('data: {"choices": [{"delta": {"content": "the error was fixed"}}]}'),
        sse("event: message\ndata: not json at all"),
        sse('data: {"jsonrpc": "2.0", "id": 1, "result": {}}'),
        sse('data: {"type": "error", "message": "no error object"}'),
        sse('data: {"error": null}'),
        # not an event stream: prose that mentions a frame is not one
        "The log said:\nevent: error\ndata: {}\n\n",
        "hello world",
        "",
        "   ",
    ],
)
def test_streams_and_text_without_errors(text: str) -> None:
    assert from_envelope(text).ok


def test_stream_without_final_blank_line_is_complete() -> None:
    assert from_envelope("event: error\ndata: boom").code is Code.UNKNOWN
    assert from_envelope("data: x\n\nevent: error").code is Code.UNKNOWN


def test_top_level_stream_error_object() -> None:
    """Anthropic's error shape, already parsed or as text, outside a stream."""
    document = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert from_envelope(document).code is Code.UNAVAILABLE
    assert from_envelope(json.dumps(document)).code is Code.UNAVAILABLE
    assert from_envelope({"type": "error", "message": "a log line"}).ok
    # A bare error member in a 2xx is a reply that failed (SPEC 12.16, item 4).
    assert from_envelope({"error": {"type": "overloaded_error"}}).code is Code.UNAVAILABLE
    assert from_envelope({"error": {"type": "overloaded_error"}, "ok": True}).ok


# --- gRPC ------------------------------------------------------------------------------

GRPC_CODES = {
    1: Code.TIMEOUT,  # CANCELLED
    2: Code.UNKNOWN,
    3: Code.INVALID_REQUEST,
    4: Code.TIMEOUT,
    5: Code.NOT_FOUND,
    6: Code.INVALID_REQUEST,
    7: Code.UNAUTHORIZED,
    8: Code.RATE_LIMITED,
    9: Code.INVALID_REQUEST,
    10: Code.UNAVAILABLE,
    11: Code.INVALID_REQUEST,
    12: Code.INVALID_REQUEST,
    13: Code.UNAVAILABLE,
    14: Code.UNAVAILABLE,
    15: Code.UNKNOWN,
    16: Code.UNAUTHORIZED,
}


@pytest.mark.parametrize(("number", "code"), sorted(GRPC_CODES.items()))
def test_grpc_status(number: int, code: Code) -> None:
    outcome = from_envelope(b"", headers={"grpc-status": str(number)})
    assert outcome.code is code
    assert where_of(outcome) == f" (gRPC status {number} {GRPC_NAMES[number]})"


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ("17", " (gRPC status 17)"),
        ("abc", " (gRPC status)"),
        ("", " (gRPC status)"),
        ("-1", " (gRPC status)"),
        ("1234567890", " (gRPC status)"),
    ],
)
def test_grpc_status_unreadable(value: str, where: str) -> None:
    outcome = from_envelope(None, headers={"Grpc-Status": value})
    assert outcome.code is Code.UNKNOWN
    assert where_of(outcome) == where


def test_grpc_ok_lets_the_payload_decide() -> None:
    assert from_envelope(b"\x00\x00", headers={"grpc-status": "0"}).ok
    assert from_envelope(None, headers={"grpc-status": " 00 "}).ok
    slack = {"ok": False, "error": "rate_limited"}
    assert from_envelope(slack, headers={"grpc-status": "0"}).code is Code.RATE_LIMITED


def test_grpc_status_comes_before_the_payload() -> None:
    slack = {"ok": False, "error": "rate_limited"}
    assert from_envelope(slack, headers={"grpc-status": "5"}).code is Code.NOT_FOUND


def test_grpc_message_is_percent_decoded_and_quoted() -> None:
    headers = [
        ("grpc-status", "14"),
        ("grpc-message", "upstream%20connect%20error%3A%20%E2%9C%93%ZZ"),
        ("retry-after", "2"),
    ]
    outcome = from_envelope(None, headers=headers)
    assert outcome.retry_after == 2
    assert outcome.llm_hint == (
        "The API is temporarily unavailable (gRPC status 14 UNAVAILABLE). This is NOT a "
        "problem with your arguments — do not modify them. Retry the identical call after at "
        "least 2 seconds. The API said: upstream connect error: ✓%ZZ"
    )
    bad_utf8 = from_envelope(None, headers={"grpc-status": "3", "grpc-message": "%FF"})
    assert bad_utf8.llm_hint.endswith(" The API said: \ufffd")


# --- payload forms, bounds and malformed input ----------------------------------------------


def test_bytes_and_buffers() -> None:
    body = b'\xef\xbb\xbf{"ok": false, "error": "invalid_auth"}'
    for payload in (body, bytearray(body), memoryview(body)):
        assert from_envelope(payload).code is Code.UNAUTHORIZED
    assert from_envelope('\ufeff{"ok": false, "error": "invalid_auth"}').code is Code.UNAUTHORIZED
    assert from_envelope(b'{"ok": false, "error": "\xff"}').code is Code.INVALID_REQUEST


@pytest.mark.parametrize(
    "payload",
    [
        None,
        0,
        1.5,
        True,
        "5",
        "null",
        "{",
        '{"ok": false, "error": "rate_limited"',
        '{"ok": false, "error": "rate_limited", "x": NaN}',  # not JSON: no port parses it
        '{"ok": false, "error": "rate_limited", "x": Infinity}',
        "[1, 2",
        object(),
        (1, 2),
        {"ok": True},
        {},
        [],
        Outcome.failure(Code.UNKNOWN),
    ],
)
def test_no_envelope_is_ok(payload: object) -> None:
    outcome = from_envelope(payload)
    assert outcome.ok
    assert outcome == Outcome()


def test_only_the_prefix_is_parsed() -> None:
    error = '{"ok": false, "error": "rate_limited"}'
    fits = error + " " * (PARSE_LIMIT - len(error))
    assert from_envelope(fits).code is Code.RATE_LIMITED
    assert from_envelope(fits + " ").ok  # one character too many: not parsed at all
    assert from_envelope(fits.encode()).code is Code.RATE_LIMITED
    assert from_envelope(fits.encode() + b" ").ok
    # An event stream's prefix is still scanned; an event cut by the limit is not dispatched.
    frame = sse('event: error\ndata: {"error": {"type": "overloaded_error"}}')
    padding = sse("data: " + "x" * 1000) * 40
    assert len(padding) > PARSE_LIMIT
    assert from_envelope(frame + padding).code is Code.UNAVAILABLE
    assert from_envelope(padding + frame).ok
    cut = sse("data: x") + "event: error\ndata: {" + "x" * PARSE_LIMIT
    assert from_envelope(cut).ok
    ends_at_limit = "event: error\ndata: boom\n"
    ends_at_limit = "data: " + "y" * (PARSE_LIMIT - len(ends_at_limit) - 8) + "\n\n" + ends_at_limit
    assert len(ends_at_limit) == PARSE_LIMIT
    assert from_envelope(ends_at_limit).code is Code.UNKNOWN
    assert from_envelope(ends_at_limit + "more").ok  # the open event may be incomplete


def _best_of_three(payload: object) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        from_envelope(payload)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize(
    "make",
    [
        lambda n: '{"ok": false, "error": "rate_limited", "pad": "' + "x" * n + '"}',
        lambda n: ("data: " + "x" * 100 + "\n\n") * (n // 100),
        lambda n: b"event: message\ndata: " + b"y" * n,
        lambda n: {"ok": False, "error": "e" * n},
        lambda n: {"errors": [{"message": "m" * n}] * 10_000},
        lambda n: {"jsonrpc": "2.0", "error": {"code": -32000, "message": "m" * n}},
        lambda n: tool_result("t" * n),
        lambda n: tool_result("HTTP" + " " * n + "503"),
        lambda n: tool_result("404 Not Foun" * (n // 12)),
    ],
)
def test_cost_does_not_grow_with_the_payload(make: Any) -> None:
    """O(1) in payload size: 64 MiB costs what 64 KiB costs (within noise)."""
    small, large = make(64 * 1024), make(64 * 1024 * 1024)
    assert _best_of_three(large) <= 10 * _best_of_three(small) + 0.01


class HostileDict(dict[str, Any]):
    def get(self, key: str, default: object = None) -> Any:
        raise RuntimeError("no")


class HostileResponse:
    status_code = 200
    headers: ClassVar[dict[str, str]] = {"x": "y"}

    @property
    def _content(self) -> bytes:
        raise RuntimeError("no")


def test_hostile_input_never_raises() -> None:
    outcome = from_envelope(HostileDict(ok=False))
    assert outcome.code is Code.UNKNOWN
    assert isinstance(outcome.error, RuntimeError)
    assert from_envelope(HostileResponse()).ok
    assert from_envelope({"ok": False, "error": "x"}, headers=HostileDict()).failed


# --- response objects ---------------------------------------------------------------------


def test_httpx_responses() -> None:
    failed = httpx.Response(
        200, json={"ok": False, "error": "rate_limited"}, headers={"Retry-After": "5"}
    )
    outcome = from_envelope(failed)
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 5
    # Explicit headers replace the response's own.
    assert from_envelope(failed, headers={"retry-after": "8"}).retry_after == 8
    assert from_envelope(httpx.Response(200, json={"ok": True})).ok
    assert from_envelope(httpx.Response(200, headers={"grpc-status": "14"})).code is (
        Code.UNAVAILABLE
    )
    missing = from_envelope(httpx.Response(404, text="no such thing"))
    assert missing.code is Code.NOT_FOUND
    assert missing.status == 404


def test_requests_response() -> None:
    response = requests.Response()
    response.status_code = 200
    response._content = (
        b'{"errors": [{"message": "Throttled", "extensions": {"code": "THROTTLED"}}]}'
    )
    assert from_envelope(response).code is Code.RATE_LIMITED


# --- properties -----------------------------------------------------------------------------

_SSE_PARTS = [
    "event: error\n",
    "event: message\n",
    "data: ",
    '{"type":"error","error":{"type":"overloaded_error"}}',
    '{"jsonrpc":"2.0","error":{"code":-32601}}',
    '{"error":{"code":"rate_limited"}}',
    "\n",
    "\r\n",
    "\r",
    ":",
    "id: 1\n",
    "x" * 50,
    "\x1b[31m",
    "sk-" + "z" * 30,
    "\u202e",
]
payloads = st.one_of(
    s.bodies,
    st.lists(st.sampled_from(_SSE_PARTS), max_size=60).map("".join),
    st.lists(st.sampled_from(_SSE_PARTS), max_size=60).map(lambda p: "".join(p).encode()),
    st.builds(rpc, s.json_values),
    st.builds(lambda e: [rpc(e)], s.json_values),
    st.builds(lambda e, d: {"ok": False, "error": e, "data": d}, s.json_values, s.json_values),
    st.builds(lambda e, d: {"errors": e, "data": d}, s.json_values, s.json_values),
    st.builds(
        lambda c, sc: {"isError": True, "content": c, "structuredContent": sc},
        s.json_values,
        s.json_values,
    ),
    st.builds(lambda e: {"type": "error", "error": e}, s.json_values),
)
grpc_headers = st.one_of(
    s.headers,
    st.dictionaries(
        st.sampled_from(["grpc-status", "grpc-message", "Retry-After", "date"]),
        s.header_values,
        max_size=4,
    ),
)
# The longest template and the quota one, the longest {where} (64-character identifier),
# the wait phrase, then the capped quote.
HINT_BOUND = 600 + 100 + SNIPPET_CAP + len(TRUNCATED)


@settings(max_examples=250)
@given(payload=payloads, headers=grpc_headers)
def test_never_raises_and_is_well_formed(payload: object, headers: object) -> None:
    outcome = from_envelope(payload, headers=headers)
    assert isinstance(outcome, Outcome)
    wire = outcome.to_dict()
    assert Outcome.from_dict(json.loads(json.dumps(wire))).to_dict() == wire
    if outcome.failed:
        assert outcome.llm_hint and "\n" not in outcome.llm_hint
        assert len(outcome.llm_hint) <= max(HINT_BOUND, RELAY_CAP + len(TRUNCATED))
        assert outcome.status == 0 or not 200 <= outcome.status <= 299
    else:
        assert outcome == Outcome()
    if outcome.retry_after is not None:
        assert outcome.retryable


@settings(max_examples=80)
@given(
    head=st.lists(st.sampled_from(_SSE_PARTS), min_size=1, max_size=30).map("".join),
    tail_a=st.text(max_size=50),
    tail_b=st.text(max_size=50),
)
def test_nothing_past_the_prefix_matters(head: str, tail_a: str, tail_b: str) -> None:
    """Whatever follows the first PARSE_LIMIT characters, the outcome is the same."""
    prefix = (head * (PARSE_LIMIT // len(head) + 1))[:PARSE_LIMIT]
    first = from_envelope(prefix + "#" + tail_a)
    second = from_envelope(prefix + "#" + tail_b)
    assert first.to_dict() == second.to_dict()


# --- @classified_tool(envelopes=True) -------------------------------------------------------

SLACK_LIMITED = {"ok": False, "error": "rate_limited"}
SLACK_OK = {"ok": True, "channel": "C1"}


def test_envelopes_are_off_by_default() -> None:
    """A tool that returns an error-shaped payload as data is never second-guessed unasked."""

    @classified_tool
    def plain() -> dict[str, Any]:
        return SLACK_LIMITED

    @classified_tool(raises=True)
    def plain_raising() -> dict[str, Any]:
        return SLACK_LIMITED

    assert plain().ok and plain().value is SLACK_LIMITED
    assert plain_raising() is SLACK_LIMITED


def test_outcome_mode() -> None:
    seen: list[tuple[str, Outcome[Any], BaseException | None]] = []

    @classified_tool(envelopes=True, on_failure=lambda *a: seen.append(a))
    def post(payload: dict[str, Any]) -> dict[str, Any]:
        return payload

    failed = post(SLACK_LIMITED)
    assert failed.code is Code.RATE_LIMITED
    assert where_of(failed) == ' (API error "rate_limited")'
    assert seen == [("post", failed, None)]
    ok = post(SLACK_OK)
    assert ok.ok and ok.value is SLACK_OK


def test_envelopes_see_types_the_fast_path_already_knows() -> None:
    """Another tool returning dicts first must not let dicts skip the envelope check."""

    @classified_tool
    def other() -> dict[str, Any]:
        return {}

    @classified_tool(envelopes=True)
    def checked() -> dict[str, Any]:
        return SLACK_LIMITED

    @classified_tool(envelopes=True, raises=True)
    def checked_raising() -> str:
        return json.dumps(SLACK_LIMITED)

    other()
    other()
    assert checked().code is Code.RATE_LIMITED
    with pytest.raises(TransientToolError):
        checked_raising()


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (SLACK_LIMITED, TransientToolError),
        ({"ok": False, "error": "invalid_auth"}, AuthToolError),
        (rpc({"code": -32602, "message": "Invalid params"}), SelfCorrectableToolError),
        (rpc({"code": -32603, "message": "Internal error"}), IndeterminateToolError),
    ],
)
def test_raises_mode(payload: dict[str, Any], error: type[Exception]) -> None:
    @classified_tool(envelopes=True, raises=True)
    def call() -> dict[str, Any]:
        return payload

    with pytest.raises(error) as caught:
        call()
    assert caught.value.__cause__ is None
    assert caught.value.outcome == from_envelope(payload)  # type: ignore[attr-defined]


def test_raises_mode_returns_successes_unchanged() -> None:
    values: list[object] = [SLACK_OK, "plain text", b"bytes", [1, 2], 5, None, {"data": {}}]

    @classified_tool(envelopes=True, raises=True)
    def echo(value: object) -> object:
        return value

    for value in values:
        assert echo(value) is value


RPC_RESULT = {"jsonrpc": "2.0", "id": 7, "result": {"order": "o-1", "total": 12}}


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        (RPC_RESULT, {"order": "o-1", "total": 12}),
        ({"jsonrpc": "2.0", "id": 1, "result": None}, None),
        ({"jsonrpc": "2.0", "id": 1, "result": [1, 2], "error": None}, [1, 2]),
        ({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": False}}, None),
    ],
    ids=["object", "null", "error-null", "mcp-result"],
)
def test_a_jsonrpc_success_gives_its_result(reply: dict[str, Any], value: object) -> None:
    """A successful JSON-RPC response is the envelope; the call's value is its result, as a
    JSON-RPC client returns it, in both modes."""

    @classified_tool(envelopes=True)
    def call() -> Any:
        return reply

    @classified_tool(envelopes=True, raises=True)
    def call_raising() -> Any:
        return reply

    expected = reply["result"] if value is None else value
    assert call().ok and call().value == expected
    assert call_raising() == expected


def test_only_a_jsonrpc_response_object_is_unwrapped() -> None:
    """Text, a batch, another version or a reply without result stay as they are."""
    values: list[object] = [
        json.dumps(RPC_RESULT),
        [RPC_RESULT],
        {"jsonrpc": "1.0", "result": 1},
        {"jsonrpc": "2.0", "id": 1, "method": "notify"},
    ]

    @classified_tool(envelopes=True, raises=True)
    def echo(value: object) -> object:
        return value

    for value in values:
        assert echo(value) is value


@pytest.mark.asyncio
async def test_async_tools() -> None:
    @classified_tool(envelopes=True)
    async def fetch() -> str:
        return sse(ANTHROPIC_OVERLOADED)

    @classified_tool(envelopes=True, raises=True)
    async def fetch_raising() -> str:
        return sse(ANTHROPIC_OVERLOADED)

    assert (await fetch()).code is Code.UNAVAILABLE
    with pytest.raises(TransientToolError):
        await fetch_raising()


def test_generator_items_are_read_one_by_one() -> None:
    items = ['data: {"delta": "a"}\n\n', sse(ANTHROPIC_OVERLOADED), "never reached"]

    @classified_tool(envelopes=True)
    def stream() -> Iterator[str]:
        yield from items

    outcomes = list(stream())
    assert outcomes[0].ok and outcomes[0].value == items[0]
    assert outcomes[1].code is Code.UNAVAILABLE
    assert outcomes[2].ok  # an Outcome per item; the consumer decides when to stop

    @classified_tool(envelopes=True, raises=True)
    def stream_raising() -> Iterator[str]:
        yield from items

    gen = stream_raising()
    assert next(gen) == items[0]
    with pytest.raises(TransientToolError):
        next(gen)

    # A frame split across two items is not seen.
    halves = ["event: err", 'or\ndata: {"error": {"type": "overloaded_error"}}\n\n']

    @classified_tool(envelopes=True)
    def split() -> Iterator[str]:
        yield from halves

    assert all(outcome.ok for outcome in split())


@pytest.mark.asyncio
async def test_async_generator_items() -> None:
    @classified_tool(envelopes=True, raises=True)
    async def stream() -> Any:
        yield "data: ok\n\n"
        yield SLACK_LIMITED

    received = []
    with pytest.raises(TransientToolError):
        async for item in stream():
            received.append(item)
    assert received == ["data: ok\n\n"]


def test_returned_responses_and_tool_results() -> None:
    import mcp.types

    @classified_tool(envelopes=True)
    def respond(value: object) -> object:
        return value

    assert respond(httpx.Response(200, json=SLACK_LIMITED)).code is Code.RATE_LIMITED
    assert respond(httpx.Response(200, json=SLACK_OK)).ok
    assert respond(httpx.Response(503)).code is Code.UNAVAILABLE  # as without envelopes
    result = mcp.types.CallToolResult(
        content=[mcp.types.TextContent(type="text", text="Unknown tool: x")], is_error=True
    )
    assert respond(result).code is Code.NOT_FOUND
    passed: Outcome[Any] = Outcome.failure(Code.TIMEOUT)
    assert respond(passed) is passed


def test_non_idempotent_tools() -> None:
    """The server answered, so it may have acted: transient becomes UNKNOWN, except rate."""

    @classified_tool(envelopes=True, idempotent=False)
    def send(payload: object) -> object:
        return payload

    applied = send({"ok": False, "error": "internal_error"})
    assert applied.code is Code.UNKNOWN
    assert applied.llm_hint.startswith(
        'This call may already have taken effect (API error "internal_error"): '
    )
    assert send(SLACK_LIMITED).code is Code.RATE_LIMITED
    assert send({"ok": False, "error": "invalid_auth"}).code is Code.UNAUTHORIZED
    # A relayed peer outcome: its status decides, as for a response (503: not acted on).
    not_acted = Outcome.failure(Code.UNAVAILABLE, status=503).to_dict()
    assert send(not_acted).code is Code.UNAVAILABLE
    acted = Outcome.failure(Code.UNAVAILABLE, status=500).to_dict()
    assert send(acted).code is Code.UNKNOWN
    assert send(acted).status == 500
    # A status named in a tool error's text was not received: the server may have acted.
    named = send(tool_result("upstream answered HTTP 503"))
    assert named.code is Code.UNKNOWN
    assert named.llm_hint.startswith(
        "This call may already have taken effect (tool error, HTTP 503): "
    )


# --- the conformance runner's envelope input (SPEC 12.14) and two error kinds ---------------


def test_runner_envelope_input() -> None:
    from agenterr._protocol import outcome_for_request

    request = {
        "envelope": '{"ok": false, "error": "ratelimited"}',
        "headers": [["Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"]],
        "now": "Sun, 06 Nov 1994 08:49:07 GMT",
    }
    outcome = outcome_for_request(request)
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 30
    assert outcome_for_request({"envelope": {"ok": True}}).ok
    assert outcome_for_request({"envelope": [rpc({"code": -32601})]}).code is Code.NOT_FOUND
    for extra in ("status", "body", "error"):
        with pytest.raises(ValueError, match=f"^{extra}: not allowed with envelope"):
            outcome_for_request({"envelope": "", extra: None})
    with pytest.raises(ValueError, match=r"^headers:"):
        outcome_for_request({"envelope": "", "headers": 5})
    with pytest.raises(ValueError, match=r"^now:"):
        outcome_for_request({"envelope": "", "now": "yesterday"})


def test_runner_certificate_and_name_not_found_kinds() -> None:
    import socket
    import ssl

    from agenterr._protocol import make_error

    # SPEC 4.4: each kind's text is exactly the vector's message (quoted by 4.2, step 3.5).
    certificate = make_error({"kind": "certificate", "message": "self-signed"})
    assert type(certificate) is ssl.SSLCertVerificationError
    assert str(certificate) == "self-signed"
    missing = make_error({"kind": "name_not_found", "message": "no such host"})
    assert type(missing) is socket.gaierror
    assert missing.errno == socket.EAI_NONAME
    assert str(missing) == "no such host"
    cause = make_error({"kind": "other", "cause": {"kind": "name_not_found"}})
    assert isinstance(cause.__cause__, socket.gaierror)
