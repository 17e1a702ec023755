"""What @classified_tool catches and how it classifies it, in every calling convention.

Each case is a tool body (a zero-argument callable that returns or raises) and the outcome
expected from it; every case runs as a sync and an async function and method, in Outcome
mode and in raises mode.
"""

from __future__ import annotations

import asyncio
import builtins
import email.message
import errno
import http.client
import io
import logging
import os
import shutil
import socket
import ssl
import urllib.error
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import httpx2
import jsonschema
import openai
import pydantic
import pytest
import requests
import urllib3.exceptions
import yarl
from hypothesis import example, given
from hypothesis import strategies as st
from multidict import CIMultiDict, CIMultiDictProxy

from agenterr import (
    AgentToolError,
    AuthToolError,
    Code,
    IndeterminateToolError,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
    from_error,
)

CONVENTIONS = ["function", "async function", "method", "async method"]
URL = "https://api.example.test/v1/items"


def run(convention: str, body: Callable[[], Any], **options: Any) -> Any:
    """Decorate a tool around ``body`` in one calling convention, call it, return the result."""
    if convention == "function":

        @classified_tool(**options)
        def tool() -> Any:
            return body()

        return tool()
    if convention == "async function":

        @classified_tool(**options)
        async def atool() -> Any:
            await asyncio.sleep(0)
            return body()

        return asyncio.run(atool())

    class Service:
        @classified_tool(**options)
        def tool(self) -> Any:
            return body()

        @classified_tool(**options)
        async def atool(self) -> Any:
            return body()

    if convention == "method":
        return Service().tool()
    return asyncio.run(Service().atool())


def raising(exc: BaseException) -> Callable[[], Any]:
    def body() -> Any:
        raise exc

    return body


def returning(value: object) -> Callable[[], Any]:
    return lambda: value


def outcome_of(convention: str, body: Callable[[], Any], **options: Any) -> Outcome[Any]:
    """The Outcome in Outcome mode, after checking raises mode agrees with it."""
    outcome = run(convention, body, **options)
    assert isinstance(outcome, Outcome)
    if outcome.ok:
        assert run(convention, body, raises=True, **options) is outcome.value
    else:
        with pytest.raises(AgentToolError) as info:
            run(convention, body, raises=True, **options)
        assert info.value.outcome == outcome
        expected = {
            "transient": TransientToolError,
            "self_correctable": SelfCorrectableToolError,
            "auth": AuthToolError,
            "indeterminate": IndeterminateToolError,
        }[outcome.class_ or ""]
        assert type(info.value) is expected
    return outcome


# --- real client objects ----------------------------------------------------------------

REQUEST = httpx.Request("GET", URL)
REQUEST2 = httpx2.Request("GET", URL)


def httpx_response(status: int, **kwargs: Any) -> httpx.Response:
    return httpx.Response(status, request=REQUEST, **kwargs)


def httpx_status_error(status: int, **kwargs: Any) -> httpx.HTTPStatusError:
    response = httpx_response(status, **kwargs)
    return httpx.HTTPStatusError(f"{status}", request=REQUEST, response=response)


def requests_response(
    status: int, body: bytes = b"", headers: dict[str, str] | None = None
) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response._content = body
    response.headers.update(headers or {})
    response.url = URL
    return response


def aiohttp_status_error(status: int) -> aiohttp.ClientResponseError:
    info = aiohttp.RequestInfo(
        url=yarl.URL(URL),
        method="GET",
        headers=CIMultiDictProxy(CIMultiDict()),
        real_url=yarl.URL(URL),
    )
    return aiohttp.ClientResponseError(
        info, (), status=status, message="nope", headers=CIMultiDict({"Retry-After": "4"})
    )


def urllib_http_error(status: int, body: bytes) -> urllib.error.HTTPError:
    return urllib.error.HTTPError(URL, status, "error", email.message.Message(), io.BytesIO(body))


def chained(outer: Exception, cause: BaseException) -> Callable[[], Any]:
    def body() -> Any:
        raise outer from cause

    return body


