"""LangGraph's ToolNode, the real package, in a compiled graph: classified tools reach the
model as a ToolMessage(status="error") carrying the model text."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from agenterr import AuthToolError, classified_tool, from_status
from agenterr.integrations.langchain import handle_tool_error, langchain_tool

pytestmark = pytest.mark.external

ORDERS = {"A-1": {"id": "A-1", "status": "shipped"}}


def get_order(order_id: str) -> Any:
    """Fetch an order by its id."""
    if order_id == "expired":
        return from_status(401, '{"error":"token expired"}')
    if order_id not in ORDERS:
        return from_status(404, '{"error":"order not found"}')
    return ORDERS[order_id]


def get_order_raising(order_id: str) -> Any:
    """Fetch an order by its id."""
    result = get_order(order_id)
    return result.unwrap() if hasattr(result, "unwrap") else result


def run(node: ToolNode, name: str, order_id: str) -> ToolMessage:
    """One tool call through a graph whose only node is ``node``; the message it adds."""
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    call = {"name": name, "args": {"order_id": order_id}, "id": "c1", "type": "tool_call"}
    state = graph.compile().invoke({"messages": [AIMessage(content="", tool_calls=[call])]})
    message = state["messages"][-1]
    assert isinstance(message, ToolMessage) and message.tool_call_id == "c1"
    return message


def test_an_adapted_outcome_mode_tool_in_a_tool_node() -> None:
    """langchain_tool's tool: the value on success, the model text naming the tool on failure."""
    node = ToolNode([langchain_tool(classified_tool(get_order))])
    ok = run(node, "get_order", "A-1")
    assert (ok.status, ok.content) == ("success", '{"id": "A-1", "status": "shipped"}')
    missing = run(node, "get_order", "B-2")
    assert missing.status == "error"
    assert missing.content.startswith("FIX YOUR ARGUMENTS: ")
    assert "`get_order`" in missing.content and '{"error":"order not found"}' in missing.content
    denied = run(node, "get_order", "expired")
    assert denied.status == "error" and denied.content.startswith("CANNOT CONTINUE: ")


def test_handle_tool_error_as_the_nodes_handler_for_raises_mode_tools() -> None:
    """A raises-mode tool under @tool: ToolNode(handle_tool_errors=handle_tool_error) catches
    its typed errors (read from the handler's annotation) and sends the model text."""
    raising = tool(classified_tool(raises=True)(get_order_raising))
    node = ToolNode([raising], handle_tool_errors=handle_tool_error)
    denied = run(node, "get_order_raising", "expired")
    assert denied.status == "error"
    assert denied.content.startswith("CANNOT CONTINUE: ")
    assert '{"error":"token expired"}' in denied.content
    assert "Failure(" not in denied.content  # not the exception's repr


def test_without_a_handler_a_typed_error_ends_the_run() -> None:
    """ToolNode's default handler catches only its own invocation errors: an auth failure
    propagates as agenterr's typed error, for the application to escalate."""
    raising = tool(classified_tool(raises=True)(get_order_raising))
    with pytest.raises(AuthToolError):
        run(ToolNode([raising]), "get_order_raising", "expired")


def test_a_bug_is_not_swallowed_by_the_handler() -> None:
    """handle_tool_error's annotation names the classified errors and ToolException only,
    so a bug in a plain tool still ends the run."""

    @tool
    def broken(order_id: str) -> str:
        """Always fails."""
        raise KeyError(order_id)

    with pytest.raises(KeyError):
        run(ToolNode([broken], handle_tool_errors=handle_tool_error), "broken", "x")


def test_an_outcome_mode_tool_given_to_a_tool_node_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^get_order is an Outcome-mode.*langchain_tool"):
        ToolNode([classified_tool(get_order)])
