"""The ``agenterr`` command: classify from a shell, print the taxonomy, run the vectors.

Exit statuses of ``agenterr classify`` encode the class, so a shell script can branch::

    0 ok · 10 transient · 11 self_correctable · 12 auth · 13 indeterminate · 2 usage error
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from ._classify import classify
from ._hints import SCAN_WINDOW
from ._outcome import Outcome
from ._protocol import (
    ERROR_KINDS,
    iter_jsonl,
    load_vectors,
    make_error,
    outcome_for_request,
    parse_clock,
)
from ._taxonomy import Class, codes

__all__ = ["EXIT_CODES", "main"]

EXIT_CODES: dict[Class | None, int] = {
    None: 0,
    Class.TRANSIENT: 10,
    Class.SELF_CORRECTABLE: 11,
    Class.AUTH: 12,
    Class.INDETERMINATE: 13,
}
"""Exit status of ``agenterr classify`` per class (``None``: success)."""
EXIT_USAGE = 2
EXIT_MISMATCH = 1

JSONL_LINE_LIMIT = 1 << 20
"""Longest request line read by ``classify --jsonl``; longer lines get an error object."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line plus usage, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _read_body(args: argparse.Namespace) -> object:
    # A body longer than the scan window is never looked at past it, so only that much
    # (plus one byte, to know there was more) is read from a file or stdin.
    if args.body_file is not None:
        with open(args.body_file, "rb") as handle:
            return handle.read(SCAN_WINDOW + 1)
    if args.body == "-":
        return sys.stdin.buffer.read(SCAN_WINDOW + 1)
    return args.body


