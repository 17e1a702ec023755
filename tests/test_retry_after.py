"""Retry-After parsing: delta-seconds, HTTP-dates, millisecond headers, and garbage."""

from datetime import UTC, datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agenterr import RETRY_AFTER_CEILING, parse_retry_after, retry_after_from_headers
from agenterr._retry_after import http_date_epoch

# 1994-11-06T08:49:30Z, seven seconds before the RFC's example date.
NOW = datetime(1994, 11, 6, 8, 49, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("0", 0.0),
        ("2", 2.0),
        ("120", 120.0),
        (" 7\t", 7.0),
        ("1.5", 1.5),
        ("0.25", 0.25),
        (b"3", 3.0),
        ("86400", 86400.0),
    ],
)
def test_delta_seconds(value: object, seconds: float) -> None:
    """Integer and decimal delta-seconds are read as seconds."""
    assert parse_retry_after(value) == seconds


@pytest.mark.parametrize(
    "value",
    [
        "Sun, 06 Nov 1994 08:49:37 GMT",  # IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  # RFC 850
        "Sun Nov  6 08:49:37 1994",  # asctime
        "sun, 06 nov 1994 08:49:37 GMT",  # names read case-insensitively
    ],
)
def test_http_date_forms(value: str) -> None:
    """All three RFC 9110 date forms are measured against the injected clock."""
    assert parse_retry_after(value, now=NOW) == 7.0
    assert parse_retry_after(value, now=NOW.timestamp()) == 7.0


def test_past_date_is_zero() -> None:
    """A date already passed means the client may retry now."""
    assert parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now=NOW) == 0.0


