/*
 * rtbench on µC/OS-III in QEMU mps2: options from the semihosting command line, results
 * on UART0, the exit status is the number of runs that ended in error (2: bad options).
 * Same shape as main_freertos.c.
 */
#include "mps2.h"
#include "rtb_args.h"
#include "rtb_ucos3.h"
#include "rtbench.h"
#include "rtbench_port.h"

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
    rtb_ucos3_start(body, 0, 4096);
    return 1;
}
