"""Provider-aware refinements (SPEC section 11): Python-side behaviour beyond the vectors.

The conformance vectors pin the rules on text bodies and header lists; these tests cover what
vectors cannot express (parsed-JSON bodies, client response objects, header containers, the
fast paths and their caches, bounded cost) and the body reader's limits.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import httpx2
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from agenterr import Class, Code, from_error, from_response, from_status
from agenterr._rules import BUILTIN, GRPC_NAMES, INDEX, code_for_identifier, normalise
from agenterr._signals import PARSE_LIMIT, read_signals

THROTTLING = {"__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException", "message": "x"}
QUOTA = {"error": {"message": "quota", "type": "insufficient_quota", "code": "insufficient_quota"}}


def test_identifier_table_has_one_group_per_identifier() -> None:
    """No identifier is listed in two groups (the table would depend on listing order)."""
    seen: dict[str, tuple[Code, bool]] = {}
    for rule in BUILTIN:
        if rule.kind == "identifier" and rule.scope == "any":
            key = normalise(str(rule.match))
            assert seen.setdefault(key, (rule.code, rule.quota)) == (rule.code, rule.quota), rule
    assert len(INDEX.identifiers) == len(seen)


@pytest.mark.parametrize(
    ("identifier", "code"),
    [
        ("ThrottlingException", Code.RATE_LIMITED),
        ("rate_limit_exceeded", Code.RATE_LIMITED),
        ("rateLimitExceeded", Code.RATE_LIMITED),
        ("RATE-LIMIT-EXCEEDED", Code.RATE_LIMITED),
        ("insufficient_quota", Code.UNAUTHORIZED),
        ("ExpiredToken", Code.UNAUTHORIZED),
        ("RequestTimeout", Code.TIMEOUT),
        ("AnotherOperationInProgress", Code.UNAVAILABLE),
        ("NoSuchKey", Code.NOT_FOUND),
        ("ALREADY_EXISTS", Code.INVALID_REQUEST),
        ("fatal_error", Code.UNKNOWN),
        ("token expired", Code.UNAUTHORIZED),  # Slack token_expired, compared normalised
        ("no such thing here", None),
        ("", None),
        (42, None),
    ],
)
def test_code_for_identifier(identifier: object, code: Code | None) -> None:
    """Identifiers compare by their ASCII letters and digits, case-insensitively."""
    assert code_for_identifier(identifier) is code


def test_normalise_ignores_non_ascii_look_alikes() -> None:
    """The Kelvin sign lower-cases to 'k' in Unicode; SPEC 11.3 drops it instead."""
    assert normalise("\u212aey") == "ey"
    assert normalise("x" * 300) == "x" * 128


def test_grpc_names_are_all_classified_except_ok_and_unknown() -> None:
    """Every gRPC status name but OK and UNKNOWN names a reaction."""
    unclassified = {name for name in GRPC_NAMES if code_for_identifier(name) is None}
    assert unclassified == {"OK", "UNKNOWN"}
    assert len(GRPC_NAMES) == 17


# --- the body reader ---------------------------------------------------------------


def test_reader_collects_in_spec_order() -> None:
    """error.{code,type,status,reason}, inner errors, details, then top-level members."""
    body = {
        "error": {
            "code": "a",
            "type": "b",
            "status": "c",
            "reason": "d",
            "message": "m1",
            "innerError": {"code": "e"},
            "errors": [{"reason": "f", "code": "g"}],
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "h"}],
        },
        "__type": "ns#i:extra",
        "code": "j",
        "message": "m2",
        "errors": [{"extensions": {"code": "k"}, "message": "m3"}],
    }
    signals = read_signals(body)
    assert signals.identifiers == ("a", "b", "d", "e", "f", "g", "h", "i", "j", "k")
    assert signals.generic == ("c",)  # error.status, consulted only when nothing else matched
    assert signals.messages == ("m1", "m2", "m3")
    assert signals.quota_names is None
    assert read_signals(json.dumps(body)) == signals
    assert read_signals(json.dumps(body).encode()) == signals


def test_reader_bounds_arrays_and_counts() -> None:
    """Only the first 16 members of an array, at most 8 messages, identifiers capped."""
    body = {"errors": [{"code": f"c{i}", "message": f"m{i}"} for i in range(100)]}
    signals = read_signals(body)
    assert signals.identifiers == tuple(f"c{i}" for i in range(16))
    assert signals.messages == tuple(f"m{i}" for i in range(8))
    long = read_signals({"code": "x" * 1000, "message": "y" * 5000})
    assert long.identifiers == ("x" * 128,)
    assert long.messages == ("y" * 2048,)


def test_reader_ignores_numbers_and_wrong_types() -> None:
    """Numbers are never identifiers; members of another type are skipped."""
    signals = read_signals({"error": {"code": 429, "type": ["x"], "status": None}, "errors": 5})
    assert signals.identifiers == ()


def test_reader_google_retry_info_and_quota_facts() -> None:
    """RetryInfo gives a delay in both Duration forms; QuotaFailure gives quota facts."""
    details: list[dict[str, Any]] = [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"},
        {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
    ]
    signals = read_signals({"error": {"details": details}})
    assert signals.retry_delay == 1.5
    assert signals.quota_names == ()
    details[0]["retryDelay"] = {"seconds": "3", "nanos": 500_000_000}
    assert read_signals({"error": {"details": details}}).retry_delay == 3.5
    for bad in ("1.5", "-1s", "1e3s", " 1s", {"seconds": -1}, {"seconds": 1.5}, None):
        details[0]["retryDelay"] = bad
        assert read_signals({"error": {"details": details}}).retry_delay is None, bad


def test_reader_xml_and_limits() -> None:
    """XML <Code> is read even beyond the parse limit; JSON beyond it is not parsed."""
    xml = "<Error><Code> SlowDown </Code><Message>Reduce your rate</Message></Error>"
    assert read_signals(xml).identifiers == ("SlowDown",)
    assert read_signals(xml).messages == ("Reduce your rate",)
    assert read_signals(xml + " " * (2 * PARSE_LIMIT)).identifiers == ("SlowDown",)
    beyond = json.dumps({"code": "SlowDown", "pad": "x" * PARSE_LIMIT})
    assert read_signals(beyond).identifiers == ()
    within = json.dumps({"code": "SlowDown", "pad": "x" * (PARSE_LIMIT - 40)})
    assert len(within) <= PARSE_LIMIT
    assert read_signals(within).identifiers == ("SlowDown",)


@pytest.mark.parametrize(
    "body",
    ["{", "[1, 2", "{'a': 1}", "[" * 100_000 + "]" * 100_000, "plain text", "", b"\xff\xfe{", 7],
)
def test_reader_never_raises_on_junk(body: object) -> None:
    """Malformed JSON, deep nesting, non-text: no signals, no exception."""
    assert read_signals(body).identifiers == ()


# --- classification through every body and header container ------------------------


@pytest.mark.parametrize(
    "body",
    [THROTTLING, json.dumps(THROTTLING), json.dumps(THROTTLING).encode()],
    ids=["dict", "str", "bytes"],
)
def test_aws_throttling_400_is_rate_limited(body: object) -> None:
    """A parsed-JSON body refines like its text (SPEC 7.5 lets Python accept both)."""
    outcome = from_status(400, body, headers={"x-amzn-RequestId": "r"})
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.class_ is Class.TRANSIENT


def test_refinements_apply_to_memoryview_and_bytearray() -> None:
    """Every bytes-like body is read."""
    raw = json.dumps(QUOTA).encode()
    for body in (bytearray(raw), memoryview(raw)):
        assert from_status(429, body).code is Code.UNAUTHORIZED


def test_quota_hint_says_billing_not_token() -> None:
    """An exhausted quota is escalated with a hint about billing, not credentials."""
    outcome = from_status(429, json.dumps(QUOTA))
    assert outcome.code is Code.UNAUTHORIZED
    assert "quota or billing limit is exhausted (HTTP 429)" in outcome.llm_hint
    assert "token" not in outcome.llm_hint
    assert outcome.retry_after is None


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_from_response_refines_httpx(module: Any) -> None:
    """httpx and httpx2 responses: headers and body are both read."""
    request = module.Request("GET", "https://api.github.com/user")
    response = module.Response(
        403,
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000060"},
        json={"message": "API rate limit exceeded"},
        request=request,
    )
    outcome = from_response(response, now=1_700_000_000)
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 60.0
    with pytest.raises(module.HTTPStatusError) as caught:
        response.raise_for_status()
    assert from_error(caught.value, now=1_700_000_000) == outcome


def test_from_response_refines_requests() -> None:
    """A requests response with an S3 XML error body."""
    response = requests.Response()
    response.status_code = 400
    response.headers["Content-Type"] = "application/xml"
    response._content = b"<Error><Code>RequestTimeout</Code><Message>idle</Message></Error>"
    outcome = from_response(response)
    assert outcome.code is Code.TIMEOUT
    assert "RequestTimeout" in outcome.llm_hint


def test_date_header_is_the_clock_for_http_dates() -> None:
    """Retry-After as an HTTP-date is measured against the response's Date (clock skew)."""
    headers = {
        "Date": "Sun, 06 Nov 1994 08:49:00 GMT",
        "Retry-After": "Sun, 06 Nov 1994 08:49:30 GMT",
    }
    # The local clock is a day off; the server's own Date decides.
    assert from_status(503, headers=headers, now=784_111_740 + 86_400).retry_after == 30.0
    assert from_status(503, headers=headers, now=784_111_740 - 86_400).retry_after == 30.0
    del headers["Date"]
    assert from_status(503, headers=headers, now=784_111_740).retry_after == 30.0


