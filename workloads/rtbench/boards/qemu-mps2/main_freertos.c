/*
 * rtbench on FreeRTOS in QEMU mps2: options come from the semihosting command line
 * (qemu -append "--scenarios primitives --iterations 200"), results go to UART0, and
 * the exit status is the number of runs that ended in error (2: bad options).
 */
#include "mps2.h"
#include "rtb_args.h"
#include "rtb_freertos.h"
#include "rtbench.h"
#include "rtbench_port.h"

#ifndef BOARD_MAIN_TASK_WORDS /* a small machine's description sets main_task_words */
#define BOARD_MAIN_TASK_WORDS 4096
#endif

static void body(void *arg)
{
    rtbench_config cfg;
    const char *bad;
    (void)arg;
    rtbench_config_default(&cfg);
    if (rtb_args_parse_line(mps2_cmdline(), &cfg, &bad) != 0) {
        rtb_args_report_bad(bad);
        mps2_exit(2);
    }
    int errors = rtbench_run(&cfg);
    mps2_exit(errors > 100 ? 100 : errors);
}

int main(void)
{
    rtb_port_init();
    rtb_freertos_start(body, 0, BOARD_MAIN_TASK_WORDS);
    return 1;
}
