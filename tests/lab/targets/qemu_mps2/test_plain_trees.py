"""A kernel brought as a plain tree (a release tarball: no `.git`) is labelled with the
version the tree itself states, or "unknown version (tree <fingerprint>)": never a
made-up number ("NuttX 0.0.0" in every comparison column). Every
RTOS's identity code, on copies of the real kernel trees without their `.git`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rtlab.catalog.rtoses import shown_version
from rtlab.lab.targets.base import make_target
from tests.needs import brought

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)


def _plain_copy(tree: str, dest: Path) -> Path:
    """The tree as a release tarball unpacks: every file (hard links: no 400 MB copy),
    no .git."""
    subprocess.run(["cp", "-al", tree, str(dest)], check=True)
    shutil.rmtree(dest / ".git", ignore_errors=True)
    (dest / ".git").unlink(missing_ok=True)  # a worktree's .git file
    return dest


def _version(rtos: str, paths: dict[str, str]) -> str:
    return str(
        make_target({"kind": "qemu", "rtos": rtos, "rtos_paths": paths}).describe()["rtos_version"]
    )


@pytest.fixture(scope="module")
def nuttx_plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    nuttx = brought("NUTTX_PATH", "an apache/nuttx checkout", "README: bring your own kernels")
    apps = brought("NUTTX_APPS_PATH", "an apache/nuttx-apps checkout", "README")
    return _plain_copy(nuttx, tmp_path_factory.mktemp("plain") / "nuttx"), apps


def test_nuttx_plain_tree_without_a_version_file_is_unknown_not_0_0_0(
    nuttx_plain: tuple[Path, str],
) -> None:
    tree, apps = nuttx_plain
    (tree / ".version").unlink(missing_ok=True)
    got = _version("nuttx", {"NUTTX_PATH": str(tree), "NUTTX_APPS_PATH": apps})
    assert re.fullmatch(r"unknown version \(tree [0-9a-f]{16}\)", got), got
    # what NuttX's own build writes into such a tree: its placeholder, still unknown
    subprocess.run(["tools/version.sh", ".version"], cwd=tree, check=True, capture_output=True)
    assert 'CONFIG_VERSION_STRING="0.0.0"' in (tree / ".version").read_text()
    again = _version("nuttx", {"NUTTX_PATH": str(tree), "NUTTX_APPS_PATH": apps})
    assert again.startswith("unknown version (tree "), again


def test_nuttx_release_tarball_states_its_version(nuttx_plain: tuple[Path, str]) -> None:
    tree, apps = nuttx_plain
    # what a release tarball carries (tools/zipme.sh runs version.sh -v VERSION)
    subprocess.run(
        ["tools/version.sh", "-v", "12.8.0", "-b", "0", ".version"],
        cwd=tree,
        check=True,
        capture_output=True,
    )
    assert _version("nuttx", {"NUTTX_PATH": str(tree), "NUTTX_APPS_PATH": apps}) == "12.8.0"


def test_freertos_plain_tree_states_its_version_in_task_h(tmp_path: Path) -> None:
    kernel = brought("FREERTOS_KERNEL_PATH", "a FreeRTOS-Kernel checkout", "README")
    tree = _plain_copy(kernel, tmp_path / "freertos")
    stated = re.search(
        r'tskKERNEL_VERSION_NUMBER\s+"([^"]+)"', (tree / "include" / "task.h").read_text()
    )
    assert stated is not None
    assert _version("freertos", {"FREERTOS_KERNEL_PATH": str(tree)}) == stated.group(1)


def test_ucos3_plain_tree_states_its_version_in_os_h(tmp_path: Path) -> None:
    root = brought("UCOS3_PATH", "the uC-OS3, uC-CPU and uC-LIB checkouts", "README")
    tree = _plain_copy(root, tmp_path / "ucos3")
    for git in tree.glob("*/.git"):
        shutil.rmtree(git, ignore_errors=True)
    got = _version("ucos3", {"UCOS3_PATH": str(tree)})
    assert re.fullmatch(r"V\d+\.\d\d\.\d\d", got), got


def test_a_tree_without_a_version_is_unknown_with_its_fingerprint(tmp_path: Path) -> None:
    """The rule for every port: a tree that states no version (here a FreeRTOS tree whose
    task.h lost its define) is "unknown version (tree …)"."""
    kernel = brought("FREERTOS_KERNEL_PATH", "a FreeRTOS-Kernel checkout", "README")
    tree = tmp_path / "freertos"
    shutil.copytree(kernel, tree, ignore=shutil.ignore_patterns(".git", "portable"))
    task_h = tree / "include" / "task.h"
    task_h.write_text(re.sub(r"#define\s+tskKERNEL_VERSION_NUMBER[^\n]*", "", task_h.read_text()))
    got = _version("freertos", {"FREERTOS_KERNEL_PATH": str(tree)})
    assert re.fullmatch(r"unknown version \(tree [0-9a-f]{16}\)", got), got


@pytest.mark.parametrize(
    ("recorded", "reported", "shown"),
    [
        ("", "0.0.0", "unknown version"),  # a NuttX run stored before this fix
        ("", "0", "unknown version"),  # the port template's placeholder
        ("", "V11.3.0", "V11.3.0"),
        ("12.8.0", "0.0.0", "12.8.0"),
        (
            "unknown version (tree 0123456789abcdef)",
            "0.0.0",
            "unknown version (tree 0123456789abcdef)",
        ),
    ],
)
def test_a_firmware_placeholder_is_never_shown_as_a_version(
    recorded: str, reported: str, shown: str
) -> None:
    assert shown_version(recorded, reported) == shown
