"""What does a real model do with a failed tool call's text? Retry, fix, or escalate.

A local model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, assembled by ``setup_model.py``) plays
an agent. Each case is one conversation in the native tool-calling format: a system prompt of
the kind agent frameworks use, a user task, the model's own tool call, then the tool result as
the integration renders it. The model's next move is scored:

- the same call again (same tool, same arguments) is a **retry**;
- any other call (changed arguments, or a look-up tool) is a **fix**; for cases with a known
  right fix, it also counts whether the change touches the argument the API named;
- no call, only a message to the user, is an **escalation**.

The documented reaction of a class is retry for ``transient``, fix for ``self_correctable``,
and escalate for ``auth`` and ``indeterminate``. Each case is rendered four ways and all four
are asked in one run:

- ``raw_exc``: ``str(exc)`` of the exception a client raises (httpx's ``HTTPStatusError`` for
  an HTTP failure, the transport exception itself; for a failure inside a 2xx body no client
  raises, so the body is what the tool returns);
- ``raw_body``: status and body, the way most hand-written wrappers relay a failure;
- ``hint``: the outcome's ``llm_hint`` alone, which is what every integration sent before
  issue 20;
- ``model_text``: :func:`agenterr.tool_result_text` given the tool's name and the call's
  arguments, what every integration sends now (SPEC 6.8).

Cases: a stratified sample of the in-sample corpus (``tests/corpus/providers_*.json``),
transport exceptions, and hand-written self-correctable cases whose right fix is known, all
"in-sample" (the wording was tuned on them); and a "held-out" sample of
``tests/corpus/holdout_b.json``, never looked at while the wording was written. Two system
prompts. Decisions are cached by their exact prompt, so a rerun asks only what changed.

    python benchmarks/setup_model.py          # once: the model and its runtime
    python benchmarks/hint_eval.py            # the run: hint_eval.md, hint_eval.json, hint_eval.png

The scoring logic (:func:`parse_calls`, :func:`move_of`, :func:`addresses_fix`) has a CI test
with a scripted fake model (``tests/test_benchmarks_hint_eval.py``); the model itself never
runs in CI.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import json
import os
import random
import re
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hint_eval_scenarios import Scenario, scenario_for, tool

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = ROOT / "tests" / "corpus"
CACHE = HERE / ".model" / "decisions.jsonl"

VARIANTS = ("raw_exc", "raw_body", "hint", "model_text")
VARIANT_LABELS = {
    "raw_exc": "raw: str(exc)",
    "raw_body": "raw: status + body",
    "hint": "llm_hint alone (before)",
    "model_text": "tool_result_text, with the call (new)",
}
EXPECTED_MOVE = {
    "transient": "retry",
    "self_correctable": "fix",
    "auth": "escalate",
    "indeterminate": "escalate",
}
RAW_BODY_CAP = 1000  # characters of body a raw relay passes on; keeps prompts short

SYSTEM_PROMPTS = {
    "assistant": (
        "You are a helpful assistant. You can call the functions provided to complete the "
        "user's request."
    ),
    "ops_agent": (
        "You are Ops Agent, an autonomous agent that completes tasks for the user by calling "
        "tools. Decide which tool to call, call it, and read its result carefully before your "
        "next step. When the task is done, or you cannot go on, answer the user in a short "
        "message."
    ),
}


# --- scenarios ---------------------------------------------------------------------------


_tool = tool  # the known-fix cases' tools below


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "invoice",
            "Bill customer cus_4821 (Acme Ltd) 120 euros for the May retainer.",
            _tool(
                "create_invoice",
                "Create and send an invoice through the billing API.",
                customer_id=("string", "The billing customer id, like cus_123."),
                amount_cents=("integer", "Amount in the currency's minor unit."),
                currency=("string", "Three-letter ISO 4217 code."),
                description=("string", "Line item text."),
            ),
            _tool(
                "find_customer",
                "Search billing customers by name or email.",
                query=("string", "Name or email."),
            ),
            {
                "customer_id": "cus_4821",
                "amount_cents": 12000,
                "currency": "EUR",
                "description": "May retainer",
            },
        ),
        Scenario(
            "order",
            "Where is my order 58213? My email is dana@example.com.",
            _tool(
                "get_order",
                "Fetch an order and its shipping status from the shop API.",
                order_id=("string", "The order number."),
            ),
            _tool(
                "list_orders",
                "List a customer's orders by email.",
                email=("string", "The customer's email."),
            ),
            {"order_id": "58213"},
        ),
        Scenario(
            "message",
            "Post 'Deploy finished' to the ops channel.",
            _tool(
                "send_message",
                "Post a message to a team chat channel.",
                channel=("string", "Channel name or id."),
                text=("string", "Message text."),
            ),
            _tool("list_channels", "List the chat channels.", prefix=("string", "Name prefix.")),
            {"channel": "ops", "text": "Deploy finished"},
        ),
        Scenario(
            "summary",
            "Summarise this note in one sentence with the language model API: 'The Q3 roadmap "
            "moves the billing rewrite to October and drops the mobile beta.'",
            _tool(
                "generate_text",
                "Generate text with a hosted language model.",
                model=("string", "Model name."),
                prompt=("string", "The prompt."),
                max_tokens=("integer", "Most tokens to generate."),
            ),
            _tool("list_models", "List the models available.", family=("string", "Filter.")),
            {
                "model": "gpt-4o-mini",
                "prompt": "Summarise in one sentence: The Q3 roadmap moves the billing "
                "rewrite to October and drops the mobile beta.",
                "max_tokens": 60,
            },
        ),
        Scenario(
            "upload",
            "Save the text 'hello team' as notes/hello.txt in the team-docs bucket.",
            _tool(
                "upload_file",
                "Store a file in cloud object storage.",
                bucket=("string", "Bucket name."),
                path=("string", "Object key."),
                content=("string", "File content."),
            ),
            _tool("list_buckets", "List storage buckets.", prefix=("string", "Name prefix.")),
            {"bucket": "team-docs", "path": "notes/hello.txt", "content": "hello team"},
        ),
        Scenario(
            "forecast",
            "What's the weather in Lisbon for the next 3 days?",
            _tool(
                "get_forecast",
                "Daily weather forecast from the weather API.",
                city=("string", "City name."),
                days=("integer", "Number of days, 1 to 16."),
            ),
            _tool("search_places", "Find places by name.", query=("string", "Place name.")),
            {"city": "Lisbon", "days": 3},
        ),
    )
}


# --- cases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownFix:
    """The argument the failure names, and its bad value; ``lookup`` counts a look-up."""

    arg: str
    bad: Any
    lookup: bool = False


@dataclass
class Case:
    """One failed call: what the API or client produced, and which class documents it."""

    id: str
    split: str  # "in-sample" or "held-out"
    expected: str  # the documented class
    scenario: Scenario
    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    error: BaseException | None = None
    known_fix: KnownFix | None = None
    source: str = ""  # where the case comes from: a corpus file, or the blind set

    def the_call(self) -> dict[str, Any]:
        return self.scenario.call


def _corpus(pattern: str) -> list[dict[str, Any]]:
    return [
        entry
        for path in sorted(CORPUS.glob(pattern))
        for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]
    ]


def _sample(entries: list[dict[str, Any]], per_class: dict[str, int], seed: int) -> list[Any]:
    by_class: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        by_class.setdefault(entry["expected"]["class"], []).append(entry)
    rng = random.Random(seed)
    chosen = []
    for klass, count in per_class.items():
        pool = sorted(by_class.get(klass, []), key=lambda e: e["id"])
        chosen += rng.sample(pool, min(count, len(pool)))
    return chosen


def _from_entry(entry: dict[str, Any], split: str, source: str) -> Case:
    response = entry["response"]
    scenario, fit = scenario_for(entry["id"], entry.get("provider", ""))
    known_fix = None
    if fit is not None and fit.arg is not None:
        known_fix = KnownFix(fit.arg, scenario.call.get(fit.arg), fit.lookup)
    return Case(
        id=entry["id"],
        split=split,
        expected=entry["expected"]["class"],
        scenario=scenario,
        status=response["status"],
        headers=dict(response["headers"]),
        body=response["body"],
        known_fix=known_fix,
        source=source,
    )


def _transport_cases() -> list[Case]:
    import httpx
    from hint_eval_scenarios import DOMAINS

    request = httpx.Request("POST", "https://api.example.com/v1/items")
    errors: list[tuple[BaseException, str, str]] = [
        (httpx.ConnectTimeout("timed out", request=request), "llm", "OpenAI"),
        (
            httpx.ConnectError("[Errno 111] Connection refused", request=request),
            "database",
            "AWS DynamoDB",
        ),
        (httpx.ReadTimeout("The read operation timed out", request=request), "code", "GitHub"),
        (ConnectionResetError(104, "Connection reset by peer"), "storage", "AWS S3"),
        (socket.gaierror(-3, "Temporary failure in name resolution"), "chat", "Slack"),
    ]
    return [
        Case(
            id=f"transport-{type(e).__name__}",
            split="in-sample",
            expected="transient",
            scenario=DOMAINS[domain].for_provider(provider),
            error=e,
            source="transport",
        )
        for e, domain, provider in errors
    ]


def transport_error(name: str, message: str) -> BaseException:
    """The exception a client raises, from its dotted name (``httpx.ConnectTimeout``)."""
    import builtins
    import importlib

    module_name, _, class_name = name.rpartition(".")
    owner: Any = importlib.import_module(module_name) if module_name else builtins
    cls = getattr(owner, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise ValueError(f"not an exception class: {name!r}")
    if module_name.split(".")[0] == "httpx":
        import httpx

        return cls(message, request=httpx.Request("POST", "https://api.example.com/v1/items"))
    return cls(message)


def _blind_tool(value: Any) -> dict[str, Any]:
    """A blind case's tool: an OpenAI tool object, or its bare ``function`` part."""
    if isinstance(value, dict) and value.get("type") == "function" and "function" in value:
        return value
    if isinstance(value, dict) and "name" in value:
        return {"type": "function", "function": value}
    raise ValueError(f"not a tool definition: {str(value)[:80]}")


