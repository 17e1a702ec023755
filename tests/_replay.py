"""A local HTTP server that answers every request with the reply a test sets.

The real-client tests point an SDK at it (127.0.0.1 only) and set, before each call, the
documented error response to replay: status, headers, body, and an optional delay longer
than the client's timeout. ``refused_url`` is a port nothing listens on.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agenterr import Code


@dataclass(frozen=True)
class Reply:
    """One replayed response."""

    status: int
    body: object = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def payload(self) -> tuple[bytes, str]:
        if isinstance(self.body, bytes):
            return self.body, "text/plain"
        if isinstance(self.body, str):
            kind = "application/xml" if self.body.lstrip().startswith("<") else "text/plain"
            return self.body.encode(), kind
        return json.dumps(self.body).encode(), "application/json"


class _Handler(BaseHTTPRequestHandler):
    server: ReplayServer
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        reply = self.server.reply
        self.server.requests.append((self.command, self.path))
        if reply.delay:
            time.sleep(reply.delay)
        data, kind = reply.payload()
        try:
            self.send_response(reply.status)
            names = {k.lower() for k in reply.headers}
            if "content-type" not in names:
                self.send_header("Content-Type", kind)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            pass  # the client gave up (timeout cases)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.reply = Reply(200, {})
        self.requests: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def refused_url() -> str:
    """A URL on 127.0.0.1 whose port was just closed: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def serve() -> Iterator[ReplayServer]:
    """Run a ReplayServer in a thread for the duration of a fixture."""
    server = ReplayServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# --- the documented cases and the one check every real-client test makes ---------------

TIMEOUT = 0.3
"""Every client's timeout, in seconds; a slow reply sleeps longer than this."""
SLOW = 1.5


@dataclass(frozen=True)
class Case:
    """A documented response (None: connection refused) and what agenterr must say."""

    reply: Reply | None
    code: Code
    retry_after: float | None = None
    pending: str | None = None  # the missing rule, when the case waits on rule work

    def param(self, name: str, sdk: str = "") -> Any:
        import pytest

        marks = []
        if self.pending:
            marks.append(pytest.mark.xfail(strict=True, reason=self.pending))
        return pytest.param(self, id=f"{sdk}-{name}" if sdk else name, marks=marks)


def slow() -> Case:
    return Case(Reply(200, {}, delay=SLOW), Code.TIMEOUT)


def refused() -> Case:
    return Case(None, Code.UNAVAILABLE)


def raised(server: ReplayServer, case: Case, call: Callable[[str], object]) -> BaseException:
    """The exception ``call`` raises against the server replaying ``case``."""
    if case.reply is not None:
        server.reply = case.reply
    url = refused_url() if case.reply is None else server.url
    try:
        call(url)
    except Exception as exc:
        return exc
    raise AssertionError(f"the client raised nothing for {case}")


def check(
    server: ReplayServer,
    case: Case,
    call: Callable[[str], object],
    *,
    decorator_pending: str | None = None,
) -> BaseException:
    """The real client's exception: from_error and @classified_tool give the case's code.

    Returns the exception, for checks of what else it carries.

    ``decorator_pending`` names why the decorator cannot agree yet (its transport table
    does not know the SDK's transport errors); the check then asserts that it still does
    not, so the mark is removed once it does.
    """
    from agenterr import classified_tool, from_error

    exc = raised(server, case, call)
    outcome = from_error(exc)
    summary = f"{type(exc).__module__}.{type(exc).__name__}: {outcome!r}"
    assert outcome.code is case.code, summary
    if case.retry_after is not None:
        assert outcome.retry_after is not None, summary
        assert abs(outcome.retry_after - case.retry_after) <= 2, summary
    assert outcome.error is exc

    @classified_tool
    def tool() -> None:
        raise exc

    decorated = tool()
    if decorator_pending is None:
        assert decorated.code is case.code, f"decorator: {decorated!r} ({summary})"
        assert decorated.retry_after == outcome.retry_after
    else:
        assert decorated.code is not case.code, f"the decorator agrees now: {decorator_pending}"
    return exc
