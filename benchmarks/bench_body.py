"""Body benchmarks: classifying typical provider error bodies, as ratios to parsing them.

Issue 11 asks for a fast body path, measured as two ratios within one run:

1. **A typical error body.** ``from_status(status, body, headers=headers)`` over a fixed set
   of realistic provider error bodies (each at most 1 KiB, with its status and a few
   headers) against ``json.loads`` of the same bodies: ≤ 10.
2. **The JSONL stream.** ``agenterr classify --jsonl`` over a stream of request lines built
   from the same set, against a loop that only loads and dumps each line: ≤ 5.

Both sides of row 2 run in this process over the same in-memory standard input and write to
a real file (``os.devnull``) through the same kind of text stream, so the comparison is the
per-line cost of the command's real code path (reading, parsing, validating, classifying,
serialising, writing and flushing each answer) without the interpreter start-up, which no
per-line work can amortise away in a short stream and which ``bench_core`` measures apart.

Per-body ratios are reported as informational rows, so the bodies that cost most stand out.

Run ``python benchmarks/run.py`` for every suite, or ``python benchmarks/bench_body.py``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import timeit
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from agenterr import Code, Failure, from_status
from agenterr._cli import main as cli_main
from agenterr._hints import hint_for, where
from agenterr._quote import snippet

__all__ = ["BODIES", "Body", "jsonl_lines", "main"]

ROOT = Path(__file__).resolve().parent.parent

TYPICAL_LIMIT = 12.0
"""A typical provider error body classified within 12× ``json.loads`` (issue 22 redraws issue
11's 10×: plain code first, and the rules grew since)."""
JSONL_LIMIT = 5.0
"""Issue 11: ``classify --jsonl`` within 5× a load-and-dump loop over the same lines."""


class Body(NamedTuple):
    """One provider's error response: who sends it, the status, headers and JSON text."""

    name: str
    status: int
    headers: dict[str, str]
    body: str


def _json(value: object) -> str:
    return json.dumps(value, separators=(", ", ": "))


_DATE = "Thu, 03 Dec 2026 07:00:00 GMT"
_JSON = "application/json"

# Shapes as each provider documents its errors; the values are made up for this benchmark.
BODIES: tuple[Body, ...] = (
    Body(
        "OpenAI 429 tokens per minute",
        429,
        {
            "content-type": _JSON,
            "x-request-id": "req_8f2c1e0b7a9d4c35b6e1f0a2d3c4b5a6",
            "retry-after-ms": "776",
            "x-ratelimit-remaining-tokens": "0",
        },
        _json(
            {
                "error": {
                    "message": "Rate limit reached for gpt-4o in organization org-Ab12Cd34Ef56 "
                    "on tokens per min (TPM): Limit 30000, Used 29876, Requested 912. "
                    "Please try again in 776ms. Visit https://platform.openai.com/account/"
                    "rate-limits to learn more.",
                    "type": "tokens",
                    "param": None,
                    "code": "rate_limit_exceeded",
                }
            }
        ),
    ),
    Body(
        "OpenAI 400 context length",
        400,
        {"content-type": _JSON, "x-request-id": "req_0a1b2c3d4e5f60718293a4b5c6d7e8f9"},
        _json(
            {
                "error": {
                    "message": "This model's maximum context length is 128000 tokens. However, "
                    "your messages resulted in 131072 tokens. Please reduce the length of the "
                    "messages.",
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": "context_length_exceeded",
                }
            }
        ),
    ),
    Body(
        "OpenAI 429 insufficient quota",
        429,
        {"content-type": _JSON, "date": _DATE},
        _json(
            {
                "error": {
                    "message": "You exceeded your current quota, please check your plan and "
                    "billing details.",
                    "type": "insufficient_quota",
                    "param": None,
                    "code": "insufficient_quota",
                }
            }
        ),
    ),
    Body(
        "Anthropic 529 overloaded",
        529,
        {"content-type": _JSON, "request-id": "req_011CQx9bM3nT4vYk2Pq8RsLw"},
        _json(
            {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
                "request_id": "req_011CQx9bM3nT4vYk2Pq8RsLw",
            }
        ),
    ),
    Body(
        "Anthropic 400 invalid request",
        400,
        {"content-type": _JSON, "request-id": "req_011CQxA7uJ2fW8eR5tZ1nHmK"},
        _json(
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "messages.1.content.0.tool_use_id: unexpected tool_use_id found "
                    "in tool_result blocks: toolu_01Xyz. Each tool_result block must have a "
                    "corresponding tool_use block in the previous message.",
                },
            }
        ),
    ),
    Body(
        "Google 429 RESOURCE_EXHAUSTED",
        429,
        {"content-type": "application/json; charset=UTF-8", "date": _DATE},
        _json(
            {
                "error": {
                    "code": 429,
                    "message": "Quota exceeded for quota metric 'Generate Content API requests "
                    "per minute' and limit 'GenerateContent request limit per minute for a "
                    "region' of service 'generativelanguage.googleapis.com'.",
                    "status": "RESOURCE_EXHAUSTED",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "RATE_LIMIT_EXCEEDED",
                            "domain": "googleapis.com",
                            "metadata": {
                                "service": "generativelanguage.googleapis.com",
                                "quota_limit": "GenerateContentRequestsPerMinutePerRegion",
                            },
                        },
                        {
                            "@type": "type.googleapis.com/google.rpc.RetryInfo",
                            "retryDelay": "17s",
                        },
                    ],
                }
            }
        ),
    ),
    Body(
        "Google 403 PERMISSION_DENIED",
        403,
        {"content-type": "application/json; charset=UTF-8"},
        _json(
            {
                "error": {
                    "code": 403,
                    "message": "Permission 'storage.objects.get' denied on resource (or it may "
                    "not exist).",
                    "status": "PERMISSION_DENIED",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "IAM_PERMISSION_DENIED",
                            "domain": "storage.googleapis.com",
                        }
                    ],
                }
            }
        ),
    ),
    Body(
        "AWS JSON 400 ThrottlingException",
        400,
        {
            "content-type": "application/x-amz-json-1.1",
            "x-amzn-requestid": "6c3e1b2a-7f4d-4e8a-9b0c-1d2e3f4a5b6c",
            "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/",
        },
        _json({"__type": "ThrottlingException", "message": "Rate exceeded"}),
    ),
    Body(
        "AWS JSON 400 ValidationException",
        400,
        {
            "content-type": "application/x-amz-json-1.0",
            "x-amzn-requestid": "0f9e8d7c-6b5a-4c3d-2e1f-0a9b8c7d6e5f",
        },
        _json(
            {
                "__type": "com.amazon.coral.validate#ValidationException",
                "message": "1 validation error detected: Value 'x' at 'tableName' failed to "
                "satisfy constraint: Member must have length greater than or equal to 3",
            }
        ),
    ),
    Body(
        "AWS S3 XML 503 SlowDown",
        503,
        {"content-type": "application/xml", "x-amz-request-id": "4442587FB7D0A2F9"},
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
        "<Message>Please reduce your request rate.</Message>"
        "<RequestId>4442587FB7D0A2F9</RequestId>"
        "<HostId>Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7/C1NPcfTWAtRPfTaOFg==</HostId></Error>",
    ),
    Body(
        "Azure 429 TooManyRequests",
        429,
        {
            "content-type": _JSON,
            "x-ms-retry-after-ms": "2000",
            "x-ms-request-id": "3f2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d",
        },
        _json(
            {
                "error": {
                    "code": "TooManyRequests",
                    "message": "Requests to the ChatCompletions_Create Operation under Azure "
                    "OpenAI API version 2024-06-01 have exceeded call rate limit of your "
                    "current pricing tier. Please retry after 2 seconds.",
                }
            }
        ),
    ),
    Body(
        "Stripe 404 resource_missing",
        404,
        {"content-type": _JSON, "request-id": "req_Qx7Lm2Np9Rt4Vw"},
        _json(
            {
                "error": {
                    "code": "resource_missing",
                    "doc_url": "https://stripe.com/docs/error-codes/resource-missing",
                    "message": "No such customer: 'cus_Qx7Lm2Np9Rt4Vw'",
                    "param": "customer",
                    "request_log_url": "https://dashboard.stripe.com/test/logs/req_Qx7Lm2Np9",
                    "type": "invalid_request_error",
                }
            }
        ),
    ),
    Body(
        "Stripe 402 card_declined",
        402,
        {"content-type": _JSON, "request-id": "req_Ab3Cd4Ef5Gh6Ij"},
        _json(
            {
                "error": {
                    "charge": "ch_3PqRsT2eZvKYlo2C0abcdefg",
                    "code": "card_declined",
                    "decline_code": "insufficient_funds",
                    "doc_url": "https://stripe.com/docs/error-codes/card-declined",
                    "message": "Your card has insufficient funds.",
                    "type": "card_error",
                }
            }
        ),
    ),
    Body(
        "Slack 429 ratelimited",
        429,
        {"content-type": "application/json; charset=utf-8", "retry-after": "30"},
        _json({"ok": False, "error": "ratelimited"}),
    ),
    Body(
        "GitHub 403 rate limit",
        403,
        {
            "content-type": "application/json; charset=utf-8",
            "x-ratelimit-limit": "60",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": "1796281200",
            "date": _DATE,
        },
        _json(
            {
                "message": "API rate limit exceeded for 203.0.113.7. (But here's the good "
                "news: Authenticated requests get a higher rate limit. Check out the "
                "documentation for more details.)",
                "documentation_url": "https://docs.github.com/rest/overview/"
                "resources-in-the-rest-api#rate-limiting",
            }
        ),
    ),
    Body(
        "GitHub 422 validation failed",
        422,
        {"content-type": "application/json; charset=utf-8"},
        _json(
            {
                "message": "Validation Failed",
                "errors": [{"resource": "Issue", "field": "title", "code": "missing_field"}],
                "documentation_url": "https://docs.github.com/rest/issues/issues#create-an-issue",
                "status": "422",
            }
        ),
    ),
    Body(
        "JSON-RPC 400 invalid params",
        400,
        {"content-type": _JSON},
        _json(
            {
                "jsonrpc": "2.0",
                "error": {
                    "code": -32602,
                    "message": "Invalid params",
                    "data": {"param": "path", "reason": "expected a string, got null"},
                },
                "id": 7,
            }
        ),
    ),
    Body(
        "problem+json 403 out of credit",
        403,
        {"content-type": "application/problem+json", "content-language": "en"},
        _json(
            {
                "type": "https://example.com/probs/out-of-credit",
                "title": "You do not have enough credit.",
                "status": 403,
                "detail": "Your current balance is 30, but that costs 50.",
                "instance": "/account/12345/msgs/abc",
            }
        ),
    ),
)


