"""Dramatiq retries transient tool failures after their Retry-After, and nothing else.

Dramatiq's StubBroker with a real Worker and the real Retries middleware; a recording
middleware sees every retry's delay and every exception an actor raised.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import itertools
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dramatiq
import httpx
import pytest
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import AsyncIO

from agenterr import (
    AgentToolError,
    AuthToolError,
    Code,
    IndeterminateToolError,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
)
from agenterr._adapter import RedactedCause
from agenterr.integrations.dramatiq import (
    retry_transient,
    retry_when_transient,
    with_retry_after,
)

pytestmark = pytest.mark.external

EXAMPLE = Path(__file__).parent.parent / "examples" / "dramatiq_actor.py"


class Recorder(dramatiq.Middleware):
    """Records the delay of every retry and every exception an actor raised."""

    def __init__(self) -> None:
        self.delays: list[int] = []
        self.exceptions: list[BaseException] = []

    def before_enqueue(self, broker: Any, message: Any, delay: Any) -> None:
        # A retry is enqueued with its delay; when due it moves to the queue without one.
        if message.options.get("retries") and delay is not None:
            self.delays.append(delay)

    def after_process_message(
        self, broker: Any, message: Any, *, result: Any = None, exception: Any = None
    ) -> None:
        if exception is not None:
            self.exceptions.append(exception)


def ledger_tool(
    attempts: list[float], statuses: list[int], headers: dict[str, str] | None = None
) -> Any:
    """A plain tool function whose attempt n answers ``statuses[n]`` (the last one repeats).

    200 succeeds; 0 is a bug in the tool; any other status is the API's error response.
    """

    def sync_ledger(invoice_id: str) -> str:
        attempt = len(attempts)
        attempts.append(time.monotonic())
        status = statuses[min(attempt, len(statuses) - 1)]
        if status == 200:
            return f"{invoice_id} synced"
        if status == 0:
            raise ValueError("ledger cache corrupted")
        request = httpx.Request("POST", "https://ledger.example.test/sync")
        body = {"error": f"ledger said {status}"}
        httpx.Response(status, headers=headers, json=body, request=request).raise_for_status()
        raise AssertionError("unreachable: raise_for_status raised")

    return sync_ledger


class Harness:
    """A StubBroker with a running Worker; ``attempts`` holds each attempt's time."""

    def __init__(self, broker: StubBroker, recorder: Recorder) -> None:
        self.broker = broker
        self.recorder = recorder
        self.attempts: list[float] = []

    def tool(self, statuses: list[int], headers: dict[str, str] | None = None) -> Any:
        """The ledger tool, its attempts recorded in ``attempts``."""
        return ledger_tool(self.attempts, statuses, headers)

    def run(self, actor: Any, *args: Any) -> None:
        """Send one message and wait until it and its retries are processed."""
        actor.send(*args)
        self.broker.join(actor.queue_name, fail_fast=False, timeout=10_000)

    def gaps(self) -> list[float]:
        times = self.attempts
        return [later - earlier for earlier, later in itertools.pairwise(times)]


@pytest.fixture
def harness() -> Iterator[Harness]:
    """A fresh StubBroker (with AsyncIO for async actors) and a Worker, stopped after."""
    recorder = Recorder()
    broker = StubBroker(middleware=None)
    broker.add_middleware(AsyncIO())
    broker.add_middleware(recorder)
    broker.emit_after("process_boot")
    worker = dramatiq.Worker(broker, worker_timeout=20, worker_threads=1)
    worker.start()
    try:
        yield Harness(broker, recorder)
    finally:
        worker.stop()
        broker.close()


def _outcome_of(statuses: list[int]) -> Outcome[Any]:
    """The Outcome the ledger tool gives for ``statuses``, computed without a worker."""
    return classified_tool(ledger_tool([], statuses))("inv-1")


# --- with a worker ------------------------------------------------------------------------


def test_transient_failure_is_retried_after_the_retry_after(harness: Harness) -> None:
    """A 429 with retry-after-ms: 150 is retried once, after exactly 150 ms."""
    tool = classified_tool(raises=True)(harness.tool([429, 200], {"retry-after-ms": "150"}))
    actor = dramatiq.actor(
        with_retry_after(tool), broker=harness.broker, retry_when=retry_when_transient()
    )
    harness.run(actor, "inv-1")
    assert len(harness.attempts) == 2
    assert harness.recorder.delays == [150]
    assert harness.gaps()[0] >= 0.145
    [retry] = harness.recorder.exceptions
    assert isinstance(retry, dramatiq.Retry)
    assert retry.delay == 150
    assert isinstance(retry.__cause__, TransientToolError)
    assert retry.__cause__.status == 429
    assert not harness.broker.dead_letters


