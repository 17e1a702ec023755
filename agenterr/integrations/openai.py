"""OpenAI tool results from an Outcome: the Chat Completions ``tool`` message and the
Responses ``function_call_output`` item.

Both are plain dicts, so nothing here imports the ``openai`` package; append them to the
conversation you send. The text is :func:`tool_result_text`: the value on success; on
failure the directive for its class, the hint's reason and the API's words quoted as data::

    from agenterr.integrations.openai import chat_tool_message, function_call_output

    outcome = get_order(**arguments)  # a @classified_tool in Outcome mode
    messages.append(  # Chat Completions
        chat_tool_message(outcome, tool_call.id, tool="get_order", arguments=arguments)
    )
    input_items.append(function_call_output(outcome, item.call_id))  # Responses
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import Outcome, tool_result_text

__all__ = ["chat_tool_message", "function_call_output", "tool_result_text"]


def chat_tool_message(
    outcome: Outcome[Any],
    tool_call_id: str,
    *,
    tool: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A Chat Completions ``{"role": "tool", ...}`` message answering ``tool_call_id``.

    ``tool_call_id`` is the ``id`` of the assistant message's ``tool_calls`` entry. This
    message has no error flag: the text's directive tells the model that the call failed.
    Pass the call's ``tool`` name and parsed ``arguments`` and a failure's text names the
    tool and the argument the API objected to (see :func:`tool_result_text`).
    """
    text = tool_result_text(outcome, tool=tool, arguments=arguments)
    return {"role": "tool", "tool_call_id": tool_call_id, "content": text}


def function_call_output(
    outcome: Outcome[Any],
    call_id: str,
    *,
    tool: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A Responses API ``function_call_output`` input item answering ``call_id``.

    ``call_id`` is the ``call_id`` of the model's ``function_call`` output item (not its
    ``id``). As in Chat Completions, the text alone marks a failure; ``tool`` and
    ``arguments`` are as for :func:`chat_tool_message`.
    """
    text = tool_result_text(outcome, tool=tool, arguments=arguments)
    return {"type": "function_call_output", "call_id": call_id, "output": text}
