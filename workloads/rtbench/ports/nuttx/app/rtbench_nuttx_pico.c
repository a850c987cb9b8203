/*
 * rtbench on NuttX SMP, Raspberry Pi Pico (CONFIG_INIT_ENTRYPOINT="rtbench_main"): a
 * real board has no command line, so it runs the options the build wrote into
 * rtb_pico_args.h (the spec's, src/rtlab/lab/rtos/nuttx/baked.py), prints the protocol on
 * the console (UART0, GP0/GP1, 115200), then "rtbench: done errors=N" as the FreeRTOS
 * board layer does, and idles.
 *
 * In SMP the harness's own thread stays on core 0 (pinned once rtb_port_init has counted
 * the cores from its affinity); every worker is pinned by rtbench. NuttX 4ebc8a7291df
 * moving this thread off core 1 when a worker pinned there preempted it raced with its
 * own context save: core 0 switched to the thread before core 1 had saved its registers
 * (docs/rp2040-model.md, "NuttX SMP crashes in the full sweep").
 */
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "rtb_args.h"
#include "rtb_nuttx_pico.h"
#include "rtb_pico_args.h"
#include "rtbench.h"
#include "rtbench_port.h"

int main(int argc, char **argv)
{
    rtbench_config cfg;
    const char *bad;
    int errors = 99;
    (void)argc;
    (void)argv;
    sleep(2); /* time to open the serial port after the UF2 copy rebooted the board */
    rtb_nuttx_pico_init();
    if (rtb_port_init() != 0) {
        fputs("rtbench: port initialisation failed\n", stdout);
    } else {
#ifdef CONFIG_SMP
        cpu_set_t core0;
        CPU_ZERO(&core0);
        CPU_SET(0, &core0);
        sched_setaffinity(0, sizeof core0, &core0);
#endif
        rtb_nuttx_pico_note_warnings();
        rtbench_config_default(&cfg);
        if (rtb_args_parse_line(RTB_PICO_ARGS, &cfg, &bad) != 0)
            rtb_args_report_bad(bad);
        else
            errors = rtbench_run(&cfg);
    }
    printf("rtbench: done errors=%d\n", errors < 0 || errors > 99 ? 99 : errors);
    fflush(stdout);
    for (;;)
        sleep(3600);
}
