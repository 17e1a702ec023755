"""agenterr.integrations.mcp against the real mcp 2.x: MCPServer, and the in-memory Client.

A failing tool's result, as the client receives it, carries the hint as its text and the
Outcome as structured content; the client classifies it back to the same Outcome.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ImageContent, TextContent
from pydantic import BaseModel

import agenterr
from agenterr import Code, Outcome, classified_tool
from agenterr.integrations import mcp as agenterr_mcp
from agenterr.integrations.mcp import for_mcp, from_call_tool_result, to_call_tool_result

# --- a tool against a fake orders API ----------------------------------------------------


class Order(BaseModel):
    id: str
    status: str


def orders_api(request: httpx.Request) -> httpx.Response:
    order_id = request.url.path.rsplit("/", 1)[-1]
    if order_id == "o-1":
        return httpx.Response(200, json={"id": order_id, "status": "shipped"})
    if order_id == "o-429":
        return httpx.Response(429, headers={"Retry-After": "7"}, json={"error": "slow down"})
    if order_id == "o-401":
        return httpx.Response(401, json={"error": "token expired"})
    if order_id == "o-503":
        return httpx.Response(503, text="<html>maintenance</html>")
    return httpx.Response(404, json={"error": f"no order with id {order_id}"})


def fetch(order_id: str) -> httpx.Response:
    with httpx.Client(transport=httpx.MockTransport(orders_api)) as client:
        return client.get(f"https://orders.test/orders/{order_id}")


def get_order(order_id: str, verbose: bool = False) -> Order:
    """Look up an order by its id."""
    response = fetch(order_id)
    response.raise_for_status()
    return Order.model_validate(response.json())


async def aget_order(order_id: str, verbose: bool = False) -> Order:
    """Look up an order by its id."""
    await asyncio.sleep(0)
    return get_order(order_id, verbose)


FUNCTIONS = {"sync": get_order, "async": aget_order}
MODES = {"outcome": classified_tool, "raises": classified_tool(raises=True)}
VARIANTS = [
    pytest.param(fn, mode, id=f"{kind}-{name}")
    for kind, fn in FUNCTIONS.items()
    for name, mode in MODES.items()
]
FAILING = ["o-404", "o-429", "o-401", "o-503"]


def server_with(*functions: Any) -> MCPServer:
    server = MCPServer("orders")
    for function in functions:
        server.tool()(function)
    return server


async def call_remote(server: MCPServer, name: str, arguments: dict[str, Any]) -> CallToolResult:
    """Call a tool through the in-memory MCP client, as a host would."""
    async with Client(server) as client:
        return await client.call_tool(name, arguments)


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


# --- the module ------------------------------------------------------------------------


def test_missing_mcp_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without mcp, importing the integration says which extra to install."""
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.delitem(sys.modules, "agenterr.integrations.mcp")
    with pytest.raises(ImportError, match=r"agenterr\[mcp\]"):
        importlib.import_module("agenterr.integrations.mcp")


def test_all_is_the_public_names() -> None:
    """__all__ lists exactly the module's public names."""
    public = {
        name
        for name, value in vars(agenterr_mcp).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == agenterr_mcp.__name__
    }
    assert set(agenterr_mcp.__all__) == public


# --- to_call_tool_result ---------------------------------------------------------------


@pytest.mark.parametrize("order_id", FAILING)
def test_failure_result(order_id: str) -> None:
    """is_error, the hint as the only text, the wire form as structured content."""
    outcome = agenterr.from_response(fetch(order_id))
    result = to_call_tool_result(outcome)
    assert isinstance(result, CallToolResult)
    assert result.is_error is True
    assert result.content == [TextContent(type="text", text=outcome.llm_hint)]
    assert result.structured_content == outcome.to_dict()
    dumped = result.model_dump(by_alias=True, exclude_none=True)
    assert dumped["isError"] is True
    assert dumped["structuredContent"]["code"] == outcome.code


@pytest.mark.parametrize(
    ("value", "text", "structured"),
    [
        ({"id": "o-1"}, '{"id":"o-1"}', {"id": "o-1"}),
        ("shipped", "shipped", None),
        ([1, 2], "[1,2]", None),
    ],
)
def test_success_result(value: Any, text: str, structured: Any) -> None:
    """The value as text; a dict also as structured content."""
    result = to_call_tool_result(Outcome.success(value))
    assert result.is_error is False
    assert texts(result) == [text]
    assert result.structured_content == structured
    assert from_call_tool_result(result).value == (structured if structured else text)


