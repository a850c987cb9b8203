"""The `qemu_gpio` target kind end to end: `rtlab run` of a tiny spec boots the QEMU
arm64 guest once per run (plus once for the fingerprint), stores the runs in a real
DuckDB store, and `rtlab report --md` shows the GPIO study section labelled emulated.
Also: the error paths (a timeout inside the guest, a guest that does not boot, a load
condition the guest cannot apply) and the output labelling. No figure here is read as
a board's: only plausibility bounds wide enough for any TCG host.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from rtlab.lab import gpio_guest as gg
from rtlab.lab.spec import SpecError, load_spec, parse_spec
from rtlab.lab.targets.base import make_target
from rtlab.lab.targets.qemu_gpio import EMULATED, QemuGpioTarget, run_labels
from rtlab.protocol import Writer, parse
from rtlab.results import Store
from tests.builds_at_once import assert_builds_at_once_agree
from tests.needs import guest_can_boot
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
RTLAB = str(Path(sys.executable).parent / "rtlab")
WRITES = 2000
SPEC = f"""
name = "qemu-gpio-test"
conditions = ["idle", "load"]   # load: one busy-loop shell in the guest
[target]
kind = "qemu_gpio"
[[workload]]
kind = "rtlab-toggle"
name = "c"
lines = 0
count = {WRITES}
timestamps = true
binary = true
"""


@pytest.fixture(scope="module")
def guest_ok() -> None:
    guest_can_boot()


def rtlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([RTLAB, *args], capture_output=True, text=True, timeout=300)


def test_spec_runs_in_the_guest_into_a_store(guest_ok: None, tmp_path: Path) -> None:
    spec = tmp_path / "qemu-gpio-test.toml"
    spec.write_text(SPEC)
    db = tmp_path / "store" / "rtlab.duckdb"
    r = rtlab("run", str(spec), "--store", str(db))
    assert r.returncode == 0, r.stderr[-3000:]
    with Store(db, read_only=True) as st:
        runs = st.runs(spec_name="qemu-gpio-test")
        assert [x["status"] for x in runs] == ["ok", "ok"]
        for run in runs:
            assert run["meta"]["emulated"] == EMULATED
            assert run["meta"]["chip_label"].endswith(".pl061")
            assert run["target"]["kind"] == "qemu_gpio" and run["target"]["emulated"] == EMULATED
            fp = run["fingerprint"]
            assert fp["emulated"] == EMULATED and fp["kernel"]["machine"] == "aarch64"
            assert fp["qemu"]["machine"] == "virt" and fp["qemu"]["version"]
            assert fp["virtualization"]["virtual"]
            period = st.samples(run["run_id"], "period")
            # rising to rising: write_ts[i+2] - write_ts[i], every second write
            assert len(period) == WRITES // 2 - 1
            # an emulated write takes microseconds to a few hundred on any TCG host;
            # the median period lies far inside 1 µs .. 10 ms
            assert (period > 0).all() and 1_000 < np.median(period) < 10_000_000
        loads = {x["params"]["condition"]["name"]: x["meta"].get("guest_load") for x in runs}
        assert loads == {"idle": None, "load": "cpu:nproc"}
    md = rtlab("report", "--md", "--store", str(db), "qemu-gpio-test")
    assert md.returncode == 0, md.stderr
    assert "## GPIO study — emulated (qemu-tcg)" in md.stdout
    assert "not of a board" in md.stdout
    assert "| c@idle | C | other | idle (emulated (qemu-tcg)) | self-timestamped |" in md.stdout


def test_two_builds_at_once_both_succeed_alike(guest_ok: None, tmp_path: Path) -> None:
    """Two processes running build-initramfs.sh at once (two xdist workers, two `rtlab
    run`s) share build/gpio-guest: the second waits for the first instead of removing the
    stage, the CMake tree or base.cpio.gz under it. Three rounds: without the lock a round
    fails (`ln: ... stage/bin/sh`, a member missing) more often than not."""
    m = assert_builds_at_once_agree(
        lambda out: ["bash", str(gg.BUILD_SCRIPT), "--out", str(out)], tmp_path
    )
    assert {"init", "bin/sh", "bin/busybox", "rtlab/rtlab-toggle"} <= m.keys()


def test_timeout_in_the_guest_is_a_clear_error(guest_ok: None) -> None:
    t = make_target({"kind": "qemu_gpio", "boot_timeout_s": 60})
    done = t.run(["sleep", "60"], timeout=1)
    assert done.timed_out and done.returncode != 0
    # the watchdog in the guest said it (QEMU's own limit says "did not finish within")
    assert "timed out: the workload ran past 1 s in the guest" in done.stderr
    assert "did not finish within" not in done.stderr


def test_guest_that_does_not_boot_is_a_clear_error(guest_ok: None, tmp_path: Path) -> None:
    t = QemuGpioTarget({})
    # a real boot of the real kernel with an initramfs it cannot unpack: it panics
    t._base = tmp_path / "garbage.cpio.gz"
    t._base.write_bytes(b"not a cpio archive\n" * 64)
    t._tmp = tempfile.TemporaryDirectory(dir=tmp_path)
    done = t.run(["/rtlab/rtlab-toggle", "-n", "10"], timeout=10)
    assert done.returncode is None and not done.stdout.strip()
    assert "the QEMU guest did not run the workload" in done.stderr
    assert "Kernel panic" in done.stderr  # the console's own reason, not its last lines


def test_load_profiles_without_busybox_equivalent_are_refused() -> None:
    text = (
        'name = "g"\nconditions = ["mem"]\n[target]\nkind = "qemu_gpio"\n'
        '[condition.mem]\nkind = "stress-ng"\nprofile = "vm"\n'
        '[[workload]]\nkind = "rtlab-toggle"\n'
    )
    with pytest.raises(SpecError) as e:
        parse_spec(text, "s.toml")
    msg = str(e.value)
    assert "s.toml:7" in msg and "condition.mem.profile" in msg and "busybox" in msg
    parse_spec(text.replace('"vm"', '"cpu"'))  # cpu load runs in the guest


def test_the_guest_labels_win_over_the_workloads_own_and_keep_runs_complete() -> None:
    parts = []
    for crc in (False, True):
        w = Writer(crc=crc)
        w.hello("rtlab-toggle", "1")
        w.meta(emulated="no")
        w.counter("writes", 3, unit="count")
        w.end()
        parts.append(w.text())
    labels = run_labels({"emulated": EMULATED, "qemu_machine": "virt"})
    runs = parse("\n".join(parts), labels=labels)
    assert len(runs) == 2
    for run in runs:
        assert run.status == "ok" and run.complete, run.problems
        assert run.meta["emulated"] == EMULATED  # the target's label wins
        assert run.meta["qemu_machine"] == "virt"


def test_example_spec_is_the_study_on_this_target() -> None:
    spec = load_spec(ROOT / "examples" / "gpio-study-emulated.toml")
    assert spec.target["kind"] == "qemu_gpio"
    cells = {(c.kind, c.params["policy"]) for c in spec.cells()}
    assert cells == {
        (k, p)
        for k in ("rtlab-toggle", "rtlab-toggle-rs", "rtlab-toggle-kt")
        for p in ("other", "fifo")
    }
    assert all(c.params["timestamps"] and c.params["mode"] == "fast" for c in spec.cells())
