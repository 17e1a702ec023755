"""The classifier: every status has a rule, transport errors, chains, and precedence."""

import asyncio
import errno
import socket
import urllib.error
from http import HTTPStatus

import aiohttp
import httpx
import httpx2
import pytest
import requests
import urllib3

from agenterr import (
    Code,
    Outcome,
    TransientToolError,
    classify,
    code_for_status,
    from_error,
    from_response,
    from_status,
    succeeded,
)

EXPLICIT = {
    400: Code.INVALID_REQUEST,
    401: Code.UNAUTHORIZED,
    402: Code.UNAUTHORIZED,
    403: Code.UNAUTHORIZED,
    404: Code.NOT_FOUND,
    405: Code.INVALID_REQUEST,
    406: Code.INVALID_REQUEST,
    407: Code.UNAUTHORIZED,
    408: Code.TIMEOUT,
    409: Code.INVALID_REQUEST,
    410: Code.NOT_FOUND,
    411: Code.INVALID_REQUEST,
    412: Code.INVALID_REQUEST,
    413: Code.INVALID_REQUEST,
    414: Code.INVALID_REQUEST,
    415: Code.INVALID_REQUEST,
    416: Code.INVALID_REQUEST,
    417: Code.INVALID_REQUEST,
    421: Code.UNAVAILABLE,
    422: Code.INVALID_REQUEST,
    423: Code.UNAVAILABLE,
    425: Code.UNAVAILABLE,
    428: Code.INVALID_REQUEST,
    429: Code.RATE_LIMITED,
    431: Code.INVALID_REQUEST,
    451: Code.UNAUTHORIZED,
    498: Code.UNAVAILABLE,
    499: Code.TIMEOUT,
    500: Code.UNAVAILABLE,
    501: Code.INVALID_REQUEST,
    502: Code.UNAVAILABLE,
    503: Code.UNAVAILABLE,
    504: Code.UNAVAILABLE,
    505: Code.UNKNOWN,
    511: Code.UNAUTHORIZED,
    520: Code.UNAVAILABLE,
    529: Code.UNAVAILABLE,
}


def expected_code(status: int) -> Code | None:
    """The status table of SPEC.md, written out independently of the implementation."""
    if status in EXPLICIT:
        return EXPLICIT[status]
    if 200 <= status <= 299:
        return None
    if 400 <= status <= 499:
        return Code.INVALID_REQUEST
    if 500 <= status <= 599:
        return Code.UNAVAILABLE
    return Code.UNKNOWN


@pytest.mark.parametrize("status", range(100, 600))
def test_every_status_has_a_rule(status: int) -> None:
    """Each status 100-599 gets the code the table gives it, with the status recorded."""
    out = from_status(status)
    assert out.code is expected_code(status)
    assert code_for_status(status) is expected_code(status)
    if out.ok:
        assert out.status == status and succeeded(status)  # a success keeps its status
    else:
        assert out.status == status and not succeeded(status)
        assert f"(HTTP {status})" in out.llm_hint


@pytest.mark.parametrize(
    ("status", "phrase"),
    [
        (0, "(no HTTP response)"),
        (None, "(no HTTP response)"),
        (-1, "(no valid HTTP status)"),
        (99, "(no valid HTTP status)"),
        (600, "(no valid HTTP status)"),
        (10**100, "(no valid HTTP status)"),
        (True, "(no valid HTTP status)"),
        (False, "(no valid HTTP status)"),
        ("503", "(no valid HTTP status)"),
        (503.0, "(no valid HTTP status)"),
        (b"200", "(no valid HTTP status)"),
        (object(), "(no valid HTTP status)"),
    ],
)
def test_non_statuses_are_unknown(status: object, phrase: str) -> None:
    """Zero, out-of-range and non-integer statuses are UNKNOWN with no status recorded."""
    out = from_status(status)
    assert out.code is Code.UNKNOWN and out.status == 0
    assert phrase in out.llm_hint
    assert code_for_status(status) is Code.UNKNOWN
    assert not succeeded(status)


