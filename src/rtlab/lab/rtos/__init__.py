"""The RTOSes rtbench runs on in QEMU: one module per RTOS, each naming its `RTOS`.

    port = RTOSES.get("freertos")
    port.missing(paths)                      # None, or one line: what the user must set
    port.build("mps2-an385", "default", paths)   # the ELF (cached)

Adding an RTOS is a module here (a base.PortBase subclass assigned to a top-level
`RTOS = …`: its capabilities are declared fields; its machines are its port folder's
overlays) and its C side, workloads/rtbench/ports/<rtos>/ (docs/porting.md). Nothing lists the
RTOSes: the registry is every module of this package that assigns `RTOS` at its top
level, by module name, imported the first time it is asked for. The kernels themselves
are the user's own checkouts, named by environment variables (README: bring your own
kernels).
"""

from __future__ import annotations

import re
from pathlib import Path

from rtlab.lab.rtos.base import RtosPort
from rtlab.registry import Registry

_DECLARES_RTOS = re.compile(r"^RTOS\s*[:=]", re.MULTILINE)


def discovered(here: Path = Path(__file__).parent) -> dict[str, str]:
    """name -> module of every RTOS module of this package (its source assigns `RTOS` at
    the top level; read as text, so that nothing is imported), sorted by name; `here`:
    the package's folder (or a copy of it)."""
    return {
        p.stem: f"{__name__}.{p.stem}"
        for p in sorted(here.glob("*.py"))
        if not p.stem.startswith("_") and _DECLARES_RTOS.search(p.read_text(encoding="utf-8"))
    }


RTOSES: Registry[RtosPort] = Registry("RTOS", discovered(), attr="RTOS")
