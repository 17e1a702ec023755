"""agenterr: classify AI-agent tool-call failures into retry, re-prompt or escalate.

A tool call's HTTP status, body, headers or transport exception becomes one
:class:`Outcome` with a :class:`Code`, its :class:`Class` of reaction, a hint to paste into
the model's context, and the server's Retry-After. Pure, stdlib-only, never raises.
"""

from __future__ import annotations

import typing as _typing

from ._classify import (
    code_for_status,
    from_response,
    from_status,
    schema_invalid,
    succeeded,
)
from ._outcome import Failure, Outcome, Success
from ._reason import Reason
from ._retry_after import RETRY_AFTER_CEILING, parse_retry_after, retry_after_from_headers
from ._rules import Rule, RuleSet, add_rules, remove_rules
from ._taxonomy import Class, Code, Meta, codes
from ._tool_result import tool_result_text
from ._transport import classify, from_error
from .errors import (
    AgentToolError,
    AuthToolError,
    IndeterminateToolError,
    SelfCorrectableToolError,
    TransientToolError,
    error_for,
)

__all__ = [
    "RETRY_AFTER_CEILING",
    "AgentToolError",
    "AuthToolError",
    "Class",
    "Code",
    "Failure",
    "IndeterminateToolError",
    "Meta",
    "Outcome",
    "Reason",
    "Rule",
    "RuleSet",
    "SelfCorrectableToolError",
    "Success",
    "TransientToolError",
    "add_rules",
    "classified_tool",
    "classify",
    "code_for_status",
    "codes",
    "error_for",
    "from_envelope",
    "from_error",
    "from_response",
    "from_status",
    "parse_retry_after",
    "remove_rules",
    "retry_after_from_headers",
    "schema_invalid",
    "succeeded",
    "tool_result_text",
]

if _typing.TYPE_CHECKING:
    from ._decorator import classified_tool
    from ._envelope import from_envelope

__version__: str  # resolved lazily from the installed metadata by __getattr__


# The decorator needs wrapt (which imports asyncio) and the envelope reader compiles its
# tables: both are loaded on first use, so classifying alone, and the command line, start fast.
def __getattr__(name: str) -> _typing.Any:
    if name == "classified_tool":
        from ._decorator import classified_tool

        globals()["classified_tool"] = classified_tool
        return classified_tool
    if name == "from_envelope":
        from ._envelope import from_envelope

        globals()["from_envelope"] = from_envelope
        return from_envelope
    if name == "__version__":
        from importlib.metadata import version

        return version("agenterr")
    raise AttributeError(f"module 'agenterr' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
