"""From an Outcome to the tool-result message the model reads next.

Whatever the provider, the model learns how its tool call went from one message: the
value as JSON when the call worked, and agenterr's `llm_hint` when it failed. The hint is
written for the model: it says what to fix, or, for a rate limit, an outage or an expired
token, that the arguments were fine and must not be changed.

The three shapes built here are plain dicts, ready to append to the conversation:

- OpenAI Chat Completions: {"role": "tool", "tool_call_id": ..., "content": ...}
- OpenAI Responses API:    {"type": "function_call_output", "call_id": ..., "output": ...}
- Anthropic Messages:      {"type": "tool_result", "tool_use_id": ..., "content": ...,
                            "is_error": true}  (inside a "user" message)

Runs offline, standard library only: no SDK is called. Prints every message as JSON.
"""

from __future__ import annotations

import json
from typing import Any

import agenterr
from agenterr import Outcome


def tool_result_text(outcome: Outcome[Any], *, retried: bool = False) -> str:
    """What the model reads: the value on success, the hint on failure.

    ``retried`` says whether the orchestrator already retried a transient failure. If it
    did not, the model is the one who can try again, so the text says it may; if it did
    and gave up, the hint alone stands (it still tells the model not to change anything).
    """
    if outcome.ok:
        # Compact JSON, since every byte is a token; default=str covers dates, UUIDs, ...
        return json.dumps(outcome.value, separators=(",", ":"), default=str)
    text = outcome.llm_hint
    if outcome.retryable and not retried:
        text += " (Nothing retried this call automatically: you may call the tool again.)"
    return text


def openai_chat_message(
    call_id: str, outcome: Outcome[Any], retried: bool = False
) -> dict[str, Any]:
    """Chat Completions: a "tool" message answering the assistant's tool_calls[i].id.

    The API has no error flag here: the content alone tells the model that it failed.
    """
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "content": tool_result_text(outcome, retried=retried),
    }


def openai_responses_item(
    call_id: str, outcome: Outcome[Any], retried: bool = False
) -> dict[str, Any]:
    """Responses API: an input item answering the function_call item with this call_id."""
    return {
        "type": "function_call_output",
        "call_id": call_id,
        "output": tool_result_text(outcome, retried=retried),
    }


def anthropic_tool_result(
    tool_use_id: str, outcome: Outcome[Any], retried: bool = False
) -> dict[str, Any]:
    """Anthropic Messages: a content block of the next "user" message.

    `is_error` marks the failure for the model; it is left out on success (the default).
    """
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": tool_result_text(outcome, retried=retried),
    }
    if outcome.failed:
        block["is_error"] = True
    return block


def main() -> None:
    # Outcomes as a tool or `@classified_tool` would produce them.
    scenarios: dict[str, Outcome[Any]] = {
        "success": Outcome.success({"order_id": "A-1001", "status": "shipped"}),
        "self_correctable": agenterr.from_status(422, '{"error":"quantity must be at least 1"}'),
        "transient_not_retried": agenterr.from_status(429, "", headers={"Retry-After": "2"}),
        "auth": agenterr.from_status(401, '{"error":"token expired"}'),
    }
    # The ids come from the model's tool call: tool_calls[i].id (Chat Completions), the
    # function_call item's call_id (Responses), the tool_use block's id (Anthropic).
    messages = {
        name: {
            "openai_chat": openai_chat_message("call_abc123", outcome),
            "openai_responses": openai_responses_item("call_abc123", outcome),
            "anthropic": anthropic_tool_result("toolu_01A2B3", outcome),
        }
        for name, outcome in scenarios.items()
    }
    print(json.dumps(messages, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
