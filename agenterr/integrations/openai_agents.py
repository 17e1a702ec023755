"""OpenAI Agents SDK: the model reads agenterr's model text when a function tool fails.

The SDK catches a function tool's exception and sends the model whatever the tool's
``failure_error_function`` returns; its default is a fixed "An error occurred while running
the tool". :func:`failure_error_function` returns :func:`agenterr.tool_result_text` instead
(the directive, the hint's reason, the quoted API text), so the model learns whether to fix
its arguments, call again unchanged, or stop and report. Register the tool in raises mode,
or adapt an Outcome-mode tool with :func:`unwrap_outcome`::

    from agents import Agent, function_tool
    from agenterr import classified_tool
    from agenterr.integrations.openai_agents import failure_error_function


    @function_tool(failure_error_function=failure_error_function)
    @classified_tool(raises=True)
    def get_order(order_id: str) -> dict: ...


    agent = Agent(name="support", tools=[get_order])

Install with ``pip install ".[openai-agents]"`` in a clone of agenterr (it is not on a
package index).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar, overload

from .. import Failure, Outcome, Success, schema_invalid
from .._adapter import failure_outcome, validation_problems, wrap_tool
from ._require import require
from .openai import tool_result_text

require("agents", "openai-agents")

from agents import RunContextWrapper  # noqa: E402
from agents.exceptions import ModelBehaviorError  # noqa: E402

__all__ = ["failure_error_function", "unwrap_outcome"]

_ARGUMENTS_CAP = 100_000
"""Longest arguments text parsed to name an argument; a longer one is named by none."""

P = ParamSpec("P")
T = TypeVar("T")


def failure_error_function(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model reads when a function tool fails: :func:`agenterr.tool_result_text`.

    Pass it as ``function_tool(..., failure_error_function=failure_error_function)``. Every
    classified failure gets its text, whatever its class: the directive line says to call
    again unchanged, fix the arguments, or stop and report, then the hint's reason and the
    API's words quoted as data. Other exceptions are classified on the spot: arguments the
    SDK could not parse or validate are ``SCHEMA_INVALID`` (listing the problems), HTTP and
    network errors go through :func:`~agenterr.from_error`, and anything else is
    ``UNKNOWN``, whose text does not quote the exception. The text names the tool and,
    from the arguments the model sent (``ctx.tool_arguments``), the one the API objected to.
    """
    tool = getattr(ctx, "tool_name", None)
    return tool_result_text(
        _outcome_of(error),
        tool=tool if isinstance(tool, str) else None,
        arguments=_arguments(getattr(ctx, "tool_arguments", None)),
    )


def _arguments(text: object) -> dict[str, Any] | None:
    """The call's arguments from the JSON the model sent, when they are a JSON object."""
    if not isinstance(text, str) or len(text) > _ARGUMENTS_CAP:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    return value if isinstance(value, dict) else None


# An async tool's type must name the union the decorator returns: given a second overload
# for ``Coroutine[..., Outcome[T]]`` as well, mypy finds the call ambiguous and answers Any.
@overload
def unwrap_outcome(
    fn: Callable[P, Coroutine[Any, Any, Success[T] | Failure]], /
) -> Callable[P, Coroutine[Any, Any, T]]: ...
@overload
def unwrap_outcome(fn: Callable[P, Outcome[T]], /) -> Callable[P, T]: ...
@overload
def unwrap_outcome(fn: Callable[P, T], /) -> Callable[P, T]: ...
def unwrap_outcome(fn: Any, /) -> Any:
    """Adapt an Outcome-mode ``@classified_tool`` so that the SDK can run it.

    The adapted tool returns the value of an ok Outcome and raises the typed error of a
    failed one (chained from the original exception), which the SDK hands to
    :func:`failure_error_function`. It keeps the function's signature, name, docstring,
    annotations and coroutine-ness, so ``function_tool`` builds the same schema.
    Anything that is not an Outcome is returned as it is.
    """
    return wrap_tool(fn, _call, _call_async, adapter="unwrap_outcome")


def _outcome_of(error: BaseException) -> Outcome[Any]:
    if isinstance(error, ModelBehaviorError):
        # The SDK validates the arguments before calling the tool: the model's mistake.
        problems = None if error.__cause__ is None else validation_problems(error.__cause__)
        return schema_invalid(*(problems or [str(error)]))
    return failure_outcome(error)


def _settle(result: Any) -> Any:
    return result.unwrap() if isinstance(result, Outcome) else result


def _call(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    return _settle(wrapped(*args, **kwargs))


def _call_async(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    async def call() -> Any:
        return _settle(await wrapped(*args, **kwargs))

    return call()
