"""Reason: why a failure got its code (SPEC 8.4), on every path that decides one.

The conformance vectors pin the rule of every vector's outcome (``expect_reason``, see
test_vectors.py); these tests cover what no vector input can reach (user rules, SDKs, the
decorator), the evidence each path reads, and the wire, pickling and CLI forms.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import pickle
import socket
import subprocess
import sys
from typing import Any

import httpx
import pytest

from agenterr import (
    AgentToolError,
    Code,
    Failure,
    Outcome,
    Reason,
    Rule,
    classified_tool,
    classify,
    from_envelope,
    from_error,
    from_status,
    schema_invalid,
)

QUOTA_BODY = '{"error": {"code": "insufficient_quota", "message": "You exceeded your quota"}}'


def why(outcome: Outcome[Any]) -> Reason:
    assert outcome.reason is not None, outcome
    return outcome.reason


# --- the value ------------------------------------------------------------------------------


def test_a_reason_reads_as_rule_evidence_and_replaced_code() -> None:
    reason = Reason("r-quota", "identifier 'insufficient_quota'", Code.RATE_LIMITED)
    assert str(reason) == "r-quota: identifier 'insufficient_quota' (replaced RATE_LIMITED)"
    assert str(Reason("binding")) == "binding"
    assert reason.to_dict() == {
        "rule": "r-quota",
        "evidence": "identifier 'insufficient_quota'",
        "replaced": "RATE_LIMITED",
    }
    assert Reason("schema-invalid").to_dict() == {"rule": "schema-invalid"}
    assert repr(Reason("binding")).startswith("Reason(rule='binding'")


def test_a_success_has_no_reason() -> None:
    assert from_status(200).reason is None
    assert Outcome.success(1).reason is None
    with pytest.raises(ValueError, match=r"^llm_hint, retry_after, error, reason: "):
        Outcome(None, reason=Reason("binding"))


def test_a_failure_built_by_hand_has_the_reason_it_is_given() -> None:
    assert Outcome.failure("TIMEOUT").reason is None
    given = Outcome.failure("TIMEOUT", reason=Reason("error-class", "ReadTimeout"))
    assert given.reason == Reason("error-class", "ReadTimeout")
    assert Outcome(Code.TIMEOUT, "x", reason=Reason("errno")).reason == Reason("errno")


@pytest.mark.parametrize(
    ("reason", "error", "match"),
    [
        ("r-quota", TypeError, r"^reason: must be a Reason or None, got str"),
        (Reason("no-such-rule"), ValueError, r"^reason: 'no-such-rule' is not a rule"),
        (Reason("binding", 5), TypeError, r"^reason: evidence must be a str, got int"),  # type: ignore[arg-type]
        (Reason("binding", "", "TIMEOUT"), TypeError, r"^reason: replaced must be a Code"),  # type: ignore[arg-type]
    ],
)
def test_a_bad_reason_is_refused_by_the_constructor(
    reason: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        Outcome(Code.TIMEOUT, "x", reason=reason)  # type: ignore[arg-type]


def test_evidence_given_passes_the_quoting_gate() -> None:
    secret = "sk-proj-" + "a1B2c3D4" * 5
    out = Outcome.failure(
        "UNKNOWN", reason=Reason("internal", f"\x1b[31mkey {secret}\n" + "x" * 500)
    )
    evidence = why(out).evidence
    assert secret not in evidence and "\x1b" not in evidence and "\n" not in evidence
    assert len(evidence) <= 132 and evidence.endswith("…[truncated]")


def test_reasons_are_not_compared_and_survive_pickling_and_replace() -> None:
    quota = from_status(429, QUOTA_BODY)
    plain = Outcome(quota.code, quota.llm_hint, status=429)
    assert quota == plain and quota.reason != plain.reason
    copied = pickle.loads(pickle.dumps(quota))
    assert copied.reason == quota.reason
    from dataclasses import replace

    assert replace(quota, error=ValueError()).reason == quota.reason


def test_the_typed_error_carries_the_reason() -> None:
    with pytest.raises(AgentToolError) as caught:
        from_status(429, QUOTA_BODY).raise_for_failure()
    assert caught.value.reason == Reason(
        "r-quota", "identifier 'insufficient_quota'", Code.RATE_LIMITED
    )


# --- the status and its refinements ------------------------------------------------------------


def test_the_status_row() -> None:
    assert why(from_status(503)) == Reason("status-table", "HTTP 503")
    assert why(from_status(429, headers={"Retry-After": "3"})) == Reason("status-table", "HTTP 429")
    assert why(from_status(0)) == Reason("status-table", "no HTTP status")
    assert why(from_status(700)).evidence == "not an HTTP status from 100 to 599"
    assert why(from_status("x")).rule == "status-table"


def test_a_body_that_moves_the_code_names_its_rule_group_and_the_code_it_replaced() -> None:
    assert why(from_status(429, QUOTA_BODY)) == Reason(
        "r-quota", "identifier 'insufficient_quota'", Code.RATE_LIMITED
    )
    throttled = from_status(400, '{"__type": "ThrottlingException", "message": "Rate exceeded"}')
    assert why(throttled) == Reason(
        "r-throttled", "identifier 'ThrottlingException'", Code.INVALID_REQUEST
    )
    header = from_status(400, "", headers={"x-amzn-ErrorType": "ThrottlingException:http://x"})
    assert why(header).evidence == "header x-amzn-errortype 'ThrottlingException'"


def test_a_body_that_agrees_with_the_row_leaves_the_row_as_the_reason() -> None:
    assert (
        why(from_status(429, '{"error": {"code": "rate_limit_exceeded"}}')).rule == "status-table"
    )


def test_the_quota_wording_on_the_same_code_replaces_nothing() -> None:
    info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "BILLING_DISABLED"}
    body = json.dumps({"error": {"code": 403, "status": "PERMISSION_DENIED", "details": [info]}})
    out = from_status(403, body)
    assert why(out).rule == "r-quota" and why(out).replaced is None


def test_the_header_rules_the_long_wait_and_the_servers_advice() -> None:
    assert why(from_status(403, headers={"Retry-After": "5"})) == Reason(
        "r-ratelimit-headers", "a Retry-After", Code.UNAUTHORIZED
    )
    assert why(from_status(400, headers={"X-RateLimit-Remaining": "0"})).evidence == (
        "X-RateLimit-Remaining: 0"
    )
    assert why(from_status(409, headers={"Retry-After": "2"})) == Reason(
        "r-conflict-retry-after", "a wait of 2 s", Code.INVALID_REQUEST
    )
    assert why(from_status(429, headers={"Retry-After": "7200"})) == Reason(
        "r-long-wait", "a wait of 7200 s", Code.RATE_LIMITED
    )
    assert why(from_status(500, headers={"x-should-retry": "false"})) == Reason(
        "r-should-retry", "x-should-retry: false", Code.UNAVAILABLE
    )


def test_the_users_rules_are_named_as_such() -> None:
    """A 429 made UNAUTHORIZED by a user rule reads differently from one made so by the
    built-in quota identifier (issue 23's case)."""
    ours = from_status(429, '{"error": {"code": "ERR_QUOTA_77"}}', rules=[
        Rule.identifier("ERR_QUOTA_77", "UNAUTHORIZED", quota=True)
    ])  # fmt: skip
    assert why(ours) == Reason("user-rule", "identifier 'ERR_QUOTA_77'", Code.RATE_LIMITED)
    builtin = from_status(429, QUOTA_BODY)
    assert why(builtin).rule == "r-quota"
    phrase = from_status(
        400, "our backend is napping", rules=[Rule.phrase("napping", "UNAVAILABLE")]
    )
    assert why(phrase) == Reason("user-rule", "phrase 'napping'", Code.INVALID_REQUEST)
    status = from_status(404, rules=[Rule.status(404, "UNAVAILABLE")])
    assert why(status) == Reason("user-status", "HTTP 404", Code.NOT_FOUND)
    same = from_status(404, rules=[Rule.status(404, "NOT_FOUND")])
    assert why(same) == Reason("user-status", "HTTP 404")


def test_a_user_quota_status_rule_stays_the_reason_when_the_body_agrees() -> None:
    """The user's rule already chose the quota wording; the body's quota reading changes
    neither the code nor the wording, so it does not become the reason."""
    out = from_status(403, QUOTA_BODY, rules=[Rule.status(403, "UNAUTHORIZED", quota=True)])
    assert out.code is Code.UNAUTHORIZED
    assert why(out) == Reason("user-status", "HTTP 403")


def test_a_user_status_rule_for_one_host_names_the_host() -> None:
    response = httpx.Response(404, request=httpx.Request("GET", "https://api.example.com/x"))
    from agenterr import from_response

    out = from_response(response, rules=[Rule.status(404, "UNAVAILABLE", host="api.example.com")])
    assert why(out) == Reason("user-status", "HTTP 404 from api.example.com", Code.NOT_FOUND)


# --- transport ---------------------------------------------------------------------------------


def test_transport_reasons_name_the_step_and_the_exception() -> None:
    assert why(from_error(httpx.ReadTimeout("slow"))) == Reason("error-class", "ReadTimeout")
    assert why(from_error(httpx.ConnectError("refused"))) == Reason(
        "transport-default", "ConnectError"
    )
    dns = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert why(from_error(dns)) == Reason("errno", "EAI_NONAME in gaierror")
    foreign = from_error(RuntimeError("fetch failed: getaddrinfo ENOTFOUND api.example.com"))
    assert why(foreign) == Reason("foreign-transport", "'ENOTFOUND' in RuntimeError")
    assert why(from_error(asyncio.CancelledError())) == Reason("not-an-error", "CancelledError")
    assert why(from_error("not an exception")) == Reason("not-an-error", "str")


def test_an_error_carrying_a_response_has_that_responses_reason() -> None:
    request = httpx.Request("GET", "https://api.example.com/x")
    response = httpx.Response(429, request=request, text=QUOTA_BODY)
    error = httpx.HTTPStatusError("429", request=request, response=response)
    assert why(from_error(error)) == Reason(
        "r-quota", "identifier 'insufficient_quota'", Code.RATE_LIMITED
    )
    carried = AgentToolError(from_status(503))
    assert from_error(carried).reason == Reason("status-table", "HTTP 503")


def test_a_hostile_class_name_reaches_the_reason_cleaned() -> None:
    secret = "sk-proj-" + "Zx9Yw8Vu" * 5
    hostile = type(f"Boom\x1b[2J: {secret}", (Exception,), {})
    evidence = why(from_error(hostile("x"))).evidence
    assert secret not in evidence and "\x1b" not in evidence


# --- envelopes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "headers", "expected"),
    [
        (
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}},
            None,
            Reason("e-jsonrpc", "JSON-RPC error -32602"),
        ),
        ({"ok": False, "error": "ratelimited"}, None,
         Reason("e-ok-false", 'API error "ratelimited"')),
        ({"errors": [{"message": "x", "extensions": {"code": "THROTTLED"}}]}, None,
         Reason("e-graphql", 'GraphQL error "THROTTLED"')),
        ({"isError": True, "content": [{"type": "text", "text": "boom"}]}, None,
         Reason("e-mcp-tool", "tool error")),
        ("", {"grpc-status": "14"}, Reason("e-grpc", "gRPC status 14 UNAVAILABLE")),
        ("event: error\ndata: {\"error\": {\"type\": \"overloaded_error\"}}\n\n", None,
         Reason("e-event-stream", 'stream error "overloaded_error"')),
    ],
)  # fmt: skip
def test_an_envelope_names_the_protocol_that_reported_it(
    payload: object, headers: object, expected: Reason
) -> None:
    assert from_envelope(payload, headers=headers).reason == expected


