"""Agent frameworks build the same tool schema from a decorated function as from the bare one.

Real packages (langchain-core, openai-agents, pydantic-ai-slim, mcp), installed by the
``test`` extra. Each framework reads the signature, docstring, annotations and
coroutine-ness, so equal schemas show the decorator is invisible to it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, Literal

import pytest
from agents import function_tool
from langchain_core.tools import StructuredTool, tool
from mcp.server.mcpserver import MCPServer
from pydantic_ai import Agent, Tool
from pydantic_ai.models.test import TestModel

from agenterr import TransientToolError, classified_tool


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


# Raises mode only: an Outcome-mode tool is refused at registration (the framework trap,
# tested at the end), and reaches a framework through its adapter.
VARIANTS: dict[str, Callable[[Any], Any]] = {
    "raises": classified_tool(raises=True),
    "options": classified_tool(raises=True, idempotent=False, expose_errors=True, on_failure=print),
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


# --- the framework trap ------------------------------------------------------------------
# A framework passes a tool's return value on as a successful result, so an Outcome-mode
# tool registered directly would tell the model a failed call succeeded. Each framework asks
# for the signature while registering, and is refused there with the adapter to use.


class Orders:
    @classified_tool
    def search(self, customer_id: str) -> list[str]:
        """Search a customer's orders."""
        return [customer_id]


def _mcp(function: Any) -> Any:
    return MCPServer("test").tool()(function)


REGISTRATIONS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "langchain-tool": (tool, "LangChain.*langchain_tool"),
    "langchain-structured": (StructuredTool.from_function, "LangChain.*langchain_tool"),
    "openai-agents": (function_tool, "OpenAI Agents.*unwrap_outcome"),
    "pydantic-ai-tool": (Tool, "Pydantic AI.*model_retry"),
    "pydantic-ai-agent": (lambda f: Agent(TestModel(), tools=[f]), "Pydantic AI.*model_retry"),
    "mcp": (_mcp, "MCP.*for_mcp"),
}


@pytest.mark.parametrize("fn", FUNCTIONS.values(), ids=FUNCTIONS.keys())
@pytest.mark.parametrize("framework", REGISTRATIONS)
def test_an_outcome_mode_tool_is_refused_at_registration(fn: Any, framework: str) -> None:
    """Registering an Outcome-mode tool raises TypeError naming the tool, the framework and
    its adapter, instead of a tool whose failures the model would read as successes."""
    register, adapter = REGISTRATIONS[framework]
    with pytest.raises(TypeError, match=f"^{fn.__name__} is an Outcome-mode.*{adapter}"):
        register(classified_tool(fn))
    with pytest.raises(TypeError, match="Outcome-mode"):
        register(classified_tool(idempotent=False, on_failure=print)(fn))


@pytest.mark.parametrize("framework", REGISTRATIONS)
def test_an_outcome_mode_method_is_refused_at_registration(framework: str) -> None:
    register, _ = REGISTRATIONS[framework]
    with pytest.raises(TypeError, match=r"^search is an Outcome-mode"):
        register(Orders().search)


def test_anyone_else_reads_an_outcome_mode_tools_signature() -> None:
    """User code, agenterr and documentation tools see the wrapped function's signature."""
    outcome_tool = classified_tool(search_orders)
    assert inspect.signature(outcome_tool) == inspect.signature(search_orders)
    assert inspect.signature(Orders().search) == inspect.signature(Orders().search.__wrapped__)
    assert not hasattr(outcome_tool, "__signature__")
    assert outcome_tool(customer_id="c", limit=1).value == ["c-open-0"]


def test_adapters_register_outcome_mode_tools_with_the_same_schema() -> None:
    """Through its adapter, an Outcome-mode tool registers with each framework, and the
    schema is the bare function's."""
    from agenterr.integrations.langchain import langchain_tool
    from agenterr.integrations.mcp import for_mcp
    from agenterr.integrations.openai_agents import unwrap_outcome
    from agenterr.integrations.pydantic_ai import model_retry

    outcome_tool = classified_tool(search_orders)
    assert langchain_tool(outcome_tool).args == tool(search_orders).args
    assert (
        function_tool(unwrap_outcome(outcome_tool)).params_json_schema
        == function_tool(search_orders).params_json_schema
    )
    assert (
        Tool(model_retry(outcome_tool)).tool_def.parameters_json_schema
        == Tool(search_orders).tool_def.parameters_json_schema
    )

    async def listed(function: Any) -> Any:
        server = MCPServer("test")
        server.tool()(function)
        (only,) = await server.list_tools()
        return only.input_schema

    assert asyncio.run(listed(for_mcp(outcome_tool))) == asyncio.run(listed(search_orders))
