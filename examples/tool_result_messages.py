"""From an Outcome to the tool-result message the model reads next.

Needs no extra: the standard library and agenterr only.

Whatever the provider, the model learns how its tool call went from one message: the
value when the call worked, and agenterr's `llm_hint` when it failed. The hint is written
for the model: it says what to fix, or, for a rate limit, an outage or an expired token,
that the arguments were fine and must not be changed.

agenterr.integrations.openai and agenterr.integrations.anthropic build the three shapes as
plain dicts, ready to append to the conversation:

- OpenAI Chat Completions: {"role": "tool", "tool_call_id": ..., "content": ...}
- OpenAI Responses API:    {"type": "function_call_output", "call_id": ..., "output": ...}
- Anthropic Messages:      {"type": "tool_result", "tool_use_id": ..., "content": ...,
                            "is_error": true}  (inside a "user" message)

Runs offline: no SDK is imported or called. Prints every message as JSON.
"""

from __future__ import annotations

import json
from typing import Any

import agenterr
from agenterr import Outcome
from agenterr.integrations.anthropic import tool_result_block
from agenterr.integrations.openai import chat_tool_message, function_call_output


def main() -> None:
    # Outcomes as a tool or `@classified_tool` would produce them.
    scenarios: dict[str, Outcome[Any]] = {
        "success": Outcome.success({"order_id": "A-1001", "status": "shipped"}),
        "self_correctable": agenterr.from_status(422, '{"error":"quantity must be at least 1"}'),
        # Nothing retried this one: its hint tells the model to call again after 2 seconds.
        "transient_not_retried": agenterr.from_status(429, "", headers={"Retry-After": "2"}),
        "auth": agenterr.from_status(401, '{"error":"token expired"}'),
    }
    # The ids come from the model's tool call: tool_calls[i].id (Chat Completions), the
    # function_call item's call_id (Responses), the tool_use block's id (Anthropic).
    messages = {
        name: {
            "openai_chat": chat_tool_message(outcome, "call_abc123"),
            "openai_responses": function_call_output(outcome, "call_abc123"),
            "anthropic": tool_result_block(outcome, "toolu_01A2B3"),
        }
        for name, outcome in scenarios.items()
    }
    print(json.dumps(messages, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
