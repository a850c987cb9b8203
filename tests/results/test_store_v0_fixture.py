"""A store written by rtlab before the package was restructured still reads,
reports and resumes: tests/fixtures/store-v0 was made by `rtlab run spec.toml` at commit
2a04ea6 (an rtlab-latency cell and an rtbench POSIX cell, one run each)."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rtlab.results import Store
from tests.paths import REPO_ROOT

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "store-v0"
RTLAB = Path(sys.executable).with_name("rtlab")
RUN_IDS = ["20261123T182604-71bb713f14", "20261123T182607-7ab95540d1"]


@pytest.fixture
def store_v0(tmp_path: Path) -> Path:
    """A writable copy of the fixture (the committed one is never touched)."""
    d = tmp_path / "store"
    shutil.copytree(FIXTURE / "samples", d / "samples")
    with gzip.open(FIXTURE / "rtlab.duckdb.gz") as src, open(d / "rtlab.duckdb", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return d / "rtlab.duckdb"


def rtlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RTLAB), *args], capture_output=True, text=True, timeout=300)


def test_reads(store_v0: Path) -> None:
    with Store(store_v0, read_only=True) as st:
        runs = st.runs(spec_name="fixture-v0")
        assert [r["run_id"] for r in runs] == RUN_IDS
        assert [r["status"] for r in runs] == ["ok", "ok"]
        assert st.samples(RUN_IDS[0], "latency").size == 145


def test_reports(store_v0: Path, tmp_path: Path) -> None:
    md = rtlab("report", "--md", "--store", str(store_v0), "fixture-v0")
    assert md.returncode == 0, md.stderr
    assert "| wake@idle | latency | ok:1 | 145 | 66.78 | 70.80 | 161.58 |" in md.stdout
    assert "## rtb@idle" in md.stdout and "### primitives" in md.stdout
    out = tmp_path / "report.html"
    html = rtlab("report", "--store", str(store_v0), "fixture-v0", "-o", str(out))
    assert html.returncode == 0, html.stderr
    assert "wake@idle" in out.read_text()


def test_resumes(store_v0: Path, tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    # the same spec with a second repetition: only the two rep-1 runs are missing
    text = (FIXTURE / "spec.toml").read_text()
    spec.write_text(text.replace("repetitions = 1", "repetitions = 2"))
    r = rtlab("run", str(spec), "--store", str(store_v0))
    assert r.returncode == 0, r.stderr
    assert "2 run(s) already in the store" in r.stdout + r.stderr
    with Store(store_v0, read_only=True) as st:
        runs = st.runs(spec_name="fixture-v0")
    assert [r["run_id"] for r in runs][:2] == RUN_IDS
    assert [r["cell_key"] for r in runs[2:]] == [r["cell_key"] for r in runs[:2]]
    assert [r["repetition"] for r in runs] == [0, 0, 1, 1]
