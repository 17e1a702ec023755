"""The model evaluation's own logic, against a scripted fake model (no model, no timing)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ._bench import load_benchmark

hint_eval = load_benchmark("hint_eval")
hint_eval_scenarios = load_benchmark("hint_eval_scenarios")
Case = hint_eval.Case
SCENARIOS = hint_eval.SCENARIOS


def _call_message(name: str, arguments: dict[str, Any], style: str = "native") -> dict[str, Any]:
    if style == "native":
        return {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
            ],
        }
    text = json.dumps({"name": name, "arguments": arguments}, indent=2)
    if style == "fenced":
        return {"role": "assistant", "content": f"```json\n{text}\n```"}
    if style == "braces":  # the doubled braces some chat templates print
        return {
            "role": "assistant",
            "content": "{" + json.dumps({"name": name, "arguments": arguments}) + "}",
        }
    assert style == "tagged"
    return {"role": "assistant", "content": f"<tool_call>\n{text}\n</tool_call>"}


INVOICE = SCENARIOS["invoice"]


@pytest.mark.parametrize("style", ["native", "fenced", "braces", "tagged"])
def test_parse_calls_reads_every_call_format(style: str) -> None:
    """Native tool calls and calls written as JSON text are both read as calls."""
    message = _call_message("create_invoice", INVOICE.call, style)
    assert hint_eval.parse_calls(message) == [("create_invoice", INVOICE.call)]


_ARGUMENTS = json.dumps(INVOICE.call)
_NAMED_CALL = json.dumps({"name": "create_invoice", "arguments": INVOICE.call})


@pytest.mark.parametrize(
    "content",
    [
        # Doubled braces around a call whose arguments hold an object, and a stray brace.
        "{" + _NAMED_CALL + "}}",
        # A sentence, then the call; text after it.
        "I will retry. " + _NAMED_CALL + " Done.",
        # The call spelled as a function call of one of the offered tools.
        "create_invoice(" + _ARGUMENTS + ")",
        "Calling create_invoice ( " + _ARGUMENTS + " ).",
        # Python's keyword spelling, literal values only.
        "create_invoice("
        + ", ".join(f"{k}={v!r}" for k, v in INVOICE.call.items())
        + ") (retrying)",
    ],
)
def test_parse_calls_reads_calls_written_loosely(content: str) -> None:
    """A call written as text counts however it is wrapped, if it names its arguments."""
    message = {"role": "assistant", "content": content}
    tools = ("create_invoice", "find_customer")
    assert hint_eval.parse_calls(message, tools) == [("create_invoice", INVOICE.call)]


@pytest.mark.parametrize(
    "content",
    [
        "recreate_invoice(" + _ARGUMENTS + ")",  # not an offered tool's name
        "create_invoice with amount_cents 12000",  # no arguments object
        "create_invoice([1, 2])",  # arguments that are not an object
        "create_invoice(customer_id=lookup())",  # a keyword value that is not a literal
    ],
)
def test_parse_calls_does_not_guess(content: str) -> None:
    """A function-call spelling counts only for an offered tool, with an arguments object."""
    message = {"role": "assistant", "content": content}
    assert hint_eval.parse_calls(message, ("create_invoice",)) == []


def test_parse_calls_of_a_message_without_a_call() -> None:
    """Prose, or JSON that is not a call, is no call."""
    assert hint_eval.parse_calls({"role": "assistant", "content": "The API needs a new key."}) == []
    assert hint_eval.parse_calls({"role": "assistant", "content": 'Got {"error": "x"} back.'}) == []
    assert hint_eval.parse_calls({"role": "assistant", "content": None}) == []


@pytest.mark.parametrize(
    ("calls", "move"),
    [
        ([], "escalate"),
        ([("create_invoice", dict(INVOICE.call))], "retry"),
        ([("create_invoice", dict(reversed(list(INVOICE.call.items()))))], "retry"),
        ([("create_invoice", {**INVOICE.call, "currency": "USD"})], "fix"),
        (
            [("create_invoice", {k: v for k, v in INVOICE.call.items() if k != "description"})],
            "fix",
        ),
        ([("find_customer", {"query": "Acme"})], "fix"),
    ],
)
def test_move_of(calls: list[tuple[str, dict[str, Any]]], move: str) -> None:
    """The same call is a retry (key order aside), any other call a fix, no call escalation."""
    assert hint_eval.move_of(calls, "create_invoice", INVOICE.call) == move


def test_addresses_fix() -> None:
    """A fix addresses the failure when it changes the named argument, or looks it up when
    the failure is a missing resource."""
    (currency,) = [c for c in hint_eval.build_cases() if c.id == "fix-invoice-currency"]
    (customer,) = [c for c in hint_eval.build_cases() if c.id == "fix-invoice-customer-missing"]
    bad = currency.the_call()
    assert hint_eval.addresses_fix([("create_invoice", {**bad, "currency": "EUR"})], currency)
    assert not hint_eval.addresses_fix([("create_invoice", {**bad, "amount_cents": 1})], currency)
    assert not hint_eval.addresses_fix([("find_customer", {"query": "Acme"})], currency)
    assert hint_eval.addresses_fix([("find_customer", {"query": "Acme"})], customer)
    assert not hint_eval.addresses_fix([], customer)
    corpus_case = next(c for c in hint_eval.build_cases() if c.known_fix is None)
    assert hint_eval.addresses_fix([("x", {})], corpus_case) is None


def test_build_cases_meets_the_issue_counts() -> None:
    """At least 150 corpus failures in-sample across four classes, a held-out part from
    held-out set B only, and known-fix cases whose call carries the bad value."""
    cases = hint_eval.build_cases()
    in_sample = [c for c in cases if c.split == "in-sample"]
    from_corpus = [c for c in in_sample if c.source == "providers"]
    assert len(from_corpus) >= 150
    assert {c.expected for c in from_corpus} == {
        "transient",
        "self_correctable",
        "auth",
        "indeterminate",
    }
    held_out = [c for c in cases if c.split == "held-out" and c.source == "holdout_b"]
    assert held_out and all(c.id.startswith("hb-") for c in held_out)
    assert len({c.id for c in cases}) == len(cases)
    for case in cases:
        if case.known_fix is not None:
            assert case.the_call()[case.known_fix.arg] == case.known_fix.bad


def test_the_fresh_held_out_sample_leaves_the_first_one_out() -> None:
    """Set B's held-out cases are none of those the first run's sample used."""
    set_b = hint_eval._corpus("holdout_b.json")
    first = {e["id"] for e in hint_eval._sample(set_b, hint_eval.FIRST_HELD_OUT_PER_CLASS, 20)}
    fresh = {c.id for c in hint_eval.build_cases(blind=None) if c.split == "held-out"}
    assert fresh and not fresh & first


def test_every_call_fits_its_tool() -> None:
    """Each case's call names only its tool's parameters, and all the required ones."""
    for case in hint_eval.build_cases(blind=None):
        parameters = case.scenario.tool["function"]["parameters"]
        assert set(case.the_call()) <= set(parameters["properties"]), case.id
        assert set(parameters["required"]) <= set(case.the_call()), case.id
        assert "{p}" not in json.dumps([case.scenario.task, case.scenario.tool]), case.id


@pytest.mark.parametrize(
    ("provider", "domain"),
    [
        ("OpenAI", "llm"),
        ("NVIDIA NIM (build.nvidia.com / NIM API)", "llm"),
        ("AWS SES", "email"),
        ("AWS STS", "identity"),
        ("Google Cloud Storage (XML API)", "storage"),
        ("Google Cloud Pub/Sub", "events"),
        ("MCP server: filesystem (modelcontextprotocol/servers reference)", "files"),
        ("MCP server: GitHub official (github/github-mcp-server)", "code"),
        ("Starknet JSON-RPC", "chain"),
        ("JSON-RPC 2.0", "rpc"),
        ("Dropbox", "storage"),
        ("Processes Inc", "api"),  # "ses" inside a word is no match
    ],
)
def test_domain_of(provider: str, domain: str) -> None:
    """A provider's failures are asked in its domain's scenario; unknown ones in a generic API."""
    assert hint_eval_scenarios.domain_of(provider) == domain


def test_a_fit_puts_the_named_value_in_the_call() -> None:
    """A fitted corpus case's call carries the value its body names, as its known fix."""
    (case,) = [c for c in hint_eval.build_cases(blind=None) if c.id == "c-nim-404-model"]
    assert case.scenario.tool_name == "generate_text"
    assert case.the_call()["model"] == "meta/llama3-8b"
    assert case.known_fix == hint_eval.KnownFix("model", "meta/llama3-8b", lookup=True)
    assert "NVIDIA NIM" in case.scenario.task


