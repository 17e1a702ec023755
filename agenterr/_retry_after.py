"""Server-advised retry delays: ``Retry-After`` and its millisecond cousins, in seconds.

Parsing never raises. Anything that is not a well-formed, finite, non-negative delay is
ignored; a delay above :data:`RETRY_AFTER_CEILING` is clamped to it; a date in the past
means "now" (0).
"""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, date, datetime

from ._headers import HeaderView

__all__ = ["RETRY_AFTER_CEILING", "parse_retry_after", "retry_after_from_headers"]

RETRY_AFTER_CEILING = 86_400.0
"""Largest delay reported, in seconds (one day); larger advice is clamped to it."""

# Longest header value looked at; a longer one is garbage or hostile, not a delay.
_MAX_VALUE_LEN = 64

# Millisecond headers first: they are more precise and, when a server sends both, agree
# with Retry-After (the convention of the OpenAI and Azure SDKs).
MS_HEADERS = ("retry-after-ms", "x-ms-retry-after-ms")
RETRY_HEADERS = (*MS_HEADERS, "retry-after")
_RETRY_NAMES = frozenset(RETRY_HEADERS)

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?\Z")
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_TIME = r"(?P<H>[0-9]{2}):(?P<M>[0-9]{2}):(?P<S>[0-9]{2})"
_MON = r"(?P<mon>[A-Za-z]{3})"
# The three forms RFC 9110 section 5.6.7 requires recipients to accept.
_IMF_FIXDATE = re.compile(
    rf"[A-Za-z]{{3}}, (?P<d>[0-9]{{2}}) {_MON} (?P<y>[0-9]{{4}}) {_TIME} GMT\Z"
)
_RFC850 = re.compile(rf"[A-Za-z]{{6,9}}, (?P<d>[0-9]{{2}})-{_MON}-(?P<y>[0-9]{{2}}) {_TIME} GMT\Z")
_ASCTIME = re.compile(rf"[A-Za-z]{{3}} {_MON} (?P<d>[ 0-9][0-9]) {_TIME} (?P<y>[0-9]{{4}})\Z")

Clock = float | datetime | None


def now_seconds(now: Clock) -> float:
    """``now`` as epoch seconds; NaN for a clock that cannot be one (never raises)."""
    if now is None:
        return time.time()
    try:
        return now.timestamp() if isinstance(now, datetime) else float(now)
    except Exception:  # an int too large for a float, a naive datetime out of range, ...
        return math.nan


def _clamp(seconds: float) -> float | None:
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, RETRY_AFTER_CEILING)


def _parse_delta(text: str, scale: float) -> float | None:
    if not _NUMBER.match(text):
        return None
    # Any integer part of 16+ significant digits is beyond the ceiling in every unit, and
    # float() of it could lose or (for int()) refuse the digits: clamp without converting.
    if len(text.partition(".")[0].lstrip("0")) > 15:
        return RETRY_AFTER_CEILING
    return _clamp(float(text) * scale)


def http_date_epoch(text: str, now: float) -> float | None:
    """Epoch seconds of an HTTP-date in any RFC 9110 form (``now`` places 2-digit years)."""
    m = _IMF_FIXDATE.match(text) or _ASCTIME.match(text)
    two_digit_year = False
    if m is None:
        m = _RFC850.match(text)
        two_digit_year = m is not None
    if m is None:
        return None
    day, mon, year_digits, hours, minutes, seconds = m.group("d", "mon", "y", "H", "M", "S")
    month = _MONTHS.get(mon.lower())
    if month is None:
        return None
    year = int(year_digits)
    if two_digit_year:
        # RFC 9110: a two-digit year is the one within fifty years of now; one that would
        # be more than fifty years ahead is the most recent past year ending in those digits.
        # Without a usable clock (NaN, infinite, beyond datetime's range) the century is
        # unknown: the date cannot be placed, as any other unparsable date.
        try:
            current = datetime.fromtimestamp(now, UTC).year
        except (ValueError, OverflowError, OSError):
            return None
        year += current - current % 100
        if year > current + 50:
            year -= 100
        elif year <= current - 50:
            year += 100
    # The day number and the time of day, as datetime would check them (a date out of its
    # month, a 24th hour, a 60th second: no date), without building an aware datetime.
    hour, minute, second = int(hours), int(minutes), int(seconds)
    if hour > 23 or minute > 59 or second > 59:
        return None
    try:
        days = date(year, month, int(day)).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        return None
    return float(days * 86_400 + hour * 3_600 + minute * 60 + second)


def _parse_http_date(text: str, now: float) -> float | None:
    when = http_date_epoch(text, now)
    return None if when is None else _clamp(max(0.0, when - now))


# Clients that join repeated header fields write "5, 9"; the first delay counts. A comma
# without a space ("1,5") is a malformed decimal, not a list, and is ignored.
_FIRST_OF_LIST = re.compile(r"([0-9]+(?:\.[0-9]+)?), ")


def parse_retry_after(
    value: object, *, now: Clock = None, milliseconds: bool = False
) -> float | None:
    """Parse one ``Retry-After`` value into seconds, or ``None`` when it is not a delay.

    ``value`` is delta-seconds (integer or decimal) or an HTTP-date in any of the three
    RFC 9110 forms; with ``milliseconds=True`` it is a number of milliseconds (as in
    ``retry-after-ms``). ``now`` is the clock an HTTP-date is measured against: epoch
    seconds or an aware ``datetime`` (default: the current time). Never raises.
    """
    if isinstance(value, (bytes, bytearray)):
        if len(value) > _MAX_VALUE_LEN:
            return None
        value = bytes(value).decode("latin-1")
    if type(value) is not str or len(value) > _MAX_VALUE_LEN:
        return None  # str subclasses too: their methods could do anything
    text = value.strip(" \t")
    if text.isdigit() and text.isascii() and len(text) <= 20:  # the common case: "2", "120"
        return _clamp(int(text) * (0.001 if milliseconds else 1.0))
    if milliseconds:
        seconds = _parse_delta(text, 0.001)
        if seconds is None and (first := _FIRST_OF_LIST.match(text)):
            return _parse_delta(first[1], 0.001)
        return seconds
    seconds = _parse_delta(text, 1.0)
    if seconds is not None:
        return seconds
    try:
        reference = now_seconds(now)
        if math.isfinite(reference):
            seconds = _parse_http_date(text, reference)
    except Exception:
        seconds = None  # an unusable clock: no date parses, the list form still may
    if seconds is None and (first := _FIRST_OF_LIST.match(text)):
        return _parse_delta(first[1], 1.0)
    return seconds


def retry_after_from_headers(headers: object, *, now: Clock = None) -> float | None:
    """The advised delay in seconds from response headers, or ``None``.

    ``headers`` is a mapping, a client's headers object (httpx, requests, aiohttp, urllib)
    or ``(name, value)`` pairs; never raises.

    Looks at ``retry-after-ms``, then ``x-ms-retry-after-ms``, then ``Retry-After``
    (case-insensitively); the first one that parses wins.
    """
    view = headers if isinstance(headers, HeaderView) else HeaderView.of(headers, _RETRY_NAMES)
    for name in RETRY_HEADERS:
        raw = view.get(name)
        if raw is None:
            continue
        seconds = parse_retry_after(raw, now=now, milliseconds=name in MS_HEADERS)
        if seconds is not None:
            return seconds
    return None
