"""Celery retries a rate-limited tool after the server's Retry-After, and never retries a 404.

Needs the extras celery, httpx: pip install ".[celery,httpx]" in a clone.

The tool is a `@classified_tool(raises=True)` function registered as a Celery task on
`ClassifiedTask`: a `TransientToolError` is retried by Celery with the error's Retry-After as
the countdown; a self-correctable, auth or unknown failure fails the task at once, and the
caller's `AsyncResult.get()` raises the typed error, outcome and hint intact (here through
Celery's default JSON serializer).

Runs offline: the weather API is an httpx.MockTransport (Paris answers 429 with
`Retry-After: 1`, then 200; Atlantis is a 404), and Celery uses its in-memory broker and result
backend with a worker in a thread. In production the worker is `celery -A module worker`.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import httpx
from celery import Celery
from celery.contrib.testing.worker import start_worker

from agenterr import AgentToolError, Outcome, classified_tool
from agenterr.integrations.celery import ClassifiedTask

calls: Counter[str] = Counter()


def weather_api(request: httpx.Request) -> httpx.Response:
    city = request.url.params["city"]
    calls[city] += 1
    if city != "Paris":
        return httpx.Response(404, json={"error": f"no station named {city!r}"})
    if calls[city] == 1:
        return httpx.Response(429, headers={"Retry-After": "1"}, json={"error": "slow down"})
    return httpx.Response(200, json={"city": city, "forecast": "sunny"})


client = httpx.Client(transport=httpx.MockTransport(weather_api), base_url="https://wx.example")

app = Celery("forecasts", broker="memory://", backend="cache+memory://")
app.conf.broker_connection_retry_on_startup = True
app.conf.broker_transport_options = {"polling_interval": 0.05}  # the in-memory queue is polled


def report(tool: str, outcome: Outcome[Any], error: BaseException | None) -> None:
    print(f"  attempt {get_forecast.request.retries + 1}: {outcome}")


@app.task(base=ClassifiedTask, max_retries=3)
@classified_tool(raises=True, on_failure=report)
def get_forecast(city: str) -> dict[str, str]:
    """Today's forecast for a city."""
    response = client.get("/forecast", params={"city": city})
    response.raise_for_status()  # 429 -> TransientToolError, 404 -> SelfCorrectableToolError
    forecast: dict[str, str] = response.json()
    return forecast


def main() -> None:
    with start_worker(app, perform_ping_check=False, loglevel="CRITICAL"):
        print("get_forecast('Paris'):")
        started = time.monotonic()
        forecast = get_forecast.delay("Paris").get(timeout=30)
        print(f"  retried after {int(time.monotonic() - started)}s -> {forecast}")

        print("get_forecast('Atlantis'):")
        try:
            get_forecast.delay("Atlantis").get(timeout=30)
        except AgentToolError as exc:
            print(f"  not retried: {type(exc).__name__} {exc.code}")
            print(f"  hint for the model: {exc.llm_hint}")


if __name__ == "__main__":
    main()