class Item(pydantic.BaseModel):
    name: str
    count: int


def pydantic_error() -> pydantic.ValidationError:
    try:
        Item.model_validate({"count": "many"})
    except pydantic.ValidationError as exc:
        return exc
    raise AssertionError("unreachable")


def jsonschema_error() -> jsonschema.ValidationError:
    schema = {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
    }
    try:
        jsonschema.validate({"tags": ["a", 3]}, schema)
    except jsonschema.ValidationError as exc:
        return exc
    raise AssertionError("unreachable")


@dataclass
class Case:
    body: Callable[[], Any]
    code: Code | None
    status: int = 0
    retry_after: float | None = None
    in_hint: tuple[str, ...] = ()
    not_in_hint: tuple[str, ...] = ()


CASES: dict[str, Case] = {
    # HTTP failures raised by clients and SDKs: classified by status, headers and body.
    "httpx HTTPStatusError 503": Case(
        raising(httpx_status_error(503, headers={"Retry-After": "7"}, text="overloaded")),
        Code.UNAVAILABLE,
        503,
        7.0,
        ("overloaded",),
    ),
    "httpx2 HTTPStatusError 404": Case(
        raising(
            httpx2.HTTPStatusError(
                "404", request=REQUEST2, response=httpx2.Response(404, request=REQUEST2)
            )
        ),
        Code.NOT_FOUND,
        404,
    ),
    "requests HTTPError 429": Case(
        raising(
            requests.HTTPError(response=requests_response(429, b"slow down", {"Retry-After": "3"}))
        ),
        Code.RATE_LIMITED,
        429,
        3.0,
        ("slow down",),
    ),
    "aiohttp ClientResponseError 401": Case(
        raising(aiohttp_status_error(401)), Code.UNAUTHORIZED, 401
    ),
    "urllib HTTPError 400": Case(
        raising(urllib_http_error(400, b'{"error": "limit must be positive"}')),
        Code.INVALID_REQUEST,
        400,
        None,
        ("limit must be positive",),
    ),
    "openai RateLimitError": Case(
        raising(
            openai.RateLimitError(
                "slow", response=httpx_response(429, headers={"retry-after": "2"}), body=None
            )
        ),
        Code.RATE_LIMITED,
        429,
        2.0,
    ),
    "openai APITimeoutError": Case(raising(openai.APITimeoutError(request=REQUEST)), Code.TIMEOUT),
    "openai APIConnectionError": Case(
        raising(openai.APIConnectionError(request=REQUEST)), Code.UNAVAILABLE
    ),
    # Transport failures of every client family.
    "httpx ConnectError": Case(raising(httpx.ConnectError("refused")), Code.UNAVAILABLE),
    "httpx ReadTimeout": Case(raising(httpx.ReadTimeout("slow")), Code.TIMEOUT),
    "httpx2 ConnectTimeout": Case(raising(httpx2.ConnectTimeout("slow")), Code.TIMEOUT),
    "httpx UnsupportedProtocol": Case(
        raising(httpx.UnsupportedProtocol("ftp")), Code.INVALID_REQUEST
    ),
    "requests ConnectionError": Case(raising(requests.ConnectionError("down")), Code.UNAVAILABLE),
    "requests ReadTimeout": Case(raising(requests.ReadTimeout("slow")), Code.TIMEOUT),
    "requests MissingSchema": Case(
        raising(requests.exceptions.MissingSchema("no scheme")), Code.INVALID_REQUEST
    ),
    "urllib3 ProtocolError": Case(
        raising(urllib3.exceptions.ProtocolError("Connection aborted.")), Code.UNAVAILABLE
    ),
    "urllib3 ReadTimeoutError": Case(
        raising(urllib3.exceptions.ReadTimeoutError(None, URL, "read timed out")), Code.TIMEOUT
    ),
    "aiohttp ServerDisconnectedError": Case(
        raising(aiohttp.ServerDisconnectedError()), Code.UNAVAILABLE
    ),
    "aiohttp ConnectionTimeoutError": Case(raising(aiohttp.ConnectionTimeoutError()), Code.TIMEOUT),
    "urllib URLError": Case(
        raising(urllib.error.URLError(ConnectionRefusedError(111, "refused"))), Code.UNAVAILABLE
    ),
    "http.client RemoteDisconnected": Case(
        raising(http.client.RemoteDisconnected("closed")), Code.UNAVAILABLE
    ),
    "ConnectionRefusedError": Case(raising(ConnectionRefusedError(111, "no")), Code.UNAVAILABLE),
    # a resolver hiccup is transient; a name that does not exist (EAI_NONAME) is not
    "socket.gaierror": Case(
        raising(socket.gaierror(socket.EAI_AGAIN, "Temporary failure")), Code.UNAVAILABLE
    ),
    "socket.gaierror (no such name)": Case(
        raising(socket.gaierror(socket.EAI_NONAME, "Name unknown")), Code.UNKNOWN
    ),
    "TimeoutError": Case(raising(TimeoutError()), Code.TIMEOUT),
    "asyncio.IncompleteReadError": Case(
        raising(asyncio.IncompleteReadError(b"", 10)), Code.UNAVAILABLE
    ),
    "cause chain: RuntimeError from ReadTimeout": Case(
        chained(RuntimeError("lookup failed"), httpx.ReadTimeout("slow")), Code.TIMEOUT
    ),
    "exception group of transport failures": Case(
        raising(ExceptionGroup("all", [httpx.ConnectError("a"), TimeoutError()])), Code.TIMEOUT
    ),
    "exception carrying a status": Case(
        raising(type("PaymentAPIError", (Exception,), {"status_code": 502})("bad gateway")),
        Code.UNAVAILABLE,
        502,
    ),
    # Validation errors raised by the tool.
    "pydantic ValidationError": Case(
        raising(pydantic_error()),
        Code.SCHEMA_INVALID,
        in_hint=("- name: Field required", "- count: Input should be a valid integer"),
    ),
    "jsonschema ValidationError": Case(
        raising(jsonschema_error()),
        Code.SCHEMA_INVALID,
        in_hint=("- $.tags[1]: 3 is not of type 'string'",),
    ),
    # Bugs: UNKNOWN, and the exception's text stays out of the hint.
    "KeyError": Case(raising(KeyError("internal_field")), Code.UNKNOWN, not_in_hint=("internal",)),
    "ValueError with a secret": Case(
        raising(ValueError("token sk-abcdefghijklmnopqrstuvwx")),
        Code.UNKNOWN,
        not_in_hint=("sk-", "ValueError"),
    ),
    "TypeError in the body": Case(raising(TypeError("unsupported operand")), Code.UNKNOWN),
    "FileNotFoundError": Case(raising(FileNotFoundError(2, "missing")), Code.UNKNOWN),
    "httpx StreamConsumed": Case(raising(httpx.StreamConsumed()), Code.UNKNOWN),
    "requests JSONDecodeError": Case(
        raising(requests.exceptions.JSONDecodeError("Expecting value", "<html>", 0)), Code.UNKNOWN
    ),
    "httpx TooManyRedirects": Case(raising(httpx.TooManyRedirects("loop")), Code.UNKNOWN),
    # Returned values.
    "returned int": Case(returning(42), None),
    "returned None": Case(returning(None), None),
    "returned httpx 200": Case(returning(httpx_response(200, json={"ok": 1})), None),
    "returned httpx 503": Case(
        returning(httpx_response(503, headers={"Retry-After": "9"})), Code.UNAVAILABLE, 503, 9.0
    ),
    "returned httpx2 404": Case(
        returning(httpx2.Response(404, request=REQUEST2, text="no such item")),
        Code.NOT_FOUND,
        404,
        None,
        ("no such item",),
    ),
    "returned requests 500": Case(
        returning(requests_response(500, b"boom")), Code.UNAVAILABLE, 500
    ),
    "returned requests 204": Case(returning(requests_response(204)), None),
    "returned failed Outcome": Case(
        returning(Outcome.failure(Code.NOT_FOUND, "no user 7")),
        Code.NOT_FOUND,
        in_hint=("no user 7",),
    ),
}


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("name", list(CASES))
def test_case(name: str, convention: str) -> None:
    """Each body gives the expected code, status, Retry-After and hint in every convention."""
    case = CASES[name]
    outcome = outcome_of(convention, case.body)
    assert outcome.code is case.code, outcome
    assert outcome.status == case.status
    assert outcome.retry_after == case.retry_after
    for text in case.in_hint:
        assert text in outcome.llm_hint
    for text in case.not_in_hint:
        assert text not in outcome.llm_hint
    if outcome.failed:
        assert outcome.llm_hint


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_success_value_is_returned_object(convention: str) -> None:
    """Success carries the very object returned; raises mode returns it bare."""
    value = {"items": [1, 2]}
    outcome = run(convention, returning(value))
    assert outcome.ok and outcome.value is value
    assert outcome == Outcome.success(value)
    assert run(convention, returning(value), raises=True) is value


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_returned_ok_outcome_passes_through(convention: str) -> None:
    """A returned ok Outcome is not wrapped again; raises mode returns its value."""
    given = Outcome.success([1])
    assert run(convention, returning(given)) is given
    assert run(convention, returning(given), raises=True) == [1]


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_returned_failed_outcome_raises_from_its_error(convention: str) -> None:
    """Raises mode turns a returned failed Outcome into its typed error, chained from it."""
    cause = TimeoutError("upstream")
    given = Outcome.failure(Code.TIMEOUT, error=cause)
    assert run(convention, returning(given)) is given
    with pytest.raises(TransientToolError) as info:
        run(convention, returning(given), raises=True)
    assert info.value.outcome is given
    assert info.value.__cause__ is cause


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_raised_agent_tool_error_passes_through(convention: str) -> None:
    """A raised AgentToolError keeps its outcome, and raises mode re-raises the same object."""
    error = TransientToolError(Outcome.failure(Code.RATE_LIMITED, retry_after=5))
    assert run(convention, raising(error)) is error.outcome
    with pytest.raises(TransientToolError) as info:
        run(convention, raising(error), raises=True)
    assert info.value is error


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_raises_mode_chains_from_original(convention: str) -> None:
    """The typed error is raised ``from`` the original exception, which the outcome keeps."""
    original = httpx.ConnectTimeout("slow")
    with pytest.raises(TransientToolError) as info:
        run(convention, raising(original), raises=True)
    assert info.value.__cause__ is original
    assert info.value.outcome.error is original
    assert run(convention, raising(original)).error is original


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_expose_errors_quotes_cleaned_text(convention: str) -> None:
    """expose_errors=True quotes the exception, cleaned, single-lined and redacted."""
    exc = ValueError("bad\x1b[31m state\nAuthorization: Bearer abcdefghijklmnop1234")
    outcome = run(convention, raising(exc), expose_errors=True)
    assert outcome.code is Code.UNKNOWN
    assert "The tool raised ValueError: bad state" in outcome.llm_hint
    assert "abcdefghijklmnop1234" not in outcome.llm_hint
    assert "[REDACTED]" in outcome.llm_hint
    assert "\n" not in outcome.llm_hint and "\x1b" not in outcome.llm_hint