def blind_cases(path: Path, split: str = "held-out") -> list[Case]:
    """The cases of a blind set (``hint_eval_heldout.json``), each with its own scenario."""
    data = json.loads(path.read_text(encoding="utf-8"))
    cases = []
    for i, row in enumerate(data["cases"]):
        tool_, lookup = _blind_tool(row["tool"]), _blind_tool(row["lookup"])
        scenario = Scenario(
            name=f"blind:{row.get('id', i)}",
            task=row["task"],
            tool=tool_,
            lookup=lookup,
            call=dict(row["call"]),
        )
        failure = row["failure"]
        fix = row.get("known_fix")
        known_fix = None
        if fix:
            lookup_fix = fix.get("lookup", False)
            known_fix = KnownFix(fix["arg"], fix.get("bad"), bool(lookup_fix))
        case = Case(
            id=f"blind-{row.get('id', i)}",
            split=split,
            expected=row["expected_class"],
            scenario=scenario,
            known_fix=known_fix,
            source="blind",
        )
        if failure["kind"] == "http":
            case.status = int(failure["status"])
            case.headers = {str(k): str(v) for k, v in (failure.get("headers") or {}).items()}
            body = failure.get("body")
            case.body = body if isinstance(body, str) else json.dumps(body)
        elif failure["kind"] == "transport":
            case.error = transport_error(failure["exception"], failure.get("message", ""))
        else:
            raise ValueError(f"unknown failure kind {failure['kind']!r} in case {i}")
        if case.expected not in EXPECTED_MOVE:
            raise ValueError(f"unknown class {case.expected!r} in case {i}")
        cases.append(case)
    return cases