def test_rfc850_two_digit_year_window() -> None:
    """A two-digit year more than 50 years ahead is read as the previous century."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    # 75 would be 2075, 49 years ahead: kept in this century.
    assert parse_retry_after("Friday, 01-Jan-75 00:00:00 GMT", now=now) == RETRY_AFTER_CEILING
    # 99 would be 2099, 73 years ahead: it is 1999, in the past.
    assert parse_retry_after("Friday, 01-Jan-99 00:00:00 GMT", now=now) == 0.0


def test_rfc850_next_century() -> None:
    """A two-digit year up to fifty years ahead is in the future, not the past."""
    now = datetime(1994, 11, 6, 8, 49, 30, tzinfo=UTC)
    assert parse_retry_after("Sunday, 06-Nov-44 08:49:37 GMT", now=now) == RETRY_AFTER_CEILING
    assert parse_retry_after("Sunday, 06-Nov-45 08:49:37 GMT", now=now) == 0.0  # 1945


def test_leading_zeros_and_long_fractions() -> None:
    """Long values are read by their magnitude, not their length."""
    assert parse_retry_after("000000000000000000005") == 5.0
    assert parse_retry_after("1.00000000000000000000") == 1.0
    assert parse_retry_after("0000000000000000000001500", milliseconds=True) == 1.5


def test_joined_repeated_fields() -> None:
    """A client that joins repeated fields with commas still yields the first delay."""
    assert parse_retry_after("5, 9") == 5.0
    assert parse_retry_after("250, 300", milliseconds=True) == 0.25
    assert parse_retry_after("5, soon") == 5.0
    assert parse_retry_after("soon, 5") is None


def test_huge_clock_does_not_raise() -> None:
    """A clock beyond any calendar makes dates unreadable, never an exception."""
    assert parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now=1e20) is None
    assert parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now=-1e20) == RETRY_AFTER_CEILING


def test_ceiling_clamps() -> None:
    """Delays beyond the documented ceiling (one day) are clamped to it."""
    assert RETRY_AFTER_CEILING == 86_400.0
    assert parse_retry_after("86401") == RETRY_AFTER_CEILING
    assert parse_retry_after("9" * 40) == RETRY_AFTER_CEILING
    assert parse_retry_after("Sun, 06 Nov 2094 08:49:37 GMT", now=NOW) == RETRY_AFTER_CEILING


@pytest.mark.parametrize(
    "value",
    [
        "",
        " ",
        "-1",
        "+5",
        "1e3",
        "NaN",
        "nan",
        "inf",
        "Infinity",
        "1.",
        ".5",
        "1,5",
        "soon",
        "5 seconds",
        "Sun, 06 Nov 1994 08:49:37 UTC",  # not GMT
        "Sun, 31 Feb 1994 08:49:37 GMT",  # no such day
        "Sun, 06 Foo 1994 08:49:37 GMT",  # no such month
        "Sun, 06 Nov 1994 25:49:37 GMT",  # no such hour
        "9" * 100,  # longer than any header value we read
        None,
        5,
        2.5,
        object(),
        "\x00",
        "٣",  # a non-ASCII digit
    ],
)
def test_garbage_is_ignored(value: object) -> None:
    """Anything that is not a well-formed delay is absent, never an exception."""
    assert parse_retry_after(value) is None


def test_broken_clock_is_ignored() -> None:
    """An unusable clock makes dates unreadable but does not raise."""
    date = "Sun, 06 Nov 1994 08:49:37 GMT"
    assert parse_retry_after(date, now=float("nan")) is None
    assert parse_retry_after(date, now="noon") is None  # type: ignore[arg-type]
    assert parse_retry_after("3", now=float("nan")) == 3.0


def test_milliseconds() -> None:
    """Millisecond values are scaled; garbage is still ignored."""
    assert parse_retry_after("1500", milliseconds=True) == 1.5
    assert parse_retry_after("20.5", milliseconds=True) == pytest.approx(0.0205)
    assert parse_retry_after("-3", milliseconds=True) is None
    assert parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", milliseconds=True) is None


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"RETRY-AFTER": "3"}, 3.0),
        ({"retry-after-ms": "250", "Retry-After": "1"}, 0.25),
        ({"x-ms-retry-after-ms": "4000", "Retry-After": "1"}, 4.0),
        ({"retry-after-ms": "250", "x-ms-retry-after-ms": "4000"}, 0.25),
        ({"retry-after-ms": "soon", "Retry-After": "2"}, 2.0),
        ([("Retry-After", "5"), ("Retry-After", "9")], 5.0),
        ([(b"retry-after", b"6")], 6.0),
        ({"Content-Type": "text/plain"}, None),
        ({}, None),
        (None, None),
        ("Retry-After: 5", None),
        ([("broken",), 42, ("Retry-After", "8")], 8.0),
    ],
)
def test_from_headers(headers: object, seconds: float | None) -> None:
    """Header names are case-insensitive, ms headers win, the first valid value wins."""
    assert retry_after_from_headers(headers) == seconds  # type: ignore[arg-type]


def test_headers_past_the_limit_are_not_read() -> None:
    """Only the first 256 header fields are looked at."""
    headers = [(f"x-filler-{i}", "1") for i in range(256)] + [("Retry-After", "5")]
    assert retry_after_from_headers(headers) is None  # type: ignore[arg-type]
    assert retry_after_from_headers(headers[1:]) == 5.0  # type: ignore[arg-type]


def test_headers_object_that_raises() -> None:
    """A headers object whose iteration fails reads as no headers."""

    class Broken:
        def items(self) -> object:
            raise RuntimeError("boom")

    assert retry_after_from_headers(Broken()) is None  # type: ignore[arg-type]


@given(
    year=st.integers(0, 9999),
    month=st.sampled_from(
        ["Jan", "feb", "MAR", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Foo"]
    ),
    day=st.integers(0, 39),
    hour=st.integers(0, 29),
    minute=st.integers(0, 69),
    second=st.integers(0, 69),
)
@example(year=2026, month="Dec", day=3, hour=7, minute=0, second=60)  # a leap second
@example(year=2026, month="Dec", day=3, hour=7, minute=60, second=0)
@example(year=2026, month="Dec", day=3, hour=24, minute=0, second=0)
@example(year=2024, month="Feb", day=29, hour=23, minute=59, second=59)
@example(year=2100, month="Feb", day=29, hour=0, minute=0, second=0)
@example(year=2026, month="Apr", day=31, hour=0, minute=0, second=0)
@example(year=2026, month="Jan", day=0, hour=0, minute=0, second=0)
@example(year=0, month="Jan", day=1, hour=0, minute=0, second=0)
@example(year=9999, month="Dec", day=31, hour=23, minute=59, second=59)
def test_http_date_epoch_agrees_with_datetime(  # noqa: PLR0917 - hypothesis fills them
    year: int, month: str, day: int, hour: int, minute: int, second: int
) -> None:
    """The date arithmetic accepts exactly the dates datetime accepts, at the same instant."""
    text = f"Thu, {day:02d} {month} {year:04d} {hour:02d}:{minute:02d}:{second:02d} GMT"
    months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    try:
        number = months.index(month.lower()) + 1
        expected: float | None = datetime(
            year, number, day, hour, minute, second, tzinfo=UTC
        ).timestamp()
    except ValueError:
        expected = None
    got = http_date_epoch(text, 0.0)
    assert got == expected
    assert type(got) is type(expected)
