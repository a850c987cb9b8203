"""Build rtlab's RP2040 model pieces (its ROM, the bare-metal images) and run an image on it."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.needs import tool
from tests.paths import REPO_ROOT

MODEL = REPO_ROOT / "models" / "rp2040"
BARE = REPO_ROOT / "workloads" / "rtbench" / "boards" / "rp2040" / "bare"


def _make(directory: Path) -> None:
    tool("arm-none-eabi-gcc", "deps/apt.txt: gcc-arm-none-eabi")
    res = subprocess.run(
        ["make", "-s", "-C", str(directory), f"PYTHON={sys.executable}"],
        capture_output=True,
        text=True,
    )
    if res.returncode != 0:
        raise RuntimeError(f"make -C {directory} failed:\n{res.stdout}\n{res.stderr}")


def build() -> None:
    """The model's npm install and ROM (deps/setup.d/rp2040-model.sh), the bare images."""
    tool("node", "deps/setup.d/rp2040-model.sh: Debian's nodejs")
    if not (MODEL / "node_modules" / "rp2040js").is_dir():
        subprocess.run(["bash", str(REPO_ROOT / "deps/setup.d/rp2040-model.sh")], check=True)
    _make(MODEL / "rom")
    _make(BARE)


def bare_image(name: str) -> Path:
    """build/rp2040-<name>.uf2 of the bare-metal layer (smoke, calib)."""
    return BARE / "build" / f"rp2040-{name}.uf2"


@dataclass
class ModelRun:
    returncode: int
    stdout: bytes
    stderr: str
    summary: dict


def run(image: Path, tmp: Path, *args: str, max_cycles: int = 2_000_000_000) -> ModelRun:
    """Runs image on the model (models/rp2040/run.js) to its done line or the budget."""
    summary = tmp / "summary.json"
    summary.unlink(missing_ok=True)
    res = subprocess.run(
        ["node", str(MODEL / "run.js"), "--image", str(image), "--max-cycles", str(max_cycles),
         "--summary", str(summary), *args],
        capture_output=True,
        timeout=600,
    )
    data = json.loads(summary.read_text()) if summary.exists() else {}
    return ModelRun(res.returncode, res.stdout, res.stderr.decode(), data)
