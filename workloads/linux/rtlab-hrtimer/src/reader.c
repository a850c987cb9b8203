/*
 * rtlab-hrtimer: runs the rtlab_hrtimer kernel module once and prints its samples as
 * @rtl1 (docs/user-vs-kernel.md). It loads the module with the run's parameters
 * (finit_module), reads /proc/rtlab_hrtimer (which blocks until the samples are in),
 * unloads the module (delete_module) whatever happened, and prints:
 *   series period  (actual period between expiries, ns, interval_ns = programmed)
 *   series latency (wake-up latency now - expiry, ns)
 *   c overruns     (periods skipped)
 * A module the kernel refuses (bad parameter, missing GPIO, already loaded, wrong
 * kernel) is a one-line error and exit status 1; a bad option is a usage error (2).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "proto.h"
#include "workload.h"

#define PROC_FILE "/proc/rtlab_hrtimer"
#define MODULE_NAME "rtlab_hrtimer"
#define MAX_META 16

static const char usage[] =
    "usage: rtlab-hrtimer [-i PERIOD_US] [-l SAMPLES] [--soft] [--gpio N] [--module KO]\n"
    "                     [--binary] [--crc] [--meta KEY=VALUE] [-q]\n"
    "  -i PERIOD_US   timer period in us (the module accepts 1..1000000; default 1000)\n"
    "  -l SAMPLES     expiries to record (the module accepts 1..1000000; default 1000)\n"
    "  --soft         HRTIMER_MODE_ABS_SOFT (default: _HARD, hard irq even on PREEMPT_RT)\n"
    "  --gpio N       toggle legacy GPIO N from the timer callback\n"
    "  --module KO    the module file (default /rtlab/rtlab_hrtimer.ko)\n";

static const char *explain(int err)
{
    switch (err) {
    case EEXIST: return "the module is already loaded (rmmod rtlab_hrtimer)";
    case EINVAL: return "the module refused a parameter (see dmesg)";
    case ENOEXEC: return "the module was built for another kernel (vermagic; see dmesg)";
    case EPERM: return "no permission to load kernel modules (run as root)";
    case ENOSYS: return "this kernel has no module support";
    default: return NULL;
    }
}

static int unload(void)
{
    if (syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK) != 0 && errno != ENOENT) {
        wl_error("cannot unload %s: %s", MODULE_NAME, strerror(errno));
        return -1;
    }
    return 0;
}

/* The module's text: a header line, then "period_ns latency_ns skipped" per sample. */
static int read_samples(int64_t *period, int64_t *lat, long long *skipped, long want, long *got)
{
    FILE *f = fopen(PROC_FILE, "r");
    if (!f) {
        wl_error("%s: %s", PROC_FILE, strerror(errno));
        return -1;
    }
    char line[256];
    long n = 0;
    *skipped = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        long long p, l;
        unsigned s;
        if (sscanf(line, "%lld %lld %u", &p, &l, &s) != 3 || n >= want) {
            wl_error("%s: unexpected line %ld: %.60s", PROC_FILE, n + 1, line);
            fclose(f);
            return -1;
        }
        period[n] = p, lat[n] = l, *skipped += s;
        n++;
    }
    int err = ferror(f) ? errno : 0;
    fclose(f);
    *got = n;
    if (err) {
        if (!(err == EINTR && wl_stop))
            wl_error("%s: %s", PROC_FILE, strerror(err));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long period_us = 1000, samples = 1000, gpio = -1;
    int soft = 0, binary = 0, crc = 0, nmeta = 0;
    const char *ko = "/rtlab/rtlab_hrtimer.ko";
    const char *meta[MAX_META];
    enum { O_SOFT = 256, O_GPIO, O_MODULE, O_BINARY, O_CRC, O_META };
    static const struct option longopts[] = {
        {"soft", no_argument, 0, O_SOFT},     {"gpio", required_argument, 0, O_GPIO},
        {"module", required_argument, 0, O_MODULE}, {"binary", no_argument, 0, O_BINARY},
        {"crc", no_argument, 0, O_CRC},       {"meta", required_argument, 0, O_META},
        {0, 0, 0, 0},
    };
    wl_init("rtlab-hrtimer", usage);
    int ch;
    /* the ranges are wider than the module's own: the module is the one that refuses */
    while ((ch = getopt_long(argc, argv, ":i:l:q", longopts, NULL)) != -1) {
        switch (ch) {
        case 'i': period_us = (long)wl_parse_int("-i", optarg, 0, 4000000000LL); break;
        case 'l': samples = (long)wl_parse_int("-l", optarg, 0, 4000000000LL); break;
        case 'q': break;
        case O_SOFT: soft = 1; break;
        case O_GPIO: gpio = (long)wl_parse_int("--gpio", optarg, 0, 1 << 20); break;
        case O_MODULE: ko = optarg; break;
        case O_BINARY: binary = 1; break;
        case O_CRC: crc = 1; break;
        case O_META: wl_add_meta(optarg, meta, &nmeta, MAX_META); break;
        default: wl_die_bad_option(ch, argv);
        }
    }
    wl_no_operands(argc, argv);

    int fd = open(ko, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        wl_error("%s: %s", ko, strerror(errno));
        return 1;
    }
    char params[160];
    snprintf(params, sizeof params, "period_us=%ld samples=%ld soft=%d gpio=%ld", period_us,
             samples, soft, gpio);
    wl_catch_stop_signals();
    if (syscall(SYS_finit_module, fd, params, 0) != 0) {
        int err = errno;
        const char *why = explain(err);
        if (err == EINVAL && (period_us < 1 || period_us > 1000000))
            why = "period_us: the module accepts 1..1000000";
        else if (err == EINVAL && (samples < 1 || samples > 1000000))
            why = "samples: the module accepts 1..1000000";
        else if (gpio >= 0 && (err == ENODEV || err == EINVAL || err == EBUSY))
            why = "the GPIO line cannot be requested (no such line, or in use)";
        wl_error("cannot load %s (%s): %s%s%s", ko, params, strerror(err), why ? ": " : "",
                 why ? why : "");
        close(fd);
        return 1;
    }
    close(fd);
    int64_t *period = malloc((size_t)samples * sizeof *period);
    int64_t *lat = malloc((size_t)samples * sizeof *lat);
    long got = 0;
    long long skipped = 0;
    int rd = period && lat ? read_samples(period, lat, &skipped, samples, &got) : -1;
    if (!period || !lat)
        wl_error("out of memory for %ld samples", samples);
    int ul = unload();
    if (rd != 0 && !wl_stop) {
        free(period), free(lat);
        return 1;
    }

    struct utsname u;
    uname(&u);
    proto_t P;
    proto_init(&P, stdout, crc);
    proto_hello(&P, "rtlab-hrtimer", RTLAB_HRTIMER_VERSION);
    proto_meta(&P, "mode", "cyclic");
    proto_meta(&P, "method", soft ? "hrtimer_soft" : "hrtimer_hard");
    proto_meta(&P, "space", "kernel");
    proto_meta(&P, "clock", "CLOCK_MONOTONIC");
    proto_meta_i(&P, "interval_ns", (long long)period_us * 1000);
    proto_meta_i(&P, "loops", samples);
    proto_meta_i(&P, "gpio", gpio);
    proto_meta(&P, "kernel", u.release);
    proto_meta(&P, "kernel_version", u.version);
    proto_meta(&P, "preempt_rt", strstr(u.version, "PREEMPT_RT") ? "1" : "0");
    for (int i = 0; i < nmeta; i++)
        proto_meta_pair(&P, meta[i]);
    proto_series(&P, "period", "ns", "interval_ns", (long long)period_us * 1000);
    proto_samples(&P, "period", period, (size_t)got, binary);
    proto_series(&P, "latency", "ns", "interval_ns", (long long)period_us * 1000);
    proto_samples(&P, "latency", lat, (size_t)got, binary);
    proto_counter(&P, "samples", got, "count");
    proto_counter(&P, "overruns", skipped, "count");
    if (ul != 0)
        proto_warn(&P, "module_left_loaded", "rmmod rtlab_hrtimer failed");
    int rc = wl_proto_end(&P);
    free(period), free(lat);
    return rc;
}
