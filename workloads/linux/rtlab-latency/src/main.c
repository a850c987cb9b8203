/*
 * rtlab-latency: timer wake-up latency of a periodic thread (cyclictest-class),
 * reporting every sample in the rtlab output protocol v1 (docs/protocol.md).
 *
 * README
 * ------
 * Usage: rtlab-latency [options]
 *
 * Modes (--mode):
 *   cyclic   (default) a periodic loop; each sample is the wake-up latency
 *            now - expected wake time on CLOCK_MONOTONIC, computed as cyclictest does:
 *            absolute methods (clock_nanosleep, timerfd, busy) expect the first
 *            deadline start + k*interval not yet served, so a late wake-up is measured
 *            from the deadline it missed; relative ones (nanosleep, usleep) expect
 *            (time before the sleep) + interval. Later deadlines that passed before
 *            the wake-up are overruns: skipped (absolute methods) and counted.
 *            Series "latency" (ns); with -h a log-bucket histogram instead.
 *   sleep    "programmed vs actual": for each requested sleep in --sleeps (us), -l
 *            sleeps with the chosen method, each timed; series "actual_<R>us" (ns,
 *            attribute request_ns); overshoot = actual - request.
 *   search   the smallest period whose jitter stays under --bound: for each period
 *            in --periods (us, tried in the order given) a cyclic run of
 *            --search-time ms; jitter = the --quantile of |actual period - period|,
 *            a skipped period (overrun) counting as an infinite deviation (-1 if so);
 *            so the period must be both accurate and stable (a relative sleep's
 *            constant overshoot fails it: compensate it or use an absolute method);
 *            series "period_<P>us" (actual periods, ns), counters jitter_<P>us,
 *            mean_period_<P>us, spread_<P>us (the quantile of |T - mean T|, the
 *            design's jitter: stability alone), overruns_<P>us, and min_period_ns
 *            (0 when none passes).
 *
 * Options (cyclictest names where cyclictest has them):
 *   -i, --interval=US      period in us (default 1000)
 *   -l, --loops=N          samples (cyclic) or sleeps per request (sleep); default
 *                          1000 for sleep mode, endless for cyclic unless -D
 *   -D, --duration=TIME    run time: seconds, or with suffix ms, s, m, h
 *   -w, --method=M         abs|clock_nanosleep (TIMER_ABSTIME, default), rel|nanosleep,
 *                          usleep, timerfd, busy
 *   -p, --priority=PRIO    RT priority; > 0 without --policy means fifo (as cyclictest)
 *       --policy=NAME      other|fifo|rr (fifo/rr default priority 80)
 *       --strict           fail (exit 1, status=error) if the policy cannot be set;
 *                          default: warn (code=sched_fallback) and run SCHED_OTHER
 *   -a, --affinity=CPUS    pin to CPUs, e.g. 1 or 0-1 or 0,2
 *   -m, --mlockall         lock current and future memory
 *       --slack=NS         PR_SET_TIMERSLACK (>= 1; the kernel default is 50000)
 *       --latency=US       hold /dev/cpu_dma_latency at US (cyclictest does 0 unless
 *                          --default-system); default: leave the system alone
 *   -h, --histogram        log-bucket histogram (8 per octave) instead of samples
 *       --binary           sample chunks as sb (zigzag LEB128 base64) instead of sd
 *       --crc              CRC-32 on every protocol line
 *       --sleeps=US,...    requests of sleep mode (default 1,10,100,1000)
 *       --periods=US,...   candidates of search mode (default 1000,500,200,100,50,20,10)
 *       --bound=US         jitter bound of search mode (default 10)
 *       --bound-pct=P      ... or P % of each period tried (instead of --bound)
 *       --quantile=Q       quantile of search mode (default 0.99)
 *       --search-time=MS   time per candidate period (default 300)
 *   -q, --quiet            no human summary on stderr
 *       --help
 *
 * Output: protocol records on stdout (hello/meta/warn first, the samples after the
 * measurement so writing them does not disturb it), a summary on stderr.
 * Counters: samples, overruns (cyclic mode: for every sample, the deadlines
 * expected + k*interval, k >= 1, that passed before the wake-up: ceil(latency /
 * interval) - 1 when the latency exceeds one interval), cpu_ns (CPU time of the measurement,
 * CLOCK_PROCESS_CPUTIME_ID: the loop's cost per sample is cpu_ns / samples, including
 * the kernel's timer and wake-up path), wall_ns, minflt/majflt (page faults during the
 * run), nivcsw (involuntary context switches: preemptions).
 * SIGINT/SIGTERM stop the measurement: what was measured is written, status=interrupted.
 * Exit status: 0 ok, 1 runtime error (status=error), 2 usage error, 130 interrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "stats.h"
#include "workload.h"

#define MAX_SAMPLES (64LL * 1000 * 1000) /* 512 MB of samples: use -h beyond */
#define MAX_LIST 32