def test_expose_errors_survives_hostile_str() -> None:
    """An exception whose __str__ raises still gives an UNKNOWN outcome."""

    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    outcome = run("function", raising(Hostile()), expose_errors=True)
    assert outcome.code is Code.UNKNOWN
    assert outcome.llm_hint.endswith("The tool raised Hostile.")


# --- errors= ---------------------------------------------------------------------------


class PaymentDeclined(Exception):
    pass


class CardExpired(PaymentDeclined):
    pass


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_errors_map_to_code(convention: str) -> None:
    """errors= maps a user type to a code, keeping the exception."""
    exc = PaymentDeclined("declined")
    outcome = outcome_of(convention, raising(exc), errors={PaymentDeclined: Code.UNAUTHORIZED})
    assert outcome.code is Code.UNAUTHORIZED
    assert outcome.error is exc


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_errors_most_specific_class_wins(convention: str) -> None:
    """The most specific class of the exception's MRO present in errors= wins."""
    errors = {PaymentDeclined: Code.UNAUTHORIZED, CardExpired: Code.INVALID_REQUEST}
    assert run(convention, raising(CardExpired()), errors=errors).code is Code.INVALID_REQUEST
    assert run(convention, raising(PaymentDeclined()), errors=errors).code is Code.UNAUTHORIZED
    both = {Exception: Code.UNAVAILABLE, LookupError: Code.NOT_FOUND}
    assert run(convention, raising(KeyError("k")), errors=both).code is Code.NOT_FOUND


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_errors_callable_returns_outcome_or_falls_through(convention: str) -> None:
    """A rule's Outcome is used; None falls through to the default rules."""

    def rule(exc: httpx.HTTPStatusError) -> Outcome[Any] | None:
        if exc.response.status_code == 409:
            return Outcome.failure(Code.INVALID_REQUEST, "that name is taken; pick another")
        return None

    errors = {httpx.HTTPStatusError: rule}
    taken = run(convention, raising(httpx_status_error(409)), errors=errors)
    assert taken.code is Code.INVALID_REQUEST and "taken" in taken.llm_hint
    assert isinstance(taken.error, httpx.HTTPStatusError)
    other = run(convention, raising(httpx_status_error(503)), errors=errors)
    assert other.code is Code.UNAVAILABLE and other.status == 503


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_errors_callable_may_turn_failure_into_success(convention: str) -> None:
    """A rule returning an ok Outcome makes the call succeed with its value."""
    errors = {KeyError: lambda exc: Outcome.success("default")}
    assert run(convention, raising(KeyError("k")), errors=errors).value == "default"
    assert run(convention, raising(KeyError("k")), errors=errors, raises=True) == "default"


