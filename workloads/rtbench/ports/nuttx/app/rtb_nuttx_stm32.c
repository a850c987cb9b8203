/*
 * rtbench on NuttX on an upstream STM32 Nucleo board (NuttX's boards/arm/stm32xx/nucleo-xx,
 * its nsh configuration without the shell; docs/boards.md): the POSIX port timed by DWT
 * CYCCNT at the board's SYSCLK (NuttX's board.h: STM32_SYSCLK_FREQUENCY), or on the L0's
 * Cortex-M0+, which has no DWT cycle counter, by TIM2 (16 bits, extended in software:
 * reads must come within 2 ms of each other). The console is the board's ST-LINK UART;
 * nothing answers semihosting on silicon, so the end is `rtbench: done errors=N` and the
 * options are built in (RTB_NUTTX_ARGS). Same interface as rtb_nuttx_mps2.c (rtb_nuttx_board.h).
 */
#include <nuttx/config.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <arch/board/board.h>

#if defined(CONFIG_ARCH_CHIP_STM32L0)
#define STM32_L0 1
#elif defined(CONFIG_ARCH_CHIP_STM32F1)
#define STM32_F1 1
#elif defined(CONFIG_ARCH_CHIP_STM32H7)
#define STM32_H7 1
#else
#define STM32_F4 1
#endif
#include "mps2.h"
#include "rtb_nuttx_board.h"
#include "rtb_posix.h"
#include "rtbench_port.h"
#include "stm32_cache.h"
#include "stm32_regs.h"

#ifndef RTB_NUTTX_ARGS
#define RTB_NUTTX_ARGS ""
#endif

static uint64_t base_us;

#if defined(STM32_L0)
static uint32_t ts(void)
{
    static uint32_t high, last;
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    uint32_t now = REG(TIM_CNT(TIM2_BASE)) & 0xFFFFu;
    if (now < last)
        high += 0x10000u;
    last = now;
    uint32_t r = high | now;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return r;
}

static void counter_init(void)
{
    REG(RCC_APB1ENR) |= RCC_APB1ENR_TIM2;
    (void)REG(RCC_APB1ENR);
    REG(TIM_PSC(TIM2_BASE)) = 0;
    REG(TIM_ARR(TIM2_BASE)) = 0xFFFFu;
    REG(TIM_EGR(TIM2_BASE)) = TIM_EGR_UG;
    REG(TIM_CR1(TIM2_BASE)) = TIM_CR1_CEN;
}
#define COUNTER "tim2"
/* TIM2's clock: PCLK1, twice it when the board's APB1 prescaler divides (RM0367 7.2) */
#if defined(STM32_APB1_TIM2_CLKIN)
#define COUNTER_HZ STM32_APB1_TIM2_CLKIN
#elif STM32_PCLK1_FREQUENCY == STM32_HCLK_FREQUENCY
#define COUNTER_HZ STM32_PCLK1_FREQUENCY
#else
#define COUNTER_HZ (2u * STM32_PCLK1_FREQUENCY)
#endif
#else
static uint32_t ts(void) { return REG(DWT_CYCCNT); }

static void counter_init(void)
{
    REG(DEMCR) |= DEMCR_TRCENA;
#if defined(STM32_H7)
    REG(DWT_LAR) = DWT_LAR_KEY;
#endif
    REG(DWT_CTRL) |= DWT_CTRL_CYCCNTENA;
}
#define COUNTER "dwt_cyccnt"
#define COUNTER_HZ STM32_SYSCLK_FREQUENCY
#endif

static uint64_t time_us(void)
{
    /* NuttX's clock: the tick's resolution, enough for windows and timeouts. */
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u - base_us;
}

static rtb_posix_board_clock clock_desc;

void rtb_nuttx_board_init(void)
{
    counter_init();
    base_us = time_us();
    clock_desc.board = BOARD_MACHINE;
    clock_desc.clock = COUNTER;
    clock_desc.cpu_hz = STM32_SYSCLK_FREQUENCY;
    clock_desc.ts_hz = COUNTER_HZ;
    clock_desc.ts = ts;
    clock_desc.time_us = time_us;
    clock_desc.cache_cold = stm32_cache_cold; /* NuttX's board code set the caches up */
    clock_desc.cold = stm32_cold();
    rtb_posix_set_board_clock(&clock_desc);
}

void rtb_nuttx_board_note_warnings(void)
{
    rtb_port_note_warning("nuttx_clock",
                          "NuttX's clock_gettime ticks at 1 ms: windows read it, samples "
                          "read " COUNTER "; timeouts round up to the tick");
    rtb_port_note_warning("swi_is_thread",
                          "the software interrupt is the POSIX port's: a priority-90 "
                          "thread woken by a real-time signal (pthread_kill), not an "
                          "NVIC interrupt as on FreeRTOS: irq/T4/T5 include signal "
                          "delivery and a context switch");
}

const char *rtb_nuttx_cmdline(void) { return RTB_NUTTX_ARGS; }

void rtb_nuttx_exit(int status)
{
    printf("rtbench: done errors=%d\n", status);
    fflush(stdout);
    for (;;)
        sleep(1);
}
