"""Dramatiq retries a 503 after the server's Retry-After, and never retries a 401.

Needs the extras dramatiq, httpx: pip install ".[dramatiq,httpx]" in a clone.

The actor is a `@classified_tool(raises=True)` function. `with_retry_after` turns its
`TransientToolError` into `dramatiq.Retry(delay=<Retry-After in ms>)`, which the Retries
middleware waits exactly; `retry_when_transient()` lets the middleware retry transient
failures only, so the 401 (an `AuthToolError`: credentials, not arguments) fails at once.

Runs offline: the ledger API is an httpx.MockTransport (INV-7 answers 503 with
`retry-after-ms: 200`, then 200; INV-8 answers 401), and Dramatiq runs on its StubBroker with
a real Worker. A small middleware narrates what happens to each message.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

import dramatiq
import httpx
from dramatiq.brokers.stub import StubBroker

from agenterr import classified_tool
from agenterr.integrations.dramatiq import retry_when_transient, with_retry_after

calls: Counter[str] = Counter()


def ledger_api(request: httpx.Request) -> httpx.Response:
    invoice = request.url.path.rsplit("/", 1)[-1]
    calls[invoice] += 1
    if invoice == "INV-8":
        return httpx.Response(401, json={"error": "API key revoked"})
    if calls[invoice] == 1:
        return httpx.Response(503, headers={"retry-after-ms": "200"}, text="ledger warming up")
    return httpx.Response(200, json={"invoice": invoice, "synced": True})


client = httpx.Client(transport=httpx.MockTransport(ledger_api), base_url="https://ledger.example")


class Narrator(dramatiq.Middleware):
    """Prints each failed attempt's classification and what Dramatiq does about it."""

    def after_process_message(
        self, broker: Any, message: Any, *, result: Any = None, exception: Any = None
    ) -> None:
        if exception is None:
            return
        retrying = isinstance(exception, dramatiq.Retry)
        error = exception.__cause__ if retrying else exception
        print(f"  attempt {calls[message.args[0]]}: {error.outcome}")
        if retrying:
            print(f"  retry in {exception.delay} ms")
        else:
            print(f"  failed without retrying: {type(error).__name__}")
            print(f"  hint for the model: {error.llm_hint}")


broker = StubBroker()
broker.add_middleware(Narrator())
dramatiq.set_broker(broker)
logging.getLogger("dramatiq").setLevel(logging.CRITICAL)  # the narrator tells the story


@dramatiq.actor(retry_when=retry_when_transient(max_retries=3))
@with_retry_after
@classified_tool(raises=True)
def sync_invoice(invoice_id: str) -> None:
    """Push an invoice to the ledger."""
    client.post(f"/invoices/{invoice_id}").raise_for_status()  # 503 -> Transient, 401 -> Auth
    print(f"  attempt {calls[invoice_id]}: synced {invoice_id}")


def main() -> None:
    worker = dramatiq.Worker(broker, worker_timeout=50)
    worker.start()
    try:
        for invoice in ("INV-7", "INV-8"):
            print(f"sync_invoice({invoice!r}):")
            sync_invoice.send(invoice)
            broker.join(sync_invoice.queue_name, fail_fast=False, timeout=10_000)
    finally:
        worker.stop()


if __name__ == "__main__":
    main()
