"""tenacity strategies that retry, wait and log by agenterr's classification.

::

    import logging
    from tenacity import retry
    from agenterr import classified_tool
    from agenterr.integrations.tenacity import before_sleep_log_outcome, retry_policy

    @retry(
        **retry_policy(max_wait=30),  # transient only; Retry-After waited, over 30 s: stop
        before_sleep=before_sleep_log_outcome(logging.getLogger(__name__)),
    )
    @classified_tool(raises=True)
    def get_rate(currency: str) -> dict: ...

:func:`retry_policy` is the whole policy in one call; it is made of the strategies below,
which can also be combined by hand::

    @retry(
        retry=retry_if_transient(),             # 429, 5xx, timeouts; never a 400 or a 401
        wait=wait_retry_after(max_wait=30),     # the server's Retry-After, else backoff
        stop=stop_after_attempt(5) | stop_if_retry_after_exceeds(30),  # the same limit
        reraise=True,
    )

Every strategy reads the same classification of the attempt that just ended:

- a raised :class:`~agenterr.AgentToolError` gives its ``outcome``;
- a returned failed :class:`~agenterr.Outcome` (a ``@classified_tool`` in Outcome mode) is
  used as it is, and a returned non-2xx response (httpx, httpx2, requests, aiohttp, urllib)
  is classified with :func:`~agenterr.from_response`;
- any other raised exception that is an HTTP or network failure (httpx, requests, aiohttp,
  urllib3, the OpenAI and Anthropic SDKs, ``ConnectionError``, ``TimeoutError``…) is
  classified with :func:`~agenterr.from_error`, so plain client code works as it is. For a
  call that is not idempotent, decorate it with ``@classified_tool(idempotent=False)``
  instead: from the exception alone a read timeout looks retryable;
- every other exception is a bug, not a failed call, and matches no predicate; nor does
  ``KeyboardInterrupt``, ``SystemExit`` or ``CancelledError``, which always propagate.

tenacity raises ``RetryError`` when a *returned* Outcome is still failing after the last
attempt; pass ``retry_error_callback=lambda state: state.outcome.result()`` to get that
Outcome back instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from .. import Class, Code, Outcome
from .._adapter import RetryLogger, exception_outcome, log_retry, result_outcome
from ._require import require

require("tenacity", "tenacity")

from tenacity import RetryCallState  # noqa: E402
from tenacity.retry import retry_base  # noqa: E402
from tenacity.stop import stop_after_attempt, stop_base  # noqa: E402
from tenacity.wait import WaitBaseT, wait_base, wait_exponential_jitter  # noqa: E402

if TYPE_CHECKING:
    from tenacity import Future

__all__ = [
    "RetryPolicy",
    "before_sleep_log_outcome",
    "retry_if_class",
    "retry_if_code",
    "retry_if_transient",
    "retry_policy",
    "stop_if_retry_after_exceeds",
    "wait_retry_after",
]


# --- reading the attempt ------------------------------------------------------------------


def _attempt_outcome(retry_state: RetryCallState) -> Outcome[Any] | None:
    """The failed Outcome of the attempt that just ended, or None when there is none."""
    attempt: Future | None = retry_state.outcome
    if attempt is None:
        return None
    exc = attempt.exception()
    if exc is not None:
        return exception_outcome(exc)
    return result_outcome(attempt.result())


def _seconds(value: float | timedelta, name: str) -> float:
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if not seconds >= 0:  # also rejects NaN
        raise ValueError(f"{name} must be a non-negative number of seconds, got {value!r}")
    return seconds


# --- retry ----------------------------------------------------------------------------------


class _RetryIfOutcome(retry_base):
    """True when the attempt's failed Outcome has one of the wanted codes."""

    def __init__(self, codes: frozenset[Code], text: str) -> None:
        self._codes = codes
        self._text = text

    def __call__(self, retry_state: RetryCallState) -> bool:
        outcome = _attempt_outcome(retry_state)
        return outcome is not None and outcome.code in self._codes

    def __repr__(self) -> str:
        return self._text


