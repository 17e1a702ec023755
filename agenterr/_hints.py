"""The model-facing hints: one template per code, and the builders that fill them.

Quoted API text comes from :mod:`._quote`, the one place untrusted text is cleaned and redacted.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

from ._quote import Cleaned, snippet
from ._taxonomy import Code

__all__ = [
    "MAX_PROBLEMS",
    "PROBLEM_CAP",
    "hint_for",
    "schema_hint",
    "split_quote",
    "where",
]

PROBLEM_CAP = 300
"""Most characters of one schema problem."""
MAX_PROBLEMS = 20
"""Most schema problems listed; the rest are counted."""

# Hint templates. {where} is " (HTTP 503)" or similar, {said} is " The API said: …" or "",
# {wait} is " after at least N seconds" or "". The 401 and 422 wording is the reference's
# documented output and must not change.
_KEEP_ARGS = "NOT a problem with your arguments — do not modify them."
TEMPLATES: dict[Code, str] = {
    Code.INVALID_REQUEST: (
        "The API rejected this call as invalid{where}. Your arguments are wrong in a way you "
        "can fix: correct them to satisfy the API's requirements and resend.{said}"
    ),
    Code.NOT_FOUND: (
        "The API could not find what this call refers to{where}. An identifier, name or path "
        "in your arguments probably does not exist. Do not guess another one: look the real "
        "value up (with another tool, or by asking the user) and resend with it.{said}"
    ),
    Code.UNAUTHORIZED: (
        "The API rejected this call as unauthorized{where}. This is a credentials or "
        "permissions problem, NOT a problem with your arguments — do not modify them. A human "
        "or the orchestrator must fix authentication (an invalid or expired token, or a "
        "missing scope) before retrying.{said}"
    ),
    Code.RATE_LIMITED: (
        "The API is rate-limiting these calls{where}. This is temporary and "
        + _KEEP_ARGS
        + " Retry the identical call{wait}.{said}"
    ),
    Code.TIMEOUT: (
        "The API did not answer in time{where}. This is temporary and "
        + _KEEP_ARGS
        + " Retry the identical call{wait}.{said}"
    ),
    Code.UNAVAILABLE: (
        "The API is temporarily unavailable{where}. This is "
        + _KEEP_ARGS
        + " Retry the identical call{wait}.{said}"
    ),
    Code.UNKNOWN: (
        "This call failed in a way that could not be classified{where}. Do not retry it "
        "blindly and do not invent new arguments: report the failure to the user or the "
        "orchestrator.{said}"
    ),
}
_NO_WAIT = " after a short delay"

# UNAUTHORIZED for an exhausted quota or billing limit (SPEC 11.7): a human must pay, raise
# the quota or wait for the period to end, and the model must not blame its token.
QUOTA_TEMPLATE = (
    "The API refused this call because a quota or billing limit is exhausted{where}. This is "
    "NOT a problem with your arguments — do not modify them, and do not retry: a human or the "
    "orchestrator must add credit, raise the quota or wait for the quota period to reset.{said}"
)


def where(status: int, *, transport: bool = False) -> str:
    """The parenthetical naming what produced the failure."""
    if 100 <= status <= 599:
        return f" (HTTP {status})"
    if transport:
        return " (no HTTP response)"
    return " (no valid HTTP status)"


def wait_phrase(retry_after: float | None) -> str:
    """How long to wait, in whole seconds rounded up, as the transient templates say it."""
    if retry_after is None:
        return _NO_WAIT
    seconds = math.ceil(retry_after)
    if seconds <= 0:
        return " now; the API allows it immediately"
    return f" after at least {seconds} second{'s' if seconds != 1 else ''}"


def hint_for(
    code: Code,
    where_: str,
    quoted: str = "",
    retry_after: float | None = None,
    *,
    quota: bool = False,
) -> Cleaned:
    """The hint for ``code``; ``quoted`` is text already passed through :func:`snippet`.

    ``quota`` selects the billing/quota wording of ``UNAUTHORIZED``.
    """
    if quota and code is Code.UNAUTHORIZED:
        head, _, tail = _QUOTA_PIECES
        return Cleaned("".join((head, where_, tail, _SAID if quoted else "", quoted)))
    if not quoted:
        return _bare_hint(code, where_, retry_after)
    return _format_hint(code, where_, quoted, retry_after)


@functools.lru_cache(maxsize=2048)
def _bare_hint(code: Code, where_: str, retry_after: float | None) -> Cleaned:
    # Hints without a quote repeat endlessly (same code, status and delay): format once.
    return _format_hint(code, where_, "", retry_after)


def _pieces(template: str) -> tuple[str, str | None, str]:
    """A template as the text before {where}, between it and {wait} (None: no wait), and
    up to {said}: the fields always come in that order, and {said} ends every template."""
    head, _, rest = template.partition("{where}")
    middle: str | None = None
    if "{wait}" in rest:
        middle, _, rest = rest.partition("{wait}")
    tail, _, end = rest.partition("{said}")
    assert not end and "{" not in head + (middle or "") + tail, template
    return head, middle, tail


# Filled by concatenation: str.format re-parses a template on every call.
_PIECES = {code: _pieces(template) for code, template in TEMPLATES.items()}
_QUOTA_PIECES = _pieces(QUOTA_TEMPLATE)
_SAID = " The API said: "


def _format_hint(code: Code, where_: str, quoted: str, retry_after: float | None) -> Cleaned:
    pieces = _PIECES.get(code)
    if pieces is None:  # SCHEMA_INVALID has its own builder
        return schema_hint(())
    head, middle, tail = pieces
    said = _SAID if quoted else ""
    # One join: a chain of + copies the growing hint once per piece.
    if middle is None:
        return Cleaned("".join((head, where_, tail, said, quoted)))
    return Cleaned("".join((head, where_, middle, wait_phrase(retry_after), tail, said, quoted)))


def split_quote(hint: str) -> tuple[str, str]:
    """A hint as its guidance and the API's quoted words (``""`` when it quotes nothing).

    The templates end with " The API said: " and the quote, and no template says those
    words before it, so the first occurrence is the boundary even if the quote repeats them.
    """
    guidance, said, quote = hint.partition(_SAID)
    return (guidance, quote) if said else (hint, "")


_SCHEMA_LEAD = "The arguments you generated do not match the required schema."


def schema_hint(problems: Iterable[object]) -> Cleaned:
    """The SCHEMA_INVALID hint: a bulleted list of at most MAX_PROBLEMS cleaned problems."""
    lines: list[str] = []
    extra = 0
    for problem in problems:
        if len(lines) >= MAX_PROBLEMS:
            extra += 1
            continue
        line = snippet(problem, PROBLEM_CAP)
        if line:
            lines.append(line)
    if not lines:
        return Cleaned(f"{_SCHEMA_LEAD} Check them against the tool's parameters and resend.")
    body = "\n".join(f"- {line}" for line in lines)
    if extra:
        body += f"\n- … and {extra} more"
    return Cleaned(f"{_SCHEMA_LEAD} Fix the following and resend:\n{body}")
