"""An MCP server whose tools are classified: a failure reaches the model as agenterr's hint.

MCPServer (mcp 2.x; it was FastMCP in 1.x) builds each tool's input schema from the
function's signature, and `@classified_tool(raises=True)` keeps that signature, so the
schema the client sees is exactly the bare function's.

MCPServer turns an exception into an `is_error` result, but only a `ToolError` keeps its
message: anything else is treated as a crash and the model reads just "Error executing tool
<name>". So one thin decorator, `hint_as_tool_error`, re-raises agenterr's typed errors as
`ToolError(llm_hint)`; a genuine bug in the tool still surfaces as a crash.

Runs offline and in-process: the orders API is an httpx.MockTransport, and the MCP client
talks to the server object directly (no sockets, no subprocess).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

import httpx
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import TextContent

from agenterr import AgentToolError, classified_tool

P = ParamSpec("P")
T = TypeVar("T")

ORDERS = {"o-1001": {"id": "o-1001", "status": "shipped", "total_cents": 4200}}


def orders_api(request: httpx.Request) -> httpx.Response:
    """A stand-in for the real orders API."""
    order_id = request.url.path.rsplit("/", 1)[-1]
    if order_id in ORDERS:
        return httpx.Response(200, json=ORDERS[order_id])
    return httpx.Response(404, json={"error": f"no order with id {order_id}"})


def hint_as_tool_error(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Re-raise agenterr's typed errors as MCP `ToolError`s whose message is the hint.

    `functools.wraps` sets `__wrapped__`, so MCPServer still reads the tool's own
    signature, docstring and annotations: the schema does not change.
    """

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await fn(*args, **kwargs)
        except AgentToolError as exc:
            # The hint tells the model what to do next: fix an argument, leave a good
            # payload alone and retry later, or stop and let a human fix credentials.
            raise ToolError(exc.llm_hint) from exc

    return wrapper


server = MCPServer("orders")

# One client for the server's lifetime; in a real server, close it in the lifespan hook.
api = httpx.AsyncClient(base_url="https://orders.test", transport=httpx.MockTransport(orders_api))


@server.tool()
@hint_as_tool_error
@classified_tool(raises=True)  # the value on success, a typed error on failure
async def get_order(order_id: str) -> dict[str, Any]:
    """Look up an order by its id (for example "o-1001")."""
    response = await api.get(f"/orders/{order_id}")
    response.raise_for_status()  # 404 -> SelfCorrectableToolError, 429/5xx -> Transient...
    order: dict[str, Any] = response.json()
    return order


def text_of(content: list[Any]) -> str:
    """The text blocks of a tool result, joined."""
    return "\n".join(block.text for block in content if isinstance(block, TextContent))


async def main() -> None:
    try:
        # Passing the server object connects in-process: what an MCP host would do over
        # stdio or HTTP, without starting either.
        async with Client(server) as client:
            tools = await client.list_tools()
            for tool in tools.tools:
                print(f"tool {tool.name}: {tool.description}")
                print(f"  input schema: {json.dumps(tool.input_schema)}")

            found = await client.call_tool("get_order", {"order_id": "o-1001"})
            print(f"\nget_order(o-1001) is_error={found.is_error}")
            print(f"  structured: {json.dumps(found.structured_content)}")

            # The model invents an id: the API says 404 and the model reads what to do.
            missing = await client.call_tool("get_order", {"order_id": "o-9999"})
            print(f"\nget_order(o-9999) is_error={missing.is_error}")
            print(f"  text: {text_of(missing.content)}")
    finally:
        await api.aclose()


if __name__ == "__main__":
    asyncio.run(main())
