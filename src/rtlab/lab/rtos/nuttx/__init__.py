"""NuttX: the user's apache/nuttx and nuttx-apps trees (NUTTX_PATH, NUTTX_APPS_PATH),
rtbench's POSIX port as a NuttX application on the project's own board, or on NuttX's
own board for a machine (its overlay's nuttx_own_board: SMP on the Cortex-A53 and the
Pico), or on an upstream board of the NuttX tree (build only)
(workloads/rtbench/ports/nuttx).

    port      NuttX, RTOS: the trees, what NuttX builds for a machine (core_of), build,
              build_baked, describe
    build     the build copy of the user's trees, configure, make (never in their trees)
    boards    an upstream board of the NuttX tree, with rtbench's settings appended
    baked     a board's UF2 with the options built in (NuttX's own board for it)
    legacy    the defconfig fragments in an older NuttX's spelling
    describe  what a run records: the kernel's version, the configuration that matters
"""

from rtlab.lab.rtos.nuttx.baked import build_nuttx_baked
from rtlab.lab.rtos.nuttx.boards import build_nuttx_board
from rtlab.lab.rtos.nuttx.build import Core, Trees, build_dir, build_nuttx, fragments
from rtlab.lab.rtos.nuttx.port import APPS_VAR, RTOS, TESTED, VAR, NuttX, core_of, trees

__all__ = [
    "APPS_VAR",
    "RTOS",
    "TESTED",
    "VAR",
    "Core",
    "NuttX",
    "Trees",
    "build_dir",
    "build_nuttx",
    "build_nuttx_baked",
    "build_nuttx_board",
    "core_of",
    "fragments",
    "trees",
]
