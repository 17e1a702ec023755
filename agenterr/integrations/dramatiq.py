"""Dramatiq: retry transient tool failures after the server's Retry-After, fail the rest.

Dramatiq's Retries middleware does the retrying; this module tells it what to retry and how
long to wait::

    import dramatiq
    from agenterr import classified_tool
    from agenterr.integrations.dramatiq import retry_when_transient, with_retry_after


    @dramatiq.actor(retry_when=retry_when_transient(max_retries=5))
    @with_retry_after
    @classified_tool(raises=True)
    def sync_invoice(invoice_id: str) -> None: ...

:func:`with_retry_after` turns a :class:`~agenterr.TransientToolError` the actor raises into
``dramatiq.Retry(delay=<Retry-After in ms>)``, raised ``from`` a copy of the typed error: the
middleware waits exactly that long (its own exponential backoff when the server gave no
Retry-After), and does not log the retry as an error. Other typed errors are raised as a copy
(the same class and Outcome). Each copy is chained from redacted stand-ins of the original
causes, never the raw exception: Dramatiq keeps the formatted traceback in the message, with
its retries and in the dead letter queue, and logs it.
:func:`retry_when_transient` is the ``retry_when`` predicate that retries those transient
failures and nothing else. From code that holds an Outcome, :func:`retry_transient` does the
same hand-off by hand. When the retries run out, the message fails with the last ``Retry``,
whose ``__cause__`` is the typed error. A ``dramatiq.Retry`` the actor raises itself passes
through ``@classified_tool`` unclassified and is retried like the others.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, ParamSpec, TypeVar, cast

from .. import Outcome
from .._adapter import redacted_cause
from ..errors import AgentToolError, TransientToolError, error_for
from ._require import require

_dramatiq = require("dramatiq", "dramatiq")

__all__ = ["retry_transient", "retry_when_transient", "with_retry_after"]

P = ParamSpec("P")
R = TypeVar("R")

# Dramatiq's Retries middleware retries 20 times unless told otherwise; a retry_when
# predicate replaces that limit, so this one keeps it.
_DEFAULT_MAX_RETRIES = 20


def _delay_ms(error: AgentToolError) -> int | None:
    after = error.retry_after
    if after is None or not math.isfinite(after):
        return None
    return max(0, math.ceil(after * 1000))  # round up: nobody retries early


def _as_retry(error: TransientToolError) -> BaseException:
    retry: BaseException = _dramatiq.Retry(str(error), delay=_delay_ms(error))
    return retry


def retry_transient(failure: AgentToolError | Outcome[Any]) -> NoReturn:
    """Raise ``failure`` the way Dramatiq should see it.

    A transient failure becomes ``dramatiq.Retry`` with the Retry-After as its ``delay`` (in
    milliseconds; ``None`` leaves the wait to the middleware's backoff), chained ``from`` the
    typed error; any other failure raises its typed error. Either is a copy of the typed
    error chained from redacted stand-ins of its causes (see the module's docstring).
    ``failure`` is a typed error or a failed Outcome (``ValueError`` otherwise)::

        @dramatiq.actor(retry_when=retry_when_transient())
        def refresh(sku: str) -> None:
            outcome = refresh_tool(sku)  # @classified_tool in Outcome mode
            if outcome.failed:
                retry_transient(outcome)
    """
    if isinstance(failure, AgentToolError):
        error = failure
    elif isinstance(failure, Outcome) and failure.failed:
        error = error_for(failure)
        error.__cause__ = failure.error
    else:
        raise ValueError(f"expected a typed error or a failed Outcome, got {_described(failure)}")
    _hand_over(error)


def _hand_over(error: AgentToolError) -> NoReturn:
    """Raise what Dramatiq gets for ``error``: a copy of it (class and Outcome) chained from
    redacted stand-ins of its causes (see :mod:`agenterr._adapter`), as
    ``dramatiq.Retry`` ``from`` the copy when transient. Dramatiq keeps the formatted
    traceback in the message (``options["traceback"]``, with its retries and in the dead
    letter queue) and logs it; the raw exception's message may hold a credential."""
    copy = redacted_cause(error)
    if isinstance(copy, TransientToolError):
        raise _as_retry(copy) from copy
    raise copy from copy.__cause__


def retry_when_transient(
    *, max_retries: int | None = _DEFAULT_MAX_RETRIES
) -> Callable[[int, BaseException], bool]:
    """A ``retry_when=`` predicate for Dramatiq's Retries middleware: transient only.

    It retries a :class:`~agenterr.TransientToolError` and a ``dramatiq.Retry`` (what
    :func:`with_retry_after` and :func:`retry_transient` raise for one, or an explicit request
    of the actor's own) while fewer than ``max_retries`` retries have run (``None``: no
    limit); everything else fails the message at once. Dramatiq ignores an actor's
    ``max_retries`` when ``retry_when`` is set, hence the parameter.
    """
    if max_retries is not None and max_retries < 0:
        raise ValueError("max_retries must be at least 0")

    def retry_when(retries: int, exception: BaseException) -> bool:
        if max_retries is not None and retries >= max_retries:
            return False
        return isinstance(exception, (TransientToolError, _dramatiq.Retry))

    return retry_when


def with_retry_after(fn: Callable[P, R]) -> Callable[P, R]:
    """Wrap an actor function so a raised transient failure retries after its Retry-After.

    A :class:`~agenterr.TransientToolError` becomes ``dramatiq.Retry(delay=...)`` as in
    :func:`retry_transient`, another typed error a redacted copy of it; every other exception
    propagates unchanged. Plain
    and ``async`` functions both work (an ``async`` actor needs Dramatiq's ``AsyncIO``
    middleware); name, signature and docstring are kept, so the actor name is the function's.
    """
    if inspect.iscoroutinefunction(fn):
        async_fn = cast("Callable[P, Awaitable[Any]]", fn)

        @functools.wraps(fn)
        async def async_wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
            try:
                return await async_fn(*args, **kwargs)
            except AgentToolError as exc:
                _hand_over(exc)

        return cast("Callable[P, R]", async_wrapper)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except AgentToolError as exc:
            _hand_over(exc)

    return wrapper


def _described(value: object) -> str:
    # Never the value's repr: it may raise, or carry what a log must not show.
    return "an ok Outcome" if isinstance(value, Outcome) else f"a {type(value).__name__}"
