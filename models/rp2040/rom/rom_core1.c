/*
 * Core 1's wait loop (RP2040 datasheet 2.8.2, "launching code on core 1"): asleep until
 * core 0 sends, through the SIO FIFO, 0, 0, 1, the vector table, the stack pointer and
 * the entry point, each echoed back (a wrong echo restarts the sequence); then core 1
 * sets VTOR and SP and jumps to the entry. The model has no core 1 yet (issue 32): core
 * 0 never runs this, and an image that launches core 1 waits for its echo.
 */
#include "rom.h"

#define FIFO_VLD 1u
#define FIFO_RDY 2u
#define PPB_VTOR 0xe000ed08u

static uint32_t fifo_pop(void)
{
    while (!(REG(SIO_FIFO_ST) & FIFO_VLD))
        __asm__ volatile("wfe");
    return REG(SIO_FIFO_RD);
}

static void fifo_push(uint32_t v)
{
    while (!(REG(SIO_FIFO_ST) & FIFO_RDY))
        ;
    REG(SIO_FIFO_WR) = v;
    __asm__ volatile("sev");
}

void rom_core1_wait(void)
{
    uint32_t got[6];
    for (;;) {
        int i = 0;
        while (i < 6) {
            uint32_t v = fifo_pop();
            fifo_push(v);
            got[i] = v;
            /* 0, 0, 1 first: anything else starts over (0 restarts at its own slot) */
            if (i < 3 && v != (i == 2 ? 1u : 0u))
                i = v == 0 ? 1 : 0;
            else
                i++;
        }
        REG(PPB_VTOR) = got[3];
        __asm__ volatile("msr msp, %0\n bx %1" ::"r"(got[4]), "r"(got[5] | 1u));
    }
}
