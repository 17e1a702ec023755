"""Each example does what it says: run it as a user would and check the behaviour it shows.

tests/test_examples.py proves every example exits 0; these check the specific claims.
Examples run with ``-W error`` so a deprecation or an unclosed client fails them.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import importlib.util
import inspect
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, get_type_hints

import httpx
import pytest
from mcp.server.mcpserver import MCPServer
from openai.types.chat import ChatCompletionToolMessageParam
from openai.types.responses import ResponseInputItemParam
from openai.types.responses.response_input_param import FunctionCallOutput
from pydantic import TypeAdapter

import agenterr
from agenterr._hints import split_quote
from agenterr._tool_result import MODEL_TEXT

pytestmark = pytest.mark.external

EXAMPLES = Path(__file__).parent.parent / "examples"


@functools.cache  # each example runs once per session, however many tests read it
def run_example(name: str) -> str:
    """The example's stdout; it must exit 0 and leave no warning behind."""
    result = subprocess.run(
        [sys.executable, "-W", "error", str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Exception ignored" not in result.stderr, result.stderr
    assert "Warning" not in result.stderr, result.stderr
    return result.stdout


def load_example(name: str) -> ModuleType:
    """Import an example as a module (its ``main()`` does not run)."""
    spec = importlib.util.spec_from_file_location(f"example_{Path(name).stem}", EXAMPLES / name)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- tenacity_retry.py -------------------------------------------------------------------


def test_tenacity_does_not_retry_not_found() -> None:
    """A 404 is self-correctable: one attempt, the typed error, its hint."""
    out = run_example("tenacity_retry.py")
    xyz = out.split("get_rate('XYZ')")[1]
    assert "  attempt 1: HTTP 404" in xyz
    assert "attempt 2" not in xyz
    assert "retrying" not in xyz
    assert "  not retried: NOT_FOUND class=self_correctable status=404" in xyz
    assert "  hint: The API could not find what this call refers to (HTTP 404)." in xyz
    assert xyz.rstrip().endswith("HTTP requests for XYZ: 1")


# --- async_agent_loop.py -----------------------------------------------------------------


def test_async_agent_loop_branches_on_outcome() -> None:
    """Retried the 429, re-prompted with the hints, escalated the 401, answered correctly."""
    out = run_example("async_agent_loop.py")
    lines = out.splitlines()
    assert lines[0] == (
        "turn 1: model calls c1 get_weather{'town': 'Paris'}, c2 get_weather{'city': 'Oslo'}, "
        "c3 get_order{'order_id': 'ORD-42'}, c4 get_account{}"
    )
    # Transient: retried by the loop after the server's retry-after-ms, never shown to the model.
    assert (
        "    c2 get_weather: RATE_LIMITED class=transient status=429 retry_after=0.15s"
        " -> retrying in 0.15s"
    ) in lines
    assert '    c2 ok: {"city": "Oslo", "temp_c": 4}' in lines
    # Self-correctable: the model got the hints, and its next turn fixes exactly those calls.
    (c1,) = (line for line in lines if line.startswith("    c1 "))
    assert c1.startswith('    c1 re-prompt the model with: "FIX YOUR ARGUMENTS: they do not match')
    assert "unexpected argument 'town'" in c1
    assert "expected parameters: city: str (required)" in c1
    (c3,) = (line for line in lines if line.startswith("    c3 "))
    assert c3.startswith("    c3 re-prompt the model with: 'FIX YOUR ARGUMENTS: a value you sent")
    assert "does not exist (HTTP 404)" in c3
    assert "a tool that lists or finds one" in c3
    assert (
        "turn 2: model calls c5 get_weather{'city': 'Paris'}, c6 find_orders{'customer': 'ada'}"
        in lines
    )
    assert "turn 3: model calls c7 get_order{'order_id': 'A-1001'}" in lines
    # Auth: escalated, not retried and not re-prompted.
    assert "    c4 ESCALATED to a human: UNAUTHORIZED class=auth status=401" in lines
    assert "escalated: ['c4 get_account: UNAUTHORIZED class=auth status=401']" in lines
    assert "answer: Paris is 18°C, Oslo 4°C; order A-1001 has shipped." in lines
    # c1 never reached the API (its arguments did not bind); c2 twice; c3-c7 once each.
    assert any(line.startswith("HTTP requests: 7, ") for line in lines)


# --- tool_result_messages.py -------------------------------------------------------------


def _assert_typed_dict(tp: Any, value: dict[str, Any]) -> None:
    """``value`` validates as the SDK's TypedDict and has no key the type lacks."""
    TypeAdapter(tp).validate_python(value, strict=True)
    assert set(value) <= set(get_type_hints(tp)), (set(value), tp)


def _assert_anthropic_tool_result(block: dict[str, Any]) -> None:
    """The Messages API tool_result block: type, tool_use_id, content, optional is_error."""
    assert set(block) <= {"type", "tool_use_id", "content", "is_error", "cache_control"}
    assert block["type"] == "tool_result"
    assert isinstance(block["tool_use_id"], str)
    assert isinstance(block["content"], str)
    assert isinstance(block.get("is_error", False), bool)
    try:  # the anthropic SDK is not in the test extra: check against it when installed
        sdk = importlib.import_module("anthropic.types")
    except ImportError:
        return
    _assert_typed_dict(sdk.ToolResultBlockParam, block)


def test_tool_result_messages_shapes() -> None:
    """Each message validates against the provider's SDK type; content is value or model
    text."""
    messages = json.loads(run_example("tool_result_messages.py"))
    assert set(messages) == {"success", "self_correctable", "transient_not_retried", "auth"}
    for by_provider in messages.values():
        chat = by_provider["openai_chat"]
        _assert_typed_dict(ChatCompletionToolMessageParam, chat)
        assert chat["role"] == "tool"
        assert chat["tool_call_id"] == "call_abc123"
        item = by_provider["openai_responses"]
        _assert_typed_dict(FunctionCallOutput, item)
        TypeAdapter(ResponseInputItemParam).validate_python(item)
        assert item["type"] == "function_call_output"
        assert item["call_id"] == "call_abc123"
        block = by_provider["anthropic"]
        _assert_anthropic_tool_result(block)
        assert block["tool_use_id"] == "toolu_01A2B3"
        # One text, three envelopes.
        assert chat["content"] == item["output"] == block["content"]


def test_tool_result_messages_content() -> None:
    """The value as JSON on success; exactly tool_result_text on failure: the directive of
    the class first, then the hint's reason and the API's quoted words."""
    messages = json.loads(run_example("tool_result_messages.py"))
    success = messages["success"]["anthropic"]
    assert json.loads(success["content"]) == {"order_id": "A-1001", "status": "shipped"}
    assert "is_error" not in success
    failures = {
        "self_correctable": agenterr.from_status(422, '{"error":"quantity must be at least 1"}'),
        "transient_not_retried": agenterr.from_status(429, "", headers={"Retry-After": "2"}),
        "auth": agenterr.from_status(401, '{"error":"token expired"}'),
    }
    directives = {
        "self_correctable": "FIX YOUR ARGUMENTS:",
        "transient_not_retried": "Call ",
        "auth": "CANNOT CONTINUE:",
    }
    for name, outcome in failures.items():
        block = messages[name]["anthropic"]
        assert block["is_error"] is True
        text = block["content"]
        assert text == agenterr.tool_result_text(outcome)
        assert text.splitlines()[0].startswith(directives[name])
        guidance, quote = split_quote(outcome.llm_hint)
        # The reason shows only for the codes whose text keeps it (SPEC 6.8).
        assert (f"\nWhy: {guidance}\n" in text) is MODEL_TEXT[outcome.code].why
        assert quote in text


# --- mcp_server.py -----------------------------------------------------------------------


def test_mcp_server_schema_is_the_bare_functions() -> None:
    """The listed input schema is what MCPServer builds from the undecorated function."""
    out = run_example("mcp_server.py")
    (schema_line,) = (line for line in out.splitlines() if "input schema:" in line)
    listed = json.loads(schema_line.split("input schema: ", 1)[1])

    module = load_example("mcp_server.py")

    async def bare_tool() -> Any:
        try:
            bare_server = MCPServer("bare")
            bare_server.tool()(inspect.unwrap(module.get_order))  # under both decorators
            (tool,) = await bare_server.list_tools()
            (decorated,) = await module.server.list_tools()
            assert decorated.output_schema == tool.output_schema
            return tool
        finally:
            await module.api.aclose()

    bare = asyncio.run(bare_tool())
    assert inspect.unwrap(module.get_order) is not module.get_order
    assert listed == bare.input_schema
    assert listed["required"] == ["order_id"]
    assert "tool get_order: Look up an order by its id" in out


def test_mcp_server_failure_is_a_tool_error_with_the_hint() -> None:
    """The 404 comes back as an is_error result whose text is agenterr's model text."""
    out = run_example("mcp_server.py")
    found, missing = out.split("get_order(o-9999)")
    assert "get_order(o-1001) is_error=False" in found
    assert '  structured: {"id": "o-1001", "status": "shipped", "total_cents": 4200}' in found
    assert missing.startswith(" is_error=True")
    text = agenterr.tool_result_text(
        agenterr.from_response(httpx.Response(404, json={"error": "no order with id o-9999"})),
        tool="get_order",
        arguments={"order_id": "o-9999"},
    )
    # The adapter names the argument the call carried (SPEC 6.8).
    assert '`order_id` ("o-9999")' in text
    assert text.startswith("FIX YOUR ARGUMENTS:")
    # The example prints the text as the model reads it, its lines indented under "text:".
    assert "  text: " + text.replace("\n", "\n        ") in missing
