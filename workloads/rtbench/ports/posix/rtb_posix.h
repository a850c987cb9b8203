/* Internals shared by the POSIX port's files. */
#ifndef RTB_POSIX_H
#define RTB_POSIX_H

#include <stddef.h>

/* Kernel objects get whole cache lines: two cores' private objects must not share one,
 * or the scalability patterns would measure false sharing instead of the kernel. */
void *rtb_posix_obj_alloc(size_t size);
void rtb_posix_obj_free(void *p);

/* Selects what rtb_ts() reads; call before rtb_port_init. "monotonic_raw" (default,
 * ns) or "tsc" (the CPU's invariant counter: x86 TSC, arm64 CNTVCT; calibrated against
 * CLOCK_MONOTONIC_RAW over 20 ms). Returns -1 for a name this build cannot read. */
int rtb_posix_set_clock(const char *name);

#endif
