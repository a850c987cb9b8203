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

static void body(void *arg)
{
    static const char usage[] = "rtbench: bad option near: ";
    rtbench_config cfg;
    const char *bad;
    (void)arg;
    rtbench_config_default(&cfg);
    if (rtb_args_parse_line(mps2_cmdline(), &cfg, &bad) != 0) {
        rtb_out_write(usage, sizeof usage - 1);
        rtb_out_write(bad, rtb_args_word_len(bad));
        rtb_out_write("\n", 1);
        mps2_exit(2);
    }
    int errors = rtbench_run(&cfg);
    mps2_exit(errors > 100 ? 100 : errors);
}

int main(void)
{
    rtb_port_init();
    rtb_freertos_start(body, 0, 4096);
    return 1;
}
