"""An async agent loop that branches on each tool call's Outcome.

Needs the extras httpx, tenacity: pip install ".[httpx,tenacity]" in a clone.

The tools are `async def` methods under `@classified_tool` (Outcome mode): a call never
raises, it returns an Outcome, and the loop reacts by class:

- transient (429, 5xx, timeout): tenacity retries the identical call with agenterr's
  one-line policy, sleeping for the server's Retry-After when it gave one; the model never
  hears about it unless retries run out;
- self-correctable (bad arguments, unknown id): hand the model `tool_result_text` so it
  fixes its arguments; the text says what was wrong;
- auth and unknown: escalate to a human; the model is told not to rewrite the call.

The tool calls of one model turn run concurrently with `asyncio.gather`.

Runs offline: the API is an httpx.MockTransport and the "model" is a short script that
makes two classic mistakes (a hallucinated parameter and an invented id) and corrects them
only from what the tool results tell it.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryCallState

from agenterr import Class, Outcome, classified_tool, schema_invalid, tool_result_text
from agenterr.integrations.tenacity import retry_policy

Message = dict[str, Any]
MAX_ATTEMPTS = 4

# --- a stand-in for the real API ---------------------------------------------------------

hits: Counter[str] = Counter()  # requests per path
rate_limited: set[str] = set()  # cities whose first request got a 429


async def shop_api(request: httpx.Request) -> httpx.Response:
    """Oslo's weather is rate-limited once; only order A-1001 exists; the token expired."""
    path = request.url.path
    hits[path] += 1
    await asyncio.sleep(0.05)  # network latency, so the concurrency shows in the timings
    if path == "/weather":
        city = request.url.params["city"]
        if city == "Oslo" and city not in rate_limited:
            rate_limited.add(city)
            return httpx.Response(429, headers={"retry-after-ms": "150"}, json={"error": "busy"})
        return httpx.Response(200, json={"city": city, "temp_c": {"Paris": 18, "Oslo": 4}[city]})
    if path == "/orders":
        return httpx.Response(200, json=["A-1001"])
    if path == "/orders/A-1001":
        return httpx.Response(200, json={"id": "A-1001", "status": "shipped"})
    if path.startswith("/orders/"):
        return httpx.Response(404, json={"error": "order not found"})
    return httpx.Response(401, json={"error": "token expired"})


# --- the tools ---------------------------------------------------------------------------


class ShopTools:
    """The tools the model may call. Each returns an Outcome; none raises."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    @classified_tool
    async def get_weather(self, city: str) -> dict[str, Any]:
        """Current weather for a city."""
        # raise_for_status() turns a 4xx/5xx into HTTPStatusError, which the decorator
        # classifies from the response it carries (status, body and Retry-After).
        response = (await self.client.get("/weather", params={"city": city})).raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    @classified_tool
    async def find_orders(self, customer: str) -> list[str]:
        """The order ids of a customer."""
        response = (
            await self.client.get("/orders", params={"customer": customer})
        ).raise_for_status()
        result: list[str] = response.json()
        return result

    @classified_tool
    async def get_order(self, order_id: str) -> dict[str, Any]:
        """One order by id."""
        response = (await self.client.get(f"/orders/{order_id}")).raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    @classified_tool
    async def get_account(self) -> dict[str, Any]:
        """The caller's account."""
        response = (await self.client.get("/account")).raise_for_status()
        result: dict[str, Any] = response.json()
        return result


TOOL_NAMES = ("get_weather", "find_orders", "get_order", "get_account")


# --- a scripted model --------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


class ScriptedModel:
    """Plays the LLM: proposes tool calls, then reads the tool results it is given."""

    def __init__(self) -> None:
        self.turn = 0

    def respond(self, messages: list[Message]) -> list[ToolCall] | str:
        self.turn += 1
        seen = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
        if self.turn == 1:
            return [
                ToolCall("c1", "get_weather", {"town": "Paris"}),  # hallucinated parameter
                ToolCall("c2", "get_weather", {"city": "Oslo"}),  # will be rate-limited once
                ToolCall("c3", "get_order", {"order_id": "ORD-42"}),  # invented id
                ToolCall("c4", "get_account", {}),  # the token has expired
            ]
        if self.turn == 2:
            # It corrects only what the hints asked for: c1's named the bad argument, c3's
            # offered looking a valid id up rather than guessing another one. (c2's rate limit
            # never reached it: the loop retried that call on its own.)
            calls: list[ToolCall] = []
            if "unexpected argument 'town'" in seen["c1"]:
                calls.append(ToolCall("c5", "get_weather", {"city": "Paris"}))
            if "a tool that lists or finds one" in seen["c3"]:
                calls.append(ToolCall("c6", "find_orders", {"customer": "ada"}))
            return calls
        if self.turn == 3:
            (order_id,) = json.loads(seen["c6"])
            return [ToolCall("c7", "get_order", {"order_id": order_id})]
        paris, oslo, order = (json.loads(seen[c]) for c in ("c5", "c2", "c7"))
        return (
            f"Paris is {paris['temp_c']}°C, Oslo {oslo['temp_c']}°C; "
            f"order {order['id']} has {order['status']}."
        )


