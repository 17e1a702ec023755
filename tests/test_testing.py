"""agenterr.testing: the factories build what the clients build, classified as documented,
and assert_classified says what differs.

Real httpx, httpx2 and requests; the faithfulness tests compare each factory with the
client's own failure against sockets on 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import httpx
import httpx2
import pytest
import requests

import agenterr.testing
from agenterr import (
    Class,
    Code,
    Outcome,
    TransientToolError,
    classified_tool,
    from_error,
    from_response,
    from_status,
)
from agenterr.testing import (
    TRANSPORT_KINDS,
    URL,
    assert_classified,
    http_response,
    http_status_error,
    transport_error,
)

CLIENTS = ["httpx", "httpx2", "requests"]
MODULES: dict[str, Any] = {"httpx": httpx, "httpx2": httpx2, "requests": requests}


def test_public_names() -> None:
    """The module's public names are exactly its __all__."""
    assert sorted(agenterr.testing.__all__) == [
        "TRANSPORT_KINDS",
        "URL",
        "assert_classified",
        "http_response",
        "http_status_error",
        "transport_error",
    ]


@pytest.mark.external
def test_import_loads_no_client() -> None:
    """Importing agenterr.testing imports none of the clients (a fresh interpreter)."""
    probe = (
        "import sys, agenterr.testing\n"
        "heavy = {'httpx', 'httpx2', 'requests', 'urllib3', 'httpcore'}\n"
        "print(sorted(heavy & {m.partition('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    ("client", "extra"), [("httpx", "httpx"), ("httpx2", "httpx2"), ("requests", "requests")]
)
def test_missing_client_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, client: str, extra: str
) -> None:
    """A factory for a client that is not installed says which extra to install."""
    monkeypatch.setitem(sys.modules, client, None)
    for factory in (
        lambda: http_response(client=client),
        lambda: http_status_error(404, client=client),
        lambda: transport_error("connect", client=client),
    ):
        with pytest.raises(ImportError, match=rf"agenterr\[{extra}\]"):
            factory()


# --- http_response -----------------------------------------------------------------------


@pytest.mark.parametrize("client", CLIENTS)
def test_response_is_the_clients_own(client: str) -> None:
    """A read response of the client, with its request attached."""
    module = MODULES[client]
    response: Any = http_response(
        404,
        '{"error":"no such city"}',
        headers={"X-Request-Id": "abc"},
        method="POST",
        client=client,
    )
    assert isinstance(response, module.Response)
    assert response.status_code == 404
    assert response.content == b'{"error":"no such city"}'
    assert response.text == '{"error":"no such city"}'
    assert response.json() == {"error": "no such city"}
    assert response.headers["x-request-id"] == "abc"
    assert str(response.request.url) == URL
    assert response.request.method == "POST"
    assert not (response.ok if client == "requests" else response.is_success)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(
    ("status", "headers", "code", "retry_after"),
    [
        (200, {}, None, None),
        (400, {}, Code.INVALID_REQUEST, None),
        (401, {}, Code.UNAUTHORIZED, None),
        (404, {}, Code.NOT_FOUND, None),
        (429, {"Retry-After": "2"}, Code.RATE_LIMITED, 2.0),
        (503, {"retry-after-ms": "1500"}, Code.UNAVAILABLE, 1.5),
    ],
)
def test_response_is_classified_by_its_status_and_headers(
    client: str, status: int, headers: dict[str, str], code: Code | None, retry_after: float | None
) -> None:
    """from_response reads the factory's response like a real one: status, Retry-After."""
    response = http_response(status, headers=headers, client=client)
    outcome = from_response(response)
    assert outcome.code is code
    assert outcome.retry_after == retry_after
    assert outcome == from_status(status, headers=headers)


