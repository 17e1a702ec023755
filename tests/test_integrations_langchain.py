"""agenterr.integrations.langchain against the real langchain-core: the model reads
``tool_result_text`` (the directive, the hint's reason, the API's quoted words).

Tools are built and invoked by langchain-core itself (``StructuredTool``, ``tool.invoke``
with a ``ToolCall``); the end-to-end test drives them from LangChain's
``GenericFakeChatModel`` and records what the model was given.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, ToolException, tool
from pydantic import BaseModel, ValidationError
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_none

import agenterr
from agenterr import (
    AuthToolError,
    Class,
    Code,
    IndeterminateToolError,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
    tool_result_text,
)
from agenterr._hints import split_quote
from agenterr._tool_result import MODEL_TEXT
from agenterr.integrations import langchain as lc
from agenterr.integrations.langchain import (
    AgentToolException,
    AuthToolException,
    IndeterminateToolException,
    SelfCorrectableToolException,
    TransientToolException,
    handle_tool_error,
    handle_validation_error,
    langchain_tool,
    tool_exception,
    tool_message,
)

pytestmark = pytest.mark.external

FAILURES = {
    Class.TRANSIENT: agenterr.from_status(429, "", headers={"Retry-After": "2"}),
    Class.SELF_CORRECTABLE: agenterr.from_status(404, '{"error":"no such order"}'),
    Class.AUTH: agenterr.from_status(401, '{"error":"token expired"}'),
    Class.INDETERMINATE: agenterr.from_status(302),
}
# The first words of a failure's text, per class (SPEC 6.8).
DIRECTIVE = {
    Class.TRANSIENT: "Call ",
    Class.SELF_CORRECTABLE: "FIX YOUR ARGUMENTS:",
    Class.AUTH: "CANNOT CONTINUE:",
    Class.INDETERMINATE: "CANNOT CONTINUE:",
}


def assert_model_text(
    text: object,
    outcome: Outcome[Any],
    *,
    tool: str | None = None,
    arguments: dict[str, Any] | None = None,
) -> None:
    """``text`` is the model text of the failed ``outcome``: its directive first, then the
    hint's reason and the API's quoted words."""
    assert outcome.class_ is not None
    assert isinstance(text, str)
    assert text == tool_result_text(outcome, tool=tool, arguments=arguments)
    assert text.splitlines()[0].startswith(DIRECTIVE[outcome.class_])
    guidance, quote = split_quote(outcome.llm_hint)
    # The reason shows only for the codes whose text keeps it (SPEC 6.8).
    assert (f"\nWhy: {guidance}\n" in text) is MODEL_TEXT[outcome.code].why
    assert quote in text


EXCEPTIONS = {
    Class.TRANSIENT: (TransientToolException, TransientToolError),
    Class.SELF_CORRECTABLE: (SelfCorrectableToolException, SelfCorrectableToolError),
    Class.AUTH: (AuthToolException, AuthToolError),
    Class.INDETERMINATE: (IndeterminateToolException, IndeterminateToolError),
}

# --- a tool against a fake orders API ----------------------------------------------------

STATUSES = {"o-1": 200, "o-404": 404, "o-429": 429, "o-401": 401, "o-503": 503}


def orders_api(request: httpx.Request) -> httpx.Response:
    order_id = request.url.path.rsplit("/", 1)[-1]
    status = STATUSES.get(order_id, 404)
    if status == 200:
        return httpx.Response(200, json={"id": order_id, "status": "shipped"})
    if status == 429:
        return httpx.Response(429, headers={"Retry-After": "2"}, json={"error": "slow down"})
    return httpx.Response(status, json={"error": f"failed for {order_id}"})


def expected(order_id: str) -> Outcome[Any]:
    """The outcome agenterr gives the API's response for ``order_id``."""
    with httpx.Client(transport=httpx.MockTransport(orders_api)) as client:
        return agenterr.from_response(client.get(f"https://orders.test/orders/{order_id}"))


