"""What an emulated figure models: the label a table or page prints beside it."""

from __future__ import annotations

# rtlab.lab.qemu.cycles: the QEMU cycles plugin's figures
QEMU_CYCLES = "cycle-approximate: QEMU + rtlab's timing tables, not silicon"
