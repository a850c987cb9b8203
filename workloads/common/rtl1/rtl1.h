/*
 * The one writer of the rtlab output protocol v1 (docs/protocol.md) for C: it formats a
 * record into the writer's line buffer and hands the finished line to a write callback.
 *
 * Freestanding (<stddef.h>, <stdint.h> only) so that the same code runs on a
 * microcontroller: the Linux workloads write lines with fwrite (linux/common/proto.c),
 * rtbench through its port's output hook (rtbench/src/rtb_emit.c).
 * Not thread-safe: one writer per emitting thread.
 */
#ifndef RTL1_H
#define RTL1_H

#include <stddef.h>
#include <stdint.h>

#ifndef RTL1_MAX_LINE /* a small board may lower it: sd lines then carry fewer values */
#define RTL1_MAX_LINE 4096 /* bytes, prefix and newline included */
#endif

typedef void (*rtl1_write_fn)(void *ctx, const char *line, size_t len);

typedef struct {
    rtl1_write_fn write;
    void *ctx;
    int crc;          /* append " *crc32" to every line */
    uint64_t records; /* records written since hello, for end */
    size_t len;
    char line[RTL1_MAX_LINE + 16];
} rtl1_writer;

void rtl1_init(rtl1_writer *w, rtl1_write_fn write, void *ctx, int crc);
/* IEEE 802.3 CRC-32, as zlib's crc32. */
uint32_t rtl1_crc32(const void *data, size_t len);

/* --- one line, piece by piece (text past the line limit is clipped) ---------------- */
void rtl1_begin(rtl1_writer *w, const char *type); /* "@rtl1 TYPE" */
void rtl1_raw(rtl1_writer *w, const char *s, size_t n); /* as is */
void rtl1_encoded(rtl1_writer *w, const char *s); /* percent-encoded where needed */
void rtl1_i64(rtl1_writer *w, int64_t v);         /* decimal */
void rtl1_u64(rtl1_writer *w, uint64_t v);
void rtl1_field(rtl1_writer *w, const char *text); /* " TEXT": caller knows it is a token */
void rtl1_token(rtl1_writer *w, const char *text); /* " TEXT", percent-encoded */
void rtl1_field_i64(rtl1_writer *w, int64_t v);    /* " N" */
void rtl1_kv(rtl1_writer *w, const char *key, const char *value);
void rtl1_kv_i64(rtl1_writer *w, const char *key, int64_t value);
void rtl1_kv_u64(rtl1_writer *w, const char *key, uint64_t value);
/* The optional CRC and the newline; writes the line and counts the record. */
void rtl1_finish(rtl1_writer *w);

/* --- whole records ------------------------------------------------------------------ */
void rtl1_hello(rtl1_writer *w, const char *workload, const char *version); /* count = 0 */
void rtl1_meta(rtl1_writer *w, const char *key, const char *value);
void rtl1_meta_i64(rtl1_writer *w, const char *key, int64_t value);
void rtl1_counter(rtl1_writer *w, const char *name, int64_t value, const char *unit);
void rtl1_warn(rtl1_writer *w, const char *code, const char *msg);
/* "series NAME unit=UNIT [ATTR_KEY=ATTR_VALUE]"; attr_key NULL for none. */
void rtl1_series(rtl1_writer *w, const char *name, const char *unit, const char *attr_key,
                 int64_t attr_value);
/* Samples of a declared series in chunks of at most `chunk` values, numbered from seq:
 * sd (first value, then deltas) or, with binary, sb (zigzag LEB128 base64; chunk at
 * most RTL1_SB_CHUNK_MAX). Returns the next chunk number. */
#define RTL1_SB_CHUNK_MAX 256
uint64_t rtl1_samples(rtl1_writer *w, const char *name, uint64_t seq, const int64_t *v,
                      size_t n, size_t chunk, int binary);
void rtl1_bucket(rtl1_writer *w, const char *name, const char *unit, int64_t lo, int64_t hi,
                 int64_t count);
/* "end records=N status=S [msg=M]"; msg may be NULL. */
void rtl1_end(rtl1_writer *w, const char *status, const char *msg);

#endif
