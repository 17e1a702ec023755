"""@classified_tool's options are checked when the tool is decorated, and a tool's own
exception mapped with ``errors=`` tells the model what the tool said about it."""

from __future__ import annotations

from typing import Any

import pytest

from agenterr import Code, SelfCorrectableToolError, classified_tool
from agenterr._quote import SNIPPET_CAP

FLAGS = ["raises", "expose_errors", "idempotent", "envelopes"]


def _tool(order_id: str) -> str:
    return order_id


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("value", ["yes", 1, 0, None, "False"])
def test_a_flag_that_is_not_a_bool_is_rejected_at_decoration(flag: str, value: object) -> None:
    """``raises="yes"`` (truthy, silently accepted before) is a TypeError naming the option."""
    options: dict[str, Any] = {flag: value}
    with pytest.raises(TypeError, match=rf"^classified_tool: {flag} must be True or False, got "):
        classified_tool(**options)
    with pytest.raises(TypeError, match=rf"^classified_tool: {flag} "):
        classified_tool(_tool, **options)


@pytest.mark.parametrize("flag", FLAGS)
def test_real_bools_are_accepted(flag: str) -> None:
    for value in (True, False):
        options: dict[str, Any] = {flag: value}
        assert callable(classified_tool(**options)(_tool))


def test_other_bad_options_are_rejected_at_decoration() -> None:
    with pytest.raises(TypeError, match="on_failure must be a callable"):
        classified_tool(on_failure="log it")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="errors must be a mapping"):
        classified_tool(errors=[KeyError])  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="is not an exception type"):
        classified_tool(errors={"KeyError": Code.NOT_FOUND})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"errors\[KeyError\]: expected a Code or a callable"):
        classified_tool(errors={KeyError: "NOT_FOUND"})  # type: ignore[dict-item]


class OrderGone(Exception):
    """The tool's own exception for an order that no longer exists."""


def _order_tool(message: object, code: Code = Code.NOT_FOUND, *, raises: bool = False) -> Any:
    @classified_tool(errors={OrderGone: code}, raises=raises)
    def get_order(order_id: str) -> dict[str, str]:
        raise OrderGone(message)

    return get_order


def test_a_mapped_exception_carries_its_message_into_the_hint() -> None:
    """The tool wrote this message for exactly this case: the model reads it."""
    out = _order_tool("order o-9 was cancelled and purged; list_orders shows live ones")("o-9")
    assert out.code is Code.NOT_FOUND
    assert out.llm_hint.startswith("The API could not find what this call refers to.")
    assert "(no HTTP response)" not in out.llm_hint
    assert out.llm_hint.endswith(
        " The tool said: order o-9 was cancelled and purged; list_orders shows live ones"
    )
    assert isinstance(out.error, OrderGone)


def test_the_message_is_cleaned_and_redacted_like_any_quote() -> None:
    key = "sk-abcdefghijklmnopqrstuvwxyz012345"
    out = _order_tool(f"gone\x1b[31m!\x1b[0m\nretry with\u202e api_key={key}")("o-9")
    assert out.llm_hint.endswith(" The tool said: gone! retry with api_key=[REDACTED]")
    assert key not in out.llm_hint


def test_a_long_message_is_capped() -> None:
    out = _order_tool("x " * 10_000)("o-9")
    said = out.llm_hint.split(" The tool said: ", 1)[1]
    assert len(said) <= SNIPPET_CAP + len("…[truncated]")
    assert said.endswith("…[truncated]")


def test_a_message_that_cannot_be_read_leaves_the_plain_hint() -> None:
    class Hostile(OrderGone):
        def __str__(self) -> str:
            raise RuntimeError("no")

    @classified_tool(errors={OrderGone: Code.NOT_FOUND})
    def get_order(order_id: str) -> None:
        raise Hostile()

    out = get_order("o-9")
    assert out.code is Code.NOT_FOUND and "The tool said" not in out.llm_hint


def test_an_empty_message_leaves_the_plain_hint() -> None:
    out = _order_tool("")("o-9")
    assert out.llm_hint.endswith("and resend with it.")


def test_a_schema_invalid_mapping_lists_the_message() -> None:
    out = _order_tool("order_id must look like o-<digits>", Code.SCHEMA_INVALID)("9")
    assert out.llm_hint.endswith(
        "Fix the following and resend:\n- order_id must look like o-<digits>"
    )


def test_raises_mode_carries_the_message_too() -> None:
    with pytest.raises(SelfCorrectableToolError) as caught:
        _order_tool("order o-9 was purged", raises=True)("o-9")
    assert caught.value.llm_hint.endswith(" The tool said: order o-9 was purged")
