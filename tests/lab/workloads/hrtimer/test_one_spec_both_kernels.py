"""The user-vs-kernel study's shape in one spec: `kernel = ["stock", "rt"]` runs every
cell on both guest kernels through `rtlab run`, each run records its own kernel, a second
run finds everything stored, and `rtlab report` puts both kernels in one section, with
the timerlat tracer's cross-check on RT and "not available" on stock."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from rtlab.lab import hrtimer_guest as hg
from tests.conftest import rtlab
from tests.needs import kernel_guest_can_boot

# rtlab-hrtimer in the emulated guest on both kernels (tests/lab/test_spec.py's too)
BOTH_KERNELS = """\
[target]
kind = "qemu_gpio"
kernel = ["stock", "rt"]
icount_shift = 1
[[workload]]
kind = "rtlab-hrtimer"
name = "hrtimer"
"""
SPEC = 'name = "uvk-both"\n' + BOTH_KERNELS + """\
period_us = 200
samples = 300
binary = true
[[workload]]
kind = "rtlab-timerlat"
name = "timerlat"
period_us = 200
samples = 300
"""


def test_one_spec_runs_both_kernels(tmp_path: Path) -> None:
    for flavour in hg.FLAVOURS:
        kernel_guest_can_boot(flavour)
    spec, store = tmp_path / "uvk.toml", tmp_path / "s.duckdb"
    spec.write_text(SPEC)
    done = rtlab("run", str(spec), "--store", str(store), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hrtimer[kernel=stock]@idle" in done.stderr and "hrtimer[kernel=rt]@idle" in done.stderr
    con = duckdb.connect(str(store), read_only=True)
    try:
        rows = con.execute("SELECT cell_key, target FROM runs").fetchall()
    finally:
        con.close()
    kernels = {key.split("#")[0]: json.loads(t)["guest_kernel"] for key, t in rows}
    assert kernels == {
        f"{w}[kernel={k}]@idle": hg.kernel_version(k)
        for w in ("hrtimer", "timerlat")
        for k in ("rt", "stock")
    }
    again = rtlab("run", str(spec), "--store", str(store), timeout=120)
    assert again.returncode == 0 and "4 run(s) already in the store" in again.stderr
    md = rtlab("report", "--spec", "uvk-both", "--md", "--store", str(store)).stdout
    section = md.split("## User space vs kernel space", 1)[1]
    assert f"PREEMPT_RT = `{hg.kernel_version('rt')}`" in section
    assert f"stock = `{hg.kernel_version('stock')}`" in section
    cross = section.split("Cross-check", 1)[1].splitlines()
    [rt] = [ln for ln in cross if ln.startswith("| PREEMPT_RT | idle | 200 |")]
    [stock] = [ln for ln in cross if ln.startswith("| stock | idle | 200 |")]
    assert "unsupported: this kernel has no timerlat tracer" in stock
    module, irq = (float(c.split("/")[0]) for c in rt.split("|")[4:6])
    assert 0.25 < module / irq < 4  # both hard-irq hrtimer wake-ups (emulated)
