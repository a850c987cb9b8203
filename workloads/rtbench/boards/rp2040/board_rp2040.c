/*
 * rtbench on the RP2040 (Raspberry Pi Pico): the RTOS-independent rtb_board_* hooks (its
 * software-interrupt lines: board_rp2040_lines.c; RTOS hooks: ports/<rtos>/boards/rp2040.c).
 *
 * - Counter: PWM slice 7's counter, free-running at clk_sys (125 MHz), 16 bits: one
 *   peripheral both cores read, cycle resolution (the M0+ has no DWT cycle counter);
 *   differences are right for intervals below 524 us. -DRTB_PICO_COUNTER_TIMER=1 uses
 *   the 1 MHz TIMERAWL instead (32 bits, 1 us resolution, what the capture module
 *   timestamps in).
 * - Markers: GP2..GP5 for channels 0..3, one SIO set/clear write each, for a logic
 *   analyzer or the rtlab RP2040 capture module; GP6 is the external interrupt's input
 *   (an input with pull-down: wire GP5 to it for rtbench --irq-ext).
 * - Output: UART0 on GP0 (TX) / GP1 (RX), 115200 8N1, polled.
 */
#include "hardware/clocks.h"
#include "hardware/gpio.h"
#include "hardware/irq.h"
#include "hardware/pwm.h"
#include "hardware/structs/sio.h"
#include "hardware/structs/timer.h"
#include "hardware/structs/xip_ctrl.h"
#include "hardware/uart.h"
#include "pico/time.h"

#include "board_rp2040.h"
#include "rtb_emit.h"     /* rtb_done_line */
#include "rtbench_port.h" /* RTB_RAMFUNC, rtb_sleep_us */

#define MARKER_PIN0 RTB_PICO_MARKER_PIN0
#define MARKERS 4
#define COUNTER_SLICE 7 /* GP14/GP15: left as plain GPIOs, the slice is never routed */

void rtb_board_init(void)
{
    uart_init(uart0, 115200);
    gpio_set_function(0, GPIO_FUNC_UART);
    gpio_set_function(1, GPIO_FUNC_UART);
    for (int ch = 0; ch < MARKERS; ch++) {
        gpio_init(MARKER_PIN0 + ch);
        gpio_set_dir(MARKER_PIN0 + ch, GPIO_OUT);
        gpio_put(MARKER_PIN0 + ch, 0);
    }
    gpio_init(RTB_PICO_EXT_IN_PIN); /* an input, pulled down while nothing drives it */
    gpio_pull_down(RTB_PICO_EXT_IN_PIN);
    pwm_config c = pwm_get_default_config(); /* divider 1, wrap 0xFFFF, free-running */
    pwm_init(COUNTER_SLICE, &c, true);
}

const char *rtb_board_name(void) { return "pico"; }

#if defined(RTB_PICO_COUNTER_TIMER) && RTB_PICO_COUNTER_TIMER
const char *rtb_board_clock(void) { return "rp2040_timerawl"; }
uint32_t rtb_board_ts(void) { return timer_hw->timerawl; }
uint32_t rtb_board_ts_hz(void) { return 1000000u; }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFFFFFu; }
#else
const char *rtb_board_clock(void) { return "rp2040_pwm7_sysclk"; }
uint32_t rtb_board_ts(void) { return pwm_hw->slice[COUNTER_SLICE].ctr; }
uint32_t rtb_board_ts_hz(void) { return clock_get_hz(clk_sys); }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFu; }
#endif

uint32_t rtb_board_cpu_hz(void) { return clock_get_hz(clk_sys); }
uint64_t rtb_board_time_us(void) { return time_us_64(); }

RTB_RAMFUNC void rtb_board_marker(int ch, int on)
{
    uint32_t bit = 1u << (MARKER_PIN0 + (ch & (MARKERS - 1)));
    if (on)
        sio_hw->gpio_set = bit;
    else
        sio_hw->gpio_clr = bit;
}

void rtb_board_out(const char *s, size_t n) { uart_write_blocking(uart0, (const uint8_t *)s, n); }

/* The 16 KiB XIP cache in front of the flash (RP2040 datasheet 2.6.3.2): FLUSH empties
 * it, and reading FLUSH back waits until that is done. Code runs from flash (the SDK's
 * default), so the next fetches go to the QSPI flash as after reset. */
void rtb_board_cache_cold(void)
{
    xip_ctrl_hw->flush = 1;
    (void)xip_ctrl_hw->flush;
}
const char *rtb_board_cold(void) { return "xip_cache_flushed"; }

/* The options built in (RTB_PICO_ARGS, on this file alone: another option set recompiles
 * one file, not the SDK), 2 s to open the serial port, and the end: the done line, then
 * the LED blinks (fast: errors, slow: all ok). */
#ifndef RTB_PICO_ARGS
#define RTB_PICO_ARGS ""
#endif
const char *rtb_board_cmdline(void) { return RTB_PICO_ARGS; }
uint32_t rtb_board_start_delay_ms(void) { return 2000u; }

void rtb_board_exit(int status)
{
    char line[32];
    rtb_board_out(line, rtb_done_line(line, status));
    gpio_init(PICO_DEFAULT_LED_PIN);
    gpio_set_dir(PICO_DEFAULT_LED_PIN, GPIO_OUT);
    for (int on = 1;; on = !on) {
        gpio_put(PICO_DEFAULT_LED_PIN, on);
        rtb_sleep_us(status ? 100000u : 1000000u);
    }
}

const char *rtb_board_warning(const char **msg)
{
    (void)msg;
    return NULL;
}

