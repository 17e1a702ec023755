"""Temporal: classified failures become ``ApplicationError`` that Temporal retries, or not.

Temporal retries a failed activity under the workflow's ``RetryPolicy`` unless the error
says ``non_retryable``, and waits the error's ``next_retry_delay`` instead of the policy's
backoff when it has one. :func:`to_application_error` fills both from an Outcome, so only
transient failures are retried, after the server's Retry-After; :func:`classified_activity`
does it for every failure of an activity; :func:`outcome_of` reads the Outcome back in the
workflow once the retries are over::

    from temporalio import activity
    from agenterr.integrations.temporal import classified_activity


    @activity.defn
    @classified_activity
    async def get_forecast(city: str) -> dict:
        response = await client.get("/forecast", params={"city": city})
        response.raise_for_status()  # 429 -> retried after Retry-After, 404 -> not retried
        return response.json()

Install with ``pip install "agenterr[temporal]"``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar, overload

from agenterr import AgentToolError, Outcome
from agenterr.integrations._require import require

require("temporalio", "temporal")

from temporalio.exceptions import ApplicationError, FailureError  # noqa: E402

if TYPE_CHECKING:
    from agenterr._decorator import ErrorRule, FailureObserver

__all__ = ["classified_activity", "outcome_of", "to_application_error"]

F = TypeVar("F", bound=Callable[..., Any])

# ActivityError -> ApplicationError is one link; a few more tolerate wrappers of the user's.
_CAUSE_DEPTH = 8


def to_application_error(failure: Outcome[Any] | AgentToolError) -> ApplicationError:
    """The ``ApplicationError`` that tells Temporal how to react to a classified failure.

    ``message`` is the hint, ``type`` the code (``"RATE_LIMITED"``), ``non_retryable`` is set
    for every class but transient, ``next_retry_delay`` is the Retry-After when the server
    gave one, and ``details`` holds the Outcome's wire dict (read it back with
    :func:`outcome_of`). Raises ``ValueError`` for an ok Outcome.
    """
    outcome = failure.outcome if isinstance(failure, AgentToolError) else failure
    if not isinstance(outcome, Outcome):
        raise TypeError(
            f"to_application_error needs an Outcome or an AgentToolError, got {failure!r}"
        )
    if outcome.code is None:
        raise ValueError("to_application_error needs a failed Outcome")
    delay = None if outcome.retry_after is None else timedelta(seconds=outcome.retry_after)
    return ApplicationError(
        outcome.llm_hint or str(outcome),
        outcome.to_dict(),
        type=outcome.code.value,
        non_retryable=not outcome.retryable,
        next_retry_delay=delay,
    )


def outcome_of(error: BaseException | None) -> Outcome[Any] | None:
    """The Outcome an activity failed with, from the error a workflow or client sees.

    Follows the cause chain (``ActivityError`` → ``ApplicationError``, also through a
    ``WorkflowFailureError``) to an ``ApplicationError`` made by
    :func:`to_application_error`; ``None`` when there is none. Pure and deterministic, so
    workflow code may call it (import this module under
    ``workflow.unsafe.imports_passed_through()``).
    """
    for _ in range(_CAUSE_DEPTH):
        if error is None:
            return None
        if isinstance(error, ApplicationError) and error.details:
            wire = error.details[0]
            if isinstance(wire, dict) and wire.get("code") == error.type:
                try:
                    return Outcome.from_dict(wire)
                except ValueError:
                    return None
        error = error.__cause__
    return None


@overload
def classified_activity(fn: F, /) -> F: ...
@overload
def classified_activity(
    *,
    errors: Mapping[type[Exception], ErrorRule] | None = None,
    expose_errors: bool = False,
    idempotent: bool = True,
    on_failure: FailureObserver | None = None,
) -> Callable[[F], F]: ...
def classified_activity(
    fn: Any = None,
    /,
    *,
    errors: Mapping[type[Exception], ErrorRule] | None = None,
    expose_errors: bool = False,
    idempotent: bool = True,
    on_failure: FailureObserver | None = None,
) -> Any:
    """Raise every failure of an activity function as :func:`to_application_error` builds it.

    The function (``def`` or ``async def``) is classified exactly as by
    ``@classified_tool(raises=True)``, with the same options; a failure is raised as the
    ``ApplicationError``, chained ``from`` the typed error, and a success returns the value.
    Temporal's own failures (``ApplicationError`` you raise, activity cancellation) and
    ``BaseException`` pass through unchanged.

    The result is a plain function with the wrapped one's name, signature and annotations,
    so it goes under or over ``@activity.defn`` and Temporal registers the same activity.
    """
    # Imported here so that workflow code importing outcome_of does not load wrapt.
    from agenterr._decorator import classified_tool

    classify = classified_tool(
        raises=True,
        errors=errors,
        expose_errors=expose_errors,
        idempotent=idempotent,
        on_failure=on_failure,
    )

    def decorate(function: Any) -> Any:
        if not callable(function):
            raise TypeError(f"classified_activity needs a function, got {function!r}")
        if inspect.isgeneratorfunction(function) or inspect.isasyncgenfunction(function):
            raise TypeError("classified_activity: an activity cannot be a generator function")
        if inspect.iscoroutinefunction(function):
            return _async_activity(function, classify(_async_shield(function)))
        return _sync_activity(function, classify(_sync_shield(function)))

    return decorate if fn is None else decorate(fn)


class _TemporalFailure(BaseException):
    """Carries one of Temporal's own failures past the classifier, which leaves
    BaseExceptions alone; the activity wrapper raises the original again."""

    def __init__(self, error: FailureError) -> None:
        super().__init__(error)
        self.error = error


def _sync_shield(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def shield(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except FailureError as exc:
            raise _TemporalFailure(exc) from None

    return shield


def _async_shield(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    async def shield(*args: Any, **kwargs: Any) -> Any:
        try:
            return await function(*args, **kwargs)
        except FailureError as exc:
            raise _TemporalFailure(exc) from None

    return shield


# functools.wraps copies __wrapped__ (so inspect.signature and get_type_hints see the
# activity's own parameters) and __dict__ (so an @activity.defn applied underneath stays
# visible: the worker then runs this wrapper under the same definition).


def _sync_activity(function: Callable[..., Any], tool: Callable[..., Any]) -> Any:
    @functools.wraps(function)
    def activity(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except _TemporalFailure as carrier:
            original = carrier.error
        except AgentToolError as exc:
            raise to_application_error(exc) from exc
        # Raised outside the handler so the carrier does not become its __context__.
        raise original

    return activity


def _async_activity(function: Callable[..., Any], tool: Callable[..., Any]) -> Any:
    @functools.wraps(function)
    async def activity(*args: Any, **kwargs: Any) -> Any:
        try:
            return await tool(*args, **kwargs)
        except _TemporalFailure as carrier:
            original = carrier.error
        except AgentToolError as exc:
            raise to_application_error(exc) from exc
        raise original

    return activity
