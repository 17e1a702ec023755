"""Retry only what is worth retrying: tenacity over a `@classified_tool(raises=True)` tool.

agenterr classifies and never retries; tenacity retries and never classifies. Together:

- tenacity retries `TransientToolError` only (429, 5xx, timeouts), so a 404 or a 400 fails
  at once instead of burning attempts on a call that cannot succeed unchanged;
- the wait honours the server's Retry-After, which agenterr has already parsed (seconds,
  HTTP dates and `retry-after-ms` alike) into `error.retry_after`, and falls back to
  exponential backoff with jitter when the server gave no advice.

Runs offline: the exchange-rate API is an httpx.MockTransport that answers 429 (with
`retry-after-ms: 200`), then 503, then 200; an unknown currency gets a 404.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import httpx
from tenacity import (
    RetryCallState,
    retry,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from agenterr import AgentToolError, TransientToolError, classified_tool

# Scripted answers for EUR; anything else is unknown to the API.
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
    else:
        response = httpx.Response(404, json={"error": f"unknown currency {currency!r}"})
    print(f"  attempt {attempts[currency]}: HTTP {response.status_code}")
    return response


client = httpx.Client(base_url="https://rates.test", transport=httpx.MockTransport(rates_api))

# Without advice from the server: 0.1s, 0.2s, 0.4s ... plus up to 0.1s of jitter, so that
# many agents hit by the same outage do not all come back at the same instant.
backoff = wait_exponential(multiplier=0.1, max=5.0) + wait_random(0, 0.1)
MAX_ADVISED_WAIT = 30.0  # a server asking for an hour should end the retries, not stall them


def wait_advised(retry_state: RetryCallState) -> float:
    """Sleep as long as the server asked (Retry-After), else back off exponentially."""
    exc = retry_state.outcome.exception() if retry_state.outcome else None
    if isinstance(exc, TransientToolError) and exc.retry_after is not None:
        return min(exc.retry_after, MAX_ADVISED_WAIT)
    return backoff(retry_state)


def report_retry(retry_state: RetryCallState) -> None:
    """tenacity's before_sleep hook: say why, and for how long, we wait."""
    exc = retry_state.outcome.exception() if retry_state.outcome else None
    sleep = retry_state.next_action.sleep if retry_state.next_action else 0.0
    if isinstance(exc, TransientToolError):
        source = "server's Retry-After" if exc.retry_after is not None else "backoff + jitter"
        print(f"  {exc.code.value}: retrying in {sleep:.2f}s ({source})")


@retry(
    retry=retry_if_exception_type(TransientToolError),  # 404, 400, 401 ... fail at once
    wait=wait_advised,
    stop=stop_after_attempt(4),
    before_sleep=report_retry,
    reraise=True,  # after the last attempt, raise the typed error rather than RetryError
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
        for currency in ["EUR", "XYZ"]:
            print(f"get_rate({currency!r})")
            try:
                print(f"  result: {get_rate(currency)}")
            except AgentToolError as exc:
                # Not transient, so tenacity let it through on the first attempt. In an
                # agent this hint goes back to the model.
                print(f"  not retried: {exc.outcome}")
                print(f"  hint: {exc.llm_hint}")
            print(f"  HTTP requests for {currency}: {attempts[currency]}")
    finally:
        client.close()


if __name__ == "__main__":
    main()
