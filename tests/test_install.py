"""rtlab as an installed tool: the sdist and the wheel built from it, installed into a
fresh venv, work from a directory outside the checkout — `analyze`, `convert`, `plot`,
`report`, and `run`, which builds the C workload shipped in the package into the user's
cache directory (or names the missing build tool in one line).

Offline: the wheel is built with this environment's setuptools (--no-build-isolation;
`make setup` installs setuptools>=77 with the dev extras) and installed with --no-deps;
the fresh venv finds numpy & co. through a .pth line naming this environment's
site-packages (a plain path: the editable install of the checkout there stays inactive).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.locks import packaging_the_checkout

REPO = Path(__file__).resolve().parents[1]
CAPTURE = REPO / "examples" / "captures" / "gpio-toggle-pio.csv"
SPEC = """\
name = "tiny"
conditions = ["idle"]

[[workload]]
kind = "rtlab-latency"
name = "wake"
method = ["abs"]
interval_us = 1000
duration = "200ms"
"""


def _setuptools_version() -> tuple[int, ...]:
    out = subprocess.run(
        [sys.executable, "-c", "import setuptools; print(setuptools.__version__)"],
        capture_output=True,
        text=True,
    ).stdout
    return tuple(int(x) for x in out.split(".")[:1] if x.isdigit())


def _check(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)  # type: ignore[call-overload]
    assert r.returncode == 0, f"{cmd}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with rtlab installed from a wheel built from the sdist."""
    if _setuptools_version() < (77,):
        pytest.fail("setuptools>=77 is not installed here: `make setup` installs it (dev extra)")
    tmp = tmp_path_factory.mktemp("install")
    sdist_dir, wheel_dir = tmp / "sdist", tmp / "wheel"
    sdist_dir.mkdir()
    with packaging_the_checkout():
        _check(
            [
                sys.executable,
                "-c",
                "import sys; from setuptools import build_meta as b; b.build_sdist(sys.argv[1])",
                str(sdist_dir),
            ],
            cwd=REPO,
        )
    (sdist,) = sdist_dir.glob("rtlab-*.tar.gz")
    _check(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            str(sdist),
            "-w",
            str(wheel_dir),
        ],
        cwd=tmp,
    )
    (wheel,) = wheel_dir.glob("rtlab-*.whl")
    v = tmp / "v"
    # without PYTHONPATH: a checkout on it (src/rtlab.egg-info) looks installed to pip
    clean = _env(tmp)
    _check([sys.executable, "-m", "venv", "--without-pip", str(v)], env=clean)
    (site,) = v.glob("lib/python*/site-packages")
    (site / "rtlab-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _check(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(v / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        env=clean,
    )
    return v


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: val for k, val in os.environ.items() if k not in ("PYTHONPATH", "RTLAB_STORE")}
    env.update(HOME=str(tmp / "home"), XDG_CACHE_HOME=str(tmp / "cache"), **extra)
    return env


def test_installed_wheel_works_outside_the_checkout(venv: Path, tmp_path: Path) -> None:
    rtlab = str(venv / "bin" / "rtlab")
    env = _env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(CAPTURE, work)

    def run(*args: str, **kw: str) -> subprocess.CompletedProcess[str]:
        return _check([rtlab, *args], cwd=work, env=env | kw)

    where = _check(
        [str(venv / "bin" / "python"), "-c", "import rtlab; print(rtlab.__file__)"],
        cwd=work,
        env=env,
    ).stdout
    assert where.startswith(str(venv)), where  # the installed copy, not the checkout's
    assert "D0:" in run("analyze", CAPTURE.name).stdout
    run("convert", CAPTURE.name, "cap.parquet")
    assert "D0:" in run("analyze", "cap.parquet").stdout
    run("plot", "cap.parquet", "-o", "cap.png")
    assert (work / "cap.png").stat().st_size > 0

    (work / "tiny.toml").write_text(SPEC)
    assert "ok" in run("run", "tiny.toml", "--store", "st/rtlab.duckdb").stdout
    exe = tmp_path / "cache" / "rtlab" / "build" / "rtlab-latency" / "rtlab-latency"
    assert os.access(exe, os.X_OK)  # built from the package's sources into the cache
    run("report", "--store", "st/rtlab.duckdb", "-o", "r.html")
    assert "wake@idle" in (work / "r.html").read_text()
    assert (
        "| wake@idle | latency | ok:1 |"
        in run("report", "--store", "st/rtlab.duckdb", "--md").stdout
    )


@pytest.mark.parametrize(
    ("present", "missing"), [((), "cmake"), (("cmake",), "a C compiler (cc, gcc or clang)")]
)
def test_missing_build_tool_is_one_line(
    venv: Path, tmp_path: Path, present: tuple[str, ...], missing: str
) -> None:
    bin_dir = tmp_path / "bin"  # PATH: only the tools `present`
    bin_dir.mkdir()
    for tool in present:
        (bin_dir / tool).symlink_to(shutil.which(tool) or pytest.fail(f"{tool} not installed"))
    (tmp_path / "tiny.toml").write_text(SPEC)
    r = subprocess.run(
        [str(venv / "bin" / "rtlab"), "run", "tiny.toml", "--store", "st/rtlab.duckdb"],
        cwd=tmp_path,
        env=_env(tmp_path, PATH=str(bin_dir)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0, r.stderr
    assert f"needs {missing}, which is not installed" in r.stderr
    assert "Traceback" not in r.stderr


def _closure(name: str) -> dict[str, int]:
    """Installed size in bytes of `name` and every distribution it requires (without
    extras), from each distribution's RECORD: the analysis-only install, measured
    offline from this environment."""
    import re
    from importlib import metadata

    sizes: dict[str, int] = {}
    todo = [name]
    while todo:
        dist = metadata.distribution(todo.pop())
        key = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
        if key in sizes:
            continue
        sizes[key] = sum(f.size or 0 for f in dist.files or [])
        for req in dist.requires or []:
            spec, _, marker = req.partition(";")
            if "extra" in marker:
                continue
            if marker.strip() and not _marker_holds(marker):
                continue
            todo.append(re.split(r"[\s<>=!~\[(]", spec.strip(), maxsplit=1)[0])
    return sizes


def _marker_holds(marker: str) -> bool:
    from packaging.markers import Marker

    return Marker(marker.strip()).evaluate()


def test_analysis_only_install_is_lean() -> None:
    """`pip install .` (no extras) is at most 250 MB of packages: no pyarrow,
    matplotlib or the lab's dependencies."""
    sizes = _closure("rtlab")
    sizes.pop("rtlab", None)
    total = sum(sizes.values())
    listing = ", ".join(
        f"{k} {v / 1e6:.0f} MB" for k, v in sorted(sizes.items(), key=lambda x: -x[1])
    )
    print(f"analysis-only install: {len(sizes)} packages, {total / 1e6:.0f} MB: {listing}")
    assert not {"pyarrow", "matplotlib", "labgrid", "pyserial"} & set(sizes), listing
    assert total <= 250e6, listing
