"""Real HTTP clients and LLM SDKs against a local server replaying documented error responses.

Each client is the real package, pointed at 127.0.0.1 with its retries off and a short
timeout; each case is a response its provider documents (rate limit with its delay header,
quota or billing, bad key, permission, not found, validation, 5xx), a reply slower than the
timeout, and a closed port. ``from_error`` on the exception the client raises, and
``@classified_tool`` around a tool that raises it, must give the documented code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import aiohttp
import anthropic
import groq
import httpx
import httpx2
import openai
import pytest
import requests

from agenterr import Code
from tests._replay import TIMEOUT, Case, ReplayServer, Reply, check, refused, serve, slow

pytestmark = pytest.mark.external


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    yield from serve()


# --- plain HTTP clients: raise_for_status ----------------------------------------------

HTTP_CASES = {
    "rate-limit": Case(
        Reply(429, {"error": "too many requests"}, {"Retry-After": "7"}), Code.RATE_LIMITED, 7
    ),
    "quota": Case(
        Reply(429, {"error": {"code": "insufficient_quota", "message": "quota exceeded"}}),
        Code.UNAUTHORIZED,
    ),
    "bad-key": Case(Reply(401, {"error": "invalid api key"}), Code.UNAUTHORIZED),
    "permission": Case(Reply(403, {"error": "forbidden"}), Code.UNAUTHORIZED),
    "not-found": Case(Reply(404, {"error": "no such item"}), Code.NOT_FOUND),
    "validation": Case(Reply(422, {"error": "limit must be positive"}), Code.INVALID_REQUEST),
    "500": Case(Reply(500, "internal error"), Code.UNAVAILABLE),
    "503": Case(Reply(503, "", {"Retry-After": "5"}), Code.UNAVAILABLE, 5),
    "529": Case(Reply(529, "overloaded"), Code.UNAVAILABLE),
    "timeout": slow(),
    "refused": refused(),
}


def _httpx(url: str) -> object:
    with httpx.Client(timeout=TIMEOUT) as client:
        return client.get(url + "/items/1").raise_for_status()


def _httpx2(url: str) -> object:
    with httpx2.Client(timeout=TIMEOUT) as client:
        return client.get(url + "/items/1").raise_for_status()


def _requests(url: str) -> object:
    response = requests.get(url + "/items/1", timeout=TIMEOUT)
    response.raise_for_status()
    return response


def _aiohttp(url: str) -> object:
    async def call() -> object:
        timeout = aiohttp.ClientTimeout(total=TIMEOUT)
        async with (
            aiohttp.ClientSession(timeout=timeout, raise_for_status=True) as session,
            session.get(url + "/items/1") as response,
        ):
            return await response.read()

    return asyncio.run(call())


HTTP_CLIENTS = {"httpx": _httpx, "httpx2": _httpx2, "requests": _requests, "aiohttp": _aiohttp}


@pytest.mark.parametrize("client", HTTP_CLIENTS)
@pytest.mark.parametrize("case", [c.param(n) for n, c in HTTP_CASES.items()])
def test_http_clients(server: ReplayServer, client: str, case: Case) -> None:
    if client == "aiohttp" and case is HTTP_CASES["quota"]:
        # aiohttp's ClientResponseError keeps no body by design: the 429 alone decides.
        case = Case(case.reply, Code.RATE_LIMITED)
    check(server, case, HTTP_CLIENTS[client])


# --- OpenAI-compatible APIs: openai, groq --------------------------------------------


def _openai_error(kind: str, code: str | None, message: str) -> dict[str, object]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


OPENAI_CASES = {
    "rate-limit": Case(
        Reply(
            429,
            _openai_error("requests", "rate_limit_exceeded", "Rate limit reached for requests"),
            {"retry-after": "7", "x-ratelimit-reset-requests": "7s"},
        ),
        Code.RATE_LIMITED,
        7,
    ),
    "quota": Case(
        Reply(
            429,
            _openai_error(
                "insufficient_quota",
                "insufficient_quota",
                "You exceeded your current quota, please check your plan and billing details.",
            ),
        ),
        Code.UNAUTHORIZED,
    ),
    "bad-key": Case(
        Reply(
            401,
            _openai_error(
                "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-a***."
            ),
        ),
        Code.UNAUTHORIZED,
    ),
    "permission": Case(
        Reply(
            403,
            _openai_error(
                "invalid_request_error",
                "unsupported_country_region_territory",
                "Country, region, or territory not supported",
            ),
        ),
        Code.UNAUTHORIZED,
    ),
    "not-found": Case(
        Reply(
            404,
            _openai_error(
                "invalid_request_error", "model_not_found", "The model `gpt-x` does not exist"
            ),
        ),
        Code.NOT_FOUND,
    ),
    "validation": Case(
        Reply(
            400,
            _openai_error(
                "invalid_request_error", None, "'messages' must contain at least one message"
            ),
        ),
        Code.INVALID_REQUEST,
    ),
    "500": Case(
        Reply(500, _openai_error("server_error", None, "The server had an error")),
        Code.UNAVAILABLE,
    ),
    "503": Case(
        Reply(503, _openai_error("server_error", None, "The engine is currently overloaded")),
        Code.UNAVAILABLE,
    ),
    "timeout": slow(),
    "refused": refused(),
}


def _openai(url: str) -> object:
    client = openai.OpenAI(api_key="sk-test", base_url=url + "/v1", max_retries=0, timeout=TIMEOUT)
    with client:
        return client.models.retrieve("gpt-x")


def _groq(url: str) -> object:
    client = groq.Groq(api_key="gsk-test", base_url=url, max_retries=0, timeout=TIMEOUT)
    with client:
        return client.models.retrieve("llama-x")


@pytest.mark.parametrize("sdk", ["openai", "groq"])
@pytest.mark.parametrize("case", [c.param(n) for n, c in OPENAI_CASES.items()])
def test_openai_compatible(server: ReplayServer, sdk: str, case: Case) -> None:
    check(server, case, _openai if sdk == "openai" else _groq)


# --- Anthropic ---------------------------------------------------------------------


def _anthropic_error(kind: str, message: str) -> dict[str, object]:
    return {"type": "error", "error": {"type": kind, "message": message}}


ANTHROPIC_CASES = {
    "rate-limit": Case(
        Reply(
            429,
            _anthropic_error("rate_limit_error", "Number of request tokens has exceeded your rate"),
            {"retry-after": "9", "anthropic-ratelimit-requests-remaining": "0"},
        ),
        Code.RATE_LIMITED,
        9,
    ),
    "billing": Case(
        Reply(
            400,
            _anthropic_error(
                "invalid_request_error",
                "Your credit balance is too low to access the Anthropic API.",
            ),
        ),
        Code.UNAUTHORIZED,
    ),
    "bad-key": Case(
        Reply(401, _anthropic_error("authentication_error", "invalid x-api-key")),
        Code.UNAUTHORIZED,
    ),
    "permission": Case(
        Reply(403, _anthropic_error("permission_error", "Your API key does not have permission")),
        Code.UNAUTHORIZED,
    ),
    "not-found": Case(
        Reply(404, _anthropic_error("not_found_error", "model: claude-x")), Code.NOT_FOUND
    ),
    "validation": Case(
        Reply(400, _anthropic_error("invalid_request_error", "max_tokens: Field required")),
        Code.INVALID_REQUEST,
    ),
    "too-large": Case(
        Reply(413, _anthropic_error("request_too_large", "Request exceeds the maximum size")),
        Code.INVALID_REQUEST,
    ),
    "500": Case(
        Reply(500, _anthropic_error("api_error", "Internal server error")), Code.UNAVAILABLE
    ),
    "529": Case(Reply(529, _anthropic_error("overloaded_error", "Overloaded")), Code.UNAVAILABLE),
    "timeout": slow(),
    "refused": refused(),
}


def _anthropic(url: str) -> object:
    client = anthropic.Anthropic(api_key="sk-ant", base_url=url, max_retries=0, timeout=TIMEOUT)
    with client:
        return client.models.retrieve("claude-x")


@pytest.mark.parametrize("case", [c.param(n) for n, c in ANTHROPIC_CASES.items()])
def test_anthropic(server: ReplayServer, case: Case) -> None:
    check(server, case, _anthropic)
