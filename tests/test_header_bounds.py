"""Header values of any length cost O(1); an unusable clock never defeats a classification."""

from __future__ import annotations

import math
import timeit
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agenterr import Code, from_status
from agenterr._retry_after import http_date_epoch, parse_retry_after

RFC850 = "Sunday, 06-Nov-94 08:49:37 GMT"
IMF = "Sun, 06 Nov 1994 08:49:37 GMT"


def _best(call: object, repeats: int = 5) -> float:
    return min(timeit.repeat(call, number=1, repeat=repeats))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["Retry-After", "retry-after-ms", "x-ms-retry-after-ms"])
@pytest.mark.parametrize("fill", ["1", " ", "x"])
def test_huge_retry_after_on_the_header_fast_path_is_bounded(name: str, fill: str) -> None:
    """A 10 MB value costs about what a 1 KB one does (a ratio within one run), and is ignored."""
    huge = {name: fill * 10_000_000}
    small = {name: fill * 1_000}
    outcome = from_status(429, headers=huge)
    assert outcome.code is Code.RATE_LIMITED and outcome.retry_after is None
    assert outcome == from_status(429, headers=small)
    ratio = _best(lambda: from_status(429, headers=huge)) / _best(
        lambda: from_status(429, headers=small)
    )
    assert ratio < 50, ratio  # scanning or hashing the value was thousands of times slower


@given(
    status=st.sampled_from([408, 429, 500, 503]),
    name=st.sampled_from(["Retry-After", "retry-after", "Retry-After-Ms", "x-ms-retry-after-ms"]),
    value=st.text("0123456789", min_size=1, max_size=30) | st.text(max_size=30),
)
def test_header_fast_path_agrees_with_the_general_path(status: int, name: str, value: str) -> None:
    """A dict of headers (fast path) and the same pair in a list (general path) agree."""
    assert from_status(status, headers={name: value}) == from_status(
        status, headers=[(name, value)]
    )


@pytest.mark.parametrize(
    "now",
    [math.nan, math.inf, -math.inf, 1e300, -1e300, 10**400],
    ids=["nan", "inf", "-inf", "1e300", "-1e300", "10**400"],
)
@pytest.mark.parametrize(
    ("headers", "delay"),
    [
        ({"Date": RFC850}, None),
        ({"Date": RFC850, "Retry-After": "3"}, 3.0),
        # The server's four-digit Date is the clock: the RFC 850 date is placed against it.
        ({"Date": IMF, "Retry-After": RFC850}, 0.0),
        ({"Retry-After": RFC850}, None),
    ],
    ids=["date", "date+delta", "date+rfc850-retry", "rfc850-retry"],
)
def test_unusable_clock_keeps_the_classification(
    now: float, headers: dict[str, str], delay: float | None
) -> None:
    """now=NaN (or any clock no datetime can hold) with an RFC 850 date: still a rate limit."""
    for body in ("", '{"error": {"message": "slow down"}}'):
        outcome = from_status(429, body, headers=headers, now=now)
        assert outcome.code is Code.RATE_LIMITED, (body, outcome, outcome.error)
        assert outcome.error is None
        assert outcome.retry_after == delay


def test_two_digit_year_needs_a_usable_clock() -> None:
    """Without a usable clock the century of an RFC 850 date is unknown: no date, no raise."""
    for now in (math.nan, math.inf, -math.inf, 1e300, -1e300):
        assert http_date_epoch(RFC850, now) is None
        assert parse_retry_after(RFC850, now=now) is None
        assert http_date_epoch(IMF, now) == 784111777.0  # a four-digit year needs no clock
    assert http_date_epoch(RFC850, 1.7e9) == 784111777.0
    naive_far = datetime(1, 1, 1)  # its local-time timestamp can fail on some platforms
    parse_retry_after(RFC850, now=naive_far)
    assert parse_retry_after("5", now=10**400) == 5.0
