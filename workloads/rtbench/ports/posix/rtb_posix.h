/* Internals shared by the POSIX port's files. */
#ifndef RTB_POSIX_H
#define RTB_POSIX_H

#include <stddef.h>
#include <stdint.h>

/* Kernel objects get whole cache lines: two cores' private objects must not share one,
 * or the scalability patterns would measure false sharing instead of the kernel. */
void *rtb_posix_obj_alloc(size_t size);
void rtb_posix_obj_free(void *p);

/* Selects what rtb_ts() reads; call before rtb_port_init. "monotonic_raw" (default,
 * ns) or "tsc" (the CPU's invariant counter: x86 TSC, arm64 CNTVCT; calibrated against
 * CLOCK_MONOTONIC_RAW over 20 ms). Returns -1 for a name this build cannot read. */
int rtb_posix_set_clock(const char *name);

/* A board whose counter beats clock_gettime (NuttX in QEMU mps2: CMSDK TIMER0, where
 * the kernel's clock is the tick). Set before rtb_port_init: rtb_ts, rtb_ts_hz and
 * rtb_time_us then read it, and the run's meta names its board and clock. */
typedef struct {
    const char *board; /* token: "mps2-an385" */
    const char *clock; /* token: "cmsdk_timer0_icount" */
    uint32_t cpu_hz;   /* 0 when unknown */
    uint32_t ts_hz;
    uint32_t (*ts)(void);       /* free-running up-counter wrapping at 2^32 */
    uint64_t (*time_us)(void);  /* monotonic microseconds */
    void (*cache_cold)(void);   /* flushes the board's caches (rtb_cache_cold); may be NULL */
    const char *cold;           /* meta cold: what cache_cold does ("xip_cache_flushed") */
} rtb_posix_board_clock;
void rtb_posix_set_board_clock(const rtb_posix_board_clock *clock);

#endif