def test_int_like_statuses() -> None:
    """HTTPStatus and other __index__ integers are statuses; bools are not."""
    assert from_status(HTTPStatus.TOO_MANY_REQUESTS).code is Code.RATE_LIMITED
    assert from_status(HTTPStatus.OK).ok
    assert succeeded(HTTPStatus.NO_CONTENT)

    class Weird:
        def __index__(self) -> int:
            raise RuntimeError("nope")

    assert from_status(Weird()).code is Code.UNKNOWN


def test_plain_outcomes_are_shared() -> None:
    """Outcomes without body or headers are built once (the fast path)."""
    assert from_status(503) is from_status(503, "")
    assert from_status(503, "x") is not from_status(503, "x")


@pytest.mark.parametrize("status", [429, 503, 408, 500])
def test_retry_after_on_transient(status: int) -> None:
    """Transient outcomes carry the server's Retry-After."""
    assert from_status(status, headers={"Retry-After": "12"}).retry_after == 12.0


@pytest.mark.parametrize("status", [401, 404, 422, 302])
def test_no_retry_after_on_other_classes(status: int) -> None:
    """Retry-After is only kept for transient codes (a 400/403/409 with one becomes transient)."""
    out = from_status(status, headers={"Retry-After": "12"})
    assert out.retry_after is None
    assert "retry_after_seconds" not in out.to_dict()


def test_retry_after_http_date_uses_injected_clock() -> None:
    """An HTTP-date Retry-After is measured against `now`."""
    out = from_status(503, headers={"retry-after": "Sun, 06 Nov 1994 08:49:37 GMT"}, now=784111770)
    assert out.retry_after == 7.0
    assert classify(429, headers={"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"}, now=784111777)
    assert (
        classify(
            429, headers={"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"}, now=784111777
        ).retry_after
        == 0.0
    )


# --- transport errors -------------------------------------------------------------