def test_an_envelope_rate_limit_with_a_long_wait() -> None:
    out = from_envelope({"ok": False, "error": "ratelimited"}, headers={"Retry-After": "7200"})
    assert why(out) == Reason("r-long-wait", "a wait of 7200 s", Code.RATE_LIMITED)


def test_a_user_field_rule_in_an_envelope() -> None:
    out = from_envelope({"state": "busy"}, rules=[Rule.field("state", "busy", "UNAVAILABLE")])
    assert why(out) == Reason("user-rule", 'reply field "state"')


def test_a_relayed_outcome_says_so_and_keeps_the_peers_reason() -> None:
    peer = from_status(429, QUOTA_BODY).to_dict(explain=True)
    out = from_envelope({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": True, "content": [], "structuredContent": peer
    }})  # fmt: skip
    assert why(out).rule == "e-relay"
    assert why(out).evidence == "a peer's outcome, r-quota: identifier 'insufficient_quota'"
    assert why(out).replaced is None  # the peer's replaced code was the peer's, not ours


def test_a_relay_with_a_malformed_reason_is_still_a_relay() -> None:
    peer = from_status(429, QUOTA_BODY).to_dict()
    for bad in ("r-quota", 7, [], {"rule": 7}, {"rule": "r-quota", "replaced": "SOON"}):
        out = from_envelope({**peer, "reason": bad})
        assert why(out).rule == "e-relay", bad
        assert (out.code, out.llm_hint) == (Code.UNAUTHORIZED, peer["llm_hint"]), bad


