"""The command line: classify, the JSONL stream, codes, vectors, and usage errors."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agenterr import Code, codes, from_status
from agenterr._cli import EXIT_CODES, JSONL_LINE_LIMIT, main
from agenterr._quote import SCAN_WINDOW, TRUNCATED


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "exit_code", "code"),
    [
        (["--status", "200"], 0, None),
        (["--status", "503"], 10, "UNAVAILABLE"),
        (["--status", "422"], 11, "INVALID_REQUEST"),
        (["--status", "401"], 12, "UNAUTHORIZED"),
        (["--status", "302"], 13, "UNKNOWN"),
        (["--error", "timeout"], 10, "TIMEOUT"),
        (["--error", "invalid_url", "--message", "bad port"], 11, "INVALID_REQUEST"),
        (["--status", "0"], 13, "UNKNOWN"),
    ],
)
def test_classify_exit_status_encodes_class(
    capsys: pytest.CaptureFixture[str], argv: list[str], exit_code: int, code: str | None
) -> None:
    """The exit status is 0 for ok and one distinct value per class."""
    status, out, _ = run(capsys, "classify", *argv)
    assert status == exit_code
    assert json.loads(out).get("code") == code


def test_exit_codes_are_distinct() -> None:
    """Every class has its own non-zero exit status, none of them 1 or 2."""
    values = list(EXIT_CODES.values())
    assert len(set(values)) == len(values) == 5
    assert EXIT_CODES[None] == 0 and not {1, 2} & set(values)


def test_classify_matches_library(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI prints exactly the library's wire JSON, compact, one line."""
    _, out, _ = run(
        capsys,
        "classify",
        "--status",
        "429",
        "--header",
        "Retry-After: 3",
        "--header",
        "X-Other:x",
        "--body",
        '{"error":"slow"}',
    )
    expected = from_status(429, '{"error":"slow"}', headers={"Retry-After": "3"})
    assert out == expected.to_json() + "\n"


def test_pretty(capsys: pytest.CaptureFixture[str]) -> None:
    """--pretty indents the same object."""
    _, out, _ = run(capsys, "classify", "--status", "404", "--pretty")
    assert out.startswith("{\n  ") and json.loads(out) == from_status(404).to_dict()


def test_now_as_epoch_and_date(capsys: pytest.CaptureFixture[str]) -> None:
    """--now sets the clock for an HTTP-date Retry-After."""
    date = "Sun, 06 Nov 1994 08:49:37 GMT"
    for now in ("784111770", "Sun, 06 Nov 1994 08:49:30 GMT"):
        _, out, _ = run(
            capsys, "classify", "--status", "503", "--header", f"Retry-After: {date}", "--now", now
        )
        assert json.loads(out)["retry_after_seconds"] == 7


def test_body_file_reads_only_the_window(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A huge body file is read only as far as the scan window."""
    path = tmp_path / "body.txt"
    path.write_bytes(b"x " * (10 * SCAN_WINDOW))
    _, out, _ = run(capsys, "classify", "--status", "400", "--body-file", str(path))
    assert json.loads(out)["llm_hint"].endswith(TRUNCATED)


def test_body_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--body - reads standard input."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"no such charge")))
    _, out, _ = run(capsys, "classify", "--status", "404", "--body", "-")
    assert json.loads(out)["llm_hint"].endswith("The API said: no such charge")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["classify", "--status", "abc"], "--status 'abc': expected an integer"),
        (["classify", "--header", "no colon"], "expected 'Name: value'"),
        (["classify", "--error", "meteor"], "invalid choice"),
        (["classify", "--now", "yesterday"], "--now"),
        (["classify", "--body-file", "/nonexistent/x"], "--body-file"),
        (["classify", "--body", "x", "--body-file", "y"], "not allowed with"),
        (["classify", "--jsonl", "--status", "5"], "--jsonl"),
        (["codes", "--format", "xml"], "invalid choice"),
        (["vectors", "/nonexistent.json"], "cannot read vectors"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    """Bad flags print one message and the usage on stderr and exit 2, no traceback."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert err.startswith("usage: agenterr")
    assert message in err and "Traceback" not in err


def _jsonl(stdin: bytes) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "agenterr", "classify", "--jsonl"],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.external
def test_jsonl_stream() -> None:
    """One outcome per request line; a malformed line gets an error object; blank lines skip."""
    lines = [
        {"status": 503, "headers": {"Retry-After": "2"}},
        "not json",
        {"status": 200},
        "",
        {"error": {"kind": "bogus"}},
        {"schema_invalid": ["missing 'id'"]},
        {"status": 404, "body_base64": "bm8gc3VjaCBpZA=="},
        [1, 2],
    ]
    payload = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    answers = _jsonl(payload.encode())
    assert answers[0]["code"] == "UNAVAILABLE" and answers[0]["retry_after_seconds"] == 2
    assert answers[1]["line"] == 2 and "error" in answers[1]
    assert answers[2] == {"ok": True, "retryable": False}
    assert answers[3]["line"] == 5 and answers[3]["error"].startswith("error.kind:")
    assert answers[4]["code"] == "SCHEMA_INVALID"
    assert answers[5]["llm_hint"].endswith("The API said: no such id")
    assert answers[6] == {"line": 8, "error": "request: must be a JSON object"}
    assert len(answers) == 7


