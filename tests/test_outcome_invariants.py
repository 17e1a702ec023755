"""Outcome invariants hold from construction, so no consumer is handed a value it chokes on.

Before, ``Outcome(retry_after=nan/inf/-5/1e300)``, a 2xx status on a failure and a hint with
ANSI escapes were accepted; ``to_json()`` then raised, tenacity's sleep raised, stamina got
``-5.0``, Dramatiq a 1e305 ms delay and Temporal an ``OverflowError``. ``from_dict`` echoed
bad values whole (credentials included) and let a hostile ``repr`` escape.
"""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import timedelta
from http import HTTPStatus
from typing import Any

import dramatiq
import pytest
import tenacity
from hypothesis import given
from hypothesis import strategies as st
from temporalio.exceptions import ApplicationError

from agenterr import (
    Code,
    Failure,
    Outcome,
    Success,
    TransientToolError,
    from_status,
    schema_invalid,
)
from agenterr.integrations.dramatiq import retry_transient, with_retry_after
from agenterr.integrations.stamina import retry_on_transient
from agenterr.integrations.temporal import to_application_error
from agenterr.integrations.tenacity import retry_if_transient, wait_retry_after

CEILING = 86_400.0
KEY = "sk-abcdefghijklmnopqrstuvwxyz012345"

# --- retry_after -----------------------------------------------------------------------


@pytest.mark.parametrize("delay", [math.nan, -5, -0.001, -math.inf])
def test_garbage_delays_are_rejected(delay: float) -> None:
    """NaN and negative delays mean nothing a retry loop can wait: a clear ValueError."""
    with pytest.raises(ValueError, match=r"^retry_after: "):
        Outcome(Code.RATE_LIMITED, "slow down", delay)


@pytest.mark.parametrize("delay", [math.inf, 1e300, CEILING + 1])
def test_long_delays_are_clamped_to_the_ceiling(delay: float) -> None:
    """A delay past the one-day ceiling (infinity included) is the ceiling, as parsed ones are."""
    out = Outcome(Code.RATE_LIMITED, "slow down", delay)
    assert out.retry_after == CEILING
    assert json.loads(out.to_json())["retry_after_seconds"] == 86_400


def test_integers_beyond_any_float_are_clamped_or_rejected() -> None:
    """Regression: float(10**400) raised OverflowError from the constructor."""
    assert Outcome(Code.RATE_LIMITED, "slow down", 10**400).retry_after == CEILING
    with pytest.raises(ValueError, match=r"^retry_after: must not be negative"):
        Outcome(Code.RATE_LIMITED, "slow down", -(10**400))


@pytest.mark.parametrize("delay", [True, "3", None.__class__])
def test_non_numeric_delays_are_a_type_error(delay: object) -> None:
    with pytest.raises(TypeError, match=r"^retry_after: "):
        Outcome(Code.RATE_LIMITED, "slow down", delay)  # type: ignore[arg-type]


def test_an_integer_delay_is_stored_as_seconds() -> None:
    out = Outcome(Code.RATE_LIMITED, "slow down", 3)
    assert out.retry_after == 3.0 and type(out.retry_after) is float


def test_a_delay_on_a_code_that_is_not_transient_is_dropped() -> None:
    """Only a transient failure waits (as the classifiers and from_dict have it)."""
    assert Outcome(Code.NOT_FOUND, "gone", 5.0).retry_after is None


# --- status ----------------------------------------------------------------------------


@pytest.mark.parametrize("status", [200, 204, 299])
def test_a_failure_with_a_2xx_status_is_rejected(status: int) -> None:
    with pytest.raises(ValueError, match=r"^status: "):
        Outcome(Code.UNKNOWN, "odd", None, status)


@pytest.mark.parametrize("status", [-1, 99, 600, 10**9])
def test_a_status_out_of_range_is_rejected(status: int) -> None:
    with pytest.raises(ValueError, match=r"^status: "):
        Outcome(Code.UNKNOWN, "odd", None, status)


@pytest.mark.parametrize("status", [404, 500, 100, 301])
def test_a_success_with_a_failure_status_is_rejected(status: int) -> None:
    with pytest.raises(ValueError, match=r"^status: "):
        Outcome(status=status)


@pytest.mark.parametrize("status", [True, 404.0, "404"])
def test_a_status_that_is_not_an_int_is_a_type_error(status: object) -> None:
    with pytest.raises(TypeError, match=r"^status: "):
        Outcome(Code.NOT_FOUND, "gone", None, status)  # type: ignore[arg-type]


