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

# The classes live beside Outcome (``_outcome``): an outcome raises them and they carry one,
# so one module holds both and neither imports the other. This is their public home.
from ._outcome import (
    AgentToolError,
    AuthToolError,
    IndeterminateToolError,
    SelfCorrectableToolError,
    TransientToolError,
    error_for,
)

__all__ = [
    "AgentToolError",
    "AuthToolError",
    "IndeterminateToolError",
    "SelfCorrectableToolError",
    "TransientToolError",
    "error_for",
]
