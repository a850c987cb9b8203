/* The rtlab output protocol v1 (docs/protocol.md) on a stdio stream, for the Linux
 * workloads: a front end to the shared writer (workloads/common/rtl1/rtl1.h). */
#ifndef RTLAB_PROTO_H
#define RTLAB_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rtl1.h"

#define PROTO_MAX_CHUNK 256 /* values per sd/sb line */

typedef struct {
    rtl1_writer w;
    FILE *out;
} proto_t;

void proto_init(proto_t *p, FILE *out, int crc);
/* Start a record: "@rtl1 TYPE". */
void proto_begin(proto_t *p, const char *type);
/* A bare field (caller guarantees no space, '=', '*'). */
void proto_field(proto_t *p, const char *text);
/* key=value with the value percent-encoded as needed. */
void proto_kv(proto_t *p, const char *key, const char *value);
void proto_kvi(proto_t *p, const char *key, long long value);
/* Finish the record (CRC, newline) and count it. */
void proto_finish(proto_t *p);

void proto_hello(proto_t *p, const char *workload, const char *version);
void proto_meta(proto_t *p, const char *key, const char *value);
void proto_meta_i(proto_t *p, const char *key, long long value);
/* A meta record from "KEY=VALUE" (a --meta argument, checked to hold a '='): the key is
 * what comes before the first '=', at most 63 characters. */
void proto_meta_pair(proto_t *p, const char *pair);
void proto_counter(proto_t *p, const char *name, long long value, const char *unit);
void proto_warn(proto_t *p, const char *code, const char *msg);
/* "series NAME unit=UNIT" plus an optional pre-formatted key=value attribute. */
void proto_series(proto_t *p, const char *name, const char *unit, const char *attr_key,
                  long long attr_value);
/* The samples of a declared series as sd (delta text) or sb (zigzag LEB128 base64). */
void proto_samples(proto_t *p, const char *name, const int64_t *v, size_t n, int binary);
void proto_bucket(proto_t *p, const char *name, const char *unit, long long lo, long long hi,
                  long long count);
void proto_end(proto_t *p, const char *status, const char *msg);

#endif
