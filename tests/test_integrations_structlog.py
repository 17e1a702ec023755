"""agenterr.integrations.structlog with the real structlog: what an event carries."""

from __future__ import annotations

import json
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

import agenterr
from agenterr import Outcome, classified_tool
from agenterr.integrations.structlog import outcome_fields

pytestmark = pytest.mark.external

SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123456789"


@classified_tool
def get_rate(currency: str) -> Outcome[Any]:
    return agenterr.from_status(429, f"slow down, key {SECRET}", headers={"Retry-After": "7"})


def test_a_failure_is_one_flat_event() -> None:
    out = get_rate("EUR")
    with capture_logs() as events:
        structlog.get_logger().warning("tool_failed", **outcome_fields(out, tool="get_rate"))
    (event,) = events
    hint = event.pop("hint")
    assert event == {
        "event": "tool_failed",
        "log_level": "warning",
        "tool": "get_rate",
        "ok": False,
        "code": "RATE_LIMITED",
        "class": "transient",
        "retryable": True,
        "retry_after_seconds": 7.0,
        "status": 429,
        "reason": "status-table",
        "reason_evidence": "HTTP 429",
        "replaced": None,
    }
    assert hint == out.llm_hint
    assert hint
    assert SECRET not in hint  # redacted by agenterr before it reaches the Outcome


def test_renders_as_json() -> None:
    """Every value is one a JSON renderer prints as it is."""
    out = agenterr.from_status(401, "")
    rendered = structlog.processors.JSONRenderer()(None, "info", outcome_fields(out))
    assert json.loads(rendered)["code"] == "UNAUTHORIZED"
    assert json.loads(rendered)["retry_after_seconds"] is None


def test_success_and_no_status() -> None:
    fields = outcome_fields(Outcome.success(1), hint=False)
    assert fields == {
        "tool": None,
        "ok": True,
        "code": None,
        "class": None,
        "retryable": False,
        "retry_after_seconds": None,
        "status": None,
        "reason": None,
        "reason_evidence": None,
        "replaced": None,
    }


def test_the_reason_a_code_replaced() -> None:
    quota = '{"error": {"code": "insufficient_quota", "message": "over quota"}}'
    fields = outcome_fields(agenterr.from_status(429, quota))
    assert (fields["reason"], fields["replaced"]) == ("r-quota", "RATE_LIMITED")
    assert fields["reason_evidence"] == "identifier 'insufficient_quota'"


def test_refuses_what_is_not_an_outcome() -> None:
    with pytest.raises(TypeError):
        outcome_fields({"code": "RATE_LIMITED"})  # type: ignore[arg-type]