def test_an_int_enum_status_is_stored_as_its_number() -> None:
    out = Outcome(Code.NOT_FOUND, "gone", None, HTTPStatus.NOT_FOUND)
    assert out.status == 404 and type(out.status) is int


def test_a_success_keeps_its_status_but_the_wire_form_does_not_carry_it() -> None:
    """SPEC.md section 8: the ok outcome is exactly {"ok":true,"retryable":false}."""
    out = from_status(201)
    assert out.ok and out.status == 201
    assert out.to_dict() == {"ok": True, "retryable": False}
    assert Outcome.success({"id": 1}, status=201).status == 201


def test_a_success_carries_no_hint_and_no_delay() -> None:
    with pytest.raises(ValueError, match=r"^llm_hint, retry_after, error, reason: "):
        Outcome(None, "all good")
    with pytest.raises(ValueError, match=r"^llm_hint, retry_after, error, reason: "):
        Outcome(None, "", 1.0)
    with pytest.raises(ValueError, match=r"^llm_hint, retry_after, error, reason: "):
        Outcome(error=RuntimeError("a success carries no exception"))


@pytest.mark.parametrize("code", ["RATE_LIMITED", 3, object()])
def test_a_code_that_is_not_a_code_is_a_type_error(code: object) -> None:
    with pytest.raises(TypeError, match=r"^code: "):
        Outcome(code)  # type: ignore[arg-type]


# --- llm_hint --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        ("Retry \x1b[31mnow\x1b[0m", "Retry now"),
        ("first line\nsecond line", "first line second line"),
        ("tab\there\r\n", "tab here"),
        ("bidi \u202eevil\u202c and zero\u200bwidth", "bidi evil and zerowidth"),
        ("bell\x07 null\x00", "bell null"),
        (f"leaked\napi_key={KEY}", "leaked api_key=[REDACTED]"),
        ("Fix these:\n- one\x1b[2J\n- two\nthree", "Fix these:\n- one\n- two three"),
    ],
)
def test_a_hint_is_cleaned_at_construction(hint: str, expected: str) -> None:
    """Control characters, escapes and newlines go; a list item keeps its line; a hint that
    needed cleaning passes the whole quoting gate, redaction included."""
    assert Outcome(Code.INVALID_REQUEST, hint).llm_hint == expected


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        # one printable line: a credential in it is redacted all the same
        (f"Call failed: api_key={KEY}", "Call failed: api_key=[REDACTED]"),
        (f"Bearer {KEY} was refused", "Bearer [REDACTED] was refused"),
        # fillers and joiners that str.isprintable() lets through
        (
            "fill\u3164er \u2800blank \u034fjoin \u115fhangul \ufe0fselect",
            "filler blank join hangul select",
        ),
    ],
)
def test_a_printable_hint_passes_the_gate_too(hint: str, expected: str) -> None:
    """Regression: only hints with control characters were cleaned, so a one-line hint kept
    its credential and the invisible characters str.isprintable() counts as printable."""
    assert Outcome(Code.INVALID_REQUEST, hint).llm_hint == expected
    wire = {"ok": False, "code": "INVALID_REQUEST", "llm_hint": hint}
    assert Outcome.from_dict(wire).llm_hint == expected


def test_a_clean_hint_is_kept_byte_for_byte() -> None:
    """The classifiers' hints (one line, or the schema hint's list) are not touched."""
    for out in (
        from_status(429, '{"error":"slow — down…"}', headers={"Retry-After": "2"}),
        schema_invalid("at '/a': must be an integer", "at '/b': required"),
    ):
        assert Outcome(out.code, out.llm_hint, out.retry_after, out.status).llm_hint == (
            out.llm_hint
        )
    assert "\n- at '/b': required" in schema_invalid("x", "at '/b': required").llm_hint


def test_every_classifier_hint_is_already_through_the_gate() -> None:
    """The classifiers build their outcomes without the constructor's gate (their hints are
    templates around quotes that passed it): on every conformance vector the gate leaves
    their hint as it is, so skipping it changes nothing — except where the cap cut a value
    into a credential's shape (SPEC 8.1), which the one vector written for it shows; a second
    pass then changes nothing."""
    from agenterr._outcome import _clean_hint
    from agenterr._protocol import load_vectors, outcome_for_request
    from agenterr._quote import TRUNCATED

    checked = 0
    changed = set()
    for vector in load_vectors():
        try:
            outcome = outcome_for_request(vector["input"])
        except ValueError:
            continue  # a vector of a malformed request
        if outcome.failed:
            once = _clean_hint(outcome.llm_hint)
            if once != outcome.llm_hint:
                changed.add(vector["id"])
                assert outcome.llm_hint.endswith(TRUNCATED), vector["id"]
                assert _clean_hint(once) == once, vector["id"]
            checked += 1
    assert checked > 800
    assert changed == {"cap-cut-leaves-a-credential-shape"}


