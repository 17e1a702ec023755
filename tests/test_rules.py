"""Rules as data: the Rule type, its checks at definition, and user rules at every scope."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

import agenterr
from agenterr import Code, Rule, RuleSet, add_rules, from_envelope, from_status, remove_rules
from agenterr._rules import BUILTIN, INDEX, JSONRPC_CODES, compile_rules, normalise

BUSY = Rule.field("state", "busy", Code.UNAVAILABLE, source="https://internal.example/docs")
QUOTA_77 = Rule.identifier("ERR_QUOTA_77", "UNAUTHORIZED", quota=True)
WARMING = Rule.phrase("gathering moss", Code.UNAVAILABLE)


@pytest.fixture(autouse=True)
def _no_process_rules() -> Iterator[None]:
    remove_rules()
    yield
    remove_rules()


# --- definition-time checks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "error", "words"),
    [
        (lambda: Rule.identifier("", Code.UNKNOWN), ValueError, "identifier must be"),
        (lambda: Rule.identifier("--", Code.UNKNOWN), ValueError, "no ASCII letter"),
        (lambda: Rule.identifier(7, Code.UNKNOWN), TypeError, "identifier must be a str"),
        (lambda: Rule.identifier("x", "NOPE"), ValueError, "unknown code 'NOPE'"),
        (lambda: Rule.identifier("x", 3), TypeError, "code must be a Code"),
        (lambda: Rule.identifier("x", Code.SCHEMA_INVALID), ValueError, "pre-flight"),
        (lambda: Rule.identifier("x", Code.RATE_LIMITED, quota=True), ValueError, "UNAUTHORIZED"),
        (lambda: Rule.phrase("   ", Code.UNKNOWN), ValueError, "not blank"),
        (lambda: Rule.phrase("x" * 300, Code.UNKNOWN), ValueError, "1 to 256"),
        (lambda: Rule.field("a..b", "x", Code.UNKNOWN), ValueError, "dotted names"),
        (lambda: Rule.field("a.b.c.d.e", "x", Code.UNKNOWN), ValueError, "dotted names"),
        (lambda: Rule.field("a", 1.5, Code.UNKNOWN), TypeError, "field value"),
        (lambda: Rule.field("a", None, Code.UNKNOWN), ValueError, "needs the value"),  # type: ignore[arg-type]
        (lambda: Rule.status(200, Code.UNKNOWN), ValueError, "not a failing HTTP status"),
        (lambda: Rule.status(600, Code.UNKNOWN), ValueError, "not a failing HTTP status"),
        (lambda: Rule.status("409", Code.UNKNOWN), TypeError, "status must be an int"),  # type: ignore[arg-type]
        (lambda: Rule.status(409, Code.UNKNOWN, host="not a host"), ValueError, "host name"),
        (lambda: Rule("regex", "x", Code.UNKNOWN), ValueError, "kind must be"),  # type: ignore[arg-type]
        (lambda: Rule("identifier", "x", Code.UNKNOWN, host="a.b"), ValueError, "status rules"),
        (lambda: Rule("phrase", "x", Code.UNKNOWN, value="v"), ValueError, "field rules"),
        (lambda: RuleSet([QUOTA_77, "x"]), TypeError, "Rule objects"),  # type: ignore[list-item]
        (lambda: RuleSet(5), TypeError, "Rule objects"),  # type: ignore[arg-type]
        (
            lambda: RuleSet([QUOTA_77, Rule.identifier("err-quota-77", Code.UNKNOWN)]),
            ValueError,
            "two meanings",
        ),
        (lambda: add_rules(WARMING, Rule.phrase("GATHERING MOSS", "TIMEOUT")), ValueError, "two"),
    ],
)
def test_a_malformed_rule_fails_at_definition(
    build: Any, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        build()


def test_a_bad_rules_argument_fails_at_the_call_not_silently() -> None:
    with pytest.raises(TypeError):
        from_status(400, "x", rules=[1])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        from_envelope({"ok": False}, rules=["x"])  # type: ignore[list-item]


def test_rules_are_values() -> None:
    assert Rule.identifier("ERR_QUOTA_77", Code.UNAUTHORIZED, quota=True) == QUOTA_77
    assert Rule.status(409, "UNAVAILABLE", host="API.Example.COM.").host == "api.example.com"
    assert RuleSet([QUOTA_77, QUOTA_77]).rules == (QUOTA_77, QUOTA_77)
    assert len(RuleSet([BUSY, WARMING])) == 2
    assert compile_rules(None) is None
    assert compile_rules(RuleSet()) is None
    assert compile_rules(QUOTA_77) is not None


# --- the built-in table is data ---------------------------------------------------------------


def test_builtin_rules_cite_their_source() -> None:
    for rule in BUILTIN:
        assert rule.source.startswith("https://"), rule
    for number, meaning in JSONRPC_CODES.items():
        assert meaning.source.startswith("https://"), number


def test_identifier_index_is_the_builtin_rows() -> None:
    rows = [r for r in BUILTIN if r.kind == "identifier" and r.scope == "any"]
    names = {normalise(str(r.match)) for r in rows}
    assert set(INDEX.identifiers) == names
    assert not set(INDEX.identifiers) & set(INDEX.envelope_identifiers)


# --- per call ------------------------------------------------------------------------------------


def test_a_call_rule_teaches_an_identifier() -> None:
    body = json.dumps({"code": "ERR_QUOTA_77", "message": "limit"})
    assert from_status(400, body).code is Code.INVALID_REQUEST
    out = from_status(400, body, rules=[QUOTA_77])
    assert out.code is Code.UNAUTHORIZED
    assert "quota or billing limit" in out.llm_hint


def test_a_call_rule_replaces_a_builtin_identifier() -> None:
    body = json.dumps({"__type": "ThrottlingException"})
    assert from_status(400, body).code is Code.RATE_LIMITED
    mine = Rule.identifier("ThrottlingException", Code.INVALID_REQUEST)
    assert from_status(400, body, rules=[mine]).code is Code.INVALID_REQUEST


def test_a_phrase_rule_reads_messages_and_plain_text() -> None:
    assert from_status(400, "the service is gathering moss").code is Code.INVALID_REQUEST
    assert from_status(400, "the service is Gathering Moss", rules=WARMING).code is Code.UNAVAILABLE
    body = json.dumps({"message": "still gathering moss"})
    assert from_status(400, body, rules=RuleSet([WARMING])).code is Code.UNAVAILABLE


def test_a_field_rule_in_an_error_body_and_in_an_envelope() -> None:
    body = {"state": "Busy", "detail": {"n": 3}}
    assert from_status(400, body, rules=[BUSY]).code is Code.UNAVAILABLE
    assert from_envelope(body).ok
    out = from_envelope(json.dumps(body), rules=[BUSY])
    assert out.code is Code.UNAVAILABLE
    assert '(reply field "state")' in out.llm_hint
    nested = Rule.field("result.status", 7, Code.RATE_LIMITED)
    assert from_envelope({"result": {"status": 7}}, rules=[nested]).code is Code.RATE_LIMITED
    assert from_envelope({"result": {"status": True}}, rules=[nested]).ok
    flag = Rule.field("ok", False, Code.UNKNOWN)
    assert from_envelope({"ok": 0}, rules=[flag]).ok


def test_a_status_rule_replaces_the_table_row_for_its_host() -> None:
    conflict = Rule.status(409, Code.UNAVAILABLE, host="*.internal.example")
    assert from_status(409, "x", rules=[conflict]).code is Code.INVALID_REQUEST  # host unknown
    anywhere = Rule.status(409, "UNAVAILABLE")
    assert from_status(409, rules=[anywhere]).code is Code.UNAVAILABLE

    class Response:
        status_code = 409
        headers: ClassVar[dict[str, str]] = {}
        url = "https://api.internal.example/v1/orders"
        _content = b'{"message": "version conflict"}'

    assert agenterr.from_response(Response()).code is Code.INVALID_REQUEST
    assert agenterr.from_response(Response(), rules=[conflict]).code is Code.UNAVAILABLE
    Response.url = "https://api.other.example/v1"
    assert agenterr.from_response(Response(), rules=[conflict]).code is Code.INVALID_REQUEST


def test_body_evidence_still_refines_a_user_status_row() -> None:
    row = Rule.status(418, Code.UNAVAILABLE)
    body = json.dumps({"error": {"code": "insufficient_quota"}})
    assert from_status(418, rules=[row]).code is Code.UNAVAILABLE
    assert from_status(418, body, rules=[row]).code is Code.UNAUTHORIZED


# --- process-wide, and the order of scopes -------------------------------------------------------


def test_process_rules_apply_everywhere_until_removed() -> None:
    body = json.dumps({"code": "ERR_QUOTA_77"})
    add_rules(QUOTA_77, BUSY)
    assert from_status(400, body).code is Code.UNAUTHORIZED
    assert from_envelope({"state": "busy"}).code is Code.UNAVAILABLE
    remove_rules(BUSY)
    assert from_envelope({"state": "busy"}).ok
    assert from_status(400, body).code is Code.UNAUTHORIZED
    remove_rules()
    assert from_status(400, body).code is Code.INVALID_REQUEST


def test_nearer_scopes_win() -> None:
    body = json.dumps({"code": "ERR_77"})
    add_rules(Rule.identifier("ERR_77", Code.UNAUTHORIZED))
    assert from_status(400, body).code is Code.UNAUTHORIZED
    call = Rule.identifier("err77", Code.UNAVAILABLE)
    assert from_status(400, body, rules=[call]).code is Code.UNAVAILABLE


def test_a_plain_status_is_still_cached_without_rules() -> None:
    assert from_status(503) is from_status(503)
    add_rules(Rule.status(503, Code.UNKNOWN))
    assert from_status(503).code is Code.UNKNOWN


# --- per decorator ----------------------------------------------------------------------------


class _Refused(Exception):
    """An SDK-shaped error carrying a response."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status
        self.headers: dict[str, str] = {}
        self.body = body


