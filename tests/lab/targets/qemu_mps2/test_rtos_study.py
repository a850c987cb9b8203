"""`rtlab study rtos` end to end on the RTOSes brought (reduced: mps2-an385, default
configuration, short windows): the report's comparison, determinism across two stores,
and a second run that builds and runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.lab import rtos_matrix as rm
from rtlab.results import Store
from rtlab.results.query import every_sample
from tests.conftest import rtlab
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

REDUCED = (
    (REPO_ROOT / "examples" / "rtos-compare.toml")
    .read_text()
    .replace(
        "iterations = 500\nwindow_ms = 100", "iterations = 100\nwindow_ms = 20\nlevels = [0, 70]"
    )
)


def _study(spec: Path, store: Path, html: Path, machines: list[str]) -> str:
    args = ["study", "rtos", str(spec), "--config", "default", "--store", str(store)]
    done = rtlab(*args, *(f"--machine={m}" for m in machines), "-o", str(html), timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stderr


def _samples(path: Path) -> list[tuple[str, list[tuple[str, int]]]]:
    with Store(path, read_only=True) as st:
        return every_sample(st)


def test_the_study_compares_and_repeats(tmp_path: Path) -> None:
    cols, skipped = rm.columns(configs=["default"])
    rtoses = sorted({c.rtos for c in cols})
    if not rtoses:
        pytest.skip("bring an RTOS (README: bring your own kernels): " + "; ".join(skipped))
    # two RTOSes on one machine; with one RTOS brought, its two machines
    machines = ["mps2-an385"] if len(rtoses) > 1 else ["mps2-an385", "mps2-an386"]
    spec = tmp_path / "study.toml"
    spec.write_text(REDUCED)
    a, b = tmp_path / "a" / "s.duckdb", tmp_path / "b" / "s.duckdb"
    html = tmp_path / "a.html"
    _study(spec, a, html, machines)
    page = html.read_text()
    assert 'id="study-rtos-compare"' in page and "Semaphore give" in page
    assert page.count("V") >= 2  # every column names its RTOS version
    for line in skipped:
        assert line.split(":")[0] in page  # the RTOSes not brought are named
    again = _study(spec, a, tmp_path / "again.html", machines)
    assert " ok " not in again and "#0" not in again  # nothing ran again
    _study(spec, b, tmp_path / "b.html", machines)
    sa, sb = _samples(a), _samples(b)
    assert len(sa) == len([c for c in cols if c.machine in machines]) >= 2
    assert sa == sb  # every stored sample of every run, identical