def _httpx_request(module: object) -> object:
    return module.Request("GET", "https://api.example.test/v1/x")  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("ConnectTimeout", Code.TIMEOUT),
        ("ReadTimeout", Code.TIMEOUT),
        ("WriteTimeout", Code.TIMEOUT),
        ("PoolTimeout", Code.TIMEOUT),
        ("ConnectError", Code.UNAVAILABLE),
        ("ReadError", Code.UNAVAILABLE),
        ("RemoteProtocolError", Code.UNAVAILABLE),
        ("ProxyError", Code.UNAVAILABLE),
        ("UnsupportedProtocol", Code.INVALID_REQUEST),
        ("LocalProtocolError", Code.INVALID_REQUEST),
    ],
)
def test_httpx_transport_errors(module: object, name: str, code: Code) -> None:
    """httpx and httpx2 transport exceptions classify by family."""
    exc = getattr(module, name)("boom", request=_httpx_request(module))
    out = from_error(exc)
    assert out.code is code and out.status == 0 and out.error is exc


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_httpx_invalid_url(module: object) -> None:
    """A URL the client refuses to parse is the request's fault."""
    with pytest.raises(Exception) as info:
        module.Client().get("http://example.com:notaport/")  # type: ignore[attr-defined]
    out = from_error(info.value)
    assert out.code is Code.INVALID_REQUEST
    assert "The HTTP client said:" in out.llm_hint


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_httpx_status_error_uses_response(module: object) -> None:
    """HTTPStatusError is classified by the response it carries, headers and body included."""
    request = _httpx_request(module)
    response = module.Response(  # type: ignore[attr-defined]
        429, headers={"Retry-After": "3"}, content=b'{"error":"slow down"}', request=request
    )
    exc = module.HTTPStatusError("429", request=request, response=response)  # type: ignore[attr-defined]
    out = from_error(exc)
    assert (out.code, out.status, out.retry_after) == (Code.RATE_LIMITED, 429, 3.0)
    assert out.llm_hint.endswith('The API said: {"error":"slow down"}')
    assert out.error is exc


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (requests.ConnectTimeout("x"), Code.TIMEOUT),
        (requests.ReadTimeout("x"), Code.TIMEOUT),
        (requests.Timeout("x"), Code.TIMEOUT),
        (requests.ConnectionError("x"), Code.UNAVAILABLE),
        (requests.exceptions.ChunkedEncodingError("x"), Code.UNAVAILABLE),
        (requests.exceptions.SSLError("x"), Code.UNAVAILABLE),
        (requests.exceptions.MissingSchema("x"), Code.INVALID_REQUEST),
        (requests.exceptions.InvalidSchema("x"), Code.INVALID_REQUEST),
        (requests.exceptions.InvalidURL("x"), Code.INVALID_REQUEST),
        (requests.exceptions.URLRequired("x"), Code.INVALID_REQUEST),
        (requests.exceptions.InvalidHeader("x"), Code.INVALID_REQUEST),
        (urllib3.exceptions.ReadTimeoutError(None, "/x", "read timed out"), Code.TIMEOUT),
        (urllib3.exceptions.ConnectTimeoutError("x"), Code.TIMEOUT),
        (urllib3.exceptions.NewConnectionError(None, "refused"), Code.UNAVAILABLE),  # type: ignore[arg-type]
        (urllib3.exceptions.NameResolutionError("h", None, socket.gaierror()), Code.UNAVAILABLE),  # type: ignore[arg-type]
        (urllib3.exceptions.ProtocolError("x"), Code.UNAVAILABLE),
        (urllib3.exceptions.LocationParseError("x"), Code.INVALID_REQUEST),
        (aiohttp.ServerTimeoutError("x"), Code.TIMEOUT),
        (aiohttp.ConnectionTimeoutError("x"), Code.TIMEOUT),
        (aiohttp.SocketTimeoutError("x"), Code.TIMEOUT),
        (aiohttp.ServerDisconnectedError(), Code.UNAVAILABLE),
        (aiohttp.ClientPayloadError("x"), Code.UNAVAILABLE),
        (aiohttp.InvalidUrlClientError("x"), Code.INVALID_REQUEST),
        (aiohttp.NonHttpUrlClientError("ftp://x"), Code.INVALID_REQUEST),
        (TimeoutError(), Code.TIMEOUT),
        (TimeoutError(), Code.TIMEOUT),
        (TimeoutError(), Code.TIMEOUT),
        (OSError(errno.ETIMEDOUT, "timed out"), Code.TIMEOUT),
        (ConnectionRefusedError(), Code.UNAVAILABLE),
        (ConnectionResetError(), Code.UNAVAILABLE),
        (
            socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"),
            Code.UNAVAILABLE,
        ),
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), Code.UNKNOWN),
        (urllib.error.URLError(TimeoutError("timed out")), Code.TIMEOUT),
        (urllib.error.URLError(ConnectionRefusedError()), Code.UNAVAILABLE),
        (ValueError("anything else"), Code.UNAVAILABLE),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_library_transport_errors(exc: BaseException, code: Code) -> None:
    """Timeouts of every supported library are TIMEOUT; malformed requests INVALID_REQUEST."""
    out = from_error(exc)
    assert out.code is code
    assert out.status == 0


def test_reference_from_error_example() -> None:
    """The reference's FromError example: a refused connection, no status."""
    out = from_error(ConnectionRefusedError("dial tcp: connection refused"))
    assert f"{out.code} status: {out.status}" == "UNAVAILABLE status: 0"


def test_requests_timeout_inside_connection_error() -> None:
    """requests wraps urllib3's failure; the chain walk finds the timeout inside."""
    inner = urllib3.exceptions.MaxRetryError(
        None,  # type: ignore[arg-type]
        "/x",
        urllib3.exceptions.ConnectTimeoutError("connect timed out"),
    )
    assert from_error(requests.ConnectionError(inner)).code is Code.TIMEOUT


