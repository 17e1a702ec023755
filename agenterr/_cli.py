"""The ``agenterr`` command: classify from a shell, print the taxonomy, run the vectors.

Exit statuses of ``agenterr classify`` encode the class, so a shell script can branch::

    0 ok · 10 transient · 11 self_correctable · 12 auth · 13 indeterminate · 2 usage error

Every command exits 130 without a traceback when interrupted (Ctrl-C), and 141 when its
reader goes away before all its output is written (``agenterr codes | head -1``), as
the shell reports a filter stopped by SIGPIPE; a single ``classify`` keeps its class status.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TextIO

from ._envelope import from_envelope
from ._outcome import Outcome
from ._protocol import (
    ERROR_KINDS,
    load_vectors,
    make_error,
    outcome_for_request,
    parse_clock,
)
from ._quote import SCAN_WINDOW, SNIPPET_CAP, clean
from ._signals import PARSE_LIMIT
from ._taxonomy import Class, codes
from ._transcript import (
    HEAD_LIMIT,
    Transcript,
    TranscriptError,
    looks_like_transcript,
    parse_headers,
    parse_transcript,
)
from ._transport import classify

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
EXIT_INTERRUPTED = 130
"""128 + SIGINT: what a shell reports for a program stopped by Ctrl-C."""
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a shell reports for a filter whose reader went away (``yes | head``)."""

JSONL_LINE_LIMIT = 1 << 20
"""Longest request line read by ``classify --jsonl``; longer lines get an error object."""
COMMAND_OUTPUT_LIMIT = 64 << 20
"""Most bytes of standard output ``vectors --command`` accepts from the program under test."""
STDERR_TAIL = 4096
"""Bytes of the tested program's standard error kept to show when it fails."""
PARTS = ("core", "annex-a", "annex-b")
"""The parts of SPEC.md a vector's ``part`` names, in the order a port implements them."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line plus usage, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("agenterr")
        except PackageNotFoundError:  # run from a source tree that was never installed
            text = "unknown (not installed)"
        sys.stdout.write(f"agenterr {text}\n")
        parser.exit(0)


def _command_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The sub-parser of command ``name``: its usage is the one a usage error shows."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found = action.choices.get(name)
            if isinstance(found, argparse.ArgumentParser):
                return found
    return parser


BODY_LIMIT = max(SCAN_WINDOW, PARSE_LIMIT) + 1
"""Bytes of a body read from a file or stdin: a body is never looked at past the parse
limit and the quote window, so only that much (plus one byte, to know there was more)."""


def _read_body(args: argparse.Namespace) -> object:
    if args.body_file is not None:
        with open(args.body_file, "rb") as handle:
            # With no --status, what `curl -i` wrote may be read as a transcript.
            return handle.read(BODY_LIMIT + (HEAD_LIMIT if args.status is None else 0))
    if args.body == "-":
        return sys.stdin.buffer.read(BODY_LIMIT + (HEAD_LIMIT if args.status is None else 0))
    return args.body


def _read_source(path: str, limit: int) -> bytes:
    """At most ``limit`` bytes of a file, or of standard input for ``-``."""
    if path == "-":
        return bytes(sys.stdin.buffer.read(limit))
    with open(path, "rb") as handle:
        return handle.read(limit)


def _stdin_is_piped() -> bool:
    """Whether standard input is a pipe or a file rather than a terminal (or closed)."""
    try:
        return sys.stdin is not None and not sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def _os_reason(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


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


def _utf8_streams() -> None:
    """Make standard output and error UTF-8 whatever the locale (hints hold an em dash)."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(encoding="utf-8", errors="backslashreplace")


def _clean(text: str) -> str:
    """``text`` with anything UTF-8 cannot encode (a lone surrogate) replaced by '?'."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _write_line(text: str, out: TextIO) -> None:
    out.write(_clean(text) + "\n")
    out.flush()


def _print(outcome: Outcome[Any], pretty: bool, out: TextIO, explain: bool = False) -> None:
    _write_line(outcome.to_json(indent=2 if pretty else None, explain=explain), out)


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so the exit flush cannot fail."""
    with contextlib.suppress(OSError, ValueError):  # io.UnsupportedOperation is both
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


