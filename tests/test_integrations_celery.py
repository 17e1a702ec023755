"""Celery retries transient tool failures after their Retry-After, and nothing else.

A real worker (Celery's embedded one, in a thread) and a real Redis, started on 127.0.0.1 for
this module, as broker and result backend; every worker test runs under the ``json`` and the
``pickle`` serializer, each accepting only its own content type.
"""

from __future__ import annotations

import functools
import gc
import importlib
import itertools
import logging
import subprocess
import sys
import time
import uuid
import warnings
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker
from celery.exceptions import Ignore, Reject, Retry, SoftTimeLimitExceeded, TimeLimitExceeded
from celery.signals import before_task_publish, setup_logging, task_postrun
from kombu.utils.json import dumps, loads

from agenterr import (
    AgentToolError,
    AuthToolError,
    Code,
    IndeterminateToolError,
    Outcome,
    SelfCorrectableToolError,
    TransientToolError,
    classified_tool,
    from_status,
)
from agenterr.integrations.celery import OUTCOME_JSON_MARKER, ClassifiedTask, retry_transient
from agenterr.integrations.langchain import (
    SelfCorrectableToolException,
    langchain_tool,
    tool_exception,
)

from ._redis import redis_server

# Celery's Redis result backend still calls SETEX, which redis-py 8 deprecates; the warning
# is raised in the worker thread, where filterwarnings=error would fail the task instead.
pytestmark = [
    pytest.mark.external,
    pytest.mark.filterwarnings(r"ignore:Call to deprecated setex\.:DeprecationWarning"),
]

EXAMPLE = Path(__file__).parent.parent / "examples" / "celery_task.py"
TIMEOUT = 15

# The worker runs in this process: each tool attempt and each published retry is recorded
# here, by the token the test passes in and by task id.
ATTEMPTS: defaultdict[str, list[float]] = defaultdict(list)
COUNTDOWNS: defaultdict[str, list[float]] = defaultdict(list)
BACKENDS: list[Any] = []


def stock_level(token: str, statuses: list[int], headers: dict[str, str]) -> dict[str, Any]:
    """Stock level of a SKU: attempt n answers with ``statuses[n]`` (the last one repeats).

    200 succeeds; 0 is a bug in the tool; any other status is the API's error response.
    """
    attempt = len(ATTEMPTS[token])
    ATTEMPTS[token].append(time.monotonic())
    status = statuses[min(attempt, len(statuses) - 1)]
    if status == 200:
        return {"in_stock": 3, "attempts": attempt + 1}
    if status == 0:
        raise ValueError("stock cache corrupted")
    request = httpx.Request("GET", "https://inventory.example.test/stock/sku-1")
    body = {"error": f"inventory said {status}"}
    httpx.Response(status, headers=headers, json=body, request=request).raise_for_status()
    raise AssertionError("unreachable: raise_for_status raised")


check_stock = classified_tool(raises=True)(stock_level)
check_stock_outcome = classified_tool(stock_level)
# The function LangChain runs for the tool: it raises agenterr's ToolException subclasses,
# whose args hold the hint (for LangChain), not the outcome.
stock_for_langchain = langchain_tool(check_stock, name="stock", description="Stock level.").func


@dataclass
class Tasks:
    """The tasks of one app, bound to one serializer."""

    serializer: str
    flaky: Any
    fallback: Any
    exhausted: Any
    widened: Any
    manual: Any
    bound: Any
    returns_outcome: Any
    retries_itself: Any
    langchain: Any


def _record_retry(sender: Any = None, headers: Any = None, **_: Any) -> None:
    # Published retries carry their ETA: its distance from now is the countdown Celery used.
    if headers and headers.get("retries") and headers.get("eta"):
        eta = datetime.fromisoformat(headers["eta"])
        COUNTDOWNS[headers["id"]].append((eta - datetime.now(UTC)).total_seconds())


def _no_logging_setup(**_: Any) -> None:
    """A ``setup_logging`` receiver: Celery then leaves the test run's logging alone."""


