"""An MCP server whose tools are classified, and a client that reads the classification back.

Needs the extras httpx, mcp: pip install ".[httpx,mcp]" in a clone.

Server side: `for_mcp` turns a failed Outcome of a `@classified_tool` into the tool error
result MCP defines (`is_error`), with agenterr's hint as the text the model reads and the
Outcome itself as `structured_content`. A success is the tool's value, as usual. The input
and output schemas the client sees are exactly the bare function's: MCPServer (mcp 2.x; it
was FastMCP in 1.x) reads the signature, which the decorators keep.

Client side: `from_call_tool_result` turns the result back into the same Outcome, so the
agent loop branches on it as on a local tool: retry a transient failure unchanged,
re-prompt the model with the hint, or escalate.

Runs offline and in-process: the orders API is an httpx.MockTransport, and the MCP client
talks to the server object directly (no sockets, no subprocess).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

from agenterr import Class, Outcome, classified_tool
from agenterr.integrations.mcp import for_mcp, from_call_tool_result

ORDERS = {"o-1001": {"id": "o-1001", "status": "shipped", "total_cents": 4200}}


def orders_api(request: httpx.Request) -> httpx.Response:
    """A stand-in for the real orders API, rate-limited for one id."""
    order_id = request.url.path.rsplit("/", 1)[-1]
    if order_id in ORDERS:
        return httpx.Response(200, json=ORDERS[order_id])
    if order_id == "o-busy":
        return httpx.Response(429, headers={"Retry-After": "2"}, json={"error": "slow down"})
    return httpx.Response(404, json={"error": f"no order with id {order_id}"})


server = MCPServer("orders")

# One client for the server's lifetime; in a real server, close it in the lifespan hook.
api = httpx.AsyncClient(base_url="https://orders.test", transport=httpx.MockTransport(orders_api))


@server.tool()
@for_mcp  # a failed Outcome -> CallToolResult(is_error=True, hint, structured Outcome)
@classified_tool  # every failure -> an Outcome
async def get_order(order_id: str) -> dict[str, Any]:
    """Look up an order by its id (for example "o-1001")."""
    response = await api.get(f"/orders/{order_id}")
    response.raise_for_status()  # 404 -> NOT_FOUND, 429 -> RATE_LIMITED
    order: dict[str, Any] = response.json()
    return order


def text_of(content: list[Any]) -> str:
    """The text blocks of a tool result, joined."""
    return "\n".join(block.text for block in content if isinstance(block, TextContent))


def reaction(outcome: Outcome[Any]) -> str:
    """What the client's agent loop does next."""
    if outcome.ok:
        return "hand the value to the model"
    if outcome.retryable:
        wait = 1.0 if outcome.retry_after is None else outcome.retry_after  # 0 means now
        return f"retry unchanged after {wait:g}s"
    if outcome.class_ is Class.SELF_CORRECTABLE:
        return "re-prompt the model with the hint"
    return "escalate to a human"


def show(result: CallToolResult) -> Outcome[Any]:
    """Print a result as the client receives it, and what the client makes of it."""
    print(f" is_error={result.is_error}")
    if result.is_error:
        text = text_of(result.content)  # what the model reads: agenterr.tool_result_text
        print("  text: " + text.replace("\n", "\n        "))
    print(f"  structured: {json.dumps(result.structured_content)}")
    outcome = from_call_tool_result(result)
    print(f"  client reads: {outcome} -> {reaction(outcome)}")
    return outcome


async def main() -> None:
    try:
        # Passing the server object connects in-process: what an MCP host would do over
        # stdio or HTTP, without starting either.
        async with Client(server) as client:
            tools = await client.list_tools()
            for tool in tools.tools:
                print(f"tool {tool.name}: {tool.description}")
                print(f"  input schema: {json.dumps(tool.input_schema)}")

            for order_id in ("o-1001", "o-9999", "o-busy"):
                # o-9999: the model invents an id; o-busy: the API is rate-limiting.
                print(f"\nget_order({order_id})", end="")
                show(await client.call_tool("get_order", {"order_id": order_id}))

            # The model leaves out the argument: MCPServer rejects the call before the tool
            # runs, in pydantic's words, and the client reads INVALID_REQUEST: the model fixes it.
            print("\nget_order()", end="")
            outcome = show(await client.call_tool("get_order", {}))
            print("  hint: " + outcome.llm_hint.replace("\n", "\n        "))
    finally:
        await api.aclose()


if __name__ == "__main__":
    asyncio.run(main())
