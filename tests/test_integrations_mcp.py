"""agenterr.integrations.mcp against the real mcp 2.x: MCPServer, and the in-memory Client.

A failing tool's result, as the client receives it, carries ``tool_result_text`` (the
directive, the hint's reason, the API's quoted words) as its text and the Outcome as
structured content; the client classifies it back to the same Outcome. Any
failed result classifies exactly as ``agenterr.from_envelope`` reads it (SPEC.md 12.4).
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
from agenterr import Code, Outcome, classified_tool, from_envelope, tool_result_text
from agenterr._hints import split_quote
from agenterr._quote import snippet
from agenterr._tool_result import MODEL_TEXT
from agenterr.integrations import mcp as agenterr_mcp
from agenterr.integrations.mcp import for_mcp, from_call_tool_result, to_call_tool_result

pytestmark = pytest.mark.external

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


# The first words of a failure's text, per class (SPEC 6.8).
DIRECTIVE = {
    "transient": "Call ",
    "self_correctable": "FIX YOUR ARGUMENTS:",
    "auth": "CANNOT CONTINUE:",
    "indeterminate": "CANNOT CONTINUE:",
}


def assert_model_text(
    result: CallToolResult,
    outcome: Outcome[Any],
    *,
    tool: str | None = None,
    arguments: dict[str, Any] | None = None,
) -> None:
    """The result's one text block is the model text of the failed ``outcome``: its
    directive first, then the hint's reason and the API's quoted words."""
    assert outcome.code is not None
    (text,) = texts(result)
    assert text == tool_result_text(outcome, tool=tool, arguments=arguments)
    assert text.splitlines()[0].startswith(DIRECTIVE[outcome.code.class_.value])
    guidance, quote = split_quote(outcome.llm_hint)
    # The reason shows only for the codes whose text keeps it (SPEC 6.8).
    assert (f"\nWhy: {guidance}\n" in text) is MODEL_TEXT[outcome.code].why
    assert quote in text


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
    """is_error, the model text as the only text, the wire form as structured content."""
    outcome = agenterr.from_response(fetch(order_id))
    result = to_call_tool_result(outcome)
    assert isinstance(result, CallToolResult)
    assert result.is_error is True
    assert result.content == [TextContent(type="text", text=tool_result_text(outcome))]
    assert_model_text(result, outcome)
    assert result.structured_content == outcome.to_dict(explain=True)
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
    """End to end: the client gets is_error with the model text and reads back the same
    Outcome."""
    tool = for_mcp(mode(fn))
    result = await call_remote(server_with(tool), fn.__name__, {"order_id": order_id})
    want = agenterr.from_response(fetch(order_id))
    assert result.is_error is True
    assert_model_text(result, want, tool=fn.__name__, arguments={"order_id": order_id})
    if order_id == "o-404":  # the text names the argument the API's words point at
        assert f'`order_id` ("{order_id}") you sent does not exist' in texts(result)[0]
    assert result.structured_content == want.to_dict(explain=True)
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
@pytest.mark.parametrize("mode", MODES.values(), ids=MODES.keys())
async def test_a_bug_under_classified_tool_is_an_unknown_error_result(mode: Any) -> None:
    """With the documented stacking a bug is classified like any failure: the client gets
    is_error with the UNKNOWN model text (not the exception's text) and the wire Outcome."""

    def broken(order_id: str) -> str:
        """Classified."""
        raise LookupError("secret detail")

    result = await call_remote(server_with(for_mcp(mode(broken))), "broken", {"order_id": "o"})
    unknown = classified_tool(broken)("o")
    assert unknown.code is Code.UNKNOWN
    assert result.is_error is True
    assert_model_text(result, unknown)
    assert "secret detail" not in json.dumps(result.model_dump(mode="json"))
    assert result.structured_content == unknown.to_dict(explain=True)
    assert from_call_tool_result(result) == unknown


@pytest.mark.asyncio
async def test_for_mcp_alone_leaves_other_exceptions_to_mcpserver() -> None:
    """for_mcp converts only agenterr's failures: without @classified_tool underneath, a
    bug keeps MCPServer's crash handling."""

    @for_mcp
    def broken(order_id: str) -> str:
        """Not classified."""
        raise LookupError("secret detail")

    result = await call_remote(server_with(broken), "broken", {"order_id": "o-1"})
    assert result.is_error is True
    assert texts(result) == ["Error executing tool broken"]  # MCPServer hides the detail
    # A tool error that explains nothing: the MCP default, as from_envelope reads it.
    assert from_call_tool_result(result) == Outcome(
        Code.INVALID_REQUEST,
        "The API rejected this call as invalid (tool error). Your arguments are wrong in a way"
        " you can fix: correct them to satisfy the API's requirements and resend. The API"
        " said: Error executing tool broken",
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
async def test_the_tools_own_tool_error_reaches_the_model(fn: Any, mode: Any) -> None:
    """A ToolError raised by the tool body is MCP's anticipated failure: it passes through
    @classified_tool and for_mcp, and the client reads its message, not UNKNOWN."""
    raised = ToolError("order_id must look like o-123")

    def get_order(order_id: str) -> str:
        """Look up an order by its id."""
        raise raised

    async def aget_order(order_id: str) -> str:
        """Look up an order by its id."""
        raise raised

    body = aget_order if inspect.iscoroutinefunction(fn) else get_order
    result = await call_remote(server_with(for_mcp(mode(body))), body.__name__, {"order_id": "x"})
    assert result.is_error is True
    assert result.structured_content is None  # MCPServer's own error result
    message = f"Error executing tool {body.__name__}: order_id must look like o-123"
    assert texts(result) == [message]
    assert from_call_tool_result(result) == Outcome(Code.INVALID_REQUEST, INVALID + said(message))
    with pytest.raises(ToolError) as caught:
        outcome_or_value = for_mcp(mode(get_order))("x")
        raise AssertionError(f"returned {outcome_or_value!r}")
    assert caught.value is raised


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


INVALID = (
    "The API rejected this call as invalid (tool error). Your arguments are wrong in a way you"
    " can fix: correct them to satisfy the API's requirements and resend."
)


def said(text: str) -> str:
    return f" The API said: {text}" if text else ""


def error_result(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True, **extra}


def spellings(result: dict[str, Any]) -> list[Any]:
    """One failed result as every accepted input: the 2.x model, its camelCase and
    snake_case dicts, and a 1.x-style object with camelCase attributes."""
    model = CallToolResult.model_validate(result)
    legacy = SimpleNamespace(
        content=[SimpleNamespace(**block) for block in result["content"]],
        isError=result["isError"],
        structuredContent=result.get("structuredContent"),
    )
    return [
        model,
        model.model_dump(by_alias=True, mode="json"),
        model.model_dump(mode="json"),
        legacy,
    ]


AGREEMENT = [
    pytest.param(error_result("Invalid departure date: must be in the future."), id="default"),
    pytest.param(error_result("Failed to fetch data: API rate limit exceeded"), id="phrase"),
    pytest.param(error_result("Unknown tool: search_web"), id="unknown-tool"),
    pytest.param(error_result("payment API answered HTTP 503"), id="http-status"),
    pytest.param(error_result("GET https://a.test/o: 403 Forbidden []"), id="reason-phrase"),
    pytest.param(error_result("order 404 is missing"), id="bare-number"),
    pytest.param(error_result(""), id="empty"),
    pytest.param(
        error_result(
            "ignored", structuredContent=Outcome.failure(Code.TIMEOUT, status=504).to_dict()
        ),
        id="relay",
    ),
    pytest.param(
        error_result("upstream said HTTP 404", structuredContent={"ok": False, "code": "NOPE"}),
        id="invalid-relay",
    ),
]


@pytest.mark.parametrize("result", AGREEMENT)
def test_failures_are_what_from_envelope_says(result: dict[str, Any]) -> None:
    """One authority: every spelling of a failed result classifies as from_envelope reads
    its wire form."""
    want = from_envelope(result)
    assert want.failed
    for spelling in spellings(result):
        assert from_call_tool_result(spelling) == want


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
    # Without the wire form only the text is left: it names "(HTTP 401)" as a status.
    old_style.structuredContent = None
    assert from_call_tool_result(old_style) == Outcome(  # type: ignore[arg-type]
        Code.UNAUTHORIZED,
        "The API rejected this call as unauthorized (tool error, HTTP 401). This is a"
        " credentials or permissions problem, NOT a problem with your arguments — do not"
        " modify them. A human or the orchestrator must fix authentication (an invalid or"
        " expired token, or a missing scope) before retrying." + said(outcome.llm_hint),
    )


def test_camel_case_wins_unless_it_is_null() -> None:
    """Both spellings in one dict: the camelCase member, unless it is null (SPEC 12.4)."""
    wire = Outcome.failure(Code.NOT_FOUND).to_dict()
    both = {"content": [], "isError": None, "is_error": True, "structured_content": wire}
    assert from_call_tool_result(both).code is Code.NOT_FOUND
    both["isError"] = False
    assert from_call_tool_result(both).ok


@pytest.mark.parametrize("content", [None, "rate limit", {"type": "text"}])
def test_an_error_result_is_never_a_success(content: object) -> None:
    """is_error with a missing or malformed content still fails: no texts, the MCP default."""
    result: dict[str, Any] = {"isError": True}
    if content is not None:
        result["content"] = content
    assert from_call_tool_result(result) == Outcome(Code.INVALID_REQUEST, INVALID)


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
    assert from_call_tool_result({"content": "odd", "isError": False}).value == "odd"


def test_wire_form_without_a_hint_gets_the_standard_one() -> None:
    """A wire form that leaves out llm_hint still gives the model a hint."""
    result = CallToolResult(
        content=[],
        is_error=True,
        structured_content={"ok": False, "code": "UNAVAILABLE", "status": 503},
    )
    assert from_call_tool_result(result) == Outcome.failure(Code.UNAVAILABLE, status=503)


def test_remote_hint_is_cleaned() -> None:
    """A hint from the other side is untrusted: control characters and secrets go, and it
    is folded onto one line like any quoted text (SPEC 12.10)."""
    hint = "Fix it.\x1b[31m Bearer sk-abcdefghijklmnopqrstuvwx\u202e\nsecond line"
    result = CallToolResult(
        content=[],
        is_error=True,
        structured_content={"ok": False, "code": "INVALID_REQUEST", "llm_hint": hint},
    )
    outcome = from_call_tool_result(result)
    assert outcome == Outcome(Code.INVALID_REQUEST, "Fix it. Bearer [REDACTED] second line")


@pytest.mark.parametrize(
    "structured",
    [
        {"ok": False, "code": "NOPE"},  # not a code
        {"ok": False, "code": "NOT_FOUND", "class": "transient"},  # class disagrees
        {"ok": False, "code": "UNKNOWN", "retry_after_seconds": 3},  # a delay, not transient
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
    assert from_call_tool_result(result) == Outcome(
        Code.NOT_FOUND,
        "The API could not find what this call refers to (tool error, HTTP 404). An"
        " identifier, name or path in your arguments probably does not exist. Do not guess"
        " another one: look the real value up (with another tool, or by asking the user) and"
        " resend with it. The API said: upstream said HTTP 404",
    )


@pytest.mark.parametrize(
    ("text", "code", "status"),
    [
        (
            "Error executing tool x: Client error '404 Not Found' for url 'https://a.test/o'",
            Code.NOT_FOUND,
            404,
        ),
        ("upstream returned HTTP 503", Code.UNAVAILABLE, 503),
        ("HTTP/1.1 502 Bad Gateway", Code.UNAVAILABLE, 502),
        ("request failed (HTTP 429)", Code.RATE_LIMITED, 429),
        ("HTTP/2 401", Code.UNAUTHORIZED, 401),
        ("GET https://api.github.com/repos/o/r: 403 Forbidden []", Code.UNAUTHORIZED, 403),
        ("413 Request Entity Too Large", Code.INVALID_REQUEST, 413),
        ("505 HTTP Version Not Supported", Code.UNKNOWN, 505),
        ("HTTP 200 OK, then HTTP 504", Code.UNAVAILABLE, 504),  # the first failure status
    ],
)
def test_text_naming_a_status_gets_its_code(text: str, code: Code, status: int) -> None:
    """A remote tool that passed its API's failure on, in the two exact forms SPEC 12.4
    reads: the status table's code, the status named in {where}, and none recorded."""
    outcome = from_call_tool_result(error_result(text))
    assert outcome.code is code
    assert outcome.status == 0  # read from prose, not received
    assert f" (tool error, HTTP {status}). " in outcome.llm_hint
    assert outcome.llm_hint.endswith(said(text))
    assert outcome.retry_after is None


@pytest.mark.parametrize(
    "text",
    [
        "something broke",
        "order 404 is missing",  # a bare number is not a status
        "HTTP 200 OK but the payload was empty",  # not a failure status
        "retried 500 times",
        "http 503",  # HTTP is matched as written
        "HTTP 5030 records",
        "410 gone forever",  # the phrase is matched as registered: "Gone"
        "failed with status 429",  # "status N" and "code N" carry application numbers too
        "Status code: 500",
        "api error: status_code=422",
        "Error code: 401 - {'error': 'n/a'}",
        "",
    ],
)
def test_other_text_is_the_mcp_default(text: str) -> None:
    """Free text the rules do not read: INVALID_REQUEST, quoting the text."""
    outcome = from_call_tool_result(error_result(text))
    assert outcome == Outcome(Code.INVALID_REQUEST, INVALID + said(text))


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Error code: 401 - {'error': 'invalid api key'}", Code.UNAUTHORIZED),
        ("404 Client Error: Not Found for url: https://a.test/o", Code.NOT_FOUND),
        ("Unauthorized: token expired", Code.UNAUTHORIZED),
        ("423 locked accounts", Code.UNAVAILABLE),
    ],
)
def test_general_evidence_reads_other_words(text: str, code: Code) -> None:
    """No phrase and no named status: general evidence (SPEC 11.12) reads the words."""
    assert from_call_tool_result(error_result(text)).code is code


def test_phrases_come_before_a_named_status() -> None:
    """GitHub's documented 403 that is a rate limit: the wording decides, as in 11.4."""
    outcome = from_call_tool_result(error_result("HTTP 403: API rate limit exceeded"))
    assert outcome.code is Code.RATE_LIMITED
    assert " (tool error). " in outcome.llm_hint


def test_quoted_text_is_cleaned_and_capped() -> None:
    """The quoted text passes through agenterr's cleaning like any API body."""
    text = "failed \x1b[2J token=abcdef1234567890 " + "x" * 2000
    outcome = from_call_tool_result(error_result(text))
    assert outcome.code is Code.INVALID_REQUEST
    assert "\x1b" not in outcome.llm_hint
    assert "abcdef1234567890" not in outcome.llm_hint
    assert outcome.llm_hint.endswith("…[truncated]")
    assert len(outcome.llm_hint) < 1000


@pytest.mark.asyncio
async def test_server_argument_validation_is_invalid_request() -> None:
    """MCPServer's own rejection of the model's arguments: a tool error for the model to
    correct, quoting pydantic's message (SPEC 12.4 keeps no SDK-specific wording)."""
    server = server_with(for_mcp(classified_tool(get_order)))
    missing = await call_remote(server, "get_order", {"verbose": "perhaps"})
    assert missing.structured_content is None  # the tool never ran: plain MCPServer text
    (text,) = texts(missing)
    assert "2 validation errors for get_orderArguments" in text
    outcome = from_call_tool_result(missing)
    assert outcome == Outcome(Code.INVALID_REQUEST, INVALID + said(snippet(text)))
    assert "order_id Field required" in outcome.llm_hint
    assert outcome.class_ is agenterr.Class.SELF_CORRECTABLE


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
    assert unavailable == Outcome(
        Code.UNAVAILABLE,
        "The API is temporarily unavailable (tool error, HTTP 503). This is NOT a problem with"
        " your arguments — do not modify them. Retry the identical call after a short delay."
        " The API said: Error executing tool charge: payment API answered HTTP 503, try later",
    )
    declined = from_call_tool_result(await call_remote(server, "charge", {"amount": 5}))
    assert declined.code is Code.UNAUTHORIZED  # a payment decline needs the card holder
    assert "quota or billing" in declined.llm_hint


# --- examples/mcp_server.py ------------------------------------------------------------


def test_example_server_and_client() -> None:
    """The example's failing calls carry the model text and the Outcome, and its client reads
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
    for block, outcome, order_id, reaction in (
        (blocks[2], not_found, "o-9999", "re-prompt the model with the hint"),
        (blocks[3], busy, "o-busy", "retry unchanged after 2s"),
    ):
        # The example prints the text as the model reads it, its lines indented; it names
        # the call.
        text = tool_result_text(outcome, tool="get_order", arguments={"order_id": order_id})
        printed = "  text: " + text.replace("\n", "\n        ")
        assert printed.startswith(f"  text: {DIRECTIVE[outcome.class_.value]}")
        _, _, rest = block.partition("\n")
        assert rest.startswith(printed + "\n")
        lines = rest.removeprefix(printed + "\n").splitlines()
        assert json.loads(lines[0].removeprefix("  structured: ")) == outcome.to_dict(explain=True)
        assert lines[1] == f"  client reads: {outcome} -> {reaction}"
    missing = blocks[4].splitlines()
    assert missing[0] == "get_order() is_error=True"
    # MCPServer's own validation error: its text is the server's, not agenterr's.
    assert missing[1].startswith("  text: Error executing tool get_order: 1 validation error")
    at = missing.index("  structured: null")
    missing = missing[:2] + missing[at:]
    assert missing[2:4] == [
        "  structured: null",
        "  client reads: INVALID_REQUEST class=self_correctable"
        " -> re-prompt the model with the hint",
    ]
    assert missing[4].startswith(f"  hint: {INVALID} The API said: Error executing tool get_order")
    assert "order_id Field required" in missing[4]


def test_the_call_is_named_when_given() -> None:
    """``tool`` and ``arguments`` make the text name the tool and the rejected argument."""
    outcome = agenterr.from_status(422, '{"error": "quantity must be at least 1"}')
    arguments = {"sku": "A-1", "quantity": 0}
    result = to_call_tool_result(outcome, tool="add_item", arguments=arguments)
    (text,) = texts(result)
    assert text == tool_result_text(outcome, tool="add_item", arguments=arguments)
    assert text.startswith("FIX YOUR ARGUMENTS: the API rejected `quantity` (0)")
    assert "`add_item`" in text
