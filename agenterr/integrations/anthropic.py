"""Anthropic tool results from an Outcome: a Messages API ``tool_result`` block.

A plain dict, so nothing here imports the ``anthropic`` package. The block goes in the
content of the next ``user`` message; its text is :func:`agenterr.tool_result_text` (the
value on success; on failure the directive, the hint's reason and the quoted API text), and
a failure sets ``is_error`` so the model knows the call did not work::

    from agenterr.integrations.anthropic import tool_result_block

    outcome = get_order(**block.input)  # a @classified_tool in Outcome mode
    result = tool_result_block(outcome, block.id, tool=block.name, arguments=block.input)
    messages.append({"role": "user", "content": [result]})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import Outcome
from .openai import tool_result_text

__all__ = ["tool_result_block"]


def tool_result_block(
    outcome: Outcome[Any],
    tool_use_id: str,
    *,
    tool: str | None = None,
    arguments: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``{"type": "tool_result", ...}`` content block answering ``tool_use_id``.

    ``tool_use_id`` is the ``id`` of the model's ``tool_use`` block. ``is_error`` is
    ``True`` on a failure and left out on success, where the API's default (false) applies.
    Pass the block's ``name`` as ``tool`` and its ``input`` as ``arguments`` and a failure's
    text names the tool and the argument the API objected to.
    """
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": tool_result_text(outcome, tool=tool, arguments=arguments),
    }
    if outcome.failed:
        block["is_error"] = True
    return block
