"""OpenAI Agents SDK: a failed function tool answers the model with agenterr's hint.

Needs the extras httpx, openai-agents: pip install ".[httpx,openai-agents]" in a clone.

The SDK catches a tool's exception and sends the model what the tool's
`failure_error_function` returns. With agenterr's, that is the hint:

- a mistyped id (404): the text says the id does not exist and offers looking one up, so
  the model fixes the id;
- an expired token (401): "NOT a problem with your arguments — do not modify them", so the
  model stops and tells the user instead of inventing new arguments.

Runs offline: the API is an `httpx.MockTransport`, and the model is a scripted
implementation of the SDK's `Model` interface that acts as a model that follows the hint would.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from agents import Agent, ModelSettings, RunConfig, Runner, function_tool
from agents.items import ModelResponse, TResponseInputItem
from agents.models.interface import Model, ModelTracing
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from agenterr import classified_tool
from agenterr.integrations.openai_agents import failure_error_function

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


@function_tool(failure_error_function=failure_error_function)
@classified_tool(raises=True)  # failures raise typed errors, which the SDK hands to the function
def get_order(order_id: str) -> dict[str, Any]:
    """Look an order up by its id, such as A-1001."""
    response = api.get(
        f"/orders/{order_id}", headers={"Authorization": f"Bearer {session['token']}"}
    )
    response.raise_for_status()
    order: dict[str, Any] = response.json()
    return order


class ScriptedModel(Model):
    """A stand-in for the LLM: it calls get_order with its first guess, then acts on the answer."""

    def __init__(self, first_guess: str) -> None:
        self.first_guess = first_guess

    async def get_response(  # noqa: PLR0917 (the SDK's abstract signature)
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        items = [] if isinstance(input, str) else input
        outputs = [
            i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        if not outputs:
            return self.call({"order_id": self.first_guess}, turn=1)
        output = str(outputs[-1]["output"])
        print(f"  model reads: {output}")
        if "could not find" in output:  # as the hint says, it looks the real id up (A-1O01
            # has a letter O; the user's message says A-1001)
            return self.call({"order_id": "A-1001"}, turn=len(outputs) + 1)
        if "unauthorized" in output:
            return self.say("I can't reach your orders right now; a person has to fix access.")
        return self.say("Order A-1001 has shipped.")

    def call(self, arguments: dict[str, str], turn: int) -> ModelResponse:
        print(f"model calls get_order({json.dumps(arguments)})")
        call = ResponseFunctionToolCall(
            type="function_call",
            id=f"fc_{turn}",
            call_id=f"call_{turn}",
            name="get_order",
            arguments=json.dumps(arguments),
            status="completed",
        )
        return ModelResponse(output=[call], usage=Usage(), response_id=None)

    def say(self, text: str) -> ModelResponse:
        message = ResponseOutputMessage(
            id="msg_1",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this example does not stream")


async def ask(question: str, first_guess: str) -> None:
    agent = Agent(name="support", model=ScriptedModel(first_guess), tools=[get_order])
    # Tracing off: it would try to upload the run to OpenAI.
    result = await Runner.run(agent, question, run_config=RunConfig(tracing_disabled=True))
    print(f"answer: {result.final_output}")


async def main() -> None:
    try:
        await ask("Where is my order A-1001?", first_guess="A-1O01")
        print()
        session["token"] = "expired"
        await ask("Has order A-1001 shipped?", first_guess="A-1001")
    finally:
        api.close()


if __name__ == "__main__":
    asyncio.run(main())
