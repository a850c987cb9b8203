/* rtbench-posix: parses argv into an rtbench_config and runs the suite. */
#include <stdio.h>
#include <string.h>

#include "rtb_args.h"
#include "rtbench.h"
#include "rtbench_port.h"
#include "rtb_posix.h"

static const char usage[] =
    "usage: rtbench-posix [options]\n" RTB_ARGS_HELP
    "  --clock NAME       monotonic_raw (default, ns) or tsc (CPU counter, cycles)\n";

int main(int argc, char **argv)
{
    rtbench_config cfg;
    /* The clock is the port's business and must be chosen before rtb_port_init. */
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--clock") == 0 && rtb_posix_set_clock(argv[i + 1]) != 0) {
            fprintf(stderr, "rtbench-posix: unknown or unavailable clock %s\n%s", argv[i + 1],
                    usage);
            return 2;
        }
    }
    if (rtb_port_init() != 0) {
        fprintf(stderr, "rtbench-posix: port initialisation failed\n");
        return 1;
    }
    rtbench_config_default(&cfg);
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(opt, "--clock") == 0 && val) {
            i++; /* handled above */
            continue;
        }
        rtb_arg_result r = rtb_args_option(&cfg, opt, strlen(opt), val, val ? strlen(val) : 0);
        if (r == RTB_ARG_UNKNOWN && val) {
            fprintf(stderr, "rtbench-posix: unknown option %s\n%s", opt, usage);
            return 2;
        }
        if (r == RTB_ARG_UNKNOWN || r == RTB_ARG_BAD) {
            fprintf(stderr, "rtbench-posix: bad or missing value for %s\n%s", opt, usage);
            return 2;
        }
        i += r == RTB_ARG_VALUE;
    }
    for (unsigned k = 0; k < cfg.n_core_counts; k++)
        if (cfg.core_counts[k] > rtb_core_count())
            fprintf(stderr, "rtbench-posix: %u cores asked, %d online: skipped\n",
                    cfg.core_counts[k], rtb_core_count());
    return rtbench_run(&cfg) ? 1 : 0;
}
