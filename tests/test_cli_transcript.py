"""`agenterr classify` on what people have: `curl -i` transcripts, headers files, envelopes."""

from __future__ import annotations

import http.server
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agenterr import from_envelope, from_status
from agenterr._cli import main
from agenterr._transcript import HEAD_LIMIT, TranscriptError, parse_headers, parse_transcript

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")

RATE_LIMITED_429 = (
    "HTTP/2 429 \r\n"
    "content-type: application/json\r\n"
    "retry-after: 7\r\n"
    "\r\n"
    '{"error": {"message": "slow down"}}'
)


class _Terminal(io.TextIOWrapper):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes, *, terminal: bool = False) -> None:
    kind = _Terminal if terminal else io.TextIOWrapper
    monkeypatch.setattr(sys, "stdin", kind(io.BytesIO(data)))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["classify", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out)


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as info:
        main(["classify", *argv])
    out, err = capsys.readouterr()
    assert info.value.code == 2 and out == "" and "Traceback" not in err
    assert err.startswith("usage: agenterr classify")
    return err


# --- the transcript parser -------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\r\n", "\n"], ids=["crlf", "lf"])
@pytest.mark.parametrize(
    "preamble",
    [
        "",
        "HTTP/1.1 100 Continue\r\n\r\n",
        "HTTP/1.1 200 Connection established\r\nProxy-agent: squid\r\n\r\n",
        "HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n",
        "HTTP/1.1 302 Found\r\nLocation: /next\r\nRetry-After: 99\r\n\r\n",  # curl -iL
    ],
    ids=["plain", "continue", "proxy", "proxy-continue", "redirect"],
)
def test_the_final_response_is_read(newline: str, preamble: str) -> None:
    """Interim, proxy and redirect heads are skipped; CRLF and LF both end lines."""
    text = (preamble + RATE_LIMITED_429).replace("\r\n", newline)
    transcript = parse_transcript(text.encode())
    assert transcript.status == 429
    assert transcript.headers == [("content-type", "application/json"), ("retry-after", "7")]
    assert transcript.body == b'{"error": {"message": "slow down"}}'


@pytest.mark.parametrize(
    ("status_line", "status"),
    [
        ("HTTP/1.1 201 Created", 201),
        ("HTTP/1.0 404 Not Found", 404),
        ("HTTP/2 503", 503),
        ("HTTP/2 503 ", 503),
        ("HTTP/3 429", 429),
    ],
)
def test_status_lines(status_line: str, status: int) -> None:
    assert parse_transcript(f"{status_line}\r\nA: b\r\n\r\n".encode()).status == status


def test_body_bytes_are_kept_as_they_are() -> None:
    """The body is everything after the blank line, line endings and blank lines included."""
    body = b"line one\r\n\r\nline three \xff\r\n"
    assert parse_transcript(b"HTTP/1.1 500 x\r\n\r\n" + body).body == body


def test_leading_blank_lines_a_bom_and_no_body() -> None:
    transcript = parse_transcript(b"\xef\xbb\xbf\r\n\nHTTP/1.1 204 No Content\r\nX: 1")
    assert (transcript.status, transcript.headers, transcript.body) == (204, [("X", "1")], b"")


def test_folded_header_lines_continue_the_field() -> None:
    transcript = parse_transcript(b"HTTP/1.1 503 x\nWarning: one\n  two\nRetry-After: 3\n\n")
    assert transcript.headers == [("Warning", "one two"), ("Retry-After", "3")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"", "line 1: expected an HTTP status line"),
        (b"<html>oops</html>", "line 1: expected an HTTP status line such as 'HTTP/1.1 200 OK'"),
        (b"HTTP/1.1 20 OK\r\n\r\n", "expected an HTTP status line"),
        (b"HTTP/1.1 429 x\r\nRetry-After 7\r\n\r\n", "line 2: expected a header 'Name: value'"),
        (b"HTTP/1.1 429 x\r\nBad Name: 7\r\n\r\n", "line 2: expected a header"),
        (b"HTTP/1.1 429 x\r\n" + b"X: y\r\n" * HEAD_LIMIT, f"exceed {HEAD_LIMIT} bytes"),
    ],
    ids=["empty", "html", "short-status", "no-colon", "space-in-name", "huge-head"],
)
def test_not_a_transcript(text: bytes, message: str) -> None:
    with pytest.raises(TranscriptError, match=re.escape(message)):
        parse_transcript(text)


