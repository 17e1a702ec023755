"""agenterr.integrations.tenacity against the real tenacity: retry, wait, stop and log.

tenacity's ``sleep`` is replaced by a recorder in every test, so the waits are asserted
exactly and nothing sleeps.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import math
import subprocess
import sys
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from tenacity import (
    AsyncRetrying,
    RetryError,
    Retrying,
    retry,
    retry_if_exception_type,
    retry_if_result,
    stop_after_attempt,
    wait_fixed,
)
from tenacity.retry import retry_all, retry_any

import agenterr
from agenterr import (
    Class,
    Code,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
    error_for,
)
from agenterr.integrations.tenacity import (
    before_sleep_log_outcome,
    retry_if_class,
    retry_if_code,
    retry_if_transient,
    retry_policy,
    stop_if_retry_after_exceeds,
    wait_retry_after,
)

pytestmark = pytest.mark.external

EXAMPLE = Path(__file__).parent.parent / "examples" / "tenacity_retry.py"


# --- helpers -----------------------------------------------------------------------------


def failure(status: int, retry_after: str | None = None, body: str = "") -> Outcome[Any]:
    headers = {"Retry-After": retry_after} if retry_after is not None else None
    return agenterr.from_status(status, body, headers=headers)


def typed(status: int, retry_after: str | None = None) -> agenterr.AgentToolError:
    return error_for(failure(status, retry_after))


def http_error(status: int, headers: dict[str, str] | None = None) -> httpx.HTTPStatusError:
    """A real httpx HTTPStatusError, as ``raise_for_status()`` raises it."""
    request = httpx.Request("GET", "https://api.test/items")
    try:
        httpx.Response(status, headers=headers, request=request).raise_for_status()
    except httpx.HTTPStatusError as exc:
        return exc
    raise AssertionError(f"{status} did not raise")


def response(status: int) -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("GET", "https://api.test/items"))


class Script:
    """A callable that raises or returns the next scripted step on each call."""

    def __init__(self, *steps: object) -> None:
        self.steps = list(steps)
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step


def retrying(sleeps: list[float], **kwargs: Any) -> Retrying:
    kwargs.setdefault("stop", stop_after_attempt(10))
    kwargs.setdefault("wait", wait_fixed(0))
    return Retrying(sleep=sleeps.append, **kwargs)


def run(retry_strategy: Any, *steps: object) -> tuple[Any, int]:
    """Run the script under the strategy: (what it returned or raised, attempts made)."""
    script = Script(*steps)
    try:
        result: Any = retrying([], retry=retry_strategy, reraise=True)(script)
    except BaseException as exc:
        result = exc
    return result, script.calls


# --- import ------------------------------------------------------------------------------


def test_missing_tenacity_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without tenacity, importing the integration says which extra to install."""
    monkeypatch.setitem(sys.modules, "tenacity", None)
    monkeypatch.delitem(sys.modules, "agenterr.integrations.tenacity")
    with pytest.raises(ImportError, match=r"agenterr\[tenacity\]"):
        importlib.import_module("agenterr.integrations.tenacity")


# --- retry predicates --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (typed(429), True),
        (typed(503), True),
        (error_for(Outcome.failure(Code.TIMEOUT)), True),
        (typed(404), False),
        (typed(422), False),
        (typed(401), False),
        (error_for(Outcome.failure(Code.UNKNOWN)), False),
    ],
    ids=str,
)
def test_retry_if_transient_on_typed_errors(error: Exception, retried: bool) -> None:
    """Transient typed errors are retried; every other class is raised at once."""
    result, calls = run(retry_if_transient(), error, "ok")
    if retried:
        assert (result, calls) == ("ok", 2)
    else:
        assert (result, calls) == (error, 1)


def test_retry_if_transient_on_returned_outcomes() -> None:
    """A returned transient Outcome is retried; a returned self-correctable one is returned."""
    not_found = failure(404)
    done: Outcome[str] = Outcome.success("done")
    assert run(retry_if_transient(), failure(429), failure(503), done) == (done, 3)
    assert run(retry_if_transient(), not_found, done) == (not_found, 1)
    assert run(retry_if_transient(), done) == (done, 1)