@pytest.mark.external
def test_jsonl_overlong_line_is_reported_and_stream_goes_on() -> None:
    """A line over the limit costs bounded memory, yields an error, and the next line works."""
    huge = b'{"status": 400, "body": "' + b"x" * (JSONL_LINE_LIMIT * 3) + b'"}\n'
    answers = _jsonl(huge + b'{"status": 429}\n')
    assert answers[0] == {"line": 1, "error": f"request: longer than {JSONL_LINE_LIMIT} bytes"}
    assert answers[1]["code"] == "RATE_LIMITED"


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_codes(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    """codes prints every code in the taxonomy's order, in each format."""
    status, out, _ = run(capsys, "codes", "--format", fmt)
    assert status == 0
    positions = [out.index(c.value) for c in codes()]
    assert positions == sorted(positions)
    if fmt == "json":
        rows = json.loads(out)
        assert [r["code"] for r in rows] == [c.value for c in codes()]
        assert rows[4] == {
            "code": "RATE_LIMITED",
            "class": "transient",
            "retryable": True,
            "summary": Code.RATE_LIMITED.meta.summary,
            "agent_action": Code.RATE_LIMITED.meta.agent_action,
        }


def test_vectors_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped vectors all pass against this implementation."""
    status, out, _ = run(capsys, "vectors")
    assert status == 0, out
    assert "0 failed" in out.splitlines()[-1]


def _write_vectors(path: Path, expect_code: str) -> Path:
    vectors = {
        "spec_version": "1.0",
        "vectors": [
            {
                "id": "v1",
                "rule": "status-rules",
                "input": {"status": 404},
                "expect": from_status(404).to_dict() | {"code": expect_code},
            },
            {
                "id": "v2",
                "rule": "status-rules",
                "input": {"status": 200},
                "expect": {"ok": True, "retryable": False},
            },
        ],
    }
    path.write_text(json.dumps(vectors), encoding="utf-8")
    return path


def test_vectors_report_mismatch(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A mismatch is reported with input, expectation and answer, and exits 1."""
    path = _write_vectors(tmp_path / "v.json", "NOT_A_CODE")
    status, out, _ = run(capsys, "vectors", str(path), "-v")
    assert status == 1
    assert "FAIL v1 (status-rules)" in out and "PASS v2" in out
    assert out.splitlines()[-1] == "conformance: 1 passed, 1 failed"


@pytest.mark.external
def test_vectors_against_a_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Another implementation is checked through the JSONL protocol (here: ourselves)."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    command = f"{sys.executable} -m agenterr classify --jsonl"
    status, out, _ = run(capsys, "vectors", str(path), "--command", command)
    assert status == 0, out
    status, out, _ = run(capsys, "vectors", "--command", command)
    assert status == 0, out


def _tag_parts(path: Path, *parts: str) -> Path:
    data = json.loads(path.read_text(encoding="utf-8"))
    for vector, part in zip(data["vectors"], parts, strict=True):
        vector["part"] = part
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.external
def test_vectors_by_part(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--part runs only the chosen parts' vectors (here the failing one is left out), in
    process and through --command, and the summary counts each part."""
    path = _tag_parts(_write_vectors(tmp_path / "v.json", "NOT_A_CODE"), "annex-a", "core")
    status, out, _ = run(capsys, "vectors", str(path))
    assert status == 1
    assert out.splitlines()[-3:] == [
        "part core: 1 passed, 0 failed",
        "part annex-a: 0 passed, 1 failed",
        "conformance: 1 passed, 1 failed",
    ]
    command = f"{sys.executable} -m agenterr classify --jsonl"
    for extra in ([], ["--command", command]):
        status, out, _ = run(capsys, "vectors", str(path), "--part", "core", *extra)
        assert status == 0, out
        assert out.splitlines() == [
            "part core: 1 passed, 0 failed",
            "conformance: 1 passed, 0 failed",
        ]


def test_vectors_part_forms(capsys: pytest.CaptureFixture[str]) -> None:
    """Repeated and comma-separated --part name the same parts; the shipped file has all three."""
    shipped = json.loads(
        (Path(__file__).parent.parent / "spec" / "vectors.json").read_text("utf-8")
    )
    counts = {
        p: sum(v["part"] == p for v in shipped["vectors"]) for p in ("core", "annex-a", "annex-b")
    }
    assert all(counts.values())
    _, core, _ = run(capsys, "vectors", "--part", "core")
    assert core.splitlines()[-1] == f"conformance: {counts['core']} passed, 0 failed"
    _, repeated, _ = run(capsys, "vectors", "--part", "core", "--part", "annex-b")
    _, joined, _ = run(capsys, "vectors", "--part", "annex-b,core")
    assert repeated == joined
    total = counts["core"] + counts["annex-b"]
    assert joined.splitlines() == [
        f"part core: {counts['core']} passed, 0 failed",
        f"part annex-b: {counts['annex-b']} passed, 0 failed",
        f"conformance: {total} passed, 0 failed",
    ]


def test_vectors_part_needs_tagged_vectors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A file written before spec 2.1 has no parts to choose from: a usage error, not 0 run."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    with pytest.raises(SystemExit) as info:
        main(["vectors", str(path), "--part", "core"])
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert "error: --part: vectors[0] has no 'part'" in err


@pytest.mark.external
def test_console_script_installed() -> None:
    """The `agenterr` entry point is installed and answers --help."""
    done = subprocess.run(
        [Path(sys.executable).parent / "agenterr", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "classify" in done.stdout


# --- review fixes: nothing the input, the locale or the port does gives a traceback -------


def _cli(*argv: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "agenterr", *argv],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
        env=os.environ | (env or {}),
    )


def test_jsonl_any_exception_is_that_lines_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only ValueError: whatever a line raises becomes its error object; the stream goes on."""
    from agenterr import _cli

    real = _cli.outcome_for_request

    def flaky(request: Any) -> Any:
        if request.get("boom"):
            raise OverflowError("int too large to convert to float")
        return real(request)

    monkeypatch.setattr(_cli, "outcome_for_request", flaky)
    stdin = b'{"boom": 1}\n{"status": 503}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status, out, _ = run(capsys, "classify", "--jsonl")
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert answers[0] == {"line": 1, "error": "int too large to convert to float"}
    assert answers[1]["code"] == "UNAVAILABLE"


@pytest.mark.external
def test_jsonl_huge_now_is_an_error_object() -> None:
    """A 400-digit ``now`` (OverflowError inside) is that line's error; the stream goes on."""
    answers = _jsonl(b'{"status": 503, "now": ' + b"9" * 400 + b'}\n{"status": 429}\n')
    assert answers[0]["line"] == 1 and answers[0]["error"].startswith("now:")
    assert answers[1]["code"] == "RATE_LIMITED"


def test_lone_surrogate_in_a_hint_does_not_crash_the_writer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hint holding a lone surrogate is written with a replacement character."""
    from agenterr import _cli

    class Bad:
        def to_json(self, indent: int | None = None, explain: bool = False) -> str:
            return json.dumps({"llm_hint": "a\udcffb"}, ensure_ascii=False)

    monkeypatch.setattr(_cli, "outcome_for_request", lambda request: Bad())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}\n{}\n")))
    status, out, _ = run(capsys, "classify", "--jsonl")
    assert status == 0
    assert [json.loads(line)["llm_hint"] for line in out.splitlines()] == ["a?b", "a?b"]


@pytest.mark.external
@pytest.mark.parametrize(
    ("argv", "exit_code"),
    [(["classify", "--status", "503"], 10), (["demo", "--seed", "1", "--no-color"], 0)],
)
def test_output_is_utf8_whatever_the_locale(argv: list[str], exit_code: int) -> None:
    """An ASCII locale does not crash on the em dash: output is UTF-8."""
    done = _cli(*argv, env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C"})
    assert done.stderr == b""
    assert done.returncode == exit_code
    assert "—" in done.stdout.decode("utf-8")


@pytest.mark.external
def test_jsonl_output_is_utf8_in_an_ascii_locale() -> None:
    done = _cli(
        "classify", "--jsonl", stdin=b'{"status": 503}\n', env={"PYTHONIOENCODING": "ascii"}
    )
    assert done.returncode == 0, done.stderr
    assert "—" in json.loads(done.stdout.decode("utf-8"))["llm_hint"]


@pytest.mark.external
@pytest.mark.parametrize(("argv", "exit_code"), [(["--status", "503"], 10), (["--jsonl"], 141)])
def test_broken_pipe_keeps_the_exit_status(argv: list[str], exit_code: int) -> None:
    """A reader that went away is quiet; classify's status still tells the class, the
    stream's is 141 (128 + SIGPIPE), as a shell reports for a filter cut short."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "agenterr", "classify", *argv],
            input=b'{"status": 503}\n' * 3,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.stderr == b""
    assert done.returncode == exit_code


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["classify", "--now", "garbage"], "error: --now: not an HTTP-date\n"),
        (["classify", "--message", "x"], "error: --message needs --error\n"),
        (["vectors", "--command", ""], "error: --command: empty command\n"),
        (["vectors", "--command", "   "], "error: --command: empty command\n"),
        (["vectors", "--command", "'unclosed"], "error: --command: No closing quotation\n"),
        (["vectors", "--timeout", "0"], "error: --timeout: must be a positive"),
        (["vectors", "--part", "annex-c"], "error: --part: 'annex-c' is not one of core,"),
        (["vectors", "--part", "core,"], "error: --part: '' is not one of core,"),
    ],
)
def test_more_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """Each is one line on stderr and exit 2, never a traceback or a silent self-test."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    assert info.value.code == 2 and out == ""
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"vectors": [1]}', "vectors[0]: must be an object"),
        ("[" * 100000, "cannot read vectors"),
        ('{"vectors": [{"expect": {}}]}', "vectors[0]: missing 'input'"),
        ('{"vectors": [{"input": {}}]}', "vectors[0]: missing 'expect'"),
        ("[1, 2]", "expected an object with a 'vectors' list"),
        ("{", "cannot read vectors"),
    ],
    ids=["non-object", "deep", "no-input", "no-expect", "not-an-object", "truncated"],
)
def test_bad_vectors_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    """A malformed vectors file gives one line and exit 2, never a traceback."""
    path = tmp_path / "v.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(["vectors", str(path)])
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert message in err and "Traceback" not in err


def test_bad_vector_input_fails_that_vector(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A 400-digit ``now`` in one vector's input fails that vector; the others still run."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["vectors"][0]["input"]["now"] = 10**400
    path.write_text(json.dumps(data), encoding="utf-8")
    status, out, _ = run(capsys, "vectors", str(path))
    assert status == 1
    assert "FAIL v1" in out and '"error": "now:' in out
    assert out.splitlines()[-1] == "conformance: 1 passed, 1 failed"


def _port(tmp_path: Path, source: str) -> str:
    """A command line running a tiny Python 'port' that answers through classify --jsonl."""
    script = tmp_path / "port.py"
    script.write_text(
        "import subprocess, sys\n"
        "requests = sys.stdin.buffer.read()\n"
        "done = subprocess.run([sys.executable, '-m', 'agenterr', 'classify', '--jsonl'],"
        " input=requests, capture_output=True)\n"
        "lines = done.stdout.splitlines()\n" + source,
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


@pytest.mark.external
def test_port_exit_status_fails_the_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A port that answers right but exits non-zero fails the run; its stderr tail is shown."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    command = _port(
        tmp_path,
        "sys.stdout.buffer.write(b'\\n'.join(lines) + b'\\n')\n"
        "sys.stderr.write('port crashed: segfault in decoder\\n'); sys.exit(139)\n",
    )
    status, out, _ = run(capsys, "vectors", str(path), "--command", command)
    assert status == 1
    assert "--command exited with status 139" in out
    assert "port crashed: segfault in decoder" in out


@pytest.mark.external
def test_port_answering_fewer_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A dropped answer is reported as a count, not as shifted mismatches."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    command = _port(tmp_path, "sys.stdout.buffer.write(lines[0] + b'\\n')\n")
    status, out, _ = run(capsys, "vectors", str(path), "--command", command)
    assert status == 1
    assert "--command answered 1 of 2 requests" in out
    assert "FAIL" not in out


@pytest.mark.external
def test_port_output_is_bounded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More output than the limit stops the port and fails the run with a clear message."""
    from agenterr import _cli

    monkeypatch.setattr(_cli, "COMMAND_OUTPUT_LIMIT", 1 << 16)
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    command = _port(tmp_path, "while True: sys.stdout.buffer.write(b'x' * 65536)\n")
    status, out, _ = run(capsys, "vectors", str(path), "--command", command)
    assert status == 1
    assert f"more than {1 << 16} bytes of output" in out


