"""A LangChain tool whose failures reach the model as agenterr's hint.

Needs the extras httpx, langchain, tenacity: pip install ".[httpx,langchain,tenacity]" in a clone.

`langchain_tool` builds a `StructuredTool` from a `@classified_tool` function: a failure is
raised as a `ToolException` subclass and answered with the hint, so `tool.invoke(tool_call)`
returns a `ToolMessage(status="error")` the model can act on, instead of ending the run.
Arguments that fail LangChain's own validation get the SCHEMA_INVALID hint the same way.
The argument schema is exactly the bare function's.

Transient failures are retried inside the tool (tenacity with agenterr's `retry_policy`,
retrying only transient failures), so a 503 costs no model turn; the model would read the transient
hint only once the retries ran out.

Runs offline: the orders API is an httpx.MockTransport and the model is LangChain's
`GenericFakeChatModel`, replaying a scripted conversation. A callback records what the
model was given on each turn.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool
from tenacity import RetryCallState, retry, wait_fixed

from agenterr import classified_tool
from agenterr.integrations.langchain import langchain_tool
from agenterr.integrations.tenacity import retry_policy

ORDERS = {"o-1001": {"id": "o-1001", "status": "shipped"}}
api_requests: list[str] = []


def orders_api(request: httpx.Request) -> httpx.Response:
    """A stand-in for the real orders API: its first answer is a 503 blip."""
    api_requests.append(request.url.path)
    if len(api_requests) == 2:
        return httpx.Response(503, json={"error": "upstream restarting"})
    order_id = request.url.path.rsplit("/", 1)[-1]
    if order_id in ORDERS:
        return httpx.Response(200, json=ORDERS[order_id])
    return httpx.Response(404, json={"error": f"no order with id {order_id}"})


api = httpx.Client(base_url="https://orders.test", transport=httpx.MockTransport(orders_api))


def get_order(order_id: str) -> dict[str, Any]:
    """Look up an order by its id (for example "o-1001")."""
    response = api.get(f"/orders/{order_id}")
    response.raise_for_status()  # 404 -> NOT_FOUND, 503 -> UNAVAILABLE
    order: dict[str, Any] = response.json()
    return order


def report_retry(state: RetryCallState) -> None:
    error = state.outcome.exception() if state.outcome else None
    print(f"  {getattr(error, 'outcome', error)}: retried inside the tool, no model turn spent")


order_tool = langchain_tool(
    retry(  # inside the tool: transient failures are retried before the model hears of them
        **retry_policy(max_wait=1, attempts=3, fallback=wait_fixed(0.05)),
        before_sleep=report_retry,
    )(classified_tool(raises=True)(get_order))
)
TOOLS = {order_tool.name: order_tool}


def call(call_id: str, **args: Any) -> dict[str, Any]:
    return {"name": "get_order", "args": args, "id": call_id, "type": "tool_call"}


# What the model will say, turn by turn: an invented id, a misnamed argument, the fix.
model = GenericFakeChatModel(
    messages=iter(
        [
            AIMessage("", tool_calls=[call("c1", order_id="o-9999")]),
            AIMessage("", tool_calls=[call("c2", id="o-1001")]),
            AIMessage("", tool_calls=[call("c3", order_id="o-1001")]),
            AIMessage("Order o-1001 has shipped."),
        ]
    )
)


class Transcript(BaseCallbackHandler):
    """Records the messages the model receives on each turn."""

    def __init__(self) -> None:
        self.turns: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.turns.append(messages[0])


def main() -> None:
    bare = StructuredTool.from_function(get_order)
    assert order_tool.args_schema is not None and bare.args_schema is not None
    schema = order_tool.tool_call_schema.model_json_schema()
    same = schema == bare.tool_call_schema.model_json_schema()
    print(f"tool {order_tool.name}: {json.dumps(schema)}")
    print(f"  same schema as the bare function: {same}")

    transcript = Transcript()
    messages: list[BaseMessage] = [HumanMessage("Where is my order o-1001?")]
    for turn in range(1, 6):
        reply = model.invoke(messages, config={"callbacks": [transcript]})
        messages.append(reply)
        if not isinstance(reply, AIMessage) or not reply.tool_calls:
            print(f"answer: {reply.content}")
            break
        for tool_call in reply.tool_calls:
            print(f"turn {turn}: model calls {tool_call['name']}{tool_call['args']}")
            result = TOOLS[tool_call["name"]].invoke(tool_call)
            assert isinstance(result, ToolMessage)
            print(f"  -> {result.status}: {result.content}".replace("\n", "\n     "))
            messages.append(result)

    print(f"HTTP requests: {len(api_requests)}")
    seen = [m for m in transcript.turns[-1] if isinstance(m, ToolMessage)]
    print(f"the model saw {len(seen)} tool results: {[m.status for m in seen]}")


if __name__ == "__main__":
    try:
        main()
    finally:
        api.close()
