"""Pydantic AI: the model fixes its own arguments from agenterr's hint; auth failures escalate.

Needs the extras httpx, pydantic-ai: pip install ".[httpx,pydantic-ai]" in a clone.

An agent has one tool, `get_order`, that calls an order API over HTTP. `@classified_tool`
classifies every failure and `model_retry` hands it to Pydantic AI:

- a mistyped id (404) is self-correctable: it becomes `ModelRetry(hint)`, the model reads
  the hint as the retry prompt and calls again with the right id;
- an expired token (401) is not the model's to fix: `AuthToolError` leaves `agent.run`,
  and the orchestrator escalates it.

Runs offline: the API is an `httpx.MockTransport`, and the model is Pydantic AI's
`FunctionModel`, scripted to act as a model that follows the hint would.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agenterr import AuthToolError, classified_tool
from agenterr.integrations.pydantic_ai import model_retry

ORDERS = {"A-1001": {"id": "A-1001", "status": "shipped"}}
session = {"token": "valid"}


def order_api(request: httpx.Request) -> httpx.Response:
    if request.headers["Authorization"] != "Bearer valid":
        return httpx.Response(401, json={"error": "token expired"})
    order = ORDERS.get(request.url.path.rsplit("/", 1)[-1])
    if order is None:
        return httpx.Response(404, json={"error": "no such order"})
    return httpx.Response(200, json=order)


api = httpx.Client(base_url="https://shop.example", transport=httpx.MockTransport(order_api))


@model_retry
@classified_tool
def get_order(order_id: str) -> dict[str, Any]:
    """Look an order up by its id, such as A-1001."""
    response = api.get(
        f"/orders/{order_id}", headers={"Authorization": f"Bearer {session['token']}"}
    )
    response.raise_for_status()  # 404 -> SelfCorrectableToolError, 401 -> AuthToolError
    order: dict[str, Any] = response.json()
    return order


# The id the model asks for first in each run: in the first, it mistypes a zero as an O.
first_guesses = iter(["A-1O01", "A-1001"])


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A stand-in for the LLM, scripted to do what a model that follows the hint does."""
    request = messages[-1]
    assert isinstance(request, ModelRequest)
    order_id = None
    for part in request.parts:
        if isinstance(part, ToolReturnPart) and part.outcome == "retried":
            print(f"  model reads (retry): {part.content}")
            order_id = "A-1001"  # as the hint says, it looks the real id up: the user's message
        elif isinstance(part, ToolReturnPart):
            print(f"  model reads: {part.content}")
            return ModelResponse(parts=[TextPart(f"Order {part.content['id']} has shipped.")])
    order_id = order_id or next(first_guesses)
    print(f"model calls get_order(order_id={order_id!r})")
    return ModelResponse(parts=[ToolCallPart("get_order", {"order_id": order_id})])


async def main() -> None:
    agent = Agent(FunctionModel(model), tools=[get_order])
    result = await agent.run("Where is my order A-1001?")
    print(f"answer: {result.output}")

    print()
    session["token"] = "expired"
    try:
        await agent.run("Has order A-1001 shipped?")
    except AuthToolError as exc:  # the orchestrator's job, not the model's
        print(f"escalated: {type(exc).__name__} {exc.outcome}")
        print(f"  hint: {exc.llm_hint}")
    finally:
        api.close()


if __name__ == "__main__":
    asyncio.run(main())
