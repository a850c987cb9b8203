# SPDX-License-Identifier: Apache-2.0
# rtlab runs it (rtlab.lab.targets.qemu); `west build -t run` would do this:
set(SUPPORTED_EMU_PLATFORMS qemu)
set(QEMU_CPU_TYPE_${ARCH} cortex-m4)
set(QEMU_FLAGS_${ARCH} -cpu ${QEMU_CPU_TYPE_${ARCH}} -machine mps2-an386 -nographic)
