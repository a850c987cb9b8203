"""The RTOSes rtbench runs on in QEMU: one module per RTOS, each naming its `RTOS`.

    port = RTOSES.get("freertos")
    port.missing(paths)                      # None, or one line: what the user must set
    port.build("mps2-an385", "default", paths)   # the ELF (cached)

Adding an RTOS is a module here (a base.PortBase subclass: its capabilities are declared
fields, its machines the machine files naming it) plus one line below; its C side is
workloads/rtbench/ports/<rtos>/ (docs/porting.md). The kernels themselves are the user's
own checkouts, named by environment variables (README: bring your own kernels).
"""

from __future__ import annotations

from rtlab.lab.rtos.base import RtosPort
from rtlab.registry import Registry

RTOSES: Registry[RtosPort] = Registry(
    "RTOS",
    {
        "freertos": "rtlab.lab.rtos.freertos",
        "zephyr": "rtlab.lab.rtos.zephyr",
        "nuttx": "rtlab.lab.rtos.nuttx",
        "ucos3": "rtlab.lab.rtos.ucos3",
    },
    attr="RTOS",
)
