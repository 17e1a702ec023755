"""Hints: the reference's outputs, the templates and the schema list (quoting: test_quote)."""

import re
from typing import Any

import pytest

from agenterr import classify, from_status, schema_invalid
from agenterr._hints import MAX_PROBLEMS, PROBLEM_CAP
from agenterr._quote import REDACTED, TRUNCATED

REFERENCE_401 = (
    "The API rejected this call as unauthorized (HTTP 401). This is a credentials or "
    "permissions problem, NOT a problem with your arguments — do not modify them. A human or "
    "the orchestrator must fix authentication (an invalid or expired token, or a missing "
    'scope) before retrying. The API said: {"error":"token expired"}'
)
REFERENCE_422 = (
    "The API rejected this call as invalid (HTTP 422). Your arguments are wrong in a way you "
    "can fix: correct them to satisfy the API's requirements and resend. The API said: "
    '{"error":"amount must be a positive integer"}'
)
REFERENCE_SCHEMA = (
    "The arguments you generated do not match the required schema. Fix the following and "
    "resend:\n- at \"/\": missing properties: 'charge_id'"
)


def test_reference_outputs_byte_for_byte() -> None:
    """The three hints the reference documents are reproduced exactly."""
    assert from_status(401, '{"error":"token expired"}').llm_hint == REFERENCE_401
    assert classify(422, '{"error":"amount must be a positive integer"}').llm_hint == (
        REFERENCE_422
    )
    assert schema_invalid("at \"/\": missing properties: 'charge_id'").llm_hint == (
        REFERENCE_SCHEMA
    )


@pytest.mark.parametrize("status", [401, 403, 429, 408, 503, 504])
def test_transient_and_auth_hints_say_do_not_modify(status: int) -> None:
    """Transient and auth hints tell the model to leave its arguments alone."""
    hint = from_status(status).llm_hint
    assert "NOT a problem with your arguments — do not modify them." in hint
    assert f"(HTTP {status})" in hint


@pytest.mark.parametrize("status", [400, 404, 422])
def test_self_correctable_hints_invite_a_fix(status: int) -> None:
    """Self-correctable hints ask for corrected arguments and never say 'do not modify'."""
    hint = from_status(status).llm_hint
    assert "do not modify" not in hint
    assert "resend" in hint


def test_no_body_no_quote() -> None:
    """Without a body there is no 'The API said' clause."""
    assert "The API said" not in from_status(400).llm_hint
    assert from_status(400).llm_hint.endswith("resend.")
    assert from_status(400, "   \n\t ").llm_hint == from_status(400).llm_hint


def test_wait_phrase() -> None:
    """Transient hints state the advised wait in whole seconds, rounded up."""
    assert "after at least 3 seconds." in from_status(429, headers={"Retry-After": "2.1"}).llm_hint
    assert "after at least 1 second." in from_status(503, headers={"Retry-After": "1"}).llm_hint
    assert "after a short delay." in from_status(503).llm_hint
    past = from_status(
        503, headers={"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"}, now=1e9
    ).llm_hint
    assert "Retry the identical call now; the API allows it immediately." in past


def test_schema_invalid_bounded() -> None:
    """Thousands of problems list the first twenty and count the rest."""
    outcome = schema_invalid(*(f"problem {i}" for i in range(5000)))
    lines = outcome.llm_hint.splitlines()
    assert len(lines) == 1 + MAX_PROBLEMS + 1
    assert lines[-1] == f"- … and {5000 - MAX_PROBLEMS} more"
    assert lines[1] == "- problem 0"


def test_schema_problems_are_cleaned() -> None:
    """Each problem is one cleaned, capped, redacted line."""
    outcome = schema_invalid("multi\nline\x1b[1m", "x" * 1000, "password=hunter2", "", "  ")
    lines = outcome.llm_hint.splitlines()
    assert lines[1] == "- multi line"
    assert lines[2] == "- " + "x" * PROBLEM_CAP + TRUNCATED
    assert lines[3] == f"- password={REDACTED}"
    assert len(lines) == 4


@pytest.mark.parametrize(
    "given",
    [
        ["at '/amount': must be an integer", "at '/currency': required"],
        ("at '/amount': must be an integer", "at '/currency': required"),
    ],
    ids=["list", "tuple"],
)
def test_schema_invalid_with_one_list_lists_each_item(given: Any) -> None:
    """``schema_invalid(messages)`` is ``schema_invalid(*messages)``: one bullet per item,
    not one bullet holding the list's text."""
    expected = schema_invalid("at '/amount': must be an integer", "at '/currency': required")
    assert schema_invalid(given) == expected
    assert expected.llm_hint.splitlines()[1:] == [
        "- at '/amount': must be an integer",
        "- at '/currency': required",
    ]
    assert schema_invalid([]) == schema_invalid()
    big = schema_invalid([f"problem {i}" for i in range(50)]).llm_hint.splitlines()
    assert big[-1] == f"- … and {50 - MAX_PROBLEMS} more"


def test_schema_invalid_with_two_lists_quotes_each_list() -> None:
    """Only a sole list argument is the problems; lists among other problems are problems."""
    lines = schema_invalid(["a", "b"], "c").llm_hint.splitlines()[1:]
    assert lines == ['- ["a","b"]', "- c"]


def test_schema_invalid_without_problems() -> None:
    """With no problems the hint still tells the model what to do."""
    hint = schema_invalid().llm_hint
    assert hint.startswith("The arguments you generated do not match the required schema.")
    assert "\n" not in hint
    assert schema_invalid(None, 42).llm_hint.splitlines()[1:] == ["- 42"]
    assert schema_invalid(" " * 9000).llm_hint == hint  # nothing but a cut window: no bullet


def test_hint_has_no_control_characters() -> None:
    """No hint contains a control character other than schema_invalid's newlines."""
    bad = "".join(chr(c) for c in range(0x20)) + "\x7f\x9b"
    for status in (400, 401, 404, 429, 500):
        assert not re.search(r"[\x00-\x1f\x7f-\x9f]", from_status(status, bad).llm_hint)