# --- the loop ----------------------------------------------------------------------------


def log_retry(retry_state: RetryCallState) -> None:
    """tenacity's before_sleep: say which call is retried, why, and after how long."""
    outcome: Outcome[Any] = retry_state.outcome.result()  # type: ignore[union-attr]
    call: ToolCall = retry_state.kwargs["call"]
    wait = retry_state.next_action.sleep  # type: ignore[union-attr]
    print(f"    {call.id} {call.name}: {outcome} -> retrying in {wait:.2f}s")


async def call_with_retries(
    tool: Callable[..., Awaitable[Outcome[Any]]], call: ToolCall
) -> Outcome[Any]:
    """Run one call; retry it unchanged while the failure is transient.

    The one-line policy retries transient Outcomes only, waits the server's Retry-After
    (else exponential backoff with jitter), gives up at once if the server asks for more
    than 5 s, and hands back the last Outcome when the attempts run out.
    """

    async def attempt(call: ToolCall) -> Outcome[Any]:
        return await tool(**call.arguments)

    retrying = AsyncRetrying(
        **retry_policy(max_wait=5, attempts=MAX_ATTEMPTS), before_sleep=log_retry
    )
    outcome: Outcome[Any] = await retrying(attempt, call=call)
    return outcome


async def run_agent(
    model: ScriptedModel, tools: ShopTools, max_turns: int = 6
) -> tuple[str, list[str]]:
    """Run the model to its final answer; return it and what was escalated on the way."""
    registry = {name: getattr(tools, name) for name in TOOL_NAMES}
    messages: list[Message] = [
        {"role": "user", "content": "Weather in Paris and Oslo, and my order?"}
    ]
    escalated: list[str] = []

    async def run(call: ToolCall) -> Outcome[Any]:
        tool = registry.get(call.name)
        if tool is None:  # the model can invent tools as well as parameters
            return schema_invalid(f"there is no tool named {call.name!r}")
        return await call_with_retries(tool, call)

    for _ in range(max_turns):
        reply = model.respond(messages)
        if isinstance(reply, str):
            return reply, escalated
        proposed = ", ".join(f"{c.id} {c.name}{c.arguments}" for c in reply)
        print(f"turn {model.turn}: model calls {proposed}")
        messages.append({"role": "assistant", "tool_calls": reply})

        # Outcome-mode tools never raise, so one failure cannot cancel its siblings.
        outcomes = await asyncio.gather(*(run(call) for call in reply))

        for call, outcome in zip(reply, outcomes, strict=True):
            if outcome.ok:
                content = json.dumps(outcome.value)
                print(f"    {call.id} ok: {content}")
            elif outcome.class_ is Class.SELF_CORRECTABLE:
                content = tool_result_text(outcome, tool=call.name, arguments=call.arguments)
                print(f"    {call.id} re-prompt the model with: {content!r}")
            elif outcome.class_ is Class.TRANSIENT:
                content = tool_result_text(outcome, tool=call.name, arguments=call.arguments)
                print(f"    {call.id} still unavailable after {MAX_ATTEMPTS} attempts: {outcome}")
            else:  # AUTH or INDETERMINATE: a human has to act
                escalated.append(f"{call.id} {call.name}: {outcome}")
                content = tool_result_text(outcome, tool=call.name, arguments=call.arguments)
                print(f"    {call.id} ESCALATED to a human: {outcome}")
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise RuntimeError("the model did not finish")


async def main() -> None:
    transport = httpx.MockTransport(shop_api)
    async with httpx.AsyncClient(base_url="https://shop.test", transport=transport) as client:
        started = asyncio.get_running_loop().time()
        answer, escalated = await run_agent(ScriptedModel(), ShopTools(client))
        elapsed = asyncio.get_running_loop().time() - started
    print(f"answer: {answer}")
    print(f"escalated: {escalated}")
    print(f"HTTP requests: {hits.total()}, wall time {elapsed:.2f}s")


if __name__ == "__main__":
    asyncio.run(main())