@pytest.mark.external
def test_port_timeout_is_a_failed_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A port that does not finish within --timeout fails the run (exit 1), not a usage error."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    command = _port(tmp_path, "import time; time.sleep(30)\n")
    status, out, _ = run(capsys, "vectors", str(path), "--command", command, "--timeout", "1")
    assert status == 1
    assert "no complete answer within 1s" in out


@pytest.mark.external
def test_port_non_utf8_output_fails_only_its_vectors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Bytes that are not UTF-8 are decoded with replacement and fail the vector they hit."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    command = _port(
        tmp_path, "sys.stdout.buffer.write(b'{\"ok\": \"\\xff\"}\\n' + lines[1] + b'\\n')\n"
    )
    status, out, _ = run(capsys, "vectors", str(path), "--command", command)
    assert status == 1
    assert "FAIL v1" in out and "\ufffd" in out
    assert out.splitlines()[-1] == "conformance: 1 passed, 1 failed"


@pytest.mark.parametrize("now", [10**400, -(10**400)])
def test_protocol_huge_now_is_a_value_error(now: int) -> None:
    """An integer too large for a float is a ValueError naming ``now``, not an OverflowError."""
    from agenterr._protocol import outcome_for_request, parse_clock

    with pytest.raises(ValueError, match=r"^now: "):
        parse_clock(now)
    with pytest.raises(ValueError, match=r"^now: "):
        outcome_for_request({"status": 503, "now": now})


