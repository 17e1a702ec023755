"""Reason: which rule decided a failure's code, and what it read (SPEC.md section 8.4)."""

from __future__ import annotations

from typing import NamedTuple

from ._quote import Cleaned, snippet
from ._taxonomy import Code

__all__ = ["EVIDENCE_CAP", "RULES", "Reason", "reason"]

EVIDENCE_CAP = 120
"""Most characters of evidence a reason carries: it quotes an API or an exception, so it is
cleaned and redacted like any quote, and kept short."""


class Reason(NamedTuple):
    """Why a failure got its code: the rule that decided and the evidence it read.

    ``rule`` is one of the identifiers SPEC.md section 8.4 lists (:data:`RULES` here):
    ``"status-table"`` when the status table's row stood, ``"r-quota"`` when an exhausted
    quota in the body moved it, ``"user-rule"`` when one of your rules did,
    ``"idempotent"`` when ``idempotent=False`` escalated a retryable failure, and so on.
    ``evidence`` says what was read, as text fit for a log (``"identifier
    'insufficient_quota'"``, ``"HTTP 429"``, ``"ReadTimeout"``); it is cleaned and redacted.
    ``replaced`` is the code in force before the rule, when the rule changed it (the status
    table's row, for a refinement of it; the retryable code, for an ``idempotent``
    escalation); ``None`` when the rule kept the code or decided it first.
    """

    rule: str
    evidence: str = ""
    replaced: Code | None = None

    def __str__(self) -> str:
        text = self.rule
        if self.evidence:
            text += f": {self.evidence}"
        if self.replaced is not None:
            text += f" (replaced {self.replaced.value})"
        return text

    def to_dict(self) -> dict[str, str]:
        """The wire form (SPEC.md section 8.4): empty members left out."""
        out = {"rule": self.rule}
        if self.evidence:
            out["evidence"] = str(self.evidence)  # the wire holds plain strings
        if self.replaced is not None:
            out["replaced"] = self.replaced.value
        return out


RULES: dict[str, str] = {
    # the status (SPEC 3)
    "status-table": "the status table's row (SPEC 3.2)",
    "user-status": "a user status rule replaced the row (SPEC 11.11)",
    # the refinements of a failed response (SPEC 11)
    "r-quota": "an exhausted quota, budget or billing limit (SPEC 11.3-11.5, 11.12)",
    "r-auth": "credentials or permissions (SPEC 11.3, 11.12)",
    "r-throttled": "a throttle (SPEC 11.3-11.5, 11.12)",
    "r-timeout": "a timeout (SPEC 11.3, 11.12)",
    "r-busy": "a temporary unavailability (SPEC 11.3, 11.12)",
    "r-missing": "a missing resource (SPEC 11.3, 11.12)",
    "r-invalid": "invalid arguments (SPEC 11.3, 11.12)",
    "r-fatal": "a failure no reaction fixes (SPEC 11.3, 11.12)",
    "user-rule": "a user identifier, phrase or field rule (SPEC 11.11)",
    "r-ratelimit-headers": "rate-limit state on a 400 or 403 (SPEC 11.6)",
    "r-conflict-retry-after": "a 409 with a wait (SPEC 11.6)",
    "r-too-large-retry-after": "a 413 with a wait (SPEC 11.6)",
    "r-long-wait": "a wait too long for a retry (SPEC 11.7)",
    "r-should-retry": "the server's x-should-retry advice (SPEC 11.9)",
    # transport exceptions (SPEC 4)
    "error-class": "the exception's class (SPEC 4.2)",
    "errno": "the exception's errno (SPEC 4.2)",
    "foreign-transport": "a transport wording from another runtime (SPEC 4.2)",
    "sdk-credentials": "an SDK's missing or refused credentials (SPEC 4.2)",
    "transport-default": "any other exception of the call (SPEC 4.2)",
    "not-an-error": "not a failed call: a control signal (cancellation, an interrupt) or no "
    "exception at all (SPEC 4.2)",
    # failures inside successful responses (SPEC 12)
    "e-jsonrpc": "a JSON-RPC or MCP protocol error (SPEC 12.3)",
    "e-mcp-tool": "an MCP tool result with isError (SPEC 12.4)",
    "e-ok-false": "an ok: false reply (SPEC 12.5)",
    "e-graphql": "GraphQL errors (SPEC 12.6)",
    "e-grpc": "a grpc-status (SPEC 12.7)",
    "e-event-stream": "an error event in a stream (SPEC 12.8)",
    "e-stream-error": "a stream's error object (SPEC 12.9)",
    "e-relay": "a relayed agenterr outcome (SPEC 12.10)",
    "e-reply": "another reply that reports a failure (SPEC 12.16)",
    # the tool itself (implementation-specific)
    "schema-invalid": "a pre-flight validation listed the problems",
    "binding": "the arguments do not fit the tool's signature",
    "errors-map": "the tool's errors= mapping named the exception",
    "tool-raised": "the tool raised an exception that is not a call failure",
    "idempotent": "idempotent=False escalated a failure that may have taken effect",
    "internal": "an input defeated every guard",
}
"""Every rule a :class:`Reason` may name, with what it stands for."""


def reason(rule: str, evidence: str = "", replaced: Code | None = None) -> Reason:
    """A reason whose evidence quotes untrusted text: it passes the quoting gate, capped."""
    assert rule in RULES, rule
    return Reason(rule, Cleaned(snippet(evidence, EVIDENCE_CAP)) if evidence else "", replaced)


Reason.__module__ = "agenterr"