def test_outcome_mode_tool_end_to_end() -> None:
    """An Outcome-mode @classified_tool over httpx: 503 then 200, retried once, no raise."""
    answers = [httpx.Response(503, text="busy"), httpx.Response(200, json={"rate": 0.92})]
    client = httpx.Client(transport=httpx.MockTransport(lambda request: answers.pop(0)))
    sleeps: list[float] = []

    @retry(retry=retry_if_transient(), wait=wait_fixed(0.25), sleep=sleeps.append)
    @classified_tool
    def get_rate() -> Any:
        reply = client.get("https://rates.test/EUR")
        reply.raise_for_status()
        return reply.json()

    with client:
        outcome = get_rate()
    assert outcome.ok
    assert outcome.value == {"rate": 0.92}
    assert sleeps == [0.25]


def test_plain_http_and_network_exceptions_are_classified() -> None:
    """httpx errors work without the decorator: 429/5xx/timeouts retried, 404 raised."""
    timeout = httpx.ConnectTimeout("timed out")
    refused = ConnectionRefusedError("refused")
    assert run(retry_if_transient(), http_error(429), http_error(502), timeout, refused, 1) == (
        1,
        5,
    )
    missing = http_error(404)
    assert run(retry_if_transient(), missing, 1) == (missing, 1)
    assert run(retry_if_class(Class.SELF_CORRECTABLE), missing, 1) == (1, 2)
    assert run(retry_if_code(Code.TIMEOUT), timeout, 1) == (1, 2)
    assert run(retry_if_code(Code.TIMEOUT), refused, 1) == (refused, 1)


def test_returned_responses_are_classified() -> None:
    """A returned non-2xx response is a failure; a 2xx one and other values are results."""
    ok = response(200)
    assert run(retry_if_transient(), response(503), response(429), ok) == (ok, 3)
    not_found = response(404)
    assert run(retry_if_transient(), not_found, ok) == (not_found, 1)
    assert run(retry_if_code(Code.NOT_FOUND), not_found, ok) == (ok, 2)
    plain = {"status_code": 503}  # a dict is a value, not a response
    assert run(retry_if_transient(), plain, ok) == (plain, 1)


def test_bugs_are_never_retried() -> None:
    """An exception that is not a failed call matches nothing, not even UNKNOWN."""
    for strategy in (retry_if_transient(), retry_if_class(*Class), retry_if_code(*Code)):
        bug = ZeroDivisionError("division by zero")
        assert run(strategy, bug, 1) == (bug, 1)
        lookup = KeyError("id")  # raised while handling a timeout, not from it
        try:
            try:
                raise httpx.ReadTimeout("slow")
            except httpx.ReadTimeout:
                raise lookup  # noqa: B904 -- the implicit context is the point
        except KeyError:
            pass
        assert run(strategy, lookup, 1) == (lookup, 1)


@pytest.mark.parametrize("signal", [KeyboardInterrupt, SystemExit, asyncio.CancelledError])
def test_control_signals_propagate(signal: type[BaseException]) -> None:
    """KeyboardInterrupt, SystemExit and CancelledError are raised on the first attempt."""
    for strategy in (retry_if_transient(), retry_if_class(*Class), retry_if_code(*Code)):
        result, calls = run(strategy, signal(), 1)
        assert isinstance(result, signal)
        assert calls == 1


