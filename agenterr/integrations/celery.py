"""Celery: retry transient tool failures with the server's Retry-After, fail the rest at once.

Celery does the retrying; this module only tells it when and how long to wait. Tasks built
on :class:`ClassifiedTask` retry :class:`~agenterr.TransientToolError` automatically
(``autoretry_for``), with the error's Retry-After as the countdown (exponential backoff when
the server gave none), and let self-correctable, auth and unknown failures reach the caller
unretried::

    from celery import Celery
    from agenterr import classified_tool
    from agenterr.integrations.celery import ClassifiedTask

    app = Celery("tools", broker="redis://127.0.0.1:6379/0", backend="redis://127.0.0.1:6379/0")


    @app.task(base=ClassifiedTask, max_retries=5)
    @classified_tool(raises=True)
    def get_forecast(city: str) -> dict: ...


    get_forecast.delay("Paris").get()  # a value, or SelfCorrectableToolError with its .outcome

A task with a base class of its own uses :func:`retry_transient` from a bound task instead.
A tool in Outcome mode hands its failure over with ``outcome.unwrap()`` (raises the typed
error) or ``retry_transient(self, outcome)``.

Importing this module teaches kombu's JSON serializer the :class:`~agenterr.Outcome` (its
wire form, plus the value of a success), so a typed error stored by the result backend comes
back to the caller with its outcome under ``json`` (the Retry-After then in whole seconds,
rounded up, as in the wire form) as well as under ``pickle``. Import it in every process that
reads those results; the module that defines the tasks already does.

A Retry-After can be as long as a day (agenterr's ceiling). With the Redis or SQS broker, a
countdown longer than the broker's ``visibility_timeout`` (an hour by default) is delivered
again early, so keep that timeout above the longest wait you accept.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

from .. import Outcome
from .._adapter import failure_outcome, redacted_cause
from ..errors import (
    AgentToolError,
    AuthToolError,
    IndeterminateToolError,
    SelfCorrectableToolError,
    TransientToolError,
    error_for,
)
from ._require import require

_celery = require("celery", "celery")
_celery_exceptions = require("celery.exceptions", "celery")
_kombu_json = require("kombu.utils.json", "celery")
_celery_time = require("celery.utils.time", "celery")
# celery ships no type hints: its Task is Any to the type checker.
_Task: Any = _celery.Task

__all__ = ["OUTCOME_JSON_MARKER", "ClassifiedTask", "retry_transient"]

OUTCOME_JSON_MARKER = "agenterr.Outcome"
"""The ``__type__`` under which kombu's JSON serializer carries an Outcome."""


def _encode_outcome(outcome: Outcome[Any]) -> dict[str, Any]:
    data = outcome.to_dict(explain=True)
    # The wire form leaves the value out; a task may return a successful Outcome, whose
    # value must then survive like any other result (kombu encodes it in turn).
    if outcome.ok and outcome.value is not None:
        data["value"] = outcome.value
    return data


def _decode_outcome(data: Any) -> Outcome[Any]:
    outcome = Outcome.from_dict(data)
    if outcome.ok and "value" in data:
        return Outcome.success(data["value"])
    return outcome


_kombu_json.register_type(Outcome, OUTCOME_JSON_MARKER, _encode_outcome, _decode_outcome)


def _portable(error: AgentToolError) -> AgentToolError:
    """``error``, or the core typed error of its outcome when Celery could not rebuild it.

    The ``json`` serializer stores an exception as its type and ``args`` and rebuilds it as
    ``type(*args)``. The core typed errors' one argument is their outcome; the LangChain
    ``ToolException`` subclasses keep the hint there instead (LangChain reads ``args[0]``),
    so they would come back as a bare ``Exception`` without the outcome. Those are replaced
    by the core typed error, chained ``from`` them, under every serializer alike.
    """
    args = error.args
    if len(args) == 1 and args[0] is error.outcome:
        return error
    portable = error_for(error.outcome)
    portable.__cause__ = error
    return portable


