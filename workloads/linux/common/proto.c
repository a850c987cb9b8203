/* The @rtl1 writer on a stdio stream: see proto.h. The formatting is rtl1.c's. */
#include "proto.h"

#include <string.h>

static void write_line(void *ctx, const char *line, size_t len)
{
    fwrite(line, 1, len, ((proto_t *)ctx)->out);
}

void proto_init(proto_t *p, FILE *out, int crc)
{
    p->out = out;
    rtl1_init(&p->w, write_line, p, crc);
}

void proto_begin(proto_t *p, const char *type) { rtl1_begin(&p->w, type); }
void proto_field(proto_t *p, const char *text) { rtl1_field(&p->w, text); }
void proto_kv(proto_t *p, const char *key, const char *value) { rtl1_kv(&p->w, key, value); }
void proto_kvi(proto_t *p, const char *key, long long value) { rtl1_kv_i64(&p->w, key, value); }
void proto_finish(proto_t *p) { rtl1_finish(&p->w); }

void proto_hello(proto_t *p, const char *workload, const char *version)
{
    rtl1_hello(&p->w, workload, version);
}

void proto_meta(proto_t *p, const char *key, const char *value) { rtl1_meta(&p->w, key, value); }
void proto_meta_i(proto_t *p, const char *key, long long value)
{
    rtl1_meta_i64(&p->w, key, value);
}

void proto_meta_pair(proto_t *p, const char *pair)
{
    /* The key goes out as the user wrote it (wl_add_meta only checks for the '='). */
    const char *eq = strchr(pair, '=');
    size_t n = (size_t)(eq - pair);
    rtl1_begin(&p->w, "meta");
    rtl1_raw(&p->w, " ", 1);
    rtl1_raw(&p->w, pair, n < 63 ? n : 63);
    rtl1_raw(&p->w, "=", 1);
    rtl1_encoded(&p->w, eq + 1);
    rtl1_finish(&p->w);
}

void proto_counter(proto_t *p, const char *name, long long value, const char *unit)
{
    rtl1_counter(&p->w, name, value, unit);
}

void proto_warn(proto_t *p, const char *code, const char *msg) { rtl1_warn(&p->w, code, msg); }

void proto_series(proto_t *p, const char *name, const char *unit, const char *attr_key,
                  long long attr_value)
{
    rtl1_series(&p->w, name, unit, attr_key, attr_value);
}

void proto_samples(proto_t *p, const char *name, const int64_t *v, size_t n, int binary)
{
    (void)rtl1_samples(&p->w, name, 0, v, n, PROTO_MAX_CHUNK, binary);
}

void proto_bucket(proto_t *p, const char *name, const char *unit, long long lo, long long hi,
                  long long count)
{
    rtl1_bucket(&p->w, name, unit, lo, hi, count);
}

void proto_end(proto_t *p, const char *status, const char *msg)
{
    rtl1_end(&p->w, status, msg);
    fflush(p->out);
}