def blind_prompts(path: Path) -> dict[str, str]:
    """The system prompts a blind set brings (held out like its cases)."""
    if not path.exists():
        return {}
    prompts = json.loads(path.read_text(encoding="utf-8")).get("system_prompts") or {}
    return {str(k): str(v) for k, v in prompts.items()}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _known_fix_cases() -> list[Case]:
    """Self-correctable failures whose right fix is known: the call carries the bad value."""
    invoice, order = SCENARIOS["invoice"].call, SCENARIOS["order"].call
    summary, upload = SCENARIOS["summary"].call, SCENARIOS["upload"].call
    forecast, message = SCENARIOS["forecast"].call, SCENARIOS["message"].call
    stripe_like = '{{"error":{{"type":"invalid_request_error","message":{msg},"param":"{param}"}}}}'
    rows: list[tuple[str, str, int, str, dict[str, Any], KnownFix]] = [
        (
            "fix-invoice-currency",
            "invoice",
            400,
            stripe_like.format(
                msg=_json("Invalid currency: euro. Use a three-letter ISO 4217 code."),
                param="currency",
            ),
            {**invoice, "currency": "euro"},
            KnownFix("currency", "euro"),
        ),
        (
            "fix-invoice-amount-negative",
            "invoice",
            400,
            stripe_like.format(
                msg=_json("amount_cents must be a positive integer"), param="amount_cents"
            ),
            {**invoice, "amount_cents": -12000},
            KnownFix("amount_cents", -12000),
        ),
        (
            "fix-invoice-amount-units",
            "invoice",
            422,
            '{"errors":[{"field":"amount_cents","message":"must be an integer number of '
            'cents, got 120.5"}]}',
            {**invoice, "amount_cents": 120.5},
            KnownFix("amount_cents", 120.5),
        ),
        (
            "fix-invoice-customer-missing",
            "invoice",
            404,
            '{"error":{"type":"invalid_request_error","message":"No such customer: '
            '\'cus_4812\'","param":"customer_id","code":"resource_missing"}}',
            {**invoice, "customer_id": "cus_4812"},
            KnownFix("customer_id", "cus_4812", lookup=True),
        ),
        (
            "fix-invoice-customer-format",
            "invoice",
            400,
            '{"message":"customer_id must start with \\"cus_\\"","field":"customer_id"}',
            {**invoice, "customer_id": "4821"},
            KnownFix("customer_id", "4821"),
        ),
        (
            "fix-order-not-found",
            "order",
            404,
            '{"error":"not_found","message":"Order 52813 does not exist"}',
            {**order, "order_id": "52813"},
            KnownFix("order_id", "52813", lookup=True),
        ),
        (
            "fix-order-format",
            "order",
            422,
            '{"errors":{"order_id":["must contain only digits"]}}',
            {**order, "order_id": "#58213"},
            KnownFix("order_id", "#58213"),
        ),
        (
            "fix-message-channel-hash",
            "message",
            400,
            '{"error":"invalid_channel","message":"Channel names must not start with \'#\'"}',
            {**message, "channel": "#ops"},
            KnownFix("channel", "#ops"),
        ),
        (
            "fix-message-channel-missing",
            "message",
            404,
            '{"ok":false,"error":"channel_not_found","detail":"No channel named \'operations\'"}',
            {**message, "channel": "operations"},
            KnownFix("channel", "operations", lookup=True),
        ),
        (
            "fix-message-empty-text",
            "message",
            400,
            '{"error":"no_text","message":"text must not be empty"}',
            {**message, "text": ""},
            KnownFix("text", ""),
        ),
        (
            "fix-summary-model-missing",
            "summary",
            404,
            '{"error":{"message":"The model `gpt-4o-mni` does not exist.","type":'
            '"invalid_request_error","param":"model","code":"model_not_found"}}',
            {**summary, "model": "gpt-4o-mni"},
            KnownFix("model", "gpt-4o-mni", lookup=True),
        ),
        (
            "fix-summary-max-tokens",
            "summary",
            400,
            '{"error":{"message":"max_tokens is too large: 100000. This model supports at '
            'most 16384 completion tokens.","type":"invalid_request_error","param":'
            '"max_tokens","code":"invalid_value"}}',
            {**summary, "max_tokens": 100000},
            KnownFix("max_tokens", 100000),
        ),
        (
            "fix-summary-temperature-type",
            "summary",
            400,
            '{"error":{"message":"Invalid type for \'max_tokens\': expected an integer, but '
            'got a string instead.","param":"max_tokens","code":"invalid_type"}}',
            {**summary, "max_tokens": "sixty"},
            KnownFix("max_tokens", "sixty"),
        ),
        (
            "fix-upload-bucket-name",
            "upload",
            400,
            '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidBucketName</Code>'
            "<Message>The specified bucket is not valid.</Message><BucketName>Team Docs"
            "</BucketName></Error>",
            {**upload, "bucket": "Team Docs"},
            KnownFix("bucket", "Team Docs"),
        ),
        (
            "fix-upload-no-such-bucket",
            "upload",
            404,
            '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code>'
            "<Message>The specified bucket does not exist</Message><BucketName>teamdocs"
            "</BucketName></Error>",
            {**upload, "bucket": "teamdocs"},
            KnownFix("bucket", "teamdocs", lookup=True),
        ),
        (
            "fix-upload-key-slash",
            "upload",
            400,
            '{"error":{"code":400,"message":"Invalid object name: path must not start with '
            '\'/\'","status":"INVALID_ARGUMENT"}}',
            {**upload, "path": "/notes/hello.txt"},
            KnownFix("path", "/notes/hello.txt"),
        ),
        (
            "fix-forecast-days",
            "forecast",
            400,
            '{"cod":"400","message":"days must be between 1 and 16"}',
            {**forecast, "days": 30},
            KnownFix("days", 30),
        ),
        (
            "fix-forecast-city",
            "forecast",
            404,
            '{"cod":"404","message":"city not found: Lisbonn"}',
            {**forecast, "city": "Lisbonn"},
            KnownFix("city", "Lisbonn", lookup=True),
        ),
        (
            "fix-forecast-days-type",
            "forecast",
            422,
            '{"detail":[{"loc":["query","days"],"msg":"value is not a valid integer",'
            '"type":"type_error.integer"}]}',
            {**forecast, "days": "three"},
            KnownFix("days", "three"),
        ),
        (
            "fix-forecast-city-ambiguous",
            "forecast",
            400,
            '{"error":{"code":1006,"message":"No matching location found for \'L\'"}}',
            {**forecast, "city": "L"},
            KnownFix("city", "L", lookup=True),
        ),
    ]
    return [
        Case(
            id=case_id,
            split="in-sample",
            expected="self_correctable",
            scenario=scenario,
            status=status,
            headers={
                "content-type": "application/xml" if body.startswith("<") else "application/json"
            },
            body=body,
            known_fix=fix,
            source="known-fix",
        )
        for case_id, name, status, body, call, fix in rows
        for scenario in [dataclasses.replace(SCENARIOS[name], call=call)]
    ]