def _as_error(failure: AgentToolError | Outcome[Any]) -> AgentToolError:
    if isinstance(failure, AgentToolError):
        return _portable(failure)
    if isinstance(failure, Outcome) and failure.failed:
        error = error_for(failure)
        error.__cause__ = failure.error
        return error
    raise ValueError(f"expected a typed error or a failed Outcome, got {_described(failure)}")


def _countdown(error: AgentToolError, fallback: float | None) -> float | None:
    after = error.retry_after
    return after if after is not None and math.isfinite(after) else fallback


def retry_transient(
    task: Any,
    failure: AgentToolError | Outcome[Any],
    *,
    max_retries: int | None = None,
    fallback_countdown: float | None = None,
) -> NoReturn:
    """Hand a failure to Celery from a bound task: retry it if transient, else raise it.

    A transient failure calls ``task.retry(exc=error, countdown=...)`` with the server's
    Retry-After as the countdown, or ``fallback_countdown`` (``None``: the task's
    ``default_retry_delay``) when there is none; once ``max_retries`` (``None``: the task's)
    are spent, Celery raises the typed error itself. Any other failure raises its typed error
    unretried. What Celery stores and logs is a redacted copy of the typed error, chained
    from redacted stand-ins of its causes, never the raw exception. ``failure`` is a typed
    error or a failed Outcome (``ValueError`` otherwise)::

        @app.task(bind=True)
        def lookup(self, sku: str) -> dict:
            outcome = lookup_tool(sku)  # @classified_tool in Outcome mode
            if outcome.failed:
                retry_transient(self, outcome, fallback_countdown=5)
            return outcome.value
    """
    error = _as_error(failure)
    if not isinstance(error, TransientToolError):
        _raise_redacted(error)
    try:
        retry = task.retry(
            exc=redacted_cause(error),
            countdown=_countdown(error, fallback_countdown),
            max_retries=max_retries,
        )
    except _celery_exceptions.Retry as raised:
        raise raised from None
    except AgentToolError as spent:  # the retries ran out: Celery raises the error
        _raise_redacted(spent)
    raise retry from None


