"""Boot the GPIO guest (Debian arm64 kernel + busybox initramfs, workloads/linux/guest)
under qemu-system-aarch64 -M virt and collect what its test script prints.

    run = boot_guest(script_text, timeout_s=90)
    run.rc("toggle_c"), run.section("toggle_c")       # exit status and output of a step

Booting many times (the `qemu_gpio` target, one boot per run) builds once:
`build_base(dest)`, then per boot `with_script(base, text, initrd)` and
`boot_initrd(initrd)`.

The script is appended to the initramfs as /rtlab/run.sh. A step prints
`@@sec NAME`, its output, then `@@rc NAME=STATUS` (the `step` shell function of
tests/lab/workloads/gpio/guest.sh). The PL061 of `-M virt` is a real gpiochip driven by the
kernel's gpio-pl061 driver; QEMU wires its line 3 to the power button, so
`triggers={"ready=1": "system_powerdown"}` pulses line 3 (a rising then a falling edge)
through QMP when a line of the console contains `ready=1`.

Timing inside this guest is TCG emulation on a shared host: label it emulated
(`--meta emulated=qemu-tcg`) and never report it as a board figure.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.lab.c_targets import REPO_ROOT, BuildError
from rtlab.procgroup import spawn

QEMU_AARCH64 = "qemu-system-aarch64"
MACHINE, CPU, MEMORY_MB, SMP = "virt", "cortex-a53", 256, 1
GUEST_DIR = REPO_ROOT / "build" / "gpio-guest"
BUILD_SCRIPT = REPO_ROOT / "workloads" / "linux" / "guest" / "build-initramfs.sh"
MKCPIO = BUILD_SCRIPT.parent / "mkcpio.py"
_SEC = re.compile(r"^@@sec (\S+)$")
_RC = re.compile(r"^@@rc (\S+)=(-?\d+)$")


class GuestError(BuildError):
    """QEMU, the cross compiler or the guest's kernel/busybox are missing or failed."""


def missing_tools() -> list[str]:
    """What the guest needs that this machine lacks (empty: it can boot)."""
    return [
        t
        for t in (QEMU_AARCH64, "aarch64-linux-gnu-gcc", "cmake", "dpkg-deb")
        if not shutil.which(t)
    ]


@dataclass(frozen=True)
class Unavailable:
    """Why the guest cannot boot here, what fixes it, and whether rtlab's own install
    step should have provided it (`fixable`: a missing package is a set-up bug; no
    network to the Debian archive is outside the project)."""

    reason: str
    fix: str
    fixable: bool

    def __str__(self) -> str:
        return f"{self.reason} — {self.fix}"


def not_fetched(script: str, fetch_failed: Path, what: str, missing: str) -> Unavailable:
    """Why a guest's kernel files are not here: `what` could not be fetched, for the
    reason `script` (a deps/setup.d/ script) wrote in `fetch_failed` when the Debian
    archive was not reachable (not rtlab's to fix); else `missing` (what is absent,
    where), since the set-up step that fetches it was not run."""
    if fetch_failed.is_file():
        why = fetch_failed.read_text(errors="replace").strip() or "apt-get download failed"
        return Unavailable(
            f"{what} could not be fetched ({why})",
            f"run `bash deps/setup.d/{script}` once the Debian archive is reachable",
            fixable=False,
        )
    return Unavailable(
        f"no {missing}",
        f"run `make setup` (deps/setup.d/{script} fetches them with apt-get download)",
        fixable=True,
    )


# deps/setup.d/gpio-guest.sh writes why it could not fetch the kernel here
FETCH_FAILED = GUEST_DIR / "dl" / "fetch-failed"


def availability() -> Unavailable | None:
    """Why the guest cannot boot on this machine, or None when it can."""
    missing = missing_tools()
    if missing:
        return Unavailable(
            f"{', '.join(missing)} not installed",
            "they are in deps/apt.txt: run `make setup`",
            fixable=True,
        )
    dl = GUEST_DIR / "dl"
    if (dl / "vmlinuz").is_file() and (dl / "busybox").is_file():
        return None
    return not_fetched(
        "gpio-guest.sh",
        FETCH_FAILED,
        "the arm64 kernel",
        "arm64 kernel/busybox in build/gpio-guest/dl",
    )


