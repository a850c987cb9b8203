/*
 * The rtb_board_* hooks of an STM32 board (the mps2 layer's board_hooks.c is its QEMU
 * twin): the counter (DWT CYCCNT, or TIM2), the marker pin, the UART, the software
 * interrupt lines, and what the figures are: cycles of the chip's clock on silicon, an
 * instruction-count model on QEMU's netduinoplus2 (`emulated = 1` in its description).
 * The software-interrupt lines, options and exit: the mps2 layer's board_lines.c.
 */
#include "board_hooks.h"

#include "stm32.h"
#include "stm32_cache.h"

#if defined(STM32_EMULATED)
static uint32_t ips, icount_hz;
#endif
static uint64_t time_base_ticks;

void rtb_mps2_board_init(uint32_t swi_priority)
{
    mps2_uart_init(); /* the clock tree first (stm32.c) */
    mps2_timer_init();
#if defined(STM32_EMULATED)
    ips = mps2_measure_ips();
    icount_hz = mps2_icount_hz(ips);
#endif
    rtb_mps2_core_lines_init(swi_priority);
    time_base_ticks = mps2_time_ticks();
}

const char *rtb_board_name(void) { return mps2_machine(); }

#if defined(STM32_EMULATED)
const char *rtb_board_clock(void) { return icount_hz ? BOARD_COUNTER "_icount" : BOARD_COUNTER; }
uint32_t rtb_board_cpu_hz(void) { return icount_hz ? icount_hz : ips; }
uint32_t rtb_board_ts_hz(void) { return BOARD_COUNTER_HZ; }
#else
/* Both counters run at SYSCLK on every tree here (the L0's TIM2: APB1 undivided). */
const char *rtb_board_clock(void) { return BOARD_COUNTER; }
uint32_t rtb_board_cpu_hz(void) { return stm32_sysclk_hz; }
uint32_t rtb_board_ts_hz(void) { return stm32_sysclk_hz; }
#endif
uint32_t rtb_board_ts(void) { return mps2_ts(); }
uint32_t rtb_board_ts_mask(void) { return BOARD_TS_MASK; }
uint64_t rtb_board_time_us(void)
{
    return (mps2_time_ticks() - time_base_ticks) * 1000000u / rtb_board_ts_hz();
}

/* The study's pin (the Nucleo-64's LED, PA5): channel 0, the one the scenarios use. */
void rtb_board_marker(int ch, int on)
{
    if (ch == 0)
        stm32_marker(on);
}

void rtb_board_out(const char *s, size_t n) { mps2_uart_write(s, n); }

void rtb_board_cache_cold(void) { stm32_cache_cold(); }
const char *rtb_board_cold(void) { return stm32_cold(); }

const char *rtb_board_warning(const char **msg)
{
#if defined(STM32_EMULATED)
    _Static_assert(BOARD_COUNTER_HZ == 1000000000u, "the warning names a 1 GHz TIM2: reword it");
    if (icount_hz) {
        *msg = "QEMU netduinoplus2 -icount: TIM2 runs in virtual time (one 1 GHz tick = one "
               "instruction at shift 0): an instruction-count model of the STM32F4 layer, "
               "not time on silicon";
        return "icount_model";
    }
    *msg = "QEMU runs without -icount: the timer follows host time, figures are not "
           "deterministic and not an instruction-count model";
    return "no_icount";
#else
    if (stm32_sysclk_hz != STM32_SYSCLK_HZ) {
        *msg = "no HSE clock from the ST-LINK (MCO solder bridges?): the chip runs on its "
               "8 MHz HSI, not the built sysclk_hz; the RTOS tick is slow by that ratio";
        return "clock_fallback";
    }
    return NULL;
#endif
}
