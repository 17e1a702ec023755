"""MCP: a failed Outcome as the tool error result the model reads, and back again.

Server side, :func:`for_mcp` adapts a ``@classified_tool`` function for ``MCPServer``: on
success the tool returns its value (MCPServer builds the result as usual); on failure a
``CallToolResult`` with ``is_error`` set, :func:`agenterr.tool_result_text` (the directive,
the hint's reason, the quoted API text) as its text and the Outcome's wire form
(:meth:`~agenterr.Outcome.to_dict`) as ``structured_content``. The input and output
schemas stay the undecorated function's. :func:`to_call_tool_result` is the conversion
itself, for a low-level server::

    from mcp.server.mcpserver import MCPServer

    from agenterr import classified_tool
    from agenterr.integrations.mcp import for_mcp

    server = MCPServer("orders")


    @server.tool()
    @for_mcp
    @classified_tool
    async def get_order(order_id: str) -> dict:
        \"\"\"Look up an order by its id.\"\"\"
        ...

Client side, :func:`from_call_tool_result` classifies what a remote tool returned, exactly
as :func:`agenterr.from_envelope` does (SPEC.md 12.4): the same Outcome when the server
sent agenterr's wire form, the envelope rules' reading of the error text when it did not::

    result = await client.call_tool("get_order", {"order_id": "o-9999"})
    outcome = from_call_tool_result(result)  # NOT_FOUND class=self_correctable status=404

Made for mcp 2.x (``MCPServer``) and tested against it. Results are built and read
through their wire (camelCase) names, which mcp 1.x uses as attribute names, so
:func:`to_call_tool_result` and :func:`from_call_tool_result` work with 1.x too. 1.x
``FastMCP`` checks even an error result against the tool's output schema, though, so
there ``for_mcp`` needs tools registered with ``structured_output=False``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, ParamSpec, TypeVar, overload

from .. import Outcome, from_envelope
from .._adapter import adapt_tool, tool_name
from ._require import require
from .openai import tool_result_text

require("mcp", "mcp")

# After require(), so a missing package is reported with the extra to install.
from mcp.types import CallToolResult  # noqa: E402

__all__ = ["for_mcp", "from_call_tool_result", "to_call_tool_result"]

P = ParamSpec("P")
T = TypeVar("T")


def to_call_tool_result(
    outcome: Outcome[Any],
    *,
    tool: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> CallToolResult:
    """The ``CallToolResult`` for an outcome.

    A failure: ``is_error`` set, the model text as the one text block (what the model
    reads: the directive, the hint's reason, the quoted API text) and the wire form, with
    its ``reason`` (SPEC.md 8.4), as ``structured_content`` (what
    :func:`from_call_tool_result` reads back). A success: the value as text (a string as it
    is, anything else as JSON) and, when it is a dict, also as ``structured_content``. The
    text is :func:`agenterr.tool_result_text`, as every integration sends it; given the
    call's ``tool`` name and ``arguments``, a failure's text names them.
    """
    text = tool_result_text(outcome, tool=tool, arguments=arguments)
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if outcome.failed:
        wire["structuredContent"] = outcome.to_dict(explain=True)
        wire["isError"] = True
    elif isinstance(outcome.value, dict):
        wire["structuredContent"] = outcome.value
    # Built from the wire names: mcp 2.x accepts them as aliases, 1.x as its field names.
    return CallToolResult.model_validate(wire)


@overload
def for_mcp(
    fn: Callable[P, Coroutine[Any, Any, Outcome[T]]], /
) -> Callable[P, Coroutine[Any, Any, T | CallToolResult]]: ...
@overload
def for_mcp(
    fn: Callable[P, Coroutine[Any, Any, T]], /
) -> Callable[P, Coroutine[Any, Any, T | CallToolResult]]: ...
@overload
def for_mcp(fn: Callable[P, Outcome[T]], /) -> Callable[P, T | CallToolResult]: ...
@overload
def for_mcp(fn: Callable[P, T], /) -> Callable[P, T | CallToolResult]: ...
def for_mcp(fn: Callable[..., Any], /) -> Callable[..., Any]:
    """Adapt a ``@classified_tool`` function (sync or async) for ``@server.tool()``.

    The adapted function returns the value on success and, on failure, the result of
    :func:`to_call_tool_result`, which MCPServer passes to the client unchanged. Outcome
    mode and ``raises=True`` are both accepted. Under ``@classified_tool`` every failure is
    classified, a bug included: it reaches the client as an ``is_error`` result with the
    ``UNKNOWN`` text (the exception's text only with ``expose_errors=True``), and the
    ``agenterr`` logger records its traceback. MCP's own ``ToolError``, ``ResourceError`` and
    ``UrlElicitationRequiredError`` are not classified: MCPServer handles them as usual.
    Anything that is not an agenterr failure passes through this adapter unchanged.
    ``functools.wraps`` keeps the signature, name, docstring and annotations, so MCPServer
    derives the same input and output schemas (an error result is not checked against the
    output schema).
    """
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError("for_mcp: an MCP tool cannot be a generator function")
    name = tool_name(fn)

    def failed(outcome: Outcome[Any], cause: object, arguments: dict[str, Any] | None) -> Any:
        return to_call_tool_result(outcome, tool=name, arguments=arguments)

    return adapt_tool(fn, failed)


# --- the client side -------------------------------------------------------------------


def _member(result: Any, *names: str) -> Any:
    """A field of a result: a dict's key or an object's attribute, the first of ``names``
    (1.x and wire camelCase, then 2.x snake_case) that is not absent or None, as SPEC 12.4
    reads them."""
    for name in names:
        value = result.get(name) if isinstance(result, Mapping) else getattr(result, name, None)
        if value is not None:
            return value
    return None


def _texts(content: list[Any]) -> list[str] | None:
    """The texts of the text blocks, or None if any block is not text."""
    texts: list[str] = []
    for block in content:
        kind = block.get("type") if isinstance(block, Mapping) else getattr(block, "type", None)
        text = block.get("text") if isinstance(block, Mapping) else getattr(block, "text", None)
        if kind != "text" or not isinstance(text, str):
            return None
        texts.append(text)
    return texts


def from_call_tool_result(result: CallToolResult | Mapping[str, Any]) -> Outcome[Any]:
    """Classify the result of calling a remote MCP tool.

    ``result`` is a ``CallToolResult`` (mcp 2.x, or 1.x's camelCase attributes) or its
    dict form (wire camelCase or snake_case keys).

    With ``is_error`` true, the failure is exactly what :func:`agenterr.from_envelope`
    returns for the result's wire form (SPEC.md 12.4; a missing or malformed ``content``
    counts as empty): a server using :func:`for_mcp` sent agenterr's wire outcome as
    structured content, which is relayed with its code, status and Retry-After and its
    hint cleaned (an invalid one is ignored); otherwise the text decides — rate-limit
    wording is ``RATE_LIMITED`` and "unknown tool" ``NOT_FOUND``, an HTTP status the
    text names as one ("HTTP 503", "404 Not Found") gives the status table's code, and
    anything else, MCPServer's own argument-validation errors included, is
    ``INVALID_REQUEST``: the MCP specification meant tool errors for the model to correct.

    Without it the result is a success, whose value is ``structured_content`` if the
    result has one, else the text of its text blocks (joined by newlines), else its
    ``content`` as it is.
    """
    content = _member(result, "content")
    if _member(result, "isError", "is_error") is not True:
        structured = _member(result, "structuredContent", "structured_content")
        if structured is not None:
            return Outcome.success(structured)
        texts = _texts(content) if isinstance(content, list) else None
        return Outcome.success("\n".join(texts) if texts is not None else content)
    payload: dict[str, Any] = {
        "content": content if isinstance(content, list) else [],
        "isError": True,
    }
    structured = _member(result, "structuredContent", "structured_content")
    if structured is not None:
        payload["structuredContent"] = structured
    # from_envelope reads the blocks as they are, dicts or SDK models alike.
    return from_envelope(payload)