def unavailable() -> str | None:
    """Why the guest cannot boot on this machine (reason — fix), or None when it can."""
    u = availability()
    return None if u is None else str(u)


@dataclass
class GuestRun:
    log: str
    exit_status: int | None  # the script's, from the init's "@@rtlab-guest exit=N"
    seconds: float
    timed_out: bool
    sections: dict[str, str] = field(default_factory=dict)
    rcs: dict[str, int] = field(default_factory=dict)
    qemu_status: int | None = None  # QEMU's own exit status (None: killed at the timeout)

    def section(self, name: str) -> str:
        if name not in self.sections:
            raise KeyError(f"guest step {name!r} did not run; log tail:\n{self.log[-2000:]}")
        return self.sections[name]

    def rc(self, name: str) -> int:
        if name not in self.rcs:
            raise KeyError(f"guest step {name!r} did not finish; log tail:\n{self.log[-2000:]}")
        return self.rcs[name]


def _split(log: str) -> tuple[dict[str, str], dict[str, int]]:
    sections: dict[str, list[str]] = {}
    rcs: dict[str, int] = {}
    cur: str | None = None
    # split("\n"), not splitlines(): that also splits at \x1c-\x1e (hostview's SEP)
    for line in log.split("\n"):
        line = line.rstrip("\r")
        if m := _SEC.match(line):
            cur = m.group(1)
            sections[cur] = []
        elif m := _RC.match(line):
            rcs[m.group(1)] = int(m.group(2))
            cur = None
        elif cur is not None:
            sections[cur].append(line)
    return {k: "\n".join(v) + "\n" for k, v in sections.items()}, rcs


