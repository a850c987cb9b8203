/*
 * rtbench on NuttX (CONFIG_INIT_ENTRYPOINT="rtbench_main": no shell). Options come
 * from the semihosting command line as on the FreeRTOS board, results go to stdout
 * (the console UART), and the exit status is 0 when every run was ok, 1 otherwise, 2 for bad
 * options.
 */
#include <stdio.h>

#include "rtb_args.h"
#include "rtb_nuttx_board.h"
#include "rtbench.h"
#include "rtbench_port.h"

int main(int argc, char **argv)
{
    rtbench_config cfg;
    const char *bad;
    (void)argc;
    (void)argv;
    rtb_nuttx_board_init();
    if (rtb_port_init() != 0) {
        fputs("rtbench: port initialisation failed\n", stdout);
        rtb_nuttx_exit(1);
    }
    rtb_nuttx_board_note_warnings();
    rtbench_config_default(&cfg);
    if (rtb_args_parse_line(rtb_nuttx_cmdline(), &cfg, &bad) != 0) {
        rtb_args_report_bad(bad);
        rtb_nuttx_exit(2);
    }
    rtb_nuttx_exit(rtbench_run(&cfg) ? 1 : 0);
}
