/*
 * rtbench on the Raspberry Pi Pico, FreeRTOS SMP (or, with RTB_PICO_UCOS3, µC/OS-III on
 * one core): runs the options compiled in as RTB_PICO_ARGS (the POSIX port's syntax,
 * e.g. "--window-ms 300 --cores 1,2"), prints the protocol on UART0, then a final
 * "rtbench: done errors=N" line and blinks the LED (fast: errors, slow: all ok).
 */
#include "pico/stdlib.h"

#include "rtb_args.h"
#include "rtb_emit.h"
#if defined(RTB_PICO_UCOS3) && RTB_PICO_UCOS3
#include "hardware/sync.h"
#include "os.h"

/* The idle task sleeps in WFI until the next interrupt, as FreeRTOS's on this board. */
static void idle_wfi(void) { __wfi(); }
#endif
#include "rtbench.h"
#include "rtbench_port.h"

#ifndef RTB_PICO_ARGS
#define RTB_PICO_ARGS ""
#endif

static void body(void *arg)
{
    rtbench_config cfg;
    const char *bad;
    (void)arg;
#if defined(RTB_PICO_UCOS3) && RTB_PICO_UCOS3
    OS_AppIdleTaskHookPtr = idle_wfi; /* after OSInit, which clears it */
#endif
    rtbench_config_default(&cfg);
    int errors = 0, bad_args = rtb_args_parse_line(RTB_PICO_ARGS, &cfg, &bad) != 0;
    /* time to open the serial port: 2 s unless --start-delay-ms says otherwise */
    uint32_t ms = cfg.start_delay_ms == RTB_START_DELAY_DEFAULT ? 2000u : cfg.start_delay_ms;
    if (ms)
        rtb_sleep_us(ms * 1000u);
    if (bad_args) {
        static const char msg[] = "rtbench: bad RTB_PICO_ARGS\n";
        rtb_out_write(msg, sizeof msg - 1);
        errors = -1;
    } else {
        errors = rtbench_run(&cfg);
    }
    char line[32];
    rtb_out_write(line, rtb_done_line(line, errors));
    gpio_init(PICO_DEFAULT_LED_PIN);
    gpio_set_dir(PICO_DEFAULT_LED_PIN, GPIO_OUT);
    for (int on = 1;; on = !on) {
        gpio_put(PICO_DEFAULT_LED_PIN, on);
        rtb_sleep_us(errors ? 100000u : 1000000u);
    }
}

int main(void)
{
    rtb_port_init();
    rtb_port_start(body, 0);
    return 0;
}
