"""agenterr.integrations.stamina against the real stamina: what is retried, and the backoff.

stamina sleeps for real outside its test mode, so the Retry-After values here are a few
milliseconds; the waits stamina chose are read from its own instrumentation hooks.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import math
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import stamina
from stamina.instrumentation import RetryDetails, set_on_retry_hooks

import agenterr
from agenterr import (
    AgentToolError,
    Code,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
    error_for,
)
from agenterr.integrations.stamina import log_retries, retry_on_transient, retry_policy

pytestmark = pytest.mark.external

EXAMPLE = Path(__file__).parent.parent / "examples" / "stamina_retry.py"


def typed(status: int, headers: dict[str, str] | None = None) -> AgentToolError:
    return error_for(agenterr.from_status(status, "", headers=headers))


def http_error(status: int, headers: dict[str, str] | None = None) -> httpx.HTTPStatusError:
    """A real httpx HTTPStatusError, as ``raise_for_status()`` raises it."""
    request = httpx.Request("GET", "https://api.test/items")
    try:
        httpx.Response(status, headers=headers, request=request).raise_for_status()
    except httpx.HTTPStatusError as exc:
        return exc
    raise AssertionError(f"{status} did not raise")


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


@pytest.fixture
def waits() -> Iterator[list[float]]:
    """The backoff stamina chose before each retry, from its on_retry instrumentation."""
    recorded: list[float] = []

    def record(details: RetryDetails) -> None:
        recorded.append(details.wait_for)

    previous = stamina.is_testing()
    stamina.set_testing(False)
    set_on_retry_hooks([record])
    yield recorded
    set_on_retry_hooks(None)
    stamina.set_testing(previous)


# --- import ------------------------------------------------------------------------------


def test_missing_stamina_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without stamina, importing the integration says which extra to install."""
    monkeypatch.setitem(sys.modules, "stamina", None)
    monkeypatch.delitem(sys.modules, "agenterr.integrations.stamina")
    with pytest.raises(ImportError, match=r"agenterr\[stamina\]"):
        importlib.import_module("agenterr.integrations.stamina")


# --- the decision ------------------------------------------------------------------------


def test_transient_with_retry_after_is_the_backoff() -> None:
    """The Retry-After, in seconds, as a float (stamina's "use this backoff")."""
    for error, seconds in [
        (typed(429, {"Retry-After": "2"}), 2.0),
        (typed(503, {"retry-after-ms": "250"}), 0.25),
        (typed(429, {"Retry-After": "60"}), 60.0),
        (http_error(429, {"Retry-After": "4"}), 4.0),
        (typed(503, {"Retry-After": "0"}), 0.0),
    ]:
        decision = retry_on_transient(error)
        assert type(decision) is float  # a bool would mean "no custom backoff"
        assert decision == seconds


def test_transient_without_retry_after_uses_staminas_backoff() -> None:
    """True: retry, with stamina's own exponential backoff."""
    for error in [
        typed(503),
        typed(429),
        error_for(Outcome.failure(Code.TIMEOUT)),
        http_error(502),
        httpx.ConnectTimeout("timed out"),
        ConnectionResetError("reset"),
    ]:
        assert retry_on_transient(error) is True


def test_everything_else_is_not_retried() -> None:
    """Self-correctable, auth, unknown, bugs and a Retry-After over the limit: False."""
    lookup = KeyError("id")
    lookup.__context__ = httpx.ReadTimeout("slow")  # raised while handling it, not from it
    for error in [
        typed(404),
        typed(422),
        typed(401),
        error_for(Outcome.failure(Code.UNKNOWN)),
        http_error(404),
        ValueError("bug"),
        lookup,
        typed(429, {"Retry-After": "61"}),
        typed(429, {"Retry-After": "3600"}),
    ]:
        assert retry_on_transient(error) is False


def test_max_wait_is_configurable() -> None:
    """Called with ``max_wait`` only, it returns a hook with that limit (None: no limit)."""
    hour = typed(429, {"Retry-After": "3600"})
    assert retry_on_transient(max_wait=None)(hour) == 3600.0
    assert retry_on_transient(max_wait=timedelta(hours=1))(hour) == 3600.0
    assert retry_on_transient(max_wait=3599)(hour) is False
    short = retry_on_transient(max_wait=1.5)
    assert short(typed(429, {"Retry-After": "1"})) == 1.0
    assert short(typed(429, {"Retry-After": "2"})) is False
    assert short(typed(503)) is True
    assert short(typed(404)) is False
    assert retry_on_transient(max_wait=0)(typed(503, {"Retry-After": "0"})) == 0.0
    assert short.__name__ == "retry_on_transient(max_wait=1.5)"
    assert retry_on_transient().__name__ == "retry_on_transient(max_wait=60.0)"


