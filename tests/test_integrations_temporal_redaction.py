"""Nothing raw crosses Temporal's boundary (issue 24): a classified activity's failure reaches
the workflow's history as the hint, the Outcome and a redacted stand-in of the original cause
chain, never as the raw exception, whose message may hold a credential.

Checked through Temporal's own failure converter, and on a local dev server by reading the
workflow's history back.
"""

from __future__ import annotations

import contextlib
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():
    # The workflow below runs in Temporal's sandbox, which re-imports this module.
    import pytest
    from temporalio.api.failure.v1 import Failure
    from temporalio.common import RetryPolicy
    from temporalio.converter import DataConverter
    from temporalio.exceptions import ActivityError, ApplicationError
    from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
    from temporalio.worker import Worker

    from agenterr import Code, IndeterminateToolError, TransientToolError
    from agenterr.integrations.temporal import (
        RedactedCause,
        classified_activity,
        outcome_of,
        redacted_cause,
    )
    from agenterr.testing import transport_error

    from .test_integrations_temporal import _temporal_cli

pytestmark = pytest.mark.external

PASSWORD = "hunter2-correct-horse"
KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
MESSAGE = f"connect to postgres://app:{PASSWORD}@db failed; api_key={KEY}"


def _leaky() -> None:
    try:
        raise KeyError(f"password={PASSWORD}")
    except KeyError as inner:
        raise ValueError(MESSAGE) from inner


@activity.defn
@classified_activity
def leaky_bug(order: str) -> str:
    """A bug whose message, and whose cause's message, hold credentials."""
    _leaky()
    return order


@activity.defn
@classified_activity(expose_errors=True)
async def leaky_timeout(order: str) -> str:
    """A transient failure caused by an exception that holds a credential."""
    try:
        _leaky()
    except ValueError as exc:
        raise transport_error("timeout") from exc
    return order


async def _failure_of(error: BaseException) -> Failure:
    failure = Failure()
    await DataConverter.default.encode_failure(error, failure)
    return Failure.FromString(failure.SerializeToString())


def test_the_cause_is_a_redacted_stand_in() -> None:
    with pytest.raises(ApplicationError) as caught:
        ActivityEnvironment().run(leaky_bug, "o-1")
    error = caught.value
    typed = error.__cause__
    assert isinstance(typed, IndeterminateToolError)
    assert typed.__traceback__ is None and typed.outcome.code is Code.UNKNOWN
    first = typed.__cause__
    assert isinstance(first, RedactedCause) and first.__traceback__ is None
    assert str(first).startswith("ValueError: connect to postgres://app:[REDACTED]@db")
    second = first.__cause__
    assert isinstance(second, RedactedCause) and str(second) == "KeyError: 'password=[REDACTED]'"
    assert second.__cause__ is None
    assert outcome_of(error) is not None and outcome_of(error) == typed.outcome


@pytest.mark.asyncio
@pytest.mark.parametrize("activity_function", [leaky_bug, leaky_timeout])
async def test_no_credential_crosses_the_failure_converter(activity_function: object) -> None:
    with pytest.raises(ApplicationError) as caught:
        result = ActivityEnvironment().run(activity_function, "o-1")  # type: ignore[arg-type]
        if hasattr(result, "__await__"):
            await result
    failure = await _failure_of(caught.value)
    text = str(failure)
    assert PASSWORD not in text and KEY not in text
    assert "RedactedCause" in text and "[REDACTED]" in text
    # Temporal still reads the decision back from the failure it stored.
    decoded = await DataConverter.default.decode_failure(failure)
    outcome = outcome_of(decoded)
    assert outcome is not None and outcome.code in (Code.UNKNOWN, Code.TIMEOUT)


def test_a_cyclic_or_long_chain_is_bounded() -> None:
    first = ValueError(f"a {KEY}")
    second = ValueError("b")
    first.__cause__, second.__cause__ = second, first
    error = TransientToolError(transport_error_outcome())
    error.__cause__ = first
    link: BaseException | None = redacted_cause(error)
    names = []
    while link is not None:
        names.append(type(link).__name__)
        link = link.__cause__
    assert names == ["TransientToolError", "RedactedCause", "RedactedCause"]


def transport_error_outcome() -> object:
    from agenterr import from_error

    return from_error(transport_error("timeout"))


@workflow.defn(sandboxed=True)
class LeakyWorkflow:
    @workflow.run
    async def run(self, order: str) -> str:
        policy = RetryPolicy(initial_interval=timedelta(milliseconds=10), maximum_attempts=2)
        for leaky in (leaky_bug, leaky_timeout):
            with contextlib.suppress(ActivityError):
                await workflow.execute_activity(
                    leaky,
                    order,
                    start_to_close_timeout=timedelta(seconds=10),
                    retry_policy=policy,
                )
        return "done"


@pytest.mark.asyncio
async def test_the_workflow_history_holds_no_credential(caplog: pytest.LogCaptureFixture) -> None:
    """On a real dev server: the history, every event's failure and its cause chain
    included, holds the redacted text only; so does the worker's log of the failures."""
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=_temporal_cli(), dev_server_log_level="error"
    )
    async with env:
        queue = f"agenterr-{uuid.uuid4()}"
        with ThreadPoolExecutor(2) as executor:
            async with Worker(
                env.client,
                task_queue=queue,
                workflows=[LeakyWorkflow],
                activities=[leaky_bug, leaky_timeout],
                activity_executor=executor,
            ):
                handle = await env.client.start_workflow(
                    LeakyWorkflow.run,
                    "o-1",
                    id=f"leaky-{uuid.uuid4()}",
                    task_queue=queue,
                    execution_timeout=timedelta(seconds=30),
                )
                assert await handle.result() == "done"
                history = (await handle.fetch_history()).to_json()
    assert "RedactedCause" in history and "[REDACTED]" in history
    assert PASSWORD not in history and KEY not in history
    assert "Completing activity as failed" in caplog.text
    assert PASSWORD not in caplog.text and KEY not in caplog.text