def _parsed(kind: type[Class] | type[Code], values: Iterable[Class | Code | str]) -> list[Any]:
    parsed = []
    for value in values:
        try:
            parsed.append(kind(value))
        except ValueError:
            choices = ", ".join(member.value for member in kind)
            raise ValueError(f"{value!r} is not one of {choices}") from None
    if not parsed:
        raise ValueError(f"name at least one {kind.__name__}")
    return parsed


def retry_if_transient() -> retry_base:
    """Retry transient failures (``RATE_LIMITED``, ``TIMEOUT``, ``UNAVAILABLE``) only."""
    codes = frozenset(code for code in Code if code.retryable)
    return _RetryIfOutcome(codes, "retry_if_transient()")


def retry_if_class(*classes: Class | str) -> retry_base:
    """Retry failures of any of these classes, for example ``Class.TRANSIENT``."""
    wanted = _parsed(Class, classes)
    codes = frozenset(code for code in Code if code.class_ in wanted)
    return _RetryIfOutcome(codes, f"retry_if_class({', '.join(map(str, wanted))})")


def retry_if_code(*codes: Code | str) -> retry_base:
    """Retry failures with any of these codes, for example ``Code.RATE_LIMITED``."""
    wanted = _parsed(Code, codes)
    return _RetryIfOutcome(frozenset(wanted), f"retry_if_code({', '.join(map(str, wanted))})")


# --- wait and stop --------------------------------------------------------------------------


class _WaitRetryAfter(wait_base):
    def __init__(self, fallback: WaitBaseT, max_wait: float) -> None:
        self._fallback = fallback
        self._max_wait = max_wait

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = _attempt_outcome(retry_state)
        if outcome is not None and outcome.retry_after is not None:
            wait = outcome.retry_after
        else:
            wait = float(self._fallback(retry_state))
        return min(wait, self._max_wait)

    def __repr__(self) -> str:
        return f"wait_retry_after(fallback={self._fallback!r}, max_wait={self._max_wait:g})"


def wait_retry_after(
    fallback: WaitBaseT | None = None, *, max_wait: float | timedelta = 60.0
) -> wait_base:
    """Wait the Retry-After the failure carries, else ``fallback``; never over ``max_wait``.

    ``fallback`` is any tenacity wait (default ``wait_exponential_jitter()``). A longer
    Retry-After is cut to ``max_wait``, which means retrying before the server asked; to
    give up instead, add :func:`stop_if_retry_after_exceeds` with the same limit to ``stop=``.
    """
    return _WaitRetryAfter(
        wait_exponential_jitter() if fallback is None else fallback,
        _seconds(max_wait, "max_wait"),
    )


class _StopIfRetryAfterExceeds(stop_base):
    def __init__(self, max_wait: float) -> None:
        self._max_wait = max_wait

    def __call__(self, retry_state: RetryCallState) -> bool:
        outcome = _attempt_outcome(retry_state)
        return (
            outcome is not None
            and outcome.retry_after is not None
            and outcome.retry_after > self._max_wait
        )

    def __repr__(self) -> str:
        return f"stop_if_retry_after_exceeds({self._max_wait:g})"


def stop_if_retry_after_exceeds(max_wait: float | timedelta) -> stop_base:
    """Stop retrying when the server asks for a wait longer than ``max_wait``.

    Combine it with ``|``: ``stop=stop_after_attempt(5) | stop_if_retry_after_exceeds(30)``.
    With ``reraise=True`` the failure is raised as it is, its ``retry_after`` intact, so the
    caller can reschedule the call or tell the user when to come back.
    """
    return _StopIfRetryAfterExceeds(_seconds(max_wait, "max_wait"))


# --- the whole policy ------------------------------------------------------------------------


class RetryPolicy(TypedDict):
    """The keyword arguments of ``tenacity.retry``, ``Retrying`` and ``AsyncRetrying`` that
    :func:`retry_policy` fills in."""

    retry: retry_base
    wait: wait_base
    stop: stop_base
    reraise: bool
    retry_error_callback: Callable[[RetryCallState], Any]


