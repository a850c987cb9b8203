/* rtbench-posix: parses argv into an rtbench_config and runs the suite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtbench.h"
#include "rtbench_port.h"
#include "rtb_posix.h"

static const char usage[] =
    "usage: rtbench-posix [options]\n"
    "  --scenarios LIST   primitives,irq,threadmetric,scalability,contention or all\n"
    "  --iterations N     samples per latency series (default 1000)\n"
    "  --window-ms N      throughput window per test (default 1000)\n"
    "  --period-us N      interrupt scenario trigger period (default 1000)\n"
    "  --cores LIST       active-core counts, e.g. 1,2 (default 1 and all)\n"
    "  --levels LIST      contention percentages (default 0,10,...,70)\n"
    "  --tests LIST       Thread-Metric tests 1..8 (default all)\n"
    "  --shared           T6/T7 share one object across cores\n"
    "  --crc              append CRC-32 to every protocol line\n"
    "  --seed N           contention PRNG seed\n"
    "  --clock NAME       monotonic_raw (default, ns) or tsc (CPU counter, cycles)\n";

static int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v > 0xFFFFFFFFul)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Comma-separated numbers in [lo, hi]; returns how many, -1 on a bad item. */
static int parse_list(const char *s, uint8_t *out, int cap, unsigned lo, unsigned hi)
{
    char buf[256];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        uint32_t v;
        if (n >= cap || parse_u32(tok, &v) || v < lo || v > hi)
            return -1;
        out[n++] = (uint8_t)v;
    }
    return n ? n : -1;
}

static int parse_scenarios(const char *s, unsigned *out)
{
    static const char *const names[] = {"primitives", "irq", "threadmetric", "scalability",
                                        "contention"};
    char buf[256];
    *out = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        unsigned bit = 0;
        if (strcmp(tok, "all") == 0)
            bit = RTB_SC_ALL;
        for (unsigned i = 0; i < 5; i++)
            if (strcmp(tok, names[i]) == 0)
                bit = 1u << i;
        if (!bit)
            return -1;
        *out |= bit;
    }
    return *out ? 0 : -1;
}

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
        int bad = 0, used = 1;
        uint8_t list[8];
        int n;
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(opt, "--shared") == 0) {
            cfg.shared = 1, used = 0;
        } else if (strcmp(opt, "--crc") == 0) {
            cfg.crc = 1, used = 0;
        } else if (!val) {
            bad = 1;
        } else if (strcmp(opt, "--scenarios") == 0) {
            bad = parse_scenarios(val, &cfg.scenarios);
        } else if (strcmp(opt, "--iterations") == 0) {
            bad = parse_u32(val, &cfg.iterations) || cfg.iterations < 2;
        } else if (strcmp(opt, "--window-ms") == 0) {
            bad = parse_u32(val, &cfg.window_ms) || !cfg.window_ms || cfg.window_ms > 600000;
        } else if (strcmp(opt, "--period-us") == 0) {
            bad = parse_u32(val, &cfg.period_us) || !cfg.period_us;
        } else if (strcmp(opt, "--clock") == 0) {
            bad = 0; /* handled above */
        } else if (strcmp(opt, "--seed") == 0) {
            bad = parse_u32(val, &cfg.seed);
        } else if (strcmp(opt, "--cores") == 0) {
            n = parse_list(val, cfg.core_counts, RTB_MAX_CORE_COUNTS, 1, 255);
            bad = n < 0;
            cfg.n_core_counts = (uint8_t)(n < 0 ? 0 : n);
        } else if (strcmp(opt, "--levels") == 0) {
            n = parse_list(val, cfg.levels, RTB_MAX_LEVELS, 0, 100);
            bad = n < 0;
            cfg.n_levels = (uint8_t)(n < 0 ? 0 : n);
        } else if (strcmp(opt, "--tests") == 0) {
            n = parse_list(val, list, 8, 1, 8);
            bad = n < 0;
            cfg.tm_mask = 0;
            for (int k = 0; k < n; k++)
                cfg.tm_mask |= (uint8_t)(1u << (list[k] - 1));
        } else {
            fprintf(stderr, "rtbench-posix: unknown option %s\n%s", opt, usage);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "rtbench-posix: bad or missing value for %s\n%s", opt, usage);
            return 2;
        }
        i += used;
    }
    for (unsigned k = 0; k < cfg.n_core_counts; k++)
        if (cfg.core_counts[k] > rtb_core_count())
            fprintf(stderr, "rtbench-posix: %u cores asked, %d online: skipped\n",
                    cfg.core_counts[k], rtb_core_count());
    return rtbench_run(&cfg) ? 1 : 0;
}