def test_a_replaced_code_equal_to_the_code_is_dropped() -> None:
    built = Failure(Code.TIMEOUT, reason=Reason("user-rule", "phrase 'slow'", Code.TIMEOUT))
    assert why(built) == Reason("user-rule", "phrase 'slow'")
    replaced = dataclasses.replace(built, reason=Reason("user-rule", "x", Code.TIMEOUT))
    assert why(replaced) == Reason("user-rule", "x")
    wire = {**built.to_dict(), "reason": {"rule": "user-rule", "replaced": "TIMEOUT"}}
    assert why(Outcome.from_dict(wire)) == Reason("user-rule")
    moved = Failure(Code.TIMEOUT, reason=Reason("user-rule", "x", Code.UNAVAILABLE))
    assert why(moved).replaced is Code.UNAVAILABLE


def test_an_item_of_a_bulk_reply_keeps_its_responses_reason() -> None:
    body = {"errors": True, "items": [
        {"index": {"status": 201}},
        {"index": {"status": 429, "error": {"type": "es_rejected_execution_exception"}}},
    ]}  # fmt: skip
    out = from_envelope(body)
    item = from_status(429, json.dumps(body["items"][1]["index"]))
    assert (out.code, why(out)) == (item.code, why(item)) == (
        Code.RATE_LIMITED, Reason("status-table", "HTTP 429")
    )  # fmt: skip