enum method { M_ABS, M_REL, M_USLEEP, M_TIMERFD, M_BUSY };
static const char *method_names[] = {"clock_nanosleep", "nanosleep", "usleep", "timerfd",
                                     "busy"};
enum mode { MODE_CYCLIC, MODE_SLEEP, MODE_SEARCH };
static const char *mode_names[] = {"cyclic", "sleep", "search"};

struct opts {
    enum mode mode;
    enum method method;
    long long interval_us;
    long long loops;       /* 0: not given */
    long long duration_ns; /* 0: not given */
    int policy;            /* SCHED_OTHER/FIFO/RR */
    int policy_given;
    int priority;          /* -1: not given */
    int strict;
    char affinity[128];
    int mlock;
    long long slack_ns; /* 0: leave */
    long long dma_latency_us; /* -1: leave */
    int histogram, binary, crc, quiet;
    long long sleeps_us[MAX_LIST];
    int n_sleeps;
    long long periods_us[MAX_LIST];
    int n_periods;
    long long bound_us;
    double bound_pct; /* > 0: the bound is this percentage of each period */
    double quantile;
    long long search_ms;
};

static int mlocked; /* mlockall in force: allocations count against RLIMIT_MEMLOCK */
static proto_t P;
static int timer_fd = -1;

/* CPU time of the process, exact (scheduler runtime), unlike rusage's tick sampling. */
static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * WL_NS_PER_S + ts.tv_nsec;
}

static const char usage_text[] =
    "usage: rtlab-latency [--mode cyclic|sleep|search] [-i US] [-l N] [-D TIME]\n"
    "         [-w abs|rel|usleep|timerfd|busy] [-p PRIO] [--policy other|fifo|rr]\n"
    "         [--strict] [-a CPUS] [-m] [--slack NS] [--latency US] [-h] [--binary]\n"
    "         [--crc] [--sleeps US,..] [--periods US,..] [--bound US|--bound-pct P]\n"
    "         [--quantile Q] [--search-time MS] [-q]\n"
    "Timer wake-up latency of a periodic thread; every sample on stdout in the\n"
    "rtlab protocol v1. See the comment at the top of src/main.c or\n"
    "docs/rtlab-latency.md.\n";

/* A runtime failure after hello: status=error so the host sees why. */
static _Noreturn void fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wl_error("%s", msg);
    proto_end(&P, "error", msg);
    exit(1);
}

static int parse_list(const char *opt, const char *s, long long *out, long long lo)
{
    char buf[512];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == MAX_LIST)
            wl_die_usage("%s: at most %d values", opt, MAX_LIST);
        out[n++] = wl_parse_int(opt, tok, lo, 1000LL * 1000 * 1000);
    }
    if (!n)
        wl_die_usage("%s: empty list", opt);
    return n;
}

/* A real number in (0, hi]: "<opt>: <what> in (0, hi], got 's'" otherwise. */
static double parse_real(const char *opt, const char *s, double hi, const char *what)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v <= 0 || v > hi)
        wl_die_usage("%s: %s in (0, %g], got '%s'", opt, what, hi, s);
    return v;
}

