"""agenterr.integrations.opentelemetry against the real OpenTelemetry SDK.

Providers are passed in explicitly (a global provider can be set once per process); spans
are read from the SDK's in-memory exporter, the counter from its in-memory metric reader.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import agenterr
from agenterr import Outcome, TransientToolError, classified_tool
from agenterr.integrations.opentelemetry import COUNTER, traced

pytestmark = pytest.mark.external


class Telemetry:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def traced(self, **options: Any) -> Any:
        return traced(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **options
        )

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def failures(self) -> list[tuple[dict[str, Any], int]]:
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == COUNTER:
                        found += [
                            (dict(p.attributes or {}), p.value) for p in metric.data.data_points
                        ]
        return found


@pytest.fixture
def otel() -> Telemetry:
    return Telemetry()


def rate_limited() -> Outcome[Any]:
    return agenterr.from_status(429, "slow down", headers={"Retry-After": "7"})


RATE_LIMITED_ATTRIBUTES = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "get_rate",
    "error.type": "RATE_LIMITED",
    "agenterr.class": "transient",
    "agenterr.retryable": True,
    "agenterr.retry_after_seconds": 7.0,
    "http.response.status_code": 429,
    "agenterr.reason.rule": "status-table",
    "agenterr.reason.evidence": "HTTP 429",
}
COUNTED = {
    "error.type": "RATE_LIMITED",
    "agenterr.class": "transient",
    "gen_ai.tool.name": "get_rate",
}


def check_rate_limited(otel: Telemetry) -> None:
    (span,) = otel.spans()
    assert span.name == "execute_tool get_rate"
    assert dict(span.attributes or {}) == RATE_LIMITED_ATTRIBUTES
    assert span.status.status_code is StatusCode.ERROR
    assert otel.failures() == [(COUNTED, 1)]


def test_outcome_mode_failure(otel: Telemetry) -> None:
    @otel.traced()
    @classified_tool
    def get_rate(currency: str) -> Outcome[Any]:
        return rate_limited()

    out = get_rate("EUR")
    assert out.code is agenterr.Code.RATE_LIMITED
    check_rate_limited(otel)


def test_the_reason_a_code_replaced(otel: Telemetry) -> None:
    """A failure whose code a rule changed names the rule and the code it replaced."""
    quota = '{"error": {"code": "insufficient_quota", "message": "over quota"}}'

    @otel.traced()
    @classified_tool
    def get_rate(currency: str) -> Outcome[Any]:
        return agenterr.from_status(429, quota)

    get_rate("EUR")
    (span,) = otel.spans()
    attributes = dict(span.attributes or {})
    assert attributes["agenterr.reason.rule"] == "r-quota"
    assert attributes["agenterr.reason.evidence"] == "identifier 'insufficient_quota'"
    assert attributes["agenterr.reason.replaced"] == "RATE_LIMITED"


def test_raises_mode_failure(otel: Telemetry) -> None:
    @otel.traced()
    @classified_tool(raises=True)
    def get_rate(currency: str) -> dict[str, float]:
        rate_limited().raise_for_failure()
        return {}

    with pytest.raises(TransientToolError):
        get_rate("EUR")
    check_rate_limited(otel)


def test_async_raises_mode_http_error(otel: Telemetry) -> None:
    """A real httpx 429 raised inside an async classified tool."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "7"}, json={"error": "slow down"})

    @otel.traced()
    @classified_tool(raises=True)
    async def get_rate(currency: str) -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            response = await client.get("https://api.example.com/rates")
            response.raise_for_status()
            return response.json()

    with pytest.raises(TransientToolError):
        asyncio.run(get_rate("EUR"))
    check_rate_limited(otel)


def test_success_is_a_plain_span(otel: Telemetry) -> None:
    @otel.traced(name="lookup")
    @classified_tool
    async def get_rate(currency: str) -> float:
        return 1.1

    out = asyncio.run(get_rate("EUR"))
    assert out.value == 1.1
    (span,) = otel.spans()
    assert span.name == "execute_tool lookup"
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
    }
    assert span.status.status_code is StatusCode.UNSET
    assert otel.failures() == []


def test_other_exception_type_name_not_counted(otel: Telemetry) -> None:
    @otel.traced()
    def get_rate(currency: str) -> float:
        raise LookupError("no such currency")

    with pytest.raises(LookupError):
        get_rate("XXX")
    (span,) = otel.spans()
    assert span.attributes is not None
    assert span.attributes["error.type"] == "LookupError"
    assert span.status.status_code is StatusCode.ERROR
    assert otel.failures() == []


@pytest.mark.parametrize("signal", [KeyboardInterrupt, asyncio.CancelledError])
def test_base_exceptions_propagate(otel: Telemetry, signal: type[BaseException]) -> None:
    @otel.traced()
    @classified_tool
    def get_rate(currency: str) -> float:
        raise signal

    with pytest.raises(signal):
        get_rate("EUR")
    (span,) = otel.spans()
    assert span.end_time is not None


def test_async_cancellation_propagates(otel: Telemetry) -> None:
    @otel.traced()
    @classified_tool
    async def get_rate(currency: str) -> float:
        await asyncio.sleep(10)
        return 1.0

    async def main() -> None:
        task = asyncio.create_task(get_rate("EUR"))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert len(otel.spans()) == 1


def test_telemetry_errors_are_swallowed_and_logged(
    otel: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken:
        def start_span(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("exporter down")

    class BrokenProvider:
        def get_tracer(self, *args: Any, **kwargs: Any) -> Broken:
            return Broken()

    @traced(tracer_provider=BrokenProvider(), meter_provider=otel.meter_provider)
    @classified_tool
    def get_rate(currency: str) -> Outcome[Any]:
        return rate_limited()

    with caplog.at_level(logging.WARNING, logger="agenterr"):
        out = get_rate("EUR")
    assert out.code is agenterr.Code.RATE_LIMITED
    assert any("OpenTelemetry failed for tool get_rate" in r.getMessage() for r in caplog.records)
    assert otel.failures() == [(COUNTED, 1)]


def test_spans_nest_under_the_tool_span(otel: Telemetry) -> None:
    tracer = otel.tracer_provider.get_tracer("test")

    @otel.traced()
    def get_rate(currency: str) -> float:
        with tracer.start_as_current_span("http get"):
            return 1.0

    get_rate("EUR")
    inner, outer = otel.spans()
    assert inner.parent is not None
    assert inner.parent.span_id == outer.context.span_id


def test_import_agenterr_does_not_import_opentelemetry() -> None:
    code = "import sys, agenterr; print('opentelemetry' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
