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
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.test_install import _check, _closure, _env

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


def _lean_site(tmp: Path) -> Path:
    """A folder of links to the top-level files of rtlab's required dependencies."""
    site = tmp / "lean-site"
    site.mkdir()
    for name in _closure("rtlab"):
        if name == "rtlab":
            continue
        dist = metadata.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or []}
        for top in tops:
            src = Path(str(dist.locate_file(top)))
            if src.exists() and not (site / top).exists() and top not in ("..", "bin"):
                (site / top).symlink_to(src)
    return site


@pytest.fixture(scope="module")
def lean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("lean")
    wheel_dir = tmp / "wheel"
    _check([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
            "--no-index", str(REPO), "-w", str(wheel_dir)], cwd=tmp)  # fmt: skip
    (wheel,) = wheel_dir.glob("rtlab-*.whl")
    v = tmp / "v"
    clean = _env(tmp)
    _check([sys.executable, "-m", "venv", "--without-pip", str(v)], env=clean)
    (site,) = v.glob("lib/python*/site-packages")
    (site / "rtlab-lean-deps.pth").write_text(str(_lean_site(tmp)) + "\n")
    _check([sys.executable, "-m", "pip", "--python", str(v / "bin" / "python"), "install",
            "-q", "--no-deps", "--no-index", str(wheel)], env=clean)  # fmt: skip
    return v


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
