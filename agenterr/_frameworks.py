"""The framework trap: an Outcome-mode tool registered directly with an agent framework.

LangChain, OpenAI Agents, Pydantic AI and MCP pass whatever a tool returns on to the model as
a *successful* result. An Outcome-mode ``@classified_tool`` returns its failures as Outcome
objects, so registered directly the model would read ``UNAVAILABLE class=transient`` as the
call's answer, never the hint. Every one of these frameworks asks for the tool's signature
(``inspect.signature``) while it builds the tool's schema, so that is where the mistake is
caught: the Outcome-mode wrapper's ``__signature__`` looks at who is asking, and a
framework's registration code gets a ``TypeError`` naming the adapter to use.

Everyone else (user code, agenterr's own adapters, documentation tools) sees no
``__signature__`` at all, so ``inspect.signature`` goes on to the wrapped function as for any
wrapper. The check walks a bounded number of frames and only runs when a signature is asked
for, never on a call.
"""

from __future__ import annotations

from types import FrameType
from typing import NamedTuple

__all__ = ["FRAMEWORKS", "Framework", "refuse_registration"]


class Framework(NamedTuple):
    """A framework whose tool registration reads the signature, and what to use instead."""

    name: str
    modules: tuple[str, ...]
    """Module names (or package prefixes ending in ``.``) of its registration code."""
    instead: str


FRAMEWORKS = (
    Framework(
        "LangChain",
        ("langchain_core.", "langchain.", "langgraph."),
        "agenterr.integrations.langchain.langchain_tool(fn), or @tool over "
        "@classified_tool(raises=True) with handle_tool_error",
    ),
    Framework(
        "OpenAI Agents",
        ("agents.tool", "agents.function_schema"),
        "function_tool over agenterr.integrations.openai_agents.unwrap_outcome(fn), with "
        "failure_error_function",
    ),
    Framework(
        "Pydantic AI",
        ("pydantic_ai.",),
        "agenterr.integrations.pydantic_ai.model_retry(fn)",
    ),
    Framework(
        "MCP",
        ("mcp.server.",),
        "agenterr.integrations.mcp.for_mcp(fn)",
    ),
)

_DEPTH = 24
"""Frames looked at above the signature request: the frameworks ask from 2 to 6 levels down
their registration call, under ``inspect`` and ``functools``."""


def _matches(module: str, names: tuple[str, ...]) -> bool:
    return any(module.startswith(name) if name.endswith(".") else module == name for name in names)


def refuse_registration(tool: str, asker: FrameType) -> None:
    """Raise ``TypeError`` if the signature of the Outcome-mode tool ``tool`` is being read
    by a framework's registration code (``asker`` is the frame asking); return otherwise.

    The nearest frame that belongs to agenterr or to a framework decides: agenterr's own
    adapters read the signature of the tool they wrap on the framework's behalf, and that is
    what they are for.
    """
    frame: FrameType | None = asker
    for _ in range(_DEPTH):
        if frame is None:
            return
        module = frame.f_globals.get("__name__")
        if isinstance(module, str):
            if module == "agenterr" or module.startswith("agenterr."):
                return
            for framework in FRAMEWORKS:
                if _matches(module, framework.modules):
                    raise TypeError(
                        f"{tool} is an Outcome-mode @classified_tool: {framework.name} would "
                        "hand the model its failed Outcome as a successful result, without "
                        f"the hint. Use {framework.instead}."
                    )
        frame = frame.f_back