# --- pre-flight and the decorator ----------------------------------------------------------------


def test_pre_flight() -> None:
    assert why(schema_invalid("city: required")) == Reason("schema-invalid")


def test_the_decorators_reasons(caplog: pytest.LogCaptureFixture) -> None:
    @classified_tool
    def lookup(city: str) -> str:
        raise RuntimeError("a bug")

    @classified_tool(errors={KeyError: Code.NOT_FOUND})
    def fetch(key: str) -> str:
        raise KeyError(key)

    @classified_tool(errors={KeyError: lambda exc: Outcome.failure("NOT_FOUND")})
    def fetch_custom(key: str) -> str:
        raise KeyError(key)

    @classified_tool(idempotent=False)
    def charge(amount: int) -> None:
        raise httpx.ReadTimeout("no answer")

    assert why(lookup(town="x")) == Reason("binding")  # type: ignore[call-arg]
    with caplog.at_level(logging.INFO, logger="agenterr"):
        assert why(lookup("x")) == Reason("tool-raised", "RuntimeError")
    assert caplog.records[-1].agenterr_reason == Reason("tool-raised", "RuntimeError")
    assert why(fetch("k")) == Reason("errors-map", "KeyError")
    assert why(fetch_custom("k")) == Reason("errors-map", "KeyError")
    escalated = charge(5)
    assert escalated.code is Code.UNKNOWN
    assert why(escalated) == Reason("idempotent", "ReadTimeout", Code.TIMEOUT)