@pytest.mark.parametrize("wrapped", [True, False], ids=["with_retry_after", "bare"])
def test_transient_failure_without_retry_after_uses_the_backoff(
    harness: Harness, wrapped: bool
) -> None:
    """A 503 with no Retry-After waits the middleware's backoff (min_backoff, jittered)."""
    tool = classified_tool(raises=True)(harness.tool([503, 200]))
    actor = dramatiq.actor(
        with_retry_after(tool) if wrapped else tool,
        broker=harness.broker,
        retry_when=retry_when_transient(),
        min_backoff=50,
    )
    harness.run(actor, "inv-1")
    assert len(harness.attempts) == 2
    [delay] = harness.recorder.delays
    assert 50 <= delay <= 100


def test_retries_stop_at_max_retries(harness: Harness) -> None:
    """With max_retries=2 a failure that stays transient runs 3 times, then fails."""
    tool = classified_tool(raises=True)(harness.tool([503], {"retry-after-ms": "20"}))
    actor = dramatiq.actor(
        with_retry_after(tool),
        broker=harness.broker,
        retry_when=retry_when_transient(max_retries=2),
    )
    harness.run(actor, "inv-1")
    assert len(harness.attempts) == 3
    assert harness.recorder.delays == [20, 20]
    assert len(harness.broker.dead_letters) == 1
    last = harness.recorder.exceptions[-1]
    assert isinstance(last.__cause__, TransientToolError)
    assert last.__cause__.code is Code.UNAVAILABLE


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (404, SelfCorrectableToolError),
        (422, SelfCorrectableToolError),
        (401, AuthToolError),
        (0, IndeterminateToolError),
    ],
)
def test_other_failures_are_not_retried(
    harness: Harness, status: int, error: type[AgentToolError]
) -> None:
    """Self-correctable, auth and unknown failures run once and fail with the typed error."""
    tool = classified_tool(raises=True)(harness.tool([status, 200]))
    actor = dramatiq.actor(
        with_retry_after(tool), broker=harness.broker, retry_when=retry_when_transient()
    )
    harness.run(actor, "inv-1")
    assert len(harness.attempts) == 1
    assert not harness.recorder.delays
    [raised] = harness.recorder.exceptions
    assert type(raised) is error
    assert raised.outcome == _outcome_of([status])
    assert len(harness.broker.dead_letters) == 1


def test_retry_transient_hands_an_outcome_over(harness: Harness) -> None:
    """An actor holding a failed Outcome retries it after the Retry-After, or raises it."""
    tool = classified_tool(harness.tool([429, 404], {"retry-after-ms": "60"}))

    def sync_invoice(invoice_id: str) -> str | None:
        outcome = tool(invoice_id)
        if outcome.failed:
            retry_transient(outcome)
        return outcome.value

    actor = dramatiq.actor(sync_invoice, broker=harness.broker, retry_when=retry_when_transient())
    harness.run(actor, "inv-1")
    assert len(harness.attempts) == 2
    assert harness.recorder.delays == [60]
    retry, final = harness.recorder.exceptions
    assert isinstance(retry, dramatiq.Retry)
    assert isinstance(final, SelfCorrectableToolError)
    assert final.code is Code.NOT_FOUND


def test_async_actor_is_retried_after_the_retry_after(harness: Harness) -> None:
    """with_retry_after keeps an async tool async; Dramatiq retries it after the Retry-After."""
    sync_tool = harness.tool([429, 200], {"retry-after-ms": "80"})

    async def sync_ledger(invoice_id: str) -> str:
        await asyncio.sleep(0)
        result: str = sync_tool(invoice_id)
        return result

    wrapped = with_retry_after(classified_tool(raises=True)(sync_ledger))
    assert inspect.iscoroutinefunction(wrapped)
    actor = dramatiq.actor(wrapped, broker=harness.broker, retry_when=retry_when_transient())
    harness.run(actor, "inv-1")
    assert len(harness.attempts) == 2
    assert harness.recorder.delays == [80]


@pytest.mark.parametrize("wrapped", [True, False], ids=["with_retry_after", "bare"])
def test_the_actors_own_retry_is_retried(harness: Harness, wrapped: bool) -> None:
    """dramatiq.Retry raised by the actor itself passes through @classified_tool: the
    middleware retries it after its delay, rather than the message failing as UNKNOWN."""

    def sync_invoice(invoice_id: str) -> str:
        harness.attempts.append(time.monotonic())
        if len(harness.attempts) == 1:
            raise dramatiq.Retry("the ledger is not ready yet", delay=40)
        return f"{invoice_id} synced"

    tool = classified_tool(raises=True)(sync_invoice)
    actor = dramatiq.actor(
        with_retry_after(tool) if wrapped else tool,
        broker=harness.broker,
        retry_when=retry_when_transient(),
    )
    harness.run(actor, "inv-1")
    assert len(harness.attempts) == 2
    assert harness.recorder.delays == [40]
    [retry] = harness.recorder.exceptions
    assert type(retry) is dramatiq.Retry
    assert str(retry) == "the ledger is not ready yet"
    assert not harness.broker.dead_letters


