"""OpenAI tool results from an Outcome: the Chat Completions ``tool`` message and the
Responses ``function_call_output`` item.

Both are plain dicts, so nothing here imports the ``openai`` package; append them to the
conversation you send. The text is :func:`tool_result_text`: the value on success; on
failure the directive for its class, the hint's reason and the API's words quoted as data::

    from agenterr.integrations.openai import chat_tool_message, function_call_output

    outcome = get_order(**arguments)  # a @classified_tool in Outcome mode
    messages.append(chat_tool_message(outcome, tool_call.id))  # Chat Completions
    input_items.append(function_call_output(outcome, item.call_id))  # Responses
"""

from __future__ import annotations

from typing import Any

from .. import Outcome, tool_result_text

__all__ = ["chat_tool_message", "function_call_output", "tool_result_text"]


def chat_tool_message(outcome: Outcome[Any], tool_call_id: str) -> dict[str, Any]:
    """A Chat Completions ``{"role": "tool", ...}`` message answering ``tool_call_id``.

    ``tool_call_id`` is the ``id`` of the assistant message's ``tool_calls`` entry. This
    message has no error flag: the text's directive tells the model that the call failed.
    """
    return {"role": "tool", "tool_call_id": tool_call_id, "content": tool_result_text(outcome)}


def function_call_output(outcome: Outcome[Any], call_id: str) -> dict[str, Any]:
    """A Responses API ``function_call_output`` input item answering ``call_id``.

    ``call_id`` is the ``call_id`` of the model's ``function_call`` output item (not its
    ``id``). As in Chat Completions, the text alone marks a failure.
    """
    return {"type": "function_call_output", "call_id": call_id, "output": tool_result_text(outcome)}
