"""The board layers: every machine rtbench builds for, as data.

A board layer is a folder `workloads/rtbench/boards/<layer>/` (its C code, its CMake
project when it has one) plus its machine files `machines/<machine>.toml`: one file per
machine, read by the C build (boards/cmake/board_description.cmake) and by rtlab
(`rtlab.catalog.machines.MACHINES`). Every fact of a machine (its QEMU binary and arguments, cores,
counter and clock, RAM) is in its file; which RTOSes run on it, each RTOS's overlay says
(rtlab.catalog.rtoses); nothing in Python
names a machine. Adding a board is its folder and its machine files (docs/porting.md).
Python here is a board family's behaviour: `layers` (our CMake board layers, built from
their files' build_dir/options_var/chip, over `cmake_layer`'s configure-and-build), `pico_sdk`
(the Pico's images on the user's pico-sdk), `uf2_image` (baked UF2 images).

    from rtlab.catalog.machines import MACHINES, qemu_machines
    MACHINES.get("mps2-an521").cores      # 2
    qemu_machines()                       # the `qemu` target's machines
"""