def _blind_file(tmp_path: Path) -> Path:
    forecast = SCENARIOS["forecast"]
    rows = [
        {
            "id": "b1",
            "task": forecast.task,
            "tool": forecast.tool,
            "lookup": forecast.lookup["function"],  # the bare function part is accepted too
            "call": {"city": "Lisbonn", "days": 3},
            "failure": {"kind": "http", "status": 404, "headers": {}, "body": "city not found"},
            "expected_class": "self_correctable",
            "known_fix": {"arg": "city", "bad": "Lisbonn", "lookup": True},
        },
        {
            "id": "b2",
            "task": forecast.task,
            "tool": forecast.tool,
            "lookup": forecast.lookup,
            "call": forecast.call,
            "failure": {
                "kind": "transport",
                "exception": "httpx.ConnectTimeout",
                "message": "timed out",
            },
            "expected_class": "transient",
            "known_fix": None,
        },
        {
            "id": "b3",
            "task": forecast.task,
            "tool": forecast.tool,
            "lookup": forecast.lookup,
            "call": forecast.call,
            "failure": {"kind": "http", "status": 401, "headers": {}, "body": {"error": "no"}},
            "expected_class": "auth",
            "known_fix": None,
        },
    ]
    path = tmp_path / "blind.json"
    path.write_text(json.dumps({"system_prompts": {"framework_a": "A."}, "cases": rows}))
    return path