static long long parse_duration(const char *s)
{
    long long ns = 0;
    const char *unit;
    switch (wl_parse_duration(s, WL_MS | WL_S | WL_MIN | WL_H, &ns, &unit)) {
    case WL_DURATION_OK: return ns;
    case WL_DURATION_UNIT: wl_die_usage("-D: unknown unit '%s' (ms, s, m, h)", unit);
    case WL_DURATION_RANGE: wl_die_usage("-D: duration out of range, got '%s'", s);
    default: wl_die_usage("-D: expected a positive duration, got '%s'", s);
    }
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    enum { O_POLICY = 256, O_STRICT, O_SLACK, O_LATENCY, O_BINARY, O_CRC, O_SLEEPS,
           O_PERIODS, O_BOUND, O_BOUND_PCT, O_QUANTILE, O_SEARCH, O_MODE, O_HELP };
    static const struct option longopts[] = {
        {"interval", required_argument, 0, 'i'}, {"loops", required_argument, 0, 'l'},
        {"duration", required_argument, 0, 'D'}, {"method", required_argument, 0, 'w'},
        {"priority", required_argument, 0, 'p'}, {"policy", required_argument, 0, O_POLICY},
        {"strict", no_argument, 0, O_STRICT},    {"affinity", required_argument, 0, 'a'},
        {"mlockall", no_argument, 0, 'm'},       {"slack", required_argument, 0, O_SLACK},
        {"latency", required_argument, 0, O_LATENCY},
        {"histogram", no_argument, 0, 'h'},      {"binary", no_argument, 0, O_BINARY},
        {"crc", no_argument, 0, O_CRC},          {"sleeps", required_argument, 0, O_SLEEPS},
        {"periods", required_argument, 0, O_PERIODS},
        {"bound", required_argument, 0, O_BOUND},
        {"bound-pct", required_argument, 0, O_BOUND_PCT},
        {"quantile", required_argument, 0, O_QUANTILE},
        {"search-time", required_argument, 0, O_SEARCH},
        {"mode", required_argument, 0, O_MODE},  {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, O_HELP},        {0, 0, 0, 0}};
    static const long long default_sleeps[] = {1, 10, 100, 1000};
    static const long long default_periods[] = {1000, 500, 200, 100, 50, 20, 10};

    memset(o, 0, sizeof *o);
    o->interval_us = 1000;
    o->priority = -1;
    o->dma_latency_us = -1;
    o->bound_us = 10;
    o->quantile = 0.99;
    o->search_ms = 300;
    o->n_sleeps = 4;
    memcpy(o->sleeps_us, default_sleeps, sizeof default_sleeps);
    o->n_periods = 7;
    memcpy(o->periods_us, default_periods, sizeof default_periods);

    opterr = 0; /* our own message, and exit 2 (cyclictest exits 0 on unknown options) */
    int c;
    while ((c = getopt_long(argc, argv, ":i:l:D:w:p:a:mhq", longopts, NULL)) != -1) {
        switch (c) {
        case 'i': o->interval_us = wl_parse_int("-i", optarg, 1, 60LL * 1000 * 1000); break;
        case 'l': o->loops = wl_parse_int("-l", optarg, 1, MAX_SAMPLES); break;
        case 'D': o->duration_ns = parse_duration(optarg); break;
        case 'w': {
            const char *a = optarg;
            if (!strcmp(a, "abs") || !strcmp(a, "clock_nanosleep")) o->method = M_ABS;
            else if (!strcmp(a, "rel") || !strcmp(a, "nanosleep")) o->method = M_REL;
            else if (!strcmp(a, "usleep")) o->method = M_USLEEP;
            else if (!strcmp(a, "timerfd")) o->method = M_TIMERFD;
            else if (!strcmp(a, "busy")) o->method = M_BUSY;
            else wl_die_usage("--method: abs, rel, usleep, timerfd or busy, got '%s'", a);
            break;
        }
        case 'p': o->priority = (int)wl_parse_int("-p", optarg, 0, 99); break;
        case O_POLICY:
            o->policy = !strcmp(optarg, "normal") ? SCHED_OTHER
                                                  : wl_parse_policy("--policy", optarg);
            o->policy_given = 1;
            break;
        case O_STRICT: o->strict = 1; break;
        case 'a':
            if (strlen(optarg) >= sizeof o->affinity) wl_die_usage("-a: too long");
            strcpy(o->affinity, optarg);
            break;
        case 'm': o->mlock = 1; break;
        case O_SLACK:
            o->slack_ns = wl_parse_int("--slack", optarg, 1, 1000LL * 1000 * 1000); break;
        case O_LATENCY:
            o->dma_latency_us = wl_parse_int("--latency", optarg, 0, 1000LL * 1000 * 1000);
            break;
        case 'h': o->histogram = 1; break;
        case O_BINARY: o->binary = 1; break;
        case O_CRC: o->crc = 1; break;
        case O_SLEEPS: o->n_sleeps = parse_list("--sleeps", optarg, o->sleeps_us, 0); break;
        case O_PERIODS:
            o->n_periods = parse_list("--periods", optarg, o->periods_us, 1); break;
        case O_BOUND: o->bound_us = wl_parse_int("--bound", optarg, 0, 1000LL * 1000 * 1000); break;
        case O_BOUND_PCT:
            o->bound_pct = parse_real("--bound-pct", optarg, 1000, "a percentage");
            break;
        case O_QUANTILE: o->quantile = parse_real("--quantile", optarg, 1, "a number"); break;
        case O_SEARCH: o->search_ms = wl_parse_int("--search-time", optarg, 1, 3600000); break;
        case O_MODE:
            if (!strcmp(optarg, "cyclic")) o->mode = MODE_CYCLIC;
            else if (!strcmp(optarg, "sleep")) o->mode = MODE_SLEEP;
            else if (!strcmp(optarg, "search")) o->mode = MODE_SEARCH;
            else wl_die_usage("--mode: cyclic, sleep or search, got '%s'", optarg);
            break;
        case 'q': o->quiet = 1; break;
        case O_HELP: fputs(usage_text, stdout); exit(0);
        default: wl_die_bad_option(c, argv);
        }
    }
    wl_no_operands(argc, argv);
    if (!o->policy_given)
        o->policy = o->priority > 0 ? SCHED_FIFO : SCHED_OTHER;
    if (o->policy == SCHED_OTHER) {
        if (o->priority > 0)
            wl_die_usage("-p %d needs --policy fifo or rr", o->priority);
        o->priority = 0;
    } else if (o->priority <= 0) {
        o->priority = 80;
    }
    if (o->mode == MODE_CYCLIC && !o->loops && !o->duration_ns && !o->histogram)
        wl_die_usage("cyclic mode stores every sample: give -l or -D (or -h for a histogram)");
    if (o->method == M_USLEEP && o->interval_us > 999999 && o->mode == MODE_CYCLIC)
        wl_die_usage("usleep takes at most 999999 us");
    if (o->mode == MODE_SLEEP && !o->loops)
        o->loops = 1000;
}

