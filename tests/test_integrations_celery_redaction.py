"""Nothing raw crosses Celery's boundary (issue 24): what the result backend stores for a
failed task (its formatted traceback included) and what the worker logs hold the hint and
redacted stand-ins of the cause chain, never the raw exception, whose message may hold a
credential. Eagerly applied tasks, whose result keeps the traceback too, as well.

A real worker (in a thread) and a real Redis, under the ``json`` and ``pickle`` serializers.
"""

from __future__ import annotations

import functools
import logging
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker
from celery.signals import setup_logging, task_postrun

from agenterr import (
    AgentToolError,
    Code,
    IndeterminateToolError,
    TransientToolError,
    classified_tool,
)
from agenterr.integrations.celery import ClassifiedTask, retry_transient
from agenterr.testing import transport_error

from ._redis import redis_server
from .test_integrations_celery import BACKENDS, _close, _no_logging_setup, _record_backend

pytestmark = [
    pytest.mark.external,
    pytest.mark.filterwarnings(r"ignore:Call to deprecated setex\.:DeprecationWarning"),
]

PASSWORD = "hunter2-correct-horse"
KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
TIMEOUT = 15


def _leaky() -> None:
    try:
        raise KeyError(f"password={PASSWORD}")
    except KeyError as inner:
        raise ValueError(
            f"connect to postgres://app:{PASSWORD}@db failed; api_key={KEY}"
        ) from inner


@classified_tool(raises=True)
def buggy(token: str) -> str:
    """A bug whose message, and whose cause's message, hold credentials."""
    _leaky()
    return token


@classified_tool(raises=True)
def flaky(token: str) -> str:
    """A timeout caused by an exception holding credentials: retried, then given up."""
    try:
        _leaky()
    except ValueError as exc:
        raise transport_error("timeout") from exc
    return token


def plain_buggy(token: str) -> str:
    """The same bug in a task function that is no classified tool."""
    _leaky()
    return token


ATTEMPTS: list[str] = []


def plain_flaky(token: str) -> str:
    """A raw timeout (no classified tool) caused by an exception holding credentials."""
    ATTEMPTS.append(token)
    try:
        _leaky()
    except ValueError as exc:
        raise transport_error("timeout") from exc
    return token


def widened(token: str) -> str:
    """A plain ValueError in a task whose autoretry_for names ValueError."""
    ATTEMPTS.append(token)
    _leaky()
    return token


def _clean(text: str | None) -> bool:
    return text is not None and PASSWORD not in text and KEY not in text


def _make_app(url: str, serializer: str) -> tuple[Celery, dict[str, Any]]:
    app = Celery(f"agenterr-redaction-{serializer}", broker=url, backend=url, set_as_current=False)
    app.conf.update(
        task_serializer=serializer,
        result_serializer=serializer,
        accept_content=[serializer],
        result_accept_content=[serializer],
        task_default_queue=f"agenterr-redaction-{serializer}",
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    task = functools.partial(app.task, shared=False)
    retried = {"max_retries": 1, "retry_backoff": False, "default_retry_delay": 0}
    made = {
        "buggy": task(base=ClassifiedTask, name="buggy")(buggy),
        "flaky": task(base=ClassifiedTask, name="flaky", **retried)(flaky),
        "plain_buggy": task(base=ClassifiedTask, name="plain_buggy")(plain_buggy),
        "plain_flaky": task(base=ClassifiedTask, name="plain_flaky", **retried)(plain_flaky),
        "widened": task(
            base=ClassifiedTask, name="widened", autoretry_for=(ValueError,), **retried
        )(widened),
    }

    @task(bind=True, name="bound", max_retries=0)
    def bound(self: Any, token: str) -> str:
        try:
            return flaky(token)
        except AgentToolError as exc:
            retry_transient(self, exc, fallback_countdown=0)

    made["bound"] = bound
    return app, made


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture(scope="module", params=["json", "pickle"])
def tasks(request: pytest.FixtureRequest, redis_url: str) -> Iterator[dict[str, Any]]:
    serializer: str = request.param
    database = {"json": 3, "pickle": 4}[serializer]
    app, made = _make_app(f"{redis_url}/{database}", serializer)
    setup_logging.connect(_no_logging_setup)
    task_postrun.connect(_record_backend)
    try:
        with start_worker(app, perform_ping_check=False, shutdown_timeout=10):
            yield made
    finally:
        task_postrun.disconnect(_record_backend)
        setup_logging.disconnect(_no_logging_setup)
        _close(app)


@pytest.mark.parametrize(
    ("name", "error", "code"),
    [
        ("buggy", IndeterminateToolError, Code.UNKNOWN),
        ("flaky", TransientToolError, Code.TIMEOUT),
        ("bound", TransientToolError, Code.TIMEOUT),
        ("plain_buggy", IndeterminateToolError, Code.UNKNOWN),
        ("plain_flaky", TransientToolError, Code.TIMEOUT),
        ("widened", IndeterminateToolError, Code.UNKNOWN),
    ],
)
def test_the_backend_and_the_log_hold_no_credential(
    tasks: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
    name: str,
    error: type[AgentToolError],
    code: Code,
) -> None:
    caplog.set_level(logging.INFO)
    token = uuid.uuid4().hex
    result = tasks[name].delay(token)
    with pytest.raises(error) as caught:
        result.get(timeout=TIMEOUT)
    assert caught.value.code is code  # the caller still gets the typed error and outcome
    if name in ("plain_flaky", "widened"):  # retried once, as a classified timeout is
        assert ATTEMPTS.count(token) == 2
    stored = result.traceback  # the formatted traceback, as the backend keeps it
    assert stored and "RedactedCause" in stored and "[REDACTED]" in stored
    assert _clean(stored)
    deadline = time.monotonic() + TIMEOUT  # the worker stores the result before it logs
    while result.id not in caplog.text and time.monotonic() < deadline:
        time.sleep(0.01)
    assert result.id in caplog.text
    assert _clean(caplog.text)


EAGER = {"buggy": buggy, "flaky": flaky, "plain_buggy": plain_buggy, "plain_flaky": plain_flaky}


@pytest.mark.parametrize("name", sorted(EAGER))
def test_an_eager_result_holds_no_credential(name: str) -> None:
    app = Celery("agenterr-eager", set_as_current=False)
    app.conf.update(task_always_eager=True, task_store_eager_result=False)
    task = app.task(
        base=ClassifiedTask, name=name, shared=False, max_retries=1, retry_backoff=False
    )(EAGER[name])
    result = task.apply((uuid.uuid4().hex,))
    # The worker fixture's task_postrun receiver records every backend it sees, this app's
    # disabled one too: it has no connection to close.
    BACKENDS[:] = [backend for backend in BACKENDS if hasattr(backend, "client")]
    assert result.failed()
    assert isinstance(result.result, AgentToolError)
    assert _clean(result.traceback) and "RedactedCause" in (result.traceback or "")
    app.close()
