"""The pico-sdk the user brings (PICO_SDK_PATH) for the Raspberry Pi Pico images, and
the project's board layer on it (workloads/rtbench/boards/rp2040: build_on_sdk), for
one RTOS (RTB_PICO_RTOS: a port folder with an rp2040.cmake) with the options built in
(a real board has no command line). FreeRTOS and µC/OS-III build on it, NuttX takes
boot stage 2 from it. The SDK makes the ELF; rtlab writes the UF2 (rtlab.lab.uf2_format), so
picotool is not needed."""

from __future__ import annotations

import fcntl
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from rtlab.lab.boards.cmake_layer import configure_and_build, need_cross_tools
from rtlab.lab.boards.uf2_image import baked_args, image_path, write_uf2
from rtlab.lab.c_targets import REPO_ROOT, RtosBuildError, forget_other_source

BOARD_DIR = REPO_ROOT / "workloads" / "rtbench" / "boards" / "rp2040"

VAR = "PICO_SDK_PATH"
TESTED = (
    "tested: pico-sdk 2.1.1 from github.com/raspberrypi/pico-sdk; README: bring your own kernels"
)
BOOT2 = Path("src/rp2040/boot_stage2/boot2_w25q080.S")
# The SDK folders boot2/Make.defs reads (pico_platform: SDK < 2.2.0, _common: >= 2.2.0).
SDK_PARTS = (
    "src/rp2040/boot_stage2",
    "src/rp2040/hardware_regs/include",
    "src/rp2_common/hardware_base/include",
    "src/common/pico_base_headers/include",
    "src/boards/include",
    "src/rp2040/pico_platform/include",
    "src/rp2_common/pico_platform_common/include",
    "src/rp2_common/pico_platform_compiler/include",
    "src/rp2_common/pico_platform_sections/include",
    "src/rp2_common/pico_platform_panic/include",
)
# NuttX before 10.3 (the STM32 study's 10.1.0) reads pico-sdk 1.x's layout: the same
# folders under their old names (several of 2.x's merged into one).
SDK_1X_NAMES = {
    "src/rp2_common/boot_stage2": ("src/rp2040/boot_stage2",),
    "src/common/pico_base/include": ("src/common/pico_base_headers/include",),
    "src/rp2_common/pico_platform/include": (
        "src/rp2040/pico_platform/include",
        "src/rp2_common/pico_platform_common/include",
        "src/rp2_common/pico_platform_compiler/include",
        "src/rp2_common/pico_platform_sections/include",
        "src/rp2_common/pico_platform_panic/include",
    ),
}


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


def copy_boot_stage2(sdk: Path, dst: Path) -> None:
    """Copies into `dst` the SDK folders a build of boot stage 2 reads (NuttX's
    arch/arm/src/rp2040/boot2/Make.defs), laid out as the SDK that build expects: that
    build touches and deletes files there (pico/version.h, pico/config_autogen.h), so it
    gets a copy, never the user's SDK. Once per `dst`."""
    if (dst / ".copied").is_file():
        return
    shutil.rmtree(dst, ignore_errors=True)
    for part in SDK_PARTS:
        if (sdk / part).is_dir():
            shutil.copytree(sdk / part, dst / part, symlinks=True)
    for old, parts in SDK_1X_NAMES.items():
        for part in parts:
            if not (sdk / old).exists() and (sdk / part).is_dir():
                shutil.copytree(sdk / part, dst / old, symlinks=True, dirs_exist_ok=True)
    old_base = dst / "src/common/pico_base/include/pico"
    if not (sdk / "src/common/pico_base").exists() and old_base.is_dir():
        for name in ("version.h", "config_autogen.h"):  # what newer NuttX touches itself
            (old_base / name).touch()
    (dst / ".copied").write_text(f"{sdk}\n")


def build_on_sdk(
    defines: Mapping[str, str | Path], out: Path, stem: str, paths: Mapping[str, str],
    words: list[str],
) -> Path:  # fmt: skip
    """The UF2 <out>/<stem>-<hash of words>.uf2 running `words`, the board layer
    configured with `defines` (the RTOS and its kernel); cached (another option set
    recompiles board_rp2040.c only). The ELF lies beside it."""
    need_cross_tools()
    sdk = sdk_path(paths)
    args = baked_args(words, "Pico")
    out.mkdir(parents=True, exist_ok=True)
    cfg = [
        "cmake",
        "-S",
        str(BOARD_DIR),
        "-B",
        str(out),
        f"-DPICO_SDK_PATH={sdk}",
        *(f"-D{k}={v}" for k, v in defines.items()),
        "-DRTB_PICO_UF2=OFF",
        f"-DRTB_PICO_ARGS={args}",
    ]
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel tests wait for one build
        forget_other_source(out, BOARD_DIR)
        configure_and_build(cfg, out, "Pico board", "-j2")
        return write_uf2(out / "rtbench-pico.elf", image_path(out, stem, args), "rp2040")