def jsonl_lines(count: int) -> bytes:
    """``count`` request lines of SPEC.md §9.2 (compact JSON), cycling through the bodies."""
    requests = [
        json.dumps({"status": b.status, "headers": b.headers, "body": b.body}, ensure_ascii=False)
        for b in BODIES
    ]
    return "".join(requests[i % len(requests)] + "\n" for i in range(count)).encode()


# --- timing (as bench_core: interleaved repeats, the best of each side) -------------------


def _calibrate(timer: timeit.Timer, budget: float) -> int:
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget or number >= 10_000_000:
            return number
        number = max(number * 2, int(number * budget / max(elapsed, 1e-9) * 1.1))


def compare(
    ours: Callable[[], object], theirs: Callable[[], object], *, quick: bool, repeats: int = 9
) -> tuple[float, float]:
    """Best seconds per call of ``ours`` and ``theirs``, interleaved repeat by repeat."""
    budget = 0.002 if quick else 0.05
    repeats = 2 if quick else repeats
    timers = timeit.Timer(ours), timeit.Timer(theirs)
    numbers = [_calibrate(t, budget) for t in timers]
    best = [math.inf, math.inf]
    for _ in range(repeats):
        for i, (timer, number) in enumerate(zip(timers, numbers, strict=True)):
            best[i] = min(best[i], timer.timeit(number) / number)
    return best[0], best[1]


