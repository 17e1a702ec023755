"""Anthropic ``tool_result`` blocks from an Outcome, checked against the anthropic SDK's type
and sent through the real client (the network is an ``httpx2.MockTransport``: the SDK uses
httpx2)."""

from __future__ import annotations

import functools
import json
from typing import Any, get_type_hints

import anthropic
import httpx2
import pytest
from anthropic.types import MessageParam, ToolResultBlockParam
from pydantic import TypeAdapter

import agenterr
from agenterr import Outcome, tool_result_text
from agenterr._hints import split_quote
from agenterr._tool_result import MODEL_TEXT
from agenterr.integrations.anthropic import tool_result_block

pytestmark = pytest.mark.external


@functools.cache  # building an adapter for the SDK's large unions takes most of a second
def adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


OUTCOMES: dict[str, Outcome[Any]] = {
    "success": Outcome.success({"order_id": "A-1001", "status": "shipped"}),
    "success_text": Outcome.success("shipped"),
    "success_none": Outcome.success(None),
    "self_correctable": agenterr.from_status(404, '{"error":"no order A-1O01"}'),
    "transient": agenterr.from_status(503, ""),
    "auth": agenterr.from_status(403, '{"error":"missing scope orders:read"}'),
    "unknown": agenterr.from_status(302, "moved"),
}

# The first words of a failure's text, per class (SPEC 6.8).
DIRECTIVE = {
    "transient": "Call ",
    "self_correctable": "FIX YOUR ARGUMENTS:",
    "auth": "CANNOT CONTINUE:",
    "indeterminate": "CANNOT CONTINUE:",
}


def assert_failure_text(text: str, outcome: Outcome[Any]) -> None:
    """``text`` is the model text of the failed ``outcome``: directive, reason, quote."""
    assert outcome.code is not None
    assert text == tool_result_text(outcome)
    assert text.splitlines()[0].startswith(DIRECTIVE[outcome.code.class_.value])
    guidance, quote = split_quote(outcome.llm_hint)
    # The reason shows only for the codes whose text keeps it (SPEC 6.8).
    assert (f"\nWhy: {guidance}\n" in text) is MODEL_TEXT[outcome.code].why
    assert quote in text


@pytest.mark.parametrize("name", OUTCOMES)
def test_tool_result_block_is_the_sdks_type(name: str) -> None:
    """The block validates strictly as ToolResultBlockParam, with no key the type lacks."""
    outcome = OUTCOMES[name]
    block = tool_result_block(outcome, "toolu_01")
    adapter(ToolResultBlockParam).validate_python(block, strict=True)
    assert set(block) <= set(get_type_hints(ToolResultBlockParam))
    adapter(MessageParam).validate_python({"role": "user", "content": [block]})


@pytest.mark.parametrize("name", OUTCOMES)
def test_tool_result_block_content(name: str) -> None:
    """Value or model text as the content; ``is_error`` true on failure, absent on success."""
    outcome = OUTCOMES[name]
    block = tool_result_block(outcome, "toolu_01")
    expected: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": "toolu_01",
        "content": tool_result_text(outcome),
    }
    if outcome.failed:
        expected["is_error"] = True
        assert_failure_text(block["content"], outcome)
    assert block == expected


def test_messages_client_sends_the_block() -> None:
    """The real client accepts the block in a user message and sends it unchanged."""
    failed = OUTCOMES["self_correctable"]
    block = tool_result_block(failed, "toolu_01")
    captured: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        captured.append(json.loads(request.content))
        reply = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [{"type": "text", "text": "Let me look the order up."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        return httpx2.Response(200, json=reply)

    with anthropic.Anthropic(
        api_key="sk-ant-test",
        base_url="https://api.test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    ) as client:
        message = client.messages.create(
            model="claude-test",
            max_tokens=64,
            messages=[
                {"role": "user", "content": "Where is order A-1O01?"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_01",
                            "name": "get_order",
                            "input": {"order_id": "A-1O01"},
                        }
                    ],
                },
                {"role": "user", "content": [block]},
            ],
        )
    assert message.content[0].type == "text"
    (body,) = captured
    assert body["messages"][-1] == {"role": "user", "content": [block]}
    assert body["messages"][-1]["content"][0]["is_error"] is True
    assert_failure_text(body["messages"][-1]["content"][0]["content"], failed)


def test_the_call_is_named_when_given() -> None:
    """The block's ``name`` and ``input`` make the text name the tool and the argument."""
    outcome = agenterr.from_status(422, '{"error": "quantity must be at least 1"}')
    arguments = {"sku": "A-1", "quantity": 0}
    block = tool_result_block(outcome, "toolu_1", tool="add_item", arguments=arguments)
    assert block["content"] == tool_result_text(outcome, tool="add_item", arguments=arguments)
    assert block["content"].startswith("FIX YOUR ARGUMENTS: the API rejected `quantity` (0)")
    assert "`add_item`" in block["content"]
    assert block["is_error"] is True
