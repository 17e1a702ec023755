"""A stamina ``on=`` hook: retry transient failures, waiting the server's Retry-After.

::

    import stamina
    from agenterr import classified_tool
    from agenterr.integrations.stamina import retry_policy

    @stamina.retry(**retry_policy(max_wait=30))  # transient only; Retry-After over 30 s: stop
    @classified_tool(raises=True)
    def get_rate(currency: str) -> dict: ...

    # the same policy around a block:
    for attempt in stamina.retry_context(**retry_policy(max_wait=10)):
        with attempt:
            ...

    # or the hook alone: stamina.retry(on=retry_on_transient, attempts=5)

    # each failure logged once (agenterr's record), each retry once (this hook's):
    stamina.instrumentation.set_on_retry_hooks([log_retries()])

The hook reads a raised :class:`~agenterr.AgentToolError` by its outcome, and any other
exception that is an HTTP or network failure (httpx, requests, aiohttp, the OpenAI and
Anthropic SDKs, ``ConnectionError``, ``TimeoutError``…) by :func:`~agenterr.from_error`, so
plain client code works too. Every other exception is a bug and is not retried. stamina
retries exceptions only: a tool in Outcome mode must raise (``raises=True``, or
``outcome.raise_for_failure()``). Needs stamina 25.2 or later (backoff hooks).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, TypedDict, overload

from .._adapter import RetryLogger, exception_outcome, log_retry
from ._require import require

require("stamina", "stamina")

if TYPE_CHECKING:
    from stamina.instrumentation import RetryDetails

__all__ = ["RetryPolicy", "log_retries", "retry_on_transient", "retry_policy"]


def _decide(exc: BaseException, max_wait: float | None) -> bool | float:
    outcome = exception_outcome(exc)
    if outcome is None or not outcome.retryable:
        return False
    if outcome.retry_after is None:
        return True  # stamina's own exponential backoff with jitter
    if max_wait is not None and outcome.retry_after > max_wait:
        return False  # the failure propagates, its retry_after intact for the caller
    return outcome.retry_after


@overload
def retry_on_transient(exc: BaseException, /) -> bool | float: ...
@overload
def retry_on_transient(
    *, max_wait: float | timedelta | None = 60.0
) -> Callable[[BaseException], bool | float]: ...
def retry_on_transient(
    exc: BaseException | None = None, /, *, max_wait: float | timedelta | None = 60.0
) -> bool | float | Callable[[BaseException], bool | float]:
    """The ``on=`` hook: Retry-After seconds as the backoff, ``True``, or ``False``.

    For a transient failure it returns the server's Retry-After, which stamina waits
    instead of its own backoff, or ``True`` (stamina's backoff) when there is none. It
    returns ``False`` for every other failure, and for a Retry-After longer than
    ``max_wait`` (seconds or a timedelta; ``None`` for no limit): that failure propagates
    with its ``retry_after``, for the caller to reschedule. Pass the function itself
    (``on=retry_on_transient``) or, to change the limit, call it with ``max_wait`` only.
    """
    if exc is not None and not isinstance(exc, BaseException):
        raise TypeError(
            f"retry_on_transient takes the exception stamina passes, got {exc!r}; "
            "pass a limit by keyword: retry_on_transient(max_wait=...)"
        )
    limit = max_wait.total_seconds() if isinstance(max_wait, timedelta) else max_wait
    if limit is not None and not limit >= 0:  # also rejects NaN
        raise ValueError(f"max_wait must be non-negative seconds or None, got {max_wait!r}")
    if exc is not None:
        return _decide(exc, limit)

    def hook(exc: BaseException) -> bool | float:
        return _decide(exc, limit)

    hook.__name__ = hook.__qualname__ = f"retry_on_transient(max_wait={limit!r})"
    return hook


class RetryPolicy(TypedDict):
    """The keyword arguments of ``stamina.retry`` and ``stamina.retry_context`` that
    :func:`retry_policy` fills in."""

    on: Callable[[BaseException], bool | float]
    attempts: int
    timeout: float | timedelta | None


def retry_policy(
    *,
    max_wait: float | timedelta = 60.0,
    attempts: int = 5,
    timeout: float | timedelta | None = 45.0,
) -> RetryPolicy:
    """The whole retry policy for stamina, with one limit: ``@stamina.retry(**retry_policy())``.

    Only transient failures are retried; the server's Retry-After is waited exactly, never
    less, and one longer than ``max_wait`` (seconds or a timedelta) is not waited at all:
    the failure propagates at once, its ``retry_after`` intact (:func:`retry_on_transient`).
    Without a Retry-After, stamina's own backoff applies. ``attempts`` and ``timeout`` (all
    retries together, stamina's default; ``None`` for none) are stamina's. Add other
    arguments beside it: ``@stamina.retry(**retry_policy(max_wait=30), wait_initial=0.5)``.
    """
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"attempts must be a positive integer, got {attempts!r}")
    return {
        "on": retry_on_transient(max_wait=max_wait),
        "attempts": attempts,
        "timeout": timeout,
    }


def log_retries(
    logger: RetryLogger | None = None, level: int = logging.INFO
) -> Callable[[RetryDetails], None]:
    """A stamina on-retry hook that logs each scheduled retry once, in place of stamina's
    logging hook: ``stamina.instrumentation.set_on_retry_hooks([log_retries()])``.

    stamina's own hook logs ``stamina.retry_scheduled`` with the exception's repr, which
    repeats the failure a ``@classified_tool`` has already logged, hint and all. This one
    names only the retry for such a failure (``get_rate: retrying in 2.00s after attempt
    1``) and the code, class and status for any other (``get_rate failed (attempt 1):
    UNAVAILABLE class=transient status=503; retrying in 2.00s``); never the exception's text.
    The record carries ``agenterr_outcome``, ``agenterr_attempt`` and ``agenterr_wait``.
    Logged on the ``stamina`` logger unless ``logger`` is given. Keep stamina's other hooks
    beside it if you use them (``PrometheusOnRetryHook``).
    """
    target: RetryLogger = logging.getLogger("stamina") if logger is None else logger

    def hook(details: RetryDetails) -> None:
        exc = details.caused_by
        outcome = exception_outcome(exc)
        what = str(outcome) if outcome is not None else f"unclassified {type(exc).__name__}"
        log_retry(target, level, details.name, details.retry_num, details.wait_for, outcome, what)

    return hook
