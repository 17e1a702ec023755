"""Nothing raw crosses Dramatiq's boundary (issue 24): the traceback Dramatiq keeps in a
message (``options["traceback"]``, carried by its retries and into the dead letter queue) and
what the worker logs hold the hint and redacted stand-ins of the cause chain, never the raw
exception, whose message may hold a credential.

Dramatiq's StubBroker with a real Worker and the real Retries middleware.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import dramatiq
import pytest
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import AsyncIO

from agenterr import Code, classified_tool
from agenterr.integrations.dramatiq import retry_when_transient, with_retry_after
from agenterr.testing import http_status_error

from .test_integrations_dramatiq import Harness, Recorder

pytestmark = pytest.mark.external

PASSWORD = "hunter2-correct-horse"
KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


def _leaky() -> None:
    try:
        raise KeyError(f"password={PASSWORD}")
    except KeyError as inner:
        raise ValueError(
            f"connect to postgres://app:{PASSWORD}@db failed; api_key={KEY}"
        ) from inner


@classified_tool(raises=True)
def buggy(invoice_id: str) -> str:
    _leaky()
    return invoice_id


@classified_tool(raises=True)
def flaky(invoice_id: str) -> str:
    try:
        _leaky()
    except ValueError as exc:
        # A Retry-After, so that the retry comes at once rather than after the backoff.
        raise http_status_error(503, headers={"retry-after-ms": "20"}) from exc
    return invoice_id


@pytest.fixture
def harness() -> Iterator[Harness]:
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


def _clean(text: str) -> bool:
    return PASSWORD not in text and KEY not in text


@pytest.mark.parametrize(("tool", "code"), [(buggy, Code.UNKNOWN), (flaky, Code.UNAVAILABLE)])
def test_the_message_and_the_log_hold_no_credential(
    harness: Harness, caplog: pytest.LogCaptureFixture, tool: object, code: Code
) -> None:
    caplog.set_level(logging.INFO)
    actor = dramatiq.actor(
        with_retry_after(tool),  # type: ignore[arg-type]
        broker=harness.broker,
        retry_when=retry_when_transient(max_retries=1),
    )
    harness.run(actor, "inv-1")
    [dead] = harness.broker.dead_letters
    kept = dead.options["traceback"]
    assert "RedactedCause" in kept and "[REDACTED]" in kept
    assert _clean(kept)
    assert _clean(dead.encode().decode("utf-8"))  # the message as the broker stores it
    assert _clean(caplog.text)
    last = harness.recorder.exceptions[-1]
    typed = last if code is Code.UNKNOWN else last.__cause__
    assert typed.outcome.code is code  # the decision still reaches Dramatiq
