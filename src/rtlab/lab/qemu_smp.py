"""QEMU machines with application cores, beside the Cortex-M ones of the `qemu` target
(rtlab.lab.targets.qemu_mps2 picks this module's command line by machine name).

`virt-a53`: QEMU's `virt` board with two Cortex-A53s, GICv3 and EL2 (virtualization=on,
as NuttX's qemu-armv8a expects; Zephyr's qemu_cortex_a53_smp runs there with PSCI over
SMC), 256 MiB of RAM, the PL011 on stdout and no network card (a fresh Debian has no
efi-virtio.rom). The firmware reads its options and ends QEMU with its status through
AArch64 semihosting, as the mps2 builds do.

    smp_argv("rtbench.elf", "virt-a53", None, append="--scenarios scalability")
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rtlab.lab.qemu import icount_args, semihosting_args
from rtlab.lab.qemu_timing import parallel_args


@dataclass(frozen=True)
class SmpMachine:
    title: str  # for tables and messages
    qemu: str  # the QEMU binary that emulates it
    cores: int
    args: tuple[str, ...]  # what selects and shapes the board


SMP_MACHINES = {
    "virt-a53": SmpMachine(
        "2 x Cortex-A53 (QEMU virt, GICv3)",
        "qemu-system-aarch64",
        2,
        ("-M", "virt,virtualization=on,gic-version=3", "-cpu", "cortex-a53", "-smp", "2",
         "-m", "256M", "-nic", "none"),
    ),
}  # fmt: skip


def smp_argv(
    elf: str,
    machine: str,
    icount_shift: int | None,
    extra: Sequence[str] = (),
    append: str = "",
    qemu: str | None = None,
) -> list[str]:
    """The machine's command line: no display or monitor, the console on stdout,
    semihosting for the options and the exit, icount or one host thread per core."""
    m = SMP_MACHINES[machine]
    argv = [qemu or m.qemu, *m.args, "-display", "none", "-monitor", "none", "-serial", "stdio"]
    argv += semihosting_args(append.split())
    argv += icount_args(icount_shift)
    argv += parallel_args(m.cores, icount_shift)
    return [*argv, "-kernel", elf, *extra]
