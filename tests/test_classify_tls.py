"""A certificate that fails verification is UNKNOWN, through every real HTTP client (SPEC 4.2).

A TLS server on 127.0.0.1 presents a certificate from a throw-away CA the clients do not
trust; each client's real exception goes through from_error.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import aiohttp
import httpx
import httpx2
import pytest
import requests
import trustme

from agenterr import Code, from_error

pytestmark = pytest.mark.external


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the failed handshakes are the point of the test


@pytest.fixture(scope="module")
def untrusted_url() -> Iterator[str]:
    """An HTTPS URL whose certificate no client here trusts."""
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    server = _QuietServer(("127.0.0.1", 0), _Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _assert_certificate_failure(error: BaseException) -> None:
    outcome = from_error(error)
    assert outcome.code is Code.UNKNOWN, (type(error), outcome)
    assert not outcome.retryable
    assert "The HTTP client said:" in outcome.llm_hint


@pytest.mark.parametrize("module", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_httpx(module: Any, untrusted_url: str) -> None:
    """httpx / httpx2 ConnectError caused by ssl.SSLCertVerificationError."""
    with pytest.raises(module.ConnectError) as caught:
        module.get(untrusted_url, timeout=5)
    _assert_certificate_failure(caught.value)


def test_requests(untrusted_url: str) -> None:
    """requests SSLError wrapping urllib3's MaxRetryError and SSLError."""
    with pytest.raises(requests.exceptions.SSLError) as caught:
        requests.get(untrusted_url, timeout=5)
    _assert_certificate_failure(caught.value)


def test_urllib(untrusted_url: str) -> None:
    """urllib's URLError whose reason is the verification error."""
    with pytest.raises(urllib.error.URLError) as caught:
        urllib.request.urlopen(untrusted_url, timeout=5)
    _assert_certificate_failure(caught.value)


def test_aiohttp(untrusted_url: str) -> None:
    """aiohttp's ClientConnectorCertificateError."""

    async def fetch() -> None:
        async with aiohttp.ClientSession() as session, session.get(untrusted_url):
            pass

    with pytest.raises(aiohttp.ClientConnectorCertificateError) as caught:
        asyncio.run(fetch())
    _assert_certificate_failure(caught.value)


def test_refused_connection_stays_transient() -> None:
    """The rule is specific to certificates: a refused TLS connection is still UNAVAILABLE."""
    with pytest.raises(httpx.ConnectError) as caught:
        httpx.get("https://127.0.0.1:9/", timeout=2)
    assert from_error(caught.value).code is Code.UNAVAILABLE
