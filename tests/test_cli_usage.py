"""The command line as a newcomer meets it: version, usage errors, interrupts, closed pipes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agenterr._cli import main

README = Path(__file__).resolve().parent.parent / "README.md"
CLASSIFY_USAGE = "usage: agenterr classify "


class _Terminal(io.TextIOWrapper):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    assert info.value.code == 2 and out == "", (out, err)
    assert "Traceback" not in err
    return err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """--version prints the program and its version and exits 0."""
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    out, err = capsys.readouterr()
    assert info.value.code == 0 and err == ""
    assert re.fullmatch(r"agenterr \S.*\n", out), out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["classify", "--stauts", "429"], "unrecognized arguments: --stauts 429"),
        (["classify", "--status", "abc"], "--status 'abc': expected an integer"),
        (["classify", "--header", "Retry-After 3"], "--header 'Retry-After 3': expected"),
        (["classify", "--status", "429", "extra"], "unrecognized arguments: extra"),
        (["classify", "--jsonl", "--pretty"], "--jsonl reads every request"),
    ],
)
def test_classify_usage_errors_show_classify_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """A mistake in classify's flags shows classify's usage, not the top level's, exit 2."""
    err = _usage_error(capsys, argv)
    assert err.startswith(CLASSIFY_USAGE), err
    assert f"agenterr classify: error: {message}" in err


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["codes", "--fromat", "json"], "usage: agenterr codes "),
        (["demo", "--seeds", "1"], "usage: agenterr demo "),
        (["vectors", "--timeout", "0"], "usage: agenterr vectors "),
        (["vectors", "/nonexistent/vectors.json"], "usage: agenterr vectors "),
    ],
)
def test_other_commands_show_their_own_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], usage: str
) -> None:
    assert _usage_error(capsys, argv).startswith(usage)


def test_missing_body_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The error says which file could not be read, and why."""
    missing = tmp_path / "nowhere" / "body.json"
    err = _usage_error(capsys, ["classify", "--status", "400", "--body-file", str(missing)])
    assert f"--body-file {str(missing)!r}: No such file or directory" in err
    err = _usage_error(capsys, ["classify", "--status", "400", "--body-file", str(tmp_path)])
    assert f"--body-file {str(tmp_path)!r}: Is a directory" in err
    err = _usage_error(capsys, ["classify", "--status", "400", "--body-file", "a\0b"])
    assert "--body-file 'a\\x00b': embedded null byte" in err


@pytest.mark.parametrize(
    "argv",
    [[], ["--pretty"], ["--header", "Retry-After: 3"], ["--now", "0"]],
    ids=["bare", "pretty", "header", "now"],
)
def test_classify_without_input_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """Nothing to classify is a mistake (exit 2), not an UNKNOWN outcome (exit 13). (At a
    terminal: in a pipe, standard input is read as a `curl -i` transcript.)"""
    monkeypatch.setattr(sys, "stdin", _Terminal(io.BytesIO(b"")))
    err = _usage_error(capsys, ["classify", *argv])
    assert err.startswith(CLASSIFY_USAGE)
    assert "nothing to classify" in err


def _interruptible() -> None:
    """In the child, before it runs Python: SIGINT at its default, whatever the test run
    inherited. A shell starts a background job with SIGINT ignored, and Python then never
    installs the handler that turns Ctrl-C into KeyboardInterrupt (as intended: such a job
    is not meant to be interrupted), so the command under test would not see it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.external
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_interrupt_exits_130_without_a_traceback() -> None:
    """Ctrl-C while the stream waits for input: exit 130 and nothing on stderr."""
    # The with block closes the pipes whatever happens, so a failure here cannot leak them
    # into an unrelated test as a ResourceWarning.
    with subprocess.Popen(
        [sys.executable, "-m", "agenterr", "classify", "--jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_interruptible,  # noqa: PLW1509 (no threads in this test yet)
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        watchdog = threading.Timer(60, proc.kill)
        watchdog.start()
        try:
            proc.stdin.write(b'{"status": 503}\n')
            proc.stdin.flush()
            line = proc.stdout.readline()
            assert json.loads(line)["code"] == "UNAVAILABLE"  # main() is running
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            watchdog.cancel()
            proc.kill()
            proc.wait()
    assert err == b""
    assert proc.returncode == 130


@pytest.mark.external
@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["classify", "--jsonl"], b'{"status": 503}\n' * 2000),
        (["codes"], b""),
        (["codes", "--format", "json"], b""),
        (["demo", "--seed", "1", "--no-color"], b""),
        (["vectors"], b""),
    ],
    ids=["jsonl", "codes", "codes-json", "demo", "vectors"],
)
def test_closed_pipe_exits_141_quietly(argv: list[str], stdin: bytes) -> None:
    """A reader that went away: no traceback, no 'Exception ignored', exit 128 + SIGPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "agenterr", *argv],
            input=stdin,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.stderr == b""
    assert done.returncode == 141


def _readme_jsonl_example() -> tuple[list[str], list[str]]:
    section = README.read_text(encoding="utf-8").split("### The `classify --jsonl` stream")[1]
    block = section.split("```console\n")[1].split("```")[0]
    requests, _, answers = block.partition("$ agenterr classify --jsonl < requests.jsonl\n")
    request_lines = requests.removeprefix("$ cat requests.jsonl\n").splitlines()
    return request_lines, answers.splitlines()


def test_readme_jsonl_example_is_what_the_command_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's --jsonl example, run: each answer matches ('…' elides part of a hint)."""
    requests, answers = _readme_jsonl_example()
    assert len(requests) == len(answers) >= 4
    stdin = "".join(line + "\n" for line in requests).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    assert main(["classify", "--jsonl"]) == 0
    got = capsys.readouterr().out.splitlines()
    assert len(got) == len(answers)
    for line, shown in zip(got, answers, strict=True):
        pattern = ".*".join(re.escape(part) for part in shown.split("…"))
        assert re.fullmatch(pattern, line), (shown, line)


@pytest.mark.external
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_interrupted_vectors_run_stops_the_program_under_test(tmp_path: Path) -> None:
    """Ctrl-C during `vectors --command`: exit 130 at once, and the port does not outlive it."""
    pid_file = tmp_path / "port.pid"
    port = tmp_path / "port.py"
    port.write_text(
        "import os, sys, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "time.sleep(120)\n",
        encoding="utf-8",
    )
    port_pid = 0
    with subprocess.Popen(  # the with block closes the pipes, even when the test fails
        [sys.executable, "-m", "agenterr", "vectors", "--command", f"{sys.executable} {port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_interruptible,  # noqa: PLW1509 (no threads in this test)
    ) as proc:
        try:
            for _ in range(600):  # the port is running once it has written its pid
                if pid_file.exists() and pid_file.read_text(encoding="utf-8"):
                    break
                proc.poll()
                assert proc.returncode is None
                threading.Event().wait(0.05)
            port_pid = int(pid_file.read_text(encoding="utf-8"))
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
            proc.wait()
            if port_pid and proc.returncode != 130:  # never leave the port behind
                with contextlib.suppress(ProcessLookupError):
                    os.kill(port_pid, signal.SIGKILL)
    assert err == b""
    assert proc.returncode == 130
    for _ in range(100):  # reaped by the interrupted run: the pid is gone
        try:
            os.kill(port_pid, 0)
        except ProcessLookupError:
            break
        threading.Event().wait(0.05)
    else:
        os.kill(port_pid, signal.SIGKILL)
        pytest.fail("the program under test outlived the interrupted run")