_CHUNK = 1 << 16
"""Most bytes of standard input ``classify --jsonl`` asks for in one read."""


def request_batches(stream: Any, limit: int) -> Iterator[list[tuple[int, bytes | None]]]:
    """Numbered request lines (without their newline), in batches of those one read of
    ``stream`` completed.

    A line longer than ``limit`` bytes comes as ``None``; its bytes are dropped as they
    arrive, so memory stays bounded by ``limit`` plus one read. A read returns what the
    writer has sent so far, so an interactive writer gets every answer to its lines before
    the next read blocks, while a file or a busy pipe fills whole batches.
    """
    read = getattr(stream, "read1", None) or stream.read
    number = 0
    pending = bytearray()  # the start of a line whose newline has not arrived yet
    skipping = False  # inside an over-long line: drop up to its newline
    while chunk := read(_CHUNK):
        *lines, rest = chunk.split(b"\n")
        batch: list[tuple[int, bytes | None]] = []
        for line in lines:
            number += 1
            if skipping or len(pending) + len(line) > limit:
                batch.append((number, None))
                pending.clear()
                skipping = False
            elif pending:
                pending += line
                batch.append((number, bytes(pending)))
                pending.clear()
            else:
                batch.append((number, line))
        if not skipping:
            if len(pending) + len(rest) > limit:
                pending.clear()
                skipping = True
            else:
                pending += rest
        if batch:
            yield batch
    if skipping or pending:
        yield [(number + 1, None if skipping else bytes(pending))]


def answer_line(number: int, line: bytes | None, explain: bool = False) -> str | None:
    """The JSON text answering one request line (an error object for a bad line), or None
    for a blank line. Nothing one line holds may stop the stream."""
    if line is None:
        problem = f"request: longer than {JSONL_LINE_LIMIT} bytes"
    elif not line or line.isspace():
        return None
    else:
        try:
            # Bytes that start so are UTF-8 to json.loads, surrogates let through: decoded
            # here, that encoding is not sniffed again for every line.
            text: bytes | str = (
                line.decode("utf-8", "surrogatepass")
                if line[:1] == b"{" and line[1:2] != b"\x00"
                else line
            )
            request = json.loads(text)
        except RecursionError:
            problem = "request: nested too deeply"
        except ValueError as exc:  # not JSON, or not UTF-8/16/32
            problem = f"request: not JSON ({exc})"
        else:
            try:
                return outcome_for_request(request).to_json(explain=explain)
            except RecursionError:
                problem = "request: nested too deeply"
            except Exception as exc:
                problem = str(exc) or type(exc).__name__
    # An error message can quote the request (a value, a field name): it passes the gate.
    return json.dumps({"line": number, "error": clean(problem, SNIPPET_CAP)}, ensure_ascii=False)


def _jsonl_writer(out: TextIO) -> Callable[[str], object]:
    """A writer of answer lines to ``out``: a lone surrogate in an answer becomes '?'."""
    if isinstance(out, io.TextIOWrapper):
        try:
            # The stream then encodes as _clean would, without a second pass over each line.
            out.reconfigure(encoding="utf-8", errors="replace")
        except (ValueError, OSError):
            pass
        else:
            return out.write
    return lambda text: out.write(_clean(text))


PROGRESS_INTERVAL = 0.5
"""Seconds between two progress lines of ``classify --jsonl`` on a terminal."""


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


class _Progress:
    """Lines read and their rate, redrawn on one line of standard error when it is a
    terminal and the answers go elsewhere (a file, a pipe); a no-op otherwise, so nothing
    reaches a log file or mixes with answers shown on the same terminal."""

    def __init__(self, stream: TextIO | None, answers: TextIO | None) -> None:
        shown = _is_terminal(stream) and not _is_terminal(answers)
        self._stream = stream if shown else None
        self._start = self._last = time.monotonic()
        self._lines = 0
        self._shown = False

    def add(self, lines: int) -> None:
        if self._stream is None:
            return
        self._lines += lines
        now = time.monotonic()
        if now - self._last >= PROGRESS_INTERVAL:
            self._last = now
            self._show(now)

    def _show(self, now: float) -> None:
        assert self._stream is not None
        rate = self._lines / max(now - self._start, 1e-9)
        with contextlib.suppress(OSError, ValueError):
            self._stream.write(f"\ragenterr: {self._lines:,} lines, {rate:,.0f} lines/s\x1b[K")
            self._stream.flush()
            self._shown = True

    def close(self) -> None:
        """The final count, and the line ended, once anything was shown."""
        if self._stream is not None and self._shown:
            self._show(time.monotonic())
            with contextlib.suppress(OSError, ValueError):
                self._stream.write("\n")
                self._stream.flush()


