"""The README's analysis examples, run as written on an analysis-only install: a fresh
venv with rtlab's wheel and only its required dependencies (no `plot`, no `lab` extra,
no dev tools), built offline from this environment's packages.

The fresh venv sees a folder of links to the installed files of rtlab's dependency
closure (tests/test_install.py's _closure, without extras), so matplotlib, pyserial and
the test tools are absent exactly as on `pip install rtlab`.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fresh_venv import venv_with_rtlab
from tests.test_install import _closure, _env

REPO = Path(__file__).resolve().parents[1]
ANALYSIS = ("analyze", "plot", "convert", "events", "formats")


def readme_examples() -> list[str]:
    """The rtlab command lines of analysis (analyze, plot, convert, events, formats) in
    the shell and console blocks of the README's analysis part, without comments and
    prompts."""
    text = (REPO / "README.md").read_text()
    # the analysis part: from the analysis-only install to the library
    text = text[text.index("### Analysis only") : text.index("## The library")]
    lines, in_block = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_block = line.strip() in ("```sh", "```console")
            continue
        if not in_block:
            continue
        cmd = line.removeprefix("$ ").split("  #")[0].strip()
        m = re.match(r"^(?:\S*/)?rtlab\s+(\S+)", cmd)
        if m and m[1] in ANALYSIS:
            lines.append(cmd)
    return lines


@pytest.fixture(scope="module")
def lean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """rtlab's wheel with its required dependencies only."""
    return venv_with_rtlab(tmp_path_factory.mktemp("lean"), _closure("rtlab"))


def test_the_readme_has_analysis_examples():
    ex = readme_examples()
    assert len(ex) >= 6 and any("--plot" in e for e in ex) and any(".svg" in e for e in ex)


def test_readme_analysis_examples_run_on_the_lean_install(lean: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    probe = subprocess.run([str(lean / "bin" / "python"), "-c", "import matplotlib"],
                           capture_output=True, env=env)  # fmt: skip
    assert probe.returncode != 0  # the lean install has no plot extra
    work = tmp_path / "work"
    (work / "examples" / "captures").mkdir(parents=True)
    for f in (REPO / "examples" / "captures").glob("*.csv"):
        shutil.copy(f, work / "examples" / "captures")
    for cmd in readme_examples():
        argv = shlex.split(cmd)
        argv[0] = str(lean / "bin" / "rtlab")
        r = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=300)
        if re.search(r"-o \S+\.(png|pdf)\b", cmd):
            # PNG and PDF need the plot extra: one line that says so, nothing written
            assert r.returncode == 2, (cmd, r.stderr)
            assert "pip install 'rtlab[plot]'" in r.stderr, (cmd, r.stderr)
            continue
        assert r.returncode == 0, (cmd, r.stderr)
    assert sorted(p.suffix for p in (work / "out" / "plots").iterdir()) == [".svg"] * 3
    assert "<svg" in (work / "compare.svg").read_text()
    assert (work / "periods.csv").read_text().startswith("channel,metric,start_ns")