static int parse_cpus(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = s;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a >= CPU_SETSIZE)
            return -1;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b >= CPU_SETSIZE)
                return -1;
        }
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return CPU_COUNT(set) ? 0 : -1;
}

/* Set up the process as asked; returns the policy really in force. */
static int setup(struct opts *o)
{
    int err;
    if (o->affinity[0]) {
        cpu_set_t set;
        if (parse_cpus(o->affinity, &set))
            fail("-a: bad CPU list '%s'", o->affinity);
        if ((err = wl_set_affinity(&set)))
            fail("sched_setaffinity(%s): %s", o->affinity, strerror(err));
    }
    if (o->slack_ns && prctl(PR_SET_TIMERSLACK, (unsigned long)o->slack_ns, 0, 0, 0))
        fail("PR_SET_TIMERSLACK %lld: %s", o->slack_ns, strerror(errno));
    if (o->mlock && (err = wl_lock_memory())) {
        if (o->strict)
            fail("mlockall: %s", strerror(err));
        proto_warn(&P, "mlock_failed", strerror(err));
        o->mlock = 0;
    }
    mlocked = o->mlock;
    if (o->dma_latency_us >= 0) {
        /* The request holds only while the file stays open: never closed. */
        int fd = open("/dev/cpu_dma_latency", O_RDWR);
        int32_t v = (int32_t)o->dma_latency_us;
        if (fd < 0 || write(fd, &v, sizeof v) != (ssize_t)sizeof v) {
            if (o->strict)
                fail("/dev/cpu_dma_latency: %s", strerror(errno));
            proto_warn(&P, "dma_latency_failed", strerror(errno));
            o->dma_latency_us = -1;
        }
    }
    int policy = o->policy;
    if (policy != SCHED_OTHER && (err = wl_set_scheduler(policy, o->priority))) {
        char msg[256];
        snprintf(msg, sizeof msg, "cannot set SCHED_%s priority %d (%s): running SCHED_OTHER",
                 policy == SCHED_FIFO ? "FIFO" : "RR", o->priority, strerror(err));
        if (o->strict)
            fail("%s", msg);
        proto_warn(&P, "sched_fallback", msg);
        wl_error("warning: %s", msg);
        policy = SCHED_OTHER;
    }
    return policy;
}