def test_header_pairs_and_case_variants() -> None:
    """Header lists and odd capitalisation reach the refinements."""
    pairs = [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset-After", "2.5")]
    outcome = from_status(403, headers=pairs)
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 2.5


# --- fast paths and caches must not mask a refinement ------------------------------


@pytest.mark.parametrize(
    ("status", "headers", "code"),
    [
        (403, {"x-ratelimit-remaining": "0"}, Code.RATE_LIMITED),
        (403, {"Retry-After": "5"}, Code.RATE_LIMITED),
        (400, {"retry-after-ms": "500"}, Code.RATE_LIMITED),
        (409, {"Retry-After": "1"}, Code.UNAVAILABLE),
        (429, {"Retry-After": "3601"}, Code.UNAUTHORIZED),
        (429, {"Retry-After": "3600"}, Code.RATE_LIMITED),
        (503, {"x-should-retry": "false"}, Code.UNKNOWN),
        (400, {"X-Should-Retry": "true"}, Code.UNAVAILABLE),
        (500, {"x-amzn-ErrorType": "AccessDeniedException:http://internal"}, Code.UNAUTHORIZED),
        (403, {"content-type": "application/json"}, Code.UNAUTHORIZED),
    ],
)
def test_dict_headers_without_body(status: int, headers: dict[str, str], code: Code) -> None:
    """The dict fast path hands refinement headers to the general path, repeatedly."""
    for _ in range(3):  # the second and third calls may hit caches
        assert from_status(status, headers=headers).code is code


def test_long_wait_is_not_cached_as_a_rate_limit() -> None:
    """A cached 429 with a short Retry-After does not leak into a long one."""
    assert from_status(429, headers={"Retry-After": "30"}).code is Code.RATE_LIMITED
    assert from_status(429, headers={"Retry-After": "86400"}).code is Code.UNAUTHORIZED


# --- transport: permanent failures ---------------------------------------------------


def test_name_not_found_vs_resolver_hiccup() -> None:
    """EAI_NONAME means the host does not exist; EAI_AGAIN is a resolver hiccup."""
    import socket

    missing = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    hiccup = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    for module in (httpx, httpx2):
        try:
            raise module.ConnectError("[Errno -2] Name or service not known") from missing
        except module.ConnectError as exc:
            outcome = from_error(exc)
        assert outcome.code is Code.UNKNOWN
        assert "The HTTP client said: [Errno -2] Name or service not known" in outcome.llm_hint
    assert from_error(hiccup).code is Code.UNAVAILABLE


def test_name_not_found_through_requests_chain() -> None:
    """requests → MaxRetryError(reason=NameResolutionError(... from gaierror))."""
    import socket

    from urllib3.exceptions import MaxRetryError, NameResolutionError

    try:
        raise NameResolutionError("example.invalid", None, socket.gaierror(-2, "x"))  # type: ignore[arg-type]
    except NameResolutionError as inner:
        inner.__cause__ = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        wrapped = MaxRetryError(None, "/", reason=inner)  # type: ignore[arg-type]
    error = requests.ConnectionError(wrapped)
    assert from_error(error).code is Code.UNKNOWN


# --- never raises, bounded -----------------------------------------------------------

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            st.sampled_from(
                [
                    "error",
                    "code",
                    "type",
                    "status",
                    "reason",
                    "message",
                    "details",
                    "errors",
                    "@type",
                    "retryDelay",
                    "violations",
                    "quotaId",
                    "__type",
                    ".tag",
                    "Error",
                    "error_summary",
                    "title",
                    "detail",
                    "invalid-params",
                    "extensions",
                    "metadata",
                ]
            ),
            children,
            max_size=6,
        )
    ),
    max_leaves=30,
)
_HEADER_NAMES = st.sampled_from(
    ["retry-after", "x-should-retry", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit",
     "ratelimit-reset", "x-amz-retry-after", "x-amzn-errortype", "date", "content-type",
     "x-ratelimit-reset-after", "retry-after-ms"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    status=st.integers(min_value=100, max_value=599),
    body=_JSONISH,
    as_text=st.booleans(),
    headers=st.dictionaries(_HEADER_NAMES, st.text(max_size=30), max_size=5),
)
def test_refinements_never_raise(
    status: int, body: object, as_text: bool, headers: dict[str, str]
) -> None:
    """Any provider-shaped body and headers give a well-formed outcome."""
    outcome = from_status(status, json.dumps(body) if as_text else body, headers=headers)
    if 200 <= status <= 299:
        assert outcome.ok
        return
    assert outcome.code is not None
    assert outcome.llm_hint
    assert outcome.retry_after is None or outcome.retryable
    assert type(outcome).from_dict(outcome.to_dict()).to_dict() == outcome.to_dict()


def test_hostile_body_container_keeps_the_table_reading() -> None:
    """A dict whose len() raises carries no signals; the status table still decides."""

    class Hostile(dict[str, str]):
        def __len__(self) -> int:
            raise RuntimeError("no")

    outcome = from_status(429, Hostile(), headers={"Retry-After": "3"})
    assert outcome.code is Code.RATE_LIMITED
    assert outcome.retry_after == 3.0
