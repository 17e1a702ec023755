"""OpenAI tool results from an Outcome: Chat Completions ``tool`` messages and Responses
``function_call_output`` items, checked against the openai SDK's own types and sent through
the real client (the network is an ``httpx.MockTransport``)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, get_type_hints

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolMessageParam
from openai.types.responses import ResponseInputItemParam
from openai.types.responses.response_input_param import FunctionCallOutput
from pydantic import BaseModel, TypeAdapter

import agenterr
from agenterr import Code, Outcome
from agenterr._hints import split_quote
from agenterr._tool_result import MODEL_TEXT
from agenterr.integrations.openai import (
    chat_tool_message,
    function_call_output,
    tool_result_text,
)

pytestmark = pytest.mark.external


@functools.cache  # building an adapter for the SDK's large unions takes most of a second
def adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


EXAMPLES = Path(__file__).parent.parent / "examples"

OUTCOMES: dict[str, Outcome[Any]] = {
    "success": Outcome.success({"order_id": "A-1001", "status": "shipped"}),
    "self_correctable": agenterr.from_status(422, '{"error":"quantity must be at least 1"}'),
    "transient": agenterr.from_status(429, "", headers={"Retry-After": "2"}),
    "auth": agenterr.from_status(401, '{"error":"token expired"}'),
    "unknown": agenterr.from_status(302, "moved"),
}


def assert_typed_dict(tp: Any, value: dict[str, Any]) -> None:
    """``value`` validates strictly as the SDK's TypedDict and has no key the type lacks."""
    adapter(tp).validate_python(value, strict=True)
    assert set(value) <= set(get_type_hints(tp)), (set(value), tp)


# --- the text ----------------------------------------------------------------------------


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
    assert text == agenterr.tool_result_text(outcome)
    assert text.splitlines()[0].startswith(DIRECTIVE[outcome.code.class_.value])
    guidance, quote = split_quote(outcome.llm_hint)
    # The reason shows only for the codes whose text keeps it (SPEC 6.8).
    assert (f"\nWhy: {guidance}\n" in text) is MODEL_TEXT[outcome.code].why
    assert quote in text
    assert text != outcome.llm_hint


def test_the_text_is_agenterrs() -> None:
    """The integration re-exports the core function: one text for every integration."""
    assert tool_result_text is agenterr.tool_result_text


@pytest.mark.parametrize("name", [n for n in OUTCOMES if n != "success"])
def test_failure_text_is_the_hint(name: str) -> None:
    """A failure reads as its directive, its hint's reason and the API's quoted words."""
    outcome = OUTCOMES[name]
    assert outcome.llm_hint
    assert_failure_text(tool_result_text(outcome), outcome)


def test_failure_without_a_hint_gets_the_codes_standard_hint() -> None:
    """An outcome read from wire JSON without llm_hint still tells the model something."""
    outcome = Outcome.from_dict({"ok": False, "code": "RATE_LIMITED", "status": 429})
    assert outcome.llm_hint == ""
    text = tool_result_text(outcome)
    assert text == tool_result_text(Outcome.failure("RATE_LIMITED", status=429))
    assert text.startswith(DIRECTIVE["transient"])
    assert "the API is rate-limiting calls" in text.splitlines()[0]
    assert "(HTTP 429)" in text


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Line:
    sku: str
    shipped: datetime.date


class Order(BaseModel):
    id: uuid.UUID
    lines: list[Line]


ORDER_ID = uuid.UUID("12345678-1234-5678-1234-567812345678")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("already text", "already text"),
        ("", ""),
        (Path("a/b"), "a/b"),
        (None, "null"),
        (0, "0"),
        (True, "true"),
        ([1, "a"], '[1,"a"]'),
        ({"city": "Zürich", "temp": 4.5}, '{"city":"Zürich","temp":4.5}'),
        ("Zürich".encode(), "Zürich"),
        (b"\xff\xfeok", "\ufffd\ufffdok"),
        (bytearray(b"raw"), "raw"),
        (datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.UTC), "2024-05-01T12:30:00+00:00"),
        ({"on": datetime.date(2024, 5, 1)}, '{"on":"2024-05-01"}'),
        (Colour.RED, "red"),
        (Code.NOT_FOUND, "NOT_FOUND"),
        (ORDER_ID, str(ORDER_ID)),
        (frozenset({3}), "[3]"),
        ({"id": ORDER_ID}, f'{{"id":"{ORDER_ID}"}}'),
        (Line("X1", datetime.date(2024, 1, 2)), '{"sku":"X1","shipped":"2024-01-02"}'),
        (
            Order(id=ORDER_ID, lines=[Line("X1", datetime.date(2024, 1, 2))]),
            f'{{"id":"{ORDER_ID}","lines":[{{"sku":"X1","shipped":"2024-01-02"}}]}}',
        ),
    ],
)
def test_success_text(value: object, text: str) -> None:
    """str as is, bytes decoded, everything else compact JSON with non-JSON values converted."""
    assert tool_result_text(Outcome.success(value)) == text


def test_success_text_never_raises() -> None:
    """A value JSON cannot encode even after conversion falls back to its str or its type."""

    class Loud:
        def __str__(self) -> str:
            raise RuntimeError("no str")

    cycle: list[Any] = []
    cycle.append(cycle)
    assert tool_result_text(Outcome.success(cycle)) == "[[...]]"
    assert tool_result_text(Outcome.success(Loud())) == "<Loud object>"
    assert tool_result_text(Outcome.success({"x": Loud()})) == '{"x":"<Loud object>"}'


