"""The seam between the core and the integrations: the one internal module they import.

An integration adapts agenterr to a framework: it reads a raised exception or a returned
value as an Outcome, or wraps a decorated tool so that the framework sees the same
signature. Everything it needs from the core beyond the public API is here, under names
that stay put when the core's private modules are reorganised; ``tests/test_adapter.py``
fails if an integration imports anything private from elsewhere.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeAlias

from ._classify import from_response
from ._exceptions import validation_problems
from ._outcome import Outcome
from ._policy import (
    OUTCOME,
    RESPONSE,
    ErrorRule,
    FailureObserver,
    bug,
    log_gated,
    logged,
    ok_response,
    result_kind,
    validation_outcome,
)
from ._quote import clean, snippet
from ._transport import from_error, is_transport
from .errors import AgentToolError, error_for

__all__ = [
    "ErrorRule",
    "Failed",
    "FailureObserver",
    "RedactedCause",
    "RetryLogger",
    "Wrapper",
    "adapt_tool",
    "call_arguments",
    "exception_outcome",
    "failure_outcome",
    "log_retry",
    "logged",
    "redacted_cause",
    "report_error",
    "result_outcome",
    "tool_name",
    "validation_problems",
    "wrap_tool",
]

Wrapper: TypeAlias = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]
"""A wrapt wrapper: ``(wrapped, instance, args, kwargs) -> result``."""


def exception_outcome(exc: BaseException) -> Outcome[Any] | None:
    """The failed Outcome a raised exception stands for, or ``None`` when it is not one.

    A typed error gives its own outcome; a failed HTTP exchange (httpx, requests, aiohttp,
    SDK errors, network ``OSError``s) is classified. Anything else — a bug in the tool, a
    control signal — is ``None``: ``from_error`` would read it as a transport failure
    (UNAVAILABLE), which would make a bug retryable.
    """
    if isinstance(exc, AgentToolError):
        return exc.outcome
    if isinstance(exc, Exception) and is_transport(exc):
        outcome = from_error(exc)
        return outcome if outcome.failed else None
    return None


def failure_outcome(exc: BaseException) -> Outcome[Any]:
    """The Outcome of any exception a framework caught from a tool; always a failure.

    As :func:`exception_outcome`, and: a pydantic or jsonschema ``ValidationError`` is
    ``SCHEMA_INVALID`` listing its problems, and anything else is ``UNKNOWN`` with a hint
    that does not quote the exception.
    """
    if isinstance(exc, AgentToolError):
        return exc.outcome
    invalid = validation_outcome(exc)
    if invalid is not None:
        return invalid
    if is_transport(exc):
        outcome = from_error(exc)
        if outcome.failed:
            return outcome
    return bug(exc, False)


def report_error(message: str, *args: object, error: BaseException | None = None) -> None:
    """Log an integration's own failure as a WARNING on the ``agenterr`` logger, through the
    redaction gate (the traceback of ``error`` as the record's text); never raises."""
    log_gated(logging.WARNING, message, *args, error=error)


class RetryLogger(Protocol):
    def log(self, level: int, msg: str, /, *args: Any, **kwargs: Any) -> object: ...


def log_retry(  # noqa: PLR0917 - one record's parts, read by two retry helpers
    logger: RetryLogger,
    level: int,
    name: str,
    attempt: int,
    wait: float,
    outcome: Outcome[Any] | None,
    what: str,
    exc_info: BaseException | None = None,
) -> None:
    """A retry helper's record of one scheduled retry; never raises.

    ``what`` says what failed when ``outcome`` is not the failure a ``@classified_tool`` has
    just logged; when it is, the record names only the retry, so each failure is logged once.
    Neither an exception's text nor a hint is logged: they quote the API.
    """
    args: tuple[object, ...]
    if outcome is not None and logged(outcome):
        message = "%s: retrying in %.2fs after attempt %d"
        args = (name, wait, attempt)
    else:
        message = "%s failed (attempt %d): %s; retrying in %.2fs"
        args = (name, attempt, what, wait)
    # A failing log handler must not replace the failure being retried.
    with contextlib.suppress(Exception):
        logger.log(
            level,
            message,
            *args,
            exc_info=exc_info,
            extra={
                "agenterr_outcome": outcome,
                "agenterr_attempt": attempt,
                "agenterr_wait": wait,
            },
        )


def result_outcome(value: object) -> Outcome[Any] | None:
    """The failed Outcome a returned value stands for, or ``None`` when it is not one.

    A failed Outcome is itself; an httpx, httpx2, requests, aiohttp or http.client response
    with a non-2xx status is classified by :func:`~agenterr.from_response`. Anything else,
    an ok Outcome or a 2xx response included, is ``None``.
    """
    kind = result_kind(type(value))
    if kind == OUTCOME:
        assert isinstance(value, Outcome)
        return value if value.failed else None
    if kind == RESPONSE and not ok_response(value):
        outcome = from_response(value)
        return outcome if outcome.failed else None
    return None


_PLAIN = (str, int, float, bool, type(None), list, tuple, dict)
"""What a model could have written as an argument: anything else bound to a parameter (a
``self``, a framework's context object) is the runtime's, not the call's."""


def call_arguments(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The arguments of one call of ``fn`` by parameter name, for the failure text to name
    the one the API objected to; ``None`` when they do not bind (the text then names none).

    Only plain data is kept: a bound ``self`` or a framework's context is not something the
    model sent. ``**kwargs`` are spread out under their own names; ``*args`` are left out
    (no name the API could point at). Never raises.
    """
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    named: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if kind is inspect.Parameter.VAR_KEYWORD:
            named.update((k, v) for k, v in value.items() if isinstance(v, _PLAIN))
        elif isinstance(value, _PLAIN):
            named[name] = value
    return named


def tool_name(fn: Callable[..., Any]) -> str | None:
    """The name a framework gives a tool built from ``fn`` by default: its ``__name__``."""
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) else None


Failed: TypeAlias = Callable[[Outcome[Any], "BaseException | None", "dict[str, Any] | None"], Any]
"""What an adapter does with a failure: ``(outcome, cause, arguments) -> result`` (or raise)."""


def adapt_tool(fn: Callable[..., Any], failed: Failed) -> Callable[..., Any]:
    """``fn`` (sync or async) answering its failures with ``failed``, same signature.

    A failure is a raised :class:`~agenterr.AgentToolError` (the cause is the error) or a
    returned failed Outcome (the cause is its error); ``failed`` gets the outcome, the
    cause and the call's :func:`call_arguments`, and what it returns is the call's result.
    An ok Outcome gives its value; anything else is returned as it is.
    ``functools.wraps`` keeps the name, docstring, annotations and signature, so a
    framework builds the same schema as from ``fn``.
    """

    from ._decorator import mark_adapted  # wrapt loads only when a tool is first wrapped

    mark_adapted(fn)  # a framework reads fn's signature through this adapter: not the trap

    def settle(result: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not isinstance(result, Outcome):
            return result
        if result.ok:
            return result.value
        return failed(result, result.error, call_arguments(fn, args, kwargs))

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            try:
                result = await fn(*args, **kwargs)
            except AgentToolError as exc:
                return failed(exc.outcome, exc, call_arguments(fn, args, kwargs))
            return settle(result, args, kwargs)

        return run_async

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(*args, **kwargs)
        except AgentToolError as exc:
            return failed(exc.outcome, exc, call_arguments(fn, args, kwargs))
        return settle(result, args, kwargs)

    return run


def wrap_tool(fn: Any, call: Wrapper, call_async: Wrapper, *, adapter: str) -> Any:
    """``fn`` behind ``call`` (or ``call_async`` for a coroutine function), as a tool.

    The result is what ``@classified_tool`` returns: it keeps ``fn``'s signature, name,
    docstring, annotations, coroutine-ness and method binding, and pickles and copies like
    a function, so a framework builds the same schema from it. ``adapter`` names the
    caller in the ``TypeError`` that refuses a generator function (not a tool).
    """
    # Imported here: wrapt (and asyncio) load only when a tool is first wrapped.
    from ._decorator import function_tool

    return function_tool(fn, call, call_async, adapter)


# --- what crosses an engine's boundary ---------------------------------------------------
#
# Temporal writes a failure's cause chain, messages and stack traces, into the workflow's
# history; Celery stores a failed task's formatted traceback in its result backend and logs
# it; Dramatiq keeps the traceback in the message's options. A tool's raw exception may hold
# a credential in its message, so what crosses such a boundary is redacted_cause() of the
# typed error: a copy of it, then a RedactedCause per exception of the original chain, each
# message through the cleaning and redaction gate, none with a traceback.

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