static void warn_pitfalls(const struct opts *o, int policy, long slack)
{
    char msg[256];
    int sleeps = o->method == M_ABS || o->method == M_REL || o->method == M_USLEEP;
    if (policy == SCHED_OTHER && sleeps && slack > 1000) {
        snprintf(msg, sizeof msg,
                 "SCHED_OTHER sleep with %ld ns timer slack: every wake-up may come up to "
                 "%ld ns late (usleep(1) takes about the slack); use --slack 1 or a RT policy",
                 slack, slack);
        proto_warn(&P, "timer_slack", msg);
    }
    if (!o->mlock)
        proto_warn(&P, "no_mlockall",
                   "memory not locked (-m): page faults can add latency to any sample");
    if (o->method == M_BUSY && policy != SCHED_OTHER && !o->affinity[0])
        proto_warn(&P, "busy_rt", "busy-wait at RT priority without -a can starve a CPU "
                                  "(RT throttling allows 95%)");
}

/* One sleep of `req` ns by the chosen method, from `t0`; returns -1 on EINTR. */
static int sleep_once(enum method m, int64_t t0, int64_t req)
{
    struct timespec ts;
    switch (m) {
    case M_ABS:
        ts = wl_timespec(t0 + req);
        return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ? -1 : 0;
    case M_REL:
        ts = wl_timespec(req);
        return nanosleep(&ts, NULL);
    case M_USLEEP:
        return usleep((useconds_t)(req / 1000));
    case M_TIMERFD: {
        struct itimerspec its = {.it_value = wl_timespec(req > 0 ? req : 1)};
        uint64_t exp;
        if (timerfd_settime(timer_fd, 0, &its, NULL))
            return -1;
        return read(timer_fd, &exp, sizeof exp) == (ssize_t)sizeof exp ? 0 : -1;
    }
    case M_BUSY:
        while (wl_now_ns() < t0 + req)
            if (wl_stop)
                return -1;
        return 0;
    }
    return -1;
}

struct cyc_result {
    long long n, overruns;
};

/* Deadlines after the one served that had passed when the wake-up came `late` ns after
 * it: #{k >= 1 : k*interval < late}, i.e. ceil(late / interval) - 1. */
static long long missed_after(int64_t late, int64_t interval)
{
    return late > interval ? (long long)((late - 1) / interval) : 0;
}

/*
 * The cyclic loop. lat (if not NULL) receives latencies, wake (if not NULL) the wake
 * times; h (if not NULL) a histogram. Stops after max_n samples or at t_end.
 */
