"""from_response against real clients talking to a local server, and response-like fakes."""

import asyncio
import io
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import aiohttp
import httpx
import httpx2
import pytest
import requests

from agenterr import Code, from_error, from_response
from agenterr._quote import TRUNCATED
from agenterr._responses import READ_CAP

BIG = 1_000_000


class _Handler(BaseHTTPRequestHandler):
    """Answers /<status>?body=<kind> with that status, a Retry-After and a body."""

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        status = int(path.strip("/") or 200)
        body = b"x" * BIG if query == "big" else json.dumps({"error": "slow down"}).encode()
        self.send_response(status)
        self.send_header("RETRY-after", "4")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A local HTTP server on a free port, stopped after the module."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def _assert_rate_limited(out: object) -> None:
    assert out.code is Code.RATE_LIMITED  # type: ignore[attr-defined]
    assert out.status == 429  # type: ignore[attr-defined]
    assert out.retry_after == 4.0  # type: ignore[attr-defined]
    assert out.llm_hint.endswith('The API said: {"error": "slow down"}')  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_httpx_read_response(server: str, module: object) -> None:
    """A read httpx/httpx2 response gives status, headers and quoted body."""
    with module.Client() as client:  # type: ignore[attr-defined]
        response = client.get(f"{server}/429")
        _assert_rate_limited(from_response(response))
        assert from_response(client.get(f"{server}/200")).ok


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_httpx_unread_stream_is_left_alone(server: str, module: object) -> None:
    """An unread streamed body is not consumed: the caller can still read all of it."""
    with module.Client() as client, client.stream("GET", f"{server}/503?big") as response:  # type: ignore[attr-defined]
        out = from_response(response)
        assert (out.code, out.retry_after) == (Code.UNAVAILABLE, 4.0)
        assert "The API said" not in out.llm_hint
        assert not response.is_closed
        assert len(response.read()) == BIG


@pytest.mark.asyncio
@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
async def test_httpx_async(server: str, module: object) -> None:
    """Async httpx responses classify the same way, read or streaming."""
    async with module.AsyncClient() as client:  # type: ignore[attr-defined]
        _assert_rate_limited(from_response(await client.get(f"{server}/429")))
        async with client.stream("GET", f"{server}/503?big") as response:
            assert from_response(response).code is Code.UNAVAILABLE
            assert len(await response.aread()) == BIG


def test_requests_read_and_streamed(server: str) -> None:
    """requests: a read body is quoted; a stream=True body is neither read nor closed."""
    with requests.Session() as session:
        _assert_rate_limited(from_response(session.get(f"{server}/429", timeout=5)))
        response = session.get(f"{server}/503?big", stream=True, timeout=5)
        out = from_response(response)
        assert out.code is Code.UNAVAILABLE and "The API said" not in out.llm_hint
        assert len(response.content) == BIG
        response.close()


def test_requests_big_read_body_is_bounded(server: str) -> None:
    """A large body already in memory is quoted only up to the cap."""
    response = requests.get(f"{server}/500?big", timeout=5)
    out = from_response(response)
    assert out.llm_hint.endswith(TRUNCATED)
    assert len(out.llm_hint) < 1000


@pytest.mark.asyncio
async def test_aiohttp_read_and_unread(server: str) -> None:
    """aiohttp: a read ClientResponse is quoted; an unread one is left for the caller."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{server}/429") as response:
            await response.read()
            _assert_rate_limited(from_response(response))
        async with session.get(f"{server}/503?big") as response:
            out = from_response(response)
            assert (out.code, out.retry_after) == (Code.UNAVAILABLE, 4.0)
            assert "The API said" not in out.llm_hint
            assert len(await response.read()) == BIG


def test_urllib_http_error_is_peeked_not_consumed(server: str) -> None:
    """urllib's HTTPError: the body is peeked, and the caller can still read all of it."""
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{server}/429", timeout=5)
    err = info.value
    _assert_rate_limited(from_response(err))
    _assert_rate_limited(from_error(err))
    assert json.loads(err.read()) == {"error": "slow down"}
    err.close()


def test_urllib_big_body_reads_at_most_the_cap(server: str) -> None:
    """A large urllib body is peeked up to READ_CAP and then fully readable."""
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{server}/503?big", timeout=5)
    err = info.value
    out = from_response(err)
    assert out.code is Code.UNAVAILABLE and out.llm_hint.endswith(TRUNCATED)
    assert len(err.read()) == BIG
    err.close()


def test_urllib_success_response(server: str) -> None:
    """A urllib HTTPResponse with 200 is ok and stays readable."""
    with urllib.request.urlopen(f"{server}/200", timeout=5) as response:
        assert from_response(response).ok
        assert json.loads(response.read()) == {"error": "slow down"}


def test_hand_built_http_error_with_seekable_body() -> None:
    """A hand-built HTTPError over BytesIO is read and rewound."""
    fp = io.BytesIO(b"bad amount")
    err = urllib.error.HTTPError("https://x.test", 400, "Bad Request", {}, fp)  # type: ignore[arg-type]
    out = from_response(err)
    assert out.code is Code.INVALID_REQUEST and out.llm_hint.endswith("The API said: bad amount")
    assert fp.tell() == 0
    assert len(b"x" * READ_CAP) == READ_CAP


def test_hand_built_httpx_response() -> None:
    """Hand-built httpx responses (no request attached) classify without raising."""
    out = from_response(httpx.Response(404, text="no such id"))
    assert out.code is Code.NOT_FOUND and out.llm_hint.endswith("The API said: no such id")
    out2 = from_response(httpx2.Response(401, json={"error": "token expired"}))
    assert out2.code is Code.UNAUTHORIZED


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (
            SimpleNamespace(status_code=503, headers={"Retry-After": "1"}, text="busy"),
            Code.UNAVAILABLE,
        ),
        (SimpleNamespace(status=404, headers=None, body=b"gone"), Code.NOT_FOUND),
        (SimpleNamespace(code=401, headers=[("x", "y")], data={"e": 1}), Code.UNAUTHORIZED),
        (SimpleNamespace(status_code="503"), Code.UNKNOWN),
        (SimpleNamespace(nothing=True), Code.UNKNOWN),
        (None, Code.UNKNOWN),
        (42, Code.UNKNOWN),
        ({"not": "botocore"}, Code.UNKNOWN),
    ],
)
def test_response_like_objects(response: object, code: Code) -> None:
    """Fakes and odd objects: status attributes are read; no status means UNKNOWN."""
    assert from_response(response).code is code


def test_property_bodies_are_not_touched() -> None:
    """A property named like a body is never evaluated (it might read a stream)."""

    class Lazy:
        status_code = 500
        headers: dict[str, str] = {}  # noqa: RUF012

        @property
        def text(self) -> str:
            raise AssertionError("read the stream")

    out = from_response(Lazy())
    assert out.code is Code.UNAVAILABLE and "The API said" not in out.llm_hint


def test_response_whose_attributes_raise() -> None:
    """A response whose attributes raise gives an outcome, not an exception."""

    class Broken:
        @property
        def status_code(self) -> int:
            raise RuntimeError("x")

        @property
        def status(self) -> int:
            return 502

        @property
        def headers(self) -> object:
            raise RuntimeError("y")

    assert from_response(Broken()).code is Code.UNAVAILABLE


def test_event_loop_not_required() -> None:
    """from_response is synchronous and needs no running loop even for aiohttp objects."""
    assert asyncio.get_event_loop_policy() is not None