@pytest.mark.parametrize("bad", [-1, math.nan, timedelta(seconds=-0.5)])
def test_negative_max_wait_is_rejected(bad: float | timedelta) -> None:
    """A limit must be a non-negative number of seconds, or None."""
    with pytest.raises(ValueError, match="max_wait must be non-negative seconds or None"):
        retry_on_transient(max_wait=bad)


@pytest.mark.parametrize("limit", [30, 2.5, timedelta(seconds=30), "30"])
def test_a_positional_limit_is_refused_at_once(limit: object) -> None:
    """retry_on_transient(30) reads like a limit but is the hook called with 30 as the
    exception: TypeError at once, not a hook that silently never retries."""
    with pytest.raises(TypeError, match=r"retry_on_transient\(max_wait=\.\.\.\)"):
        retry_on_transient(limit)  # type: ignore[call-overload]


# --- with stamina ------------------------------------------------------------------------


def test_stamina_waits_the_retry_after(waits: list[float]) -> None:
    """Retry-After is the backoff; without one, stamina's exponential backoff applies."""
    script = Script(
        typed(429, {"retry-after-ms": "20"}), typed(503), typed(503, {"retry-after-ms": "5"}), 1
    )

    @stamina.retry(on=retry_on_transient, attempts=5, wait_initial=0.001, wait_jitter=0)
    def call() -> Any:
        return script()

    assert call() == 1
    assert script.calls == 4
    assert waits == pytest.approx([0.02, 0.002, 0.005], abs=1e-9)


def test_stamina_raises_what_is_not_worth_retrying(waits: list[float]) -> None:
    """A 404 or an hour-long Retry-After is raised on the first attempt, outcome intact."""
    hour = typed(429, {"Retry-After": "3600"})
    for error in (typed(404), hour, ValueError("bug")):
        script = Script(error, 1)

        @stamina.retry(on=retry_on_transient, attempts=5, wait_initial=0.001)
        def call(script: Script = script) -> Any:
            return script()

        with pytest.raises(type(error)) as raised:
            call()
        assert raised.value is error
        assert script.calls == 1
    assert hour.retry_after == 3600
    assert waits == []


def test_stamina_never_retries_control_signals(waits: list[float]) -> None:
    """KeyboardInterrupt propagates at once."""
    script = Script(KeyboardInterrupt(), 1)

    @stamina.retry(on=retry_on_transient, attempts=5)
    def call() -> Any:
        return script()

    with pytest.raises(KeyboardInterrupt):
        call()
    assert script.calls == 1
    assert waits == []


def test_stamina_over_plain_httpx(waits: list[float]) -> None:
    """No decorator needed: httpx's own errors carry the status and the headers."""
    answers = [
        httpx.Response(429, headers={"retry-after-ms": "10"}),
        httpx.Response(404, json={"error": "no such item"}),
    ]
    client = httpx.Client(transport=httpx.MockTransport(lambda request: answers.pop(0)))

    @stamina.retry(on=retry_on_transient, attempts=3)
    def fetch() -> Any:
        reply = client.get("https://api.test/items/7")
        reply.raise_for_status()
        return reply.json()

    with client, pytest.raises(httpx.HTTPStatusError) as raised:
        fetch()
    assert raised.value.response.status_code == 404
    assert waits == pytest.approx([0.01], abs=1e-9)


def test_stamina_over_a_raising_tool(waits: list[float]) -> None:
    """@stamina.retry over @classified_tool(raises=True): typed errors, Retry-After waited."""
    answers = [
        httpx.Response(503, headers={"retry-after-ms": "15"}),
        httpx.Response(200, json={"rate": 0.92}),
        httpx.Response(422, json={"error": "currency must be 3 letters"}),
    ]
    client = httpx.Client(transport=httpx.MockTransport(lambda request: answers.pop(0)))

    @stamina.retry(on=retry_on_transient, attempts=3)
    @classified_tool(raises=True)
    def get_rate(currency: str) -> Any:
        reply = client.get(f"https://rates.test/{currency}")
        reply.raise_for_status()
        return reply.json()

    with client:
        assert get_rate("EUR") == {"rate": 0.92}
        with pytest.raises(SelfCorrectableToolError):
            get_rate("EURO")
    assert waits == pytest.approx([0.015], abs=1e-9)


def test_stamina_retry_context(waits: list[float]) -> None:
    """``stamina.retry_context(on=...)`` with a configured hook."""
    script = Script(typed(429, {"retry-after-ms": "10"}), typed(429, {"Retry-After": "5"}), 1)
    with pytest.raises(TransientToolError) as raised:
        for attempt in stamina.retry_context(on=retry_on_transient(max_wait=1), attempts=5):
            with attempt:
                script()
    assert raised.value.retry_after == 5
    assert script.calls == 2
    assert waits == pytest.approx([0.01], abs=1e-9)


