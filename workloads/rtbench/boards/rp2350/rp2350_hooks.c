/*
 * The rtb_board_* hooks of the Pico 2 (the mps2 layer's board_hooks.c is its QEMU twin,
 * boards/stm32's stm32_hooks.c its Nucleo one): DWT CYCCNT at clk_sys for the samples,
 * TIMER0 (1 MHz, 64 bits) for windows, the marker pins, UART0, the RP2350's spare IRQs
 * (SPAREIRQ_IRQ_0..3, 46..49) as software interrupts (the mps2 layer's board_lines.c),
 * and the XIP cache for K4perf's cold start.
 */
#include "board_hooks.h"

#include "rp2350.h"

#define PORT_OPEN_US 2000000u /* the uf2 copy reboots the board before the port opens */

static uint64_t time_base_us;

void rtb_mps2_board_init(uint32_t swi_priority)
{
    mps2_uart_init(); /* the clock tree first (rp2350.c) */
    mps2_timer_init();
    rtb_mps2_core_lines_init(swi_priority);
    uint64_t t0 = rp2350_time_us();
    while (rp2350_time_us() - t0 < PORT_OPEN_US) /* before the first byte, as the Pico */
        ;
    time_base_us = rp2350_time_us();
}

const char *rtb_board_name(void) { return mps2_machine(); }
const char *rtb_board_clock(void) { return BOARD_COUNTER; }
uint32_t rtb_board_cpu_hz(void) { return rp2350_sysclk_hz; }
uint32_t rtb_board_ts(void) { return mps2_ts(); }
uint32_t rtb_board_ts_hz(void) { return rp2350_sysclk_hz; }
uint32_t rtb_board_ts_mask(void) { return BOARD_TS_MASK; }
uint64_t rtb_board_time_us(void) { return rp2350_time_us() - time_base_us; }

/* Channel 0 on the description's marker pin (GP2), channels 1..3 on the pins after it. */
void rtb_board_marker(int ch, int on) { rp2350_marker(ch, on); }

void rtb_board_out(const char *s, size_t n) { mps2_uart_write(s, n); }

/* K4perf's cold start: code runs from flash through the XIP cache (the M33 has no cache
 * of its own), so the first run after an invalidate fetches every line from flash. */
void rtb_board_cache_cold(void) { rp2350_xip_cache_invalidate(); }
const char *rtb_board_cold(void) { return "xip_cache_invalidated"; }

const char *rtb_board_warning(const char **msg)
{
    (void)msg;
    return NULL; /* time on silicon: DWT cycles of clk_sys */
}
