"""OpenTelemetry for classified tools: an ``execute_tool`` span per call, a failure counter.

::

    from agenterr import classified_tool
    from agenterr.integrations.opentelemetry import traced

    @traced  # or @traced(tracer_provider=..., meter_provider=..., name="get_rate")
    @classified_tool
    def get_rate(currency: str) -> dict: ...

Each call is a span named ``execute_tool get_rate`` (the GenAI semantic conventions for
tool execution) with ``gen_ai.operation.name = "execute_tool"`` and ``gen_ai.tool.name``.
A failure — a failed :class:`~agenterr.Outcome` returned (Outcome mode), a raised
:class:`~agenterr.AgentToolError` (raises mode), or an HTTP or network exception of a
plain function, classified by :func:`~agenterr.from_error` — sets the span's status to
ERROR and adds:

- ``error.type``: the agenterr code, for example ``RATE_LIMITED``;
- ``agenterr.class`` (``transient``, ``self_correctable``, ``auth``, ``indeterminate``),
  ``agenterr.retryable``, and ``agenterr.retry_after_seconds`` when the server said;
- ``agenterr.reason.rule``, ``agenterr.reason.evidence`` and ``agenterr.reason.replaced``:
  the failure's :class:`~agenterr.Reason`, when it has one (SPEC 8.4);
- ``http.response.status_code`` when there was an HTTP status.

It also adds 1 to the counter ``agenterr.tool.failures`` with ``error.type``,
``agenterr.class`` and ``gen_ai.tool.name``. Any other exception sets ``error.type`` to
its class name and is not counted. The hint is not recorded: it quotes the API.

Sync and async tools, Outcome and raises mode. Telemetry never changes the call: an error
of OpenTelemetry's is logged on the ``agenterr`` logger and swallowed, and the tool's
result or exception is returned or raised as it was; ``KeyboardInterrupt``,
``CancelledError`` and ``SystemExit`` end the span and propagate. Without providers, the
global ones are used (no-ops until the application sets them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from .. import Outcome
from .._adapter import exception_outcome, report_error, result_outcome, wrap_tool
from ._require import require

require("opentelemetry", "opentelemetry")

from opentelemetry import context, metrics, trace  # noqa: E402
from opentelemetry.trace import SpanKind, Status, StatusCode  # noqa: E402

__all__ = ["COUNTER", "failure_attributes", "traced"]

F = TypeVar("F", bound=Callable[..., Any])

COUNTER = "agenterr.tool.failures"
"""The name of the failure counter."""


def failure_attributes(outcome: Outcome[Any]) -> dict[str, str | bool | int | float]:
    """The span attributes of a failed Outcome (``error.type`` is its code)."""
    attributes: dict[str, str | bool | int | float] = {}
    if outcome.code is None:
        return attributes
    attributes["error.type"] = outcome.code.value
    if outcome.class_ is not None:
        attributes["agenterr.class"] = outcome.class_.value
    attributes["agenterr.retryable"] = outcome.retryable
    if outcome.retry_after is not None:
        attributes["agenterr.retry_after_seconds"] = outcome.retry_after
    if outcome.status:
        attributes["http.response.status_code"] = outcome.status
    why = outcome.reason
    if why is not None:
        attributes["agenterr.reason.rule"] = why.rule
        if why.evidence:
            attributes["agenterr.reason.evidence"] = why.evidence
        if why.replaced is not None:
            attributes["agenterr.reason.replaced"] = why.replaced.value
    return attributes


class _Telemetry:
    """One tool's tracer and counter; every method swallows (and logs) its own errors."""

    def __init__(self, name: str, tracer_provider: Any, meter_provider: Any) -> None:
        self.name = name
        self.tracer = trace.get_tracer("agenterr", tracer_provider=tracer_provider)
        meter = metrics.get_meter("agenterr", meter_provider=meter_provider)
        self.counter = meter.create_counter(
            COUNTER, unit="{failure}", description="Classified failures of tool calls"
        )

    def begin(self) -> tuple[Any, Any]:
        try:
            span = self.tracer.start_span(
                f"execute_tool {self.name}",
                kind=SpanKind.INTERNAL,
                attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": self.name},
            )
            token = context.attach(trace.set_span_in_context(span))
        except Exception as failure:
            _logged(failure, self.name)
            return None, None
        return span, token

    def end(self, span: Any, token: Any, outcome: Outcome[Any] | None, error: str | None) -> None:
        try:
            if token is not None:
                context.detach(token)
            if outcome is not None:
                attributes = failure_attributes(outcome)
                self.counter.add(
                    1,
                    {
                        "error.type": str(attributes.get("error.type", "")),
                        "agenterr.class": str(attributes.get("agenterr.class", "")),
                        "gen_ai.tool.name": self.name,
                    },
                )
                error = str(attributes.get("error.type", error))
            else:
                attributes = {}
            if span is None:
                return
            if error is not None:
                attributes["error.type"] = error
                span.set_attributes(attributes)
                span.set_status(Status(StatusCode.ERROR, error))
            span.end()
        except Exception as failure:
            _logged(failure, self.name)

    def returned(self, span: Any, token: Any, value: object) -> None:
        try:
            outcome = result_outcome(value)
        except Exception:
            outcome = None
        self.end(span, token, outcome, None)

    def raised(self, span: Any, token: Any, exc: BaseException) -> None:
        try:
            outcome = exception_outcome(exc)
        except Exception:
            outcome = None
        self.end(span, token, outcome, _qualified(type(exc)))


def _qualified(cls: type) -> str:
    module = getattr(cls, "__module__", "")
    return cls.__qualname__ if module in ("builtins", "") else f"{module}.{cls.__qualname__}"


def _logged(failure: Exception, name: str) -> None:
    # through agenterr's redaction gate, the traceback as the record's text; never raises
    report_error("OpenTelemetry failed for tool %s", name, error=failure)


@overload
def traced(fn: F, /) -> F: ...
@overload
def traced(
    *,
    name: str | None = None,
    tracer_provider: Any = None,
    meter_provider: Any = None,
) -> Callable[[F], F]: ...
def traced(
    fn: Any = None,
    /,
    *,
    name: str | None = None,
    tracer_provider: Any = None,
    meter_provider: Any = None,
) -> Any:
    """Trace every call of ``fn`` (a ``@classified_tool``, or any tool) as ``execute_tool``.

    ``name`` is the tool's name in the span (default the function's ``__name__``);
    ``tracer_provider`` and ``meter_provider`` default to the global ones. Use it as
    ``@traced`` or ``@traced(...)``, outside ``@classified_tool``. The traced tool keeps
    the function's signature, name, docstring and coroutine-ness.
    """

    def decorate(tool: Any) -> Any:
        tool_name = name or str(getattr(tool, "__name__", "tool"))
        telemetry = _Telemetry(tool_name, tracer_provider, meter_provider)

        def call(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            span, token = telemetry.begin()
            try:
                value = wrapped(*args, **kwargs)
            except BaseException as exc:
                telemetry.raised(span, token, exc)
                raise
            telemetry.returned(span, token, value)
            return value

        async def call_async(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            span, token = telemetry.begin()
            try:
                value = await wrapped(*args, **kwargs)
            except BaseException as exc:
                telemetry.raised(span, token, exc)
                raise
            telemetry.returned(span, token, value)
            return value

        return wrap_tool(tool, call, call_async, adapter="traced")

    return decorate if fn is None else decorate(fn)
