"""`rtlab analyze` end to end, as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest


def rtlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rtlab.cli", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def study_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(11)
    d = np.empty(4000, np.int64)
    d[0::2] = rng.integers(64, 66, 2000)
    d[1::2] = rng.integers(72, 75, 2000)
    f = tmp_path_factory.mktemp("cli") / "gpio.csv"
    f.write_text("\n".join(map(str, d)) + "\n")
    return f


def test_json_document(study_csv: Path) -> None:
    r = rtlab("analyze", str(study_csv), "--json", "--quantiles", "0.5 0.99 0.9999")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    ch = doc["channels"]["D0"]
    for metric in ("period", "high", "low", "interval", "c2c"):
        m = ch[metric]
        assert set(m) >= {
            "n",
            "mean_ns",
            "rms_ns",
            "min_ns",
            "max_ns",
            "max_dev_ns",
            "pkpk_ns",
            "quantiles",
            "abs_dev_quantiles",
        }
        assert list(m["quantiles"]) == ["0.5", "0.99", "0.9999"]
    d = np.array(study_csv.read_text().split(), dtype=np.int64)
    periods = (d[0::2] + d[1::2]) * 16.0
    assert ch["period"]["mean_ns"] == pytest.approx(periods.mean())
    assert doc["resolution_ns"] == 16.0


def test_table_csv_markdown_and_plots(study_csv: Path, tmp_path: Path) -> None:
    r = rtlab("analyze", str(study_csv), "--plot", str(tmp_path / "plots"))
    assert r.returncode == 0, r.stderr
    assert "period" in r.stdout and "D0" in r.stdout
    for kind in ("hist", "cdf", "trend"):
        for ext in ("png", "svg"):
            f = tmp_path / "plots" / f"D0-period-{kind}.{ext}"
            assert f.stat().st_size > 1000, f
    r = rtlab("analyze", str(study_csv), "--csv")
    assert r.stdout.splitlines()[0].startswith("channel,metric,n,mean_ns")
    assert len(r.stdout.splitlines()) == 6
    r = rtlab("analyze", str(study_csv), "--md")
    assert r.stdout.count("| D0 |") == 5


def test_plots_without_matplotlib_are_svg(study_csv: Path, tmp_path: Path) -> None:
    """Without the `plot` extra, `analyze --plot DIR` writes the SVG figures (rtlab
    draws them) and says that PNGs need the extra."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys\nsys.modules['matplotlib'] = None  # import matplotlib fails\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    out = tmp_path / "plots" / "deeper"
    r = subprocess.run(
        [sys.executable, "-m", "rtlab.cli", "analyze", str(study_csv), "--plot", str(out)],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "pip install 'rtlab[plot]'" in r.stderr and "D0" in r.stdout
    files = sorted(p.name for p in out.iterdir())
    assert files and all(f.endswith(".svg") for f in files), files
    assert all("<svg" in (out / f).read_text() for f in files)


def test_plot_compares_two_captures(study_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "cmp.png"
    r = rtlab("plot", str(study_csv), str(study_csv), "-o", str(out), "--kind", "cdf")
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "/nonexistent/x.sr"], "no such file"),
        (["analyze", "{csv}", "--channel", "D7"], "no channel 'D7'"),
        (["analyze", "{csv}", "--latency", "D0"], "A:B"),
        (["analyze", "{csv}", "--quantiles", "2"], "not in [0, 1]"),
        (["analyze", "{csv}", "--tick", "16"], "bad tick"),
        (["analyze", "{csv}", "--format", "nope"], "unknown format 'nope'"),
        (["analyze", "{csv}", "--json", "--csv"], "choose one"),
        (["analyze", "{bad}"], "line 3"),
        # numbers out of range, an option given twice, an ambiguous unit
        (["analyze", "{pio}", "--tick", "1e400s"], "out of range"),
        (["analyze", "{pio}", "--tick", "1e-400Hz"], "out of range"),
        (["analyze", "{pio}", "-O", "tick=1e400s"], "out of range"),
        (["analyze", "{csv}", "--nominal", "1e400Hz"], "out of range"),
        (["analyze", "{csv}", "--nominal", "1e-400s"], "out of range"),
        (["analyze", "{pio}", "--tick", "10ns", "-O", "tick=5ns"], "given twice"),
        (["analyze", "{pio}", "-O", "tick=10ns", "-O", "tick=5ns"], "given twice"),
        (["analyze", "{pio}", "--tick", "16mhz"], "ambiguous"),
        (["analyze", "{pio}", "-O", "channels=nope"], "nope"),
        (["analyze", "{csv}", "--quantiles", "0.5 p50"], "twice"),
    ],
)
def test_user_mistakes_give_one_line_and_exit_2(
    study_csv: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("12\n13\n1x\n")
    pio = tmp_path / "d.csv"  # read as pio-durations: levels of 10 and 20 ticks
    pio.write_text("10\n20\n10\n20\n")
    files = {
        "{csv}": [str(study_csv)],
        "{bad}": [str(bad)],
        "{pio}": [str(pio), "-f", "pio-durations"],
    }
    args = [word for a in args for word in files.get(a, [a])]
    r = rtlab(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert message.replace("line 3", ":3") in r.stderr.replace("\n", "") or message in r.stderr
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_tie_against_a_nominal_frequency(tmp_path: Path) -> None:
    # A perfect 1 MHz clock (500 ns levels, 1 ns ticks) measured against 1.001 MHz.
    f = tmp_path / "clk.csv"
    f.write_text("\n".join(["500"] * 2000) + "\n")
    r = rtlab("analyze", str(f), "--tick", "1ns", "--nominal", "1.001MHz", "--json")
    assert r.returncode == 0, r.stderr
    ch = json.loads(r.stdout)["channels"]["D0"]
    assert ch["tie"]["max_dev_ns"] == 0
    assert ch["tie_fitted_frequency_hz"] == pytest.approx(1e6)
    assert ch["tie_offset_ppm"] == pytest.approx(-999.0, abs=0.01)