def test_errors_rule_that_raises_is_logged_and_ignored(caplog: pytest.LogCaptureFixture) -> None:
    """A rule that raises falls through to the default rules, with a warning logged."""

    def broken(exc: Exception) -> Outcome[Any] | None:
        raise RuntimeError("bug in rule")

    outcome = run("function", raising(httpx.ConnectError("x")), errors={Exception: broken})
    assert outcome.code is Code.UNAVAILABLE
    assert any("errors= rule" in r.getMessage() for r in caplog.records)


def test_errors_do_not_override_agent_tool_errors() -> None:
    """A raised AgentToolError keeps its outcome even when errors= would match it."""
    error = AuthToolError(Outcome.failure(Code.UNAUTHORIZED))
    outcome = run("function", raising(error), errors={Exception: Code.UNAVAILABLE})
    assert outcome is error.outcome


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"errors": {"KeyError": Code.NOT_FOUND}}, "not an exception type"),
        ({"errors": {KeyError: "NOT_FOUND"}}, "expected a Code or a callable"),
        ({"errors": [KeyError]}, "must be a mapping"),
        ({"errors": {KeyboardInterrupt: Code.UNKNOWN}}, "not an Exception subclass"),
        ({"errors": {asyncio.CancelledError: Code.UNKNOWN}}, "not an Exception subclass"),
        ({"on_failure": "print"}, "on_failure must be a callable"),
    ],
)
def test_bad_options_fail_at_decoration(options: dict[str, Any], message: str) -> None:
    """Invalid options raise TypeError when the decorator is built, not at call time."""
    with pytest.raises(TypeError, match=message):
        classified_tool(**options)


