/*
 * rtlab-toggle: toggle GPIO lines through the character device uAPI v2 and report in the
 * rtlab output protocol v1 (docs/protocol.md, docs/gpio-workloads.md).
 *
 * Usage: rtlab-toggle [-c CHIP] [-l LINES] [-w MODE] [-i NS] [-n N | -D TIME] [options]
 *
 *   -c, --chip=CHIP        /dev/gpiochipN, gpiochipN, N or a chip label (default 0)
 *   -l, --lines=LIST       offsets toggled together, e.g. 0 or 0,3 or 0-3 (default 0)
 *   -w, --mode=MODE        fast (back-to-back writes, default), busy (spin to each
 *                          deadline), abs (clock_nanosleep TIMER_ABSTIME), usleep
 *   -i, --interval=NS      time between writes (one edge each) for busy/abs/usleep;
 *                          the signal period is 2 x NS (default 100000)
 *   -n, --count=N          number of writes (default 1000 unless -D)
 *   -D, --duration=TIME    run time: 2s, 500ms, 100us, 1m or seconds
 *   -t, --timestamps       record CLOCK_MONOTONIC after every write: series write_ts
 *                          (ns) and period (rising-to-rising, ns) from inside
 *       --max-samples=N    timestamps kept at most (default 1000000; 8 bytes each)
 *       --verify           read back after every write (GET_VALUES on the same request)
 *                          and count mismatches: counter readback_errors
 *       --policy=NAME      other|fifo|rr;  -p, --priority=PRIO (fifo/rr default 80)
 *   -a, --affinity=CPU     pin to one CPU
 *   -m, --mlockall         lock current and future memory
 *       --meta=KEY=VALUE   extra meta record (repeatable), e.g. emulated=qemu-tcg
 *       --binary, --crc    sb chunks; CRC-32 on every protocol line
 *   -q, --quiet            no summary on stderr
 *
 * Counters: writes, elapsed_ns (first to last write), overruns (deadlines missed by more
 * than one interval), readback_errors/readback_checks with --verify. Cost per write in
 * fast mode = elapsed_ns / (writes - 1).
 * The lines are released (closed) on every exit path; SIGINT/SIGTERM end the loop,
 * report what was done with status=interrupted, release, and exit 130.
 * Exit status: 0 ok, 1 runtime error, 2 usage error, 3 GPIO error (unknown chip, line
 * busy or out of range, no permission), 130 interrupted.
 */
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpio.h"
#include "proto.h"
#include "workload.h"

enum mode { M_FAST, M_BUSY, M_ABS, M_USLEEP };
static const char *mode_names[] = {"fast", "busy", "abs", "usleep"};

static const char usage_text[] =
    "usage: rtlab-toggle [-c CHIP] [-l LINES] [-w fast|busy|abs|usleep] [-i NS] "
    "[-n N | -D TIME] [-t] [--verify] [--policy P] [-p PRIO] [-a CPU] [-m]\n";

