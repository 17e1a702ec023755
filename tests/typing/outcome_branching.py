"""Never run: the obvious branching on an Outcome type-checks without a cast.

The classifiers and the decorator return ``Success[T] | Failure``. Both checkers narrow that
union on ``out.ok is True``, ``out.code is None`` and ``isinstance``; mypy also narrows on a
bare ``if out.ok:``, pyright does not (it narrows ``Literal`` properties only when compared).
A plain ``Outcome[T]`` annotation narrows on ``out.code`` and on ``isinstance``.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, assert_type

import agenterr
from agenterr import Class, Code, Outcome


def react(out: Outcome[dict[str, int]]) -> str:
    """Branch on the code: ``out.code.value`` needs no cast in any failure branch."""
    if out.code is None:
        assert_type(out.value, dict[str, int] | None)
        return "done"
    assert_type(out.code, Code)
    if out.code.retryable:
        wait = 1.0 if out.retry_after is None else out.retry_after
        return f"retry {out.code.value} after {wait:g}s"
    if out.code.class_ is Class.SELF_CORRECTABLE:
        return out.llm_hint
    if out.code.class_ is Class.AUTH:
        return f"escalate {out.code.value} (credentials)"
    return f"escalate {out.code.value}"


def react_by_class(out: Outcome[None]) -> str:
    """The README's form: ok, retryable, class_; ``class_`` narrows like ``code``."""
    if out.ok:
        return "done"
    if out.retryable:
        wait = 1.0 if out.retry_after is None else out.retry_after
        return f"retry after {wait:g}s"
    if out.class_ is None:
        return "done"
    assert_type(out.class_, Class)
    if out.class_ is Class.AUTH:
        return "escalate"
    return out.class_.value


def match_on_code(out: Outcome[None]) -> str:
    """``match`` narrows the code too."""
    match out.code:
        case None:
            return "done"
        case Code.RATE_LIMITED | Code.TIMEOUT | Code.UNAVAILABLE:
            return "retry"
        case code:  # the other five codes
            assert_type(code.class_, Class)
            return code.value


def statuses() -> None:
    assert_type(agenterr.from_status(201).status, int)
    assert_type(Outcome[int].success(1, status=201).status, int)


# Success and Failure: what the classifiers and the decorator return, so ``ok`` narrows.
def react_to_result(out: agenterr.Success[dict[str, int]] | agenterr.Failure) -> str:
    """``out.ok is True`` narrows under both checkers: a value on one side, a code on the other."""
    if out.ok is True:
        assert_type(out, agenterr.Success[dict[str, int]])
        assert_type(out.value, dict[str, int])
        assert_type(out.code, None)
        return str(len(out.value))
    assert_type(out, agenterr.Failure)
    assert_type(out.code, Code)
    assert_type(out.class_, Class)
    return out.code.value


def react_on_code(out: agenterr.Success[int] | agenterr.Failure) -> int:
    """``out.code is None`` narrows the whole outcome, not only the attribute."""
    if out.code is None:
        assert_type(out, agenterr.Success[int])
        return out.value
    assert_type(out, agenterr.Failure)
    return len(out.llm_hint)


def react_on_type(out: Outcome[str]) -> str:
    """``isinstance`` narrows even a plain ``Outcome`` annotation."""
    if isinstance(out, agenterr.Failure):
        assert_type(out.code, Code)
        return out.code.value
    assert_type(out.value, str | None)
    return out.value or ""


def unwrapped(out: agenterr.Success[bytes] | agenterr.Failure) -> bytes:
    """``unwrap`` returns the value's own type; ``raise_for_failure`` keeps the success."""
    assert_type(out.unwrap(), bytes)
    assert_type(out.raise_for_failure(), agenterr.Success[bytes])
    return out.raise_for_failure().value


def classifier_returns() -> None:
    assert_type(agenterr.from_status(404), agenterr.Success[None] | agenterr.Failure)
    assert_type(agenterr.schema_invalid("q", "missing"), agenterr.Failure)
    assert_type(Outcome.success(3), agenterr.Success[int])
    assert_type(Outcome.failure("TIMEOUT"), agenterr.Failure)


@agenterr.classified_tool
def lookup(key: str) -> int:
    return len(key)


async def alookup(key: str) -> int:
    return len(key)


def decorated() -> None:
    out = lookup("a")
    assert_type(out, agenterr.Success[int] | agenterr.Failure)
    if out.ok is True:
        assert_type(out.value, int)
    wrapped = agenterr.classified_tool(alookup)
    pending = assert_type(
        wrapped("a"), Coroutine[Any, Any, agenterr.Success[int] | agenterr.Failure]
    )
    pending.close()


def explained(out: agenterr.Success[int] | agenterr.Failure) -> str:
    """A failure's reason is optional; its members are plain values."""
    if isinstance(out, agenterr.Failure) and out.reason is not None:
        assert_type(out.reason, agenterr.Reason)
        assert_type(out.reason.replaced, Code | None)
        return f"{out.reason.rule}: {out.reason.evidence}"
    return ""


def constructors() -> None:
    """Each kind's own constructor is typed: a success carries its value's type."""
    assert_type(agenterr.Success(1), agenterr.Success[int])
    assert_type(agenterr.Success(), agenterr.Success[None])
    assert_type(agenterr.Success("x", 201).value, str)
    assert_type(agenterr.Failure(Code.TIMEOUT, "slow").code, Code)