def test_headers_file_forms() -> None:
    """Plain header lines (blank lines allowed), or what `curl -D FILE` writes."""
    assert parse_headers(b"Retry-After: 7\n\nX-Request-Id: a\n") == (
        None,
        [("Retry-After", "7"), ("X-Request-Id", "a")],
    )
    written_by_curl = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/2 503\r\nretry-after: 4\r\n\r\n"
    assert parse_headers(written_by_curl) == (503, [("retry-after", "4")])
    with pytest.raises(TranscriptError, match="text after the headers"):
        parse_headers(b"HTTP/2 503\r\n\r\n{}")


# --- the command ---------------------------------------------------------------------------


def test_acceptance_curl_i_of_a_429_with_retry_after_7(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A `curl -i` transcript of a 429 with `Retry-After: 7`: RATE_LIMITED, 7 seconds."""
    path = tmp_path / "transcript.txt"
    path.write_bytes(RATE_LIMITED_429.encode())
    code, out = run(capsys, "--transcript", str(path))
    assert code == 10
    assert out["code"] == "RATE_LIMITED" and out["retry_after_seconds"] == 7
    assert out["status"] == 429
    expected = from_status(
        429,
        b'{"error": {"message": "slow down"}}',
        headers=[("content-type", "application/json"), ("retry-after", "7")],
    )
    assert out == expected.to_dict()


@pytest.mark.parametrize(
    "argv",
    [["--transcript", "-"], [], ["--body", "-"]],
    ids=["transcript-stdin", "bare-in-a-pipe", "body-stdin-without-status"],
)
def test_a_piped_transcript_just_works(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """`curl -i URL | agenterr classify` (with or without `--transcript -`, or `--body -`
    and no status): a 201 is a success, not UNKNOWN, and a 429 waits its Retry-After."""
    _stdin(monkeypatch, b"HTTP/1.1 201 Created\r\nLocation: /o/1\r\n\r\n{}")
    assert run(capsys, *argv) == (0, {"ok": True, "retryable": False})
    _stdin(monkeypatch, RATE_LIMITED_429.encode())
    code, out = run(capsys, *argv)
    assert (code, out["code"], out["retry_after_seconds"]) == (10, "RATE_LIMITED", 7)


def test_a_body_with_a_status_is_not_read_as_a_transcript(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --status the body is the body, whatever it starts with."""
    _stdin(monkeypatch, b"HTTP/1.1 201 Created\r\n\r\n")
    code, out = run(capsys, "--status", "400", "--body", "-")
    assert code == 11 and out["llm_hint"].endswith("The API said: HTTP/1.1 201 Created")


def test_bare_classify_at_a_terminal_or_on_empty_input_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, RATE_LIMITED_429.encode(), terminal=True)
    assert "nothing to classify" in usage_error(capsys)
    _stdin(monkeypatch, b" \n")
    assert "nothing to classify" in usage_error(capsys)