# --- the envelopes -----------------------------------------------------------------------


@pytest.mark.parametrize("name", OUTCOMES)
def test_chat_tool_message_is_the_sdks_type(name: str) -> None:
    """The message validates as ChatCompletionToolMessageParam and as a chat message."""
    outcome = OUTCOMES[name]
    message = chat_tool_message(outcome, "call_abc123")
    assert message == {
        "role": "tool",
        "tool_call_id": "call_abc123",
        "content": tool_result_text(outcome),
    }
    assert_typed_dict(ChatCompletionToolMessageParam, message)
    adapter(ChatCompletionMessageParam).validate_python(message)


@pytest.mark.parametrize("name", OUTCOMES)
def test_function_call_output_is_the_sdks_type(name: str) -> None:
    """The item validates as FunctionCallOutput and as a Responses input item."""
    outcome = OUTCOMES[name]
    item = function_call_output(outcome, "call_abc123")
    assert item == {
        "type": "function_call_output",
        "call_id": "call_abc123",
        "output": tool_result_text(outcome),
    }
    assert_typed_dict(FunctionCallOutput, item)
    adapter(ResponseInputItemParam).validate_python(item)


def _client(captured: list[dict[str, Any]], reply: dict[str, Any]) -> openai.OpenAI:
    def handler(request: httpx.Request) -> httpx.Response:
        captured.append(json.loads(request.content))
        return httpx.Response(200, json=reply)

    return openai.OpenAI(
        api_key="sk-test",
        base_url="https://api.test/v1",
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )


def test_chat_completions_client_sends_the_message() -> None:
    """The real client accepts the message and sends it unchanged."""
    failed = OUTCOMES["self_correctable"]
    message = chat_tool_message(failed, "call_1")
    captured: list[dict[str, Any]] = []
    reply = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Which quantity?"},
            }
        ],
    }
    with _client(captured, reply) as client:
        completion = client.chat.completions.create(
            model="gpt-test",
            messages=[
                {"role": "user", "content": "order 0 widgets"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "order", "arguments": '{"quantity":0}'},
                        }
                    ],
                },
                chat_tool_message(failed, "call_1"),
            ],
        )
    assert completion.choices[0].message.content == "Which quantity?"
    (body,) = captured
    assert body["messages"][-1] == message
    assert_failure_text(body["messages"][-1]["content"], failed)


def test_responses_client_sends_the_item() -> None:
    """The real client accepts the item as Responses input and sends it unchanged."""
    failed = OUTCOMES["transient"]
    item = function_call_output(failed, "call_1")
    captured: list[dict[str, Any]] = []
    reply = {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "status": "completed",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    with _client(captured, reply) as client:
        response = client.responses.create(
            model="gpt-test",
            input=[
                {
                    "type": "function_call",
                    "call_id": "call_1",
                    "name": "order",
                    "arguments": '{"quantity":2}',
                },
                function_call_output(failed, "call_1"),
            ],
        )
    assert response.id == "resp_1"
    (body,) = captured
    assert body["input"][-1] == item
    assert_failure_text(body["input"][-1]["output"], failed)


def test_importing_the_wire_modules_imports_no_sdk() -> None:
    """The builders are plain dicts: neither the openai nor the anthropic SDK is imported."""
    code = (
        "import sys\n"
        "import agenterr.integrations.openai, agenterr.integrations.anthropic\n"
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


# --- the example -------------------------------------------------------------------------


def test_tool_result_messages_example_uses_the_builders() -> None:
    """The example prints, per outcome, the three envelopes built by these functions."""
    result = subprocess.run(
        [sys.executable, "-W", "error", str(EXAMPLES / "tool_result_messages.py")],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=True,
    )
    messages = json.loads(result.stdout)
    expected = {
        "success": Outcome.success({"order_id": "A-1001", "status": "shipped"}),
        "self_correctable": OUTCOMES["self_correctable"],
        "transient_not_retried": OUTCOMES["transient"],
        "auth": OUTCOMES["auth"],
    }
    assert set(messages) == set(expected)
    for name, outcome in expected.items():
        assert messages[name]["openai_chat"] == chat_tool_message(outcome, "call_abc123")
        assert messages[name]["openai_responses"] == function_call_output(outcome, "call_abc123")
        block = messages[name]["anthropic"]
        assert block["tool_use_id"] == "toolu_01A2B3"
        assert block["content"] == tool_result_text(outcome)
        assert block.get("is_error", False) is outcome.failed


@pytest.mark.parametrize("build", [chat_tool_message, function_call_output])
def test_the_call_is_named_when_given(build: Any) -> None:
    """``tool`` and ``arguments`` make the text name the tool and the rejected argument."""
    outcome = agenterr.from_status(422, '{"error": "quantity must be at least 1"}')
    arguments = {"sku": "A-1", "quantity": 0}
    item = build(outcome, "call_1", tool="add_item", arguments=arguments)
    (text,) = (v for k, v in item.items() if k in ("content", "output"))
    assert text == tool_result_text(outcome, tool="add_item", arguments=arguments)
    assert text.startswith("FIX YOUR ARGUMENTS: the API rejected `quantity` (0)")
    assert "`add_item`" in text
    assert build(outcome, "call_1") == build(outcome, "call_1", tool=None, arguments=None)