@pytest.mark.parametrize("client", CLIENTS)
def test_response_body_reaches_the_hint(client: str) -> None:
    """The body is the one the hint quotes, as for any response."""
    response = http_response(422, json={"error": "days must be <= 14"}, client=client)
    assert_classified(response, code=Code.INVALID_REQUEST, hint_contains="days must be <= 14")


def test_json_body_and_its_content_type() -> None:
    """json= encodes the value and sets Content-Type, unless the caller set one."""
    response = http_response(400, json={"a": [1, 2]})
    assert json.loads(response.content) == {"a": [1, 2]}
    assert response.headers["content-type"] == "application/json"
    own = http_response(400, json=None, headers={"content-type": "application/problem+json"})
    assert own.content == b"null"
    assert own.headers["content-type"] == "application/problem+json"
    with pytest.raises(ValueError, match="not both"):
        http_response(400, "text", json={"a": 1})


def test_str_body_is_utf8() -> None:
    """A str body is sent as UTF-8."""
    assert http_response(400, "día").content == "día".encode()
    assert http_response(400, "día", client="requests").text == "día"


def test_unknown_client_is_refused() -> None:
    """A client name that is not supported is a ValueError, not an import attempt."""
    with pytest.raises(ValueError, match="client: 'aiohttp'"):
        http_response(client="aiohttp")  # type: ignore[call-overload]


# --- http_status_error -------------------------------------------------------------------

ERROR_TYPES: dict[str, type[Exception]] = {
    "httpx": httpx.HTTPStatusError,
    "httpx2": httpx2.HTTPStatusError,
    "requests": requests.HTTPError,
}


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, Code.INVALID_REQUEST),
        (401, Code.UNAUTHORIZED),
        (403, Code.UNAUTHORIZED),
        (404, Code.NOT_FOUND),
        (408, Code.TIMEOUT),
        (429, Code.RATE_LIMITED),
        (500, Code.UNAVAILABLE),
        (501, Code.INVALID_REQUEST),
        (503, Code.UNAVAILABLE),
    ],
)
def test_status_error_is_classified_by_its_response(client: str, status: int, code: Code) -> None:
    """The client's raise_for_status() exception, classified from the response it carries."""
    error: Any = http_status_error(status, client=client)
    assert type(error) is ERROR_TYPES[client]
    assert error.response.status_code == status
    assert error.request is not None
    assert error.__traceback__ is None
    assert_classified(error, code=code, status=status)


@pytest.mark.parametrize("client", CLIENTS)
def test_status_error_matches_raise_for_status(client: str) -> None:
    """The message is the client's own, as raise_for_status() words it."""
    response: Any = http_response(429, client=client)
    with pytest.raises(ERROR_TYPES[client]) as raised:
        response.raise_for_status()
    error = http_status_error(429, client=client)
    assert str(error) == str(raised.value)


@pytest.mark.parametrize("client", CLIENTS)
def test_status_error_carries_retry_after(client: str) -> None:
    """Headers given to the factory are on the response, so Retry-After is read."""
    error = http_status_error(429, headers={"Retry-After": "7"}, client=client)
    outcome = assert_classified(error, code=Code.RATE_LIMITED, retry_after=7)
    with pytest.raises(TransientToolError) as typed:
        outcome.raise_for_failure()
    assert typed.value.retry_after == 7


def test_status_error_only_where_the_client_raises() -> None:
    """No client raises for a 2xx; requests does not for 1xx or 3xx either, httpx does."""
    for client in CLIENTS:
        with pytest.raises(ValueError, match="does not raise for status 200"):
            http_status_error(200, client=client)
    with pytest.raises(ValueError, match="requests does not raise for status 302"):
        http_status_error(302, client="requests")
    redirect = http_status_error(302, headers={"Location": "/elsewhere"})
    assert_classified(redirect, code=Code.UNKNOWN, status=302)


# --- transport_error ---------------------------------------------------------------------

