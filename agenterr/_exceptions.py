"""What an exception raised inside a tool means besides transport: control flow, validation,
a bad call.

Libraries are recognised by the class names in an exception's MRO together with the module
that defines them, so nothing here imports pydantic or jsonschema. Transport failures are
``_transport``'s.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Mapping
from types import CodeType, TracebackType
from typing import Any

from ._shared import BoundedCache
from ._transport import package_of
from .errors import AgentToolError

__all__ = [
    "FRAMEWORK_CONTROL_FLOW",
    "binding_problems",
    "entered",
    "passes_through",
    "register_pass_through",
    "validation_problems",
]

# --- a framework's control flow ------------------------------------------------------

# The exceptions a framework reads as an instruction from the tool, not as its failure:
# @classified_tool lets them propagate unchanged. Listed by defining module and qualified
# name and matched anywhere in the exception's MRO (subclasses count), so the table holds
# whether or not the framework, or agenterr's integration for it, has been imported.
# Some frameworks moved a class between releases: each place it has lived is listed.
FRAMEWORK_CONTROL_FLOW: frozenset[tuple[str, str]] = frozenset(
    {
        # Pydantic AI: a retry prompt, a failure for the model to read, a deferred call, a
        # request for approval.
        ("pydantic_ai.exceptions", "ModelRetry"),
        ("pydantic_ai.exceptions", "ToolFailed"),
        ("pydantic_ai.exceptions", "CallDeferred"),
        ("pydantic_ai.exceptions", "ApprovalRequired"),
        # LangChain: the tool's message for the model, delivered by handle_tool_error.
        ("langchain_core.tools.base", "ToolException"),
        ("langchain_core.tools", "ToolException"),
        # MCP: a failure the tool anticipated (its message goes to the model), a resource's,
        # and the request that the user complete a URL elicitation first; MCPServer's
        # (2.x) and FastMCP's (1.x).
        ("mcp.server.mcpserver.exceptions", "ToolError"),
        ("mcp.server.mcpserver.exceptions", "ResourceError"),
        ("mcp.server.fastmcp.exceptions", "ToolError"),
        ("mcp.server.fastmcp.exceptions", "ResourceError"),
        ("mcp.shared.exceptions", "UrlElicitationRequiredError"),
        # Celery: self.retry(), Ignore, Reject, and the time limits' signals (billiard's).
        ("celery.exceptions", "Retry"),
        ("celery.exceptions", "Ignore"),
        ("celery.exceptions", "Reject"),
        ("billiard.exceptions", "SoftTimeLimitExceeded"),
        ("billiard.exceptions", "TimeLimitExceeded"),
        # Dramatiq: an actor's own request to be retried, for the Retries middleware.
        ("dramatiq.errors", "Retry"),
        # Temporal: its failures (an ApplicationError the activity raises itself, its
        # CancelledError) are already Temporal's decision.
        ("temporalio.exceptions", "FailureError"),
    }
)
_CONTROL_FLOW_TYPES: BoundedCache[type, bool] = BoundedCache(1024)

_pass_through: tuple[type[Exception], ...] = ()
"""Exception types registered at run time to pass through as well (see below)."""
_registry_lock = threading.Lock()


def register_pass_through(*types: type[Exception]) -> None:
    """Let ``types`` (and their subclasses) propagate out of ``@classified_tool`` unchanged.

    For a type :data:`FRAMEWORK_CONTROL_FLOW` cannot name (one defined at run time, as in
    the tests); the frameworks agenterr integrates are in the table and need no call.
    Registering a type again is a no-op.
    """
    global _pass_through
    for tp in types:
        if not (isinstance(tp, type) and issubclass(tp, Exception)):
            raise TypeError(f"register_pass_through needs Exception subclasses, got {tp!r}")
    with _registry_lock:  # two threads registering at once
        _pass_through = tuple(dict.fromkeys((*_pass_through, *types)))


def passes_through(exc: BaseException) -> bool:
    """Whether a tool's ``exc`` is a framework's control flow to leave alone.

    An ``AgentToolError`` never is, even when it is also one of the framework's types (the
    LangChain ``ToolException`` subclasses): it carries agenterr's own outcome.
    """
    if isinstance(exc, AgentToolError):
        return False
    return _control_flow_type(type(exc)) or isinstance(exc, _pass_through)


def _control_flow_type(tp: type) -> bool:
    try:
        known = _CONTROL_FLOW_TYPES.get(tp)
        if known is not None:
            return known
        verdict = any(
            (getattr(c, "__module__", None), getattr(c, "__qualname__", None))
            in FRAMEWORK_CONTROL_FLOW
            for c in tp.__mro__
        )
        return _CONTROL_FLOW_TYPES.remember(tp, verdict)
    except Exception:  # a hostile (unhashable, unreadable) class: not a framework's
        return False


# --- validation errors -----------------------------------------------------------------


def _location(loc: object) -> str:
    if not isinstance(loc, (tuple, list)):
        return str(loc)
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int) and i:
            out += f"[{part}]"
        else:
            out += f".{part}" if i else str(part)
    return out


def _pydantic(exc: BaseException) -> list[str]:
    try:
        errors = exc.errors(include_url=False, include_input=False)  # type: ignore[attr-defined]
    except TypeError:
        errors = exc.errors()  # type: ignore[attr-defined]
    problems = []
    for error in errors:
        loc = _location(error.get("loc", ()))
        msg = str(error.get("msg", "invalid value"))
        problems.append(f"{loc}: {msg}" if loc else msg)
    return problems


def _jsonschema(exc: BaseException) -> list[str]:
    message = str(getattr(exc, "message", "") or exc)
    path = getattr(exc, "json_path", None)
    if not isinstance(path, str):
        path = "$" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in getattr(exc, "absolute_path", ())
        )
    return [message if path == "$" else f"{path}: {message}"]


def validation_problems(exc: BaseException) -> list[str] | None:
    """One problem per error location of a pydantic or jsonschema ``ValidationError``.

    ``None`` when ``exc`` is neither (or its details cannot be read).
    """
    for cls in type(exc).__mro__:
        if cls.__name__ != "ValidationError":
            continue
        root = package_of(cls)
        try:
            if root in ("pydantic", "pydantic_core") and hasattr(exc, "errors"):
                return _pydantic(exc)
            if root == "jsonschema":
                return _jsonschema(exc)
        except Exception:
            return None
    return None


# --- argument binding ------------------------------------------------------------------

_MAX_DEPTH = 16
"""Frames searched by :func:`entered`."""


def entered(tb: TracebackType | None, code: CodeType | None) -> bool:
    """Whether the traceback passes through a frame running ``code`` (the tool's body)."""
    depth = 0
    while tb is not None and depth < _MAX_DEPTH:
        if tb.tb_frame.f_code is code:
            return True
        tb = tb.tb_next
        depth += 1
    return False


def binding_problems(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> list[str]:
    """Why ``args``/``kwargs`` do not bind to ``signature``; empty when they do."""
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        reason = str(exc)
    else:
        return []
    params = list(signature.parameters.values())
    kinds = inspect.Parameter
    positional = [
        p for p in params if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)
    ]
    by_name = {p.name: p for p in params if p.kind is not kinds.POSITIONAL_ONLY}
    var_positional = any(p.kind is kinds.VAR_POSITIONAL for p in params)
    var_keyword = any(p.kind is kinds.VAR_KEYWORD for p in params)

    problems: list[str] = []
    if len(args) > len(positional) and not var_positional:
        problems.append(
            f"too many positional arguments: got {len(args)}, expected at most {len(positional)}"
        )
    filled = {p.name for p in positional[: len(args)]}
    for name in kwargs:
        param = by_name.get(name)
        if param is None or param.kind is kinds.VAR_KEYWORD:
            if not var_keyword:
                problems.append(f"unexpected argument {name!r}")
        elif name in filled:
            problems.append(f"argument {name!r} given twice")
        else:
            filled.add(name)
    for p in params:
        if (
            p.default is kinds.empty
            and p.kind not in (kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD)
            and p.name not in filled
        ):
            problems.append(f"missing required argument {p.name!r}")
    if not problems:
        problems.append(reason)
    problems.append("expected parameters: " + _describe(params))
    return problems


_ANNOTATION_CAP = 60
"""Characters of one parameter's annotation named in the hint; a long one ends with ``…``."""


def _describe(params: list[inspect.Parameter]) -> str:
    kinds = inspect.Parameter
    parts = []
    for p in params:
        name = p.name + _annotation(p.annotation)
        if p.kind is kinds.VAR_POSITIONAL:
            parts.append(f"*{name}")
        elif p.kind is kinds.VAR_KEYWORD:
            parts.append(f"**{name}")
        elif p.default is kinds.empty:
            parts.append(f"{name} (required)")
        else:
            parts.append(name)
    return ", ".join(parts) if parts else "none"


def _annotation(annotation: object) -> str:
    """``": int"`` for an annotated parameter, so the model can send the right type;
    ``""`` when there is none or it cannot be rendered."""
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, str):  # postponed evaluation keeps the source text
        text = annotation
    elif isinstance(annotation, type):  # the model needs the name, not the module path
        text = annotation.__qualname__
    else:
        try:
            text = inspect.formatannotation(annotation)
        except Exception:
            return ""
    text = " ".join(text.split())
    if not text:
        return ""
    if len(text) > _ANNOTATION_CAP:
        text = text[: _ANNOTATION_CAP - 1] + "…"
    return f": {text}"
