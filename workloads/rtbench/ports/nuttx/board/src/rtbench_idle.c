/*
 * The idle loop (CONFIG_ARCH_IDLE_CUSTOM=y). NuttX's Cortex-M up_idle() spins without
 * WFI, so under QEMU -icount ... sleep=off every idle microsecond is emulated
 * instruction by instruction (minutes per test). With WFI QEMU jumps its virtual clock
 * to the next timer event instead; the instructions a run counts are the same.
 */
#include <nuttx/config.h>
#include <nuttx/arch.h>

void up_idle(void)
{
    __asm__ volatile("dsb\n wfi" ::: "memory");
}