def _classify_jsonl(explain: bool) -> int:
    out = sys.stdout
    progress = _Progress(sys.stderr, out)
    try:
        write = _jsonl_writer(out)
        for batch in request_batches(sys.stdin.buffer, JSONL_LINE_LIMIT):
            answers = [answer_line(number, line, explain) for number, line in batch]
            # One write and one flush per read, not per line: the answers so far reach the
            # reader before the next read can block.
            write("".join(answer + "\n" for answer in answers if answer is not None))
            out.flush()
            progress.add(len(batch))
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    finally:
        progress.close()
    return 0


_INPUTS = ("status", "body", "body_file", "error", "transcript")
_NOTHING = (
    "nothing to classify: give --status, --body, --body-file, --error, --transcript or --jsonl"
)


def _transcript_of(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Transcript:
    if args.implied:
        flag = "standard input (read as a 'curl -i' transcript)"
    else:
        flag = "--transcript -" if args.transcript == "-" else f"--transcript {args.transcript!r}"
    try:
        data = _read_source(args.transcript, HEAD_LIMIT + BODY_LIMIT)
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
        parser.error(f"{flag}: {_os_reason(exc)}")
    if not data.strip() and args.implied:
        parser.error(_NOTHING)
    try:
        transcript = parse_transcript(data)
    except TranscriptError as exc:
        parser.error(f"{flag}: {exc}")
    return Transcript(transcript.status, transcript.headers, transcript.body[:BODY_LIMIT])


def _headers_file(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> tuple[int | None, list[tuple[str, str]]]:
    if args.headers_file is None:
        return None, []
    flag = f"--headers-file {args.headers_file!r}"
    try:
        data = _read_source(args.headers_file, HEAD_LIMIT + 1)
        if len(data) > HEAD_LIMIT:
            raise TranscriptError(f"longer than {HEAD_LIMIT} bytes")
        return parse_headers(data)
    except (OSError, ValueError) as exc:  # TranscriptError is a ValueError
        parser.error(f"{flag}: {_os_reason(exc)}")


def _check_transcript_flags(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    for name, flag in (("status", "--status"), ("error", "--error")):
        if getattr(args, name) is not None:
            parser.error(f"--transcript holds the status and headers; drop {flag}")


def _response(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    status: int,
    headers: list[tuple[str, str]],
) -> tuple[int, object, list[tuple[str, str]]]:
    """The status, body and headers the flags (or a transcript) give."""
    file_status, file_headers = _headers_file(args, parser)
    args.implied = False
    if all(getattr(args, name) is None for name in _INPUTS) and file_status is None:
        if not _stdin_is_piped() or args.headers_file == "-":
            parser.error(_NOTHING)
        args.transcript, args.implied = "-", True  # `curl -i URL | agenterr classify`
    if args.transcript is not None:
        _check_transcript_flags(args, parser)
    if args.status is None and file_status is not None:
        status = file_status
    # The --header flags come first: the first value of a repeated header wins (SPEC N18).
    headers += file_headers
    body: object
    if args.transcript is not None:
        transcript = _transcript_of(args, parser)
        status, body = transcript.status, transcript.body
        headers += transcript.headers
    else:
        try:
            body = _read_body(args)
        except (OSError, ValueError) as exc:  # ValueError: a path with a NUL byte
            flag = "--body -" if args.body_file is None else f"--body-file {args.body_file!r}"
            parser.error(f"{flag}: {_os_reason(exc)}")
        if status == 0 and args.status is None and isinstance(body, bytes):
            if looks_like_transcript(body):  # `curl -i URL | agenterr classify --body -`
                try:
                    transcript = parse_transcript(body)
                except TranscriptError as exc:
                    flag = "--body -" if args.body_file is None else "--body-file"
                    parser.error(f"{flag}: {exc}")
                status, body = transcript.status, transcript.body[:BODY_LIMIT]
                headers += transcript.headers
            else:
                body = body[:BODY_LIMIT]
    return status, body, headers


def _cmd_classify(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.jsonl:
        given = [
            name
            for name in ("status", "body", "body_file", "error", "now", "transcript")
            if getattr(args, name) is not None
        ]
        if given or args.header or args.pretty or args.headers_file or args.envelope:
            parser.error("--jsonl reads every request from standard input; drop the other flags")
        return _classify_jsonl(args.explain)
    if args.message is not None and args.error is None:
        parser.error("--message needs --error")
    if args.envelope and args.error is not None:
        parser.error("--envelope reads a response's body; drop --error")
    if args.headers_file == "-" and "-" in (args.body, args.transcript):
        parser.error("--headers-file -: standard input already holds the body")
    headers = _headers(args.header, parser)
    status = 0
    if args.status is not None:
        try:
            status = int(args.status)
        except ValueError:
            parser.error(f"--status {args.status!r}: expected an integer")
    try:
        now = parse_clock(_number_or_text(args.now))
    except ValueError as exc:
        parser.error(f"--now: {str(exc).removeprefix('now: ')}")
    status, body, headers = _response(args, parser, status, headers)
    error = None
    if args.error is not None:
        error = make_error({"kind": args.error, "message": args.message or ""})
    if args.envelope and args.status is None and status == 0:
        status = 200  # the body alone: a payload a successful response carried
    outcome = classify(status, body, error, headers=headers, now=now)
    if args.envelope and outcome.ok:
        found = from_envelope(body, headers=headers, now=now)
        if found.failed:
            outcome = found
    try:
        _print(outcome, args.pretty, sys.stdout, args.explain)
    except BrokenPipeError:
        # The reader went away; the class is known, so the exit status still tells it.
        _silence_stdout()
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


class _PortFailure(Exception):
    """The program under ``vectors --command`` could not be checked (one-line reason)."""


def _run_command(argv: list[str], requests: list[Any], timeout: float) -> tuple[str, int, str]:
    """Send every request as a JSON line to ``argv``; its stdout (decoded with replacement),
    exit status and the tail of its stderr. Output is bounded; raises ``_PortFailure``."""
    payload = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests)
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
    chunks: list[bytes] = []
    tail = bytearray()
    too_much = threading.Event()

    def feed() -> None:
        # If the program stops reading, what it answered is still judged.
        with contextlib.suppress(OSError):
            stdin.write(_clean(payload).encode("utf-8"))
        with contextlib.suppress(OSError):
            stdin.close()

    def drain_stdout() -> None:
        total = 0
        while chunk := os.read(stdout.fileno(), 1 << 16):
            total += len(chunk)
            if total > COMMAND_OUTPUT_LIMIT:
                too_much.set()
                proc.kill()
                return
            chunks.append(chunk)

    def drain_stderr() -> None:
        while chunk := os.read(stderr.fileno(), 1 << 16):
            tail.extend(chunk)
            del tail[:-STDERR_TAIL]

    threads = [
        threading.Thread(target=target, daemon=True)
        for target in (feed, drain_stdout, drain_stderr)
    ]
    deadline = time.monotonic() + timeout
    try:
        # Started inside the try: a Ctrl-C that lands while they start still stops the
        # program under test (it is already running).
        for thread in threads:
            thread.start()
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise _PortFailure(f"--command: no complete answer within {timeout:g}s") from None
    except BaseException:  # interrupted (Ctrl-C): the program under test must not outlive us
        proc.kill()
        proc.wait()
        raise
    finally:
        # A grandchild may hold the pipes open; never wait past the deadline (plus a grace).
        for thread in threads:
            if thread.is_alive():
                thread.join(max(deadline - time.monotonic(), 1.0))
        for pipe in (stdin, stdout, stderr):
            with contextlib.suppress(OSError):
                pipe.close()
    if too_much.is_set():
        raise _PortFailure(f"--command: more than {COMMAND_OUTPUT_LIMIT} bytes of output")
    text = b"".join(chunks).decode("utf-8", "replace")
    return text, proc.returncode, tail.decode("utf-8", "replace")


def _parse_answers(text: str) -> list[object]:
    answers: list[object] = []
    for line in text.split("\n"):
        if line.strip():
            try:
                answers.append(json.loads(line))
            except (ValueError, RecursionError):
                answers.append({"unparsable": line})
    return answers


def _own_answer(request: object) -> object:
    try:
        return outcome_for_request(request).to_dict()
    except RecursionError:
        return {"error": "request: nested too deeply"}
    except Exception as exc:  # a bad vector fails on its own; the run goes on
        return {"error": clean(str(exc) or type(exc).__name__, SNIPPET_CAP)}


def _matches(vector: dict[str, Any], got: object) -> bool:
    """A vector passes when the answer equals ``expect``, or, for a vector that expects the
    input to be refused, when the answer is an error naming ``expect_error``'s field."""
    if "expect_error" in vector:
        message = got.get("error") if isinstance(got, dict) else None
        return isinstance(message, str) and message.startswith(f"{vector['expect_error']}:")
    return same_json(got, vector.get("expect"))


def same_json(got: object, expected: object) -> bool:
    """Equality of two JSON values (SPEC 9.3): Python's ``==`` would let ``true`` pass for
    ``1`` and ``1`` for ``true``. Numbers compare by value, as JSON has one number type.
    Recursion follows ``expected``, a vector, so its depth is the vector's."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(got) is type(expected) and got == expected
    if isinstance(expected, dict):
        return (
            isinstance(got, dict)
            and got.keys() == expected.keys()
            and all(same_json(got[key], value) for key, value in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(got) == len(expected)
            and all(same_json(g, e) for g, e in zip(got, expected, strict=True))
        )
    if isinstance(expected, int | float):
        return isinstance(got, int | float) and got == expected
    return type(got) is type(expected) and got == expected


def _command_argv(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    """``--command`` split into arguments ([] without it); empty or unparsable is a usage error."""
    if args.timeout <= 0:
        parser.error("--timeout: must be a positive number of seconds")
    if args.command is None:
        return []
    try:
        argv = shlex.split(args.command)
    except ValueError as exc:
        parser.error(f"--command: {exc}")
    if not argv:
        parser.error("--command: empty command")
    return argv


def _chosen_parts(raw: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """The parts ``--part`` names (repeated or comma-separated), in SPEC order; [] for all."""
    chosen: set[str] = set()
    for value in raw:
        for name in value.split(","):
            if name.strip() not in PARTS:
                parser.error(f"--part: {name.strip()!r} is not one of {', '.join(PARTS)}")
            chosen.add(name.strip())
    return [part for part in PARTS if part in chosen]


def _select(
    vectors: list[dict[str, Any]], parts: list[str], parser: argparse.ArgumentParser
) -> list[dict[str, Any]]:
    if not parts:
        return vectors
    for index, vector in enumerate(vectors):
        if not isinstance(vector.get("part"), str):
            parser.error(f"--part: vectors[{index}] has no 'part' (files before spec 2.1)")
    return [vector for vector in vectors if vector["part"] in parts]


def _part_summary(vectors: list[dict[str, Any]], passed: list[bool]) -> list[str]:
    """One line per part the vectors name, known parts first; [] when none names one."""
    counts: dict[str, list[int]] = {}
    for vector, ok in zip(vectors, passed, strict=True):
        part = vector.get("part")
        if isinstance(part, str):
            counts.setdefault(part, [0, 0])[0 if ok else 1] += 1
    order = [p for p in PARTS if p in counts] + sorted(set(counts) - set(PARTS))
    return [f"part {p}: {counts[p][0]} passed, {counts[p][1]} failed" for p in order]


def _cmd_vectors(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    argv = _command_argv(args, parser)
    parts = _chosen_parts(args.part, parser)
    try:
        vectors = load_vectors(args.path)
    except RecursionError:
        parser.error("cannot read vectors: nested too deeply")
    except (OSError, ValueError) as exc:
        parser.error(f"cannot read vectors: {exc}")
    vectors = _select(vectors, parts, parser)
    if argv:
        try:
            text, returncode, stderr = _run_command(
                argv, [v["input"] for v in vectors], args.timeout
            )
        except _PortFailure as exc:
            print(f"error: {exc}")
            print("conformance: not run")
            return EXIT_MISMATCH
        except OSError as exc:
            parser.error(f"--command: {exc.strerror or exc}")
        answers = _parse_answers(text)
        if returncode != 0:
            print(f"error: --command exited with status {returncode}")
            for line in stderr.rstrip().splitlines()[-10:]:
                print(f"  stderr: {line}")
        if len(answers) != len(vectors):
            if len(answers) < len(vectors):
                print(f"error: --command answered {len(answers)} of {len(vectors)} requests")
            else:
                print(f"error: --command gave {len(answers)} answers to {len(vectors)} requests")
            print("conformance: not run")
            return EXIT_MISMATCH
    else:
        returncode = 0
        answers = [_own_answer(v["input"]) for v in vectors]
    failed = 0
    passed: list[bool] = []
    for vector, got in zip(vectors, answers, strict=True):
        passed.append(_matches(vector, got))
        if passed[-1]:
            if args.verbose:
                print(f"PASS {vector.get('id')}")
            continue
        failed += 1
        expected = vector.get("expect", {"error": f"{vector.get('expect_error')}: …"})
        print(f"FAIL {vector.get('id')} ({vector.get('rule')})")
        print(f"  input:  {json.dumps(vector.get('input'), ensure_ascii=False)}")
        print(f"  expect: {json.dumps(expected, ensure_ascii=False)}")
        print(f"  got:    {json.dumps(got, ensure_ascii=False)}")
    for line in _part_summary(vectors, passed):
        print(line)
    print(f"conformance: {len(vectors) - failed} passed, {failed} failed")
    return EXIT_MISMATCH if failed or returncode != 0 else 0


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agenterr",
        description="Classify AI-agent tool-call failures: retry, re-prompt, or escalate.",
    )
    parser.add_argument("--version", action=_Version)
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
    body.add_argument(
        "--transcript",
        metavar="PATH",
        help="a raw response as 'curl -i' or 'curl -D -' prints it (status line, headers, "
        "blank line, body); '-' reads standard input, as does a bare 'classify' in a pipe",
    )
    classify.add_argument(
        "--header", action="append", default=[], metavar="'K: V'", help="a response header"
    )
    classify.add_argument(
        "--headers-file",
        metavar="PATH",
        help="response headers, one 'Name: value' a line, or what 'curl -D PATH' writes "
        "(its status is used when --status is not given); '-' reads standard input",
    )
    classify.add_argument(
        "--envelope",
        action="store_true",
        help="read a 2xx body as from_envelope does: a JSON-RPC or GraphQL error in it is "
        "a failure (without --status, the body is taken as a 200's)",
    )
    classify.add_argument(
        "--error", choices=list(ERROR_KINDS), help="a transport error instead of a response"
    )
    classify.add_argument("--message", help="the transport error's message")
    classify.add_argument("--now", help="the clock for HTTP-date Retry-After (epoch or date)")
    classify.add_argument("--pretty", action="store_true", help="indent the JSON")
    classify.add_argument(
        "--explain",
        action="store_true",
        help="add the reason: the rule that decided the code and the evidence it read (SPEC 8.4)",
    )
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
    vectors.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long --command may take in all (default: 300)",
    )
    vectors.add_argument(
        "--part",
        action="append",
        default=[],
        metavar="PART",
        help="run only the vectors of these parts of SPEC.md: core, annex-a, annex-b "
        "(repeatable or comma-separated; a port passes core first)",
    )
    vectors.add_argument("-v", "--verbose", action="store_true", help="list passing vectors")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        _utf8_streams()
        status = _main(argv)
        # Written here, not at exit, so a reader that went away is seen while it can be handled.
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (`agenterr codes | head`): stop quietly, as Unix filters do.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    command = _command_parser(parser, args.command)
    if extra:
        # Reported by the command's parser, so its usage (not the top level's) is shown.
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "classify":
        return _cmd_classify(args, command)
    if args.command == "codes":
        return _cmd_codes(args)
    if args.command == "demo":
        from ._demo import run_demo

        return run_demo(seed=args.seed, color=False if args.no_color else None)
    args.command = args.command_line
    return _cmd_vectors(args, command)
