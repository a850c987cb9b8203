/*
 * What every rtlab C workload for Linux does around its measurement (rtlab-latency,
 * rtlab-toggle, rtlab-gpio-events): usage errors and strict option parsing, the stop
 * signals and the end record they lead to, the clock, and the real-time setup calls.
 *
 * Messages stay each program's own: a usage error prints "<prog>: <message>", then the
 * program's usage text, and exits 2; the real-time calls return an errno value and leave
 * the reporting (a warning record or a failure, in the program's documented words) to
 * the caller.
 */
#ifndef RTLAB_WORKLOAD_H
#define RTLAB_WORKLOAD_H

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "proto.h"

#define WL_NS_PER_S 1000000000LL

/* --- messages and usage errors ---------------------------------------------------- */
/* Names the program in every message; usage (ending in a newline) follows a usage error. */
void wl_init(const char *prog, const char *usage);
/* "<prog>: <message>\n" on stderr. */
void wl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<prog>: <message>\n<usage>" on stderr, then exit status 2. */
_Noreturn void wl_die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* getopt_long (optstring starting with ':') returned ch ':' or '?': "option X needs a
 * value" or "unknown option X". */
_Noreturn void wl_die_bad_option(int ch, char **argv);
/* After the options: "unexpected argument 'X'" if any operand is left. */
void wl_no_operands(int argc, char **argv);

/* --- option values (a bad one is a usage error naming the option) ------------------ */
/* A decimal integer in [lo, hi], all of s: "<opt>: expected an integer in [lo, hi], got 's'". */
long long wl_parse_int(const char *opt, const char *s, long long lo, long long hi);

/* Units a duration may carry (a bare number is always seconds). */
enum {
    WL_NS = 1 << 0,  /* ns */
    WL_US = 1 << 1,  /* us */
    WL_MS = 1 << 2,  /* ms */
    WL_S = 1 << 3,   /* s */
    WL_MIN = 1 << 4, /* m */
    WL_H = 1 << 5,   /* h */
};
/* Results of wl_parse_duration: the caller words the message for its option. */
enum {
    WL_DURATION_OK = 0,
    WL_DURATION_NOT_POSITIVE = -1, /* no number, or not a positive finite one */
    WL_DURATION_UNIT = -2,         /* a suffix outside units: *suffix points at it */
    WL_DURATION_RANGE = -3,        /* more nanoseconds than fit in 63 bits */
};
/* "2.5", "500ms", ...: a positive decimal (strtod syntax) with one of units. */
int wl_parse_duration(const char *s, unsigned units, long long *ns, const char **suffix);

/* other, fifo or rr as SCHED_*; anything else: "<opt>: other, fifo or rr, got 's'". */
int wl_parse_policy(const char *opt, const char *s);
/* The name of a SCHED_* policy as the protocol writes it: other, fifo or rr. */
const char *wl_policy_name(int policy);

/* A --meta KEY=VALUE argument kept in meta[*n] (at most max of them). */
void wl_add_meta(const char *arg, const char **meta, int *n, int max);

/* --- stop signals and time --------------------------------------------------------- */
/* The signal (SIGINT, SIGTERM) that asked the measurement to stop; 0 until one comes. */
extern volatile sig_atomic_t wl_stop;
/* Catches SIGINT and SIGTERM into wl_stop, without SA_RESTART: a sleep returns EINTR at
 * once and the loop sees wl_stop. */
void wl_catch_stop_signals(void);
/* The end record of a run that did not fail: status=interrupted msg=SIGINT (or SIGTERM)
 * after a stop signal, else status=ok; returns the exit status, 130 or 0. */
int wl_proto_end(proto_t *p);

static inline int64_t wl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * WL_NS_PER_S + ts.tv_nsec;
}

static inline struct timespec wl_timespec(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / WL_NS_PER_S, .tv_nsec = ns % WL_NS_PER_S};
    return ts;
}

/* --- real-time setup of the calling process: 0, or the errno value ------------------ */
int wl_set_scheduler(int policy, int priority); /* sched_setscheduler */
int wl_set_affinity(const cpu_set_t *cpus);     /* sched_setaffinity */
int wl_lock_memory(void);                       /* mlockall, current and future pages */

#endif
