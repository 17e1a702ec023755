"""Outcome: derived fields, constructors, log form, wire JSON and its validation."""

import dataclasses
import json
import pickle
from dataclasses import replace
from typing import Any

import pytest

from agenterr import (
    AuthToolError,
    Class,
    Code,
    Failure,
    IndeterminateToolError,
    Outcome,
    Reason,
    SelfCorrectableToolError,
    Success,
    TransientToolError,
    from_error,
    from_status,
    schema_invalid,
)


def test_ok_outcome() -> None:
    """Success has no code, keeps its 2xx status, and serialises to the reference's minimal
    shape (no status on the wire: SPEC.md section 8)."""
    out = from_status(204)
    assert out.ok and not out.failed
    assert out.code is None and out.class_ is None and out.retryable is False
    assert out.status == 204 and out.llm_hint == "" and out.retry_after is None
    assert out.to_dict() == {"ok": True, "retryable": False}
    assert out.to_json() == '{"ok":true,"retryable":false}'
    assert str(out) == "ok"


def test_derived_fields_follow_code() -> None:
    """class_, retryable and ok can never disagree with code."""
    for code in Code:
        out: Outcome[None] = Outcome.failure(code)
        assert out.failed and out.class_ is code.class_ and out.retryable is code.retryable


def test_frozen_and_slotted() -> None:
    """Outcomes are immutable values."""
    out = from_status(500)
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.status = 200  # type: ignore[misc]
    assert not hasattr(out, "__dict__")


def test_success_carries_value_not_serialised() -> None:
    """The success value is kept for Python callers and never put on the wire."""
    out = Outcome.success({"id": 7})
    assert out.ok and out.value == {"id": 7}
    assert out.to_dict() == {"ok": True, "retryable": False}
    assert out.unwrap() == {"id": 7}
    assert out.raise_for_failure() is out


def test_equality_compares_value_not_error() -> None:
    """Outcomes compare by content and success value; the classified exception is ignored."""
    assert from_error(TimeoutError("a")) == from_error(TimeoutError("b"))
    assert Outcome.success(1) != Outcome.success(2)
    assert Outcome.success([1]) == Outcome.success([1])


def test_failure_constructor_normalises_like_the_classifiers() -> None:
    """Outcome.failure never builds what the wire reader would reject."""
    assert Outcome.failure(Code.NOT_FOUND, status=200).status == 0
    assert Outcome.failure(Code.NOT_FOUND, status=True).status == 0  # type: ignore[arg-type]
    assert "(no HTTP response)" in Outcome.failure(Code.NOT_FOUND, status=-1).llm_hint
    assert Outcome.failure(Code.RATE_LIMITED, retry_after=1e9).retry_after == 86_400.0
    for out in (
        Outcome.failure(Code.NOT_FOUND, status=200),
        Outcome.failure(Code.RATE_LIMITED, status=429, retry_after=1e9),
    ):
        assert Outcome.from_dict(out.to_dict()).to_dict() == out.to_dict()


def test_failure_constructor_defaults() -> None:
    """Outcome.failure fills in the standard hint and drops Retry-After on non-transient codes."""
    out: Outcome[None] = Outcome.failure(Code.RATE_LIMITED, status=429, retry_after=2.0)
    assert out.llm_hint == from_status(429, headers={"Retry-After": "2"}).llm_hint
    assert out.retry_after == 2.0
    assert Outcome.failure(Code.NOT_FOUND, retry_after=5).retry_after is None
    assert Outcome.failure(Code.TIMEOUT, retry_after=float("nan")).retry_after is None
    assert Outcome.failure("TIMEOUT", "custom").llm_hint == "custom"
    assert Outcome.failure(Code.SCHEMA_INVALID).llm_hint == schema_invalid().llm_hint


def test_log_form() -> None:
    """str() is a compact log line; repr stays a dataclass repr."""
    out = from_status(503, headers={"Retry-After": "1.5"})
    assert str(out) == "UNAVAILABLE class=transient status=503 retry_after=1.5s"
    assert str(from_error(TimeoutError())) == "TIMEOUT class=transient"
    assert repr(out).startswith("Failure(code=<Code.UNAVAILABLE: 'UNAVAILABLE'>")


def test_wire_json_key_order_and_omission() -> None:
    """Keys come in SPEC order; empty fields are omitted; ok and retryable always present."""
    out = from_status(429, "slow", headers={"Retry-After": "0.2"})
    assert list(out.to_dict()) == [
        "ok",
        "code",
        "class",
        "retryable",
        "llm_hint",
        "retry_after_seconds",
        "status",
    ]
    assert out.to_dict()["retry_after_seconds"] == 1  # rounded up
    transport = from_error(ConnectionError()).to_dict()
    assert list(transport) == ["ok", "code", "class", "retryable", "llm_hint"]
    no_hint: Outcome[None] = Outcome(Code.UNKNOWN)
    assert no_hint.to_dict() == {
        "ok": False,
        "code": "UNKNOWN",
        "class": "indeterminate",
        "retryable": False,
    }