def test_retry_if_class_and_code_select_exactly() -> None:
    """Classes and codes match their own failures only; strings are accepted."""
    assert run(retry_if_class(Class.AUTH), typed(401), 1) == (1, 2)
    assert run(retry_if_class("auth"), typed(403), 1) == (1, 2)
    transient = typed(429)
    assert run(retry_if_class(Class.AUTH), transient, 1) == (transient, 1)
    assert run(retry_if_class(Class.AUTH, Class.TRANSIENT), transient, typed(401), 1) == (1, 3)
    assert run(retry_if_code(Code.NOT_FOUND), typed(404), 1) == (1, 2)
    invalid = typed(422)  # the same class as NOT_FOUND, another code
    assert run(retry_if_code(Code.NOT_FOUND), invalid, 1) == (invalid, 1)
    assert run(retry_if_code("NOT_FOUND", "INVALID_REQUEST"), invalid, failure(404), 1) == (1, 3)
    unknown = error_for(Outcome.failure(Code.UNKNOWN))
    assert run(retry_if_class(Class.INDETERMINATE), unknown, 1) == (1, 2)
    assert run(retry_if_code(Code.UNKNOWN), unknown, 1) == (1, 2)


def test_predicates_compose_with_tenacity_operators() -> None:
    """``|`` and ``&`` build tenacity's retry_any / retry_all and behave as such."""
    either = retry_if_code(Code.NOT_FOUND) | retry_if_transient()
    assert isinstance(either, retry_any)
    assert run(either, typed(404), typed(503), 1) == (1, 3)
    auth = typed(401)
    assert run(either, auth, 1) == (auth, 1)

    raised_only = retry_if_transient() & retry_if_exception_type(TransientToolError)
    assert isinstance(raised_only, retry_all)
    assert run(raised_only, typed(429), 1) == (1, 2)
    returned = failure(429)
    assert run(raised_only, returned, 1) == (returned, 1)

    with_result = retry_if_transient() | retry_if_result(lambda value: value == "again")
    assert run(with_result, "again", failure(503), "done") == ("done", 3)


def test_predicate_arguments_are_checked() -> None:
    """Unknown classes or codes, or none at all, are errors when the strategy is built."""
    with pytest.raises(ValueError, match="at least one Class"):
        retry_if_class()
    with pytest.raises(ValueError, match="at least one Code"):
        retry_if_code()
    with pytest.raises(ValueError, match="'temporary' is not one of transient, self_correctable"):
        retry_if_class("temporary")
    with pytest.raises(ValueError, match="'RATE_LIMIT' is not one of"):
        retry_if_code(Code.TIMEOUT, "RATE_LIMIT")


def test_reprs_name_the_strategies() -> None:
    """tenacity's repr of a Retrying shows which agenterr strategies it uses."""
    assert repr(retry_if_transient()) == "retry_if_transient()"
    assert repr(retry_if_class(Class.AUTH, "transient")) == "retry_if_class(auth, transient)"
    assert repr(retry_if_code("TIMEOUT")) == "retry_if_code(TIMEOUT)"
    assert repr(stop_if_retry_after_exceeds(30)) == "stop_if_retry_after_exceeds(30)"
    assert repr(wait_retry_after(wait_fixed(2), max_wait=timedelta(minutes=1))).startswith(
        "wait_retry_after(fallback=<tenacity.wait.wait_fixed"
    )
    assert repr(wait_retry_after(max_wait=9.5)).endswith(", max_wait=9.5)")


# --- wait --------------------------------------------------------------------------------


def waits(wait: Any, *steps: object, retry_strategy: Any = None) -> list[float]:
    """The sleeps tenacity made running the script under ``wait``."""
    sleeps: list[float] = []
    strategy = retry_if_transient() if retry_strategy is None else retry_strategy
    retrying(sleeps, retry=strategy, wait=wait)(Script(*steps))
    return sleeps


def test_wait_retry_after_honours_the_server() -> None:
    """Retry-After from a typed error, a returned Outcome, a raw httpx error or response."""
    assert waits(
        wait_retry_after(wait_fixed(0.5)),
        typed(429, "2"),
        failure(503, "1.5"),
        http_error(429, {"Retry-After": "4"}),
        http_error(503, {"retry-after-ms": "250"}),
        httpx.Response(503, headers={"Retry-After": "7"}),
        typed(503, "0"),
        "ok",
    ) == [2.0, 1.5, 4.0, 0.25, 7.0, 0.0]