IN_SAMPLE_PER_CLASS = {"transient": 40, "self_correctable": 42, "auth": 56, "indeterminate": 12}
# The held-out sample of set B the first run used; a fresh sample leaves these out.
FIRST_HELD_OUT_PER_CLASS = {"transient": 8, "self_correctable": 8, "auth": 8, "indeterminate": 5}
HELD_OUT_PER_CLASS = {"transient": 12, "self_correctable": 12, "auth": 12, "indeterminate": 5}
BLIND = HERE / "hint_eval_heldout.json"


def build_cases(blind: Path | None = BLIND) -> list[Case]:
    """In-sample (corpus sample, transport, known-fix) then held-out cases, in a fixed order.

    Held out: a fresh sample of corpus set B (none of the first run's sample), and the blind
    set, when its file is there.
    """
    in_sample = [
        _from_entry(e, "in-sample", "providers")
        for e in _sample(_corpus("providers_*.json"), IN_SAMPLE_PER_CLASS, seed=20)
    ]
    set_b = _corpus("holdout_b.json")
    first = {e["id"] for e in _sample(set_b, FIRST_HELD_OUT_PER_CLASS, seed=20)}
    fresh = [e for e in set_b if e["id"] not in first]
    held_out = [
        _from_entry(e, "held-out", "holdout_b") for e in _sample(fresh, HELD_OUT_PER_CLASS, seed=21)
    ]
    if blind is not None and blind.exists():
        held_out += blind_cases(blind)
    return in_sample + _transport_cases() + _known_fix_cases() + held_out


# --- renderings --------------------------------------------------------------------------


def outcome_of(case: Case) -> Any:
    """agenterr's classification of the case, as the integrations would produce it."""
    from agenterr import from_envelope, from_error, from_status, succeeded

    if case.error is not None:
        return from_error(case.error)
    if succeeded(case.status):
        return from_envelope(case.body, headers=case.headers)
    return from_status(case.status, case.body, headers=case.headers)