# --- for_mcp on MCPServer --------------------------------------------------------------


@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
def test_schemas_are_the_bare_functions(fn: Any, mode: Any) -> None:
    """MCPServer lists the same name, description, input and output schemas."""

    async def listed(function: Any) -> Any:
        (only,) = await server_with(function).list_tools()
        return only

    bare, adapted = asyncio.run(listed(fn)), asyncio.run(listed(for_mcp(mode(fn))))
    assert adapted.name == bare.name
    assert adapted.description == bare.description
    assert adapted.input_schema == bare.input_schema
    assert adapted.output_schema == bare.output_schema
    assert bare.output_schema is not None  # Order: checked on success, not on an error result


@pytest.mark.asyncio
@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
@pytest.mark.parametrize("order_id", FAILING)
async def test_failure_round_trip(fn: Any, mode: Any, order_id: str) -> None:
    """End to end: the client gets is_error with the hint and reads back the same Outcome."""
    tool = for_mcp(mode(fn))
    result = await call_remote(server_with(tool), fn.__name__, {"order_id": order_id})
    want = agenterr.from_response(fetch(order_id))
    assert result.is_error is True
    assert texts(result) == [want.llm_hint]
    assert result.structured_content == want.to_dict()
    outcome = from_call_tool_result(result)
    assert outcome == want  # code, hint, status and Retry-After
    assert outcome.retry_after == (7.0 if order_id == "o-429" else None)


@pytest.mark.asyncio
@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
async def test_success_is_the_normal_result(fn: Any, mode: Any) -> None:
    """On success MCPServer builds its usual result from the value, structured output too."""
    server = server_with(for_mcp(mode(fn)))
    result = await call_remote(server, fn.__name__, {"order_id": "o-1"})
    assert result.is_error is False
    bare = await call_remote(server_with(fn), fn.__name__, {"order_id": "o-1"})
    assert result.content == bare.content
    assert (
        result.structured_content == bare.structured_content == {"id": "o-1", "status": "shipped"}
    )
    assert from_call_tool_result(result) == Outcome.success({"id": "o-1", "status": "shipped"})


@pytest.mark.asyncio
async def test_a_plain_exception_is_still_a_crash() -> None:
    """Only agenterr's failures are converted: a bug keeps MCPServer's crash handling."""

    @for_mcp
    def broken(order_id: str) -> str:
        """Not classified."""
        raise LookupError("secret detail")

    result = await call_remote(server_with(broken), "broken", {"order_id": "o-1"})
    assert result.is_error is True
    assert texts(result) == ["Error executing tool broken"]  # MCPServer hides the detail
    assert from_call_tool_result(result).code is Code.UNKNOWN


def test_adapted_function_called_directly() -> None:
    """The adapter's return values: the plain value, or the error result."""
    tool = for_mcp(classified_tool(get_order))
    assert tool("o-1") == Order(id="o-1", status="shipped")
    failed = tool("o-404")
    assert isinstance(failed, CallToolResult)
    assert failed.is_error is True
    raising = for_mcp(classified_tool(raises=True)(get_order))
    assert from_call_tool_result(raising("o-429")) == agenterr.from_response(fetch("o-429"))


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_base_exceptions_propagate(error: type[BaseException]) -> None:
    """KeyboardInterrupt and SystemExit are never turned into a result."""

    @for_mcp
    @classified_tool
    def interrupted() -> str:
        raise error

    with pytest.raises(error):
        interrupted()


def test_cancellation_propagates() -> None:
    """An async tool's CancelledError is never turned into a result."""

    @for_mcp
    @classified_tool
    async def cancelled() -> str:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(cancelled())


def test_generators_are_refused() -> None:
    """MCP tools are not generators: refused at decoration."""

    @classified_tool
    def items() -> Any:
        yield 1

    with pytest.raises(TypeError, match="generator"):
        for_mcp(items)


# --- from_call_tool_result -------------------------------------------------------------


def test_reads_plain_dicts_in_both_spellings() -> None:
    """The wire form (camelCase) and a snake_case dump classify like the model."""
    outcome = agenterr.from_response(fetch("o-429"))
    result = to_call_tool_result(outcome)
    for data in (result.model_dump(by_alias=True, mode="json"), result.model_dump(mode="json")):
        assert from_call_tool_result(data) == outcome
    assert from_call_tool_result({"content": [{"type": "text", "text": "fine"}]}) == (
        Outcome.success("fine")
    )


