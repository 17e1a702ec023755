"""Pydantic AI: a self-correctable failure becomes a ``ModelRetry``; the rest propagate.

Pydantic AI answers a tool that raises ``ModelRetry`` with a retry prompt to the model,
within the tool's retry budget, and lets any other exception end the run. :func:`model_retry`
adapts a ``@classified_tool`` to that: a self-correctable failure (bad arguments, an unknown
id) goes back to the model with :func:`agenterr.tool_result_text` (the directive, the hint's
reason, the quoted API text) as the retry prompt, while transient, auth and unclassified
failures leave ``agent.run`` as the typed error for the orchestrator to retry or escalate::

    from pydantic_ai import Agent
    from agenterr import classified_tool
    from agenterr.integrations.pydantic_ai import model_retry

    agent = Agent("openai:gpt-5")


    @agent.tool_plain
    @model_retry
    @classified_tool
    def get_order(order_id: str) -> dict: ...

Install with ``pip install ".[pydantic-ai]"`` in a clone of agenterr (it is not on a
package index).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar, overload

from .. import Outcome
from .._adapter import call_arguments, tool_name, wrap_tool
from ..errors import SelfCorrectableToolError
from ._require import require
from .openai import tool_result_text

require("pydantic_ai", "pydantic-ai")

from pydantic_ai import ModelRetry, RunContext  # noqa: E402

__all__ = ["model_retry"]

P = ParamSpec("P")
T = TypeVar("T")


@overload
def model_retry(
    fn: Callable[P, Coroutine[Any, Any, Outcome[T]]], /
) -> Callable[P, Coroutine[Any, Any, T]]: ...
@overload
def model_retry(fn: Callable[P, Outcome[T]], /) -> Callable[P, T]: ...
@overload
def model_retry(fn: Callable[P, T], /) -> Callable[P, T]: ...
def model_retry(fn: Any, /) -> Any:
    """Adapt a ``@classified_tool`` (Outcome or raises mode, sync or async) to Pydantic AI.

    On success the tool returns its value (an ok Outcome is unwrapped). A failed
    self-correctable Outcome, or a raised :class:`~agenterr.SelfCorrectableToolError`,
    raises ``ModelRetry`` with :func:`agenterr.tool_result_text`, chained from the typed
    error. Any other failed Outcome raises its typed error
    (:class:`~agenterr.TransientToolError`, :class:`~agenterr.AuthToolError`,
    :class:`~agenterr.IndeterminateToolError`), and every other exception passes through
    untouched. A ``ModelRetry``, ``ToolFailed``, ``CallDeferred`` or ``ApprovalRequired``
    the tool raises itself is not a failure to classify: ``@classified_tool`` lets it
    through, and Pydantic AI handles it as usual.

    The adapted tool keeps the function's signature, name, docstring, annotations and
    coroutine-ness, so Pydantic AI builds the same tool schema; a ``RunContext`` first
    parameter works as usual. Generator functions are refused: they are not tools.
    """
    return wrap_tool(fn, _call, _call_async, adapter="model_retry")


def _settle(result: Any) -> Any:
    """The value of a returned Outcome, or its typed error; any other result as it is."""
    return result.unwrap() if isinstance(result, Outcome) else result


def _retry(wrapped: Any, args: Any, kwargs: Any, error: SelfCorrectableToolError) -> ModelRetry:
    """The ``ModelRetry`` whose text names the tool and the argument the API objected to."""
    arguments = call_arguments(wrapped, args, kwargs)
    return ModelRetry(
        tool_result_text(error.outcome, tool=_tool(wrapped, args), arguments=arguments)
    )


def _tool(wrapped: Any, args: Any) -> str | None:
    # A tool registered under another name than its function's reads it from its context.
    if args and isinstance(args[0], RunContext) and isinstance(args[0].tool_name, str):
        return args[0].tool_name
    return tool_name(wrapped)


def _call(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    try:
        return _settle(wrapped(*args, **kwargs))
    except SelfCorrectableToolError as exc:
        raise _retry(wrapped, args, kwargs, exc) from exc


def _call_async(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    async def call() -> Any:
        try:
            return _settle(await wrapped(*args, **kwargs))
        except SelfCorrectableToolError as exc:
            raise _retry(wrapped, args, kwargs, exc) from exc

    return call()