def _row(
    name: str, ours: float, baseline: float, *, limit: float | None, note: str = ""
) -> dict[str, Any]:
    ratio = ours / baseline if baseline > 0 else math.inf
    return {
        "name": name,
        "agenterr_s": ours,
        "baseline_s": baseline,
        "ratio": ratio,
        "target": "info" if limit is None else f"≤ {limit:g}",
        "limit": limit,
        "met": None if limit is None else ratio <= limit,
        "note": note,
    }


# --- 1: a typical body ----------------------------------------------------------------


def _check_bodies() -> None:
    """Both sides answer: every body is valid JSON (or the XML one) and a classified failure."""
    for b in BODIES:
        assert len(b.body.encode()) <= 1024, (b.name, len(b.body.encode()))
        if not b.body.startswith("<"):
            json.loads(b.body)
        outcome = from_status(b.status, b.body, headers=b.headers)
        assert outcome.failed and outcome.llm_hint, (b.name, outcome)


def _as_json(text: str) -> str:
    """What ``json.loads`` parses for ``text``: itself, or for the XML body its text as a
    JSON string literal (one pass over the same characters; XML has no stdlib parser as
    cheap as ``json.loads``)."""
    return text if not text.startswith("<") else json.dumps(text)


def bench_typical(quick: bool) -> list[dict[str, Any]]:
    """Row 1 and the per-body rows: ``from_status`` against ``json.loads`` of each body."""
    _check_bodies()
    cases = [(b.status, b.body, b.headers) for b in BODIES]
    texts = [_as_json(b.body) for b in BODIES]
    loads = json.loads

    def ours() -> None:
        for status, body, headers in cases:
            from_status(status, body, headers=headers)

    def theirs() -> None:
        for text in texts:
            loads(text)

    def floor() -> None:
        # What any classifier that parses the body and quotes it through the cleaning and
        # redaction gate pays, before it reads a signal: the part of row 1 no rule can avoid.
        code = Code.INVALID_REQUEST
        for (status, body, _headers), text in zip(cases, texts, strict=True):
            loads(text)
            Failure(code, hint_for(code, where(status), snippet(body)), None, status, None)

    agenterr_s, baseline_s = compare(ours, theirs, quick=quick)
    floor_s, floor_baseline_s = compare(floor, theirs, quick=quick)
    per_body = []
    for b in BODIES:
        ours_one, theirs_one = compare(
            functools.partial(from_status, b.status, b.body, headers=b.headers),
            functools.partial(json.loads, _as_json(b.body)),
            quick=quick,
            repeats=5,
        )
        per_body.append(
            _row(
                f"{b.name}: from_status vs json.loads ({len(b.body)} chars)",
                ours_one,
                theirs_one,
                limit=None,
            )
        )
    worst = max(per_body, key=lambda r: r["ratio"])
    best = min(per_body, key=lambda r: r["ratio"])
    n = len(BODIES)
    total = _row(
        f"from_status(status, body, headers=…) vs json.loads(body), {n} provider error bodies",
        agenterr_s / n,
        baseline_s / n,
        limit=TYPICAL_LIMIT,
        note=f"mean per body; per body {best['ratio']:.0f}–{worst['ratio']:.0f}× "
        f"(highest: {worst['name'].partition(':')[0]})",
    )
    floor_row = _row(
        "the floor: json.loads + the quoting gate + the hint, no signal read, same bodies",
        floor_s / n,
        floor_baseline_s / n,
        limit=None,
        note="what parsing the body and quoting it cleaned and redacted costs before any "
        "rule runs; row 1 minus this is reading headers and signals and deciding",
    )
    return [total, floor_row, *per_body]