def test_a_validation_error_names_its_class() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Args(pydantic.BaseModel):
        days: int

    @classified_tool
    def forecast(days: object) -> Args:
        return Args(days=days)  # type: ignore[arg-type]

    assert why(forecast("many")) == Reason("schema-invalid", "ValidationError")


# --- the wire ------------------------------------------------------------------------------------


def test_the_wire_carries_a_reason_only_when_asked() -> None:
    out = from_status(429, QUOTA_BODY)
    assert "reason" not in out.to_dict() and '"reason"' not in out.to_json()
    explained = out.to_dict(explain=True)
    assert explained["reason"] == {
        "rule": "r-quota",
        "evidence": "identifier 'insufficient_quota'",
        "replaced": "RATE_LIMITED",
    }
    assert list(explained)[-1] == "reason"
    assert json.loads(out.to_json(explain=True)) == explained
    assert json.loads(out.to_json(explain=True, indent=2)) == explained
    assert from_status(200).to_dict(explain=True) == {"ok": True, "retryable": False}
    assert "reason" not in Outcome.failure("TIMEOUT").to_dict(explain=True)


def test_reading_the_wire_reads_the_reason_back() -> None:
    out = from_status(429, QUOTA_BODY)
    back = Outcome.from_dict(out.to_dict(explain=True))
    assert isinstance(back, Failure) and back.reason == out.reason
    assert Outcome.from_dict(out.to_dict()).reason is None
    assert Outcome.from_dict({**out.to_dict(), "reason": None}).reason is None
    newer = {**out.to_dict(), "reason": {"rule": "some-future-rule", "evidence": "x"}}
    assert Outcome.from_dict(newer).reason is None  # a newer writer stays readable


@pytest.mark.parametrize(
    ("reason", "field"),
    [
        ("r-quota", "reason"),
        ({}, "reason.rule"),
        ({"rule": 5}, "reason.rule"),
        ({"rule": "r-quota", "evidence": 5}, "reason.evidence"),
        ({"rule": "r-quota", "replaced": "RATE_LIMTED"}, "reason.replaced"),
    ],
)
def test_a_malformed_reason_on_the_wire_is_refused_naming_its_field(
    reason: object, field: str
) -> None:
    wire = {**from_status(503).to_dict(), "reason": reason}
    with pytest.raises(ValueError, match=rf"^{field}: "):
        Outcome.from_dict(wire)


def test_evidence_read_from_the_wire_passes_the_gate() -> None:
    wire = {
        **from_status(503).to_dict(),
        "reason": {"rule": "status-table", "evidence": "password=hunter2zz \x1b[31m" + "y" * 10**6},
    }
    evidence = why(Outcome.from_dict(wire)).evidence
    assert "hunter2zz" not in evidence and "\x1b" not in evidence and len(evidence) <= 132


# --- the command line ----------------------------------------------------------------------------


def _cli(*args: str, stdin: str = "") -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "agenterr", "classify", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.external
def test_classify_explain() -> None:
    explained = _cli("--status", "429", "--body", QUOTA_BODY, "--explain")
    assert explained["code"] == "UNAUTHORIZED"
    assert explained["reason"]["rule"] == "r-quota"
    assert explained["reason"]["replaced"] == "RATE_LIMITED"
    assert "reason" not in _cli("--status", "429", "--body", QUOTA_BODY)
    transcript = "HTTP/1.1 403 Forbidden\r\nRetry-After: 7\r\n\r\n{}"
    from_transcript = _cli("--transcript", "-", "--explain", stdin=transcript)
    assert from_transcript["reason"] == {
        "rule": "r-ratelimit-headers",
        "evidence": "a Retry-After",
        "replaced": "UNAUTHORIZED",
    }


def test_classify_jsonl_explain(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from agenterr._cli import main

    lines = (
        b'{"status": 429, "body": "'
        + QUOTA_BODY.replace('"', '\\"').encode()
        + b'"}\n{"status": 200}\n'
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines)))
    assert main(["classify", "--jsonl", "--explain"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["reason"]["rule"] == "r-quota" and "reason" not in second


def test_classify_api_takes_the_same_path() -> None:
    assert classify(429, QUOTA_BODY).reason == from_status(429, QUOTA_BODY).reason
