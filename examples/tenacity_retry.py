"""Retry only what is worth retrying: tenacity over a `@classified_tool(raises=True)` tool.

Needs the extras httpx, tenacity: pip install ".[httpx,tenacity]" in a clone.

agenterr classifies and never retries; tenacity retries and never classifies.
`retry_policy(max_wait=..., attempts=..., fallback=...)` from `agenterr.integrations.tenacity`
joins the two in one call, with one limit:

- it retries 429, 5xx and timeouts only, so a 404 or a 400 fails at once instead of burning
  attempts on a call that cannot succeed unchanged;
- it waits the server's Retry-After, which agenterr has already parsed (seconds, HTTP dates
  and `retry-after-ms` alike), and falls back to the backoff given when the server gave no
  advice;
- it gives up at once when the server asks for longer than `max_wait`, instead of stalling
  the agent for an hour (or retrying before the server asked).

`before_sleep_log_outcome(...)` logs each retry: code, class, status and the wait.

Runs offline: the exchange-rate API is an httpx.MockTransport. EUR answers 429 (with
`retry-after-ms: 200`), then 503, then 200; GBP answers 429 with `Retry-After: 3600`; an
unknown currency gets a 404.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter, deque
from typing import Any

import httpx
from tenacity import retry, wait_exponential, wait_random

from agenterr import AgentToolError, classified_tool
from agenterr.integrations.tenacity import before_sleep_log_outcome, retry_policy

# Scripted answers for EUR; GBP is rate limited for an hour; anything else is unknown.
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

# The retry log goes to stdout here, so that the output reads as one story.
log = logging.getLogger("rates")
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(logging.Formatter("  %(message)s"))
log.addHandler(handler)
log.setLevel(logging.INFO)
log.propagate = False

# Without advice from the server: 0.1s, 0.2s, 0.4s ... plus up to 0.1s of jitter, so that
# many agents hit by the same outage do not all come back at the same instant.
backoff = wait_exponential(multiplier=0.1, max=5.0) + wait_random(0, 0.1)
MAX_ADVISED_WAIT = 30.0  # a server asking for an hour should end the retries, not stall them


@retry(
    # Transient failures only (404, 400, 401 ... fail at once), Retry-After waited, an
    # advised wait over the limit ends the retries; the last typed error is raised as it is.
    **retry_policy(max_wait=MAX_ADVISED_WAIT, attempts=4, fallback=backoff),
    before_sleep=before_sleep_log_outcome(log),
)
@classified_tool(raises=True)  # the value on success, a typed error on failure
def get_rate(currency: str) -> dict[str, Any]:
    """The USD exchange rate for a currency code such as "EUR"."""
    response = client.get(f"/rates/{currency}")
    response.raise_for_status()  # HTTPStatusError -> classified by status, body and headers
    rate: dict[str, Any] = response.json()
    return rate


def main() -> None:
    try:
        for currency in ["EUR", "GBP", "XYZ"]:
            print(f"get_rate({currency!r})")
            try:
                print(f"  result: {get_rate(currency)}")
            except AgentToolError as exc:
                if exc.outcome.retryable:
                    # Retry-After beyond our limit: the agent can tell the user when to
                    # come back, or schedule the call for later.
                    print(f"  gave up: {exc.outcome}")
                else:
                    # Not transient, so tenacity let it through on the first attempt. In an
                    # agent this hint goes back to the model.
                    print(f"  not retried: {exc.outcome}")
                    print(f"  hint: {exc.llm_hint}")
            print(f"  HTTP requests for {currency}: {attempts[currency]}")
    finally:
        client.close()


if __name__ == "__main__":
    main()
