"""The toolchain of a machine whose compiler (its machine file's) is Debian's
aarch64-linux-gnu-gcc, Zephyr's `cross-compile` toolchain (Zephyr's own
qemu_cortex_a53_smp board); every other machine builds with `gnuarmemb` (build).

Zephyr 3.4 asks a GCC older than 13 for `include-fixed/limits.h`; Debian's GCC 12 keeps
it in `include/` (as GCC 13 does), so the answer would be a relative path and CMake
refuses the build. The build therefore gets CROSS_COMPILE pointing at a shim directory
(build/rtbench-zephyr/aarch64-shim/): links to Debian's aarch64-linux-gnu-* tools and a
two-line gcc wrapper that answers that one question with include/limits.h. Nothing of
the user's Zephyr tree changes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

A53_COMPILER = "aarch64-linux-gnu-gcc"
PREFIX = "aarch64-linux-gnu-"
_WRAPPER = """#!/bin/sh
# rtlab (src/rtlab/lab/rtos/zephyr/toolchain.py): Debian's GCC 12 has limits.h in include/.
if [ "$1" = "--print-file-name=include-fixed/limits.h" ]; then
  exec {gcc} --print-file-name=include/limits.h
fi
exec {gcc} "$@"
"""


def a53_env(build_root: Path) -> dict[str, str]:
    """ZEPHYR_TOOLCHAIN_VARIANT and CROSS_COMPILE for the shim (made on first use)."""
    gcc = shutil.which(A53_COMPILER)
    shim = build_root / "aarch64-shim"
    if gcc is not None:
        _make_shim(shim, Path(gcc).parent)
    return {"ZEPHYR_TOOLCHAIN_VARIANT": "cross-compile", "CROSS_COMPILE": f"{shim}/{PREFIX}"}


def _make_shim(shim: Path, bindir: Path) -> None:
    shim.mkdir(parents=True, exist_ok=True)
    for tool in bindir.glob(f"{PREFIX}*"):
        link = shim / tool.name
        if tool.name != A53_COMPILER and not link.is_symlink():
            link.symlink_to(tool)
    wrapper = shim / A53_COMPILER
    text = _WRAPPER.format(gcc=bindir / A53_COMPILER)
    if not wrapper.is_file() or wrapper.read_text() != text:
        tmp = wrapper.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(wrapper)  # parallel builds never see half a script
