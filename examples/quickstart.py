"""Quick start: classify a few tool-call results and react by class.

Needs no extra: the standard library and agenterr only.

Runs offline with the standard library only: the "API results" are hand-built urllib
errors, statuses and exceptions, as a tool would see them.
"""

from __future__ import annotations

import io
import urllib.error
from email.message import Message

import agenterr
from agenterr import Class


def react(outcome: agenterr.Outcome[object]) -> str:
    """What an agent loop does with one outcome."""
    if outcome.ok:
        return "done"
    if outcome.retryable:
        wait = f"{outcome.retry_after:g}s" if outcome.retry_after is not None else "backoff"
        return f"retry unchanged after {wait}"
    if outcome.class_ is Class.SELF_CORRECTABLE:
        return "re-prompt the model with:\n" + agenterr.tool_result_text(outcome)
    return f"escalate ({outcome.code})"


def main() -> None:
    url = "https://payments.example.test/v1/refunds"
    headers = Message()
    headers["Retry-After"] = "2"
    rate_limited = urllib.error.HTTPError(url, 429, "Too Many Requests", headers, io.BytesIO())
    results: list[tuple[str, agenterr.Outcome[object]]] = [
        ("201 Created", agenterr.from_status(201)),
        (
            "422 with a message",
            agenterr.from_status(422, b'{"error":"amount must be a positive integer"}'),
        ),
        ("429 with Retry-After", agenterr.from_error(rate_limited)),
        ("read timeout", agenterr.from_error(TimeoutError("The read operation timed out"))),
        ("401 expired token", agenterr.from_status(401, '{"error":"token expired"}')),
        ("bad arguments", agenterr.schema_invalid("at '/amount': must be an integer")),
    ]
    for label, outcome in results:
        print(f"{label:22} {outcome!s:45} -> {react(outcome)}")
    print()
    print("The wire form of the last one:")
    print(results[-1][1].to_json(indent=2))


if __name__ == "__main__":
    main()