def test_blind_cases_are_read_with_their_own_scenarios(tmp_path: Path) -> None:
    """A blind set's case brings its task, tools, call, failure, class and known fix."""
    path = _blind_file(tmp_path)
    fix, transport, auth = hint_eval.blind_cases(path)
    assert fix.id == "blind-b1" and fix.split == "held-out" and fix.status == 404
    assert fix.the_call() == {"city": "Lisbonn", "days": 3}
    assert fix.scenario.lookup_name == "search_places"
    assert fix.known_fix == hint_eval.KnownFix("city", "Lisbonn", lookup=True)
    import httpx

    assert isinstance(transport.error, httpx.ConnectTimeout)
    assert hint_eval.outcome_of(transport).class_.value == "transient"
    assert auth.body == '{"error": "no"}'  # a JSON body given as an object is sent as JSON
    assert hint_eval.outcome_of(auth).class_.value == "auth"
    assert hint_eval.blind_prompts(path) == {"framework_a": "A."}
    assert [c.id for c in hint_eval.build_cases(blind=path)][-3:] == [
        c.id for c in (fix, transport, auth)
    ]


def test_a_blind_case_that_cannot_be_read_says_why(tmp_path: Path) -> None:
    """An unknown failure kind, class or exception is an error naming it, not a guess."""
    path = _blind_file(tmp_path)
    data = json.loads(path.read_text())
    data["cases"][1]["failure"]["exception"] = "json.dumps"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"json\.dumps"):
        hint_eval.blind_cases(path)
    data["cases"][1]["failure"] = {"kind": "dns"}
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="dns"):
        hint_eval.blind_cases(path)


def test_transport_error_builds_the_client_exception() -> None:
    """httpx exceptions get a request, the builtins and other modules' just the message."""
    import socket

    import httpx

    error = hint_eval.transport_error("httpx.ReadTimeout", "slow")
    assert isinstance(error, httpx.ReadTimeout) and str(error) == "slow"
    assert isinstance(
        hint_eval.transport_error("ConnectionResetError", "reset"), ConnectionResetError
    )
    assert isinstance(hint_eval.transport_error("socket.timeout", "t"), socket.timeout)


class ScriptedModel:
    """Answers by the documented class: retries transient, fixes the named argument of a
    known-fix case (or changes another one), and escalates the rest; it also records the
    requests it was asked."""

    def __init__(self, cases: list[Any]) -> None:
        self.by_text: dict[str, Any] = {}
        self.requests: list[dict[str, Any]] = []
        self.cases = cases

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        call = json.loads(request["messages"][2]["tool_calls"][0]["function"]["arguments"])
        name = request["messages"][2]["tool_calls"][0]["function"]["name"]
        tool_text = request["messages"][3]["content"]
        if "RETRY" in tool_text or "rate-limiting" in tool_text:
            return _call_message(name, call, "fenced")
        if "FIX" in tool_text:
            changed = dict(call)
            key = next(iter(changed))
            changed[key] = f"{changed[key]}-corrected"
            return _call_message(name, changed, "braces")
        return {"role": "assistant", "content": "I could not finish: the tool failed."}


