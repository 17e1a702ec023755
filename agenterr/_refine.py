"""Status overrides: what a failed HTTP response's status, headers and body change in the table.

The status table (SPEC Part I, section 3) is right most of the time; real APIs say the needed
reaction elsewhere too. The signal engine (:mod:`agenterr._signals`) reads the body and names a
reading; this module decides what that reading may change for an HTTP status (a 429 stays a
rate limit unless a quota is exhausted, a refinement changes the class or nothing), and applies
the header-only rules: rate-limit state on a 400/403, a 409 with a wait, the long-wait rule and
the server's explicit ``x-should-retry``. Every rule has its anchor in SPEC Annex A.
Nothing here raises.
"""

from __future__ import annotations

from typing import NamedTuple

from ._headers import HeaderView
from ._reason import Reason, reason
from ._retry_after import Clock
from ._rules import Rule, RuleSet
from ._signals import (
    NO_SIGNALS,
    PLAIN_WINDOW,
    body_text,
    delay_after,
    http_verdict,
    long_wait,
    moves_alone,
    read_signals,
)
from ._taxonomy import Class, Code

__all__ = ["REFINE_HEADERS", "Refined", "refine", "status_rule"]

_SHOULD_RETRY = "x-should-retry"
_REMAINING = "x-ratelimit-remaining"
_AMZN_TYPE = "x-amzn-errortype"
REFINE_HEADERS = frozenset(
    {
        _SHOULD_RETRY,
        _REMAINING,
        _AMZN_TYPE,
        "date",
        "content-type",
        "x-amz-retry-after",
        "ratelimit",
        "ratelimit-reset",
        "x-ratelimit-reset",
        "x-ratelimit-reset-after",
    }
)
"""Header names (lower case) the refinements read, besides the Retry-After family."""


_REFERENCE_HINTS = frozenset({401, 422})
"""Statuses whose hints the reference documents: a refinement keeps their code within a class."""


class Refined(NamedTuple):
    """The refined reading of a failed response."""

    code: Code
    quota: bool
    retry_after: float | None
    quote: str | None  # text to quote instead of the body (problem+json), or None
    reason: Reason | None = None  # the rule that changed the code or its wording, if one did


def status_rule(status: int, layers: tuple[RuleSet, ...], host: str | None) -> Rule | None:
    """The user's status rule for this status and host (SPEC A.11), nearest scope first."""
    for layer in layers:
        for rule in layer.statuses.get(status, ()):
            if rule.host is None or (host is not None and _host_matches(rule.host, host)):
                return rule
    return None


def _host_matches(pattern: str, host: str) -> bool:
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def _header_rule(
    status: int, code: Code, view: HeaderView, retry_after: float | None
) -> Reason | None:
    """The header rule that makes a failure of another class transient, if one applies."""
    if status in (400, 403):
        # r-ratelimit-headers: a 400/403 that carries rate-limit state is a rate limit
        if retry_after is not None:
            return reason("r-ratelimit-headers", "a Retry-After", code)
        remaining = view.get(_REMAINING)
        if remaining is not None and remaining.strip(" \t") == "0":
            return reason("r-ratelimit-headers", "X-RateLimit-Remaining: 0", code)
    elif status in _WAIT_RULES and retry_after is not None:
        return reason(_WAIT_RULES[status], f"a wait of {retry_after:g} s", code)
    return None


_WAIT_RULES = {
    # the server says when the identical request will pass
    409: "r-conflict-retry-after",
    # RFC 9110 15.5.14: a Retry-After says the refusal is temporary, not for ever
    413: "r-too-large-retry-after",
}
"""Statuses whose Retry-After makes the failure UNAVAILABLE (SPEC 11.6), by rule."""


def refine(  # noqa: PLR0917 - internal, called positionally on the hot path
    status: int,
    code: Code,
    body: object,
    view: HeaderView,
    retry_after: float | None,
    now: Clock,
    layers: tuple[RuleSet, ...] = (),
    quota: bool = False,
) -> Refined:
    """Apply SPEC Annex A to a failed response whose table code is ``code``.

    ``retry_after`` is what the Retry-After family said (SPEC 5), measured against the
    response's Date header; ``layers`` are the user rule sets in force; ``quota`` is true
    when a user status rule already chose the quota wording. Never raises (a failure keeps
    the table's reading).
    """
    table, family, user_quota = code, retry_after, quota
    try:
        content_type = view.get("content-type") or ""
        signals = read_signals(body, "problem+json" in content_type.lower())
        plain: str | None = None
        if signals is NO_SIGNALS:
            # User phrases and general evidence read unstructured text as one message. Four
            # bytes a code point at most: enough bytes for the window, and no more decoded.
            text = body_text(body, 4 * PLAIN_WINDOW)
            plain = text[0][:PLAIN_WINDOW] if text is not None else None
        amzn = view.get(_AMZN_TYPE)
        header_identifier = amzn.partition(":")[0] if amzn is not None else None
        verdict = http_verdict(
            status, signals, header_identifier, retry_after, layers, table=code, plain_text=plain
        )
        if status == 429 and verdict is not None and not verdict.quota:
            verdict = None  # a 429 is a rate limit by definition; only an exhausted quota differs
        moved = False  # whether a body rule (SPEC A.3-A.9) already moved the code
        why: Reason | None = None  # None: the status row (or the user's status rule) stands
        if verdict is not None and verdict.code.class_ is not code.class_ and moves_alone(verdict):
            why = verdict.reason(code)
            code, quota, moved = verdict.code, verdict.quota, True
        elif verdict is not None and verdict.quota and not quota and code is Code.UNAUTHORIZED:
            why = verdict.reason(code)
            quota, moved = True, True  # same class, but the hint must say billing/quota
        elif (
            verdict is not None
            and not verdict.general
            and not verdict.generic
            and verdict.code is not code
            and status not in _REFERENCE_HINTS
        ):
            # Same class, sharper code: a 400's ResourceNotFoundException is NOT_FOUND, a 503's
            # SlowDown RATE_LIMITED (its window then gives the delay). Specific structure only:
            # not a generic identifier (a 404 whose error.status is INVALID_ARGUMENT stays), not
            # general evidence.
            why = verdict.reason(code)
            code, quota, moved = verdict.code, verdict.quota, True
        if code.class_ is not Class.TRANSIENT and not moved:
            header_reason = _header_rule(status, code, view, retry_after)
            if header_reason is not None:
                why = header_reason
                code = Code.UNAVAILABLE if status in _WAIT_RULES else Code.RATE_LIMITED
                quota = False
        if code.retryable and retry_after is None:
            retry_after = delay_after(
                view, signals.retry_delay, now, rate_limited=code is Code.RATE_LIMITED
            )
        before, delay = code, retry_after
        code, quota, retry_after = long_wait(code, quota, retry_after)
        if code is not before:
            why = reason("r-long-wait", f"a wait of {delay:g} s", before)
        advice = view.get(_SHOULD_RETRY)
        if advice is not None:  # r-should-retry: the server's explicit advice has the last word
            advice = advice.strip(" \t").lower()
            if advice == "true" and not code.retryable:
                why = reason("r-should-retry", "x-should-retry: true", code)
                code, quota = Code.UNAVAILABLE, False
                if retry_after is None:
                    retry_after = delay_after(view, signals.retry_delay, now, rate_limited=False)
            elif advice == "false" and code.retryable:
                why = reason("r-should-retry", "x-should-retry: false", code)
                code, quota = Code.UNKNOWN, False
        return Refined(code, quota, retry_after if code.retryable else None, signals.problem, why)
    except Exception:
        return Refined(table, user_quota, family if table.retryable else None, None)
