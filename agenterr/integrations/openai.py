"""OpenAI tool results from an Outcome: the Chat Completions ``tool`` message and the
Responses ``function_call_output`` item.

Both are plain dicts, so nothing here imports the ``openai`` package; append them to the
conversation you send. The text is :func:`tool_result_text`: the value on success, the
hint on failure::

    from agenterr.integrations.openai import chat_tool_message, function_call_output

    outcome = get_order(**arguments)  # a @classified_tool in Outcome mode
    messages.append(chat_tool_message(outcome, tool_call.id))  # Chat Completions
    input_items.append(function_call_output(outcome, item.call_id))  # Responses
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from typing import Any

from .. import Outcome

__all__ = ["chat_tool_message", "function_call_output", "tool_result_text"]

_JSON_TYPES = (dict, list, tuple, int, float, type(None))


def tool_result_text(outcome: Outcome[Any]) -> str:
    """What the model reads about one tool call: the value on success, the hint on failure.

    A ``str`` value is sent as it is; ``bytes`` are decoded as UTF-8 (invalid sequences
    replaced); anything else becomes compact JSON, ``None`` included (``null``: the call
    worked and returned nothing). Values JSON cannot encode are converted on the way:
    dates and times to ISO 8601, dataclasses and pydantic models to objects, sets to
    lists, enums to their values, and anything else to ``str(value)``; a value that
    converts to a string (a date, a UUID) is sent as that string, unquoted, like a str.

    A failure is its ``llm_hint`` alone, or the code's standard hint if the outcome has
    none: the hint is written for the model, while the code, class and status are for the
    orchestrator, which has the Outcome itself. Never raises.
    """
    if outcome.code is not None:
        if outcome.llm_hint:
            return outcome.llm_hint
        return Outcome.failure(
            outcome.code, status=outcome.status, retry_after=outcome.retry_after
        ).llm_hint
    value = outcome.value
    if isinstance(value, str):
        return str.__str__(value)  # an exact str, even from a subclass (a StrEnum member)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    try:
        if not isinstance(value, _JSON_TYPES):
            value = _jsonable(value)
            if isinstance(value, str):  # a date, a UUID...: bare, like a str value
                return value
        # Compact and not ASCII-escaped: every byte the model reads is a token.
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_jsonable)
    except Exception:  # a cycle, or a value whose conversion raised
        return _text(value)


def chat_tool_message(outcome: Outcome[Any], tool_call_id: str) -> dict[str, Any]:
    """A Chat Completions ``{"role": "tool", ...}`` message answering ``tool_call_id``.

    ``tool_call_id`` is the ``id`` of the assistant message's ``tool_calls`` entry. This
    message has no error flag: the hint itself tells the model that the call failed.
    """
    return {"role": "tool", "tool_call_id": tool_call_id, "content": tool_result_text(outcome)}


def function_call_output(outcome: Outcome[Any], call_id: str) -> dict[str, Any]:
    """A Responses API ``function_call_output`` input item answering ``call_id``.

    ``call_id`` is the ``call_id`` of the model's ``function_call`` output item (not its
    ``id``). As in Chat Completions, the hint alone marks a failure.
    """
    return {"type": "function_call_output", "call_id": call_id, "output": tool_result_text(outcome)}


def _jsonable(value: Any) -> Any:
    """``json.dumps``'s ``default``: a JSON-encodable stand-in for ``value``."""
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset)):
        return list(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # Shallow: json.dumps calls back here for any field it cannot encode itself.
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    model_dump = getattr(value, "model_dump", None)  # pydantic v2 models, without importing it
    if callable(model_dump) and not isinstance(value, type):
        return model_dump(mode="json")
    return _text(value)


def _text(value: object) -> str:
    try:
        return str(value)
    except Exception:  # a __str__ that raises: the type is still worth telling the model
        return f"<{type(value).__name__} object>"
