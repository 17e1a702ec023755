"""@classified_tool in an agent: tenacity retries transient failures, the loop branches on the rest.

Needs the extras httpx, tenacity: pip install ".[httpx,tenacity]" in a clone.

Runs offline: the weather API is an httpx.MockTransport that answers 503 once, then 200.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from tenacity import retry, wait_exponential

from agenterr import Class, Outcome, classified_tool, tool_result_text
from agenterr.integrations.tenacity import retry_policy

calls = {"n": 0}


def weather_api(request: httpx.Request) -> httpx.Response:
    calls["n"] += 1
    if request.url.path == "/account":
        return httpx.Response(401, json={"error": "API key expired"})
    if calls["n"] == 1:
        return httpx.Response(503, headers={"Retry-After": "0"}, text="warming up")
    return httpx.Response(200, json={"city": request.url.params["city"], "temp_c": 21})


client = httpx.Client(base_url="https://weather.test", transport=httpx.MockTransport(weather_api))


# Only transient failures; the server's Retry-After, else exponential backoff; a server
# asking for more than 30 s ends the retries at once.
@retry(**retry_policy(max_wait=30, attempts=4, fallback=wait_exponential(max=30)))
@classified_tool(raises=True)
def get_forecast(city: str, days: int = 1) -> dict[str, Any]:
    """Forecast for a city."""
    response = client.get("/forecast", params={"city": city, "days": days})
    response.raise_for_status()
    result: dict[str, Any] = response.json()
    return result


@classified_tool
def get_account() -> dict[str, Any]:
    """The caller's account."""
    result: dict[str, Any] = client.get("/account").raise_for_status().json()
    return result


@classified_tool
def forecast_tool(city: str, days: int = 1) -> dict[str, Any]:
    """The tool the model calls: retries inside, one Outcome outside."""
    return get_forecast(city, days)


TOOLS: dict[str, Callable[..., Outcome[Any]]] = {"forecast": forecast_tool, "account": get_account}


def run_tool_call(name: str, arguments: dict[str, Any]) -> str:
    """What an agent loop does with one tool call the model asked for."""
    outcome: Outcome[Any] = TOOLS[name](**arguments)
    if outcome.ok:
        return json.dumps(outcome.value)
    if outcome.class_ is Class.SELF_CORRECTABLE:
        # goes back to the model, which fixes its arguments
        return tool_result_text(outcome)
    if outcome.class_ is Class.TRANSIENT:
        return f"(still failing after retries: {outcome}; try again later)"
    return f"(escalated to a human: {outcome.code})"  # AUTH or INDETERMINATE


if __name__ == "__main__":
    # The model hallucinates a parameter, corrects itself from the hint, then asks for
    # something its credentials do not allow.
    for name, arguments in [
        ("forecast", {"town": "Paris"}),
        ("forecast", {"city": "Paris"}),
        ("account", {}),
    ]:
        print(f"{name}({arguments}) -> {run_tool_call(name, arguments)}")
    print(f"HTTP requests sent: {calls['n']} (the 503 was retried once)")
