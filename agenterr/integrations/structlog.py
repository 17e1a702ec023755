"""An Outcome as flat event fields, for structlog (or any logger taking key/value pairs).

::

    import structlog
    from agenterr.integrations.structlog import outcome_fields

    log = structlog.get_logger()
    out = get_rate("EUR")  # a @classified_tool in Outcome mode
    if out.failed:
        log.warning("tool_failed", **outcome_fields(out, tool="get_rate"))

gives ``tool="get_rate" code="RATE_LIMITED" class="transient" retryable=True
retry_after_seconds=7.0 status=429 hint="…"``. The values are plain ``str``, ``bool``,
``float``, ``int`` or ``None``, so every renderer (JSON, logfmt, the console) prints them.
The hint is the Outcome's ``llm_hint``, already cleaned and redacted by agenterr (SPEC N12);
the exception is not included. Needs nothing but agenterr: structlog is what it is shaped for.
"""

from __future__ import annotations

from typing import Any

from .. import Outcome

__all__ = ["outcome_fields"]


def outcome_fields(
    outcome: Outcome[Any], tool: str | None = None, *, hint: bool = True
) -> dict[str, str | bool | float | int | None]:
    """The Outcome as flat event fields: ``tool``, ``ok``, ``code``, ``class``, ``retryable``,
    ``retry_after_seconds``, ``status``, ``reason`` (the rule of the failure's
    :class:`~agenterr.Reason`), ``reason_evidence``, ``replaced`` (the code the rule
    replaced) and (unless ``hint=False``) ``hint``; each reason field is ``None`` when there
    is none (a success).

    ``code`` and ``class`` are ``None`` for a success; ``status`` is ``None`` when there was
    no HTTP status, as is ``retry_after_seconds`` when the server gave no Retry-After.
    """
    if not isinstance(outcome, Outcome):
        raise TypeError(f"outcome_fields takes an agenterr Outcome, got {outcome!r}")
    fields: dict[str, str | bool | float | int | None] = {
        "tool": tool,
        "ok": outcome.ok,
        "code": None if outcome.code is None else outcome.code.value,
        "class": None if outcome.class_ is None else outcome.class_.value,
        "retryable": outcome.retryable,
        "retry_after_seconds": outcome.retry_after,
        "status": outcome.status or None,
    }
    why = outcome.reason
    fields["reason"] = None if why is None else why.rule
    fields["reason_evidence"] = None if why is None else why.evidence or None
    fields["replaced"] = None if why is None or why.replaced is None else why.replaced.value
    if hint:
        fields["hint"] = outcome.llm_hint
    return fields