def get_order(
    order_id: str, fields: Literal["all", "status"] = "all", limit: int = 1
) -> dict[str, Any]:
    """Look up an order by its id.

    Args:
        order_id: The order's id, for example "o-1".
        fields: Which fields to return.
        limit: How many orders at most.
    """
    with httpx.Client(transport=httpx.MockTransport(orders_api)) as client:
        response = client.get(f"https://orders.test/orders/{order_id}")
    response.raise_for_status()
    order: dict[str, Any] = response.json()
    return order


async def aget_order(
    order_id: str, fields: Literal["all", "status"] = "all", limit: int = 1
) -> dict:  # type: ignore[type-arg]
    """Look up an order by its id.

    Args:
        order_id: The order's id, for example "o-1".
        fields: Which fields to return.
        limit: How many orders at most.
    """
    await asyncio.sleep(0)
    return get_order(order_id, fields, limit)


def call(order_id: str, call_id: str = "call-1", **extra: Any) -> dict[str, Any]:
    """A ToolCall for get_order, as a model's AIMessage carries it."""
    return {"name": "get_order", "args": {"order_id": order_id, **extra}, "id": call_id}


def invoke(lc_tool: BaseTool, tool_call: dict[str, Any]) -> ToolMessage:
    """``tool.invoke`` or ``tool.ainvoke``, whichever the tool supports."""
    payload = {**tool_call, "type": "tool_call"}
    if isinstance(lc_tool, StructuredTool) and lc_tool.func is None:
        result = asyncio.run(lc_tool.ainvoke(payload))
    else:
        result = lc_tool.invoke(payload)
    assert isinstance(result, ToolMessage)
    return result


FUNCTIONS = {"sync": get_order, "async": aget_order}
MODES: dict[str, Callable[[Any], Any]] = {
    "outcome": classified_tool,
    "raises": classified_tool(raises=True),
}
VARIANTS = [
    pytest.param(fn, mode, id=f"{kind}-{name}")
    for kind, fn in FUNCTIONS.items()
    for name, mode in MODES.items()
]


# --- the module ------------------------------------------------------------------------


def test_missing_langchain_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without langchain-core, importing the integration says which extra to install."""
    monkeypatch.setitem(sys.modules, "langchain_core", None)
    monkeypatch.delitem(sys.modules, "agenterr.integrations.langchain")
    with pytest.raises(ImportError, match=r"agenterr\[langchain\]"):
        importlib.import_module("agenterr.integrations.langchain")


def test_all_is_the_public_names() -> None:
    """__all__ lists exactly the module's public names."""
    public = {
        name
        for name, value in vars(lc).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == lc.__name__
    }
    assert set(lc.__all__) == public


# --- exceptions ------------------------------------------------------------------------


@pytest.mark.parametrize("class_", list(Class), ids=lambda c: c.value)
def test_tool_exception_is_both_a_tool_exception_and_the_typed_error(class_: Class) -> None:
    """Each class maps to its subclass, caught as ToolException and as agenterr's error."""
    outcome = FAILURES[class_]
    exc = tool_exception(outcome)
    subclass, typed = EXCEPTIONS[class_]
    assert type(exc) is subclass
    assert isinstance(exc, ToolException)
    assert isinstance(exc, AgentToolException)
    assert isinstance(exc, typed)
    assert exc.outcome is outcome
    assert exc.llm_hint == outcome.llm_hint
    assert exc.class_ is class_
    # LangChain's own handle_tool_error=True answers with args[0]: the model text.
    assert exc.args == (agenterr.tool_result_text(outcome),)
    assert str(exc) == str(agenterr.error_for(outcome))


@pytest.mark.parametrize("code", list(Code), ids=lambda c: c.value)
def test_every_code_gets_its_class_exception(code: Code) -> None:
    """The subclass follows the code's class."""
    exc = tool_exception(Outcome.failure(code))
    assert isinstance(exc, EXCEPTIONS[code.class_][1])


