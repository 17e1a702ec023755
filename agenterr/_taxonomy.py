"""The taxonomy: four classes of reaction, eight codes, and their fixed metadata.

Every code belongs to exactly one class; the class is what tells an agent how to react.
The registry below is the single source of truth for that mapping.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Class", "Code", "Meta", "codes"]


class Class(StrEnum):
    """How an agent should react to a failure. Values are the wire strings."""

    TRANSIENT = "transient"
    """Temporary and not caused by the request: retry with backoff, change nothing."""
    SELF_CORRECTABLE = "self_correctable"
    """The arguments are wrong in a fixable way: give the model the hint and resend."""
    AUTH = "auth"
    """Credentials, permissions or billing: a human fixes it; the model must not edit the call."""
    INDETERMINATE = "indeterminate"
    """Could not be classified: escalate instead of retrying blindly."""


_FIXED = frozenset({"class_", "retryable"})
"""Attributes of a code set once, from the registry below, and never again."""


class Code(StrEnum):
    """A stable, machine-readable failure code. Values are the wire strings."""

    SCHEMA_INVALID = "SCHEMA_INVALID"
    INVALID_REQUEST = "INVALID_REQUEST"
    NOT_FOUND = "NOT_FOUND"
    UNAUTHORIZED = "UNAUTHORIZED"
    RATE_LIMITED = "RATE_LIMITED"
    TIMEOUT = "TIMEOUT"
    UNAVAILABLE = "UNAVAILABLE"
    UNKNOWN = "UNKNOWN"

    # Plain attributes, set once below from the registry: the classifiers read them on
    # every call, and an attribute costs a fraction of a property's lookup.
    class_: Class
    """The reaction class this code belongs to."""
    retryable: bool
    """True for the transient class only."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FIXED and name in self.__dict__:
            raise AttributeError(f"{name}: a code's metadata is fixed")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in _FIXED:
            raise AttributeError(f"{name}: a code's metadata is fixed")
        super().__delattr__(name)

    @property
    def meta(self) -> Meta:
        """The fixed metadata of this code."""
        return _REGISTRY[self]

    @classmethod
    def parse(cls, value: object) -> Code:
        """Return the code whose wire string is ``value``, or ``UNKNOWN`` — never raises.

        Use it to read codes written by other implementations or newer versions, where
        an unrecognised string must degrade to the conservative reaction, not an error.
        """
        if isinstance(value, str):
            return _BY_VALUE.get(value, cls.UNKNOWN)
        return cls.UNKNOWN


@dataclass(frozen=True, slots=True)
class Meta:
    """Fixed, human-readable metadata of a :class:`Code`."""

    code: Code
    class_: Class
    retryable: bool
    summary: str
    """One line describing the failure."""
    agent_action: str
    """What the agent or its orchestrator should do about it."""


def _meta(code: Code, class_: Class, summary: str, agent_action: str) -> Meta:
    return Meta(code, class_, class_ is Class.TRANSIENT, summary, agent_action)


# Insertion order is the order codes() promises: self-correctable, auth, transient,
# indeterminate (the reference's grouping).
_REGISTRY: dict[Code, Meta] = {
    m.code: m
    for m in (
        _meta(
            Code.SCHEMA_INVALID,
            Class.SELF_CORRECTABLE,
            "The arguments failed a pre-flight schema check; no call was made.",
            "Give the model the hint listing the problems; it fixes the arguments and resends.",
        ),
        _meta(
            Code.INVALID_REQUEST,
            Class.SELF_CORRECTABLE,
            "The API rejected the request as malformed or semantically invalid.",
            "Give the model the hint with the API's message; it fixes the arguments and resends.",
        ),
        _meta(
            Code.NOT_FOUND,
            Class.SELF_CORRECTABLE,
            "A resource the request refers to does not exist, often an invented identifier.",
            "Give the model the hint; it looks up a real identifier instead of guessing.",
        ),
        _meta(
            Code.UNAUTHORIZED,
            Class.AUTH,
            "Authentication, permission or billing stopped the request; the payload is fine.",
            "Escalate to a human or the orchestrator to fix credentials, scope or billing; "
            "the model must not change the arguments.",
        ),
        _meta(
            Code.RATE_LIMITED,
            Class.TRANSIENT,
            "The API is rate-limiting the caller.",
            "Retry the identical call after the advised delay or with backoff.",
        ),
        _meta(
            Code.TIMEOUT,
            Class.TRANSIENT,
            "No response arrived in time.",
            "Retry the identical call with backoff.",
        ),
        _meta(
            Code.UNAVAILABLE,
            Class.TRANSIENT,
            "The API or the network to it is temporarily unavailable.",
            "Retry the identical call with backoff.",
        ),
        _meta(
            Code.UNKNOWN,
            Class.INDETERMINATE,
            "The failure could not be classified.",
            "Escalate to a human; do not retry blindly or let the model guess new arguments.",
        ),
    )
}

for _code, _entry in _REGISTRY.items():
    _code.class_ = _entry.class_
    _code.retryable = _entry.retryable
del _code, _entry

_BY_VALUE: dict[str, Code] = {c.value: c for c in Code}
_ORDER: tuple[Code, ...] = tuple(_REGISTRY)


def codes() -> tuple[Code, ...]:
    """Every code, grouped self-correctable, auth, transient, indeterminate."""
    return _ORDER


for _cls in (Class, Code, Meta):
    _cls.__module__ = "agenterr"