# --- 2: the JSONL stream --------------------------------------------------------------


@contextlib.contextmanager
def _stdio(stdin: bytes, sink: io.BufferedWriter) -> Iterator[None]:
    """Standard input from ``stdin``, standard output to ``sink``, as the command sees them."""
    saved = sys.stdin, sys.stdout
    out = io.TextIOWrapper(sink, encoding="utf-8")
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout = out
    try:
        yield
    finally:
        out.flush()
        out.detach()  # the sink outlives the wrapper: it is reused by the next repeat
        sys.stdin, sys.stdout = saved


def _load_and_dump() -> int:
    """The baseline: read each line, parse it, write it back as JSON (the stream's own
    buffering decides when to write, as for any filter that does not flush per line)."""
    out = sys.stdout
    loads, dumps = json.loads, json.dumps
    for line in sys.stdin.buffer:
        if line.strip():
            out.write(dumps(loads(line)) + "\n")
    return 0


def bench_jsonl(quick: bool) -> list[dict[str, Any]]:
    """Row 2: ``main(["classify", "--jsonl"])`` against a load-and-dump loop, same lines;
    and, for information, against classifying the already parsed requests alone."""
    count = 2 * len(BODIES) if quick else 100 * len(BODIES)
    stdin = jsonl_lines(count)
    requests = [json.loads(line) for line in stdin.splitlines()]
    # Opened once and kept: writes reach the kernel (a real file), not a Python buffer.
    sink = open(os.devnull, "wb")  # noqa: SIM115
    try:
        probe = io.BytesIO()
        with _stdio(stdin, probe):  # type: ignore[arg-type]
            assert cli_main(["classify", "--jsonl"]) == 0
        answers = [json.loads(x) for x in probe.getvalue().splitlines()]
        assert len(answers) == count and all(a.get("ok") is False for a in answers), answers[:3]

        def ours() -> None:
            with _stdio(stdin, sink):
                cli_main(["classify", "--jsonl"])

        def theirs() -> None:
            with _stdio(stdin, sink):
                _load_and_dump()

        def classifier_only() -> None:
            for r in requests:
                from_status(r["status"], r["body"], headers=r["headers"])

        agenterr_s, baseline_s = compare(ours, theirs, quick=quick, repeats=5)
        command_s, classifier_s = compare(ours, classifier_only, quick=quick, repeats=5)
    finally:
        sink.close()
    return [
        _row(
            f"classify --jsonl vs a load-and-dump loop, {count} lines of {len(BODIES)} bodies",
            agenterr_s / count,
            baseline_s / count,
            limit=JSONL_LIMIT,
            note="per line, in-process: the command's main() with stdin from memory and stdout "
            "to /dev/null (its fixed start-up spread over the lines); no interpreter start-up",
        ),
        _row(
            "classify --jsonl vs from_status alone on the same requests, already parsed",
            command_s / count,
            classifier_s / count,
            limit=None,
            note="what the command adds around the classifier: reading, json.loads of the "
            "line, validating the request, to_json, writing",
        ),
    ]