def test_zero_retry_after_is_omitted() -> None:
    """A zero delay is 'no wait' and is omitted, as the reference's omitempty does."""
    out = from_status(503, headers={"Retry-After": "0"})
    assert out.retry_after == 0.0
    assert "retry_after_seconds" not in out.to_dict()


def test_to_json_keeps_unicode_and_indents() -> None:
    """to_json emits real UTF-8 characters and supports pretty printing."""
    out = from_status(401, '{"error":"token expired"}')
    assert "—" in out.to_json()
    assert json.loads(out.to_json(indent=2)) == out.to_dict()


@pytest.mark.parametrize(
    "outcome",
    [
        from_status(200),
        from_status(400, "bad"),
        from_status(429, headers={"Retry-After": "7"}),
        from_status(503),
        from_error(TimeoutError()),
        schema_invalid("a", "b"),
        from_status(302),
    ],
)
def test_from_dict_round_trips(outcome: Outcome[Any]) -> None:
    """from_dict(to_dict()) gives back the same wire shape and an equal outcome (a success
    comes back without its 2xx status, which the wire form does not carry)."""
    wire = outcome.to_dict()
    back = Outcome.from_dict(json.loads(json.dumps(wire)))
    assert back.to_dict() == wire
    assert back == (replace(outcome, status=0) if outcome.ok else outcome)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ([], "outcome"),
        ({}, "ok"),
        ({"ok": "yes"}, "ok"),
        ({"ok": True, "code": "TIMEOUT"}, "code"),
        ({"ok": True, "retryable": True}, "retryable"),
        ({"ok": False}, "code"),
        ({"ok": False, "code": "NOPE"}, "code"),
        ({"ok": False, "code": "TIMEOUT", "class": "auth"}, "class"),
        ({"ok": False, "code": "TIMEOUT", "retryable": False}, "retryable"),
        ({"ok": False, "code": "TIMEOUT", "retryable": 1}, "retryable"),
        ({"ok": False, "code": "TIMEOUT", "llm_hint": 3}, "llm_hint"),
        ({"ok": False, "code": "TIMEOUT", "retry_after_seconds": -1}, "retry_after_seconds"),
        ({"ok": False, "code": "TIMEOUT", "retry_after_seconds": 1.5}, "retry_after_seconds"),
        ({"ok": False, "code": "TIMEOUT", "retry_after_seconds": True}, "retry_after_seconds"),
        ({"ok": False, "code": "NOT_FOUND", "retry_after_seconds": 3}, "retry_after_seconds"),
        ({"ok": False, "code": "TIMEOUT", "status": 700}, "status"),
        ({"ok": False, "code": "TIMEOUT", "status": "503"}, "status"),
        ({"ok": False, "code": "TIMEOUT", "status": False}, "status"),
        ({"ok": False, "code": "NOT_FOUND", "status": 200}, "status"),
        ({"ok": True, "status": False}, "status"),
        ({"ok": True, "status": 0.0}, "status"),
        ({"ok": False, "code": None}, "code"),
    ],
)
def test_from_dict_rejects_bad_input_naming_the_field(data: object, field: str) -> None:
    """Bad wire input raises ValueError whose message starts with the field's name."""
    with pytest.raises(ValueError, match=rf"^{field}:"):
        Outcome.from_dict(data)


def test_from_dict_null_is_absent() -> None:
    """null stands for an absent optional field."""
    out = Outcome.from_dict(
        {"ok": False, "code": "TIMEOUT", "llm_hint": None, "status": None, "class": None}
    )
    assert out.code is Code.TIMEOUT and out.status == 0 and out.llm_hint == ""
    assert Outcome.from_dict({"ok": True, "code": None, "status": 0, "llm_hint": ""}).ok


def test_from_dict_ignores_unknown_keys() -> None:
    """Newer writers may add keys; readers ignore them."""
    out = Outcome.from_dict({"ok": False, "code": "TIMEOUT", "extra": {"x": 1}})
    assert out.code is Code.TIMEOUT and out.llm_hint == ""


@pytest.mark.parametrize(
    ("outcome", "error_type"),
    [
        (from_status(503), TransientToolError),
        (from_status(404), SelfCorrectableToolError),
        (schema_invalid("x"), SelfCorrectableToolError),
        (from_status(403), AuthToolError),
        (from_status(302), IndeterminateToolError),
    ],
)
def test_raise_for_failure(outcome: Outcome[Any], error_type: type[Exception]) -> None:
    """raise_for_failure raises the typed error for the outcome's class."""
    with pytest.raises(error_type) as info:
        outcome.raise_for_failure()
    assert info.value.outcome is outcome  # type: ignore[attr-defined]
    with pytest.raises(error_type):
        outcome.unwrap()


