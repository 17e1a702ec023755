"""Redacted stand-ins for the exceptions an integration hands to an engine.

Temporal writes a failure's cause chain, messages and stack traces, into the workflow's
history; Celery stores a failed task's formatted traceback in its result backend and logs it;
Dramatiq keeps the traceback in the message's options. A tool's raw exception may hold a
credential in its message, so what crosses such a boundary is :func:`redacted_cause` of the
typed error: a copy of it, then a :class:`RedactedCause` per exception of the original chain,
each message through agenterr's cleaning and redaction gate, none with a traceback.
"""

from __future__ import annotations

from ..errors import AgentToolError, error_for

__all__ = ["RedactedCause", "redacted_cause"]

_REDACTED_CHAIN = 8
"""Most links of the original cause chain kept, as stand-ins."""


class RedactedCause(Exception):
    """A stand-in for an exception in a failure's cause chain: its class name and message,
    cleaned and redacted as a quoted API body is, and nothing else (no traceback, no
    attributes)."""


def _next(error: BaseException) -> BaseException | None:
    """The exception Python's traceback shows before ``error``: its cause, else its
    context unless suppressed."""
    return error.__cause__ or (None if error.__suppress_context__ else error.__context__)


def redacted_cause(error: AgentToolError) -> AgentToolError:
    """A fresh typed error of ``error``'s class and Outcome (its message is the hint,
    already redacted), caused by a :class:`RedactedCause` for each exception of ``error``'s
    chain (a typed error in it becomes a fresh copy too), at most eight, a cycle cut. None
    of them was raised, so none has a traceback; raise the result ``from`` itself, or chain
    an engine's own exception ``from`` it."""
    from .._quote import clean, snippet

    head = error_for(error.outcome)
    link: BaseException = head
    seen = {id(error)}
    original = _next(error)
    for _ in range(_REDACTED_CHAIN):
        if original is None or id(original) in seen:
            break
        seen.add(id(original))
        if isinstance(original, AgentToolError):
            stand_in: BaseException = error_for(original.outcome)
        else:
            try:
                text = snippet(str(original), 500)
            except Exception:
                text = ""
            name = clean(type(original).__name__, 100)
            stand_in = RedactedCause(f"{name}: {text}" if text else name)
        link.__cause__ = stand_in
        link = stand_in
        original = _next(original)
    return head