def test_failure_cleans_the_hint_too() -> None:
    out: Outcome[None] = Outcome.failure(Code.NOT_FOUND, "no\x1b[1m such\norder")
    assert out.llm_hint == "no such order"


def test_a_hint_that_is_not_a_str_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^llm_hint: "):
        Outcome(Code.NOT_FOUND, b"gone")  # type: ignore[arg-type]


# --- from_dict errors ------------------------------------------------------------------


class Hostile:
    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")

    __str__ = __repr__


@pytest.mark.parametrize("key", ["code", "class"])
def test_from_dict_errors_never_call_the_values_repr(key: str) -> None:
    data: dict[str, Any] = {"ok": False, "code": "NOT_FOUND", key: Hostile()}
    with pytest.raises(ValueError, match=rf"^{key}: a value of type Hostile "):
        Outcome.from_dict(data)


@pytest.mark.parametrize("key", ["code", "class"])
def test_from_dict_errors_cap_and_redact_the_echoed_value(key: str) -> None:
    data = {"ok": False, "code": "NOT_FOUND", key: f"{KEY} " + "x" * 100_000}
    with pytest.raises(ValueError) as caught:
        Outcome.from_dict(data)
    message = str(caught.value)
    assert KEY not in message and "[REDACTED]" in message
    assert len(message) < 300


def test_from_dict_errors_strip_escapes_from_the_echo() -> None:
    with pytest.raises(ValueError) as caught:
        Outcome.from_dict({"ok": False, "code": "\x1b]0;pwned\x07NOT\nFOUND"})
    assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)


# --- what each integration is handed ---------------------------------------------------
# The worst values an Outcome accepted before: each is now rejected at construction (NaN,
# negative) or clamped (infinity, 1e300), and each integration copes with what is left.

WORST = [math.inf, 1e300]


def _error(delay: float) -> TransientToolError:
    return TransientToolError(Outcome(Code.RATE_LIMITED, "slow down", delay, 429))


@pytest.mark.parametrize("delay", [math.nan, -5.0])
def test_the_garbage_never_reaches_an_integration(delay: float) -> None:
    with pytest.raises(ValueError):
        _error(delay)


@pytest.mark.parametrize("delay", WORST)
def test_tenacity_waits_at_most_the_ceiling(delay: float) -> None:
    """tenacity's sleep got NaN or a negative number before (and raised)."""
    waits: list[float] = []
    calls = iter([_error(delay), None])

    @tenacity.retry(
        retry=retry_if_transient(),
        wait=wait_retry_after(max_wait=float("inf")),
        stop=tenacity.stop_after_attempt(3),
        sleep=waits.append,
        reraise=True,
    )
    def tool() -> str:
        error = next(calls)
        if error is not None:
            raise error
        return "done"

    assert tool() == "done"
    assert waits == [CEILING]


@pytest.mark.parametrize("delay", WORST)
def test_stamina_gets_a_finite_backoff(delay: float) -> None:
    """stamina got -5.0 (or NaN) as its backoff before."""
    hook = retry_on_transient(max_wait=None)
    backoff = hook(_error(delay))
    assert backoff == CEILING and math.isfinite(float(backoff))


@pytest.mark.parametrize("delay", WORST)
def test_dramatiq_gets_a_delay_of_at_most_a_day(delay: float) -> None:
    """Dramatiq got a 1e305 ms delay before."""
    with pytest.raises(dramatiq.Retry) as caught:
        retry_transient(_error(delay))
    assert caught.value.delay == 86_400_000

    @with_retry_after
    def actor() -> None:
        raise _error(delay)

    with pytest.raises(dramatiq.Retry) as wrapped:
        actor()
    assert wrapped.value.delay == 86_400_000


@pytest.mark.parametrize("delay", WORST)
def test_temporal_gets_a_representable_next_retry_delay(delay: float) -> None:
    """Temporal's timedelta raised OverflowError before."""
    error = to_application_error(_error(delay))
    assert isinstance(error, ApplicationError)
    assert error.next_retry_delay == timedelta(days=1)


@pytest.mark.parametrize(
    "bad", [Outcome.success(Hostile()), Hostile()], ids=["ok-outcome", "other"]
)
def test_integration_errors_never_call_a_hostile_repr(bad: object) -> None:
    """An argument error names what it got without its repr (which may raise)."""
    with pytest.raises(ValueError, match="expected a typed error or a failed Outcome"):
        retry_transient(bad)  # type: ignore[arg-type]


