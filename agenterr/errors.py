"""Typed errors, one per reaction class, each carrying the :class:`~agenterr.Outcome`.

::

    Exception
    └── AgentToolError                 .outcome .code .class_ .llm_hint .retry_after .status
        ├── TransientToolError         retry the identical call (RATE_LIMITED, TIMEOUT, UNAVAILABLE)
        ├── SelfCorrectableToolError   re-prompt with .llm_hint (SCHEMA_INVALID, INVALID_REQUEST,
        │                              NOT_FOUND)
        ├── AuthToolError              escalate: credentials, scope or billing (UNAUTHORIZED)
        └── IndeterminateToolError     escalate: unclassified (UNKNOWN)

Catch ``TransientToolError`` to retry (for example with tenacity's
``retry_if_exception_type``); every other subclass means retrying unchanged cannot help.
Errors pickle with their outcome, so they cross process boundaries (Celery, multiprocessing).
"""

from __future__ import annotations

from typing import Any

from ._outcome import Outcome
from ._taxonomy import Class, Code

__all__ = [
    "AgentToolError",
    "AuthToolError",
    "IndeterminateToolError",
    "SelfCorrectableToolError",
    "TransientToolError",
    "error_for",
]


class AgentToolError(Exception):
    """A classified tool-call failure. ``str()`` is the outcome's log form and its hint."""

    outcome: Outcome[Any]

    def __init__(self, outcome: Outcome[Any]) -> None:
        if not isinstance(outcome, Outcome) or outcome.ok:
            raise ValueError("AgentToolError needs a failed Outcome")
        super().__init__(outcome)
        self.outcome = outcome

    @property
    def code(self) -> Code:
        """The failure code (never ``None``: an error is always a failure)."""
        assert self.outcome.code is not None
        return self.outcome.code

    @property
    def class_(self) -> Class:
        """The reaction class."""
        return self.code.class_

    @property
    def llm_hint(self) -> str:
        """The hint to paste into the model's context."""
        return self.outcome.llm_hint

    @property
    def retry_after(self) -> float | None:
        """Server-advised delay in seconds, or ``None``."""
        return self.outcome.retry_after

    @property
    def status(self) -> int:
        """The HTTP status, or 0."""
        return self.outcome.status

    def __str__(self) -> str:
        return f"{self.outcome}: {self.outcome.llm_hint}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.outcome!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.outcome,))


class TransientToolError(AgentToolError):
    """Temporary failure: retry the identical call, honouring :attr:`retry_after`."""


class SelfCorrectableToolError(AgentToolError):
    """The arguments are wrong in a fixable way: give the model :attr:`llm_hint`."""


class AuthToolError(AgentToolError):
    """Credentials, permissions or billing: a human or the orchestrator must act."""


class IndeterminateToolError(AgentToolError):
    """The failure could not be classified: escalate rather than retry blindly."""


_BY_CLASS: dict[Class, type[AgentToolError]] = {
    Class.TRANSIENT: TransientToolError,
    Class.SELF_CORRECTABLE: SelfCorrectableToolError,
    Class.AUTH: AuthToolError,
    Class.INDETERMINATE: IndeterminateToolError,
}


def error_for(outcome: Outcome[Any]) -> AgentToolError:
    """The typed error for a failed outcome (``ValueError`` for an ok one)."""
    if outcome.code is None:
        raise ValueError("error_for needs a failed Outcome")
    return _BY_CLASS[outcome.code.class_](outcome)
