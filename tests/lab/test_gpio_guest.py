"""Why the GPIO guest cannot boot, and whose fault it is: a missing package is rtlab's
set-up's (make run exits 1), a kernel the archive could not deliver is not (exit 0)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from rtlab.lab import gpio_guest as gg


@pytest.fixture
def guest_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(gg, "GUEST_DIR", tmp_path)
    monkeypatch.setattr(gg, "FETCH_FAILED", tmp_path / "dl" / "fetch-failed")
    (tmp_path / "dl").mkdir()
    return tmp_path


def test_missing_package_is_fixable(guest_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(guest_dir))  # no qemu, no cross compiler on this PATH
    u = gg.availability()
    assert u is not None and u.fixable
    assert "qemu-system-aarch64" in u.reason and "make setup" in u.fix


def test_kernel_not_fetched_yet_is_fixable(guest_dir: Path) -> None:
    u = gg.availability()
    assert u is not None and u.fixable and "make setup" in u.fix


def test_archive_unreachable_is_not_fixable(guest_dir: Path) -> None:
    gg.FETCH_FAILED.write_text("apt-get download linux-image-6.1.0-56-arm64:arm64 failed\n")
    u = gg.availability()
    assert u is not None and not u.fixable
    assert "apt-get download linux-image-6.1.0-56-arm64:arm64 failed" in u.reason
    assert str(u) == f"{u.reason} — {u.fix}"


def test_kernel_and_busybox_there(guest_dir: Path) -> None:
    (guest_dir / "dl" / "vmlinuz").write_bytes(b"k")
    (guest_dir / "dl" / "busybox").write_bytes(b"b")
    assert gg.availability() is None


def test_cpio_members_reads_concatenated_archives(tmp_path: Path) -> None:
    base, extra = tmp_path / "base", tmp_path / "extra"
    (base / "rtlab").mkdir(parents=True)
    (base / "rtlab" / "run.sh").write_text("old\n")
    (base / "bin").mkdir()
    (base / "bin" / "sh").symlink_to("busybox")
    (extra / "rtlab").mkdir(parents=True)
    (extra / "rtlab" / "run.sh").write_text("new\n")
    write = gg._write_cpio()
    write(base, tmp_path / "a.cpio.gz")
    write(extra, tmp_path / "b.cpio.gz")
    both = tmp_path / "both.cpio.gz"
    both.write_bytes((tmp_path / "a.cpio.gz").read_bytes() + (tmp_path / "b.cpio.gz").read_bytes())
    m = gg.cpio_members(both)
    assert m["rtlab/run.sh"][1] == b"new\n"  # the later archive wins, as in the kernel
    assert m["bin/sh"][1] == b"busybox" and set(m) == {"rtlab", "rtlab/run.sh", "bin", "bin/sh"}


def test_cpio_members_names_a_truncated_archive(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_bytes(b"x" * 1000)
    gg._write_cpio()(tmp_path / "d", tmp_path / "a.cpio.gz")
    cut = tmp_path / "cut.cpio.gz"
    cut.write_bytes(gzip.compress(gzip.decompress((tmp_path / "a.cpio.gz").read_bytes())[:500]))
    with pytest.raises(gg.GuestError, match=r"cut\.cpio\.gz: member at offset 0 runs past"):
        gg.cpio_members(cut)
    cut.write_bytes(b"not gzip")
    with pytest.raises(gg.GuestError, match=r"cut\.cpio\.gz: not a gzip'd cpio"):
        gg.cpio_members(cut)