_BODIES = st.one_of(
    st.text(max_size=300),
    st.sampled_from(
        [
            '{"error": {"message": "bad \\"password\\": \\"hunter2x1\\" here"}}',
            "token=sk-abcdefghijklmnop1234 Bearer abc.def.ghi \x1b[31mred\u202e",
            '<html><body><input type="password" value="s3cret1"></body></html>',
            "line one\nline two\n- item",
        ]
    ),
)


@given(
    status=st.sampled_from([400, 401, 402, 404, 409, 422, 429, 500, 503]),
    body=_BODIES,
    delay=st.sampled_from([None, "0", "5", "86400000"]),
)
def test_a_hint_the_classifiers_write_is_one_the_gate_leaves_as_it_is(
    status: int, body: str, delay: str | None
) -> None:
    """Failure(...) trusts a hint the hint builders wrote (a Cleaned) instead of cleaning it
    again: sound only if cleaning it again changes nothing, which this checks, field by
    field, against the same failure built from a plain str."""
    from agenterr._quote import Cleaned

    headers = {} if delay is None else {"Retry-After": delay}
    out = from_status(status, body, headers=headers)
    assert isinstance(out, Failure)
    assert type(out.llm_hint) is Cleaned
    again = Failure(out.code, str(out.llm_hint), out.retry_after, out.status, reason=out.reason)
    assert type(again.llm_hint) is Cleaned  # cleaned once more, to compare
    assert again == out
    assert again.reason == out.reason


@given(value=st.one_of(st.none(), st.integers(), st.text(max_size=5)))
def test_a_success_is_its_value_and_status(value: object) -> None:
    """Success(value) is what Outcome.success(value) and Outcome(value=...) build; a success's
    failure fields are the class's, and read as empty."""
    built = Success(value)
    assert built == Outcome.success(value) == Outcome(value=value)
    assert type(built) is Success
    assert built.value is value
    assert (built.code, built.llm_hint, built.retry_after, built.error, built.reason) == (
        None, "", None, None, None
    )  # fmt: skip
    assert Success(value, 204).status == 204
    with pytest.raises(ValueError, match="2xx"):
        Success(value, 404)
    with pytest.raises(TypeError, match="status"):
        Success(value, True)


def test_no_classifier_path_cleans_its_hint_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hint a classifier or the decorator writes reaches Failure(...) as a Cleaned, so
    the constructor never runs the gate on it again (the gate costs more than a
    classification). The constructor's own use of the gate is made to fail here. (A relayed
    wire outcome is not here: reading the peer's hint is the gate's job.)"""
    import httpx

    import agenterr._outcome as outcome_module
    from agenterr import classified_tool, from_envelope, from_error

    # A hint given by hand is cleaned once, when it is built; replace() does not clean again.
    by_hand = Failure(Code.TIMEOUT, "the upstream is slow")
    cleaned_again: list[object] = []

    def no_second_pass(text: object, *_cap: object) -> str:
        # Recorded, not raised: the classifiers turn any error into an "internal" UNKNOWN.
        cleaned_again.append(text)
        return ""

    monkeypatch.setattr(outcome_module, "snippet", no_second_pass)

    class Refused(Exception):
        pass

    def broken(x: int) -> int:
        raise ValueError(f"bad x={x} password: hunter2")

    def refused() -> None:
        raise Refused("no such order 'A-17'")

    def slow() -> None:
        raise httpx.ReadTimeout("timed out")

    outcomes = [
        from_status(429, '{"error": {"message": "slow down"}}', headers={"Retry-After": "3"}),
        from_status(422, '{"errors": [{"field": "x", "message": "must be positive"}]}'),
        from_status(503),
        from_error(TimeoutError("read timed out")),
        from_error(httpx.UnsupportedProtocol("Request URL is missing a scheme")),
        from_error(httpx.ConnectError("connection refused")),
        classified_tool(broken)(1),
        classified_tool(expose_errors=True)(broken)(1),
        classified_tool(errors={Refused: Code.NOT_FOUND})(refused)(),
        classified_tool(idempotent=False)(slow)(),
        from_envelope({"ok": False, "error": "ratelimited"}),
        schema_invalid("x: must be an integer"),
        Outcome.failure(Code.TIMEOUT),
        dataclasses.replace(by_hand, status=504),
    ]
    for out in outcomes:
        assert isinstance(out, Failure), out
        assert out.reason is None or out.reason.rule != "internal", out
    assert cleaned_again == []
    assert outcomes[9].code is Code.UNKNOWN  # the may-have-taken-effect hint