class ClassifiedTask(_Task):  # type: ignore[misc]  # subclassing Any: see _Task
    """A Celery task base that retries transient tool failures only, after their Retry-After.

    ``autoretry_for`` is :class:`~agenterr.TransientToolError` and ``dont_autoretry_for`` the
    other typed errors, so a self-correctable, auth or unknown failure fails the task at once
    even when a task widens ``autoretry_for``. Every retry of a transient error, automatic or
    through ``self.retry(exc=...)``, waits the error's Retry-After when it has one, in place
    of the countdown Celery computed (``retry_backoff``, on by default here, when it has not);
    ``self.retry(exc=...)`` with any other typed error raises that error instead of retrying.
    Celery's ``max_retries`` (3 unless set) still bounds the attempts; after the last one the
    caller gets the typed error. Classified failures other than ``IndeterminateToolError``
    are ``throws``: expected, so the worker logs them without an error traceback. A typed
    error that Celery's ``json`` serializer cannot rebuild with its outcome (the LangChain
    ``ToolException`` subclasses) leaves the task as the core typed error of its outcome.
    """

    autoretry_for: tuple[type[BaseException], ...] = (TransientToolError,)
    dont_autoretry_for: tuple[type[BaseException], ...] = (
        SelfCorrectableToolError,
        AuthToolError,
        IndeterminateToolError,
    )
    retry_backoff: bool | float = True
    # Expected in normal operation: the worker records them without an error traceback.
    # An IndeterminateToolError is often a bug in the tool, so it is still logged as one.
    throws: tuple[type[BaseException], ...] = (
        TransientToolError,
        SelfCorrectableToolError,
        AuthToolError,
    )

    def retry(  # noqa: PLR0917  # Celery's own signature, positional parameters included
        self,
        args: Any = None,
        kwargs: Any = None,
        exc: BaseException | None = None,
        throw: bool = True,
        eta: Any = None,
        countdown: float | None = None,
        max_retries: int | None = None,
        **options: Any,
    ) -> Any:
        """Celery's ``Task.retry``, honouring the Retry-After of a transient ``exc``.

        A typed ``exc`` is handed over as a redacted copy, and the ``Retry`` raised
        without the exception being handled as its context: Celery stores the formatted
        traceback of a retry in the result backend."""
        if not isinstance(exc, Exception):
            return super().retry(args, kwargs, exc, throw, eta, countdown, max_retries, **options)
        if isinstance(exc, AgentToolError):
            portable = _portable(exc)
            if not isinstance(portable, TransientToolError):
                _raise_redacted(portable)
            if eta is None:
                countdown = _countdown(portable, countdown)
        else:
            # A plain exception (an autoretry_for the task widened): retried as asked, but
            # what Celery stores is the redacted typed error it stands for, not the raw one.
            portable = _classified(exc)
        try:
            return super().retry(
                args,
                kwargs,
                redacted_cause(portable),
                throw,
                eta,
                countdown,
                max_retries,
                **options,
            )
        except _celery_exceptions.Retry as retry:
            raise retry from None
        except AgentToolError as spent:  # the retries ran out: Celery raises the error
            _raise_redacted(spent)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the task. A typed error leaves it as a redacted copy (portable; see
        :func:`_raise_redacted`): Celery stores the formatted traceback in the result backend
        and logs it, and the raw exception's message may hold a credential.

        Any other exception (a task whose function is not a ``@classified_tool``) is
        classified as the decorator would classify it (an HTTP or network failure by
        :func:`~agenterr.from_error`, a validation error as ``SCHEMA_INVALID``, anything else
        as ``UNKNOWN``) and leaves the task as that typed error, redacted: a transient one is
        retried as Celery's autoretry would retry it (``retry_backoff``, ``retry_kwargs``),
        after the server's Retry-After when it gave one. Celery's own ``Retry``, ``Ignore``
        and ``Reject`` pass through."""
        try:
            return super().__call__(*args, **kwargs)
        except AgentToolError as exc:
            _raise_redacted(_portable(exc))
        except _celery_exceptions.TaskPredicate:
            raise
        except Exception as exc:
            error = _classified(exc)
            if isinstance(error, TransientToolError):
                raise self.retry(exc=error, **_autoretry_options(self)) from None
            _raise_redacted(error)


def _classified(exc: Exception) -> AgentToolError:
    """The typed error a plain exception of a task stands for, caused by it."""
    error = error_for(failure_outcome(exc))
    error.__cause__ = exc
    return error


def _autoretry_options(task: Any) -> dict[str, Any]:
    """The ``retry()`` options Celery's autoretry passes for this attempt (its countdown
    from ``retry_backoff``; a Retry-After replaces it in :meth:`ClassifiedTask.retry`)."""
    options = dict(getattr(task, "retry_kwargs", None) or {})
    backoff = float(getattr(task, "retry_backoff", False))
    if backoff:
        options["countdown"] = _celery_time.get_exponential_backoff_interval(
            factor=int(max(1.0, backoff)),
            retries=task.request.retries,
            maximum=int(getattr(task, "retry_backoff_max", 600)),
            full_jitter=getattr(task, "retry_jitter", True),
        )
    return options


def _raise_redacted(error: AgentToolError) -> NoReturn:
    """Raise a fresh copy of ``error`` (its class and Outcome, so it pickles and rebuilds
    under ``json``) from redacted stand-ins of its cause chain, the exception being handled
    suppressed: what Celery stores and logs (see :mod:`agenterr._adapter`)."""
    copy = redacted_cause(error)
    raise copy from copy.__cause__


def _described(value: object) -> str:
    # Never the value's repr: it may raise, or carry what a log must not show.
    return "an ok Outcome" if isinstance(value, Outcome) else f"a {type(value).__name__}"
