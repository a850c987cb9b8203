"""Why the GPIO guest cannot boot, and whose fault it is: a missing package is rtlab's
set-up's (make run exits 1), a kernel the archive could not deliver is not (exit 0)."""

from __future__ import annotations

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
