/* Protocol v1 emitter (docs/protocol.md) of rtbench: the shared @rtl1 writer
 * (workloads/common/rtl1/) writing each finished line through rtb_out_write. Not
 * thread-safe: only the thread running the scenario emits, after its measurements. */
#ifndef RTB_EMIT_H
#define RTB_EMIT_H

#include <stddef.h>
#include <stdint.h>

/* By path, not by include directory: every build of the core (the ports' CMake files,
 * a bare compiler call with -Iinclude -Isrc) finds it the same way. */
#include "../../common/rtl1/rtl1.h"

#define RTB_CHUNK 64 /* values per sd chunk: 64 x 21 chars stays far below 4096 */

uint32_t rtb_crc32(const void *data, size_t len);

void rtb_emit_set_crc(int on);
void rtb_emit_hello(const char *workload, const char *version); /* starts a run */
void rtb_emit_meta(const char *key, const char *value);
void rtb_emit_meta_u64(const char *key, uint64_t value);
/* Declares a series; tick_hz 0 means unit needs no tick (ns, count). */
void rtb_emit_series(const char *name, const char *unit, uint32_t tick_hz);
/* sd chunks numbered from seq; returns the next chunk number. */
uint64_t rtb_emit_values(const char *name, uint64_t seq, const int64_t *v, size_t n);
/* A whole series in one call: its header, then its n values from seq 0 (a bare-metal
 * smoke image's few samples). Inline: an image that does not call it (every RTOS image)
 * has no code of it. The RP2040 smoke image keeps its two calls: its tests' exact cycle
 * counts assume its code's place in the XIP cache lines. */
static inline void rtb_emit_samples(const char *name, const char *unit, uint32_t tick_hz,
                                    const int64_t *v, size_t n)
{
    rtb_emit_series(name, unit, tick_hz);
    rtb_emit_values(name, 0, v, n);
}
void rtb_emit_counter(const char *name, int64_t value, const char *unit);
void rtb_emit_warn(const char *code, const char *msg);
void rtb_emit_end(const char *status, const char *msg); /* msg may be NULL */
uint32_t rtb_emit_records(void);
/* "rtbench: done errors=N\n" into line (N: errors, 99 when negative, below 1000), the
 * serial target's end of a silicon run's output; returns its length. */
size_t rtb_done_line(char line[32], int errors);

/* Low level, for records the helpers do not cover. */
void rtb_line_begin(const char *type);
void rtb_line_token(const char *text); /* percent-encodes what the protocol forbids */
void rtb_line_kv(const char *key, const char *value);
void rtb_line_i64(int64_t v);
void rtb_line_end(void);

#endif