def test_reads_camel_case_attributes() -> None:
    """mcp 1.x names the fields isError and structuredContent: read by duck typing."""
    outcome = agenterr.from_response(fetch("o-401"))
    old_style = SimpleNamespace(
        content=[SimpleNamespace(type="text", text=outcome.llm_hint)],
        structuredContent=outcome.to_dict(),
        isError=True,
    )
    assert from_call_tool_result(old_style) == outcome  # type: ignore[arg-type]
    old_style.structuredContent = None
    assert from_call_tool_result(old_style) == agenterr.from_status(401, outcome.llm_hint)  # type: ignore[arg-type]


def test_success_values() -> None:
    """Structured content first, then the text blocks joined, then the content as it is."""
    text = TextContent(type="text", text="a")
    image = ImageContent(type="image", data="AAAA", mime_type="image/png")
    structured = CallToolResult(content=[text], structured_content={"k": 1})
    assert from_call_tool_result(structured).value == {"k": 1}
    two = CallToolResult(content=[text, TextContent(type="text", text="b")])
    assert from_call_tool_result(two).value == "a\nb"
    mixed = CallToolResult(content=[text, image])
    assert from_call_tool_result(mixed).value == [text, image]
    assert from_call_tool_result(CallToolResult(content=[])).value == ""


def test_wire_form_without_a_hint_gets_the_standard_one() -> None:
    """A wire form that leaves out llm_hint still gives the model a hint."""
    result = CallToolResult(
        content=[],
        is_error=True,
        structured_content={"ok": False, "code": "UNAVAILABLE", "status": 503},
    )
    assert from_call_tool_result(result) == Outcome.failure(Code.UNAVAILABLE, status=503)


def test_remote_hint_is_cleaned() -> None:
    """A hint from the other side is untrusted: control characters and secrets go."""
    hint = "Fix it.\x1b[31m Bearer sk-abcdefghijklmnopqrstuvwx\u202e\nsecond line"
    result = CallToolResult(
        content=[],
        is_error=True,
        structured_content={"ok": False, "code": "INVALID_REQUEST", "llm_hint": hint},
    )
    outcome = from_call_tool_result(result)
    assert outcome.code is Code.INVALID_REQUEST
    assert "\x1b" not in outcome.llm_hint
    assert "\u202e" not in outcome.llm_hint
    assert "sk-abc" not in outcome.llm_hint
    assert "[REDACTED]" in outcome.llm_hint
    assert outcome.llm_hint.endswith("\nsecond line")


@pytest.mark.parametrize(
    "structured",
    [
        {"ok": False, "code": "NOPE"},  # not a code
        {"ok": False, "code": "NOT_FOUND", "class": "transient"},  # class disagrees
        {"ok": True, "retryable": False},  # ok, yet is_error
        {"code": "NOT_FOUND"},  # no ok
        ["not", "an", "object"],
    ],
)
def test_invalid_wire_form_falls_back_to_the_text(structured: Any) -> None:
    """Structured content that is not a valid failure is ignored: the text decides."""
    result = {
        "content": [{"type": "text", "text": "upstream said HTTP 404"}],
        "structuredContent": structured,
        "isError": True,
    }
    assert from_call_tool_result(result) == agenterr.from_status(404, "upstream said HTTP 404")


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("Error executing tool x: Client error '404 Not Found' for url 'https://a.test/o'", 404),
        ("upstream returned HTTP 503", 503),
        ("HTTP/1.1 502 Bad Gateway", 502),
        ("request failed (HTTP 429)", 429),
        ("failed with status 429", 429),
        ("Status code: 500", 500),
        ("api error: status_code=422", 422),
        ("Error code: 401 - {'error': 'invalid api key'}", 401),
        ("404 Client Error: Not Found for url: https://a.test/o", 404),
        ("503 Server Error: Service Unavailable", 503),
        ("http 200 then HTTP 504", 504),  # the first failure status named counts
    ],
)
def test_text_naming_a_status_is_classified_by_it(text: str, status: int) -> None:
    """A remote tool that passed its API's failure on: the status decides."""
    result = {"content": [{"type": "text", "text": text}], "isError": True}
    outcome = from_call_tool_result(result)
    assert outcome == agenterr.from_status(status, text)
    assert outcome.status == status