def _raw_exc(case: Case) -> str:
    if case.error is not None:
        return str(case.error)
    if 200 <= case.status < 300:
        return case.body[:RAW_BODY_CAP]  # no client raises: the body is the tool's result
    import httpx

    request = httpx.Request("POST", "https://api.example.com/v1/items")
    response = httpx.Response(case.status, request=request, text=case.body)
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        return str(exc)
    return f"HTTP {case.status}"


def _raw_body(case: Case) -> str:
    if case.error is not None:
        return f"{type(case.error).__name__}: {case.error}"
    return f"HTTP {case.status}\n{case.body[:RAW_BODY_CAP]}"


def renderings(case: Case) -> dict[str, str]:
    """The four texts a framework could hand the model for this case."""
    from agenterr import tool_result_text

    outcome = outcome_of(case)
    hint = outcome.llm_hint if outcome.failed else _raw_exc(case)
    return {
        "raw_exc": _raw_exc(case),
        "raw_body": _raw_body(case),
        "hint": hint,
        "model_text": (
            tool_result_text(outcome, tool=case.scenario.tool_name, arguments=case.the_call())
            if outcome.failed
            else hint
        ),
    }


# --- scoring -----------------------------------------------------------------------------

# "// corrected" after a value: the model annotating its call, which it still means to make.
_LINE_COMMENT = re.compile(r"[ \t]+//[^\n]*|(?<=,)//[^\n]*")
_DECODER = json.JSONDecoder()


def _decoded_call(value: Any) -> tuple[str, dict[str, Any]] | None:
    """``{"name": …, "arguments": …}`` (or a ``tool_calls`` entry) as a call, else ``None``."""
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]  # a tool_calls entry written out as text
    if not (isinstance(value, dict) and isinstance(value.get("name"), str)):
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {}
    return value["name"], arguments if isinstance(arguments, dict) else {}


def _object_at(text: str, start: int) -> Any:
    """The JSON value starting at ``text[start]``; text after it is ignored."""
    try:
        return _DECODER.raw_decode(text, start)[0]
    except ValueError:
        return None


def _keywords(text: str, start: int) -> dict[str, Any] | None:
    """``(k="v", n=1)`` at ``text[start]`` as its keyword arguments, if all are literals."""
    end = text.find(")", start)
    while end >= 0:
        try:
            tree = ast.parse("f" + text[start : end + 1], mode="eval").body
        except SyntaxError:
            end = text.find(")", end + 1)
            continue
        if not isinstance(tree, ast.Call) or tree.args or not tree.keywords:
            return None
        try:
            return {k.arg: ast.literal_eval(k.value) for k in tree.keywords if k.arg}
        except ValueError:
            return None
    return None


def parse_calls(
    message: dict[str, Any], tools: Iterable[str] = ()
) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls in an assistant message: native ``tool_calls``, or a call in the text.

    A small model sometimes writes its call as text instead of the native format: JSON
    (``{"name": …, "arguments": …}``, in ``<tool_call>`` tags, a code fence or doubled
    braces, with trailing text or stray braces after it), or, for one of ``tools``, the
    call spelled ``name({…})`` or ``name(key="value", …)`` with literal values. Agent
    frameworks' parsers accept such calls too, so they count; so does a call the model
    annotates with ``// comments``. The first call found
    wins; prose, or JSON that is not a call, is none.
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {"_unparsed": arguments}
        calls.append(
            (str(function.get("name", "")), arguments if isinstance(arguments, dict) else {})
        )
    if calls:
        return calls
    content = message.get("content") or ""
    if not isinstance(content, str):
        return calls
    content = _LINE_COMMENT.sub("", content)
    names = tuple(tools)
    for i, char in enumerate(content):
        if char == "{":
            found = _decoded_call(_object_at(content, i))
        elif char == "(" and content[:i].rstrip().endswith(names) and names:
            head = content[:i].rstrip()
            name = next(n for n in names if head.endswith(n))
            if head[: len(head) - len(name)][-1:].isidentifier():
                continue  # "resend_email(" is not a call of "send_email"
            rest = content[i + 1 :].lstrip()
            arguments = _object_at(rest, 0) if rest.startswith("{") else _keywords(content, i)
            found = (name, arguments) if isinstance(arguments, dict) else None
        else:
            continue
        if found is not None:
            return [found]
    return calls


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def move_of(calls: list[tuple[str, dict[str, Any]]], tool_name: str, call: dict[str, Any]) -> str:
    """``retry``, ``fix`` or ``escalate``: what the model's next message does."""
    if not calls:
        return "escalate"
    name, arguments = calls[0]
    if name == tool_name and _same(arguments, call):
        return "retry"
    return "fix"


def addresses_fix(calls: list[tuple[str, dict[str, Any]]], case: Case) -> bool | None:
    """Whether a fix changes the argument the failure named (``None``: no known fix)."""
    fix = case.known_fix
    if fix is None:
        return None
    if not calls:
        return False
    scenario = case.scenario
    name, arguments = calls[0]
    if name == scenario.lookup_name:
        return fix.lookup
    if name != scenario.tool_name:
        return False
    return fix.arg in arguments and not _same(arguments[fix.arg], fix.bad)


# --- the model ---------------------------------------------------------------------------


