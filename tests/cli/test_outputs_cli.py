"""What `rtlab analyze/convert/plot` write: odd output paths are one-line
errors (exit 2), plot names are unique per channel, files honour the umask, a piped
table never cuts a number and idle channels fold into one line."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import RTLAB, rtlab

LONG = "x" * 300


@pytest.fixture(scope="module")
def edges_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four toggling channels (two that one `/`→`_` rule would merge, one of 300
    characters) and two idle ones (one edge: no interval to measure)."""
    rows = ["timestamp,channel,level"]
    for i in range(400):
        for k, name in enumerate(("D0", "a/b", "a.b", LONG)):
            # periods of 384,691,356 ns and more: wide numbers, a table wider than 160 columns
            rows.append(f"{i * 192_345_678 * (k + 1) + (i % 7) * 1000},{name},{(i + 1) % 2}")
    rows += ["5,idle1,1", "7,idle2,0"]
    f = tmp_path_factory.mktemp("out") / "edges.csv"
    f.write_text("\n".join(rows) + "\n")
    return f


def one_line_error(r: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and not r.stdout
    msg = r.stderr.replace("\n", "")  # rich folds long lines on stderr
    assert msg.startswith("rtlab: error:"), r.stderr
    for n in needles:
        assert n in msg, (n, r.stderr)


def test_output_path_is_a_directory(edges_csv: Path, tmp_path: Path) -> None:
    (tmp_path / "d.parquet").mkdir()
    one_line_error(rtlab("convert", str(edges_csv), str(tmp_path / "d.parquet")), "d.parquet")
    (tmp_path / "p.png").mkdir()
    r = rtlab("plot", str(edges_csv), "-c", "D0", "-o", str(tmp_path / "p.png"))
    one_line_error(r, "p.png")


def test_output_directory_not_writable(edges_csv: Path, tmp_path: Path) -> None:
    # root writes anywhere a mode allows: a path under a regular file is unwritable for all
    (tmp_path / "file").write_text("")
    one_line_error(rtlab("convert", str(edges_csv), str(tmp_path / "file/x.vcd")), "x.vcd")
    one_line_error(rtlab("analyze", str(edges_csv), "--plot", str(tmp_path / "file")), "file")
    one_line_error(rtlab("convert", str(edges_csv), "/proc/x.parquet"), "/proc/x.parquet")
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o555)
        one_line_error(rtlab("convert", str(edges_csv), str(ro / "x.vcd")), "x.vcd")


def test_absurd_tick_is_one_line(edges_csv: Path) -> None:
    one_line_error(rtlab("analyze", str(edges_csv), "--tick", "1e300s"), "--tick", "1e300s")


def test_plot_names_unique_and_long_names_fit(edges_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "plots"
    r = rtlab(
        "analyze",
        str(edges_csv),
        "--plot",
        str(out),
        "-c",
        "D0",
        "-c",
        "a/b",
        "-c",
        "a.b",
        "-c",
        LONG,
    )
    assert r.returncode == 0, r.stderr
    hists = sorted(p.name for p in out.glob("*-period-hist.png"))
    assert len(hists) == 4, hists  # a/b and a.b no longer share a_b-period-hist.png
    assert "D0-period-hist.png" in hists  # a plain name stays as it was
    assert all(len(h) < 100 for h in hists)


def test_outputs_honour_the_umask(edges_csv: Path, tmp_path: Path) -> None:
    def run_with_umask(mask: int, *args: str) -> None:
        r = subprocess.run(
            [RTLAB, *args],
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=lambda: os.umask(mask),
        )
        assert r.returncode == 0, r.stderr

    for mask, want in ((0o022, 0o644), (0o002, 0o664), (0o077, 0o600)):
        d = tmp_path / f"m{mask:o}"
        run_with_umask(mask, "convert", str(edges_csv), str(d / "c.parquet"))
        run_with_umask(mask, "convert", str(edges_csv), str(d / "c.vcd"))
        run_with_umask(mask, "analyze", str(edges_csv), "-c", "D0", "--plot", str(d / "p"))
        files = [d / "c.parquet", d / "c.vcd", *sorted((d / "p").iterdir())]
        assert len(files) == 8
        for f in files:
            assert stat.S_IMODE(f.stat().st_mode) == want, (f, oct(f.stat().st_mode), mask)


def test_piped_table_never_cuts_and_folds_idle_channels(edges_csv: Path) -> None:
    r = rtlab("analyze", str(edges_csv), "-c", "D0", "-c", "a/b", "-c", "idle1", "-c", "idle2")
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout
    assert "769.384712 │" in r.stdout  # a/b's max period (ms), to the ns, at a 200-column row
    idle = [ln for ln in r.stdout.splitlines() if "idle1" in ln or "idle2" in ln]
    assert len(idle) == 1 and "idle1 (1)" in idle[0] and "idle2 (1)" in idle[0], idle
    assert not re.search(r"idle\d\s+│", r.stdout)  # no row of dashes per idle channel


def test_narrow_terminal_splits_the_table(edges_csv: Path) -> None:
    from rich.console import Console

    import rtlab
    from rtlab.report.tables import print_table

    an = rtlab.analyze(rtlab.load(edges_csv), ["D0", "a/b"])
    with open(os.devnull, "w") as sink:
        con = Console(width=80, record=True, force_terminal=True, file=sink)
        print_table(an, con)
    text = con.export_text()
    assert "…" not in text and "(1/" in text
    assert all(len(ln) <= 80 for ln in text.splitlines())
    assert "769.384712" in text


def test_html_report_honours_the_umask_and_a_directory_is_one_line(tmp_path: Path) -> None:
    import numpy as np

    from rtlab.results import Store
    from tests.analysis.latency_model import QUIET
    from tests.report.test_compare_runs import _store

    store = tmp_path / "s.duckdb"
    with Store(store) as st:
        _store(st, "base", QUIET.runs(np.random.default_rng(3), 1))
    report = tmp_path / "r.html"
    r = subprocess.run(
        [RTLAB, "report", "--store", str(store), "base", "-o", str(report)],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: os.umask(0o077),
    )
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(report.stat().st_mode) == 0o600  # not a hard-coded 0644
    (tmp_path / "dir.html").mkdir()
    one_line_error(
        rtlab("report", "--store", str(store), "base", "-o", str(tmp_path / "dir.html")), "dir.html"
    )