BASE_ERRORS: dict[str, type[Exception]] = {
    "httpx": httpx.TransportError,
    "httpx2": httpx2.TransportError,
    "requests": requests.RequestException,
}
REQUESTS_HAS_NO = {"write_timeout", "pool_timeout", "write"}
NEVER_SENT = {"connect", "connect_timeout", "pool_timeout", "unsupported_protocol"}


def _kinds() -> Iterator[tuple[str, str]]:
    for client in CLIENTS:
        for kind in TRANSPORT_KINDS:
            if not (client == "requests" and kind in REQUESTS_HAS_NO):
                yield client, kind


@pytest.mark.parametrize(("client", "kind"), list(_kinds()))
def test_transport_error_is_classified_as_documented(client: str, kind: str) -> None:
    """Every kind is the client's transport exception with the code TRANSPORT_KINDS gives."""
    error: Any = transport_error(kind, client=client)
    assert isinstance(error, BASE_ERRORS[client])
    assert error.request is not None or kind == "unsupported_protocol"
    assert_classified(error, code=TRANSPORT_KINDS[kind], status=0)


@pytest.mark.parametrize(("client", "kind"), list(_kinds()))
def test_transport_error_tells_sent_from_not_sent(client: str, kind: str) -> None:
    """With idempotent=False, failures before the request went out stay retryable and the
    others may have taken effect (UNKNOWN), as with the client's real errors."""

    @classified_tool(idempotent=False)
    def pay() -> None:
        raise transport_error(kind, client=client)

    outcome = pay()
    if kind in NEVER_SENT:
        assert outcome.code is TRANSPORT_KINDS[kind]
    else:
        assert outcome.code is Code.UNKNOWN
        assert "may already have taken effect" in outcome.llm_hint


def test_transport_error_kinds_are_checked() -> None:
    """An unknown kind, or one the client does not have, is a ValueError naming the others."""
    with pytest.raises(ValueError, match="kind: 'dns' is not one of timeout, connect_timeout"):
        transport_error("dns")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="requests has no 'write' error; it has timeout"):
        transport_error("write", client="requests")


def test_transport_error_url() -> None:
    """The request is for the given URL; the unsupported protocol is worded from it."""
    error = transport_error("unsupported_protocol", url="ftp://files.example.test/a")
    assert "'ftp://'" in str(error)
    assert str(error.request.url) == "ftp://files.example.test/a"
    requests_error: Any = transport_error("connect", url="http://h.test:8080/x", client="requests")
    assert "host='h.test', port=8080" in str(requests_error)
    assert requests_error.request.url == "http://h.test:8080/x"


# The factories against the clients' real failures, on loopback: a port nobody listens on
# refuses the connection; a listening socket that never answers makes the read time out.


@pytest.fixture
def refused_url() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, not listening: connections are refused
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/tool"


@pytest.fixture
def silent_url() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)  # the kernel accepts; nobody ever answers
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/tool"


def _real_failure(client: str, url: str) -> BaseException:
    call: Callable[..., Any] = MODULES[client].get
    try:
        call(url, timeout=0.3)
    except Exception as exc:
        return exc
    raise AssertionError("the request did not fail")


def _same_as_real(real: BaseException, made: BaseException) -> None:
    assert type(made) is type(real)
    assert from_error(made) == from_error(real)

    def idempotent(error: BaseException) -> Outcome[Any]:
        def pay() -> None:
            raise error

        return classified_tool(idempotent=False)(pay)()

    assert idempotent(made).code is idempotent(real).code


@pytest.mark.parametrize("client", CLIENTS)
def test_connect_matches_a_refused_connection(client: str, refused_url: str) -> None:
    """transport_error('connect') is what the client raises when a connection is refused."""
    made = transport_error("connect", url=refused_url, client=client)
    _same_as_real(_real_failure(client, refused_url), made)


@pytest.mark.parametrize("client", CLIENTS)
def test_read_timeout_matches_a_silent_server(client: str, silent_url: str) -> None:
    """transport_error('read_timeout') is what the client raises when the answer is late."""
    made = transport_error("read_timeout", url=silent_url, client=client)
    _same_as_real(_real_failure(client, silent_url), made)


