"""Agent frameworks build the same tool schema from a decorated function as from the bare one.

Real packages (langchain-core, openai-agents, pydantic-ai-slim, mcp), installed by the
``test`` extra. Each framework reads the signature, docstring, annotations and
coroutine-ness, so equal schemas show the decorator is invisible to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Literal

import pytest
from agents import function_tool
from langchain_core.tools import StructuredTool, tool
from mcp.server.mcpserver import MCPServer
from pydantic_ai import Agent, Tool
from pydantic_ai.models.test import TestModel

from agenterr import Outcome, TransientToolError, classified_tool


def search_orders(
    customer_id: str, status: Literal["open", "closed"] = "open", limit: int = 10
) -> list[str]:
    """Search a customer's orders.

    Args:
        customer_id: The customer's identifier.
        status: Which orders to return.
        limit: The most orders to return.
    """
    if customer_id == "down":
        raise TimeoutError
    return [f"{customer_id}-{status}-{i}" for i in range(limit)]


async def asearch_orders(
    customer_id: str, status: Literal["open", "closed"] = "open", limit: int = 10
) -> list[str]:
    """Search a customer's orders.

    Args:
        customer_id: The customer's identifier.
        status: Which orders to return.
        limit: The most orders to return.
    """
    await asyncio.sleep(0)
    return search_orders(customer_id, status, limit)


VARIANTS: dict[str, Callable[[Any], Any]] = {
    "outcome": classified_tool,
    "raises": classified_tool(raises=True),
    "options": classified_tool(idempotent=False, expose_errors=True, on_failure=print),
}
FUNCTIONS = {"sync": search_orders, "async": asearch_orders}


def cases() -> list[Any]:
    return [
        pytest.param(fn, VARIANTS[variant], id=f"{kind}-{variant}")
        for kind, fn in FUNCTIONS.items()
        for variant in VARIANTS
    ]


@pytest.mark.parametrize(("fn", "decorate"), cases())
def test_langchain_tool(fn: Any, decorate: Any) -> None:
    """langchain-core's @tool: same name, description and args schema."""
    bare, decorated = tool(fn), tool(decorate(fn))
    assert decorated.name == bare.name == fn.__name__
    assert decorated.description == bare.description
    assert decorated.args == bare.args
    assert (
        decorated.tool_call_schema.model_json_schema() == bare.tool_call_schema.model_json_schema()
    )


@pytest.mark.parametrize(("fn", "decorate"), cases())
def test_langchain_structured_tool(fn: Any, decorate: Any) -> None:
    """StructuredTool.from_function with docstring parsing: same schema."""
    key = "coroutine" if fn is asearch_orders else "func"
    bare = StructuredTool.from_function(**{key: fn}, parse_docstring=True)
    decorated = StructuredTool.from_function(**{key: decorate(fn)}, parse_docstring=True)
    assert decorated.args_schema is not None and bare.args_schema is not None
    assert decorated.args == bare.args
    assert decorated.description == bare.description


def test_langchain_invokes_raising_tool() -> None:
    """LangChain runs a raises-mode tool: the value comes back, failures raise typed errors."""
    lc_tool = tool(classified_tool(raises=True)(search_orders))
    assert lc_tool.invoke({"customer_id": "c1", "limit": 1}) == ["c1-open-0"]
    with pytest.raises(TransientToolError):
        lc_tool.invoke({"customer_id": "down"})


@pytest.mark.parametrize(("fn", "decorate"), cases())
def test_openai_agents_function_tool(fn: Any, decorate: Any) -> None:
    """OpenAI Agents SDK's function_tool: same name, description and strict JSON schema."""
    bare, decorated = function_tool(fn), function_tool(decorate(fn))
    assert decorated.name == bare.name
    assert decorated.description == bare.description
    assert decorated.params_json_schema == bare.params_json_schema
    assert decorated.strict_json_schema == bare.strict_json_schema


@pytest.mark.parametrize(("fn", "decorate"), cases())
def test_pydantic_ai_tool(fn: Any, decorate: Any) -> None:
    """Pydantic AI's Tool: same tool definition, including per-parameter descriptions."""
    bare, decorated = Tool(fn), Tool(decorate(fn))
    assert decorated.tool_def.name == bare.tool_def.name
    assert decorated.tool_def.description == bare.tool_def.description
    assert decorated.tool_def.parameters_json_schema == bare.tool_def.parameters_json_schema
    assert decorated.takes_ctx == bare.takes_ctx


@pytest.mark.parametrize("fn", FUNCTIONS.values(), ids=FUNCTIONS.keys())
def test_pydantic_ai_agent_runs_decorated_tool(fn: Any) -> None:
    """An agent with a test model calls the decorated tool, sync or async."""
    calls: list[str] = []

    def observe(name: str, *_: Any) -> None:
        calls.append(name)

    agent = Agent(TestModel(call_tools=[fn.__name__]))
    agent.tool_plain(classified_tool(raises=True, on_failure=observe)(fn))
    # asyncio.run, not run_sync: run_sync leaves its event loop open for the GC to warn about.
    result = asyncio.run(agent.run("find my orders"))
    assert fn.__name__ in result.output
    assert calls == []


@pytest.mark.parametrize(("fn", "decorate"), cases())
def test_mcp_server_tool(fn: Any, decorate: Any) -> None:
    """MCP's server (MCPServer, formerly FastMCP) lists the same input and output schemas."""

    async def listed(function: Any) -> Any:
        server = MCPServer("test")
        server.tool()(function)
        (only,) = await server.list_tools()
        return only

    bare, decorated = asyncio.run(listed(fn)), asyncio.run(listed(decorate(fn)))
    assert decorated.name == bare.name
    assert decorated.description == bare.description
    assert decorated.input_schema == bare.input_schema
    assert decorated.output_schema == bare.output_schema


def test_mcp_calls_raising_tool() -> None:
    """MCP calls a raises-mode tool and returns its structured result."""
    server = MCPServer("test")
    server.tool()(classified_tool(raises=True)(asearch_orders))
    result: Any = asyncio.run(server.call_tool("asearch_orders", {"customer_id": "c", "limit": 1}))
    assert result.structured_content == {"result": ["c-open-0"]}
    assert not result.is_error


# Schema equality above holds in every mode, but only raises mode works end to end: a
# framework passes a tool's return value on as the result, so an Outcome-mode tool hands it
# an Outcome object, not the value. Register tools with frameworks using raises=True (the
# README's guidance); Outcome mode is for agent loops that call the tool themselves.


def test_framework_result_of_an_outcome_mode_tool_is_not_the_value() -> None:
    """LangChain invokes an Outcome-mode tool and gets the Outcome back, not the list."""
    lc_tool = tool(classified_tool(search_orders))
    result = lc_tool.invoke({"customer_id": "c1", "limit": 1})
    assert isinstance(result, Outcome)
    assert result != ["c1-open-0"] and result.value == ["c1-open-0"]
