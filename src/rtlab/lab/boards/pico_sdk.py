"""The pico-sdk the user brings (PICO_SDK_PATH) for the Raspberry Pi Pico images:
FreeRTOS SMP builds on it, NuttX takes boot stage 2 from it. picotool is not needed:
rtlab writes the UF2 itself (rtlab.lab.uf2)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from rtlab.lab.build import RtosBuildError

VAR = "PICO_SDK_PATH"
TESTED = (
    "tested: pico-sdk 2.1.1 from github.com/raspberrypi/pico-sdk; README: bring your own kernels"
)
BOOT2 = Path("src/rp2040/boot_stage2/boot2_w25q080.S")


def sdk_missing(paths: Mapping[str, str]) -> str | None:
    """None when PICO_SDK_PATH names a pico-sdk with the RP2040's stage 2, else one line."""
    sdk = paths.get(VAR, "")
    if not sdk:
        return f"set {VAR} to a pico-sdk checkout ({TESTED})"
    if not (Path(sdk) / BOOT2).is_file():
        return f"{VAR}={sdk} has no {BOOT2}: not a pico-sdk checkout"
    return None


def sdk_path(paths: Mapping[str, str]) -> Path:
    why = sdk_missing(paths)
    if why:
        raise RtosBuildError(why)
    return Path(paths[VAR]).resolve()


def sdk_version(paths: Mapping[str, str]) -> str:
    """The SDK's version (pico_sdk_version.cmake), "" when unknown."""
    try:
        text = (Path(paths.get(VAR, "")) / "pico_sdk_version.cmake").read_text()
    except OSError:
        return ""
    parts = [
        re.search(rf"set\(PICO_SDK_VERSION_{k} (\d+)\)", text)
        for k in ("MAJOR", "MINOR", "REVISION")
    ]
    return ".".join(m.group(1) for m in parts if m) if all(parts) else ""


def sdk_describe(paths: Mapping[str, str]) -> dict[str, str]:
    """What a Pico run records of the SDK (and its cell key carries): version and commit."""
    sdk = Path(paths.get(VAR, ""))
    commit = ""
    if (sdk / ".git").exists():
        proc = subprocess.run(
            ["git", "-C", str(sdk), "rev-parse", "--short=9", "HEAD"],
            capture_output=True,
            text=True,
        )
        commit = proc.stdout.strip() if proc.returncode == 0 else ""
    return {"pico_sdk_version": sdk_version(paths), "pico_sdk_commit": commit}