_LOOP = (
    "import json, sys\n"
    "out = sys.stdout\n"
    "for line in sys.stdin.buffer:\n"
    "    if line.strip():\n"
    "        out.write(json.dumps(json.loads(line)) + '\\n')\n"
)


def _process_seconds(argv: list[str], stdin: Path) -> float:
    with stdin.open("rb") as source, open(os.devnull, "wb") as sink:
        start = timeit.default_timer()
        subprocess.run(argv, stdin=source, stdout=sink, cwd=ROOT, check=True)
        return timeit.default_timer() - start


def bench_process(quick: bool) -> list[dict[str, Any]]:
    """For information: the same comparison as whole processes over a file, start-up included."""
    count = 2 * len(BODIES) if quick else 1000 * len(BODIES)
    runs = 1 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "requests.jsonl"
        path.write_bytes(jsonl_lines(count))
        ours = theirs = math.inf
        for _ in range(runs):
            ours = min(
                ours,
                _process_seconds([sys.executable, "-m", "agenterr", "classify", "--jsonl"], path),
            )
            theirs = min(theirs, _process_seconds([sys.executable, "-c", _LOOP], path))
    return [
        _row(
            f"python -m agenterr classify --jsonl < file vs python -c <load-and-dump loop> < file, "
            f"{count} lines",
            ours / count,
            theirs / count,
            limit=None,
            note="per line, whole processes: interpreter and import start-up included "
            "(about 0.1 s, see bench_core row 4); stdout to /dev/null",
        )
    ]


def main(quick: bool = False) -> list[dict[str, Any]]:
    """Run the body benchmarks; ``quick`` uses tiny loop counts and a short stream."""
    return [*bench_typical(quick), *bench_jsonl(quick), *bench_process(quick)]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import render

    quick_run = "--quick" in sys.argv[1:]
    print(render(main(quick=quick_run), quick=quick_run, chart=None))
