"""The RTOSes rtbench runs on: one package per RTOS, each naming its `RTOS`.

    port = RTOSES.get("freertos")
    port.missing(paths)                      # None, or one line: what the user must set
    port.build("mps2-an385", "default", paths)   # the ELF (cached)

Adding an RTOS is a package here, lab/rtos/<rtos>/ (its `__init__.py` binds `RTOS` to a
base.PortBase subclass's instance: its capabilities are declared fields; its machines are
its port folder's overlays; it exports what other modules use of it, and its parts sit
beside it, cut along their seams: port, build, describe, …) and its C side,
workloads/rtbench/ports/<rtos>/ (docs/porting.md). Nothing lists the RTOSes: the
registry is every package of this one whose `__init__.py` binds `RTOS` at its top level
(an assignment or an import), by package name, imported the first time it is asked for.
What all ports share stays here: base (the protocol, PortBase), firmware (what a target
builds), identity (a cell key's share of the build). The kernels themselves are the
user's own checkouts, named by environment variables (README: bring your own kernels).
"""

from __future__ import annotations

import ast
from pathlib import Path

from rtlab.lab.rtos.base import RtosPort
from rtlab.registry import Registry


def binds_rtos(init: Path) -> bool:
    """The module's top level binds `RTOS` (`RTOS = …`, `RTOS: … = …`, or `from … import
    RTOS`); read as text, so that nothing is imported."""
    for node in ast.parse(init.read_text(encoding="utf-8"), str(init)).body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        elif isinstance(node, ast.ImportFrom):
            names = [a.asname or a.name for a in node.names]
        else:
            continue
        if "RTOS" in names:
            return True
    return False


def discovered(here: Path = Path(__file__).parent) -> dict[str, str]:
    """name -> package of every RTOS package of this one (its `__init__.py` binds
    `RTOS`), sorted by name; `here`: this package's folder (or a copy of it)."""
    return {
        p.parent.name: f"{__name__}.{p.parent.name}"
        for p in sorted(here.glob("*/__init__.py"))
        if not p.parent.name.startswith("_") and binds_rtos(p)
    }


RTOSES: Registry[RtosPort] = Registry("RTOS", discovered(), attr="RTOS")
