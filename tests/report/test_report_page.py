"""The HTML report a reader understands in 30 seconds: the findings first,
made from the data; one pitfall row per code; a title from the spec; OSADL-style plots
(log x and log y in the SVG); one section per study; no empty section when nothing ran.
Real runs: rtlab-latency on this host, through the real CLI."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtlab.report.environment import merge_messages

RTLAB = Path(sys.executable).with_name("rtlab")
REPO = Path(__file__).resolve().parents[2]
SPEC = """name = "tiny-latency"
description = "abs vs usleep x SCHED_OTHER/FIFO, 2 repetitions of 0.3 s"
repetitions = 2
[target]
kind = "local"
[[workload]]
kind = "rtlab-latency"
name = "wake"
method = ["abs", "usleep"]
policy = ["other", "fifo"]
interval_us = 1000
duration = "0.3s"
"""


def rtlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RTLAB), *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    d = tmp_path_factory.mktemp("page")
    (d / "s.toml").write_text(SPEC)
    store = str(d / "st" / "rtlab.duckdb")
    r = rtlab("run", str(d / "s.toml"), "--store", store)
    assert r.returncode in (0, 1), r.stderr
    return store


@pytest.fixture(scope="module")
def page(store: str) -> str:
    out = Path(store).parent.parent / "r.html"
    r = rtlab("report", "--store", store, "--spec", "tiny-latency", "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out.read_text()


def test_report_figures_without_matplotlib(store: str, tmp_path: Path) -> None:
    """The analysis-only install (no `plot` extra) draws the report's figures: rtlab
    report with matplotlib unimportable (a sitecustomize on PYTHONPATH) writes the same
    figures as SVG; `rtlab plot -o x.png` says in one line what to install, and
    `-o x.svg` writes the figure."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\nsys.modules['matplotlib'] = None  # import matplotlib fails\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path)

    def lean(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(RTLAB), *args], capture_output=True, text=True, env=env,
                              timeout=300)  # fmt: skip

    probe = [sys.executable, "-c", "import matplotlib"]
    assert subprocess.run(probe, env=env, capture_output=True).returncode == 1
    out = tmp_path / "r.html"
    r = lean("report", "--store", store, "--spec", "tiny-latency", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "plot" not in r.stderr, r.stderr  # no "install the plot extra"
    svgs = _svgs(out.read_text())
    assert len(svgs) >= 4  # a histogram and a tail CDF per metric at least
    assert all("<svg" in s and 'id="axes0-xlog-ylog"' in s for s in svgs)
    cap = str(REPO / "examples" / "captures" / "gpio-toggle-pio.csv")
    r = lean("plot", cap, "-o", str(tmp_path / "x.png"))
    assert r.returncode == 2 and "pip install 'rtlab[plot]'" in r.stderr
    assert r.stderr.strip().count("\n") == 0 and not (tmp_path / "x.png").exists()
    r = lean("plot", cap, "-o", str(tmp_path / "x.svg"))
    assert r.returncode == 0, r.stderr
    assert "<svg" in (tmp_path / "x.svg").read_text()


def _svgs(text: str) -> list[str]:
    return [
        base64.b64decode(m).decode()
        for m in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', text)
    ]


def test_headlines_first_with_figure_and_range(page: str) -> None:
    f = page.index('id="headlines"')
    # the headlines, the contents, the study sections; the summary and environment after
    assert f < page.index('id="contents"') < page.index('id="study-latency"')
    assert page.index('id="study-latency"') < page.index('id="environment"')
    block = page[f : page.index("</section>", f)]
    # one sentence per condition: the best cell, its p99.9, and its runs' range
    assert re.search(r"holds p99\.9 ≤ [\d,.]+ (µs|ms) \[run-to-run [\d,.]+ (µs|ms)–", block)
    assert "over 2 runs" in block


def test_title_and_description_from_the_spec(page: str) -> None:
    assert "<h1>tiny-latency</h1>" in page
    assert "abs vs usleep x SCHED_OTHER/FIFO, 2 repetitions of 0.3 s" in page


def test_one_pitfall_row_per_code(page: str) -> None:
    table = re.search(r'<table class="warn[^"]*"><tr><th>pitfall(.*?)</table>', page, re.S)
    if table is None:
        pytest.skip("no pitfall on this host")
    codes = re.findall(r"<tr><td><code>(\w+)</code>", table.group(1))
    assert codes and len(codes) == len(set(codes))
    assert re.findall(r"(\d+) of 8</td>", table.group(1))  # runs affected of the 8 selected


def test_latency_plots_are_log_x_and_log_y(page: str) -> None:
    svgs = _svgs(page[page.index('id="study-latency"') :])
    assert svgs
    for svg in svgs:  # histograms and tail CDFs: log counts and a log x axis
        assert re.search(r'id="axes0-xlog-ylog"', svg), svg[:300]


def test_merge_messages_gives_the_range_of_a_per_run_figure() -> None:
    msgs = [f"load average {x} before the run on 2 CPUs" for x in ("2.73", "3.03", "2.67")]
    assert merge_messages(msgs) == "load average 2.67–3.03 before the run on 2 CPUs"
    assert merge_messages(["a", "a"]) == "a"
    assert merge_messages(["a", "b x"]) == "a (and 1 other message)"
    assert merge_messages(["a", "b x", "c y z"]) == "a (and 2 other messages)"


def test_no_successful_run_no_empty_section(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('name = "all-fail"\n[[workload]]\nkind = "command"\nargv = ["false"]\n')
    store = str(tmp_path / "st" / "rtlab.duckdb")
    assert rtlab("run", str(spec), "--store", store).returncode == 1
    out = tmp_path / "r.html"
    r = rtlab("report", "--store", store, "--spec", "all-fail", "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "No run finished successfully" in text
    assert 'id="distributions"' not in text and 'class="study"' not in text
    assert "<img" not in text
