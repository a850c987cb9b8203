/*
 * rtbench on the Raspberry Pi Pico, on the RTOS of the image (RTB_PICO_RTOS; its
 * rtb_pico_rtos.h: ports/<rtos>/boards/rp2040/): runs the options compiled in as
 * RTB_PICO_ARGS (the POSIX port's syntax, e.g. "--window-ms 300 --cores 1,2"), prints
 * the protocol on UART0, then a final "rtbench: done errors=N" line and blinks the LED
 * (fast: errors, slow: all ok).
 */
#include "pico/stdlib.h"

#include "rtb_args.h"
#include "rtb_emit.h"
#include "rtb_pico_rtos.h"
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
    RTB_PICO_FIRST_TASK(); /* the RTOS's own first step (rtb_pico_rtos.h) */
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