@pytest.mark.asyncio
async def test_stamina_async(waits: list[float]) -> None:
    """Async functions: the same decisions and waits; a cancellation is never retried."""
    steps: list[object] = [
        http_error(429, {"retry-after-ms": "10"}),
        httpx.ReadTimeout("slow"),
        "ok",
        asyncio.CancelledError(),
    ]

    @stamina.retry(on=retry_on_transient, attempts=3, wait_initial=0.001, wait_jitter=0)
    async def call() -> Any:
        await asyncio.sleep(0)
        step = steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step

    assert await call() == "ok"
    assert waits == pytest.approx([0.01, 0.002], abs=1e-9)
    with pytest.raises(asyncio.CancelledError):
        await call()
    assert waits == pytest.approx([0.01, 0.002], abs=1e-9)


def test_stamina_test_mode(waits: list[float]) -> None:
    """In stamina's test mode the hook still decides; stamina sets every backoff to 0."""
    script = Script(typed(429, {"Retry-After": "30"}), typed(503), typed(404))
    with stamina.set_testing(True, attempts=5), pytest.raises(SelfCorrectableToolError):
        stamina.RetryingCaller().on(retry_on_transient)(script)
    assert script.calls == 3
    assert waits == [0.0, 0.0]


# --- the example -------------------------------------------------------------------------


def test_example_waits_the_retry_after_and_refuses_the_rest() -> None:
    """EUR: Retry-After then stamina's backoff; GBP: an hour refused; XYZ: not retried."""
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
    lines = result.stdout.splitlines()
    backoff = lines[4]  # the jitter makes this one line vary
    assert lines[:4] == [
        "get_rate('EUR')",
        "  attempt 1: HTTP 429",
        "  RATE_LIMITED class=transient status=429 retry_after=0.2s: stamina waits 0.20s",
        "  attempt 2: HTTP 503",
    ]
    # stamina's backoff before attempt 3: wait_initial 0.1 * 2 plus up to 0.1 of jitter.
    prefix = "  UNAVAILABLE class=transient status=503: stamina waits "
    assert backoff.startswith(prefix)
    assert 0.2 <= float(backoff.removeprefix(prefix).removesuffix("s")) <= 0.3
    assert lines[5:13] == [
        "  attempt 3: HTTP 200",
        "  result: {'base': 'USD', 'quote': 'EUR', 'rate': 0.92}",
        "  HTTP requests for EUR: 3",
        "get_rate('GBP')",
        "  attempt 1: HTTP 429",
        "  gave up: RATE_LIMITED class=transient status=429 retry_after=3600s",
        "  HTTP requests for GBP: 1",
        "get_rate('XYZ')",
    ]
    assert lines[13:15] == [
        "  attempt 1: HTTP 404",
        "  not retried: NOT_FOUND class=self_correctable status=404",
    ]
    assert lines[15].startswith("  hint: The API could not find what this call refers to")
    assert lines[16:] == ["  HTTP requests for XYZ: 1"]


# --- retry_policy: the whole policy in one call ------------------------------------------


@pytest.mark.parametrize("advised_ms", [0, 20, 50, 51, 3_600_000])
def test_retry_policy_never_retries_before_the_server_asked(
    waits: list[float], advised_ms: int
) -> None:
    """A Retry-After within the limit is stamina's wait, exactly; over it, the failure is
    raised on the first attempt with its retry_after: never a retry earlier than asked."""
    script = Script(typed(429, {"retry-after-ms": str(advised_ms)}), 1)

    @stamina.retry(**retry_policy(max_wait=timedelta(milliseconds=50)))
    def call() -> Any:
        return script()

    if advised_ms <= 50:
        assert call() == 1
        assert waits == pytest.approx([advised_ms / 1000], abs=1e-9)
    else:
        with pytest.raises(TransientToolError) as raised:
            call()
        assert raised.value.retry_after == pytest.approx(advised_ms / 1000)
        assert waits == []


def test_retry_policy_retries_transient_failures_only(waits: list[float]) -> None:
    for error in (typed(404), typed(401), ValueError("bug")):
        script = Script(error, 1)
        with pytest.raises(type(error)):
            stamina.retry(**retry_policy())(script)()
        assert script.calls == 1
    assert waits == []


def test_retry_policy_attempts_and_retry_context(waits: list[float]) -> None:
    """``attempts`` bounds the tries; the same policy drives ``retry_context``."""
    script = Script(*[typed(503, {"retry-after-ms": "1"})] * 3, 1)
    with pytest.raises(TransientToolError):
        for attempt in stamina.retry_context(**retry_policy(max_wait=1, attempts=3)):
            with attempt:
                script()
    assert script.calls == 3
    assert waits == pytest.approx([0.001, 0.001], abs=1e-9)


