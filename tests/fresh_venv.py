"""A fresh venv holding rtlab's wheel and exactly the distributions a test names, built
offline from this environment's installed files: the venv sees a folder of links to
their top-level files, so anything else (an extra's packages, the test tools) is absent
exactly as on a fresh `pip install` (tests/test_lean_install.py, test_plot_install.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from tests.locks import packaging_the_checkout
from tests.test_install import _check, _env

REPO = Path(__file__).resolve().parents[1]


def linked_site(tmp: Path, names: Iterable[str]) -> Path:
    """A folder of links to the top-level files of the named distributions (rtlab's own
    come from its wheel)."""
    site = tmp / "deps-site"
    site.mkdir()
    for name in sorted(set(names) - {"rtlab"}):
        dist = metadata.distribution(name)
        for top in {Path(str(f)).parts[0] for f in dist.files or []}:
            src = Path(str(dist.locate_file(top)))
            if src.exists() and not (site / top).exists() and top not in ("..", "bin"):
                (site / top).symlink_to(src)
    return site


def venv_with_rtlab(tmp: Path, names: Iterable[str]) -> Path:
    """A new venv with rtlab's wheel (built from this tree) and the named distributions."""
    wheel_dir = tmp / "wheel"
    with packaging_the_checkout():  # pip builds the wheel in this tree
        _check([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
                "--no-index", str(REPO), "-w", str(wheel_dir)], cwd=tmp)  # fmt: skip
    (wheel,) = wheel_dir.glob("rtlab-*.whl")
    v = tmp / "v"
    clean = _env(tmp)
    _check([sys.executable, "-m", "venv", "--without-pip", str(v)], env=clean)
    (site,) = v.glob("lib/python*/site-packages")
    (site / "rtlab-deps.pth").write_text(str(linked_site(tmp, names)) + "\n")
    _check([sys.executable, "-m", "pip", "--python", str(v / "bin" / "python"), "install",
            "-q", "--no-deps", "--no-index", str(wheel)], env=clean)  # fmt: skip
    return v
