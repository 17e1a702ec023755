"""stamina retries plain httpx code; agenterr decides what is worth retrying and for how long.

Needs the extras httpx, stamina: pip install ".[httpx,stamina]" in a clone.

`retry_policy(max_wait=...)` is the whole policy in one call. Its `on=` hook,
`retry_on_transient`, is a stamina backoff hook: for a 429, a 5xx or a timeout it returns the
server's Retry-After (which stamina waits instead of its own backoff), or True for stamina's
exponential backoff when the server gave none; for a 404, a 400 or a 401 it returns False, so
stamina lets the error through at once. A Retry-After longer than `max_wait` is not waited
either: the caller learns at once when to come back.

Runs offline: the exchange-rate API is an httpx.MockTransport. EUR answers 429 (with
`retry-after-ms: 200`), then 503, then 200; GBP answers 429 with `Retry-After: 3600`; an
unknown currency gets a 404.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import httpx
import stamina
from stamina.instrumentation import RetryDetails, set_on_retry_hooks

import agenterr
from agenterr.integrations.stamina import retry_policy

EUR_ANSWERS = deque(
    [
        httpx.Response(429, headers={"retry-after-ms": "200"}, json={"error": "slow down"}),
        httpx.Response(503, text="upstream warming up"),
        httpx.Response(200, json={"base": "USD", "quote": "EUR", "rate": 0.92}),
    ]
)
attempts: Counter[str] = Counter()


def rates_api(request: httpx.Request) -> httpx.Response:
    currency = request.url.path.rsplit("/", 1)[-1]
    attempts[currency] += 1
    if currency == "EUR":
        response = EUR_ANSWERS.popleft()
    elif currency == "GBP":
        response = httpx.Response(429, headers={"Retry-After": "3600"}, json={"error": "quota"})
    else:
        response = httpx.Response(404, json={"error": f"unknown currency {currency!r}"})
    print(f"  attempt {attempts[currency]}: HTTP {response.status_code}")
    return response


client = httpx.Client(base_url="https://rates.test", transport=httpx.MockTransport(rates_api))


def report_retry(details: RetryDetails) -> None:
    """stamina's instrumentation hook: what failed, and how long stamina waits."""
    outcome = agenterr.from_error(details.caused_by)
    print(f"  {outcome}: stamina waits {details.wait_for:.2f}s")


# Instead of stamina's default logging hook, so that the output reads as one story.
set_on_retry_hooks([report_retry])


# Without a Retry-After, stamina backs off from 0.1s with up to 0.1s of jitter.
@stamina.retry(**retry_policy(max_wait=60, attempts=4), wait_initial=0.1, wait_jitter=0.1)
def get_rate(currency: str) -> dict[str, Any]:
    """The USD exchange rate for a currency code such as "EUR"."""
    response = client.get(f"/rates/{currency}")
    response.raise_for_status()
    rate: dict[str, Any] = response.json()
    return rate


def main() -> None:
    try:
        for currency in ["EUR", "GBP", "XYZ"]:
            print(f"get_rate({currency!r})")
            try:
                print(f"  result: {get_rate(currency)}")
            except httpx.HTTPStatusError as exc:
                outcome = agenterr.from_error(exc)
                if outcome.retryable:
                    print(f"  gave up: {outcome}")  # the server asked for an hour
                else:
                    print(f"  not retried: {outcome}")
                    print(f"  hint: {outcome.llm_hint}")
            print(f"  HTTP requests for {currency}: {attempts[currency]}")
    finally:
        client.close()


if __name__ == "__main__":
    main()