def test_retry_policy_fills_in_on_attempts_and_timeout() -> None:
    policy = retry_policy(max_wait=30, attempts=3, timeout=None)
    assert set(policy) == {"on", "attempts", "timeout"}
    assert (policy["attempts"], policy["timeout"]) == (3, None)
    assert policy["on"](typed(429, {"Retry-After": "31"})) is False
    assert policy["on"](typed(429, {"Retry-After": "30"})) == 30
    assert retry_policy()["timeout"] == 45.0  # stamina's own default


@pytest.mark.parametrize(
    "kwargs", [{"attempts": 0}, {"attempts": 1.5}, {"attempts": False}, {"max_wait": -1}]
)
def test_retry_policy_arguments_are_checked(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"attempts|max_wait"):
        retry_policy(**kwargs)


# --- log_retries: each failure logged once ------------------------------------------------


@pytest.fixture
def retry_hook_only() -> Iterator[None]:
    previous = stamina.is_testing()
    stamina.set_testing(True, attempts=3)
    set_on_retry_hooks([log_retries()])
    yield
    set_on_retry_hooks(None)
    stamina.set_testing(previous)


def test_log_retries_logs_each_failure_once(
    retry_hook_only: None, caplog: pytest.LogCaptureFixture
) -> None:
    """Under stamina, a classified tool's failure is agenterr's record alone; the hook's
    record names only the retry, and neither repeats the hint."""

    @stamina.retry(**retry_policy(max_wait=30))
    @classified_tool(raises=True)
    def get_rate() -> Any:
        return agenterr.from_status(503, '{"error":"secret-ish detail"}')

    caplog.set_level(logging.INFO)
    with pytest.raises(TransientToolError):
        get_rate()
    failures = [r for r in caplog.records if r.name == "agenterr"]
    retries = [r for r in caplog.records if r.name == "stamina"]
    assert [r.getMessage() for r in failures] == [
        "tool get_rate failed: UNAVAILABLE class=transient status=503"
    ] * 3
    assert [r.getMessage() for r in retries] == [
        f"{__name__}.{get_rate.__qualname__}: retrying in 0.00s after attempt {n}" for n in (1, 2)
    ]
    assert all(r.agenterr_outcome.code is Code.UNAVAILABLE for r in retries)
    assert [r.agenterr_attempt for r in retries] == [1, 2]
    assert "secret-ish" not in caplog.text and "temporarily" not in caplog.text


def test_log_retries_names_an_unlogged_failure(
    retry_hook_only: None, caplog: pytest.LogCaptureFixture
) -> None:
    """A failure no classified tool logged (plain client code) is named by code and class,
    never by the exception's text."""
    calls = Script(TimeoutError("token=abc123 timed out"), "ok")
    caplog.set_level(logging.INFO, logger="stamina")
    assert stamina.retry(**retry_policy())(calls)() == "ok"
    (record,) = caplog.records
    assert record.getMessage().endswith(
        "failed (attempt 1): TIMEOUT class=transient; retrying in 0.00s"
    )
    assert "abc123" not in caplog.text


def test_log_retries_takes_a_logger_and_level(retry_hook_only: None) -> None:
    seen: list[tuple[int, str]] = []

    class Recorder:
        def log(self, level: int, msg: str, /, *args: Any, **kwargs: Any) -> None:
            seen.append((level, msg % args))

    set_on_retry_hooks([log_retries(Recorder(), logging.DEBUG)])
    calls = Script(ConnectionResetError(), "ok")
    assert stamina.retry(**retry_policy())(calls)() == "ok"
    assert len(seen) == 1 and seen[0][0] == logging.DEBUG
    assert seen[0][1].endswith("failed (attempt 1): UNAVAILABLE class=transient; retrying in 0.00s")


@pytest.mark.asyncio
async def test_log_retries_under_an_async_tool(
    retry_hook_only: None, caplog: pytest.LogCaptureFixture
) -> None:
    """An async classified tool under stamina: still one record per failure and per retry."""

    @stamina.retry(**retry_policy(max_wait=30))
    @classified_tool(raises=True)
    async def get_rate() -> Any:
        await asyncio.sleep(0)
        return agenterr.from_status(503, "")

    caplog.set_level(logging.INFO)
    with pytest.raises(TransientToolError):
        await get_rate()
    assert len([r for r in caplog.records if r.name == "agenterr"]) == 3
    retries = [r.getMessage() for r in caplog.records if r.name == "stamina"]
    assert len(retries) == 2 and all("retrying in 0.00s after attempt" in m for m in retries)
