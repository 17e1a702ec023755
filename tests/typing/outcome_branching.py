"""Never run: the obvious branching on an Outcome type-checks without a cast.

Type checkers narrow ``out.code`` (a ``Code | None`` attribute), not ``out.ok`` (a property
computed from it): test the code for ``None`` and every later branch sees a ``Code``. The
``ok``/``retryable``/``class_`` form type-checks as long as it does not touch ``out.code``.
"""

from __future__ import annotations

from typing import assert_type

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