def test_non_callable_is_rejected() -> None:
    """Decorating something that is not callable is a TypeError."""
    with pytest.raises(TypeError, match="needs a callable"):
        classified_tool(42)  # type: ignore[call-overload]


# --- duck typing and robustness ---------------------------------------------------------


def foreign(module: str, name: str, base: type[Exception] = Exception) -> type[Exception]:
    """An exception class that claims to come from ``module`` (no such package needed)."""
    return type(name, (base,), {"__module__": module})


@pytest.mark.parametrize(
    ("module", "name", "code"),
    [
        ("anthropic._exceptions", "APIConnectionError", Code.UNAVAILABLE),
        ("httpcore._exceptions", "NetworkError", Code.UNAVAILABLE),
        ("httpx._exceptions", "StreamConsumed", Code.UNKNOWN),
        ("mylib.errors", "APIConnectionError", Code.UNKNOWN),  # right name, unknown package
    ],
)
def test_client_families_by_package_and_name(module: str, name: str, code: Code) -> None:
    """Client exceptions are recognised by package and MRO class name, without imports."""
    assert run("function", raising(foreign(module, name)("x"))).code is code


def test_anthropic_status_error_shape() -> None:
    """An SDK error carrying status_code and a response is classified by that response."""
    api_status_error = foreign("anthropic._exceptions", "APIStatusError")
    exc = api_status_error("overloaded")
    exc.status_code = 529  # type: ignore[attr-defined]
    exc.response = httpx.Response(529, request=REQUEST, headers={"retry-after": "1"})  # type: ignore[attr-defined]
    outcome = run("function", raising(exc))
    assert (outcome.code, outcome.status, outcome.retry_after) == (Code.UNAVAILABLE, 529, 1.0)