def build_initrd(script: Path, out: Path) -> Path:
    """Build (incrementally) the workloads and the initramfs with `script` appended."""
    proc = subprocess.run(
        ["bash", str(BUILD_SCRIPT), "--script", str(script), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise GuestError(f"building the guest failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return out


def build_base(dest: Path) -> Path:
    """Build (incrementally) the workloads and the initramfs without a script, and copy
    it to `dest`: a private copy that a concurrent rebuild cannot change under us."""
    proc = subprocess.run(
        ["bash", str(BUILD_SCRIPT), "--out", str(dest)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise GuestError(f"building the guest failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return dest


def cpio_members(archive: Path) -> dict[str, tuple[int, bytes]]:
    """Every member of a gzip'd newc cpio (as mkcpio.py writes them, possibly several
    concatenated, a later member of a name replacing an earlier one as the kernel's
    unpacking does): name -> (mode, data; a symlink's target). A truncated or foreign
    archive raises GuestError naming the file and the offset."""
    try:
        raw = gzip.decompress(archive.read_bytes())
    except (OSError, EOFError) as e:
        raise GuestError(f"{archive}: not a gzip'd cpio ({e})") from None
    members: dict[str, tuple[int, bytes]] = {}
    at = 0
    while at < len(raw):
        hdr = raw[at : at + 110]
        if len(hdr) < 110 or hdr[:6] != b"070701":
            raise GuestError(f"{archive}: no newc cpio header at offset {at} (uncompressed)")
        fields = [int(hdr[6 + 8 * i : 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_at = at + 110
        data_at = name_at + namesize + (-(110 + namesize) % 4)
        if data_at + size > len(raw):
            raise GuestError(f"{archive}: member at offset {at} runs past the end")
        name = raw[name_at : name_at + namesize - 1].decode(errors="replace")
        at = data_at + size + (-size % 4)
        if name != "TRAILER!!!":
            members[name] = (mode, raw[data_at : data_at + size])
    return members


def _write_cpio() -> Any:
    spec = importlib.util.spec_from_file_location("rtlab_mkcpio", MKCPIO)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.write_cpio


def with_script(base: Path, script: str, out: Path) -> Path:
    """`base` with `script` appended as /rtlab/run.sh (a second cpio: the kernel
    unpacks concatenated archives in order), as build-initramfs.sh --script does."""
    with tempfile.TemporaryDirectory(prefix="rtlab-script-") as tmp:
        stage = Path(tmp) / "stage"
        (stage / "rtlab").mkdir(parents=True)
        sp = stage / "rtlab" / "run.sh"
        sp.write_text(script)
        sp.chmod(0o755)
        cpio = Path(tmp) / "script.cpio.gz"
        _write_cpio()(stage, cpio)
        out.write_bytes(base.read_bytes() + cpio.read_bytes())
    return out


def _qmp(path: str, command: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        f = s.makefile("rw")
        f.readline()  # greeting
        for cmd in ("qmp_capabilities", command):
            f.write(json.dumps({"execute": cmd}) + "\n")
            f.flush()
            f.readline()


def boot_guest(
    script: str,
    *,
    timeout_s: float = 90,
    triggers: dict[str, str] | None = None,
    name: str = "test",
) -> GuestRun:
    """Boot the guest once with `script` as /rtlab/run.sh; bounded by `timeout_s`."""
    missing = missing_tools()
    if missing:
        raise GuestError(f"{', '.join(missing)} not installed (deps/apt.txt; make setup)")
    GUEST_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rtlab-guest-") as tmp:
        sp = Path(tmp) / "run.sh"
        sp.write_text(script)
        initrd = build_initrd(sp, Path(tmp) / f"initrd-{name}.cpio.gz")
        return boot_initrd(initrd, timeout_s=timeout_s, triggers=triggers)


def boot_initrd(
    initrd: Path,
    *,
    timeout_s: float = 90,
    triggers: dict[str, str] | None = None,
    kernel: Path | None = None,
    qemu_args: Sequence[str] = (),
) -> GuestRun:
    """Boot the kernel (default: the GPIO guest's) with this initrd until the guest
    powers off (or `timeout_s`); `qemu_args` are added to QEMU's line (e.g. -icount)."""
    with tempfile.TemporaryDirectory(prefix="rtlab-qemu-") as tmp:
        qmp_path = os.path.join(tmp, "qmp.sock")
        argv = [
            QEMU_AARCH64, "-M", MACHINE, "-cpu", CPU, "-m", str(MEMORY_MB), "-smp", str(SMP),
            "-nographic", "-no-reboot", "-monitor", "none",
            # no NIC: -M virt's default virtio-net needs efi-virtio.rom (ipxe-qemu, only
            # a Recommends of qemu-system-arm), and the guest has no use for a network
            "-nic", "none",
            "-qmp", f"unix:{qmp_path},server=on,wait=off",
            "-kernel", str(kernel or GUEST_DIR / "vmlinuz"), "-initrd", str(initrd),
            "-append", "console=ttyAMA0 quiet panic=-1",
            *qemu_args,
        ]  # fmt: skip
        t0 = time.monotonic()
        proc = spawn(  # waited for here; the kernel kills it if rtlab is SIGKILLed
            argv,
            die_with_parent=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        lines: list[str] = []
        pending = dict(triggers or {})

        def reader() -> None:
            assert proc.stdout is not None
            for raw in proc.stdout:
                line = raw.decode(errors="replace").rstrip("\r\n")
                lines.append(line)
                for needle in [n for n in pending if n in line]:
                    cmd = pending.pop(needle)
                    try:
                        _qmp(qmp_path, cmd)
                    except OSError as e:
                        lines.append(f"@@host qmp {cmd} failed: {e}")

        th = threading.Thread(target=reader, daemon=True)
        th.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            proc.wait()
        except BaseException:  # Ctrl-C: no QEMU left behind
            proc.kill()
            proc.wait()
            raise
        th.join(timeout=5)
        seconds = time.monotonic() - t0
    log = "\n".join(lines) + "\n"
    m = re.search(r"^@@rtlab-guest exit=(-?\d+)", log, re.M)
    sections, rcs = _split(log)
    return GuestRun(
        log,
        int(m.group(1)) if m else None,
        seconds,
        timed_out,
        sections,
        rcs,
        None if timed_out else proc.returncode,
    )
