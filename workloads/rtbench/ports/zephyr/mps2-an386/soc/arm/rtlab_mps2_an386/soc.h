/* SPDX-License-Identifier: Apache-2.0 */
/* QEMU mps2-an386: the CMSIS core settings come from Kconfig (CPU_HAS_ARM_MPU, FPU). */
#ifndef RTLAB_MPS2_AN386_SOC_H
#define RTLAB_MPS2_AN386_SOC_H
#define __MPU_PRESENT 1
#endif
