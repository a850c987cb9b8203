/* What the bare-metal Cortex-M start-up files (qemu-mps2/startup.c, shared by the stm32
 * and rp2350 layers; rp2040/bare/startup.c) share: the C run-time's symbols from their
 * linker scripts (mps2.ld.in, rp2040_bare.ld: the same names) and its set-up before
 * main(). Inline: each Reset handler compiles to the code it was (the RP2040 model's
 * figures depend on the images' code addresses). Included by a relative path. */
#ifndef RTB_CORTEXM_CRT_H
#define RTB_CORTEXM_CRT_H

#include <stdint.h>

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end;
extern int main(void);

/* .data copied from its load address (flash) to its place in SRAM, .bss cleared. */
static inline void crt_init_ram(void)
{
    uint32_t *src = &__data_load;
    for (uint32_t *dst = &__data_start; dst < &__data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = &__bss_start; dst < &__bss_end;)
        *dst++ = 0;
}

#endif
