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

Install with ``pip install ".[temporal]"`` in a clone of agenterr (it is not on a package
index).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Coroutine, Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar, overload

from agenterr import AgentToolError, Outcome
from agenterr._adapter import RedactedCause, redacted_cause
from agenterr.integrations._require import require

require("temporalio", "temporal")

from temporalio.exceptions import ApplicationError  # noqa: E402

if TYPE_CHECKING:
    from agenterr._adapter import ErrorRule, FailureObserver

__all__ = [
    "RedactedCause",
    "classified_activity",
    "outcome_of",
    "redacted_cause",
    "to_application_error",
]

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
T = TypeVar("T")

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
            "to_application_error needs an Outcome or an AgentToolError,"
            f" got a {type(failure).__name__}"
        )
    if outcome.code is None:
        raise ValueError("to_application_error needs a failed Outcome")
    delay = None if outcome.retry_after is None else timedelta(seconds=outcome.retry_after)
    return ApplicationError(
        outcome.llm_hint or str(outcome),
        outcome.to_dict(explain=True),
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


class _ActivityDecorator(Protocol):
    @overload
    def __call__(
        self, fn: Callable[P, Coroutine[Any, Any, Outcome[T]]], /
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...
    @overload
    def __call__(self, fn: Callable[P, Outcome[T]], /) -> Callable[P, T]: ...
    @overload
    def __call__(self, fn: F, /) -> F: ...


@overload
def classified_activity(
    fn: Callable[P, Coroutine[Any, Any, Outcome[T]]], /
) -> Callable[P, Coroutine[Any, Any, T]]: ...
@overload
def classified_activity(fn: Callable[P, Outcome[T]], /) -> Callable[P, T]: ...
@overload
def classified_activity(fn: F, /) -> F: ...
@overload
def classified_activity(
    *,
    errors: Mapping[type[Exception], ErrorRule] | None = None,
    expose_errors: bool = False,
    idempotent: bool = True,
    on_failure: FailureObserver | None = None,
) -> _ActivityDecorator: ...
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
    ``ApplicationError``, chained ``from`` :func:`redacted_cause` of the typed error (a copy
    of it, then the original cause chain as :class:`RedactedCause` stand-ins: Temporal
    writes the chain into the workflow's history, and the raw exception's message may hold
    a credential), and a success returns the value.
    Temporal's own failures (``ApplicationError`` you raise, activity cancellation) and
    ``BaseException`` pass through unchanged.

    The result is a plain function with the wrapped one's name, signature and annotations,
    so it goes under or over ``@activity.defn`` and Temporal registers the same activity.
    One annotation changes: a function annotated ``-> Outcome[X]`` returns the value, so the
    activity's return annotation is ``X``, which Temporal's data converter uses for the
    result. If that annotation cannot be resolved when the activity is decorated (a name
    defined further down), ``TypeError`` asks for the value type instead.
    """
    # Imported here so that workflow code importing outcome_of does not load wrapt.
    from agenterr import classified_tool

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
        value_type = _value_type(function)
        if inspect.iscoroutinefunction(function):
            activity = _async_activity(function, classify(function))
        else:
            activity = _sync_activity(function, classify(function))
        if value_type is not _UNCHANGED:
            _return(activity, function, value_type)
        return activity

    return decorate if fn is None else decorate(fn)


_UNCHANGED: Any = object()
"""What :func:`_value_type` returns for a return annotation that is not an Outcome."""


def _value_type(function: Callable[..., Any]) -> Any:
    """``X`` for a function annotated ``-> Outcome[X]`` (``Any`` for a bare ``Outcome``)."""
    try:
        hint = inspect.signature(function).return_annotation
    except (TypeError, ValueError):  # no signature to read: nothing to change
        return _UNCHANGED
    if isinstance(hint, str):  # postponed (from __future__ import annotations) or quoted
        try:
            hint = _resolve(function, hint)
        except Exception as exc:  # a name it uses is not defined (yet)
            if "Outcome" not in hint:
                return _UNCHANGED  # not ours to rewrite: left as it was
            name = getattr(function, "__qualname__", repr(function))
            raise TypeError(
                f"classified_activity: cannot resolve the return annotation {hint!r} of "
                f"{name} ({exc}). The activity returns the Outcome's value, and Temporal "
                "reads the result type from this annotation: annotate the value type "
                "instead (for example -> int, not -> Outcome[int])."
            ) from exc
    if hint is Outcome:
        return Any
    if typing.get_origin(hint) is Outcome:
        (value,) = typing.get_args(hint)
        return value
    return _UNCHANGED


def _resolve(function: Callable[..., Any], annotation: str) -> Any:
    """``annotation`` evaluated as get_type_hints evaluates it for ``function``: in the
    globals of the function ``__wrapped__`` leads to."""

    def probe() -> None:
        pass

    probe.__annotations__ = {"return": annotation}
    probe.__wrapped__ = function  # type: ignore[attr-defined]
    return typing.get_type_hints(probe, include_extras=True)["return"]


# Where @activity.defn keeps its definition, result type included: set on the function,
# so functools.wraps copies it to the activity when @activity.defn is applied underneath.
_DEFINITION = "__temporal_activity_definition"


def _return(activity: Any, function: Callable[..., Any], value_type: Any) -> None:
    """Make ``value_type`` the activity's return annotation, for get_type_hints and
    inspect.signature alike (the function's own annotations are left as they are)."""
    activity.__annotations__ = {**getattr(function, "__annotations__", {}), "return": value_type}
    activity.__signature__ = inspect.signature(function).replace(return_annotation=value_type)
    definition = activity.__dict__.get(_DEFINITION)
    if definition is None:
        return
    # @activity.defn underneath read the Outcome annotation already: its result type must
    # become the value type too, or the workflow would decode the result as an Outcome.
    if not (
        dataclasses.is_dataclass(definition)
        and not isinstance(definition, type)
        and "ret_type" in {f.name for f in dataclasses.fields(definition)}
    ):
        raise TypeError(
            "classified_activity: put @activity.defn above @classified_activity for an "
            "activity annotated -> Outcome[...]"
        )
    setattr(activity, _DEFINITION, dataclasses.replace(definition, ret_type=value_type))


# functools.wraps copies __wrapped__ (so inspect.signature and get_type_hints see the
# activity's own parameters) and __dict__ (so an @activity.defn applied underneath stays
# visible: the worker then runs this wrapper under the same definition).


def _sync_activity(function: Callable[..., Any], tool: Callable[..., Any]) -> Any:
    @functools.wraps(function)
    def activity(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except AgentToolError as exc:
            raise to_application_error(exc) from redacted_cause(exc)

    return activity


def _async_activity(function: Callable[..., Any], tool: Callable[..., Any]) -> Any:
    @functools.wraps(function)
    async def activity(*args: Any, **kwargs: Any) -> Any:
        try:
            return await tool(*args, **kwargs)
        except AgentToolError as exc:
            raise to_application_error(exc) from redacted_cause(exc)

    return activity