def _headers(raw: Sequence[str], parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    pairs = []
    for item in raw:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            parser.error(f"--header {item!r}: expected 'Name: value'")
        pairs.append((name.strip(), value.strip()))
    return pairs


def _number_or_text(value: str | None) -> float | str | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return value


def _print(outcome: Outcome[Any], pretty: bool, out: TextIO) -> None:
    out.write(outcome.to_json(indent=2 if pretty else None) + "\n")


def _classify_jsonl() -> int:
    out = sys.stdout
    for number, line in iter_jsonl(sys.stdin.buffer, JSONL_LINE_LIMIT):
        if line is None:
            problem = f"longer than {JSONL_LINE_LIMIT} bytes"
        elif not line.strip():
            continue
        else:
            try:
                outcome = outcome_for_request(json.loads(line))
            except (ValueError, RecursionError) as exc:
                problem = str(exc)
            else:
                _print(outcome, False, out)
                out.flush()
                continue
        out.write(json.dumps({"line": number, "error": problem}, ensure_ascii=False) + "\n")
        out.flush()
    return 0


def _cmd_classify(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.jsonl:
        given = [
            name
            for name in ("status", "body", "body_file", "error", "now")
            if getattr(args, name) is not None
        ]
        if given or args.header or args.pretty:
            parser.error("--jsonl reads every request from standard input; drop the other flags")
        return _classify_jsonl()
    status = 0
    if args.status is not None:
        try:
            status = int(args.status)
        except ValueError:
            parser.error(f"--status {args.status!r}: expected an integer")
    try:
        now = parse_clock(_number_or_text(args.now))
        body = _read_body(args)
    except ValueError as exc:
        parser.error(f"--now: {exc}")
    except OSError as exc:
        parser.error(f"--body-file: {exc.strerror or exc}")
    error = None
    if args.error is not None:
        error = make_error({"kind": args.error, "message": args.message or ""})
    outcome = classify(status, body, error, headers=_headers(args.header, parser), now=now)
    _print(outcome, args.pretty, sys.stdout)
    return EXIT_CODES[outcome.class_]


def _cmd_codes(args: argparse.Namespace) -> int:
    if args.format == "json":
        rows = [
            {
                "code": c.value,
                "class": c.class_.value,
                "retryable": c.retryable,
                "summary": c.meta.summary,
                "agent_action": c.meta.agent_action,
            }
            for c in codes()
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print("| Code | Class | Retryable | Summary | Agent action |")
        print("| --- | --- | --- | --- | --- |")
        for c in codes():
            retry = "yes" if c.retryable else "no"
            print(f"| `{c}` | `{c.class_}` | {retry} | {c.meta.summary} | {c.meta.agent_action} |")
    else:
        width = max(len(c) for c in codes())
        for c in codes():
            print(f"{c:<{width}}  {c.class_:<16}  {c.meta.summary}")
    return 0


def _run_command(command: str, requests: list[Any]) -> list[object]:
    """Send every request as a JSON line to ``command``; one parsed answer per line."""
    payload = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    done = subprocess.run(
        shlex.split(command),
        input=payload,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    answers: list[object] = []
    for line in done.stdout.splitlines():
        if line.strip():
            try:
                answers.append(json.loads(line))
            except ValueError:
                answers.append({"unparsable": line})
    return answers


def _matches(vector: dict[str, Any], got: object) -> bool:
    """A vector passes when the answer equals ``expect``, or, for a vector that expects the
    input to be refused, when the answer is an error naming ``expect_error``'s field."""
    if "expect_error" in vector:
        message = got.get("error") if isinstance(got, dict) else None
        return isinstance(message, str) and message.startswith(f"{vector['expect_error']}:")
    return got == vector.get("expect")


def _cmd_vectors(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        vectors = load_vectors(args.path)
    except (OSError, ValueError) as exc:
        parser.error(f"cannot read vectors: {exc}")
    if args.command:
        try:
            answers = _run_command(args.command, [v.get("input") for v in vectors])
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            parser.error(f"--command: {exc}")
    else:
        answers = []
        for vector in vectors:
            try:
                answers.append(outcome_for_request(vector.get("input")).to_dict())
            except ValueError as exc:
                answers.append({"error": str(exc)})
    failed = 0
    for index, vector in enumerate(vectors):
        got = answers[index] if index < len(answers) else None
        if _matches(vector, got):
            if args.verbose:
                print(f"PASS {vector.get('id')}")
            continue
        failed += 1
        expected = vector.get("expect", {"error": f"{vector.get('expect_error')}: …"})
        print(f"FAIL {vector.get('id')} ({vector.get('rule')})")
        print(f"  input:  {json.dumps(vector.get('input'), ensure_ascii=False)}")
        print(f"  expect: {json.dumps(expected, ensure_ascii=False)}")
        print(f"  got:    {json.dumps(got, ensure_ascii=False)}")
    print(f"conformance: {len(vectors) - failed} passed, {failed} failed")
    return EXIT_MISMATCH if failed else 0


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agenterr",
        description="Classify AI-agent tool-call failures: retry, re-prompt, or escalate.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    classify = sub.add_parser(
        "classify",
        help="classify one result (or a JSONL stream) and print the wire JSON",
        description="Exit status: 0 ok, 10 transient, 11 self_correctable, 12 auth, "
        "13 indeterminate, 2 usage error.",
    )
    classify.add_argument("--status", help="the HTTP status (default: 0, none)")
    body = classify.add_mutually_exclusive_group()
    body.add_argument("--body", help="the response body; '-' reads standard input")
    body.add_argument("--body-file", metavar="PATH", help="read the body from a file")
    classify.add_argument(
        "--header", action="append", default=[], metavar="'K: V'", help="a response header"
    )
    classify.add_argument(
        "--error", choices=list(ERROR_KINDS), help="a transport error instead of a response"
    )
    classify.add_argument("--message", help="the transport error's message")
    classify.add_argument("--now", help="the clock for HTTP-date Retry-After (epoch or date)")
    classify.add_argument("--pretty", action="store_true", help="indent the JSON")
    classify.add_argument(
        "--jsonl", action="store_true", help="read one request object per line from stdin"
    )

    codes_cmd = sub.add_parser("codes", help="print the taxonomy")
    codes_cmd.add_argument("--format", choices=["text", "markdown", "json"], default="text")

    demo = sub.add_parser(
        "demo", help="watch agenterr steer an agent through a flaky API (offline, seconds)"
    )
    demo.add_argument("--seed", type=int, help="make the run reproducible")
    demo.add_argument("--no-color", action="store_true", help="plain text (also: NO_COLOR=1)")

    vectors = sub.add_parser(
        "vectors",
        help="run the conformance vectors against this or another implementation",
    )
    vectors.add_argument("path", nargs="?", help="a vectors file (default: the shipped one)")
    vectors.add_argument(
        "--command",
        dest="command_line",
        metavar="CMD",
        help="a program speaking the JSONL protocol of 'classify --jsonl'",
    )
    vectors.add_argument("-v", "--verbose", action="store_true", help="list passing vectors")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`agenterr codes | head`): stop quietly, as Unix tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "classify":
        return _cmd_classify(args, parser)
    if args.command == "codes":
        return _cmd_codes(args)
    if args.command == "demo":
        from ._demo import run_demo

        return run_demo(seed=args.seed, color=False if args.no_color else None)
    args.command = args.command_line
    return _cmd_vectors(args, parser)