@pytest.mark.parametrize("class_", list(Class), ids=lambda c: c.value)
def test_tool_exception_pickles_with_its_outcome(class_: Class) -> None:
    """Like agenterr's errors, the exceptions cross process boundaries intact."""
    exc = tool_exception(FAILURES[class_])
    copy = pickle.loads(pickle.dumps(exc))
    assert type(copy) is type(exc)
    assert copy.outcome == exc.outcome
    assert copy.args == exc.args


def test_tool_exception_needs_a_failure() -> None:
    """An ok outcome has no exception."""
    with pytest.raises(ValueError, match="failed Outcome"):
        tool_exception(Outcome.success(1))


# --- handlers and messages -------------------------------------------------------------


@pytest.mark.parametrize("class_", list(Class), ids=lambda c: c.value)
def test_handle_tool_error_returns_the_hint(class_: Class) -> None:
    """Every class, transient included, is answered with its model text."""
    outcome = FAILURES[class_]
    assert_model_text(handle_tool_error(tool_exception(outcome)), outcome)


def test_handle_tool_error_without_a_hint_gives_the_standard_one() -> None:
    """An outcome built without a hint still tells the model something useful."""
    bare = Outcome(Code.NOT_FOUND, "", None, 404)
    standard = Outcome.failure(Code.NOT_FOUND, status=404)
    text = handle_tool_error(tool_exception(bare))
    assert text == tool_result_text(standard)
    assert_model_text(text, standard)


def test_handle_tool_error_other_tool_exceptions() -> None:
    """A ToolException agenterr did not raise is answered as LangChain's True flag does."""
    assert handle_tool_error(ToolException("quota exhausted")) == "quota exhausted"
    assert handle_tool_error(ToolException()) == "Tool execution error"


def test_handle_validation_error_lists_the_problems() -> None:
    """A pydantic ValidationError becomes the SCHEMA_INVALID hint, one line per location."""

    class Args(BaseModel):
        order_id: str
        limit: int

    with pytest.raises(ValidationError) as info:
        Args.model_validate({"limit": "many"})
    hint = handle_validation_error(info.value)
    assert hint == agenterr.tool_result_text(
        agenterr.schema_invalid(
            "order_id: Field required",
            "limit: Input should be a valid integer, unable to parse string as an integer",
        )
    )


@pytest.mark.parametrize("class_", list(Class), ids=lambda c: c.value)
def test_tool_message_for_a_failure(class_: Class) -> None:
    """A failure is an error ToolMessage whose content is the model text."""
    outcome = FAILURES[class_]
    assert_model_text(tool_message(outcome, "call-7").content, outcome)
    message = tool_message(outcome, "call-7", name="get_order")
    assert message.status == "error"
    # The tool's name is also the one the text names (SPEC 6.8.1).
    assert message.content == tool_result_text(outcome, tool="get_order")
    assert message.tool_call_id == "call-7"
    assert message.name == "get_order"


def test_tool_message_and_tool_exception_name_the_rejected_argument() -> None:
    """Given the call's arguments, the text names the one the API's response points at."""
    outcome = agenterr.from_status(422, '{"error": "quantity must be at least 1"}')
    arguments = {"sku": "A-1", "quantity": 0}
    expected = tool_result_text(outcome, tool="add_item", arguments=arguments)
    assert "`quantity`" in expected.splitlines()[0]
    message = tool_message(outcome, "call-8", name="add_item", arguments=arguments)
    assert message.content == expected
    error = tool_exception(outcome, tool="add_item", arguments=arguments)
    assert error.args == (expected,)
    assert handle_tool_error(error) == expected


@pytest.mark.parametrize(
    ("value", "content"),
    [
        ({"id": "o-1", "total": 4.5}, '{"id":"o-1","total":4.5}'),
        ("shipped", "shipped"),
        ([1, 2], "[1,2]"),
        (None, "null"),
    ],
)
def test_tool_message_for_a_success(value: Any, content: str) -> None:
    """A success is a success ToolMessage carrying the value (a str as is, else JSON)."""
    message = tool_message(Outcome.success(value), "call-8")
    assert message.status == "success"
    assert message.content == content
    assert message.tool_call_id == "call-8"
    assert message.name is None


# --- langchain_tool --------------------------------------------------------------------