def test_wait_retry_after_falls_back_without_advice() -> None:
    """No Retry-After (a timeout, a bare 503, a retried 404): the fallback wait decides."""
    assert waits(
        wait_retry_after(wait_fixed(0.5)),
        typed(503),
        httpx.ReadTimeout("slow"),
        failure(429),
        "ok",
    ) == [0.5, 0.5, 0.5]
    not_found = waits(
        wait_retry_after(wait_fixed(3)), typed(404), "ok", retry_strategy=retry_if_class(*Class)
    )
    assert not_found == [3.0]
    unclassified = waits(
        wait_retry_after(wait_fixed(1)),
        ValueError("bug"),
        "ok",
        retry_strategy=retry_if_exception_type(ValueError),
    )
    assert unclassified == [1.0]


def test_wait_retry_after_default_fallback_is_exponential_jitter() -> None:
    """The default fallback is tenacity's wait_exponential_jitter(): 1s, 2s, 4s plus <1s."""
    sleeps = waits(wait_retry_after(), typed(503), typed(503), typed(503), "ok")
    for sleep, base in zip(sleeps, [1, 2, 4], strict=True):
        assert base <= sleep <= base + 1


def test_wait_retry_after_caps_at_max_wait() -> None:
    """No wait exceeds max_wait, whether it comes from the server or from the fallback."""
    assert waits(
        wait_retry_after(wait_fixed(50), max_wait=30),
        typed(429, "3600"),
        typed(503),
        typed(429, "30"),
        "ok",
    ) == [30.0, 30.0, 30.0]
    assert waits(wait_retry_after(max_wait=timedelta(milliseconds=500)), typed(429, "2"), "ok") == [
        0.5
    ]
    assert waits(wait_retry_after(max_wait=0), typed(429, "2"), typed(503), "ok") == [0.0, 0.0]


def test_wait_retry_after_composes() -> None:
    """It is a tenacity wait: ``+`` adds another wait to it."""
    assert waits(wait_retry_after() + wait_fixed(1), typed(429, "2"), "ok") == [3.0]


@pytest.mark.parametrize("bad", [-1, -0.001, math.nan, timedelta(seconds=-1)])
def test_negative_limits_are_rejected(bad: float | timedelta) -> None:
    """A limit must be a non-negative number of seconds."""
    with pytest.raises(ValueError, match="max_wait must be a non-negative number of seconds"):
        wait_retry_after(max_wait=bad)
    with pytest.raises(ValueError, match="max_wait must be a non-negative number of seconds"):
        stop_if_retry_after_exceeds(bad)


# --- stop --------------------------------------------------------------------------------


def test_stop_if_retry_after_exceeds_refuses_long_waits() -> None:
    """A Retry-After over the limit ends the retries before any sleep; the error is intact."""
    sleeps: list[float] = []
    script = Script(typed(429, "1"), typed(429, "3600"), "ok")
    with pytest.raises(TransientToolError) as raised:
        retrying(
            sleeps,
            retry=retry_if_transient(),
            wait=wait_retry_after(max_wait=30),
            stop=stop_after_attempt(5) | stop_if_retry_after_exceeds(30),
            reraise=True,
        )(script)
    assert raised.value.retry_after == 3600
    assert script.calls == 2
    assert sleeps == [1.0]


def test_stop_if_retry_after_exceeds_boundary_and_other_stops() -> None:
    """A Retry-After equal to the limit is waited; other stop conditions still apply."""
    sleeps: list[float] = []
    script = Script(typed(429, "30"), failure(503), typed(429, "5"), "ok")
    with pytest.raises(RetryError) as raised:
        retrying(
            sleeps,
            retry=retry_if_transient(),
            wait=wait_retry_after(wait_fixed(0.1)),
            stop=stop_after_attempt(3) | stop_if_retry_after_exceeds(timedelta(seconds=30)),
        )(script)
    assert sleeps == [30.0, 0.1]
    assert isinstance(raised.value.last_attempt.exception(), TransientToolError)
    assert script.calls == 3


