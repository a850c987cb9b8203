"""The README's plot example as PNG and PDF on a fresh install of `rtlab[plot]`: a new
venv with rtlab's wheel and the dependency closure its metadata declares for the `plot`
extra, built offline from this environment's packages (as tests/test_lean_install.py
builds the analysis-only install)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import pytest

from tests.fresh_venv import venv_with_rtlab
from tests.test_install import _closure, _env
from tests.test_lean_install import readme_examples

REPO = Path(__file__).resolve().parents[1]


def plot_extra() -> list[str]:
    """The distributions rtlab's metadata requires for its `plot` extra."""
    reqs = metadata.distribution("rtlab").requires or []
    return [
        re.split(r"[\s<>=!~\[(;]", r, maxsplit=1)[0]
        for r in reqs
        if re.search(r"""extra\s*==\s*["']plot["']""", r)
    ]


@pytest.fixture(scope="module")
def with_plot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """rtlab's wheel with its required dependencies and its plot extra's whole closure."""
    names = set(_closure("rtlab"))
    for dist_name in plot_extra():
        names |= set(_closure(dist_name))
    return venv_with_rtlab(tmp_path_factory.mktemp("plot"), names)


def test_the_plot_extra_is_matplotlib():
    assert plot_extra() == ["matplotlib"]


def test_readme_plot_example_writes_png_and_pdf_with_the_plot_extra(
    with_plot: Path, tmp_path: Path
) -> None:
    (png_example,) = [e for e in readme_examples() if re.search(r"-o \S+\.png\b", e)]
    work = tmp_path / "work"
    (work / "examples" / "captures").mkdir(parents=True)
    for f in (REPO / "examples" / "captures").glob("*.csv"):
        shutil.copy(f, work / "examples" / "captures")
    env = _env(tmp_path, MPLCONFIGDIR=str(tmp_path / "mpl"))
    pdf_example = re.sub(r"(-o \S+)\.png\b", r"\1.pdf", png_example)
    analyze = next(e for e in readme_examples() if "--plot" in e)
    for cmd in (png_example, pdf_example, analyze):
        argv = shlex.split(cmd)
        argv[0] = str(with_plot / "bin" / "rtlab")
        r = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "Traceback" not in r.stderr, (cmd, r.stderr)
    png = work / re.search(r"-o (\S+\.png)", png_example)[1]  # type: ignore[index]
    pdf = work / re.search(r"-o (\S+\.pdf)", pdf_example)[1]  # type: ignore[index]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 5_000
    # `analyze --plot` with the extra: every plot as SVG and as PNG
    kinds = sorted(p.suffix for p in (work / "out" / "plots").iterdir())
    assert kinds == [".png"] * 3 + [".svg"] * 3, kinds