def conversation(case: Case, system: str, text: str) -> dict[str, Any]:
    """The chat request whose answer is the model's next move."""
    scenario = case.scenario
    call = case.the_call()
    return {
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": scenario.task},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": scenario.tool_name, "arguments": _json(call)},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": text},
        ],
        "tools": [scenario.tool, scenario.lookup],
        "temperature": 0,
        # Room for a sentence and then a call, pretty-printed as this model writes it.
        "max_tokens": 128,
        "seed": 20,
    }


Model = Callable[[dict[str, Any]], dict[str, Any]]


def local_model(path: Path) -> Model:
    """The GGUF model under xllamacpp: a request in, the assistant message out."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = 8192
    params.n_parallel = 1
    # One thread by default: on a shared 2-core machine, a second thread spends its time
    # waiting for the first at every barrier. Greedy output does not depend on the count.
    threads = int(os.environ.get("HINT_EVAL_THREADS", "1"))
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1
    params.warmup = False
    # Draft tokens from n-grams already in the context: a retried call copies its arguments,
    # so most of it is accepted in one step. Greedy decoding gives the same text either way.
    params.speculative.types = [
        xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE
    ]
    server = xllamacpp.Server(params)

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        reply = server.handle_chat_completions(request)
        if "choices" not in reply:
            raise RuntimeError(f"model error: {str(reply)[:300]}")
        message: dict[str, Any] = reply["choices"][0]["message"]
        return message

    return ask


def _key(request: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()


def _load_cache(path: Path) -> dict[str, dict[str, Any]]:
    cache: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                cache[row["key"]] = row["message"]
    return cache


@dataclass
class Decision:
    case: str
    split: str
    expected: str
    agenterr_class: str | None
    prompt: str
    variant: str
    move: str
    addresses: bool | None
    text: str
    reply: dict[str, Any]


def run(
    model: Model | None,
    cases: Iterable[Case],
    prompts: Iterable[str] = tuple(SYSTEM_PROMPTS),
    variants: Iterable[str] = VARIANTS,
    cache_path: Path | None = CACHE,
    *,
    only: Callable[[Case, str], bool] = lambda case, variant: True,
    progress: Callable[[str], None] = lambda line: None,
) -> list[Decision]:
    """Ask the model for every (prompt, case, variant) that ``only`` keeps; cached answers
    are reused. A case's variants are asked one after another: they share the conversation
    up to the tool result, which the server keeps evaluated."""
    cache = _load_cache(cache_path) if cache_path else {}
    sink = cache_path.open("a", encoding="utf-8") if cache_path else None
    decisions: list[Decision] = []
    cases = list(cases)
    variants = list(variants)
    # Prompt, then scenario, then case: consecutive requests share the longest prefix,
    # which the server keeps evaluated.
    ordered = sorted(cases, key=lambda c: (c.scenario.name, c.id))
    prompts = list(prompts)
    total = sum(only(c, v) for c in ordered for v in variants) * len(prompts)
    done = 0
    started = time.monotonic()
    try:
        for prompt in prompts:
            for case in ordered:
                texts = renderings(case)
                outcome = outcome_of(case)
                scenario = case.scenario
                for variant in variants:
                    if not only(case, variant):
                        continue
                    request = conversation(case, SYSTEM_PROMPTS[prompt], texts[variant])
                    key = _key(request)
                    if key not in cache:
                        if model is None:
                            raise LookupError(f"no cached decision for {case.id}/{variant}")
                        cache[key] = model(request)
                        if sink:
                            sink.write(json.dumps({"key": key, "message": cache[key]}) + "\n")
                            sink.flush()
                    message = cache[key]
                    calls = parse_calls(message, (scenario.tool_name, scenario.lookup_name))
                    decisions.append(
                        Decision(
                            case=case.id,
                            split=case.split,
                            expected=case.expected,
                            agenterr_class=outcome.class_.value if outcome.failed else None,
                            prompt=prompt,
                            variant=variant,
                            move=move_of(calls, scenario.tool_name, case.the_call()),
                            addresses=addresses_fix(calls, case),
                            text=texts[variant],
                            reply=message,
                        )
                    )
                    done += 1
                    if done % 25 == 0:
                        rate = done / max(time.monotonic() - started, 1e-9)
                        progress(f"{done}/{total} decisions, {rate:.2f}/s")
    finally:
        if sink:
            sink.close()
    return decisions


# --- the report --------------------------------------------------------------------------

GROUPS = ("retry", "fix", "escalate")


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.0f}%)" if total else "—"


def summarise(decisions: list[Decision]) -> dict[str, Any]:
    """Per split, prompt and variant: the documented move taken, per expected move.

    Two bases: every case (against the documented class), and the cases where agenterr's
    class is the documented one (the hint's own job: is it followed?).
    """
    table: dict[str, Any] = {}
    for d in decisions:
        want = EXPECTED_MOVE[d.expected]
        right_class = d.agenterr_class == d.expected
        for basis, included in (("all", True), ("class_right", right_class)):
            if not included:
                continue
            cell = (
                table.setdefault(d.split, {})
                .setdefault(d.prompt, {})
                .setdefault(d.variant, {})
                .setdefault(basis, {g: [0, 0] for g in (*GROUPS, "total")})
            )
            for group in (want, "total"):
                cell[group][1] += 1
                cell[group][0] += d.move == want
        if d.addresses is not None and d.move == "fix":
            fix = (
                table.setdefault(d.split, {})
                .setdefault(d.prompt, {})
                .setdefault(d.variant, {})
                .setdefault("addresses", [0, 0])
            )
            fix[1] += 1
            fix[0] += bool(d.addresses)
    return table


def markdown(table: dict[str, Any], meta: dict[str, Any]) -> str:
    lines = [
        "# What a real model does with a failed tool call's text",
        "",
        f"Model: {meta['model']}. Run {meta['date']}, {meta['decisions']} decisions. "
        "Generated by `benchmarks/hint_eval.py`; see its docstring for the method.",
        "",
        "Each cell: the documented reaction taken / cases. *class right* counts only the "
        "cases where agenterr's class is the documented one (is the text followed?); *all* "
        "counts every case against its documented class. *fix addresses* is, among fixes of "
        "cases with a known right fix, how many changed the argument the API named.",
        "",
    ]
    for split in ("in-sample", "held-out"):
        for prompt in SYSTEM_PROMPTS:
            cells = table.get(split, {}).get(prompt)
            if not cells:
                continue
            lines += [
                f"## {split}, system prompt `{prompt}`",
                "",
                "| text the model saw | basis | retry | fix | escalate | all | fix addresses |",
                "| --- | --- | --- | --- | --- | --- | --- |",
            ]
            for variant in VARIANTS:
                cell = cells.get(variant)
                if not cell:
                    continue
                for basis in ("class_right", "all"):
                    c = cell[basis]
                    addresses = cell.get("addresses", [0, 0])
                    lines.append(
                        f"| {VARIANT_LABELS[variant]} | {basis.replace('_', ' ')} | "
                        + " | ".join(_rate(*c[g]) for g in (*GROUPS, "total"))
                        + f" | {_rate(*addresses) if basis == 'class_right' else ''} |"
                    )
            lines.append("")
    return "\n".join(lines)


def readme_table(table: dict[str, Any]) -> str:
    """The summary the README shows: the documented reaction taken where agenterr's class is
    right, per split, prompt and text, with the fix-addresses share where there is one."""
    lines = [
        "| cases | system prompt | text the model saw | retry | fix | escalate | all |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for split in ("in-sample", "held-out"):
        for prompt in SYSTEM_PROMPTS:
            cells = table.get(split, {}).get(prompt, {})
            for variant in VARIANTS:
                if variant not in cells:
                    continue
                c = cells[variant]["class_right"]
                name = VARIANT_LABELS[variant]
                if variant == "model_text":
                    name = f"**{name}**"
                lines.append(
                    f"| {split} | `{prompt}` | {name} | "
                    + " | ".join(_rate(*c[g]) for g in (*GROUPS, "total"))
                    + " |"
                )
    return "\n".join(lines)


def _write_readme(table: dict[str, Any], readme: Path) -> None:
    start, end = "<!-- model-eval:start -->", "<!-- model-eval:end -->"
    text = readme.read_text(encoding="utf-8")
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    readme.write_text(f"{head}{start}\n{readme_table(table)}\n{end}{tail}", encoding="utf-8")


def chart(table: dict[str, Any], path: Path) -> None:
    """A grouped bar chart: per split and prompt, per expected move, each variant's rate."""
    try:
        import matplotlib
    except ImportError:  # the table and report are written already; say what is missing
        print(f"no chart: {path} needs matplotlib (setup_model.py installs it)", file=sys.stderr)
        return

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        (s, p) for s in ("in-sample", "held-out") for p in SYSTEM_PROMPTS if p in table.get(s, {})
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=True)
    if len(panels) == 1:
        axes = [axes]
    colours = {
        "raw_exc": "#bbbbbb",
        "raw_body": "#888888",
        "hint": "#f0a030",
        "model_text": "#2a7ab0",
    }
    width = 0.2
    for ax, (split, prompt) in zip(axes, panels, strict=True):
        cells = table[split][prompt]
        for i, variant in enumerate(VARIANTS):
            if variant not in cells:
                continue
            values = []
            for group in (*GROUPS, "total"):
                hits, total = cells[variant]["class_right"][group]
                values.append(100 * hits / total if total else 0)
            xs = [x + (i - 1.5) * width for x in range(4)]
            ax.bar(xs, values, width, label=VARIANT_LABELS[variant], color=colours[variant])
        ax.set_xticks(range(4), [*GROUPS, "all"])
        ax.set_title(f"{split}, {prompt}", fontsize=9)
        ax.set_ylim(0, 100)
        ax.axhline(90, color="black", linewidth=0.6, linestyle="--")
    axes[0].set_ylabel("documented reaction taken, % (class right)")
    labels: dict[str, Any] = {}
    for ax in axes:  # one legend for every text asked in any panel
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            labels.setdefault(label, handle)
    fig.legend(list(labels.values()), list(labels), fontsize=7, loc="lower center", ncol=4)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Score a real model's reaction to failure text.")
    parser.add_argument(
        "--model", type=Path, default=HERE / ".model" / "qwen2.5-coder-1.5b-q4_k_m.gguf"
    )
    parser.add_argument("--split", choices=("in-sample", "held-out", "both"), default="both")
    parser.add_argument("--prompt", choices=(*SYSTEM_PROMPTS, "both"), default="both")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument(
        "--held-out",
        choices=("blind", "set-b", "both"),
        default="blind",
        help="which held-out cases: the blind set (the default), set B's fresh sample, or both",
    )
    parser.add_argument("--limit", type=int, default=0, help="first N cases only (a smoke run)")
    parser.add_argument("--classes", default="", help="only cases of these documented classes")
    parser.add_argument("--only-split-cases", default="", help="a comma-separated id prefix list")
    parser.add_argument(
        "--plan",
        default="",
        help="which variants under which prompt, a variant optionally for one split, e.g. "
        "'assistant=raw_body,model_text;ops_agent=model_text,hint@held-out' "
        "(overrides --prompt and --variants)",
    )
    parser.add_argument(
        "--missing", action="store_true", help="count the decisions not asked yet, and stop"
    )
    parser.add_argument("--readme", action="store_true", help="write the summary into README")
    parser.add_argument("--out", type=Path, default=HERE / "hint_eval")
    parser.add_argument(
        "--cache",
        type=Path,
        default=CACHE,
        help="the decisions file; two runs in parallel (one per prompt) each need their own",
    )
    args = parser.parse_args(argv)

    held_out = {"blind": {"blind"}, "set-b": {"holdout_b"}, "both": {"blind", "holdout_b"}}
    cases = [
        c
        for c in build_cases()
        if args.split in ("both", c.split)
        and (c.split != "held-out" or c.source in held_out[args.held_out])
    ]
    if args.classes:
        cases = [c for c in cases if c.expected in args.classes.split(",")]
    if args.only_split_cases:
        cases = [c for c in cases if c.id.startswith(tuple(args.only_split_cases.split(",")))]
    if args.limit:
        cases = cases[: args.limit]
    prompts = tuple(SYSTEM_PROMPTS) if args.prompt == "both" else (args.prompt,)
    variants = tuple(v for v in args.variants.split(",") if v)
    plan = _plan(args.plan) if args.plan else dict.fromkeys(prompts, variants)
    if args.missing:
        cache = _load_cache(args.cache)
        for prompt, chosen in plan.items():
            for entry in chosen:
                variant, _, split = entry.partition("@")
                some = [c for c in cases if split in ("", c.split)]
                missing = sum(
                    _key(conversation(c, SYSTEM_PROMPTS[prompt], renderings(c)[variant]))
                    not in cache
                    for c in some
                )
                print(f"{prompt} {entry}: {missing} of {len(some)} not asked yet")
        return
    model = _lazy(local_model, args.model) if args.model.exists() else None
    decisions = []
    for prompt, chosen in plan.items():
        specs = [entry.partition("@")[::2] for entry in chosen]
        decisions += run(
            model,
            cases,
            (prompt,),
            tuple(dict.fromkeys(variant for variant, _ in specs)),
            only=lambda case, variant, specs=specs: any(
                variant == v and split in ("", case.split) for v, split in specs
            ),
            cache_path=args.cache,
            progress=lambda s: print(s, file=sys.stderr),
        )
    table = summarise(decisions)
    meta = {
        "model": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (llama.cpp via xllamacpp, greedy)",
        "date": time.strftime("%Y-%m-%d"),
        "decisions": len(decisions),
    }
    args.out.with_suffix(".md").write_text(markdown(table, meta) + "\n", encoding="utf-8")
    args.out.with_suffix(".json").write_text(
        json.dumps(
            {"meta": meta, "table": table, "decisions": [d.__dict__ for d in decisions]},
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    chart(table, args.out.with_suffix(".png"))
    if args.readme:
        _write_readme(table, ROOT / "README.md")
    print(markdown(table, meta))


def _plan(text: str) -> dict[str, tuple[str, ...]]:
    """``prompt=variant,variant@split;…`` as {prompt: variants}; a variant may name one split."""
    plan: dict[str, tuple[str, ...]] = {}
    for part in text.split(";"):
        prompt, _, variants = part.partition("=")
        chosen = tuple(v for v in variants.split(",") if v)
        names = {v.partition("@")[0] for v in chosen}
        splits = {v.partition("@")[2] for v in chosen} - {""}
        if (
            prompt not in SYSTEM_PROMPTS
            or not names <= set(VARIANTS)
            or not splits <= {"in-sample", "held-out"}
        ):
            raise SystemExit(f"--plan: unknown prompt, variant or split in {part!r}")
        plan[prompt] = chosen
    return plan


def _lazy(factory: Callable[[Path], Model], path: Path) -> Model:
    """The model, loaded on its first question (a fully cached run never loads it)."""
    loaded: list[Model] = []

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        if not loaded:
            loaded.append(factory(path))
        return loaded[0](request)

    return ask


def iter_failures(decisions: list[Decision], variant: str) -> Iterator[Decision]:
    """Decisions of ``variant`` where agenterr's class was right and the move was not."""
    for d in decisions:
        if (
            d.variant == variant
            and d.agenterr_class == d.expected
            and d.move != EXPECTED_MOVE[d.expected]
        ):
            yield d


if __name__ == "__main__":
    main()