def test_header_flags_and_files_join_the_transcript_headers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A --header comes first, so it wins over the same header in the transcript."""
    _stdin(monkeypatch, RATE_LIMITED_429.encode())
    _, out = run(capsys, "--transcript", "-", "--header", "Retry-After: 2")
    assert out["retry_after_seconds"] == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--transcript", "-", "--status", "200"], "--transcript holds the status"),
        (["--transcript", "-", "--error", "timeout"], "drop --error"),
        (["--transcript", "t", "--body", "x"], "not allowed with"),
        (["--jsonl", "--transcript", "-"], "--jsonl reads every request"),
        (["--jsonl", "--envelope"], "--jsonl reads every request"),
        (["--jsonl", "--headers-file", "h"], "--jsonl reads every request"),
        (["--envelope", "--error", "timeout"], "--envelope reads a response's body"),
        (["--headers-file", "-", "--body", "-"], "standard input already holds the body"),
        (["--transcript", "/nonexistent/t"], "--transcript '/nonexistent/t': No such file"),
        (["--headers-file", "/nonexistent/h"], "--headers-file '/nonexistent/h': No such file"),
    ],
)
def test_transcript_usage_errors(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    _stdin(monkeypatch, RATE_LIMITED_429.encode())
    assert message in usage_error(capsys, *argv)


def test_a_bad_transcript_names_its_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, b"HTTP/1.1 429 x\r\nRetry-After 7\r\n\r\n")
    err = usage_error(capsys, "--transcript", "-")
    assert "--transcript -: line 2: expected a header 'Name: value', got 'Retry-After 7'" in err
    _stdin(monkeypatch, b"garbage\n")
    err = usage_error(capsys)
    assert "standard input (read as a 'curl -i' transcript): line 1: expected an HTTP" in err


def test_headers_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A headers file gives the headers, and the status when `curl -D` wrote it."""
    plain = tmp_path / "plain.txt"
    plain.write_text("Retry-After: 9\nContent-Type: text/plain\n", encoding="utf-8")
    code, out = run(capsys, "--status", "503", "--headers-file", str(plain))
    assert (code, out["code"], out["retry_after_seconds"]) == (10, "UNAVAILABLE", 9)
    dumped = tmp_path / "dumped.txt"  # curl -s -D dumped.txt -o body.json URL
    dumped.write_bytes(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/2 429\r\nretry-after: 7\r\n\r\n")
    body = tmp_path / "body.json"
    body.write_text('{"error": "slow down"}', encoding="utf-8")
    code, out = run(capsys, "--headers-file", str(dumped), "--body-file", str(body))
    assert (code, out["code"], out["retry_after_seconds"]) == (10, "RATE_LIMITED", 7)
    assert "The API said: " in out["llm_hint"] and "slow down" in out["llm_hint"]
    code, out = run(capsys, "--headers-file", str(dumped), "--status", "200")  # --status wins
    assert code == 0 and out["ok"]
    code, out = run(
        capsys, "--headers-file", str(dumped), "--header", "Retry-After: 1"
    )  # --header wins
    assert out["retry_after_seconds"] == 1


def test_a_headers_file_without_a_status_is_nothing_to_classify(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("Retry-After: 9\n", encoding="utf-8")
    _stdin(monkeypatch, b"", terminal=True)
    assert "nothing to classify" in usage_error(capsys, "--headers-file", str(plain))


JSONRPC_ERROR = '{"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad id"}}'
GRAPHQL_ERROR = (
    '{"data": null, "errors": [{"message": "slow down", "extensions": {"code": "RATE_LIMITED"}}]}'
)


@pytest.mark.parametrize(
    ("argv", "stdin", "want"),
    [
        (["--body", JSONRPC_ERROR], b"", (11, from_envelope(JSONRPC_ERROR))),
        (["--status", "200", "--body", JSONRPC_ERROR], b"", (11, from_envelope(JSONRPC_ERROR))),
        (
            ["--transcript", "-"],
            b"HTTP/1.1 200 OK\r\nRetry-After: 4\r\n\r\n" + GRAPHQL_ERROR.encode(),
            (10, from_envelope(GRAPHQL_ERROR, headers={"Retry-After": "4"})),
        ),
        (["--body", '{"jsonrpc": "2.0", "id": 1, "result": {}}'], b"", (0, from_status(200))),
        (
            ["--transcript", "-"],
            b"HTTP/1.1 503 x\r\n\r\n" + JSONRPC_ERROR.encode(),
            (10, from_status(503, JSONRPC_ERROR)),
        ),
    ],
    ids=["jsonrpc-body", "jsonrpc-200", "graphql-transcript", "jsonrpc-result", "not-2xx"],
)
def test_envelope(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    stdin: bytes,
    want: tuple[int, Any],
) -> None:
    """--envelope: an error in a 2xx body is the failure from_envelope reads there."""
    _stdin(monkeypatch, stdin)
    assert run(capsys, *argv, "--envelope") == (want[0], want[1].to_dict())


def test_without_envelope_a_200_jsonrpc_error_is_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--status", "200", "--body", JSONRPC_ERROR) == (
        0,
        from_status(200).to_dict(),
    )


def test_a_body_file_is_read_as_far_as_the_library_looks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A JSON body past the 8 KiB quote window but under the parse limit is parsed whole,
    as the library parses it (its error code, after the padding, decides)."""
    body = json.dumps({"pad": "y" * 20_000, "error": {"code": "insufficient_quota"}}).encode()
    path = tmp_path / "body.json"
    path.write_bytes(body)
    code, out = run(capsys, "--status", "429", "--body-file", str(path))
    assert out == from_status(429, body).to_dict()
    assert out["code"] == "UNAUTHORIZED" and code == 12


# --- progress of a long --jsonl run --------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.3
        return self.now


@pytest.mark.parametrize("terminal", [True, False])
def test_jsonl_progress_only_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    """Lines and rate on stderr when it is a terminal (the answers going to a file); nothing
    in a pipe or a log."""
    import agenterr._cli as cli

    monkeypatch.setattr(cli, "_CHUNK", 64)  # many reads, so many batches
    monkeypatch.setattr(cli.time, "monotonic", _Clock())
    _stdin(monkeypatch, b'{"status": 503}\n' * 200)
    stderr = (_Terminal if terminal else io.TextIOWrapper)(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(["classify", "--jsonl"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 200
    stderr.flush()
    shown = stderr.buffer.getvalue().decode()  # type: ignore[attr-defined]
    if not terminal:
        assert shown == ""
        return
    updates = shown.split("\r")[1:]
    assert len(updates) > 2
    assert re.fullmatch(r"agenterr: 200 lines, [\d,]+ lines/s\x1b\[K\n", updates[-1])
    assert all(
        re.fullmatch(r"agenterr: [\d,]+ lines, [\d,]+ lines/s\x1b\[K", u) for u in updates[:-1]
    )


def test_no_jsonl_progress_among_answers_on_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers shown on the terminal are their own progress: stderr stays quiet."""
    import agenterr._cli as cli

    monkeypatch.setattr(cli, "_CHUNK", 64)
    monkeypatch.setattr(cli.time, "monotonic", _Clock())
    _stdin(monkeypatch, b'{"status": 503}\n' * 50)
    stdout = _Terminal(io.BytesIO(), encoding="utf-8")
    stderr = _Terminal(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(["classify", "--jsonl"]) == 0
    stdout.flush()
    stderr.flush()
    assert len(stdout.buffer.getvalue().splitlines()) == 50  # type: ignore[attr-defined]
    assert stderr.buffer.getvalue() == b""  # type: ignore[attr-defined]


# --- the README's recipe, with the real curl -------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"error": {"message": "slow down"}}'
        self.send_response(429)
        self.send_header("Retry-After", "7")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/forecast"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _readme_curl_recipe() -> str:
    blocks = [b for b in re.findall(r"```bash\n(.*?)```", README, re.S) if "$(curl -si" in b]
    assert len(blocks) == 1, "one README block pipes `curl -si` into agenterr and branches"
    return blocks[0]


@pytest.mark.external
@pytest.mark.skipif(shutil.which("curl") is None or sys.platform == "win32", reason="curl")
def test_readme_curl_recipe(server_url: str, tmp_path: Path) -> None:
    """The README's `curl -si … | agenterr classify` recipe, run against a real 429."""
    env = os.environ | {
        "URL": server_url,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    done = subprocess.run(
        ["bash", "-c", _readme_curl_recipe()],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    branch, _, outcome = done.stdout.strip().partition(" ")
    assert branch == "retry:"
    assert (
        json.loads(outcome)
        == from_status(
            429,
            b'{"error": {"message": "slow down"}}',
            headers={"Retry-After": "7"},
        ).to_dict()
    )


@pytest.mark.external
@pytest.mark.skipif(shutil.which("curl") is None or sys.platform == "win32", reason="curl")
def test_readme_headers_file_recipe(server_url: str, tmp_path: Path) -> None:
    """The README's `curl -D headers.txt -o body.json` recipe, run against a real 429."""
    blocks = [b for b in re.findall(r"```bash\n(.*?)```", README, re.S) if "-D headers.txt" in b]
    assert len(blocks) == 1
    env = os.environ | {
        "URL": server_url,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    done = subprocess.run(
        ["bash", "-c", blocks[0]],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 10, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["code"] == "RATE_LIMITED" and outcome["retry_after_seconds"] == 7


def test_readme_envelope_example(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's --envelope line exits 11 with INVALID_REQUEST; without it, 0."""
    blocks = [b for b in re.findall(r"```bash\n(.*?)```", README, re.S) if "--envelope" in b]
    assert len(blocks) == 1
    argv = shlex.split(blocks[0])
    assert argv[:3] == ["agenterr", "classify", "--envelope"]
    code, out = run(capsys, *argv[2:])
    assert (code, out["code"]) == (11, "INVALID_REQUEST")
    assert run(capsys, "--status", "200", *(a for a in argv[2:] if a != "--envelope")) == (
        0,
        {"ok": True, "retryable": False},
    )