static struct cyc_result cyclic(enum method m, int64_t interval, long long max_n, int64_t t_end,
                                int64_t *lat, int64_t *wake, logh_t *h)
{
    struct cyc_result r = {0, 0};
    int64_t now = wl_now_ns(), expected;
    int64_t next = now + interval;
    if (m == M_TIMERFD) {
        struct itimerspec its = {.it_value = wl_timespec(next), .it_interval = wl_timespec(interval)};
        if (timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &its, NULL))
            fail("timerfd_settime: %s", strerror(errno));
    }
    while (!wl_stop && (max_n <= 0 || r.n < max_n)) {
        switch (m) {
        case M_ABS: {
            struct timespec ts = wl_timespec(next);
            if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
                goto out; /* EINTR: a signal asked us to stop */
            now = wl_now_ns();
            expected = next;
            break;
        }
        case M_REL: {
            struct timespec ts = wl_timespec(interval);
            int64_t before = wl_now_ns();
            if (nanosleep(&ts, NULL))
                goto out;
            now = wl_now_ns();
            expected = before + interval;
            break;
        }
        case M_USLEEP: {
            int64_t before = wl_now_ns();
            if (usleep((useconds_t)(interval / 1000)))
                goto out;
            now = wl_now_ns();
            expected = before + interval;
            break;
        }
        case M_TIMERFD: {
            /* The timer runs on the same grid as `next`. A read that returns before
             * `next` only reports expirations already served or counted as skipped
             * (they fired between the last read and the last clock reading): wait on.
             * The sample is measured from `next`, the first deadline not yet served,
             * never from the last expiration, which would cap it at one interval. */
            uint64_t exp;
            do {
                if (read(timer_fd, &exp, sizeof exp) != (ssize_t)sizeof exp)
                    goto out;
                now = wl_now_ns();
            } while (now < next);
            expected = next;
            break;
        }
        case M_BUSY:
        default:
            while ((now = wl_now_ns()) < next)
                if (wl_stop)
                    goto out;
            expected = next;
            break;
        }
        int64_t d = now - expected;
        if (lat)
            lat[r.n] = d;
        if (wake)
            wake[r.n] = now;
        if (h)
            logh_add(h, d);
        r.n++;
        /* Overruns: the later deadlines (expected + k*interval, k >= 1) that passed
         * before this wake-up. The absolute methods skip them, as cyclictest does; a
         * relative sleep has no grid to skip along, so they are only counted. */
        r.overruns += missed_after(d, interval);
        if (m != M_REL && m != M_USLEEP) {
            next += interval;
            while (now > next)
                next += interval;
        }
        if (t_end && now >= t_end)
            break;
    }
out:
    return r;
}

static void summary(const char *name, const int64_t *v, size_t n)
{
    int64_t *s = sorted_copy(v, n);
    if (!s || !n) {
        free(s);
        return;
    }
    fprintf(stderr,
    "%-16s n=%zu min=%" PRId64 " p50=%" PRId64 " p99=%" PRId64 " p99.9=%" PRId64
    " max=%" PRId64 " ns\n",
            name, n, s[0], quantile_sorted(s, n, 0.5), quantile_sorted(s, n, 0.99),
            quantile_sorted(s, n, 0.999), s[n - 1]);
    free(s);
}

static int64_t *alloc_samples(long long n)
{
    if (n > MAX_SAMPLES)
        fail("%lld samples would not fit in memory (max %lld): use -h or a shorter run", n,
             MAX_SAMPLES);
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        fail("out of memory for %lld samples%s", n,
             mlocked ? " (memory is locked by -m: RLIMIT_MEMLOCK, ulimit -l, applies)" : "");
    memset(v, 0, (size_t)(n ? n : 1) * sizeof *v); /* fault the pages in now, not mid-run */
    return v;
}

