"""A classified tool under tenacity's ``before_sleep_log_outcome``: each failure logged once.

``@classified_tool`` logs every failure on the ``agenterr`` logger; the tenacity hook logged
each retried failure again (code, class, status, Retry-After), so every retried attempt was
in the log twice. Now the hook logs only its retry when agenterr has logged the failure.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from tenacity import AsyncRetrying, retry

import agenterr
from agenterr import Outcome, TransientToolError, classified_tool
from agenterr.integrations.tenacity import before_sleep_log_outcome, retry_policy

pytestmark = pytest.mark.external

APP = logging.getLogger("app.tools")


def rate_limited() -> Outcome[Any]:
    return agenterr.from_status(429, "", headers={"Retry-After": "0.001"})


def reports(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Every record naming the failure's code, whichever logger wrote it."""
    return [r.getMessage() for r in caplog.records if "RATE_LIMITED" in r.getMessage()]


def retries(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "app.tools"]


def test_raises_mode_under_retry_logs_each_failure_once(caplog: pytest.LogCaptureFixture) -> None:
    @retry(**retry_policy(max_wait=1, attempts=3), before_sleep=before_sleep_log_outcome(APP))
    @classified_tool(raises=True)
    def get_rate(currency: str) -> float:
        rate_limited().raise_for_failure()
        return 1.0

    with caplog.at_level(logging.INFO), pytest.raises(TransientToolError):
        get_rate("EUR")
    assert len(reports(caplog)) == 3  # three attempts, three failures, each logged once
    assert all(r.name == "agenterr" for r in caplog.records if "RATE_LIMITED" in r.getMessage())
    retried = retries(caplog)
    assert [r.agenterr_attempt for r in retried] == [1, 2]  # type: ignore[attr-defined]
    assert all("retrying in" in r.getMessage() for r in retried)
    assert all(r.agenterr_outcome.code is agenterr.Code.RATE_LIMITED for r in retried)  # type: ignore[attr-defined]


def test_outcome_mode_async_logs_each_failure_once(caplog: pytest.LogCaptureFixture) -> None:
    @classified_tool
    async def get_rate(currency: str) -> Outcome[Any]:
        return rate_limited()

    async def main() -> Outcome[Any]:
        out: Outcome[Any] = rate_limited()
        async for attempt in AsyncRetrying(
            **retry_policy(max_wait=1, attempts=2),  # gives back the last Outcome
            before_sleep=before_sleep_log_outcome(APP),
        ):
            with attempt:
                out = await get_rate("EUR")
            if not attempt.retry_state.outcome.failed:  # type: ignore[union-attr]
                attempt.retry_state.set_result(out)
        return out

    with caplog.at_level(logging.INFO):
        asyncio.run(main())
    assert len(reports(caplog)) == 2
    assert len(retries(caplog)) == 1


def test_the_hook_still_classifies_when_agenterr_did_not_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A plain function (nothing classified it), or the agenterr logger below INFO: the hook's
    own record carries the classification, as before."""

    @retry(**retry_policy(max_wait=1, attempts=2), before_sleep=before_sleep_log_outcome(APP))
    @classified_tool(raises=True)
    def get_rate(currency: str) -> float:
        rate_limited().raise_for_failure()
        return 1.0

    quiet = logging.getLogger("agenterr")
    before = quiet.level
    quiet.setLevel(logging.WARNING)
    try:
        with caplog.at_level(logging.INFO, logger="app"), pytest.raises(TransientToolError):
            get_rate("EUR")
    finally:
        quiet.setLevel(before)
    (record,) = retries(caplog)
    assert "RATE_LIMITED class=transient status=429" in record.getMessage()
    assert len(reports(caplog)) == 1