def test_a_decorator_rule_changes_its_tools_decisions_only() -> None:
    from agenterr import classified_tool

    body = json.dumps({"code": "ERR_QUOTA_77"})

    @classified_tool(rules=[QUOTA_77])
    def taught() -> None:
        raise _Refused(400, body)

    @classified_tool
    def untaught() -> None:
        raise _Refused(400, body)

    assert taught().code is Code.UNAUTHORIZED
    assert untaught().code is Code.INVALID_REQUEST


@pytest.mark.asyncio
async def test_a_decorator_rule_applies_to_async_tools_and_envelopes() -> None:
    from agenterr import classified_tool

    @classified_tool(rules=RuleSet([BUSY]), envelopes=True)
    async def reply() -> dict[str, str]:
        return {"state": "busy"}

    out = await reply()
    assert out.code is Code.UNAVAILABLE
    with pytest.raises(agenterr.TransientToolError):
        await classified_tool(raises=True, rules=[BUSY], envelopes=True)(reply.__wrapped__)()


def test_a_decorator_rule_is_nearer_than_a_process_rule() -> None:
    from agenterr import classified_tool

    body = json.dumps({"code": "ERR_77"})
    add_rules(Rule.identifier("ERR_77", Code.UNAUTHORIZED))

    @classified_tool(rules=[Rule.identifier("ERR_77", Code.UNAVAILABLE)])
    def tool() -> None:
        raise _Refused(400, body)

    assert tool().code is Code.UNAVAILABLE


def test_a_malformed_decorator_rule_fails_at_decoration() -> None:
    from agenterr import classified_tool

    with pytest.raises(TypeError, match="Rule objects"):
        classified_tool(rules=["ERR_77"])  # type: ignore[list-item]