# --- without a worker -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("retry_after", "delay"), [(2.5, 2500), (0.0001, 1), (0.0, 0), (None, None), (86400, 86400000)]
)
def test_retry_transient_converts_retry_after_to_milliseconds(
    retry_after: float | None, delay: int | None
) -> None:
    """The Retry-After in seconds becomes the Retry's delay in whole ms, rounded up."""
    error = TransientToolError(Outcome.failure(Code.RATE_LIMITED, retry_after=retry_after))
    with pytest.raises(dramatiq.Retry) as caught:
        retry_transient(error)
    assert caught.value.delay == delay
    # Chained from a copy of the error (class and outcome), never the raw one (issue 24).
    cause = caught.value.__cause__
    assert type(cause) is TransientToolError and cause is not error
    assert cause.outcome == error.outcome
    assert str(caught.value) == str(error)


def test_retry_transient_raises_other_failures_as_typed_errors() -> None:
    """A failed non-transient Outcome raises its typed error, chained from a redacted
    stand-in of the original (issue 24: Dramatiq keeps the traceback in the message)."""
    original = LookupError("no invoice for password=hunter2")
    outcome: Outcome[Any] = Outcome.failure(Code.NOT_FOUND, status=404, error=original)
    with pytest.raises(SelfCorrectableToolError) as caught:
        retry_transient(outcome)
    assert caught.value.outcome == outcome
    cause = caught.value.__cause__
    assert isinstance(cause, RedactedCause)
    assert str(cause) == "LookupError: no invoice for password=[REDACTED]"


@pytest.mark.parametrize("failure", [Outcome.success("ok"), "503", None])
def test_retry_transient_rejects_anything_but_a_failure(failure: Any) -> None:
    """A success or a non-failure is a programming error, not something to retry."""
    with pytest.raises(ValueError, match="failed Outcome"):
        retry_transient(failure)


def test_retry_when_transient_retries_transient_failures_only() -> None:
    """The predicate says yes to transient errors and Retry, within max_retries, else no."""
    transient = TransientToolError(Outcome.failure(Code.TIMEOUT))
    predicate = retry_when_transient(max_retries=3)
    assert predicate(0, transient)
    assert predicate(2, dramatiq.Retry("again"))
    assert not predicate(3, transient)
    for code in (Code.NOT_FOUND, Code.SCHEMA_INVALID, Code.UNAUTHORIZED, Code.UNKNOWN):
        assert not predicate(0, _err(code))
    assert not predicate(0, ValueError("a bug"))
    assert not predicate(0, KeyboardInterrupt())
    assert retry_when_transient()(19, transient)
    assert not retry_when_transient()(20, transient)
    assert retry_when_transient(max_retries=None)(10_000, transient)
    assert not retry_when_transient(max_retries=0)(0, transient)
    with pytest.raises(ValueError, match="max_retries"):
        retry_when_transient(max_retries=-1)


def _err(code: Code) -> AgentToolError:
    try:
        Outcome.failure(code).raise_for_failure()
    except AgentToolError as exc:
        return exc
    raise AssertionError("a failed Outcome must raise")


def test_with_retry_after_keeps_the_function_visible() -> None:
    """Name, signature and docstring survive, so the actor is named after the function."""
    tool = classified_tool(raises=True)(ledger_tool([], [200]))
    wrapped = with_retry_after(tool)
    assert wrapped.__name__ == "sync_ledger"
    assert inspect.signature(wrapped) == inspect.signature(tool)
    assert not inspect.iscoroutinefunction(wrapped)
    assert wrapped("inv-9") == "inv-9 synced"


def test_missing_dramatiq_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without dramatiq, importing the integration says which extra to install."""
    monkeypatch.setitem(sys.modules, "dramatiq", None)
    monkeypatch.delitem(sys.modules, "agenterr.integrations.dramatiq")
    with pytest.raises(ImportError, match=r"agenterr\[dramatiq\]"):
        importlib.import_module("agenterr.integrations.dramatiq")


def test_example_retries_the_timeout_and_not_the_auth_failure() -> None:
    """The example retries a 503 after its Retry-After and fails a 401 at once."""
    out = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "attempt 1: UNAVAILABLE class=transient status=503 retry_after=0.2s" in out
    assert "retry in 200 ms" in out
    assert "attempt 2: synced INV-7" in out
    assert "attempt 1: UNAUTHORIZED class=auth status=401" in out
    assert "failed without retrying: AuthToolError" in out
    assert "hint for the model: The API rejected this call as unauthorized (HTTP 401)." in out
