"""The typed error tree."""

import pickle

import pytest

from agenterr import (
    AgentToolError,
    AuthToolError,
    Class,
    Code,
    IndeterminateToolError,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    error_for,
    errors,
    from_status,
)

BY_CLASS = {
    Class.TRANSIENT: TransientToolError,
    Class.SELF_CORRECTABLE: SelfCorrectableToolError,
    Class.AUTH: AuthToolError,
    Class.INDETERMINATE: IndeterminateToolError,
}


@pytest.mark.parametrize("code", list(Code))
def test_error_for_every_code(code: Code) -> None:
    """Each code's outcome raises the subclass for its class, carrying the outcome."""
    outcome: Outcome[None] = Outcome.failure(code, status=0)
    err = error_for(outcome)
    assert type(err) is BY_CLASS[code.class_]
    assert isinstance(err, AgentToolError) and isinstance(err, Exception)
    assert err.outcome is outcome
    assert (err.code, err.class_, err.llm_hint) == (code, code.class_, outcome.llm_hint)


def test_convenience_properties() -> None:
    """code, retry_after, llm_hint and status mirror the outcome."""
    err = error_for(from_status(429, "slow", headers={"Retry-After": "4"}))
    assert err.retry_after == 4.0 and err.status == 429 and err.code is Code.RATE_LIMITED
    assert str(err).startswith("RATE_LIMITED class=transient status=429 retry_after=4s: ")
    assert repr(err).startswith("TransientToolError(Failure(")


def test_needs_a_failed_outcome() -> None:
    """An error cannot be built from success or from something that is not an Outcome."""
    with pytest.raises(ValueError):
        error_for(Outcome.success())
    with pytest.raises(ValueError):
        TransientToolError(Outcome.success())
    with pytest.raises(ValueError):
        TransientToolError("oops")  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", list(BY_CLASS.values()))
def test_errors_pickle_with_outcome(cls: type[AgentToolError]) -> None:
    """Errors cross process boundaries with their outcome intact."""
    code = next(c for c in Code if BY_CLASS[c.class_] is cls)
    err = cls(Outcome.failure(code, status=500 if code.retryable else 0))
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls and back.outcome == err.outcome
    assert back.llm_hint == err.llm_hint


def test_module_docstring_draws_the_tree() -> None:
    """The errors module documents the hierarchy it defines."""
    assert errors.__doc__ is not None
    for name in errors.__all__:
        if name != "error_for":
            assert name in errors.__doc__