@pytest.mark.parametrize(
    "text",
    [
        "something broke",
        "order 404 is missing",  # a number is not a status
        "HTTP 200 OK but the payload was empty",  # not a failure status
        "retried 500 times",
        "",
    ],
)
def test_other_text_is_unknown(text: str) -> None:
    """Free text is not a classification: UNKNOWN, quoting the text."""
    outcome = from_call_tool_result({"content": [{"type": "text", "text": text}], "isError": True})
    assert outcome.code is Code.UNKNOWN
    assert outcome.status == 0
    assert outcome.retry_after is None
    assert "could not be classified" in outcome.llm_hint
    if text:
        assert outcome.llm_hint.endswith(f"The API said: {text}")


def test_unknown_hint_is_cleaned_and_capped() -> None:
    """The quoted text passes through agenterr's cleaning like any API body."""
    text = "failed \x1b[2J token=abcdef1234567890 " + "x" * 2000
    outcome = from_call_tool_result({"content": [{"type": "text", "text": text}], "isError": True})
    assert "\x1b" not in outcome.llm_hint
    assert "abcdef1234567890" not in outcome.llm_hint
    assert outcome.llm_hint.endswith("…[truncated]")
    assert len(outcome.llm_hint) < 1000


@pytest.mark.asyncio
async def test_server_argument_validation_is_schema_invalid() -> None:
    """MCPServer's own rejection of the model's arguments reads as SCHEMA_INVALID."""
    server = server_with(for_mcp(classified_tool(get_order)))
    missing = await call_remote(server, "get_order", {"verbose": "perhaps"})
    assert missing.structured_content is None  # the tool never ran: plain MCPServer text
    outcome = from_call_tool_result(missing)
    assert outcome == agenterr.schema_invalid(
        "order_id: Field required",
        "verbose: Input should be a valid boolean, unable to interpret input",
    )


@pytest.mark.asyncio
async def test_server_without_agenterr() -> None:
    """A remote server that knows nothing of agenterr: its error text is read as it is."""
    server = MCPServer("plain")

    @server.tool()
    def charge(amount: int) -> str:
        """Charge a card."""
        if amount > 100:
            raise ToolError("payment API answered HTTP 503, try later")
        raise ToolError("card declined")

    unavailable = from_call_tool_result(await call_remote(server, "charge", {"amount": 500}))
    assert unavailable.code is Code.UNAVAILABLE
    assert unavailable.status == 503
    assert unavailable.llm_hint.endswith(
        "The API said: Error executing tool charge: payment API answered HTTP 503, try later"
    )
    declined = from_call_tool_result(await call_remote(server, "charge", {"amount": 5}))
    assert declined.code is Code.UNKNOWN
    assert declined.llm_hint.endswith("The API said: Error executing tool charge: card declined")


# --- examples/mcp_server.py ------------------------------------------------------------


def test_example_server_and_client() -> None:
    """The example's failing calls carry the hint and the Outcome, and its client reads
    each back to the reaction it needs."""
    example = Path(__file__).parent.parent / "examples" / "mcp_server.py"
    run = subprocess.run(
        [sys.executable, "-W", "error", str(example)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    blocks = run.stdout.split("\n\n")
    not_found = agenterr.from_status(404, {"error": "no order with id o-9999"})
    busy = agenterr.from_status(429, {"error": "slow down"}, headers={"Retry-After": "2"})
    assert blocks[1].splitlines() == [
        "get_order(o-1001) is_error=False",
        '  structured: {"id": "o-1001", "status": "shipped", "total_cents": 4200}',
        "  client reads: ok -> hand the value to the model",
    ]
    for block, outcome, reaction in (
        (blocks[2], not_found, "re-prompt the model with the hint"),
        (blocks[3], busy, "retry unchanged after 2s"),
    ):
        lines = block.splitlines()
        assert lines[1] == f"  text: {outcome.llm_hint}"
        assert json.loads(lines[2].removeprefix("  structured: ")) == outcome.to_dict()
        assert lines[3] == f"  client reads: {outcome} -> {reaction}"
    missing = blocks[4].splitlines()
    assert missing[0] == "get_order() is_error=True"
    assert "1 validation error for get_orderArguments" in missing[1]
    assert missing[2:] == [
        "  structured: null",
        "  client reads: SCHEMA_INVALID class=self_correctable"
        " -> re-prompt the model with the hint",
        "  hint: The arguments you generated do not match the required schema. Fix the following"
        " and resend:",
        "        - order_id: Field required",
    ]