@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
@pytest.mark.parametrize("parse_docstring", [False, True])
def test_schema_is_the_bare_functions(fn: Any, mode: Any, parse_docstring: bool) -> None:
    """Name, description, args and the JSON schemas equal those of the undecorated function."""
    built = langchain_tool(mode(fn), parse_docstring=parse_docstring)
    for bare in (
        StructuredTool.from_function(
            **{"coroutine" if fn is aget_order else "func": fn}, parse_docstring=parse_docstring
        ),
        tool(fn, parse_docstring=parse_docstring),
    ):
        assert isinstance(bare, BaseTool)
        assert built.name == bare.name
        assert built.description == bare.description
        assert built.args == bare.args
        assert built.args_schema is not None and bare.args_schema is not None
        assert isinstance(built.args_schema, type) and isinstance(bare.args_schema, type)
        assert built.args_schema.model_json_schema() == bare.args_schema.model_json_schema()
        assert (
            built.tool_call_schema.model_json_schema() == bare.tool_call_schema.model_json_schema()
        )


@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
@pytest.mark.parametrize("order_id", ["o-404", "o-429", "o-401", "o-503"])
def test_failure_is_an_error_tool_message_with_the_hint(fn: Any, mode: Any, order_id: str) -> None:
    """Each class of failure comes back from tool.invoke(ToolCall) as its model text."""
    message = invoke(langchain_tool(mode(fn)), call(order_id, "call-9"))
    assert message.status == "error"
    arguments = {"order_id": order_id}
    assert_model_text(message.content, expected(order_id), tool=fn.__name__, arguments=arguments)
    if order_id == "o-404":  # the text names the argument the API's words point at
        assert f'`order_id` ("{order_id}") you sent does not exist' in str(message.content)
    assert message.tool_call_id == "call-9"
    assert message.name == fn.__name__


@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
def test_success_is_the_value(fn: Any, mode: Any) -> None:
    """On success the tool returns the plain value, not an Outcome."""
    built = langchain_tool(mode(fn))
    message = invoke(built, call("o-1"))
    assert message.status == "success"
    assert message.content == '{"id": "o-1", "status": "shipped"}'  # LangChain's own JSON
    direct = (
        asyncio.run(built.ainvoke({"order_id": "o-1"}))
        if fn is aget_order
        else built.invoke({"order_id": "o-1"})
    )
    assert direct == {"id": "o-1", "status": "shipped"}


def test_arguments_that_do_not_validate_get_the_schema_hint() -> None:
    """LangChain's own argument validation is answered with SCHEMA_INVALID's hint."""
    message = invoke(
        langchain_tool(classified_tool(get_order)),
        {"name": "get_order", "args": {"id": "o-1", "limit": "x"}, "id": "c"},
    )
    assert message.status == "error"
    assert message.content == agenterr.tool_result_text(
        agenterr.schema_invalid(
            "order_id: Field required",
            "limit: Input should be a valid integer, unable to parse string as an integer",
        )
    )


@pytest.mark.parametrize(("fn", "mode"), VARIANTS)
def test_raised_exception_is_typed_and_chained(fn: Any, mode: Any) -> None:
    """With handling turned off, the ToolException subclass propagates, chained from the cause."""
    built = langchain_tool(mode(fn), handle_tool_error=False)
    with pytest.raises(TransientToolException) as info:
        if fn is aget_order:
            asyncio.run(built.ainvoke({"order_id": "o-429"}))
        else:
            built.invoke({"order_id": "o-429"})
    assert info.value.outcome == expected("o-429")
    assert info.value.retry_after == 2
    cause = info.value.__cause__
    if mode is classified_tool:  # Outcome mode: chained from the HTTP error itself
        assert isinstance(cause, httpx.HTTPStatusError)
    else:  # raises mode: from agenterr's typed error, itself chained from the HTTP error
        assert type(cause) is TransientToolError
        assert isinstance(cause.__cause__, httpx.HTTPStatusError)


