"""QEMU as a device, shared by every target that runs it (the `qemu` and `qemu_gpio` target
kinds, the serial target's `qemu` flasher, a labgrid place's QEMU board): invocation (the
version, the command line, the icount options and the labels that say a figure is an
instruction-count model), machine (a machine file's QEMU machine run to its exit), timing
(icount vs parallel TCG), and the cycles plugin: cycles (its capture), cycles_figures,
cycles_check, cycles_output (a run restated in cycles)."""
