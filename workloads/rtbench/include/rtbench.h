/*
 * rtbench: the portable RTOS benchmark suite. A port's start-up code fills a config
 * (rtbench_config_default, then overrides) and calls rtbench_run from a thread running
 * at level RTB_PRIO_MAIN; every scenario prints its own protocol run (docs/rtbench.md).
 */
#ifndef RTBENCH_H
#define RTBENCH_H

#include <stdint.h>

#define RTBENCH_VERSION "0.1.0"

/* Priority levels the scenarios use (1 = lowest .. RTB_PRIO_LEVELS). */
#define RTB_PRIO_IDLE_BUSY 1 /* troublemaker, stress filler */
#define RTB_PRIO_BENCH 4     /* throughput tasks; T3 uses BENCH .. BENCH+4 */
#define RTB_PRIO_LOW 9       /* primitives: the task being preempted */
#define RTB_PRIO_HIGH 10     /* primitives: the preempting task */
#define RTB_PRIO_TRIGGER 11  /* interrupt scenario: the task pending the interrupt */
#define RTB_PRIO_ACTOR 12    /* interrupt scenario: the task the handler activates */
#define RTB_PRIO_MAIN 14     /* the thread calling rtbench_run */
#define RTB_PRIO_TIMER 15    /* timer-control task ending a throughput window */

enum {
    RTB_SC_PRIMITIVES = 1u << 0,
    RTB_SC_IRQ = 1u << 1,
    RTB_SC_THREADMETRIC = 1u << 2,
    RTB_SC_SCALABILITY = 1u << 3,
    RTB_SC_CONTENTION = 1u << 4,
    RTB_SC_ALL = 0x1f,
};

#define RTB_START_DELAY_DEFAULT 0xFFFFFFFFu
#define RTB_MAX_CORE_COUNTS 4
#define RTB_MAX_LEVELS 8

typedef struct {
    unsigned scenarios;     /* RTB_SC_* bits */
    uint32_t iterations;    /* samples per latency series (warm + 1 cold) */
    uint32_t window_ms;     /* throughput window of each T/pattern/level */
    uint32_t period_us;     /* interrupt scenario: trigger period */
    uint8_t core_counts[RTB_MAX_CORE_COUNTS]; /* active-core counts to run, e.g. 1, 2 */
    uint8_t n_core_counts;
    uint8_t levels[RTB_MAX_LEVELS]; /* contention: stress probability in percent */
    uint8_t n_levels;
    uint8_t tm_mask;  /* Thread-Metric tests to run: bit 0 = T1 .. bit 7 = T8 */
    uint8_t shared;   /* T6/T7: one object shared by all cores instead of one per core */
    uint8_t crc;      /* append CRC-32 to every line */
    uint8_t markers;  /* marker pins around every measured path (rtb_mark.h); off: the
                         figures stay comparable with runs that had none */
    uint8_t irq_ext;  /* the irq scenario's external-interrupt pass (a GPIO edge, wired) */
    uint32_t start_delay_ms; /* a board's wait before the first scenario (time to open
                                its serial port); RTB_START_DELAY_DEFAULT: the board's own */
    uint32_t seed;    /* contention PRNG seed */
} rtbench_config;

void rtbench_config_default(rtbench_config *cfg);
/* Runs the selected scenarios; returns the number of runs that ended in error. */
int rtbench_run(const rtbench_config *cfg);

#endif
