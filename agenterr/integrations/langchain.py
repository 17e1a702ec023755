"""LangChain: a classified failure is a ``ToolException``, and the model reads its text.

LangChain passes a tool's ``ToolException`` to the tool's ``handle_tool_error`` and sends
what that returns to the model as a ``ToolMessage(status="error")``; any other exception
ends the run. :func:`langchain_tool` builds the tool from a ``@classified_tool`` function
so that both happen: a failure is raised as a ``ToolException`` subclass and
:func:`handle_tool_error` answers it with :func:`agenterr.tool_result_text` (the directive,
the hint's reason, the quoted API text). The argument schema is the undecorated function's::

    from agenterr import classified_tool
    from agenterr.integrations.langchain import langchain_tool


    @langchain_tool
    @classified_tool
    def get_order(order_id: str) -> dict:
        \"\"\"Look up an order by its id.\"\"\"
        ...


    call = {"name": "get_order", "args": {"order_id": "x"}, "id": "c1", "type": "tool_call"}
    get_order.invoke(call)  # ToolMessage(status="error", content="FIX YOUR ARGUMENTS: ...")

The exceptions mirror :mod:`agenterr.errors`; each is both a ``ToolException`` and the
matching agenterr error, so ``except TransientToolError`` and tenacity's
``retry_if_exception_type(TransientToolError)`` catch them as before::

    ToolException, AgentToolError
    └── AgentToolException
        ├── TransientToolException          (also a TransientToolError)
        ├── SelfCorrectableToolException    (also a SelfCorrectableToolError)
        ├── AuthToolException               (also an AuthToolError)
        └── IndeterminateToolException      (also an IndeterminateToolError)

Arguments that fail LangChain's own validation, before the function runs, get the
``SCHEMA_INVALID`` hint from :func:`handle_validation_error`. A plain ``ToolException`` the
function raises itself is not classified: ``@classified_tool`` lets it through, and the
model reads its message, as LangChain intends.

Transient failures get their text too, on purpose. The handler runs once whatever wraps
the function has given up, so retry transient failures inside the tool, where no model
turn is spent — ``langchain_tool(retry(...)(fn))``, tenacity retrying
``TransientToolError`` — and when the retries run out the model reads that its arguments
were fine and the service may answer later. Re-raising from the handler instead would stop
the agent run unless something outside the tool retried it, and LangChain does not report
an exception raised by its handler to the ``on_tool_error`` callbacks.

Outside ``BaseTool.invoke`` (your own loop, a graph node), :func:`tool_message` builds the
``ToolMessage`` for an Outcome directly.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, overload

from .. import Class, Outcome, schema_invalid
from .._adapter import adapt_tool, tool_name, validation_problems
from ..errors import (
    AgentToolError,
    AuthToolError,
    IndeterminateToolError,
    SelfCorrectableToolError,
    TransientToolError,
)
from ._require import require
from .openai import tool_result_text

require("langchain_core", "langchain")

# After require(), so a missing package is reported with the extra to install.
from langchain_core.messages import ToolMessage  # noqa: E402
from langchain_core.tools import StructuredTool, ToolException  # noqa: E402

__all__ = [
    "AgentToolException",
    "AuthToolException",
    "IndeterminateToolException",
    "SelfCorrectableToolException",
    "TransientToolException",
    "handle_tool_error",
    "handle_validation_error",
    "langchain_tool",
    "tool_exception",
    "tool_message",
]


class AgentToolException(ToolException, AgentToolError):
    """A classified tool failure as LangChain's ``ToolException``.

    ``args[0]`` is the model text (:func:`agenterr.tool_result_text`), so even
    ``handle_tool_error=True`` (LangChain's own handler, which answers with ``args[0]``)
    gives the model the same text as every integration.
    """

    def __init__(
        self,
        outcome: Outcome[Any],
        *,
        tool: str | None = None,
        arguments: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(outcome)
        self.args = (tool_result_text(outcome, tool=tool, arguments=arguments),)


class TransientToolException(AgentToolException, TransientToolError):
    """Temporary failure: retry the identical call, honouring ``retry_after``."""


class SelfCorrectableToolException(AgentToolException, SelfCorrectableToolError):
    """The arguments are wrong in a fixable way: the model reads its text and resends."""


class AuthToolException(AgentToolException, AuthToolError):
    """Credentials, permissions or billing: a human or the orchestrator must act."""


class IndeterminateToolException(AgentToolException, IndeterminateToolError):
    """The failure could not be classified: escalate rather than retry blindly."""


_BY_CLASS: dict[Class, type[AgentToolException]] = {
    Class.TRANSIENT: TransientToolException,
    Class.SELF_CORRECTABLE: SelfCorrectableToolException,
    Class.AUTH: AuthToolException,
    Class.INDETERMINATE: IndeterminateToolException,
}


def tool_exception(
    outcome: Outcome[Any],
    *,
    tool: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> AgentToolException:
    """The ``ToolException`` subclass for a failed outcome (``ValueError`` for an ok one).

    Its text names ``tool`` and the argument the API objected to, when they are given.
    """
    if outcome.code is None:
        raise ValueError("tool_exception needs a failed Outcome")
    return _BY_CLASS[outcome.code.class_](outcome, tool=tool, arguments=arguments)


def handle_tool_error(error: ToolException | AgentToolError) -> str:
    """``handle_tool_error=`` for LangChain tools, and ``handle_tool_errors=`` for LangGraph's
    ``ToolNode``: a classified failure's model text.

    Every class gets its :func:`agenterr.tool_result_text`, transient included (see the
    module docstring for why). A ``ToolException`` that agenterr did not raise is answered
    as LangChain's ``handle_tool_error=True`` answers it: its message. ``ToolNode`` reads
    the annotation to choose what it catches: a raises-mode tool's typed errors and any
    ``ToolException``; other exceptions (bugs) propagate, as with its default handler.
    """
    if isinstance(error, AgentToolException):
        return str(error.args[0])  # the text it was raised with, naming the call
    if isinstance(error, AgentToolError):
        return tool_result_text(error.outcome)
    return str(error.args[0]) if error.args else "Tool execution error"


# LangGraph's ToolNode reads the union from the raw annotation (get_origin of the signature's
# annotation, not of the evaluated type hint), which postponed evaluation leaves a string.
handle_tool_error.__annotations__["error"] = ToolException | AgentToolError


def handle_validation_error(error: Exception) -> str:
    """``handle_validation_error=`` for LangChain tools: the ``SCHEMA_INVALID`` model text.

    LangChain validates the model's arguments against the tool's schema before calling it
    and hands the pydantic ``ValidationError`` here; the model reads what to fix, one line
    per location, as for a ``@classified_tool`` whose arguments did not bind.
    """
    return tool_result_text(schema_invalid(*(validation_problems(error) or ())))


def tool_message(
    outcome: Outcome[Any],
    tool_call_id: str,
    *,
    name: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> ToolMessage:
    """The ``ToolMessage`` answering tool call ``tool_call_id`` with this outcome.

    A failure is ``status="error"``, a success ``status="success"``; the content is
    :func:`agenterr.tool_result_text`, as every integration sends it: the value (a string
    as it is, anything else as JSON), or the directive, the hint's reason and the quoted API
    text. ``name`` (the tool's) and the call's ``arguments`` let a failure's text name
    them.
    """
    status = "error" if outcome.failed else "success"
    content = tool_result_text(outcome, tool=name, arguments=arguments)
    return ToolMessage(content=content, tool_call_id=tool_call_id, name=name, status=status)


def _adapt(fn: Callable[..., Any], name: str | None) -> Callable[..., Any]:
    """``fn`` returning the plain value and raising AgentToolExceptions, same signature;
    the exception's text names the tool (``name``) and the argument the API objected to."""

    def failed(
        outcome: Outcome[Any], cause: BaseException | None, arguments: dict[str, Any] | None
    ) -> NoReturn:
        if isinstance(cause, AgentToolException):
            raise cause  # raised by the body as it is: its text is the body's choice
        raise tool_exception(outcome, tool=name, arguments=arguments) from cause

    return adapt_tool(fn, failed)


@overload
def langchain_tool(fn: Callable[..., Any], /, **options: Any) -> StructuredTool: ...
@overload
def langchain_tool(**options: Any) -> Callable[[Callable[..., Any]], StructuredTool]: ...
def langchain_tool(
    fn: Callable[..., Any] | None = None, /, **options: Any
) -> StructuredTool | Callable[[Callable[..., Any]], StructuredTool]:
    """A LangChain ``StructuredTool`` from a ``@classified_tool`` function, sync or async.

    The tool returns the value on success; a failure is raised as the
    :class:`AgentToolException` subclass of its class (chained from the original error),
    which :func:`handle_tool_error` answers with its model text in a
    ``ToolMessage(status="error")``; arguments that fail LangChain's own validation are
    answered by :func:`handle_validation_error`. ``options`` may replace either handler.
    Outcome mode and ``raises=True`` are both accepted; any other exception passes through.

    ``options`` go to ``StructuredTool.from_function`` (``name``, ``description``,
    ``parse_docstring``, ``return_direct``…). The function's signature, name, docstring and
    annotations are kept (``functools.wraps``), so LangChain builds the same argument
    schema as from the undecorated function. Use bare or with options, as a decorator or
    a call.
    """
    if fn is None:
        return functools.partial(_build, options=options)
    return _build(fn, options=options)


def _build(fn: Callable[..., Any], *, options: dict[str, Any]) -> StructuredTool:
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError("langchain_tool: a LangChain tool cannot be a generator function")
    settings = {
        "handle_tool_error": handle_tool_error,
        "handle_validation_error": handle_validation_error,
        **options,
    }
    name = options.get("name")
    adapted = _adapt(fn, name if isinstance(name, str) else tool_name(fn))
    if inspect.iscoroutinefunction(adapted):
        return StructuredTool.from_function(coroutine=adapted, **settings)
    return StructuredTool.from_function(func=adapted, **settings)