def test_exception_group_with_a_bug_is_unknown() -> None:
    """A group mixing a transport failure and a bug is a bug."""
    group = ExceptionGroup("mixed", [httpx.ConnectError("a"), KeyError("b")])
    assert run("function", raising(group)).code is Code.UNKNOWN


def test_hostile_attributes_do_not_break_classification() -> None:
    """An exception whose response property raises is still classified."""

    class Weird(Exception):
        @property
        def response(self) -> Any:
            raise RuntimeError("no")

    assert run("function", raising(Weird())).code is Code.UNKNOWN


def test_cyclic_cause_chain() -> None:
    """A cyclic __cause__ chain terminates."""
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__cause__, b.__cause__ = b, a
    assert run("function", raising(a)).code is Code.UNKNOWN
    assert run("function", raising(a), idempotent=False).code is Code.UNKNOWN


def _takes_a_message(exc_type: type) -> bool:
    try:
        exc_type("message")
    except Exception:  # UnicodeDecodeError and friends need more arguments
        return False
    return True


_BUILTIN_EXCEPTIONS = sorted(
    (
        t
        for t in vars(builtins).values()
        if isinstance(t, type)
        and issubclass(t, Exception)
        and not issubclass(t, (Warning, BaseExceptionGroup))
        and _takes_a_message(t)
    ),
    key=lambda t: t.__name__,
)


@given(
    exc_type=st.sampled_from(_BUILTIN_EXCEPTIONS),
    text=st.text(max_size=200),
    raises=st.booleans(),
)
@example(exc_type=ArithmeticError, text="i/o timeout", raises=False)  # a relayed wording
@example(exc_type=ArithmeticError, text="context canceled", raises=False)  # UNKNOWN, quoted
def test_any_builtin_exception_is_classified(
    exc_type: type[Exception], text: str, raises: bool
) -> None:
    """Whatever builtin exception a tool raises, the call gives a failure and never leaks it."""
    exc = exc_type(f"zqx{text}")
    if raises:
        with pytest.raises(AgentToolError) as info:
            run("function", raising(exc), raises=True)
        outcome = info.value.outcome
    else:
        outcome = run("function", raising(exc))
    assert outcome.failed and outcome.llm_hint
    if issubclass(exc_type, TimeoutError):
        expected = Code.TIMEOUT
    elif issubclass(exc_type, ConnectionError):
        expected = Code.UNAVAILABLE
    else:  # every other builtin, OSError and its local subclasses included, is a bug
        expected = Code.UNKNOWN
    relayed = from_error(exc)
    foreign = relayed.reason is not None and relayed.reason.rule == "foreign-transport"
    if foreign:
        # The message relays another runtime's transport failure ("i/o timeout", SPEC 4.2
        # step 3.6): the wording decides, as for any exception the class table does not know.
        expected = relayed.code
    assert outcome.code is expected, (exc_type, outcome)
    if outcome.code is Code.UNKNOWN and not foreign:
        # A bug's text stays out of the hint; a relayed permanent transport failure quotes
        # the client's words, as SPEC 4.2 step 5 says (they name what a human must fix).
        assert "zqx" not in outcome.llm_hint