def test_requests_http_error_uses_response() -> None:
    """requests' HTTPError is classified by its response."""
    response = requests.Response()
    response.status_code = 404
    response._content = b"no such charge"
    exc = requests.HTTPError("404", response=response)
    out = from_error(exc)
    assert (out.code, out.status) == (Code.NOT_FOUND, 404)
    assert out.llm_hint.endswith("The API said: no such charge")
    assert from_error(requests.HTTPError("no response")).code is Code.UNAVAILABLE


def test_aiohttp_response_error_uses_status() -> None:
    """aiohttp's ClientResponseError carries the status and headers."""
    exc = aiohttp.ClientResponseError(
        None,  # type: ignore[arg-type]
        (),
        status=503,
        message="Service Unavailable",
        headers={"Retry-After": "9"},  # type: ignore[arg-type]
    )
    out = from_error(exc)
    assert (out.code, out.status, out.retry_after) == (Code.UNAVAILABLE, 503, 9.0)


def test_sdk_style_error_with_status_code_and_body() -> None:
    """An SDK error exposing status_code and a parsed body is classified by them."""

    class APIStatusError(Exception):
        def __init__(self) -> None:
            super().__init__("Error code: 400")
            self.status_code = 400
            self.body = {"error": {"message": "max_tokens too large"}}

    out = from_error(APIStatusError())
    assert out.code is Code.INVALID_REQUEST
    assert out.llm_hint.endswith('The API said: {"error":{"message":"max_tokens too large"}}')


def test_botocore_style_error() -> None:
    """An exception whose response is botocore's dict is classified by its metadata."""

    class ClientError(Exception):
        def __init__(self) -> None:
            super().__init__("ThrottlingException")
            self.response = {
                "Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"},
                "ResponseMetadata": {"HTTPStatusCode": 429, "HTTPHeaders": {"retry-after": "2"}},
            }

    out = from_error(ClientError())
    assert (out.code, out.status, out.retry_after) == (Code.RATE_LIMITED, 429, 2.0)
    assert "Rate exceeded" in out.llm_hint


def test_exit_codes_are_not_statuses() -> None:
    """An exception with an unrelated numeric `code` is not mistaken for an HTTP error."""
    assert from_error(SystemExit(404)).code is Code.UNKNOWN

    class ToolError(Exception):
        code = 500

    assert from_error(ToolError()).code is Code.UNAVAILABLE


def test_agent_tool_error_passes_through() -> None:
    """A typed error anywhere in the chain gives back its own outcome."""
    inner = TransientToolError(from_status(429, headers={"Retry-After": "5"}))
    assert from_error(inner) is inner.outcome
    try:
        try:
            raise inner
        except TransientToolError as exc:
            raise RuntimeError("wrapped") from exc
    except RuntimeError as outer:
        assert from_error(outer) is inner.outcome


def test_chain_cause_and_context() -> None:
    """A timeout found through __cause__ or __context__ decides the outcome."""
    try:
        try:
            raise TimeoutError("slow")
        except TimeoutError:
            raise RuntimeError("tool wrapper")  # noqa: B904 - implicit context on purpose
    except RuntimeError as exc:
        assert from_error(exc).code is Code.TIMEOUT
        assert from_error(exc).error is exc


def test_suppressed_context_is_ignored() -> None:
    """`raise ... from None` hides the context from classification too."""
    try:
        try:
            raise TimeoutError("slow")
        except TimeoutError:
            raise RuntimeError("replaced") from None
    except RuntimeError as exc:
        assert from_error(exc).code is Code.UNAVAILABLE


def test_cyclic_chain_terminates() -> None:
    """A cause chain that loops back on itself is walked once."""
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__cause__, b.__cause__ = b, a
    assert from_error(a).code is Code.UNAVAILABLE


