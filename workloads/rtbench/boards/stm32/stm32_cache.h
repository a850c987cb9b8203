/*
 * The first, cold sample of a series as K4perf's first run from flash: empties what
 * caches the flash path has. The F4's ART accelerator (instruction and data caches in
 * front of the flash, RM0383 3.4.2: reset only while disabled); the H7's Cortex-M7
 * instruction cache (ARMv7-M B2.2.7, ICIALLU). The L0 and F1 have a prefetch buffer
 * only, which the next sequential fetch refills anyway: nothing to empty. The state is
 * read back, not assumed: a tree that left a cache off (8 MHz) has nothing to flush, and
 * QEMU's netduinoplus2 (no FLASH model: ACR reads 0) neither.
 */
#ifndef STM32_CACHE_H
#define STM32_CACHE_H

#include "stm32_regs.h"

static inline int stm32_cache_on(void)
{
#if defined(STM32_F4)
    return (REG(FLASH_ACR) & (FLASH_ACR_ICEN | FLASH_ACR_DCEN)) != 0;
#elif defined(STM32_H7)
    return (REG(SCB_CCR) & SCB_CCR_IC) != 0;
#else
    return 0;
#endif
}

static inline void stm32_cache_cold(void)
{
#if defined(STM32_F4)
    uint32_t acr = REG(FLASH_ACR);
    uint32_t off = acr & ~(FLASH_ACR_ICEN | FLASH_ACR_DCEN);
    if (acr == off)
        return;
    REG(FLASH_ACR) = off;
    REG(FLASH_ACR) = off | FLASH_ACR_ICRST | FLASH_ACR_DCRST;
    REG(FLASH_ACR) = off;
    REG(FLASH_ACR) = acr;
#elif defined(STM32_H7)
    if (!stm32_cache_on())
        return;
    __asm__ volatile("dsb" ::: "memory");
    REG(SCB_ICIALLU) = 0;
    __asm__ volatile("dsb\n isb" ::: "memory");
#endif
}

/* meta cold: what stm32_cache_cold does on this chip as it was set up. */
static inline const char *stm32_cold(void)
{
    if (!stm32_cache_on())
        return "first_call";
#if defined(STM32_F4)
    return "art_reset";
#else
    return "icache_invalidated";
#endif
}

#endif