# --- which OSErrors are transport failures ------------------------------------------------


def _raised_by(action: Callable[[], Any]) -> BaseException:
    try:
        action()
    except BaseException as exc:
        return exc
    raise AssertionError("did not raise")


def _same_file() -> None:
    shutil.copyfile(__file__, __file__)


def _bad_fd() -> None:
    os.read(987654, 1)


def _no_such_process() -> None:
    os.kill(2**22 + 12345, 0)


def _read_only_file() -> None:
    with Path(__file__).open("rb") as f:
        f.write(b"x")  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: _raised_by(_read_only_file), id="io.UnsupportedOperation"),
        pytest.param(lambda: _raised_by(_no_such_process), id="ProcessLookupError"),
        pytest.param(lambda: _raised_by(_same_file), id="shutil.SameFileError"),
        pytest.param(lambda: _raised_by(_bad_fd), id="EBADF"),
        pytest.param(lambda: OSError(errno.ENOSPC, "No space left"), id="ENOSPC"),
        pytest.param(lambda: ChildProcessError(errno.ECHILD, "no child"), id="ECHILD"),
        pytest.param(lambda: PermissionError(errno.EACCES, "denied"), id="EACCES"),
    ],
)
def test_local_os_errors_are_bugs(make: Callable[[], BaseException]) -> None:
    """An OSError of the local machine (files, processes, descriptors) is a bug, not a
    retryable transport failure."""
    outcome = outcome_of("function", raising(make()))
    assert outcome.code is Code.UNKNOWN and not outcome.retryable


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (OSError(errno.ECONNREFUSED, "refused"), Code.UNAVAILABLE),
        (OSError(errno.ENETUNREACH, "network unreachable"), Code.UNAVAILABLE),
        (OSError(errno.EHOSTUNREACH, "no route"), Code.UNAVAILABLE),
        (OSError(errno.ETIMEDOUT, "timed out"), Code.TIMEOUT),
        (socket.herror(1, "unknown host"), Code.UNAVAILABLE),
        (ssl.SSLError(1, "handshake failure"), Code.UNAVAILABLE),
        (ssl.SSLCertVerificationError(1, "certificate verify failed"), Code.UNKNOWN),
        (urllib.error.URLError("no route"), Code.UNAVAILABLE),
        (ConnectionResetError(errno.ECONNRESET, "reset"), Code.UNAVAILABLE),
        (BrokenPipeError(errno.EPIPE, "broken pipe"), Code.UNAVAILABLE),
        (TimeoutError("timed out"), Code.TIMEOUT),
    ],
    ids=repr,
)
def test_network_os_errors_are_transport(exc: OSError, code: Code) -> None:
    """The allow-list: stdlib network types, and plain OSErrors with a network errno."""
    assert outcome_of("function", raising(exc)).code is code


def test_requests_redirect_loop_is_a_bug() -> None:
    """requests' TooManyRedirects, like httpx's, is not fixed by retrying."""
    assert run("function", raising(requests.TooManyRedirects("loop"))).code is Code.UNKNOWN


def test_implicit_context_is_not_followed() -> None:
    """A bug raised while handling a network failure (no ``from``) stays a bug; raised
    ``from`` it, it is the network failure. The code then comes from the whole chain."""

    def handler_bug() -> Any:
        try:
            raise httpx.ConnectError("down")
        except httpx.ConnectError:
            return {}["cache"]

    def explicit() -> Any:
        try:
            raise httpx.ReadTimeout("slow")
        except httpx.ReadTimeout as exc:
            raise RuntimeError("lookup failed") from exc

    assert run("function", handler_bug).code is Code.UNKNOWN
    assert run("function", explicit).code is Code.TIMEOUT


