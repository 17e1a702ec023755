"""MCP: a failed Outcome as the tool error result the model reads, and back again.

Server side, :func:`for_mcp` adapts a ``@classified_tool`` function for ``MCPServer``: on
success the tool returns its value (MCPServer builds the result as usual); on failure a
``CallToolResult`` with ``is_error`` set, the hint as its text and the Outcome's wire form
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

Client side, :func:`from_call_tool_result` classifies what a remote tool returned: the
exact Outcome when the server sent agenterr's wire form, a best reading of the error text
when it did not::

    result = await client.call_tool("get_order", {"order_id": "o-9999"})
    outcome = from_call_tool_result(result)  # NOT_FOUND class=self_correctable status=404

Made for mcp 2.x (``MCPServer``) and tested against it. Results are built and read
through their wire (camelCase) names, which mcp 1.x uses as attribute names, so
:func:`to_call_tool_result` and :func:`from_call_tool_result` work with 1.x too. 1.x
``FastMCP`` checks even an error result against the tool's output schema, though, so
there ``for_mcp`` needs tools registered with ``structured_output=False``.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Coroutine, Mapping
from http import HTTPStatus
from typing import Any, ParamSpec, TypeVar, overload

from .._classify import from_status, schema_invalid
from .._hints import MAX_PROBLEMS, PROBLEM_CAP, SCAN_WINDOW, clean, hint_for, snippet
from .._outcome import Outcome
from .._taxonomy import Code
from ..errors import AgentToolError
from ._require import require
from .openai import tool_result_text

require("mcp", "mcp")

# After require(), so a missing package is reported with the extra to install.
from mcp.types import CallToolResult  # noqa: E402

__all__ = ["for_mcp", "from_call_tool_result", "to_call_tool_result"]

P = ParamSpec("P")
T = TypeVar("T")


def to_call_tool_result(outcome: Outcome[Any]) -> CallToolResult:
    """The ``CallToolResult`` for an outcome.

    A failure: ``is_error`` set, the hint as the one text block (what the model reads) and
    the wire form as ``structured_content`` (what :func:`from_call_tool_result` reads back).
    A success: the value as text (a string as it is, anything else as JSON) and, when it is
    a dict, also as ``structured_content``. The text is
    :func:`agenterr.integrations.openai.tool_result_text`, as every integration sends it.
    """
    wire: dict[str, Any] = {"content": [{"type": "text", "text": tool_result_text(outcome)}]}
    if outcome.failed:
        wire["structuredContent"] = outcome.to_dict()
        wire["isError"] = True
    elif isinstance(outcome.value, dict):
        wire["structuredContent"] = outcome.value
    # Built from the wire names: mcp 2.x accepts them as aliases, 1.x as its field names.
    return CallToolResult.model_validate(wire)


def _settle(result: Any) -> Any:
    """An Outcome's value, or its failure as an error result."""
    if isinstance(result, Outcome):
        return result.value if result.ok else to_call_tool_result(result)
    return result


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
    mode and ``raises=True`` are both accepted; any other exception passes through, so a
    bug still reaches MCPServer as a crash. ``functools.wraps`` keeps the signature, name,
    docstring and annotations, so MCPServer derives the same input and output schemas (an
    error result is not checked against the output schema).
    """
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError("for_mcp: an MCP tool cannot be a generator function")
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            try:
                result = await fn(*args, **kwargs)
            except AgentToolError as exc:
                return to_call_tool_result(exc.outcome)
            return _settle(result)

        return run_async

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(*args, **kwargs)
        except AgentToolError as exc:
            return to_call_tool_result(exc.outcome)
        return _settle(result)

    return run


# --- the client side -------------------------------------------------------------------

# MCPServer (and 1.x FastMCP) reject arguments that do not validate against the tool's
# argument model, named "<tool>Arguments", with pydantic's own message.
_ARGUMENTS_INVALID = re.compile(r"\b\d+ validation errors? for \w*Arguments\b")
_PYDANTIC_DETAIL = re.compile(r"\s*\[type=.*$")

# An HTTP status the text names as one; a bare number is not enough.
_REASONS = "|".join(
    rf"{status.value}\s+{re.escape(status.phrase)}" for status in HTTPStatus if status >= 400
)
_STATUS_IN_TEXT = re.compile(
    r"\bHTTP(?:/\d(?:\.\d)?)?\s*[\s:]\s*(?P<http>\d{3})\b"  # HTTP 503, HTTP/1.1 503
    r"|\bstatus(?:[\s_-]?code)?\s*[\s:=]\s*(?P<status>\d{3})\b"  # status 429, status_code=404
    r"|\berror\s+code\s*[\s:=]\s*(?P<error>\d{3})\b"  # the OpenAI and Anthropic SDKs
    r"|\b(?P<requests>\d{3})\s+(?:Client|Server)\s+Error\b"  # requests
    rf"|\b(?P<reason>{_REASONS})\b",  # httpx, and anything quoting the status line
    re.IGNORECASE,
)
_WHERE = " (an MCP tool error)"
_HINT_LINES = MAX_PROBLEMS + 1


def _field(result: Any, name: str, alias: str) -> Any:
    """A field of a result model (2.x snake_case, 1.x camelCase) or of its wire dict."""
    if isinstance(result, Mapping):
        return result.get(alias, result.get(name))
    value = getattr(result, name, None)
    return getattr(result, alias, None) if value is None else value


def _block(block: Any, name: str) -> Any:
    return block.get(name) if isinstance(block, Mapping) else getattr(block, name, None)


def _texts(content: Any) -> list[str]:
    """The texts of the text blocks."""
    if not isinstance(content, list):
        return []
    texts = [_block(block, "text") for block in content if _block(block, "type") == "text"]
    return [text for text in texts if isinstance(text, str)]


def _remote_hint(hint: str) -> str:
    """A hint another process wrote: untrusted, so cleaned line by line and bounded."""
    lines = (clean(line, PROBLEM_CAP * 2) for line in hint[:SCAN_WINDOW].splitlines())
    return "\n".join([line for line in lines if line][:_HINT_LINES])


def _from_wire(structured: Any) -> Outcome[Any] | None:
    """The failed Outcome of an agenterr wire dict, or None if this is not one."""
    if not isinstance(structured, dict) or structured.get("ok") is not False:
        return None
    try:
        outcome = Outcome.from_dict(structured)
    except ValueError:
        return None
    assert outcome.code is not None
    hint = _remote_hint(outcome.llm_hint)
    if not hint:  # an omitted hint: the code's own
        return Outcome.failure(outcome.code, status=outcome.status, retry_after=outcome.retry_after)
    return Outcome(outcome.code, hint, outcome.retry_after, outcome.status)


def _arguments_problems(text: str) -> list[str] | None:
    """The problems of pydantic's argument-validation message, one per location."""
    header = _ARGUMENTS_INVALID.search(text)
    if header is None:
        return None
    problems: list[str] = []
    location = ""
    for line in text[header.end() : SCAN_WINDOW].splitlines():
        if not line.strip() or line.startswith("    "):  # blank, or "For further information"
            continue
        if not line.startswith(" "):
            location = line.strip()
            continue
        message = _PYDANTIC_DETAIL.sub("", line.strip())
        problems.append(f"{location}: {message}" if location else message)
    return problems