# --- assert_classified -------------------------------------------------------------------


def test_assert_classified_accepts_every_kind_of_value() -> None:
    """Outcome, typed error, exception and response are classified and returned."""
    outcome = from_status(429, headers={"Retry-After": "2"})
    values: list[object] = [
        outcome,
        TransientToolError(outcome),
        http_status_error(429, headers={"Retry-After": "2"}),
        http_response(429, headers={"Retry-After": "2"}),
    ]
    for value in values:
        got = assert_classified(
            value,
            ok=False,
            code="RATE_LIMITED",
            class_=Class.TRANSIENT,
            retryable=True,
            retry_after=2,
            status=429,
            hint_contains=["rate-limiting", "2 seconds"],
        )
        assert got == outcome


def test_assert_classified_success() -> None:
    """A success passes ok=True; a failure expected instead says it was ok."""
    assert_classified(http_response(200), ok=True, code=None, retry_after=None, status=200)
    with pytest.raises(AssertionError, match=r"code: expected NOT_FOUND, got None \(ok\)"):
        assert_classified(Outcome.success(1), code=Code.NOT_FOUND)


@pytest.mark.parametrize(
    ("expectation", "message"),
    [
        ({"ok": True}, r"ok: expected True, got False"),
        ({"code": Code.NOT_FOUND}, r"code: expected NOT_FOUND, got RATE_LIMITED"),
        ({"class_": "auth"}, r"class: expected auth, got transient"),
        ({"retryable": False}, r"retryable: expected False, got True"),
        ({"retry_after": None}, r"retry_after: expected None, got 2\.0"),
        ({"retry_after": 5}, r"retry_after: expected 5, got 2\.0"),
        ({"status": 503}, r"status: expected 503, got 429"),
        ({"hint_contains": "re-prompt"}, r"llm_hint: does not contain 're-prompt'"),
    ],
)
def test_assert_classified_names_the_field_that_differs(
    expectation: dict[str, Any], message: str
) -> None:
    """Each field, when wrong, fails with a line naming it, expected and got."""
    with pytest.raises(AssertionError, match=message):
        assert_classified(http_status_error(429, headers={"Retry-After": "2"}), **expectation)


def test_assert_classified_reports_every_difference() -> None:
    """All the differences at once, aligned, then the Outcome and its hint."""
    error = http_status_error(503, '{"error":"down for maintenance"}')
    with pytest.raises(AssertionError) as failed:
        assert_classified(error, code="NOT_FOUND", status=404, retry_after=3)
    assert str(failed.value).splitlines() == [
        "HTTPStatusError was not classified as expected:",
        "  code:        expected NOT_FOUND, got UNAVAILABLE",
        "  retry_after: expected 3, got None",
        "  status:      expected 404, got 503",
        "classified as: UNAVAILABLE class=transient status=503",
        f"llm_hint: {from_error(error).llm_hint}",
    ]


def test_assert_classified_retry_after_tolerates_float_noise() -> None:
    """retry_after compares as seconds, not as float bits."""
    outcome: Outcome[Any] = Outcome.failure(Code.RATE_LIMITED, retry_after=0.1 + 0.2)
    assert_classified(outcome, retry_after=0.3)
    assert_classified(outcome, retry_after=timedelta(milliseconds=300).total_seconds())


def test_assert_classified_refuses_misspelt_codes() -> None:
    """A code or class that does not exist is a ValueError, not a silent mismatch."""
    with pytest.raises(ValueError, match="code: 'RATE_LIMTED' is not one of SCHEMA_INVALID"):
        assert_classified(from_status(429), code="RATE_LIMTED")
    with pytest.raises(ValueError, match="class_: 'retry' is not one of transient"):
        assert_classified(from_status(429), class_="retry")