def test_raise_for_failure_chains_original() -> None:
    """The typed error is raised from the exception that was classified."""
    original = ConnectionResetError("peer reset")
    with pytest.raises(TransientToolError) as info:
        from_error(original).raise_for_failure()
    assert info.value.__cause__ is original


def test_pickle_drops_error_keeps_content() -> None:
    """Outcomes pickle with their content; the process-local exception is dropped."""
    out = from_error(TimeoutError("x"))
    assert out.error is not None
    back = pickle.loads(pickle.dumps(out))
    assert back == out and back.error is None and back.llm_hint == out.llm_hint
    success = pickle.loads(pickle.dumps(Outcome.success([1, 2])))
    assert success.value == [1, 2]


def test_class_enum_on_outcome() -> None:
    """class_ is a Class member, usable in match statements."""
    match from_status(401):
        case Outcome(ok=False, class_=Class.AUTH):
            matched = True
        case _:
            matched = False
    assert matched


# --- the two kinds: Success and Failure ---------------------------------------------------


def test_outcome_constructor_picks_the_kind_by_code() -> None:
    """Outcome(...) builds a Failure when given a code and a Success otherwise."""
    failed = Outcome(Code.TIMEOUT, "slow")
    ok = Outcome(value=3, status=201)
    assert type(failed) is Failure and isinstance(failed, Outcome) and failed.failed
    assert type(ok) is Success and isinstance(ok, Outcome) and ok.ok and ok.value == 3
    assert type(Outcome.success()) is Success and type(Outcome.failure(Code.TIMEOUT)) is Failure


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Failure(None, "hint"), "^code: a Failure needs a Code"),
        (lambda: Success(code=Code.TIMEOUT), "^code, llm_hint, retry_after, error: "),
        (lambda: Success(1, llm_hint="hint"), "^code, llm_hint, retry_after, error: "),
        (lambda: Success(1, reason=Reason("status-table")), "^reason: "),
        (lambda: Failure(Code.TIMEOUT, value=1), "^value: a failure carries none"),
        (lambda: Outcome(None, "hint"), "^llm_hint, retry_after, error, reason: "),
    ],
)
def test_a_kind_rejects_the_other_kinds_code(build: Any, message: str) -> None:
    """Failure needs a code and Success must not have one: a clear ValueError, not a hybrid."""
    with pytest.raises(ValueError, match=message):
        build()


def test_a_failure_needs_its_code_argument() -> None:
    with pytest.raises(TypeError, match="code"):
        Failure()  # type: ignore[call-arg]


def test_replace_keeps_the_kind_and_its_rule() -> None:
    """dataclasses.replace builds the same kind again, so it cannot strip a failure's code."""
    failed = from_status(503)
    assert type(replace(failed, status=502)) is Failure
    with pytest.raises(ValueError, match="code"):
        replace(failed, code=None)


def test_every_classifier_returns_one_of_the_two_kinds() -> None:
    """Classifiers, wire reading and pickling all hand back Success or Failure, never a bare
    Outcome."""
    for out in (
        from_status(200),
        from_status(429),
        from_error(TimeoutError("x")),
        schema_invalid("missing q"),
        Outcome.from_dict({"ok": False, "code": "RATE_LIMITED", "llm_hint": "wait"}),
        Outcome.from_dict({"ok": True}),
        pickle.loads(pickle.dumps(from_status(404))),
        pickle.loads(pickle.dumps(Outcome.success(1))),
    ):
        assert type(out) is (Failure if out.code is not None else Success)


@pytest.mark.parametrize("name", ["BOGUS", "timeout", "", 3, None])
def test_failure_rejects_an_unknown_code_name(name: Any) -> None:
    """A typo in Outcome.failure is a ValueError naming the codes, not a silent UNKNOWN."""
    with pytest.raises(ValueError, match="RATE_LIMITED"):
        Outcome.failure(name)


def test_failure_accepts_a_code_or_its_exact_name() -> None:
    assert Outcome.failure("TIMEOUT") == Outcome.failure(Code.TIMEOUT)


def test_failure_unwrap_raises_and_success_unwrap_returns() -> None:
    assert Outcome.success("v").unwrap() == "v"
    assert Outcome.success("v").raise_for_failure().value == "v"
    with pytest.raises(TransientToolError):
        from_status(503).unwrap()


def test_typed_errors_carry_a_failure() -> None:
    """An AgentToolError holds a Failure; a Success is refused."""
    err = TransientToolError(from_status(503))
    assert type(err.outcome) is Failure
    with pytest.raises(ValueError, match="failed Outcome"):
        TransientToolError(Outcome.success())


def test_kinds_repr_and_module() -> None:
    """Both kinds are public names of the package, and repr says which one it is."""
    assert Success.__module__ == Failure.__module__ == Outcome.__module__ == "agenterr"
    assert repr(from_status(404)).startswith("Failure(code=<Code.NOT_FOUND")
    assert repr(Outcome.success(1)).startswith("Success(code=None")