def test_options_reach_structured_tool() -> None:
    """Options go to StructuredTool.from_function, and can replace either handler."""

    def custom(error: ToolException) -> str:
        return "custom"

    built = langchain_tool(
        classified_tool(get_order), name="order", description="Orders.", handle_tool_error=custom
    )
    assert (built.name, built.description) == ("order", "Orders.")
    assert invoke(built, {**call("o-404"), "name": "order"}).content == "custom"
    assert built.handle_validation_error is handle_validation_error


def test_decorator_forms() -> None:
    """Bare and with options, over @classified_tool."""

    @langchain_tool
    @classified_tool
    def bare(order_id: str) -> str:
        """Bare."""
        raise httpx.ConnectError("refused")

    @langchain_tool(name="named")
    @classified_tool(raises=True)
    def with_options(order_id: str) -> str:
        """With options."""
        if order_id == "down":
            raise httpx.ConnectError("refused")
        return order_id

    assert isinstance(bare, StructuredTool) and isinstance(with_options, StructuredTool)
    refused = agenterr.from_error(httpx.ConnectError("refused"))
    message = invoke(bare, {**call("x"), "name": "bare"})
    assert message.status == "error"
    assert_model_text(message.content, refused, tool="bare", arguments={"order_id": "x"})
    assert with_options.name == "named"
    assert with_options.invoke({"order_id": "o-7"}) == "o-7"
    # The text names the tool as the model knows it: by the name it was given.
    message = invoke(with_options, {**call("down"), "name": "named"})
    assert_model_text(message.content, refused, tool="named", arguments={"order_id": "down"})


def test_other_exceptions_pass_through() -> None:
    """An exception that is not agenterr's reaches LangChain untouched (here: it raises)."""

    def plain(order_id: str) -> str:
        """Not classified."""
        raise LookupError(order_id)

    with pytest.raises(LookupError, match="o-1"):
        langchain_tool(plain).invoke({"order_id": "o-1"})
    assert (
        langchain_tool(lambda order_id: order_id, name="echo", description="Echo.").invoke(
            {"order_id": "o-2"}
        )
        == "o-2"
    )


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_base_exceptions_propagate(error: type[BaseException]) -> None:
    """KeyboardInterrupt and SystemExit are never turned into a tool answer."""

    @classified_tool
    def interrupted(order_id: str) -> str:
        """Interrupted."""
        raise error

    with pytest.raises(error):
        langchain_tool(interrupted).invoke(call("o-1") | {"type": "tool_call"})


def test_cancellation_propagates() -> None:
    """An async tool's CancelledError is not turned into a tool answer either."""

    @classified_tool
    async def cancelled(order_id: str) -> str:
        """Cancelled."""
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(langchain_tool(cancelled).ainvoke(call("o-1") | {"type": "tool_call"}))


def test_generators_are_refused() -> None:
    """LangChain has no generator tools: refused when the tool is built."""

    @classified_tool
    def items(order_id: str) -> Any:
        """Items."""
        yield order_id

    with pytest.raises(TypeError, match="generator"):
        langchain_tool(items)


def test_an_existing_tool_exception_is_not_rewrapped() -> None:
    """A tool that raises agenterr's ToolException itself keeps that very exception."""
    raised = tool_exception(FAILURES[Class.AUTH])

    @classified_tool(raises=True)
    def direct(order_id: str) -> str:
        """Direct."""
        raise raised

    with pytest.raises(AuthToolException) as info:
        langchain_tool(direct, handle_tool_error=False).invoke({"order_id": "o-1"})
    assert info.value is raised


@pytest.mark.parametrize("mode", MODES.values(), ids=MODES.keys())
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_the_tools_own_tool_exception_reaches_the_model(mode: Any, asynchronous: bool) -> None:
    """A plain ToolException raised by the tool body is LangChain's way of talking to the
    model: @classified_tool lets it through, and the model reads its message, not UNKNOWN."""
    raised = ToolException("invoice_id must look like inv-123")

    def get_invoice(invoice_id: str) -> str:
        """Get an invoice."""
        raise raised

    async def aget_invoice(invoice_id: str) -> str:
        """Get an invoice."""
        raise raised

    built = langchain_tool(mode(aget_invoice if asynchronous else get_invoice))
    tool_call = {"name": "get_invoice", "args": {"invoice_id": "x"}, "id": "c1"}
    message = invoke(built, tool_call)
    assert message.status == "error"
    assert message.content == "invoice_id must look like inv-123"
    unhandled = langchain_tool(mode(get_invoice), handle_tool_error=False)
    with pytest.raises(ToolException) as caught:
        unhandled.invoke({"invoice_id": "x"})
    assert caught.value is raised


