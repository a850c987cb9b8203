/*
 * The suite's options, parsed once for every start-up: the POSIX main (argv), the
 * FreeRTOS boards (a semihosting command line, a compiled-in string). Freestanding:
 * strings come with their lengths, so argv words and words inside a line parse alike.
 */
#ifndef RTB_ARGS_H
#define RTB_ARGS_H

#include <stddef.h>

#include "rtbench.h"

/* The help lines of the options below, for a start-up's usage text. */
#define RTB_ARGS_HELP                                                                      \
    "  --scenarios LIST   primitives,irq,threadmetric,scalability,contention or all\n"     \
    "  --iterations N     samples per latency series (default 1000)\n"                     \
    "  --window-ms N      throughput window per test (default 1000)\n"                     \
    "  --period-us N      interrupt scenario trigger period (default 1000)\n"              \
    "  --cores LIST       active-core counts, e.g. 1,2 (default 1 and all)\n"              \
    "  --levels LIST      contention percentages (default 0,10,...,70)\n"                  \
    "  --tests LIST       Thread-Metric tests 1..8 (default all)\n"                        \
    "  --shared           T6/T7 share one object across cores\n"                           \
    "  --crc              append CRC-32 to every protocol line\n"                          \
    "  --markers          marker pins around every measured path (rtb_mark.h)\n"           \
    "  --irq-ext          irq scenario: also the external (GPIO edge) interrupt pass\n"    \
    "  --seed N           contention PRNG seed\n"                                         \
    "  --start-delay-ms N a board's wait before the first scenario (Pico: 2000)\n"

typedef enum {
    RTB_ARG_FLAG,    /* a flag: the value (if any) was not looked at */
    RTB_ARG_VALUE,   /* an option and its value: both used */
    RTB_ARG_UNKNOWN, /* not one of the suite's options */
    RTB_ARG_BAD,     /* a missing or bad value */
} rtb_arg_result;

/* Applies option opt[0..opt_len) with the word after it, val[0..val_len) (val_len 0
 * when there is none), to cfg. Numbers are plain decimal digits; lists are numbers
 * separated by single commas. */
rtb_arg_result rtb_args_option(rtbench_config *cfg, const char *opt, size_t opt_len,
                               const char *val, size_t val_len);

/* A whole command line, words separated by spaces: "--scenarios irq --iterations 200".
 * Words before an option that do not start with "--" are skipped (semihosting puts the
 * program name first). Returns 0, or -1 with *bad at the option that failed. */
int rtb_args_parse_line(const char *line, rtbench_config *cfg, const char **bad);

/* "rtbench: bad option near: OPTION\n" through rtb_out_write, for a line's *bad. */
void rtb_args_report_bad(const char *bad);

#endif
