"""The two guest kernels of the user-vs-kernel study (docs/user-vs-kernel.md).

`stock` is Debian's linux-image-<abi>-arm64, `rt` its PREEMPT_RT sibling
linux-image-<abi>-rt-arm64; deps/setup.d/hrtimer-guest.sh unpacks each with its headers
into build/hrtimer-guest/<flavour>/ (never into the repository). A boot of the GPIO
guest (gpio_guest.py) with one of them appends a layer to its initramfs
(workloads/linux/rtlab-hrtimer/build-guest-layer.sh): the rtlab_hrtimer module built
for that exact kernel (vermagic differs between the flavours: insmod refuses the other
one's), its reader rtlab-hrtimer and a static rtlab-latency.

Timing: `-icount shift=S,sleep=off` makes the guest's clock follow its instruction
count (2^S ns per instruction: shift 1 models a ≈ 500 MIPS CPU), so runs repeat and do
not depend on the host's load; without it (plain TCG) the guest's timers follow the
host's clock on a shared machine, which is noise.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.gpio_guest import GuestError, Unavailable, availability, not_fetched

FLAVOURS = ("stock", "rt")
HRTIMER_DIR = REPO_ROOT / "build" / "hrtimer-guest"
SETUP = REPO_ROOT / "deps" / "setup.d" / "hrtimer-guest.sh"
LAYER_SCRIPT = REPO_ROOT / "workloads" / "linux" / "rtlab-hrtimer" / "build-guest-layer.sh"
FETCH_FAILED = HRTIMER_DIR / "fetch-failed"
LAYER_PROGRAMS = ("rtlab-hrtimer", "rtlab-latency", "rtlab-timerlat")


def icount_args(shift: int | None) -> list[str]:
    """QEMU's arguments for instruction-count time (None: plain TCG, host time); the
    device tree's random seeds (KASLR, the kernel's RNG) off and the RTC started at a
    fixed date on the guest's own clock, so every boot of the guest runs the same
    instructions."""
    if shift is None:
        return []
    return [
        "-icount", f"shift={shift},sleep=off", "-machine", "dtb-randomness=off",
        "-rtc", "base=2026-01-01T00:00:00,clock=vm",
    ]  # fmt: skip


def mips_model(shift: int | None) -> float | None:
    """The CPU speed an icount shift models, in MIPS (1 instruction per 2^shift ns)."""
    return None if shift is None else 1000.0 / 2**shift


def kernel_path(flavour: str) -> Path:
    return HRTIMER_DIR / flavour / "vmlinuz"


def kernel_version(flavour: str) -> str | None:
    f = HRTIMER_DIR / flavour / "kernel-version"
    return f.read_text().strip() if f.is_file() else None


def flavour_availability(flavour: str) -> Unavailable | None:
    """Why a guest with this kernel cannot boot here, or None when it can."""
    base = availability()
    if base is not None:
        return base
    if (
        kernel_path(flavour).is_file()
        and (HRTIMER_DIR / flavour / "headers" / "Makefile").is_file()
    ):
        return None
    return not_fetched(
        "hrtimer-guest.sh",
        FETCH_FAILED,
        f"the {flavour} arm64 kernel",
        f"{flavour} arm64 kernel and headers in build/hrtimer-guest",
    )


def build_layer(flavour: str, dest: Path) -> Path:
    """The module (built for this kernel), its reader and rtlab-latency as a cpio."""
    if flavour not in FLAVOURS:
        raise GuestError(f"guest kernel {flavour!r}: expected one of {', '.join(FLAVOURS)}")
    proc = subprocess.run(
        ["bash", str(LAYER_SCRIPT), flavour, str(dest)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise GuestError(
            f"building the {flavour} guest layer failed:\n{(proc.stdout + proc.stderr)[-3000:]}"
        )
    return dest
