/* What every rtlab C workload does around its measurement: see workload.h. */
#include "workload.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const char *prog_name = "rtlab";
static const char *usage_text = "";

volatile sig_atomic_t wl_stop;

void wl_init(const char *prog, const char *usage)
{
    prog_name = prog;
    usage_text = usage;
}

static void message(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", prog_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void wl_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(fmt, ap);
    va_end(ap);
}

_Noreturn void wl_die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(fmt, ap);
    va_end(ap);
    fputs(usage_text, stderr);
    exit(2);
}

_Noreturn void wl_die_bad_option(int ch, char **argv)
{
    if (ch == ':')
        wl_die_usage("option %s needs a value", argv[optind - 1]);
    wl_die_usage("unknown option %s", argv[optind - 1]);
}

void wl_no_operands(int argc, char **argv)
{
    if (optind < argc)
        wl_die_usage("unexpected argument '%s'", argv[optind]);
}

long long wl_parse_int(const char *opt, const char *s, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        wl_die_usage("%s: expected an integer in [%lld, %lld], got '%s'", opt, lo, hi, s);
    return v;
}

int wl_parse_duration(const char *s, unsigned units, long long *ns, const char **suffix)
{
    static const struct {
        const char *name;
        unsigned unit;
        double ns;
    } scale[] = {{"", WL_S, 1e9},     {"s", WL_S, 1e9},    {"ms", WL_MS, 1e6},
                 {"us", WL_US, 1e3},  {"ns", WL_NS, 1},    {"m", WL_MIN, 60e9},
                 {"h", WL_H, 3600e9}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    *suffix = end;
    if (errno || end == s || !isfinite(v) || v <= 0)
        return WL_DURATION_NOT_POSITIVE;
    units |= WL_S; /* a bare number is seconds */
    for (size_t i = 0; i < sizeof scale / sizeof scale[0]; i++) {
        if (strcmp(end, scale[i].name) || !(units & scale[i].unit))
            continue;
        double t = v * scale[i].ns;
        if (t >= 9223372036854775807.0)
            return WL_DURATION_RANGE;
        if (t < 1)
            return WL_DURATION_NOT_POSITIVE; /* less than a nanosecond */
        *ns = (long long)t;
        return WL_DURATION_OK;
    }
    return WL_DURATION_UNIT;
}

int wl_parse_policy(const char *opt, const char *s)
{
    if (!strcmp(s, "other"))
        return SCHED_OTHER;
    if (!strcmp(s, "fifo"))
        return SCHED_FIFO;
    if (!strcmp(s, "rr"))
        return SCHED_RR;
    wl_die_usage("%s: other, fifo or rr, got '%s'", opt, s);
}

const char *wl_policy_name(int policy)
{
    return policy == SCHED_FIFO ? "fifo" : policy == SCHED_RR ? "rr" : "other";
}

void wl_add_meta(const char *arg, const char **meta, int *n, int max)
{
    if (*n >= max || !strchr(arg, '=') || arg[0] == '=')
        wl_die_usage("--meta: KEY=VALUE, at most %d", max);
    meta[(*n)++] = arg;
}

int wl_proto_end(proto_t *p)
{
    if (wl_stop) {
        proto_end(p, "interrupted", wl_stop == SIGTERM ? "SIGTERM" : "SIGINT");
        return 130;
    }
    proto_end(p, "ok", NULL);
    return 0;
}

static void on_stop_signal(int sig) { wl_stop = sig; }

void wl_catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal; /* no SA_RESTART */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int wl_set_scheduler(int policy, int priority)
{
    struct sched_param sp = {.sched_priority = priority};
    return sched_setscheduler(0, policy, &sp) < 0 ? errno : 0;
}

int wl_set_affinity(const cpu_set_t *cpus)
{
    return sched_setaffinity(0, sizeof *cpus, cpus) < 0 ? errno : 0;
}

int wl_lock_memory(void)
{
    return mlockall(MCL_CURRENT | MCL_FUTURE) < 0 ? errno : 0;
}
