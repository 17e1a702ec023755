"""The taxonomy: codes, classes, metadata and their order."""

import pytest

from agenterr import Class, Code, Meta, codes

EXPECTED_CLASS = {
    Code.SCHEMA_INVALID: Class.SELF_CORRECTABLE,
    Code.INVALID_REQUEST: Class.SELF_CORRECTABLE,
    Code.NOT_FOUND: Class.SELF_CORRECTABLE,
    Code.UNAUTHORIZED: Class.AUTH,
    Code.RATE_LIMITED: Class.TRANSIENT,
    Code.TIMEOUT: Class.TRANSIENT,
    Code.UNAVAILABLE: Class.TRANSIENT,
    Code.UNKNOWN: Class.INDETERMINATE,
}


def test_wire_strings() -> None:
    """Codes and classes serialise as the reference's wire strings."""
    assert [c.value for c in Code] == [
        "SCHEMA_INVALID",
        "INVALID_REQUEST",
        "NOT_FOUND",
        "UNAUTHORIZED",
        "RATE_LIMITED",
        "TIMEOUT",
        "UNAVAILABLE",
        "UNKNOWN",
    ]
    assert [c.value for c in Class] == ["transient", "self_correctable", "auth", "indeterminate"]
    assert str(Code.RATE_LIMITED) == "RATE_LIMITED"
    assert f"{Class.AUTH}" == "auth"


@pytest.mark.parametrize(("code", "cls"), EXPECTED_CLASS.items())
def test_every_code_has_one_class(code: Code, cls: Class) -> None:
    """Each code maps to exactly its class; retryable means transient."""
    assert code.class_ is cls
    assert code.retryable is (cls is Class.TRANSIENT)
    meta = code.meta
    assert isinstance(meta, Meta)
    assert (meta.code, meta.class_, meta.retryable) == (code, cls, code.retryable)
    assert meta.summary and meta.agent_action
    assert "\n" not in meta.summary


def test_codes_order() -> None:
    """codes() is grouped self-correctable, auth, transient, indeterminate."""
    assert codes() == (
        Code.SCHEMA_INVALID,
        Code.INVALID_REQUEST,
        Code.NOT_FOUND,
        Code.UNAUTHORIZED,
        Code.RATE_LIMITED,
        Code.TIMEOUT,
        Code.UNAVAILABLE,
        Code.UNKNOWN,
    )
    assert set(codes()) == set(Code)


@pytest.mark.parametrize("raw", ["NOPE", "", "rate_limited", None, 42, b"TIMEOUT"])
def test_unrecognised_code_reads_as_unknown(raw: object) -> None:
    """An unknown code string degrades to UNKNOWN's metadata instead of raising."""
    assert Code.parse(raw) is Code.UNKNOWN
    assert Code.parse(raw).meta == Code.UNKNOWN.meta


def test_parse_known() -> None:
    """Known wire strings parse to their code."""
    for code in Code:
        assert Code.parse(code.value) is code


def test_meta_is_frozen() -> None:
    """Metadata cannot be mutated."""
    with pytest.raises(AttributeError):
        Code.TIMEOUT.meta.summary = "x"  # type: ignore[misc]


def test_public_module_names() -> None:
    """Reprs and tracebacks name the public package."""
    assert Code.__module__ == Class.__module__ == Meta.__module__ == "agenterr"


def test_a_codes_class_and_retryable_are_fixed() -> None:
    """They are plain attributes (read on every classification), set once: neither can be
    reassigned or deleted, and each agrees with the registry."""
    for code in Code:
        assert code.class_ is code.meta.class_ and code.retryable is code.meta.retryable
    with pytest.raises(AttributeError, match="fixed"):
        Code.TIMEOUT.retryable = False  # type: ignore[misc]
    with pytest.raises(AttributeError, match="fixed"):
        del Code.UNKNOWN.class_
    assert Code.TIMEOUT.retryable is True