def test_stop_on_a_returned_outcome() -> None:
    """For a returned Outcome, retry_error_callback hands back the refused Outcome."""
    refused = failure(429, "600")
    sleeps: list[float] = []
    result = retrying(
        sleeps,
        retry=retry_if_transient(),
        stop=stop_if_retry_after_exceeds(60),
        retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
    )(Script(refused, Outcome.success(1)))
    assert result is refused
    assert sleeps == []


# --- before_sleep ------------------------------------------------------------------------


def test_before_sleep_logs_code_class_status_and_wait(caplog: pytest.LogCaptureFixture) -> None:
    """One record per retry, naming the function, the attempt, the outcome and the wait."""
    caplog.set_level(logging.INFO, logger="retries")
    error = typed(429, "2")
    returned = failure(503)

    @retry(
        retry=retry_if_transient(),
        wait=wait_retry_after(wait_fixed(0.5)),
        before_sleep=before_sleep_log_outcome(logging.getLogger("retries")),
        sleep=lambda seconds: None,
    )
    def fetch(script: Script) -> Any:
        return script()

    assert fetch(Script(error, returned, "ok")) == "ok"
    records = [r for r in caplog.records if r.name == "retries"]
    assert [r.getMessage() for r in records] == [
        "test_before_sleep_logs_code_class_status_and_wait.<locals>.fetch failed (attempt 1): "
        "RATE_LIMITED class=transient status=429 retry_after=2s; retrying in 2.00s",
        "test_before_sleep_logs_code_class_status_and_wait.<locals>.fetch failed (attempt 2): "
        "UNAVAILABLE class=transient status=503; retrying in 0.50s",
    ]
    assert [r.levelno for r in records] == [logging.INFO, logging.INFO]
    first, second = records
    assert first.__dict__["agenterr_outcome"] is error.outcome
    assert second.__dict__["agenterr_outcome"] is returned
    assert (first.__dict__["agenterr_attempt"], first.__dict__["agenterr_wait"]) == (1, 2.0)
    assert (second.__dict__["agenterr_attempt"], second.__dict__["agenterr_wait"]) == (2, 0.5)
    assert first.exc_info is None


def test_before_sleep_log_options_and_unclassified(caplog: pytest.LogCaptureFixture) -> None:
    """The level and exc_info are honoured; unclassified failures are named by type only."""
    caplog.set_level(logging.DEBUG, logger="retries")
    log = logging.getLogger("retries")
    secret = ValueError("password=hunter2")
    script = Script(secret, 0, 1)
    for attempt in retrying(
        [],
        retry=retry_if_exception_type(ValueError) | retry_if_result(lambda value: value == 0),
        before_sleep=before_sleep_log_outcome(log, logging.WARNING, exc_info=True),
    ):
        with attempt:
            result = script()
        if attempt.retry_state.outcome is not None and not attempt.retry_state.outcome.failed:
            attempt.retry_state.set_result(result)
    assert result == 1
    records = [r for r in caplog.records if r.name == "retries"]
    assert [r.getMessage() for r in records] == [
        "call failed (attempt 1): unclassified ValueError; retrying in 0.00s",
        "call failed (attempt 2): returned int; retrying in 0.00s",
    ]
    assert [r.levelno for r in records] == [logging.WARNING, logging.WARNING]
    assert records[0].exc_info is not None
    assert records[0].exc_info[1] is secret
    assert records[0].__dict__["agenterr_outcome"] is None
    assert records[1].exc_info is None


def test_before_sleep_never_logs_the_api_text(caplog: pytest.LogCaptureFixture) -> None:
    """The hint quotes the API's body; the log line carries codes and numbers only."""
    caplog.set_level(logging.INFO, logger="retries")
    error = error_for(failure(503, body='{"error":"internal", "trace":"db at 10.0.0.7"}'))
    assert "10.0.0.7" in error.llm_hint
    retrying(
        [],
        retry=retry_if_transient(),
        before_sleep=before_sleep_log_outcome(logging.getLogger("retries")),
    )(Script(error, "ok"))
    (record,) = (r for r in caplog.records if r.name == "retries")
    assert "10.0.0.7" not in record.getMessage()
    assert "UNAVAILABLE class=transient status=503" in record.getMessage()


