#!/usr/bin/env python3
"""Write a gzip'd newc cpio archive (the initramfs format) from a directory tree.

    mkcpio.py ROOT OUT.cpio.gz

The host has no `cpio` by default; this keeps the guest build to Debian's base tools.
Every file is owned by root (uid/gid 0) whatever the builder's uid. The archive holds
no time (every mtime 0, the gzip header's too): the same tree gives the same bytes, so
a guest under QEMU icount unpacks it in the same instructions on every boot (a changed
byte changes what inflate does, and with it every figure's phase against the timer).
"""

from __future__ import annotations

import gzip
import os
import stat
import sys
from pathlib import Path


def _entry(out: gzip.GzipFile, name: str, st: os.stat_result | None, data: bytes, ino: int) -> None:
    mode = st.st_mode if st else 0
    nlink = 2 if stat.S_ISDIR(mode) else 1
    mtime = 0
    fields = [0x070701, ino, mode, 0, 0, nlink, mtime, len(data), 0, 0, 0, 0, len(name) + 1, 0]
    hdr = "".join(f"{v:06X}" if i == 0 else f"{v:08X}" for i, v in enumerate(fields))
    hdr = "070701" + hdr[6:]
    blob = hdr.encode() + name.encode() + b"\0"
    blob += b"\0" * (-len(blob) % 4)
    out.write(blob + data + b"\0" * (-len(data) % 4))


def write_cpio(root: Path, dest: Path) -> None:
    paths = sorted(p for p in root.rglob("*"))
    with open(dest, "wb") as raw, gzip.GzipFile("", "wb", 6, raw, mtime=0) as out:
        for ino, p in enumerate(paths, start=1):
            st = p.lstat()
            rel = str(p.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                data = os.readlink(p).encode()
            elif stat.S_ISREG(st.st_mode):
                data = p.read_bytes()
            else:
                data = b""
            _entry(out, rel, st, data, ino)
        _entry(out, "TRAILER!!!", None, b"", 0)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mkcpio.py ROOT OUT.cpio.gz")
    write_cpio(Path(sys.argv[1]), Path(sys.argv[2]))
