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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpio.h"
#include "proto.h"
#include "workload.h"

static const char usage_text[] =
    "usage: rtlab-gpio-events [-c CHIP] [-l LINES] [-e rising|falling|both] "
    "[-n N | -D TIME] [--realtime] [--bias B]\n";

/* Its own options; the common ones are gpio.h's. */
enum { O_RT = GPIO_OPT_OWN, O_BIAS, O_BUF };
static const struct option longopts[] = {
    {"edge", required_argument, 0, 'e'}, {"realtime", no_argument, 0, O_RT},
    {"bias", required_argument, 0, O_BIAS}, {"buffer", required_argument, 0, O_BUF},
    GPIO_COMMON_LONGOPTS};

int main(int argc, char **argv)
{
    const char *edge = "both", *bias = NULL;
    long long buffer = 1024;
    int realtime = 0;
    gpio_opts_t o = gpio_opts("rtlab-gpio-events", usage_text, 1LL << 28, "src/gpio_events.c");
    for (int ch; (ch = gpio_next_option(&o, argc, argv, "e:", longopts)) != -1;) {
        switch (ch) {
        case 'e':
            if (strcmp(optarg, "rising") && strcmp(optarg, "falling") && strcmp(optarg, "both"))
                wl_die_usage("--edge: rising, falling or both, got '%s'", optarg);
            edge = optarg;
            break;
        case O_RT: realtime = 1; break;
        case O_BIAS:
            if (strcmp(optarg, "pull-up") && strcmp(optarg, "pull-down") && strcmp(optarg, "disabled"))
                wl_die_usage("--bias: pull-up, pull-down or disabled, got '%s'", optarg);
            bias = optarg;
            break;
        case O_BUF: buffer = wl_parse_int("--buffer", optarg, 1, 1 << 20); break;
        default: wl_die_bad_option(ch, argv);
        }
    }
    uint32_t offsets[GPIO_MAX_LINES];
    unsigned n_lines;
    gpio_common_done(&o, argc, argv, offsets, &n_lines);
    char err[512], buf[256];

    uint64_t flags = GPIO_V2_LINE_FLAG_INPUT;
    if (strcmp(edge, "falling")) flags |= GPIO_V2_LINE_FLAG_EDGE_RISING;
    if (strcmp(edge, "rising")) flags |= GPIO_V2_LINE_FLAG_EDGE_FALLING;
    if (realtime) flags |= GPIO_V2_LINE_FLAG_EVENT_CLOCK_REALTIME;
    if (bias && !strcmp(bias, "pull-up")) flags |= GPIO_V2_LINE_FLAG_BIAS_PULL_UP;
    if (bias && !strcmp(bias, "pull-down")) flags |= GPIO_V2_LINE_FLAG_BIAS_PULL_DOWN;
    if (bias && !strcmp(bias, "disabled")) flags |= GPIO_V2_LINE_FLAG_BIAS_DISABLED;

    gpio_chip_t chip;
    int lfd = gpio_claim(&chip, o.chip_spec, offsets, n_lines, flags, "rtlab-gpio-events",
                         (unsigned)buffer, err, sizeof err);
    if (lfd < 0) {
        wl_error("%s", err);
        return GPIO_EXIT;
    }
    wl_catch_stop_signals();

    proto_t P;
    proto_init(&P, stdout, o.crc);
    proto_hello(&P, "rtlab-gpio-events", RTLAB_TOGGLE_VERSION);
    gpio_meta(&P, &chip, offsets, n_lines);
    proto_meta(&P, "edge", edge);
    proto_meta(&P, "clock", realtime ? "realtime" : "monotonic");
    for (int i = 0; i < o.n_meta; i++)
        proto_meta_pair(&P, o.meta[i]);
    proto_meta(&P, "ready", "1");
    fflush(stdout);

    long long cap = o.count ? o.count : 1000000, n = 0, lost = 0, line_lost = 0;
    int64_t *ts = malloc((size_t)cap * sizeof *ts), *kind = malloc((size_t)cap * sizeof *kind);
    int64_t *line = malloc((size_t)cap * sizeof *line);
    uint32_t last_seq = 0, last_line_seq[GPIO_MAX_LINES] = {0};
    if (!ts || !kind || !line) {
        close(lfd);
        proto_end(&P, "error", "out of memory");
        return 1;
    }
    long long end_at = o.duration ? wl_now_ns() + o.duration : 0;
    int failed = 0;
    struct gpio_v2_line_event ev[16];
    while (!wl_stop && n < cap) {
        int wait_ms = -1;
        if (end_at) {
            long long left = end_at - wl_now_ns();
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
    proto_samples(&P, "edge_ts", ts, (size_t)n, o.binary);
    proto_series(&P, "edge_kind", "count", NULL, 0);
    proto_samples(&P, "edge_kind", kind, (size_t)n, o.binary);
    proto_series(&P, "edge_line", "count", NULL, 0);
    proto_samples(&P, "edge_line", line, (size_t)n, o.binary);
    for (long long i = 0; i + 1 < n; i++) kind[i] = ts[i + 1] - ts[i];
    proto_series(&P, "interval", "ns", NULL, 0);
    proto_samples(&P, "interval", kind, (size_t)(n > 0 ? n - 1 : 0), o.binary);
    proto_counter(&P, "events", n, "count");
    proto_counter(&P, "lost", lost, "count");
    proto_counter(&P, "line_lost", line_lost, "count");
    if (lost || line_lost) proto_warn(&P, "events_lost", "kernel event buffer overflowed: raise --buffer or read faster");
    free(ts);
    free(kind);
    free(line);
    if (!o.quiet) wl_error("%lld events, %lld lost", n, lost);
    if (failed) {
        snprintf(buf, sizeof buf, "reading events: %s", strerror(failed));
        proto_end(&P, "error", buf);
        return 1;
    }
    return wl_proto_end(&P);
}