def _make_app(url: str, serializer: str) -> tuple[Celery, Tasks]:
    app = Celery(f"agenterr-{serializer}", broker=url, backend=url, set_as_current=False)
    app.conf.update(
        task_serializer=serializer,
        result_serializer=serializer,
        accept_content=[serializer],
        result_accept_content=[serializer],
        task_default_queue=f"agenterr-{serializer}",
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    task = functools.partial(app.task, shared=False)  # this app only, not every app
    # A backoff of 5s, 10s... unless the Retry-After replaces it.
    flaky = task(base=ClassifiedTask, name="flaky", retry_backoff=5, retry_jitter=False)(
        check_stock
    )
    fallback = task(base=ClassifiedTask, name="fallback", retry_jitter=False)(check_stock)
    exhausted = task(base=ClassifiedTask, name="exhausted", max_retries=2)(check_stock)
    # Even a task that retries every exception never retries a non-transient typed error.
    widened = task(base=ClassifiedTask, name="widened", autoretry_for=(Exception,))(check_stock)

    @task(base=ClassifiedTask, bind=True, name="manual")
    def manual(self: Any, token: str, statuses: list[int], headers: dict[str, str]) -> Any:
        try:
            return check_stock(token, statuses, headers)
        except AgentToolError as exc:
            raise self.retry(exc=exc) from exc

    @task(bind=True, name="bound", max_retries=1)
    def bound(self: Any, token: str, statuses: list[int], headers: dict[str, str]) -> Any:
        outcome = check_stock_outcome(token, statuses, headers)
        if outcome.failed:
            retry_transient(self, outcome, fallback_countdown=0.2)
        return outcome.value

    @task(name="returns_outcome")
    def returns_outcome(
        token: str, statuses: list[int], headers: dict[str, str]
    ) -> Outcome[dict[str, Any]]:
        return check_stock_outcome(token, statuses, headers)

    @task(base=ClassifiedTask, bind=True, name="retries_itself", max_retries=2)
    @classified_tool(raises=True)
    def retries_itself(self: Any, token: str) -> dict[str, int]:
        ATTEMPTS[token].append(time.monotonic())
        if len(ATTEMPTS[token]) == 1:
            raise self.retry(countdown=0.2)  # Celery's Retry, through @classified_tool
        return {"attempts": len(ATTEMPTS[token])}

    langchain = task(base=ClassifiedTask, name="langchain", max_retries=1)(stock_for_langchain)

    return app, Tasks(
        serializer,
        flaky,
        fallback,
        exhausted,
        widened,
        manual,
        bound,
        returns_outcome,
        retries_itself,
        langchain,
    )


def _record_backend(sender: Any = None, **_: Any) -> None:
    # The Redis backend is per thread: the worker thread's one must be closed too.
    BACKENDS.append(sender.backend)


def _close(app: Celery) -> None:
    """Close every Redis connection the app opened: a socket left to the garbage collector
    is a ResourceWarning, an error in whichever test happens to collect it."""
    # A collected AsyncResult unsubscribes from its task's channel, through a connection it
    # opens again if the result consumer is already closed: collect them first. A socket
    # Celery dropped on the floor while a test failed (a timed-out get) is garbage by now;
    # that test has already failed, so its ResourceWarning must not fail the teardown too.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
    app.backend.result_consumer.stop()
    for backend in {id(b): b for b in [app.backend, *BACKENDS]}.values():
        backend.client.connection_pool.disconnect()
    BACKENDS.clear()
    app.producer_pool.connections.force_close_all()
    app.pool.force_close_all()
    app.close()


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A private Redis on 127.0.0.1 for this module."""
    with redis_server() as url:
        yield url


@pytest.fixture(scope="module", params=["json", "pickle"])
def tasks(request: pytest.FixtureRequest, redis_url: str) -> Iterator[Tasks]:
    """An app on its own Redis database with a running worker, for one serializer."""
    serializer: str = request.param
    database = {"json": 1, "pickle": 2}[serializer]
    app, made = _make_app(f"{redis_url}/{database}", serializer)
    setup_logging.connect(_no_logging_setup)
    before_task_publish.connect(_record_retry)
    task_postrun.connect(_record_backend)
    try:
        with start_worker(app, perform_ping_check=False, shutdown_timeout=10):
            yield made
    finally:
        before_task_publish.disconnect(_record_retry)
        task_postrun.disconnect(_record_backend)
        setup_logging.disconnect(_no_logging_setup)
        _close(app)


def _call(task: Any, statuses: list[int], headers: dict[str, str] | None = None) -> Any:
    token = uuid.uuid4().hex
    return token, task.delay(token, statuses, headers or {})


def _gaps(token: str) -> list[float]:
    times = ATTEMPTS[token]
    return [later - earlier for earlier, later in itertools.pairwise(times)]


# --- with a worker ----------------------------------------------------------------------


def test_transient_failure_waits_the_retry_after(tasks: Tasks) -> None:
    """A 429 with Retry-After: 1 is retried after 1s, not after the task's 5s backoff."""
    token, result = _call(tasks.flaky, [429, 200], {"Retry-After": "1"})
    assert result.get(timeout=TIMEOUT) == {"in_stock": 3, "attempts": 2}
    assert len(ATTEMPTS[token]) == 2
    [countdown] = COUNTDOWNS[result.id]
    assert countdown == pytest.approx(1.0, abs=0.25)
    assert _gaps(token)[0] >= 0.95


def test_transient_failure_without_retry_after_uses_the_backoff(tasks: Tasks) -> None:
    """A 503 with no Retry-After waits Celery's exponential backoff (1s on the first retry)."""
    token, result = _call(tasks.fallback, [503, 200])
    assert result.get(timeout=TIMEOUT) == {"in_stock": 3, "attempts": 2}
    [countdown] = COUNTDOWNS[result.id]
    assert countdown == pytest.approx(1.0, abs=0.25)
    assert _gaps(token)[0] >= 0.95


def test_exhausted_retries_deliver_the_transient_error(tasks: Tasks) -> None:
    """After max_retries the caller gets TransientToolError with the outcome intact."""
    token, result = _call(tasks.exhausted, [429], {"retry-after-ms": "200"})
    with pytest.raises(TransientToolError) as caught:
        result.get(timeout=TIMEOUT)
    assert len(ATTEMPTS[token]) == 3
    assert COUNTDOWNS[result.id] == [pytest.approx(0.2, abs=0.15)] * 2
    outcome = caught.value.outcome
    assert (outcome.code, outcome.status) == (Code.RATE_LIMITED, 429)
    assert "inventory said 429" in outcome.llm_hint
    # JSON carries the wire form, whose Retry-After is whole seconds, rounded up.
    assert outcome.retry_after == (1.0 if tasks.serializer == "json" else 0.2)


@pytest.mark.parametrize(
    ("status", "error", "code"),
    [
        (404, SelfCorrectableToolError, Code.NOT_FOUND),
        (422, SelfCorrectableToolError, Code.INVALID_REQUEST),
        (401, AuthToolError, Code.UNAUTHORIZED),
        (0, IndeterminateToolError, Code.UNKNOWN),
    ],
)
@pytest.mark.parametrize("name", ["flaky", "widened", "manual"])
def test_other_failures_reach_the_caller_unretried(
    tasks: Tasks, name: str, status: int, error: type[AgentToolError], code: Code
) -> None:
    """Self-correctable, auth and unknown failures run once and arrive as the typed error.

    Also when the task autoretries every exception, and when it calls self.retry(exc=...).
    """
    token, result = _call(getattr(tasks, name), [status, 200])
    with pytest.raises(error) as caught:
        result.get(timeout=TIMEOUT)
    assert len(ATTEMPTS[token]) == 1
    assert not COUNTDOWNS[result.id]
    expected = check_stock_outcome(uuid.uuid4().hex, [status], {})
    assert caught.value.outcome == expected
    assert caught.value.code is code
    assert caught.value.llm_hint == expected.llm_hint


@pytest.mark.parametrize(
    ("name", "status", "level"),
    [
        ("flaky", 404, logging.INFO),
        ("flaky", 401, logging.INFO),
        ("exhausted", 503, logging.INFO),
        ("flaky", 0, logging.ERROR),
    ],
)
def test_only_unknown_failures_are_logged_as_errors(
    tasks: Tasks, caplog: pytest.LogCaptureFixture, name: str, status: int, level: int
) -> None:
    """The worker logs classified failures as expected (INFO), UNKNOWN ones as errors."""
    caplog.set_level(logging.INFO, logger="celery.app.trace")
    _, result = _call(getattr(tasks, name), [status], {"retry-after-ms": "20"})
    with pytest.raises(AgentToolError):
        result.get(timeout=TIMEOUT)

    def logged() -> list[logging.LogRecord]:
        return [
            r
            for r in caplog.records
            if result.id in r.getMessage() and " raised " in r.getMessage()
        ]

    # The worker stores the result before it logs the failure.
    deadline = time.monotonic() + TIMEOUT
    while not logged() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [record.levelno for record in logged()] == [level]


def test_manual_retry_of_a_transient_error_waits_the_retry_after(tasks: Tasks) -> None:
    """self.retry(exc=transient) on a ClassifiedTask takes the countdown from the error."""
    token, result = _call(tasks.manual, [503, 200], {"retry-after-ms": "300"})
    assert result.get(timeout=TIMEOUT) == {"in_stock": 3, "attempts": 2}
    assert COUNTDOWNS[result.id] == [pytest.approx(0.3, abs=0.15)]
    assert _gaps(token)[0] >= 0.28


def test_retry_transient_retries_a_failed_outcome(tasks: Tasks) -> None:
    """retry_transient in a plain bound task retries after the Retry-After, or the fallback."""
    token, result = _call(tasks.bound, [429, 200], {"retry-after-ms": "300"})
    assert result.get(timeout=TIMEOUT) == {"in_stock": 3, "attempts": 2}
    assert COUNTDOWNS[result.id] == [pytest.approx(0.3, abs=0.15)]
    assert _gaps(token)[0] >= 0.28

    token, result = _call(tasks.bound, [504, 200])
    assert result.get(timeout=TIMEOUT) == {"in_stock": 3, "attempts": 2}
    assert COUNTDOWNS[result.id] == [pytest.approx(0.2, abs=0.15)]


def test_retry_transient_gives_up_after_max_retries(tasks: Tasks) -> None:
    """With max_retries=1 a failure that stays transient reaches the caller after 2 attempts."""
    token, result = _call(tasks.bound, [503], {"retry-after-ms": "100"})
    with pytest.raises(TransientToolError) as caught:
        result.get(timeout=TIMEOUT)
    assert len(ATTEMPTS[token]) == 2
    assert (caught.value.code, caught.value.status) == (Code.UNAVAILABLE, 503)


def test_retry_transient_raises_other_failures_unretried(tasks: Tasks) -> None:
    """retry_transient raises a self-correctable outcome's typed error without retrying."""
    token, result = _call(tasks.bound, [404, 200])
    with pytest.raises(SelfCorrectableToolError) as caught:
        result.get(timeout=TIMEOUT)
    assert len(ATTEMPTS[token]) == 1
    assert caught.value.outcome.code is Code.NOT_FOUND
    assert "inventory said 404" in caught.value.llm_hint


def test_a_returned_outcome_survives_the_result_backend(tasks: Tasks) -> None:
    """A task returning an Outcome gives the caller the same Outcome, value included."""
    _, result = _call(tasks.returns_outcome, [200])
    assert result.get(timeout=TIMEOUT) == Outcome.success({"in_stock": 3, "attempts": 1})
    _, result = _call(tasks.returns_outcome, [422])
    failed = result.get(timeout=TIMEOUT)
    assert failed == check_stock_outcome(uuid.uuid4().hex, [422], {})


def test_the_tasks_own_retry_passes_through_classified_tool(tasks: Tasks) -> None:
    """self.retry() inside a @classified_tool body raises Celery's Retry, which Celery
    acts on: the task runs again after the countdown, not fails as UNKNOWN."""
    token = uuid.uuid4().hex
    result = tasks.retries_itself.delay(token)
    assert result.get(timeout=TIMEOUT) == {"attempts": 2}
    assert COUNTDOWNS[result.id] == [pytest.approx(0.2, abs=0.15)]


@pytest.mark.parametrize(
    ("statuses", "attempts", "error", "code"),
    [
        ([404], 1, SelfCorrectableToolError, Code.NOT_FOUND),
        ([401], 1, AuthToolError, Code.UNAUTHORIZED),
        ([429], 2, TransientToolError, Code.RATE_LIMITED),
    ],
    ids=["404", "401", "429"],
)
def test_langchain_exceptions_arrive_as_typed_errors_with_their_outcome(
    tasks: Tasks, statuses: list[int], attempts: int, error: type[AgentToolError], code: Code
) -> None:
    """A task raising agenterr's LangChain ToolException subclasses (whose args are the
    hint) still delivers the core typed error with its outcome, under json as under pickle;
    the transient one is retried first."""
    token, result = _call(tasks.langchain, statuses, {"retry-after-ms": "100"})
    with pytest.raises(error) as caught:
        result.get(timeout=TIMEOUT)
    assert type(caught.value) is error
    assert len(ATTEMPTS[token]) == attempts
    expected = check_stock_outcome(uuid.uuid4().hex, statuses, {"retry-after-ms": "100"})
    assert caught.value.code is code
    assert caught.value.llm_hint == expected.llm_hint
    assert caught.value.status == expected.status


# --- without a worker ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "outcome",
    [
        Outcome.failure(Code.RATE_LIMITED, "slow down", status=429, retry_after=3),
        Outcome.failure(Code.NOT_FOUND, status=404),
        Outcome.success({"rows": [1, 2], "at": None}),
        Outcome.success(),
    ],
    ids=str,
)
def test_kombu_json_round_trips_an_outcome(outcome: Outcome[Any]) -> None:
    """kombu's JSON carries an Outcome as its wire form under the agenterr marker."""
    text = dumps({"result": outcome})
    assert OUTCOME_JSON_MARKER in text
    assert loads(text) == {"result": outcome}


