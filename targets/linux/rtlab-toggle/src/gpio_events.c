/*
 * rtlab-gpio-events: request input lines with edge detection and report the kernel's
 * edge timestamps and sequence numbers in the rtlab output protocol v1 (loopback latency:
 * wire an rtlab-toggle output to this input; docs/gpio-workloads.md).
 *
 * Usage: rtlab-gpio-events [-c CHIP] [-l LINES] [-e rising|falling|both] [-n N | -D TIME]
 *   -c, --chip=CHIP       as rtlab-toggle (default 0)
 *   -l, --lines=LIST      input offsets (default 0)
 *   -e, --edge=EDGE       rising, falling or both (default both)
 *   -n, --count=N         stop after N events;  -D, --duration=TIME  stop after TIME
 *                         (default: -n 1000)
 *       --realtime        CLOCK_REALTIME timestamps (default CLOCK_MONOTONIC, comparable
 *                         with rtlab-toggle's write_ts)
 *       --bias=B          pull-up, pull-down or disabled (default: as is)
 *       --buffer=N        kernel event buffer (default 1024)
 *       --meta=KEY=VALUE, --binary, --crc, -q as rtlab-toggle
 *
 * Series: edge_ts (ns, kernel timestamp), edge_kind (count: 1 rising, 2 falling),
 * edge_line (count: offset), interval (ns, between consecutive events).
 * Counters: events, lost (gaps in the request's seqno: the kernel buffer overflowed),
 * line_lost (gaps in per-line line_seqno).
 * The request prints "meta ready=1" (flushed) once the lines are armed.
 * Exit status: 0 ok, 1 runtime error, 2 usage, 3 GPIO error, 130 interrupted.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "gpio.h"
#include "proto.h"

#define MAX_META 16
#define NS_PER_S 1000000000LL

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

static _Noreturn void die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rtlab-gpio-events: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nusage: rtlab-gpio-events [-c CHIP] [-l LINES] [-e rising|falling|both] "
          "[-n N | -D TIME] [--realtime] [--bias B]\n",
          stderr);
    exit(2);
}

static long long parse_int(const char *opt, const char *s, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        die_usage("%s: expected an integer in [%lld, %lld], got '%s'", opt, lo, hi, s);
    return v;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *chip_spec = "0", *lines_spec = "0", *edge = "both", *bias = NULL;
    long long count = 0, duration = 0, buffer = 1024;
    int realtime = 0, binary = 0, crc = 0, quiet = 0, n_meta = 0;
    const char *meta[MAX_META];
    enum { O_RT = 256, O_BIAS, O_BUF, O_META, O_BINARY, O_CRC, O_HELP };
    static const struct option longopts[] = {
        {"chip", required_argument, 0, 'c'},   {"lines", required_argument, 0, 'l'},
        {"edge", required_argument, 0, 'e'},   {"count", required_argument, 0, 'n'},
        {"duration", required_argument, 0, 'D'}, {"realtime", no_argument, 0, O_RT},
        {"bias", required_argument, 0, O_BIAS}, {"buffer", required_argument, 0, O_BUF},
        {"meta", required_argument, 0, O_META}, {"binary", no_argument, 0, O_BINARY},
        {"crc", no_argument, 0, O_CRC},        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, O_HELP},      {0, 0, 0, 0}};
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":c:l:e:n:D:q", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c': chip_spec = optarg; break;
        case 'l': lines_spec = optarg; break;
        case 'e':
            if (strcmp(optarg, "rising") && strcmp(optarg, "falling") && strcmp(optarg, "both"))
                die_usage("--edge: rising, falling or both, got '%s'", optarg);
            edge = optarg;
            break;
        case 'n': count = parse_int("-n", optarg, 1, 1LL << 28); break;
        case 'D':
            duration = parse_duration_ns(optarg);
            if (duration <= 0) die_usage("-D: expected 2s, 500ms, 100us, 1m or seconds, got '%s'", optarg);
            break;
        case O_RT: realtime = 1; break;
        case O_BIAS:
            if (strcmp(optarg, "pull-up") && strcmp(optarg, "pull-down") && strcmp(optarg, "disabled"))
                die_usage("--bias: pull-up, pull-down or disabled, got '%s'", optarg);
            bias = optarg;
            break;
        case O_BUF: buffer = parse_int("--buffer", optarg, 1, 1 << 20); break;
        case O_META:
            if (n_meta >= MAX_META || !strchr(optarg, '=') || optarg[0] == '=')
                die_usage("--meta: KEY=VALUE, at most %d", MAX_META);
            meta[n_meta++] = optarg;
            break;
        case O_BINARY: binary = 1; break;
        case O_CRC: crc = 1; break;
        case 'q': quiet = 1; break;
        case O_HELP: puts("see the comment at the top of src/gpio_events.c or docs/gpio-workloads.md"); return 0;
        case ':': die_usage("option %s needs a value", argv[optind - 1]);
        default: die_usage("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc) die_usage("unexpected argument '%s'", argv[optind]);
    if (count && duration) die_usage("give -n or -D, not both");
    if (!count && !duration) count = 1000;
    uint32_t offsets[GPIO_MAX_LINES];
    unsigned n_lines;
    char err[512], buf[256];
    if (gpio_parse_lines(lines_spec, offsets, &n_lines, err, sizeof err) < 0) die_usage("%s", err);

    uint64_t flags = GPIO_V2_LINE_FLAG_INPUT;
    if (strcmp(edge, "falling")) flags |= GPIO_V2_LINE_FLAG_EDGE_RISING;
    if (strcmp(edge, "rising")) flags |= GPIO_V2_LINE_FLAG_EDGE_FALLING;
    if (realtime) flags |= GPIO_V2_LINE_FLAG_EVENT_CLOCK_REALTIME;
    if (bias && !strcmp(bias, "pull-up")) flags |= GPIO_V2_LINE_FLAG_BIAS_PULL_UP;
    if (bias && !strcmp(bias, "pull-down")) flags |= GPIO_V2_LINE_FLAG_BIAS_PULL_DOWN;
    if (bias && !strcmp(bias, "disabled")) flags |= GPIO_V2_LINE_FLAG_BIAS_DISABLED;

    gpio_chip_t chip;
    if (gpio_open_chip(&chip, chip_spec, err, sizeof err) < 0) {
        fprintf(stderr, "rtlab-gpio-events: %s\n", err);
        return GPIO_EXIT;
    }
    int lfd = gpio_request(&chip, offsets, n_lines, flags, 0, "rtlab-gpio-events",
                           (unsigned)buffer, err, sizeof err);
    close(chip.fd);
    if (lfd < 0) {
        fprintf(stderr, "rtlab-gpio-events: %s\n", err);
        return GPIO_EXIT;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    proto_t P;
    proto_init(&P, stdout, crc);
    proto_hello(&P, "rtlab-gpio-events", RTLAB_TOGGLE_VERSION);
    struct utsname u;
    if (uname(&u) == 0) {
        proto_meta(&P, "kernel", u.release);
        proto_meta(&P, "machine", u.machine);
    }
    proto_meta(&P, "api", "gpio-cdev-v2");
    proto_meta(&P, "chip", chip.info.name);
    proto_meta(&P, "chip_label", chip.info.label);
    buf[0] = 0;
    for (unsigned i = 0; i < n_lines; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%u", i ? "," : "", offsets[i]);
    proto_meta(&P, "lines", buf);
    proto_meta(&P, "edge", edge);
    proto_meta(&P, "clock", realtime ? "realtime" : "monotonic");
    for (int i = 0; i < n_meta; i++) {
        char key[64];
        const char *eq = strchr(meta[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - meta[i]), meta[i]);
        proto_meta(&P, key, eq + 1);
    }
    proto_meta(&P, "ready", "1");
    fflush(stdout);

    long long cap = count ? count : 1000000, n = 0, lost = 0, line_lost = 0;
    int64_t *ts = malloc((size_t)cap * sizeof *ts), *kind = malloc((size_t)cap * sizeof *kind);
    int64_t *line = malloc((size_t)cap * sizeof *line);
    uint32_t last_seq = 0, last_line_seq[GPIO_MAX_LINES] = {0};
    if (!ts || !kind || !line) {
        close(lfd);
        proto_end(&P, "error", "out of memory");
        return 1;
    }
    long long end_at = duration ? now_ns() + duration : 0;
    int failed = 0;
    struct gpio_v2_line_event ev[16];
    while (!stop_signal && n < cap) {
        int wait_ms = -1;
        if (end_at) {
            long long left = end_at - now_ns();
            if (left <= 0) break;
            wait_ms = (int)((left + 999999) / 1000000);
        }
        struct pollfd pfd = {.fd = lfd, .events = POLLIN};
        int r = poll(&pfd, 1, wait_ms);
        if (r < 0) {
            if (errno == EINTR) continue;
            failed = errno;
            break;
        }
        if (r == 0) continue;
        ssize_t got = read(lfd, ev, sizeof ev);
        if (got < 0) {
            if (errno == EINTR) continue;
            failed = errno;
            break;
        }
        for (size_t i = 0; i < (size_t)got / sizeof ev[0] && n < cap; i++) {
            /* seqno counts every event of the request: a jump means the buffer overflowed. */
            if (last_seq && ev[i].seqno > last_seq + 1) lost += ev[i].seqno - last_seq - 1;
            last_seq = ev[i].seqno;
            for (unsigned k = 0; k < n_lines; k++)
                if (offsets[k] == ev[i].offset) {
                    if (last_line_seq[k] && ev[i].line_seqno > last_line_seq[k] + 1)
                        line_lost += ev[i].line_seqno - last_line_seq[k] - 1;
                    last_line_seq[k] = ev[i].line_seqno;
                }
            ts[n] = (int64_t)ev[i].timestamp_ns;
            kind[n] = ev[i].id == GPIO_V2_LINE_EVENT_RISING_EDGE ? 1 : 2;
            line[n] = ev[i].offset;
            n++;
        }
    }
    close(lfd); /* release before the (slow) output */
    proto_series(&P, "edge_ts", "ns", NULL, 0);
    proto_samples(&P, "edge_ts", ts, (size_t)n, binary);
    proto_series(&P, "edge_kind", "count", NULL, 0);
    proto_samples(&P, "edge_kind", kind, (size_t)n, binary);
    proto_series(&P, "edge_line", "count", NULL, 0);
    proto_samples(&P, "edge_line", line, (size_t)n, binary);
    for (long long i = 0; i + 1 < n; i++) kind[i] = ts[i + 1] - ts[i];
    proto_series(&P, "interval", "ns", NULL, 0);
    proto_samples(&P, "interval", kind, (size_t)(n > 0 ? n - 1 : 0), binary);
    proto_counter(&P, "events", n, "count");
    proto_counter(&P, "lost", lost, "count");
    proto_counter(&P, "line_lost", line_lost, "count");
    if (lost || line_lost) proto_warn(&P, "events_lost", "kernel event buffer overflowed: raise --buffer or read faster");
    free(ts);
    free(kind);
    free(line);
    if (!quiet) fprintf(stderr, "rtlab-gpio-events: %lld events, %lld lost\n", n, lost);
    if (failed) {
        snprintf(buf, sizeof buf, "reading events: %s", strerror(failed));
        proto_end(&P, "error", buf);
        return 1;
    }
    if (stop_signal) {
        proto_end(&P, "interrupted", stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
        return 130;
    }
    proto_end(&P, "ok", NULL);
    return 0;
}