def _status_in(text: str) -> int | None:
    for match in _STATUS_IN_TEXT.finditer(text[:SCAN_WINDOW]):
        number = next(group for group in match.groups() if group is not None)
        status = int(number[:3])
        if 400 <= status <= 599:
            return status
    return None


def _from_text(text: str) -> Outcome[Any]:
    problems = _arguments_problems(text)
    if problems is not None:
        return schema_invalid(*problems)
    status = _status_in(text)
    if status is not None:
        return from_status(status, text)
    return Outcome(Code.UNKNOWN, hint_for(Code.UNKNOWN, _WHERE, snippet(text)))


def from_call_tool_result(result: CallToolResult | Mapping[str, Any]) -> Outcome[Any]:
    """Classify the result of calling a remote MCP tool.

    ``result`` is a ``CallToolResult`` or its dict form (wire camelCase or snake_case
    keys). Without ``is_error`` it is a success, whose value is ``structured_content`` if
    the result has one, else the text of its text blocks (joined by newlines), else its
    ``content`` as it is.

    With ``is_error``, in order:

    - ``structured_content`` that is agenterr's wire form of a failure (a server using
      :func:`for_mcp`) is read back with :meth:`~agenterr.Outcome.from_dict`: the same
      code, status and Retry-After. The hint, written by another process, is cleaned like
      any quoted text. Invalid wire forms are ignored and the text decides;
    - MCPServer's rejection of arguments that fail its validation (pydantic's "N
      validation errors for <tool>Arguments") is ``SCHEMA_INVALID``, one problem per
      location, so the model can fix its call;
    - a text naming an HTTP status ("HTTP 503", "status 429", "status_code=404", "Error
      code: 401", "404 Not Found", "500 Server Error") is classified as that status by
      :func:`~agenterr.from_status`: the remote tool passed its API's failure on, and the
      status says what it needs;
    - anything else is ``UNKNOWN``: free text is not a classification, and guessing one
      could retry a call that already took effect, or have the model rewrite good
      arguments. The hint quotes the text, cleaned and capped.
    """
    content = _field(result, "content", "content")
    texts = _texts(content)
    if _field(result, "is_error", "isError") is not True:
        structured = _field(result, "structured_content", "structuredContent")
        if structured is not None:
            return Outcome.success(structured)
        if isinstance(content, list) and len(texts) == len(content):
            return Outcome.success("\n".join(texts))
        return Outcome.success(content)
    outcome = _from_wire(_field(result, "structured_content", "structuredContent"))
    if outcome is not None:
        return outcome
    return _from_text("\n".join(texts))