static void sleep_until(long long t)
{
    struct timespec ts = wl_timespec(t);
    /* EINTR from SIGINT/SIGTERM returns at once: the loop then sees wl_stop. */
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Its own options; the common ones are gpio.h's. */
enum { O_MAXS = GPIO_OPT_OWN, O_VERIFY, O_POLICY };
static const struct option longopts[] = {
    {"mode", required_argument, 0, 'w'},     {"interval", required_argument, 0, 'i'},
    {"timestamps", no_argument, 0, 't'},     {"max-samples", required_argument, 0, O_MAXS},
    {"verify", no_argument, 0, O_VERIFY},    {"policy", required_argument, 0, O_POLICY},
    {"priority", required_argument, 0, 'p'}, {"affinity", required_argument, 0, 'a'},
    {"mlockall", no_argument, 0, 'm'},       GPIO_COMMON_LONGOPTS};

int main(int argc, char **argv)
{
    enum mode mode = M_FAST;
    long long interval = 100000, max_samples = 1000000;
    int timestamps = 0, verify = 0, policy = SCHED_OTHER, priority = -1, cpu = -1;
    int mlock_all = 0;
    gpio_opts_t o = gpio_opts("rtlab-toggle", usage_text, 1LL << 40, "src/toggle.c");
    for (int ch; (ch = gpio_next_option(&o, argc, argv, "w:i:tp:a:m", longopts)) != -1;) {
        switch (ch) {
        case 'w':
            if (!strcmp(optarg, "fast")) mode = M_FAST;
            else if (!strcmp(optarg, "busy")) mode = M_BUSY;
            else if (!strcmp(optarg, "abs") || !strcmp(optarg, "clock_nanosleep")) mode = M_ABS;
            else if (!strcmp(optarg, "usleep")) mode = M_USLEEP;
            else wl_die_usage("--mode: fast, busy, abs or usleep, got '%s'", optarg);
            break;
        case 'i': interval = wl_parse_int("-i", optarg, 1, 60 * WL_NS_PER_S); break;
        case 't': timestamps = 1; break;
        case O_MAXS: max_samples = wl_parse_int("--max-samples", optarg, 2, 1LL << 28); break;
        case O_VERIFY: verify = 1; break;
        case O_POLICY: policy = wl_parse_policy("--policy", optarg); break;
        case 'p': priority = (int)wl_parse_int("-p", optarg, 0, 99); break;
        case 'a': cpu = (int)wl_parse_int("-a", optarg, 0, CPU_SETSIZE - 1); break;
        case 'm': mlock_all = 1; break;
        default: wl_die_bad_option(ch, argv);
        }
    }
    uint32_t offsets[GPIO_MAX_LINES];
    unsigned n_lines;
    gpio_common_done(&o, argc, argv, offsets, &n_lines);
    if (mode == M_USLEEP && interval < 1000) wl_die_usage("usleep mode: -i must be >= 1000 ns");
    if (policy == SCHED_OTHER && priority > 0) wl_die_usage("-p %d needs --policy fifo or rr", priority);
    if (policy != SCHED_OTHER && priority < 0) priority = 80;
    if (policy != SCHED_OTHER && priority == 0) wl_die_usage("-p: fifo/rr need a priority in 1..99");
    /* The loop and the report read these as locals. */
    long long count = o.count, duration = o.duration;
    int binary = o.binary, crc = o.crc, quiet = o.quiet;
    char err[512];

    proto_t P;
    proto_init(&P, stdout, crc);
    /* GPIO errors come before hello: the runner then sees "no protocol output" and the
     * message on stderr, the same as for a usage error. */
    gpio_chip_t chip;
    uint64_t mask = gpio_mask(n_lines);
    int lfd = gpio_claim(&chip, o.chip_spec, offsets, n_lines, GPIO_V2_LINE_FLAG_OUTPUT,
                         "rtlab-toggle", 0, err, sizeof err);
    if (lfd < 0) {
        wl_error("%s", err);
        return GPIO_EXIT;
    }
    wl_catch_stop_signals();

    proto_hello(&P, "rtlab-toggle", RTLAB_TOGGLE_VERSION);
    char buf[256];
    gpio_meta(&P, &chip, offsets, n_lines);
    proto_meta(&P, "mode", mode_names[mode]);
    if (mode != M_FAST) proto_meta_i(&P, "interval_ns", interval);
    if (count) proto_meta_i(&P, "count", count);
    if (duration) proto_meta_i(&P, "duration_ns", duration);
    proto_meta(&P, "clock", "monotonic");
    for (int i = 0; i < o.n_meta; i++)
        proto_meta_pair(&P, o.meta[i]);

    /* Real-time setup: a failure is a warning (the run still means something), named. */
    int err_no;
    proto_meta(&P, "policy", wl_policy_name(policy));
    if (policy != SCHED_OTHER) {
        proto_meta_i(&P, "priority", priority);
        if ((err_no = wl_set_scheduler(policy, priority))) {
            snprintf(buf, sizeof buf, "sched_setscheduler: %s; running SCHED_OTHER", strerror(err_no));
            proto_warn(&P, "sched_fallback", buf);
        }
    }
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        proto_meta_i(&P, "affinity", cpu);
        if ((err_no = wl_set_affinity(&set))) {
            snprintf(buf, sizeof buf, "sched_setaffinity(%d): %s", cpu, strerror(err_no));
            proto_warn(&P, "affinity_failed", buf);
        }
    }
    long long n_ts = 0, cap = 0;
    int64_t *ts = NULL;
    if (timestamps) {
        cap = count ? (count < max_samples ? count : max_samples) : max_samples;
        ts = malloc((size_t)cap * sizeof *ts);
        if (!ts) {
            close(lfd);
            wl_error("cannot allocate %lld timestamps", cap);
            proto_end(&P, "error", "out of memory for timestamps");
            return 1;
        }
        memset(ts, 0, (size_t)cap * sizeof *ts); /* fault the pages in before the loop */
    }
    if (mlock_all) {
        proto_meta(&P, "mlockall", "1");
        if ((err_no = wl_lock_memory())) {
            snprintf(buf, sizeof buf, "mlockall: %s", strerror(err_no));
            proto_warn(&P, "mlockall_failed", buf);
        }
    }
    fflush(stdout);

    /* The loop: one SET_VALUES ioctl per write, every line to the same level. */
    long long writes = 0, overruns = 0, rb_checks = 0, rb_errors = 0;
    int failed_errno = 0;
    uint64_t level = 0;
    long long t0 = wl_now_ns(), first = 0, last = 0;
    long long end_at = duration ? t0 + duration : 0;
    long long next = t0;
    while (!wl_stop) {
        if (count && writes >= count) break;
        if (mode != M_FAST) {
            next += interval;
            if (mode == M_BUSY) {
                while (wl_now_ns() < next && !wl_stop) {}
            } else if (mode == M_ABS) {
                sleep_until(next);
            } else {
                usleep((useconds_t)(interval / 1000));
            }
            if (wl_stop) break;
        }
        level ^= mask;
        int r = gpio_set(lfd, level, mask);
        long long t = wl_now_ns();
        if (r < 0) {
            failed_errno = -r;
            break;
        }
        if (writes == 0) first = t;
        last = t;
        if (ts && n_ts < cap) ts[n_ts++] = t;
        writes++;
        if (verify) {
            uint64_t got = 0;
            rb_checks++;
            if (gpio_get(lfd, mask, &got) < 0 || (got & mask) != level) rb_errors++;
        }
        if (mode == M_ABS || mode == M_BUSY) {
            if (t - next > interval) {
                /* Missed a whole interval: resynchronise rather than burst to catch up. */
                overruns++;
                next = t;
            }
        } else if (mode == M_USLEEP) {
            next = t;
        }
        if (end_at && t >= end_at) break;
    }
    /* Leave the lines low, then release them: a pin is never left claimed. */
    gpio_set(lfd, 0, mask);
    close(lfd);

    if (ts) {
        proto_series(&P, "write_ts", "ns", NULL, 0);
        proto_samples(&P, "write_ts", ts, (size_t)n_ts, binary);
        /* Rising-to-rising periods: every write toggles, so a period spans two writes. */
        if (n_ts > 2) {
            int64_t *per = ts; /* in place: per[i] = ts[i+2] - ts[i] reads ahead only */
            long long n_per = 0;
            for (long long i = 0; i + 2 < n_ts; i += 2) per[n_per++] = ts[i + 2] - ts[i];
            proto_series(&P, "period", "ns", NULL, 0);
            proto_samples(&P, "period", per, (size_t)n_per, binary);
        }
        if (timestamps && count == 0 && n_ts == cap && writes > cap)
            proto_warn(&P, "samples_truncated", "timestamps beyond --max-samples not kept");
        free(ts);
    }
    proto_counter(&P, "writes", writes, "count");
    proto_counter(&P, "elapsed_ns", writes ? last - first : 0, "ns");
    if (mode != M_FAST) proto_counter(&P, "overruns", overruns, "count");
    if (verify) {
        proto_counter(&P, "readback_checks", rb_checks, "count");
        proto_counter(&P, "readback_errors", rb_errors, "count");
    }
    if (!quiet && writes > 1)
        fprintf(stderr, "rtlab-toggle: %lld writes, %.1f ns per write%s\n", writes,
                (double)(last - first) / (double)(writes - 1),
                verify ? (rb_errors ? ", READBACK ERRORS" : ", read back ok") : "");
    if (failed_errno) {
        snprintf(buf, sizeof buf, "GPIO_V2_LINE_SET_VALUES_IOCTL: %s", strerror(failed_errno));
        wl_error("%s", buf);
        proto_end(&P, "error", buf);
        return 1;
    }
    return wl_proto_end(&P);
}