static void prefault_stack(void)
{
    volatile char buf[64 * 1024];
    for (size_t i = 0; i < sizeof buf; i += 4096)
        buf[i] = 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    wl_init("rtlab-latency", usage_text);
    parse_args(argc, argv, &o);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    proto_init(&P, stdout, o.crc);

    proto_hello(&P, "rtlab-latency", RTLAB_LATENCY_VERSION);
    wl_catch_stop_signals(); /* a sleep returns EINTR and the loop ends */

    int policy = setup(&o);
    long slack = (long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (o.method == M_TIMERFD && (timer_fd = timerfd_create(CLOCK_MONOTONIC, 0)) < 0)
        fail("timerfd_create: %s", strerror(errno));
    prefault_stack();

    struct utsname u;
    uname(&u);
    proto_meta(&P, "mode", mode_names[o.mode]);
    proto_meta(&P, "method", method_names[o.method]);
    proto_meta(&P, "clock", "CLOCK_MONOTONIC");
    proto_meta(&P, "policy", wl_policy_name(policy));
    proto_meta(&P, "policy_requested", wl_policy_name(o.policy));
    proto_meta_i(&P, "priority", policy == SCHED_OTHER ? 0 : o.priority);
    proto_meta(&P, "affinity", o.affinity[0] ? o.affinity : "all");
    proto_meta_i(&P, "mlockall", o.mlock);
    proto_meta_i(&P, "timer_slack_ns", slack);
    proto_meta_i(&P, "dma_latency_us", o.dma_latency_us);
    proto_meta_i(&P, "interval_ns", o.interval_us * 1000);
    proto_meta_i(&P, "loops", o.loops);
    proto_meta_i(&P, "duration_ns", o.duration_ns);
    proto_meta(&P, "kernel", u.release);
    proto_meta(&P, "kernel_version", u.version);
    proto_meta_i(&P, "pid", getpid());
    warn_pitfalls(&o, policy, slack);
    fflush(stdout);

    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    int64_t cpu0 = cpu_ns();
    int64_t t_start = wl_now_ns();
    int64_t interval = o.interval_us * 1000;

    if (o.mode == MODE_CYCLIC) {
        long long cap = o.loops;
        if (o.duration_ns) {
            long long by_time = o.duration_ns / interval + 2;
            cap = cap && cap < by_time ? cap : by_time;
        }
        int64_t t_end = o.duration_ns ? t_start + o.duration_ns : 0;
        if (o.histogram) {
            static logh_t h;
            logh_init(&h);
            struct cyc_result r = cyclic(o.method, interval, o.loops, t_end, NULL, NULL, &h);
            getrusage(RUSAGE_SELF, &ru1);
            for (size_t i = 0; i < LOGH_N; i++) {
                int64_t lo, hi;
                if (!h.count[i])
                    continue;
                logh_bounds(i, &lo, &hi);
                proto_bucket(&P, "latency", "ns", lo, hi, h.count[i]);
            }
            proto_counter(&P, "samples", r.n, "count");
            proto_counter(&P, "overruns", r.overruns, "count");
            proto_counter(&P, "negative", h.negative, "count");
            if (r.n) {
                proto_counter(&P, "min", h.min, "ns");
                proto_counter(&P, "max", h.max, "ns");
            }
        } else {
            int64_t *lat = alloc_samples(cap);
            struct cyc_result r = cyclic(o.method, interval, cap, t_end, lat, NULL, NULL);
            getrusage(RUSAGE_SELF, &ru1);
            proto_series(&P, "latency", "ns", "interval_ns", interval);
            proto_samples(&P, "latency", lat, (size_t)r.n, o.binary);
            proto_counter(&P, "samples", r.n, "count");
            proto_counter(&P, "overruns", r.overruns, "count");
            if (!o.quiet)
                summary("latency", lat, (size_t)r.n);
            free(lat);
        }
    } else if (o.mode == MODE_SLEEP) {
        int64_t *act = alloc_samples(o.loops * o.n_sleeps);
        long long done[MAX_LIST] = {0};
        for (int k = 0; k < o.n_sleeps && !wl_stop; k++) {
            int64_t req = o.sleeps_us[k] * 1000;
            for (long long j = 0; j < o.loops && !wl_stop; j++) {
                int64_t t0 = wl_now_ns();
                if (sleep_once(o.method, t0, req))
                    break;
                act[k * o.loops + j] = wl_now_ns() - t0;
                done[k]++;
            }
        }
        getrusage(RUSAGE_SELF, &ru1);
        for (int k = 0; k < o.n_sleeps; k++) {
            char name[48];
            snprintf(name, sizeof name, "actual_%lldus", o.sleeps_us[k]);
            proto_series(&P, name, "ns", "request_ns", o.sleeps_us[k] * 1000);
            proto_samples(&P, name, act + k * o.loops, (size_t)done[k], o.binary);
            if (!o.quiet)
                summary(name, act + k * o.loops, (size_t)done[k]);
        }
        long long total = 0;
        for (int k = 0; k < o.n_sleeps; k++)
            total += done[k];
        proto_counter(&P, "samples", total, "count");
        free(act);
    } else {
        long long best = 0, total = 0;
        for (int k = 0; k < o.n_periods && !wl_stop; k++) {
            int64_t per = o.periods_us[k] * 1000;
            long long cap = o.search_ms * 1000000LL / per + 2;
            int64_t *wake = alloc_samples(cap);
            int64_t t_end = wl_now_ns() + o.search_ms * 1000000LL;
            struct cyc_result r = cyclic(o.method, per, cap, t_end, NULL, wake, NULL);
            size_t np = r.n > 1 ? (size_t)r.n - 1 : 0;
            /* A skipped period is a missed deadline: it counts as an infinite deviation,
             * so a period that cannot be held never passes on its late wake-ups alone. */
            size_t nd = np + (size_t)r.overruns;
            int64_t *dev = malloc((nd ? nd : 1) * sizeof *dev);
            if (!dev)
                fail("out of memory");
            for (size_t i = 0; i < np; i++) {
                wake[i] = wake[i + 1] - wake[i]; /* actual periods, in place */
                dev[i] = wake[i] > per ? wake[i] - per : per - wake[i];
            }
            for (size_t i = np; i < nd; i++)
                dev[i] = INT64_MAX;
            int64_t *s = sorted_copy(dev, nd);
            int64_t jit = nd ? quantile_sorted(s, nd, o.quantile) : INT64_MAX;
            /* Mean period and spread around it: stability whatever the accuracy. */
            double sum = 0;
            for (size_t i = 0; i < np; i++)
                sum += (double)wake[i];
            int64_t mean = np ? (int64_t)(sum / (double)np + 0.5) : 0;
            for (size_t i = 0; i < np; i++)
                dev[i] = wake[i] > mean ? wake[i] - mean : mean - wake[i];
            free(s);
            s = sorted_copy(dev, nd);
            int64_t spread = nd ? quantile_sorted(s, nd, o.quantile) : INT64_MAX;
            char name[48];
            snprintf(name, sizeof name, "period_%lldus", o.periods_us[k]);
            proto_series(&P, name, "ns", "interval_ns", per);
            proto_samples(&P, name, wake, np, o.binary);
            snprintf(name, sizeof name, "jitter_%lldus", o.periods_us[k]);
            proto_counter(&P, name, jit == INT64_MAX ? -1 : jit, "ns"); /* -1: unbounded */
            snprintf(name, sizeof name, "mean_period_%lldus", o.periods_us[k]);
            proto_counter(&P, name, mean, "ns");
            snprintf(name, sizeof name, "spread_%lldus", o.periods_us[k]);
            proto_counter(&P, name, spread == INT64_MAX ? -1 : spread, "ns");
            snprintf(name, sizeof name, "overruns_%lldus", o.periods_us[k]);
            proto_counter(&P, name, r.overruns, "count");
            int64_t bound = o.bound_pct > 0 ? (int64_t)((double)per * o.bound_pct / 100)
                                            : o.bound_us * 1000;
            int pass = np && !wl_stop && jit <= bound;
            if (!o.quiet) {
                char jtxt[32];
                if (jit == INT64_MAX)
                    snprintf(jtxt, sizeof jtxt, "inf");
                else
                    snprintf(jtxt, sizeof jtxt, "%" PRId64, jit);
                fprintf(stderr, "period %6lld us: %zu periods, mean %.1f us, q%g |T-P| = %s ns, "
                        "overruns %lld: %s\n", o.periods_us[k], np, (double)mean / 1e3,
                        o.quantile * 100, jtxt, r.overruns, pass ? "ok" : "over the bound");
            }
            if (pass && (!best || per < best))
                best = per;
            total += (long long)np;
            free(s);
            free(dev);
            free(wake);
        }
        getrusage(RUSAGE_SELF, &ru1);
        if (o.bound_pct > 0)
            proto_meta(&P, "bound", "percent_of_period");
        else
            proto_meta_i(&P, "bound_ns", o.bound_us * 1000);
        proto_counter(&P, "min_period_ns", best, "ns");
        proto_counter(&P, "samples", total, "count");
    }
    int64_t wall = wl_now_ns() - t_start;
    proto_counter(&P, "wall_ns", wall, "ns");
    proto_counter(&P, "cpu_ns", cpu_ns() - cpu0, "ns");
    proto_counter(&P, "minflt", ru1.ru_minflt - ru0.ru_minflt, "count");
    proto_counter(&P, "majflt", ru1.ru_majflt - ru0.ru_majflt, "count");
    proto_counter(&P, "nivcsw", ru1.ru_nivcsw - ru0.ru_nivcsw, "count");
    proto_end(&P, wl_stop ? "interrupted" : "ok", wl_stop ? "stopped by a signal" : NULL);
    return wl_stop ? 130 : 0;
}
