"""rtlab-toggle built for this machine (x86-64): option errors, and the GPIO errors of a
machine without a gpiochip (this VM has none: Debian's amd64 kernel has no gpio-sim)."""

from __future__ import annotations

import glob
import subprocess
from pathlib import Path

import pytest

from rtlab.lab.c_targets import REPO_ROOT, build_c_target
from tests.needs import missing_tool, tool

RS_DIR = REPO_ROOT / "workloads" / "linux" / "rtlab-toggle-rs"
KT_BUILD = REPO_ROOT / "workloads" / "linux" / "rtlab-toggle-kt" / "build.sh"


@pytest.fixture(scope="module")
def programs() -> dict[str, Path]:
    missing_tool("deps/apt.txt", "cmake")
    out = build_c_target("rtlab-toggle")
    progs = {"rtlab-toggle": out / "rtlab-toggle" if out.is_dir() else out}
    progs["rtlab-gpio-events"] = progs["rtlab-toggle"].parent / "rtlab-gpio-events"
    if tool("cargo", "deps/setup.d/rust-aarch64.sh"):
        target = REPO_ROOT / "build" / "rtlab-toggle-rs-host"
        subprocess.run(
            ["cargo", "build", "-q", "--release", "--offline", "--locked",
             "--manifest-path", str(RS_DIR / "Cargo.toml"), "--target-dir", str(target)],
            check=True,
        )  # fmt: skip
        progs["rtlab-toggle-rs"] = target / "release" / "rtlab-toggle-rs"
    # Kotlin/Native for this machine (linux_x64): ~50 s the first time, cached after
    kt = REPO_ROOT / "build" / "rtlab-toggle-kt-host" / "rtlab-toggle-kt"
    r = subprocess.run([str(KT_BUILD), "linux_x64", str(kt)], capture_output=True, text=True)
    assert r.returncode == 0, (
        f"Kotlin/Native build (deps/setup.d/kotlin-native.sh):\n{r.stderr[-3000:]}"
    )
    progs["rtlab-toggle-kt"] = kt
    return progs


def run(exe: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("prog", ["rtlab-toggle", "rtlab-toggle-rs", "rtlab-toggle-kt"])
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-w", "sideways"], "--mode: fast, busy, abs or usleep, got 'sideways'"),
        (["-n", "0"], "-n: expected an integer in [1, "),
        (["-n", "5", "-D", "1s"], "give -n or -D, not both"),
        (["-D", "3parsecs"], "-D: expected 2s, 500ms, 100us, 1m or seconds"),
        (["-l", "3-1"], "lines: expected offsets like 0 or 0,3 or 0-3, got '3-1'"),
        (["-l", "1,1"], "line 1 given twice"),
        (["-p", "50"], "-p 50 needs --policy fifo or rr"),
        (["--policy", "edf"], "--policy: other, fifo or rr, got 'edf'"),
        (["-w", "usleep", "-i", "10"], "usleep mode: -i must be >= 1000 ns"),
        (["--frobnicate"], "unknown option --frobnicate"),
        (["-c"], "option -c needs a value"),
    ],
)
def test_option_errors(programs: dict[str, Path], prog: str, args: list[str], message: str) -> None:
    r = run(programs[prog], *args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert "usage:" in r.stderr and r.stdout == ""


@pytest.mark.parametrize(
    "prog", ["rtlab-toggle", "rtlab-toggle-rs", "rtlab-toggle-kt", "rtlab-gpio-events"]
)
def test_no_gpiochip_here(programs: dict[str, Path], prog: str) -> None:
    if glob.glob("/dev/gpiochip*"):
        pytest.skip("this machine has a gpiochip")
    for chip, message in [
        ("0", "unknown GPIO chip /dev/gpiochip0: no such device"),
        ("pl061", "unknown GPIO chip 'pl061'"),
        ("/dev/null", "/dev/null is not a GPIO character device"),
    ]:
        r = run(programs[prog], "-c", chip)
        assert r.returncode == 3, r.stderr
        assert message in r.stderr
        assert "@rtl1" not in r.stdout  # nothing claimed: no protocol run starts


def test_events_option_errors(programs: dict[str, Path]) -> None:
    r = run(programs["rtlab-gpio-events"], "-e", "sideways")
    assert r.returncode == 2 and "--edge: rising, falling or both" in r.stderr
    r = run(programs["rtlab-gpio-events"], "--bias", "up")
    assert r.returncode == 2 and "--bias: pull-up, pull-down or disabled" in r.stderr