def test_run_scores_a_scripted_model(tmp_path: Path) -> None:
    """A run asks every (prompt, case, variant), caches answers, and scores the moves."""
    cases = [c for c in hint_eval.build_cases() if c.split == "in-sample"][:4]
    cases += [c for c in hint_eval.build_cases() if c.id == "fix-invoice-currency"]
    model = ScriptedModel(cases)
    cache = tmp_path / "decisions.jsonl"
    decisions = hint_eval.run(model, cases, ("assistant",), ("raw_body", "model_text"), cache)
    assert len(decisions) == len(model.requests) == 2 * len(cases)
    for d in decisions:
        if d.variant == "model_text" and d.agenterr_class == "transient":
            assert d.move == "retry"
        if d.variant == "raw_body" and "rate-limiting" not in d.text:
            assert d.move == "escalate"
    (fix,) = [
        d for d in decisions if d.case == "fix-invoice-currency" and d.variant == "model_text"
    ]
    assert fix.move == "fix"
    assert fix.addresses is False  # the script changed customer_id, not the currency

    # A second run is answered from the cache alone.
    again = hint_eval.run(None, cases, ("assistant",), ("raw_body", "model_text"), cache)
    assert [(d.case, d.move) for d in again] == [(d.case, d.move) for d in decisions]

    table = hint_eval.summarise(decisions)
    cell = table["in-sample"]["assistant"]["model_text"]
    assert cell["addresses"] == [0, 1]
    assert cell["all"]["total"][1] == len(cases)
    report = hint_eval.markdown(table, {"model": "scripted", "date": "today", "decisions": 10})
    assert "| tool_result_text, with the call (new) | class right |" in report
    summary = hint_eval.readme_table(table)
    assert "| in-sample | `assistant` | **tool_result_text, with the call (new)** |" in summary
    assert "| in-sample | `assistant` | raw: status + body |" in summary


def test_run_without_a_model_needs_the_cache(tmp_path: Path) -> None:
    """With no model and no cached answer, a run says which decision is missing."""
    case = hint_eval.build_cases()[0]
    with pytest.raises(LookupError, match=case.id):
        hint_eval.run(None, [case], ("assistant",), ("hint",), tmp_path / "empty.jsonl")


def test_conversation_is_in_the_native_tool_format() -> None:
    """System prompt, user task, the model's own call, then the tool result as rendered."""
    case = next(c for c in hint_eval.build_cases() if c.id == "fix-invoice-currency")
    request = hint_eval.conversation(case, "SYSTEM", "TEXT")
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user", "assistant", "tool"]
    call = request["messages"][2]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"])["currency"] == "euro"
    assert request["messages"][3] == {"role": "tool", "tool_call_id": call["id"], "content": "TEXT"}
    assert [t["function"]["name"] for t in request["tools"]] == ["create_invoice", "find_customer"]


def test_renderings_of_an_http_failure() -> None:
    """raw_exc is httpx's own message, raw_body the status and body, model_text agenterr's."""
    from agenterr import tool_result_text

    case = next(c for c in hint_eval.build_cases() if c.id == "fix-invoice-currency")
    texts = hint_eval.renderings(case)
    assert texts["raw_exc"].startswith("Client error '400 Bad Request' for url")
    assert texts["raw_body"] == f"HTTP 400\n{case.body}"
    assert texts["hint"] == hint_eval.outcome_of(case).llm_hint
    assert texts["model_text"] == tool_result_text(
        hint_eval.outcome_of(case), tool=case.scenario.tool_name, arguments=case.the_call()
    )


def test_chart_without_matplotlib_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report and table are written before the chart, so a missing matplotlib costs only
    the PNG, with a line saying what to install."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    target = tmp_path / "hint_eval.png"
    hint_eval.chart({}, target)
    assert not target.exists()
    assert "needs matplotlib" in capsys.readouterr().err