def test_a_failing_logger_does_not_stop_the_retries() -> None:
    """A logger that raises is ignored: the retry goes ahead."""

    class Broken:
        def log(self, level: int, msg: str, /, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError("handler down")

    script = Script(typed(503), "ok")
    result = retrying(
        [], retry=retry_if_transient(), before_sleep=before_sleep_log_outcome(Broken())
    )(script)
    assert (result, script.calls) == ("ok", 2)


# --- calling conventions -----------------------------------------------------------------


def test_retry_decorator_over_raising_tool() -> None:
    """@retry over @classified_tool(raises=True) with httpx: the advertised stack."""
    answers = [
        httpx.Response(429, headers={"retry-after-ms": "200"}),
        httpx.Response(503),
        httpx.Response(200, json={"rate": 0.92}),
        httpx.Response(404, json={"error": "no such currency"}),
    ]
    client = httpx.Client(transport=httpx.MockTransport(lambda request: answers.pop(0)))
    sleeps: list[float] = []

    @retry(
        retry=retry_if_transient(),
        wait=wait_retry_after(wait_fixed(0.3)),
        stop=stop_after_attempt(4),
        sleep=sleeps.append,
        reraise=True,
    )
    @classified_tool(raises=True)
    def get_rate(currency: str) -> Any:
        reply = client.get(f"https://rates.test/{currency}")
        reply.raise_for_status()
        return reply.json()

    with client:
        assert get_rate("EUR") == {"rate": 0.92}
        assert sleeps == [0.2, 0.3]
        with pytest.raises(SelfCorrectableToolError) as raised:
            get_rate("XYZ")
    assert raised.value.code is Code.NOT_FOUND
    assert sleeps == [0.2, 0.3]


def test_retrying_iterator_form() -> None:
    """``for attempt in Retrying(...)`` works with the same strategies."""
    sleeps: list[float] = []
    script = Script(typed(429, "1"), typed(503), "ok")
    for attempt in retrying(
        sleeps, retry=retry_if_transient(), wait=wait_retry_after(wait_fixed(0.5))
    ):
        with attempt:
            result = script()
    assert result == "ok"
    assert sleeps == [1.0, 0.5]


class AsyncSleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def async_script(*steps: object) -> tuple[Script, Callable[[], Any]]:
    script = Script(*steps)

    async def call() -> Any:
        await asyncio.sleep(0)
        return script()

    return script, call


@pytest.mark.asyncio
async def test_async_retrying_call() -> None:
    """AsyncRetrying: waits, stop and log as in the sync form."""
    sleeps = AsyncSleeps()
    script, call = async_script(typed(429, "2"), failure(503), typed(429, "90"), "ok")
    with pytest.raises(TransientToolError) as raised:
        await AsyncRetrying(
            retry=retry_if_transient(),
            wait=wait_retry_after(wait_fixed(0.5)),
            stop=stop_after_attempt(5) | stop_if_retry_after_exceeds(60),
            before_sleep=before_sleep_log_outcome(logging.getLogger("retries")),
            sleep=sleeps,
            reraise=True,
        )(call)
    assert sleeps == [2.0, 0.5]
    assert raised.value.retry_after == 90
    assert script.calls == 3


@pytest.mark.asyncio
async def test_async_retrying_iterator_form() -> None:
    """``async for attempt in AsyncRetrying(...)`` works with the same strategies."""
    sleeps = AsyncSleeps()
    _, call = async_script(http_error(429, {"Retry-After": "3"}), httpx.ConnectError("x"), "ok")
    async for attempt in AsyncRetrying(
        retry=retry_if_transient(), wait=wait_retry_after(wait_fixed(0.25)), sleep=sleeps
    ):
        with attempt:
            result = await call()
    assert result == "ok"
    assert sleeps == [3.0, 0.25]


@pytest.mark.asyncio
async def test_async_retry_decorator_over_outcome_tool() -> None:
    """@retry over an async Outcome-mode tool; a cancellation is never retried."""
    sleeps = AsyncSleeps()
    steps: list[object] = [
        httpx.ReadTimeout("slow"),
        http_error(503, {"Retry-After": "1"}),
        {"rate": 0.92},
        asyncio.CancelledError(),
    ]

    @retry(retry=retry_if_transient(), wait=wait_retry_after(wait_fixed(0.5)), sleep=sleeps)
    @classified_tool
    async def get_rate() -> Any:
        await asyncio.sleep(0)
        step = steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step

    outcome = await get_rate()
    assert outcome.value == {"rate": 0.92}
    assert sleeps == [0.5, 1.0]
    with pytest.raises(asyncio.CancelledError):
        await get_rate()
    assert sleeps == [0.5, 1.0]


# --- the example -------------------------------------------------------------------------


def _example_lines() -> list[str]:
    result = subprocess.run(
        [sys.executable, "-W", "error", str(EXAMPLE)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def _between(lines: Iterable[str], start: str, end: str) -> list[str]:
    out: list[str] = []
    inside = False
    for line in lines:
        if line == end:
            break
        inside = inside or line == start
        if inside:
            out.append(line)
    return out


def test_example_retries_waits_refuses_and_logs() -> None:
    """EUR: Retry-After, then backoff, then the value; GBP: an hour refused; XYZ: no retry."""
    lines = _example_lines()
    eur = _between(lines, "get_rate('EUR')", "get_rate('GBP')")
    backoff = eur[4]  # the jitter makes this one line vary
    assert eur == [
        "get_rate('EUR')",
        "  attempt 1: HTTP 429",
        "  get_rate failed (attempt 1): RATE_LIMITED class=transient status=429"
        " retry_after=0.2s; retrying in 0.20s",  # retry-after-ms: 200
        "  attempt 2: HTTP 503",
        backoff,
        "  attempt 3: HTTP 200",
        "  result: {'base': 'USD', 'quote': 'EUR', 'rate': 0.92}",
        "  HTTP requests for EUR: 3",
    ]
    # No Retry-After on the 503: wait_exponential(multiplier=0.1) after attempt 2 is 0.2s,
    # plus up to 0.1s of jitter.
    prefix = "  get_rate failed (attempt 2): UNAVAILABLE class=transient status=503; retrying in "
    assert backoff.startswith(prefix)
    assert 0.2 <= float(backoff.removeprefix(prefix).removesuffix("s")) <= 0.3
    assert _between(lines, "get_rate('GBP')", "get_rate('XYZ')") == [
        "get_rate('GBP')",
        "  attempt 1: HTTP 429",
        "  gave up: RATE_LIMITED class=transient status=429 retry_after=3600s",
        "  HTTP requests for GBP: 1",
    ]
    xyz = _between(lines, "get_rate('XYZ')", "")
    assert xyz[:3] == [
        "get_rate('XYZ')",
        "  attempt 1: HTTP 404",
        "  not retried: NOT_FOUND class=self_correctable status=404",
    ]
    assert xyz[3].startswith("  hint: The API could not find what this call refers to (HTTP 404).")
    assert xyz[4:] == ["  HTTP requests for XYZ: 1"]


# --- retry_policy: the whole policy in one call ------------------------------------------


@pytest.mark.parametrize("advised", [0, 1, 7, 29.5, 30, 31, 3600])
def test_retry_policy_never_retries_before_the_server_asked(advised: float) -> None:
    """A Retry-After within the limit is waited exactly; over it, the failure is raised at
    once, its retry_after intact: never a retry earlier than the server asked."""
    sleeps: list[float] = []
    script = Script(typed(429, f"{advised:g}"), "ok")
    call = retry(**retry_policy(max_wait=30), sleep=sleeps.append)(script)
    if advised <= 30:
        assert call() == "ok"
        assert sleeps == [advised]
    else:
        with pytest.raises(TransientToolError) as raised:
            call()
        assert raised.value.retry_after == advised
        assert sleeps == []
    assert script.calls == (2 if advised <= 30 else 1)


def test_retry_policy_retries_transient_failures_only() -> None:
    """A 404, a 401 or a bug is raised on the first attempt, as it is (no RetryError)."""
    for error in (typed(404), typed(401), ValueError("bug")):
        sleeps: list[float] = []
        script = Script(error, "ok")
        with pytest.raises(type(error)):
            retry(**retry_policy(), sleep=sleeps.append)(script)()
        assert (script.calls, sleeps) == (1, [])


def test_retry_policy_backs_off_within_the_limit_and_stops_after_attempts() -> None:
    """Without a Retry-After the fallback is waited, cut to max_wait; the attempts-th
    failure is raised as it is."""
    sleeps: list[float] = []
    script = Script(typed(503), failure(503), http_error(502), typed(504))
    policy = retry_policy(max_wait=timedelta(seconds=2), attempts=4, fallback=wait_fixed(5))
    with pytest.raises(TransientToolError):
        Retrying(**policy, sleep=sleeps.append)(script)
    assert sleeps == [2.0, 2.0, 2.0]
    assert script.calls == 4


def test_retry_policy_default_fallback_and_limit() -> None:
    sleeps: list[float] = []
    script = Script(typed(503), typed(429, "60"), typed(429, "61"))
    with pytest.raises(TransientToolError) as raised:
        retry(**retry_policy(), sleep=sleeps.append)(script)()
    assert raised.value.retry_after == 61
    assert len(sleeps) == 2 and 0 <= sleeps[0] <= 60 and sleeps[1] == 60


@pytest.mark.asyncio
async def test_retry_policy_async() -> None:
    sleeps = AsyncSleeps()
    script, call = async_script(http_error(429, {"Retry-After": "3"}), "ok")
    assert await AsyncRetrying(**retry_policy(max_wait=5), sleep=sleeps)(call) == "ok"
    assert sleeps == [3.0] and script.calls == 2


def test_retry_policy_returns_an_outcome_mode_tools_last_failure() -> None:
    """A returned failed Outcome is retried like a raised one, and when the attempts run out
    (or the server asks for more than the limit) that Outcome is returned, not RetryError."""
    sleeps: list[float] = []
    script = Script(failure(503), failure(502), failure(504))
    last = Retrying(**retry_policy(attempts=3, fallback=wait_fixed(1)), sleep=sleeps.append)(script)
    assert isinstance(last, Outcome) and last.status == 504 and last.code is Code.UNAVAILABLE
    assert script.calls == 3 and sleeps == [1.0, 1.0]

    script = Script(failure(429, "3600"), "not reached")
    last = Retrying(**retry_policy(max_wait=30), sleep=sleeps.append)(script)
    assert last.retry_after == 3600 and script.calls == 1


@pytest.mark.asyncio
async def test_retry_policy_async_returns_the_last_outcome() -> None:
    sleeps = AsyncSleeps()
    script, call = async_script(failure(429, "1"), failure(429, "2"))
    last = await AsyncRetrying(**retry_policy(attempts=2), sleep=sleeps)(call)
    assert isinstance(last, Outcome) and last.retry_after == 2
    assert sleeps == [1.0] and script.calls == 2


def test_retry_policy_fills_in_retry_wait_stop_and_reraise() -> None:
    policy = retry_policy(max_wait=30, attempts=3)
    assert set(policy) == {"retry", "wait", "stop", "reraise", "retry_error_callback"}
    assert policy["reraise"] is True
    assert repr(policy["retry"]) == "retry_if_transient()"


@pytest.mark.parametrize(
    "kwargs",
    [{"attempts": 0}, {"attempts": 2.5}, {"attempts": True}, {"max_wait": -1}],
)
def test_retry_policy_arguments_are_checked(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"attempts|max_wait"):
        retry_policy(**kwargs)
