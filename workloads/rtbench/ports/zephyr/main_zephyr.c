/*
 * rtbench on Zephyr in QEMU mps2: options from the semihosting command line, results on
 * UART0, the exit status is the number of runs that ended in error (2: bad options).
 * Zephyr's own main thread runs the suite (at level RTB_PRIO_MAIN, 4 KiB of stack:
 * CONFIG_MAIN_STACK_SIZE); Zephyr's tests never exit QEMU, this one does (semihosting).
 */
#include "rtb_args.h"
#include "rtb_zephyr.h"
#include "rtbench.h"
#include "rtbench_port.h"

static void body(void *arg)
{
    rtbench_config cfg;
    const char *bad;
    (void)arg;
    rtbench_config_default(&cfg);
    if (rtb_args_parse_line(rtb_zboard_cmdline(), &cfg, &bad) != 0) {
        rtb_args_report_bad(bad);
        rtb_zboard_exit(2);
    }
    int errors = rtbench_run(&cfg);
    rtb_zboard_exit(errors > 100 ? 100 : errors);
}

int main(void)
{
    rtb_port_init();
    rtb_zephyr_main(body, 0);
    return 1;
}