def test_hostile_cause_and_args_never_escape_outcome_mode() -> None:
    """An exception whose __cause__ or args property raises still gives an Outcome."""

    class HostileCause(Exception):
        @property  # type: ignore[override]
        def __cause__(self) -> Any:
            raise RuntimeError("cause property")

    class HostileArgs(ConnectionError):
        @property  # type: ignore[override]
        def args(self) -> Any:
            raise RuntimeError("args property")

    outcomes: list[Any] = []
    escaped = ""
    try:
        outcomes.append(run("function", raising(HostileCause("x"))))
        outcomes.append(run("function", raising(HostileArgs()), idempotent=False))
    except Exception as exc:  # kept out of pytest's report, which would read __cause__ too
        escaped = type(exc).__name__
    assert not escaped, f"{escaped} escaped Outcome mode"
    assert outcomes[0].code is Code.UNKNOWN
    assert isinstance(outcomes[1], Outcome) and outcomes[1].failed


def test_expose_errors_does_not_leak_a_cut_token() -> None:
    """The quoted exception goes through the core's snippet: a long message whose window
    would cut a credential in half does not leak the first half."""
    jwt = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    head = "user session " + jwt[: jwt.rindex(".")]
    pad = "\x1b[0m" * ((2048 - len(head)) // 4) + " " * ((2048 - len(head)) % 4)
    outcome = run(
        "function", raising(ValueError(pad + head + jwt[jwt.rindex(".") :])), expose_errors=True
    )
    assert "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" not in outcome.llm_hint
    assert outcome.llm_hint.endswith("The tool raised ValueError: user session [REDACTED]")


# --- errors= and the other rules --------------------------------------------------------


def test_errors_catch_all_does_not_override_binding() -> None:
    """A hallucinated argument is SCHEMA_INVALID even under a catch-all or TypeError rule."""
    for errors in ({Exception: Code.UNAVAILABLE}, {TypeError: Code.INVALID_REQUEST}):

        @classified_tool(errors=errors)
        def search(query: str) -> str:
            return query

        outcome = search(qurey="x")  # type: ignore[call-arg]
        assert outcome.code is Code.SCHEMA_INVALID and not outcome.retryable
        assert "'qurey'" in outcome.llm_hint


def test_errors_precede_validation_errors() -> None:
    """Documented order: an explicit errors= rule for ValueError applies to pydantic's
    ValidationError (a ValueError) too; without one it is SCHEMA_INVALID."""
    outcome = run("function", raising(pydantic_error()), errors={ValueError: Code.INVALID_REQUEST})
    assert outcome.code is Code.INVALID_REQUEST
    assert run("function", raising(pydantic_error())).code is Code.SCHEMA_INVALID


def test_errors_rule_returning_a_non_outcome_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A rule returning something else than an Outcome or None is logged and ignored."""
    errors = {httpx.ConnectError: lambda exc: Code.NOT_FOUND}
    with caplog.at_level(logging.WARNING, logger="agenterr"):
        outcome = run("function", raising(httpx.ConnectError("x")), errors=errors)
    assert outcome.code is Code.UNAVAILABLE
    assert any("not an Outcome or None" in r.getMessage() for r in caplog.records)


def test_errors_rule_returning_none_falls_through_to_the_default_rules() -> None:
    """None from the most specific rule means the default rules, not a less specific rule."""
    errors = {PaymentDeclined: Code.UNAUTHORIZED, CardExpired: lambda exc: None}
    assert run("function", raising(CardExpired()), errors=errors).code is Code.UNKNOWN


# --- returned responses -----------------------------------------------------------------


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_returned_2xx_response_skips_from_response(
    convention: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A returned 2xx response is a success from its status alone: from_response never runs,
    and raises mode returns the very object."""
    import agenterr._policy as policy

    def boom(response: object) -> Any:
        raise AssertionError("from_response called")

    monkeypatch.setattr(policy, "from_response", boom)
    response = httpx_response(200, json={"ok": 1})
    assert run(convention, returning(response)).value is response
    assert run(convention, returning(response), raises=True) is response
    empty = requests_response(204)
    assert run(convention, returning(empty), raises=True) is empty