@pytest.mark.parametrize("mode", MODES.values(), ids=MODES.keys())
def test_agenterrs_own_tool_exception_is_still_classified(mode: Any) -> None:
    """Only plain ToolExceptions pass through: one of agenterr's, raised by the body, is a
    classified failure (its own outcome), in Outcome mode too."""
    raised = tool_exception(FAILURES[Class.SELF_CORRECTABLE])

    def direct(order_id: str) -> str:
        """Direct."""
        raise raised

    tool = mode(direct)
    if mode is classified_tool:
        assert tool("o-1") == FAILURES[Class.SELF_CORRECTABLE]
    message = invoke(langchain_tool(tool), {**call("o-1"), "name": "direct"})
    if mode is classified_tool:  # the Outcome it became is raised anew, naming the call
        named = {"tool": "direct", "arguments": {"order_id": "o-1"}}
        assert_model_text(message.content, FAILURES[Class.SELF_CORRECTABLE], **named)
    else:  # the very exception the body raised, built without the call
        assert_model_text(message.content, FAILURES[Class.SELF_CORRECTABLE])


# --- transient failures ----------------------------------------------------------------


def _retrying(fn: Any, attempts: int) -> Any:
    return retry(
        retry=retry_if_exception_type(TransientToolError),
        stop=stop_after_attempt(attempts),
        wait=wait_none(),
        reraise=True,
    )(fn)


def test_transient_failures_are_retried_inside_the_tool() -> None:
    """Tenacity between langchain_tool and the function retries transient failures only,
    before LangChain (and the model) sees them; the schema does not change."""
    answers = iter([503, 429, 200])
    hits: list[str] = []

    def flaky(order_id: str) -> dict[str, str]:
        """Flaky."""
        hits.append(order_id)
        status = next(answers) if order_id == "o-1" else 404
        response = httpx.Response(status, request=httpx.Request("GET", "https://orders.test"))
        response.raise_for_status()
        return {"id": order_id}

    built = langchain_tool(_retrying(classified_tool(flaky), 3))  # Outcome mode, adapted
    assert (
        built.tool_call_schema.model_json_schema()
        == tool(flaky).tool_call_schema.model_json_schema()
    )
    built = langchain_tool(_retrying(classified_tool(raises=True)(flaky), 3))
    message = invoke(built, {**call("o-1"), "name": "flaky"})
    assert (message.status, message.content) == ("success", '{"id": "o-1"}')
    assert hits == ["o-1"] * 3
    hits.clear()
    message = invoke(built, {**call("o-9"), "name": "flaky"})  # a 404 is not retried
    assert message.status == "error"
    assert hits == ["o-9"]


def test_transient_hint_reaches_the_model_once_retries_run_out() -> None:
    """handle_tool_error answers a transient failure too: the retries are over by then."""
    hits: list[str] = []

    @classified_tool(raises=True)
    def down(order_id: str) -> str:
        """Down."""
        hits.append(order_id)
        raise httpx.ReadTimeout("slow")

    message = invoke(langchain_tool(_retrying(down, 2)), {**call("o-1"), "name": "down"})
    assert hits == ["o-1", "o-1"]
    assert message.status == "error"
    assert_model_text(
        message.content,
        agenterr.from_error(httpx.ReadTimeout("slow")),
        tool="down",
        arguments={"order_id": "o-1"},
    )
    assert "your arguments were fine" in str(message.content)


# --- end to end: a fake chat model drives the tool -------------------------------------


