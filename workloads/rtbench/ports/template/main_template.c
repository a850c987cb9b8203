/*
 * Start-up template: options in, rtbench_run at level RTB_PRIO_MAIN, the result out.
 * Replace the two RTOS calls marked below. The options are the POSIX port's (see
 * src/rtb_args.h), from wherever the board has a command line: semihosting (QEMU
 * -append), a compiled-in string (here), a UART prompt.
 */
#include "rtb_args.h"
#include "rtbench.h"
#include "rtbench_port.h"

#ifndef RTB_TEMPLATE_ARGS
#define RTB_TEMPLATE_ARGS "--scenarios all"
#endif

static int errors;

/* Runs as the main task: at level RTB_PRIO_MAIN, with at least 4 KiB of stack. */
static void body(void *arg)
{
    rtbench_config cfg;
    const char *bad;
    (void)arg;
    rtbench_config_default(&cfg);
    if (rtb_args_parse_line(RTB_TEMPLATE_ARGS, &cfg, &bad) != 0) {
        rtb_args_report_bad(bad);
        errors = -1;
        return;
    }
    errors = rtbench_run(&cfg); /* runs that ended in status=error */
    /* Report it the board's way: semihosting exit status, an LED, a last line. */
}

int main(void)
{
    if (rtb_port_init() != 0)
        return 1;
    /* RTOS: create a task running body(NULL) at the priority of level RTB_PRIO_MAIN,
     * then start the scheduler (which does not return). Until then, call it here: */
    body(0);
    return errors ? 1 : 0;
}
