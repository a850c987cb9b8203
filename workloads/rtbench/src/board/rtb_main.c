/*
 * The start-up of every RTOS port on a board layer (FreeRTOS, µC/OS-III, Zephyr): the
 * options from the board (rtb_board_cmdline: the semihosting command line in QEMU, a
 * compiled-in string on silicon), the start delay (--start-delay-ms, else the board's:
 * time to open its serial port), rtbench_run from the RTOS's main thread at level
 * RTB_PRIO_MAIN (rtb_port_start), and the board's end of the program with the number
 * of runs that ended in error (rtb_board_exit: QEMU exits with it, silicon prints it;
 * 2 for bad options).
 */
#include "rtb_args.h"
#include "rtb_board.h"
#include "rtbench.h"
#include "rtbench_port.h"

static void body(void *arg)
{
    rtbench_config cfg;
    const char *bad;
    (void)arg;
    rtbench_config_default(&cfg);
    int bad_args = rtb_args_parse_line(rtb_board_cmdline(), &cfg, &bad) != 0;
    /* before the first line, bad options' included: who opens the port late sees it */
    uint32_t ms = cfg.start_delay_ms == RTB_START_DELAY_DEFAULT ? rtb_board_start_delay_ms()
                                                                : cfg.start_delay_ms;
    if (ms)
        rtb_sleep_us(ms * 1000u);
    if (bad_args) {
        rtb_args_report_bad(bad);
        rtb_board_exit(2);
    }
    int errors = rtbench_run(&cfg);
    rtb_board_exit(errors > 100 ? 100 : errors);
}

int main(void)
{
    rtb_port_init();
    rtb_port_start(body, 0);
    return 1;
}
