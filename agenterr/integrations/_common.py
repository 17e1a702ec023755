"""What several integrations share: reading a raised exception as an Outcome."""

from __future__ import annotations

from typing import Any

from .._outcome import Outcome
from .._transport import from_error, is_transport
from ..errors import AgentToolError

__all__ = ["exception_outcome"]


def exception_outcome(exc: BaseException) -> Outcome[Any] | None:
    """The failed Outcome a raised exception stands for, or ``None`` when it is not one.

    A typed error gives its own outcome; a failed HTTP exchange (httpx, requests, aiohttp,
    SDK errors, network ``OSError``s) is classified. Anything else — a bug in the tool, a
    control signal — is ``None``: ``from_error`` would read it as a transport failure
    (UNAVAILABLE), which would make a bug retryable.
    """
    if isinstance(exc, AgentToolError):
        return exc.outcome
    if isinstance(exc, Exception) and is_transport(exc):
        outcome = from_error(exc)
        return outcome if outcome.failed else None
    return None
