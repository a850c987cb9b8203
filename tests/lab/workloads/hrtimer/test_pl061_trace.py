"""The pl061-trace instrument for real: the rtlab_hrtimer module toggles PL061 line 0 in
the guest, QEMU traces each write on the host, and the report's cross-check finds the
module's mean period in the traced edges (plain TCG: host time is the guest's)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import rtlab
from tests.needs import kernel_guest_can_boot
from tests.paths import REPO_ROOT


def test_traced_edges_give_the_modules_mean_period(tmp_path: Path) -> None:
    kernel_guest_can_boot("rt")
    text = (REPO_ROOT / "examples" / "user-vs-kernel-trace.toml").read_text()
    text = text.replace('kernel = ["stock", "rt"]', 'kernel = "rt"')
    text = text.replace("period_us = [1000, 200]", "period_us = 1000").replace(
        "samples = 1000", "samples = 300"
    )
    spec, store = tmp_path / "trace.toml", tmp_path / "s.duckdb"
    spec.write_text(text)
    done = rtlab("run", str(spec), "--store", str(store), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    md = rtlab("report", "--spec", "user-vs-kernel-trace", "--md", "--store", str(store)).stdout
    table = md.split("GPIO edges QEMU traced on the host", 1)[1]
    [row] = [ln for ln in table.splitlines() if ln.startswith("| PREEMPT_RT | idle | 1000 |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    module, traced, edges = float(cells[3]), float(cells[4]), int(cells[6])
    assert edges == 301  # one edge per callback, and the first
    assert abs(traced - module) / module < 0.01  # the same callbacks, seen from outside
    assert module > 950  # late callbacks lengthen it on a loaded host: no upper bound
