"""Temporal retries what is worth retrying: an activity under `@classified_activity`.

Needs the extras httpx, temporal: pip install ".[httpx,temporal]" in a clone.

Temporal retries a failed activity under the workflow's `RetryPolicy` unless the error is
`non_retryable`, and waits the error's `next_retry_delay` when it has one.
`@classified_activity` raises every failure as an `ApplicationError` that says both: a 429
is retried after the server's Retry-After, a 404 or a 401 is not retried at all, and the
Outcome rides along in the error's details for the workflow (`outcome_of`) to act on — for
example to hand the hint back to the model.

Runs offline: the activity runs in temporalio's `ActivityEnvironment` (no server), against a
weather API that is an httpx.MockTransport.
"""

from __future__ import annotations

import httpx
from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from agenterr import Class
from agenterr.integrations.temporal import classified_activity, outcome_of


def weather_api(request: httpx.Request) -> httpx.Response:
    city = request.url.params["city"]
    if city == "Busyville":
        return httpx.Response(429, headers={"Retry-After": "3"}, json={"error": "slow down"})
    if city == "Atlantis":
        return httpx.Response(404, json={"error": f"no such city: {city}"})
    if city == "Vault":
        return httpx.Response(401, json={"error": "token expired"})
    return httpx.Response(200, json={"city": city, "forecast": "sunny"})


api = httpx.Client(transport=httpx.MockTransport(weather_api), base_url="https://weather.example")


@activity.defn
@classified_activity
def get_forecast(city: str) -> dict[str, str]:
    """Today's forecast for a city."""
    response = api.get("/forecast", params={"city": city})
    response.raise_for_status()
    forecast: dict[str, str] = response.json()
    return forecast


def main() -> None:
    env = ActivityEnvironment()
    for city in ("Paris", "Busyville", "Atlantis", "Vault"):
        try:
            print(f"{city}: ok {env.run(get_forecast, city)}")
            continue
        except ApplicationError as error:
            failure = error
        print(
            f"{city}: ApplicationError type={failure.type} "
            f"non_retryable={failure.non_retryable} next_retry_delay={failure.next_retry_delay}"
        )
        outcome = outcome_of(failure)  # what a workflow reads from the ActivityError
        if outcome is None or outcome.retryable:
            delay = failure.next_retry_delay
            when = f"after {delay.total_seconds():g}s" if delay else "on the policy's schedule"
            print(f"  -> Temporal retries it {when}")
        elif outcome.class_ is Class.SELF_CORRECTABLE:
            print(f"  -> not retried; the workflow re-prompts the model: {outcome.llm_hint}")
        else:
            print(f"  -> not retried; escalate ({outcome.code})")
    api.close()


if __name__ == "__main__":
    main()