def test_deep_chain_is_bounded() -> None:
    """A 5,000-deep chain costs a bounded walk; a timeout past the bound is not seen."""
    head: BaseException = TimeoutError("bottom")
    for i in range(5000):
        nxt = RuntimeError(str(i))
        nxt.__cause__ = head
        head = nxt
    assert from_error(head).code is Code.UNAVAILABLE
    shallow = RuntimeError("top")
    shallow.__cause__ = TimeoutError()
    assert from_error(shallow).code is Code.TIMEOUT


def test_exception_groups_are_searched() -> None:
    """A timeout inside an exception group (TaskGroup, anyio) is found."""
    group = ExceptionGroup("tasks", [ValueError("x"), TimeoutError("y")])
    assert from_error(group).code is Code.TIMEOUT


def test_hostile_exception() -> None:
    """An exception whose __str__ and attributes raise still classifies."""

    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str")

        def __getattribute__(self, name: str) -> object:
            if name in {"response", "status_code", "reason", "args", "headers"}:
                raise RuntimeError(name)
            return super().__getattribute__(name)

    assert from_error(Hostile()).code is Code.UNAVAILABLE


def test_malformed_hint_quotes_client_message_cleanly() -> None:
    """The malformed-request hint quotes the client's message, cleaned and redacted."""

    class InvalidURL(Exception):
        pass

    out = from_error(InvalidURL("bad url https://x.test/?api_key=abc123\n\x1b[1m"))
    assert out.code is Code.INVALID_REQUEST
    assert out.llm_hint.endswith("The HTTP client said: bad url https://x.test/?api_key=[REDACTED]")


def test_from_error_none_and_non_exceptions() -> None:
    """None is success; something that is not an exception is UNKNOWN."""
    assert from_error(None).ok
    assert from_error("connection refused").code is Code.UNKNOWN
    assert from_error(42).code is Code.UNKNOWN


@pytest.mark.parametrize(
    "signal", [KeyboardInterrupt(), SystemExit(1), asyncio.CancelledError(), GeneratorExit()]
)
def test_control_signals_are_unknown_not_retryable(signal: BaseException) -> None:
    """Cancellation and interrupts are not failed calls: UNKNOWN, never retryable or raised."""
    out = from_error(signal)
    assert out.code is Code.UNKNOWN and not out.retryable and out.error is signal


def test_carried_2xx_is_not_success() -> None:
    """An exception carrying a 2xx status (an error event in a 200 stream) is still a failure."""

    class OverloadedError(Exception):
        status_code = 200

    assert from_error(OverloadedError("overloaded")).code is Code.UNAVAILABLE
    inner = TimeoutError()
    outer = OverloadedError("x")
    outer.__cause__ = inner
    assert from_error(outer).code is Code.TIMEOUT


def test_error_is_always_the_original() -> None:
    """Outcome.error is the exception handed in, whichever link of its chain decided."""

    class InvalidURL(Exception):
        pass

    for inner in (InvalidURL("bad"), TimeoutError()):
        outer = RuntimeError("tool failed")
        outer.__cause__ = inner
        assert from_error(outer).error is outer
    request = httpx.Request("GET", "https://x.test")
    response = httpx.Response(500, request=request)
    wrapped = RuntimeError("wrapped")
    wrapped.__cause__ = httpx.HTTPStatusError("500", request=request, response=response)
    out = from_error(wrapped)
    assert out.status == 500 and out.error is wrapped


def test_body_whose_equality_raises() -> None:
    """A body that refuses comparison (like an array) still classifies."""

    class Array:
        def __eq__(self, other: object) -> bool:
            raise ValueError("truth value of an array is ambiguous")

        __ne__ = __eq__  # type: ignore[assignment]
        __hash__ = None  # type: ignore[assignment]

        def __str__(self) -> str:
            return "[1 2 3]"

    assert from_status(400, Array()).llm_hint.endswith("The API said: [1 2 3]")
    assert classify(400, Array()).code is Code.INVALID_REQUEST