class Transcript(BaseCallbackHandler):
    """The messages the chat model receives, one list per turn."""

    def __init__(self) -> None:
        self.turns: list[list[BaseMessage]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any
    ) -> None:
        self.turns.append(list(messages[0]))


@pytest.mark.parametrize("fn", [get_order, aget_order], ids=["sync", "async"])
def test_agent_loop_model_reads_the_hint(fn: Any) -> None:
    """A fake chat model calls the tool; a failed call's ToolMessage, as the model receives
    it next turn, is the model text with status "error"; the fixed call succeeds."""
    built = langchain_tool(classified_tool(fn))
    assert isinstance(built.args_schema, type)
    bare = StructuredTool.from_function(**{"coroutine" if fn is aget_order else "func": fn})
    assert isinstance(bare.args_schema, type)
    assert built.args_schema.model_json_schema() == bare.args_schema.model_json_schema()

    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage("", tool_calls=[call("o-404", "c1")]),
                AIMessage("", tool_calls=[call("o-1", "c2")]),
                AIMessage("Order o-1 has shipped."),
            ]
        )
    )
    transcript = Transcript()
    messages: list[BaseMessage] = [HumanMessage("Where is my order?")]

    async def loop() -> None:
        while True:
            reply = await model.ainvoke(messages, config={"callbacks": [transcript]})
            messages.append(reply)
            if not isinstance(reply, AIMessage) or not reply.tool_calls:
                return
            for tool_call in reply.tool_calls:
                result = await built.ainvoke(tool_call)
                assert isinstance(result, ToolMessage)
                messages.append(result)

    asyncio.run(loop())
    assert messages[-1].content == "Order o-1 has shipped."
    assert len(transcript.turns) == 3
    failed = transcript.turns[1][-1]  # what the model read on its second turn
    assert isinstance(failed, ToolMessage)
    assert failed.status == "error"
    assert failed.tool_call_id == "c1"
    assert_model_text(
        failed.content, expected("o-404"), tool=fn.__name__, arguments={"order_id": "o-404"}
    )
    ok = transcript.turns[2][-1]
    assert isinstance(ok, ToolMessage)
    assert (ok.status, ok.tool_call_id) == ("success", "c2")


# --- examples/langchain_tool.py --------------------------------------------------------


def test_example_agent_loop() -> None:
    """The example's model reads the 404 and schema hints, the 503 is retried inside the
    tool, and the fixed call succeeds."""
    example = Path(__file__).parent.parent / "examples" / "langchain_tool.py"
    run = subprocess.run(
        [sys.executable, "-W", "error", str(example)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "  same schema as the bare function: True" in lines
    not_found = tool_result_text(
        agenterr.from_status(404, '{"error":"no order with id o-9999"}'),
        tool="get_order",
        arguments={"order_id": "o-9999"},
    )
    assert not_found.startswith(DIRECTIVE[Class.SELF_CORRECTABLE])
    printed = "  -> error: " + not_found.replace("\n", "\n     ")  # the example indents it
    end = 3 + len(printed.splitlines())
    assert lines[2] == "turn 1: model calls get_order{'order_id': 'o-9999'}"
    assert "\n".join(lines[3:end]) == printed
    assert lines[end] == "turn 2: model calls get_order{'id': 'o-1001'}"
    # LangChain's own argument validation: handle_validation_error's SCHEMA_INVALID text.
    schema_text = agenterr.tool_result_text(agenterr.schema_invalid("order_id: Field required"))
    printed = "  -> error: " + schema_text.replace("\n", "\n     ")
    after = end + 1 + len(printed.splitlines())
    assert "\n".join(lines[end + 1 : after]) == printed
    assert lines[after:] == [
        "turn 3: model calls get_order{'order_id': 'o-1001'}",
        "  UNAVAILABLE class=transient status=503: retried inside the tool, no model turn spent",
        '  -> success: {"id": "o-1001", "status": "shipped"}',
        "answer: Order o-1001 has shipped.",
        "HTTP requests: 3",
        "the model saw 3 tool results: ['error', 'error', 'success']",
    ]