def retry_policy(
    *,
    max_wait: float | timedelta = 60.0,
    attempts: int = 5,
    fallback: WaitBaseT | None = None,
) -> RetryPolicy:
    """The whole retry policy for tenacity, with one limit: ``@retry(**retry_policy())``.

    - only transient failures are retried (:func:`retry_if_transient`): a 400, 401 or 404
      is raised at once;
    - the server's Retry-After is waited exactly, never less; without one, ``fallback``
      (any tenacity wait, default ``wait_exponential_jitter()``) is waited, at most
      ``max_wait`` seconds (:func:`wait_retry_after`);
    - a Retry-After longer than ``max_wait`` (seconds or a timedelta) stops the retries at
      once (:func:`stop_if_retry_after_exceeds`), as does the ``attempts``-th failure;
    - the last failure is raised as it is (``reraise=True``), its ``retry_after`` intact;
      an Outcome-mode tool's last failed Outcome is returned, not wrapped in tenacity's
      ``RetryError``, so ``await AsyncRetrying(**retry_policy())(tool, **arguments)`` always
      gives an Outcome.

    Works with ``@retry(**retry_policy(...))`` on sync and async functions, and with
    ``Retrying(**retry_policy(...))`` and ``AsyncRetrying(**retry_policy(...))``; add other
    arguments beside it: ``@retry(**retry_policy(max_wait=30), before_sleep=...)``.
    """
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"attempts must be a positive integer, got {attempts!r}")
    limit = _seconds(max_wait, "max_wait")
    return {
        "retry": retry_if_transient(),
        "wait": wait_retry_after(fallback, max_wait=limit),
        "stop": stop_after_attempt(attempts) | stop_if_retry_after_exceeds(limit),
        "reraise": True,
        "retry_error_callback": _last_attempt,
    }


def _last_attempt(retry_state: RetryCallState) -> Any:
    """What the last attempt gave: its returned value (a failed Outcome), or its exception
    raised again. Without this, tenacity raises ``RetryError`` for a returned value."""
    attempt: Future | None = retry_state.outcome
    assert attempt is not None  # tenacity stops only after an attempt
    return attempt.result()


# --- before_sleep ---------------------------------------------------------------------------


def before_sleep_log_outcome(
    logger: RetryLogger, log_level: int = logging.INFO, *, exc_info: bool = False
) -> Callable[[RetryCallState], None]:
    """A ``before_sleep`` hook logging the failure's code, class, status and the wait.

    For example ``get_rate failed (attempt 1): RATE_LIMITED class=transient status=429
    retry_after=2s; retrying in 2.00s``. The record also carries ``agenterr_outcome`` (the
    Outcome, or ``None``), ``agenterr_attempt`` and ``agenterr_wait`` as attributes. Neither
    the exception's text nor the hint is logged (they quote the API, which may hold
    secrets) unless ``exc_info`` adds the traceback.

    A failure that a ``@classified_tool`` has just logged on the ``agenterr`` logger is not
    logged again: the record then says only the retry, ``get_rate: retrying in 2.00s after
    attempt 1``, and still carries the Outcome in ``agenterr_outcome``. So each failure is in
    the log once, and the last one (not retried) is agenterr's record alone.
    """

    def log_outcome(retry_state: RetryCallState) -> None:
        outcome = _attempt_outcome(retry_state)
        attempt = retry_state.outcome
        exc = attempt.exception() if attempt is not None else None
        if outcome is not None:
            what = str(outcome)
        elif exc is not None:
            what = f"unclassified {type(exc).__name__}"
        else:  # a result some other retry condition (retry_if_result) rejected
            result = attempt.result() if attempt is not None else None
            what = f"returned {type(result).__name__}"
        wait = retry_state.next_action.sleep if retry_state.next_action is not None else 0.0
        name = getattr(retry_state.fn, "__qualname__", None) or "call"
        log_retry(
            logger,
            log_level,
            name,
            retry_state.attempt_number,
            wait,
            outcome,
            what,
            exc if exc_info else None,
        )

    return log_outcome