def test_kombu_json_keeps_the_reason() -> None:
    """Between agenterr processes the explanation travels too (SPEC 8.4)."""
    outcome = from_status(429, '{"error": {"code": "insufficient_quota"}}')
    assert outcome.reason is not None
    assert loads(dumps({"result": outcome}))["result"].reason == outcome.reason


def test_kombu_json_round_trips_a_typed_error_argument() -> None:
    """The exception arguments Celery stores under json rebuild the same typed error."""
    error = AuthToolError(Outcome.failure(Code.UNAUTHORIZED, "token expired", status=401))
    [outcome] = loads(dumps(list(error.args)))
    assert AuthToolError(outcome).outcome == error.outcome


@pytest.mark.parametrize("failure", [Outcome.success(1), "503", None])
def test_retry_transient_rejects_anything_but_a_failure(failure: Any) -> None:
    """A success or a non-failure is a programming error, not something to retry."""
    with pytest.raises(ValueError, match="failed Outcome"):
        retry_transient(object(), failure)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Retry("again", when=1),
        Ignore,
        lambda: Reject("poison", requeue=False),
        SoftTimeLimitExceeded,
        lambda: TimeLimitExceeded(5),
    ],
    ids=["Retry", "Ignore", "Reject", "SoftTimeLimitExceeded", "TimeLimitExceeded"],
)
@pytest.mark.parametrize("raises", [False, True], ids=["outcome", "raises"])
def test_celerys_control_flow_passes_through_classified_tool(make: Any, raises: bool) -> None:
    """Celery's instructions and time limits leave @classified_tool as raised, for Celery."""
    signal = make()

    @classified_tool(raises=raises)
    def tool() -> None:
        raise signal

    with pytest.raises(type(signal)) as caught:
        tool()
    assert caught.value is signal


