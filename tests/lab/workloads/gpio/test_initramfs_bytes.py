"""An initramfs archive holds no time: the same tree gives the same bytes whenever it is
written, so a guest under QEMU icount unpacks it in the same instructions on every boot
(the GPIO icount page's figures repeat exactly only then)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rtlab.lab.gpio_guest import MKCPIO, cpio_members


def _archive(stage: Path, out: Path) -> bytes:
    subprocess.run([sys.executable, str(MKCPIO), str(stage), str(out)], check=True)
    return out.read_bytes()


def test_the_same_tree_written_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    (stage / "rtlab").mkdir(parents=True)
    script = stage / "rtlab" / "run.sh"
    script.write_text("echo hi\n")
    os.utime(script, (1_000_000, 1_000_000))
    first = _archive(stage, tmp_path / "a.cpio.gz")
    os.utime(script, (2_000_000, 2_000_000))  # a later build of the same file
    second = _archive(stage, tmp_path / "elsewhere.cpio.gz")  # another name too
    assert first == second
    assert "rtlab/run.sh" in cpio_members(tmp_path / "a.cpio.gz")
    script.write_text("echo ho\n")
    assert _archive(stage, tmp_path / "c.cpio.gz") != first  # the content still counts
