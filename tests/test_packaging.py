"""The built wheel ships what users need: py.typed, the vectors, no tests."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.external

ROOT = Path(__file__).parent.parent


def test_wheel_contents(tmp_path: Path) -> None:
    """A wheel built from this tree has the typing marker and the conformance vectors."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("agenterr-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "agenterr/py.typed" in names
    assert "agenterr/_spec/vectors.json" in names
    assert "agenterr/__init__.py" in names and "agenterr/errors.py" in names
    assert not any(n.startswith("tests/") for n in names)