@pytest.mark.parametrize(
    "request_",
    [
        {"status": 400, "\x1b[31mpassword=hunter2\u202e": 1},
        {"envelope": {"ok": False}, "api_key=hunter2\x07": 1},
        {"error": {"kind": "timeout", "token=ghp_abcdefghijklmnopqrstuvwxyz0123\n": 1}},
        {"status": 400, "x" * 100_000: 1},
    ],
)
def test_jsonl_error_objects_pass_the_gate(
    request_: dict[str, Any], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A field name quoted in an error object is cleaned, redacted and capped like API text."""
    stdin = json.dumps(request_).encode() + b"\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status, out, _ = run(capsys, "classify", "--jsonl")
    (answer,) = [json.loads(line) for line in out.splitlines()]
    message = answer["error"]
    assert status == 0 and answer["line"] == 1
    assert message.endswith(("unknown field", "not allowed with envelope"))
    assert "hunter2" not in message and "ghp_" not in message
    assert message.isprintable() and "\u202e" not in message
    assert len(message) < 200


@pytest.mark.parametrize(
    "line",
    [
        b'{"status": 503, "body": "caf\xc3\xa9"}',
        b'{"status": 400, "body": "\xff\xfe broken"}',
        b'{"status": 400, "body": "\\ud800 lone"}',
        b"{",
        b'{\x00"',
        b'["status"]',
    ],
)
def test_a_jsonl_line_is_read_as_json_loads_reads_bytes(line: bytes) -> None:
    """The command decodes a line that starts with "{" itself; the answer is the one
    json.loads of the raw bytes gives (an outcome, or an error object naming the problem)."""
    from agenterr._cli import answer_line
    from agenterr._protocol import outcome_for_request
    from agenterr._quote import SNIPPET_CAP, clean

    try:
        request = json.loads(line)
    except ValueError as exc:
        problem = f"request: not JSON ({exc})"
    else:
        try:
            expected = outcome_for_request(request).to_json()
        except Exception as exc:
            problem = str(exc)
        else:
            assert answer_line(1, line) == expected
            return
    expected = json.dumps({"line": 1, "error": clean(problem, SNIPPET_CAP)}, ensure_ascii=False)
    assert answer_line(1, line) == expected


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (b"not json", "request"),
        (b"\xff\xfe\x00", "request"),
        (b'{"status": 400,', "request"),
        (b'{"wire": {"ok": "x"}}', "ok"),
        (b'{"wire": 5}', "outcome"),
        (b'{"status": 429, "headers": 5}', "headers"),
        (b'{"schema_invalid": 5}', "schema_invalid"),
        (b'{"envelope": 1, "zzz": 2}', "zzz"),
        (b'{"error": {"kind": "nope"}}', "error.kind"),
        (b'{"error": {"kind": "http_status", "status": 503, "headers": 5}}', "error.headers"),
        (b'{"status": 503, "now": "yesterday"}', "now"),
        (b"[" * 100_000, "request"),
    ],
)
def test_a_rejected_request_names_its_field(line: bytes, field: str) -> None:
    """SPEC 9.4: the answer to a request that cannot be evaluated is an error object whose
    message starts with the field that failed and a colon; ``request`` for a line that is
    no JSON value at all."""
    from agenterr._cli import answer_line

    answer = json.loads(answer_line(7, line) or "null")
    assert answer["line"] == 7
    assert answer["error"].startswith(f"{field}: "), answer


def test_an_overlong_line_is_a_request_error(capsys: pytest.CaptureFixture[str]) -> None:
    """SPEC 9.4: a line over the limit is answered with a ``request:`` error, in its place."""
    from agenterr._cli import answer_line

    answer = json.loads(answer_line(3, None) or "null")
    assert answer == {"line": 3, "error": f"request: longer than {JSONL_LINE_LIMIT} bytes"}


@pytest.mark.parametrize(
    ("got", "expected", "same"),
    [
        ({"ok": True, "retryable": False}, {"ok": True, "retryable": False}, True),
        ({"ok": 1, "retryable": False}, {"ok": True, "retryable": False}, False),
        ({"ok": True, "retryable": 0}, {"ok": True, "retryable": False}, False),
        ({"status": True}, {"status": 1}, False),
        ({"retry_after_seconds": 5.0}, {"retry_after_seconds": 5}, True),
        ({"retry_after_seconds": "5"}, {"retry_after_seconds": 5}, False),
        ({"ok": True, "retryable": False, "x": None}, {"ok": True, "retryable": False}, False),
        ({"a": [1, "b"]}, {"a": [1, "b"]}, True),
        ({"a": [1]}, {"a": [1, 2]}, False),
        ({"a": None}, {"a": None}, True),
        ([], {}, False),
    ],
)
def test_answers_compare_as_json_values(got: object, expected: object, same: bool) -> None:
    """SPEC 9.3/9.4: ``true`` is not ``1`` (Python's == would say it is); a number is a
    number whether written 5 or 5.0."""
    from agenterr._cli import same_json

    assert same_json(got, expected) is same


@pytest.mark.external
def test_a_port_answering_one_for_true_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Through --command, a boolean written as a number fails its vector."""
    path = _write_vectors(tmp_path / "v.json", "NOT_FOUND")
    command = _port(
        tmp_path,
        "import json\n"
        "first = json.loads(lines[0]); first['retryable'] = int(first['retryable'])\n"
        "sys.stdout.write(json.dumps(first) + '\\n'); sys.stdout.flush()\n"
        "sys.stdout.buffer.write(lines[1] + b'\\n')\n",
    )
    status, out, _ = run(capsys, "vectors", str(path), "--command", command)
    assert status == 1, out
    assert "FAIL v1" in out and '"retryable": 0' in out
    assert out.splitlines()[-1] == "conformance: 1 passed, 1 failed"


@pytest.mark.external
def test_a_port_naming_the_rejected_field_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An ``expect_error`` vector passes when the port's error starts with its field."""
    vectors = {
        "spec_version": "3.0",
        "vectors": [
            {"id": "w1", "rule": "wire-reading", "input": {"wire": 5}, "expect_error": "outcome"},
            {"id": "w2", "rule": "wire-reading", "input": {"wire": 5}, "expect_error": "ok"},
        ],
    }
    path = tmp_path / "v.json"
    path.write_text(json.dumps(vectors), encoding="utf-8")
    command = f"{sys.executable} -m agenterr classify --jsonl"
    status, out, _ = run(capsys, "vectors", str(path), "--command", command, "-v")
    assert status == 1
    assert "PASS w1" in out and "FAIL w2" in out