def test_classify_error_wins() -> None:
    """A non-None error takes precedence over status and body."""
    assert classify(200, "fine", TimeoutError()).code is Code.TIMEOUT
    assert classify(404, "gone", None).code is Code.NOT_FOUND
    assert classify().code is Code.UNKNOWN
    assert classify(201).ok


def test_classify_reference_package_example() -> None:
    """The reference's package example prints the self-correctable branch and hint."""
    out: Outcome[None] = classify(422, '{"error":"amount must be a positive integer"}', None)
    lines = []
    if out.ok:
        lines.append("done")
    elif out.retryable:
        lines.append("retry with backoff, don't touch the arguments")
    elif out.class_ == "self_correctable":
        lines.append("re-prompt the model with this hint, then resend:")
        lines.append(out.llm_hint)
    assert "\n".join(lines) == (
        "re-prompt the model with this hint, then resend:\n"
        "The API rejected this call as invalid (HTTP 422). Your arguments are wrong in a way "
        "you can fix: correct them to satisfy the API's requirements and resend. The API said: "
        '{"error":"amount must be a positive integer"}'
    )


def test_reference_status_examples() -> None:
    """The reference's FromStatus examples."""
    auth = from_status(403, "")
    assert f"{auth.code} {auth.class_} retryable: {str(auth.retryable).lower()}" == (
        "UNAUTHORIZED auth retryable: false"
    )
    transient = from_status(503, "upstream connect error")
    assert f"{transient.code} retryable: {str(transient.retryable).lower()}" == (
        "UNAVAILABLE retryable: true"
    )


def test_hostile_inputs_never_raise() -> None:
    """Objects that fail in every way still give an Outcome (the review's cases)."""

    class IndexBomb:
        def __getattr__(self, name: str) -> object:
            raise RuntimeError(name)

    class StrBomb(str):
        def __getitem__(self, key: object) -> str:
            raise RuntimeError("getitem")

    class Unhashable(Exception):
        __hash__ = None  # type: ignore[assignment]

    class NoOutcome(TransientToolError):
        def __init__(self) -> None:
            Exception.__init__(self, "no outcome")

    released = memoryview(b"abc")
    released.release()
    for out in (
        from_status(IndexBomb()),
        from_status(400, 10**5000),
        from_status(400, StrBomb("x")),
        from_status(400, released),
        from_status(400, {"a": 10**5000, "b": [1]}),
        from_error(Unhashable()),
        from_error(NoOutcome()),
        from_error(OSError(object(), "odd errno")),
    ):
        assert isinstance(out, Outcome) and out.failed
    assert not succeeded(IndexBomb())
    assert code_for_status(IndexBomb()) is Code.UNKNOWN


def test_huge_string_inside_a_parsed_body_is_bounded() -> None:
    """A base64 blob in a parsed JSON body costs the window, not its length."""
    import tracemalloc

    blob = "x" * 50_000_000
    tracemalloc.start()
    out = from_status(400, {"error": blob, "detail": [blob]})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert out.code is Code.INVALID_REQUEST
    assert peak < 5_000_000  # the window, not a copy of the blob


def test_carried_index_statuses_count() -> None:
    """An exception carrying HTTPStatus (or any __index__ integer) is classified by it."""

    class HTTPException(Exception):
        def __init__(self, status: object) -> None:
            super().__init__("x")
            self.status_code = status

    assert from_error(HTTPException(HTTPStatus.NOT_FOUND)).code is Code.NOT_FOUND
    inner = TimeoutError()
    outer = HTTPException(700)  # not a status: the walk goes on
    outer.__cause__ = inner
    assert from_error(outer).code is Code.TIMEOUT


def test_success_responses_are_not_read() -> None:
    """A 2xx response's body is never touched (peeking could wait on a live stream)."""

    class Stream:
        status = 200
        headers: dict[str, str] = {}  # noqa: RUF012

        def peek(self, n: int) -> bytes:
            raise AssertionError("peeked a success")

    assert from_response(Stream()).ok