def test_retry_transient_makes_a_langchain_exception_portable() -> None:
    """retry_transient raises the core typed error for a LangChain subclass, chained from a
    copy of it: what Celery stores is a redacted copy of the chain, never the raw one."""
    outcome = Outcome.failure(Code.NOT_FOUND, status=404)
    raised = tool_exception(outcome)
    assert isinstance(raised, SelfCorrectableToolException)
    with pytest.raises(SelfCorrectableToolError) as caught:
        retry_transient(object(), raised)
    assert type(caught.value) is SelfCorrectableToolError
    assert caught.value.outcome == outcome
    cause = caught.value.__cause__
    assert type(cause) is SelfCorrectableToolError and cause is not raised
    assert cause.outcome == outcome and cause.__traceback__ is None
    # A core typed error is raised as a copy of its class and outcome.
    core = SelfCorrectableToolError(outcome)
    with pytest.raises(SelfCorrectableToolError) as same:
        retry_transient(object(), core)
    assert type(same.value) is SelfCorrectableToolError and same.value.outcome == outcome
    assert same.value.__cause__ is None


def test_missing_celery_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without celery, importing the integration says which extra to install."""
    monkeypatch.setitem(sys.modules, "celery", None)
    monkeypatch.delitem(sys.modules, "agenterr.integrations.celery")
    with pytest.raises(ImportError, match=r"agenterr\[celery\]"):
        importlib.import_module("agenterr.integrations.celery")


def test_example_retries_the_rate_limit_and_surfaces_the_hint() -> None:
    """The example retries a 429 after its Retry-After and hands the 404's hint back."""
    out = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "attempt 1: RATE_LIMITED" in out
    assert "retried after 1s -> {'city': 'Paris', 'forecast': 'sunny'}" in out
    assert "attempt 1: NOT_FOUND" in out
    assert "not retried: SelfCorrectableToolError NOT_FOUND" in out
    assert "hint for the model: The API could not find what this call refers to (HTTP 404)." in out
