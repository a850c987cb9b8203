/* Writer of the rtlab output protocol v1: see proto.h and docs/protocol.md. */
#include "proto.h"

#include <inttypes.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_ieee(const char *s, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ (unsigned char)s[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

void proto_init(proto_t *p, FILE *out, int crc)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->crc = crc;
    if (crc)
        crc_init();
}

static void put(proto_t *p, const char *s, size_t n)
{
    /* Callers keep lines short; a longer one is clipped (the host then sees a bad
     * field or CRC) rather than overflowing the buffer. */
    size_t room = PROTO_MAX_LINE - 12 > p->len ? PROTO_MAX_LINE - 12 - p->len : 0;
    if (n > room)
        n = room;
    memcpy(p->line + p->len, s, n);
    p->len += n;
}

void proto_begin(proto_t *p, const char *type)
{
    p->len = 0;
    put(p, "@rtl1 ", 6);
    put(p, type, strlen(type));
}

void proto_field(proto_t *p, const char *text)
{
    put(p, " ", 1);
    put(p, text, strlen(text));
}

static void put_encoded(proto_t *p, const char *v)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c <= 0x20 || c >= 0x7F || c == '=' || c == '*' || c == '%') {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            put(p, e, 3);
        } else {
            put(p, (const char *)&c, 1);
        }
    }
}

void proto_kv(proto_t *p, const char *key, const char *value)
{
    put(p, " ", 1);
    put(p, key, strlen(key));
    put(p, "=", 1);
    put_encoded(p, value);
}

void proto_kvi(proto_t *p, const char *key, long long value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", value);
    proto_kv(p, key, buf);
}

void proto_finish(proto_t *p)
{
    if (p->crc) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, " *%08" PRIx32, crc32_ieee(p->line, p->len));
        memcpy(p->line + p->len, buf, (size_t)n);
        p->len += (size_t)n;
    }
    p->line[p->len++] = '\n';
    fwrite(p->line, 1, p->len, p->out);
    p->records++;
}

void proto_hello(proto_t *p, const char *workload, const char *version)
{
    p->records = 0;
    proto_begin(p, "hello");
    proto_kv(p, "workload", workload);
    proto_kv(p, "version", version);
    proto_finish(p);
}

void proto_meta(proto_t *p, const char *key, const char *value)
{
    proto_begin(p, "meta");
    proto_kv(p, key, value);
    proto_finish(p);
}

void proto_meta_pair(proto_t *p, const char *pair)
{
    char key[64];
    const char *eq = strchr(pair, '=');
    snprintf(key, sizeof key, "%.*s", (int)(eq - pair), pair);
    proto_meta(p, key, eq + 1);
}

void proto_meta_i(proto_t *p, const char *key, long long value)
{
    proto_begin(p, "meta");
    proto_kvi(p, key, value);
    proto_finish(p);
}

void proto_counter(proto_t *p, const char *name, long long value, const char *unit)
{
    char buf[32];
    proto_begin(p, "c");
    proto_field(p, name);
    snprintf(buf, sizeof buf, "%lld", value);
    proto_field(p, buf);
    if (unit)
        proto_kv(p, "unit", unit);
    proto_finish(p);
}

void proto_warn(proto_t *p, const char *code, const char *msg)
{
    proto_begin(p, "warn");
    proto_kv(p, "code", code);
    proto_kv(p, "msg", msg);
    proto_finish(p);
}

void proto_series(proto_t *p, const char *name, const char *unit, const char *attr_key,
                  long long attr_value)
{
    proto_begin(p, "series");
    proto_field(p, name);
    proto_kv(p, "unit", unit);
    if (attr_key)
        proto_kvi(p, attr_key, attr_value);
    proto_finish(p);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 without padding ('=' would clash with key=value, see docs/protocol.md). */
static size_t base64(const unsigned char *in, size_t n, char *out)
{
    size_t o = 0, i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = b64[(v >> 6) & 63];
        out[o++] = b64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = b64[(v >> 6) & 63];
    }
    out[o] = 0;
    return o;
}

static void chunk_header(proto_t *p, const char *type, const char *name, long seq)
{
    char buf[24];
    proto_begin(p, type);
    proto_field(p, name);
    snprintf(buf, sizeof buf, "%ld", seq);
    proto_field(p, buf);
}

void proto_samples(proto_t *p, const char *name, const int64_t *v, size_t n, int binary)
{
    long seq = 0;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        if (binary) {
            /* 256 values of at most 10 varint bytes: 3414 base64 characters, fits. */
            unsigned char raw[PROTO_MAX_CHUNK * 10];
            char text[PROTO_MAX_CHUNK * 14 + 4], cnt[24];
            size_t nb = 0;
            uint64_t prev = 0;
            for (; j < n && j - i < PROTO_MAX_CHUNK; j++) {
                uint64_t d = (uint64_t)v[j] - prev; /* modulo 2^64, as the host decodes */
                prev = (uint64_t)v[j];
                uint64_t z = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
                do {
                    unsigned char byte = z & 0x7F;
                    z >>= 7;
                    raw[nb++] = byte | (z ? 0x80 : 0);
                } while (z);
            }
            chunk_header(p, "sb", name, seq++);
            snprintf(cnt, sizeof cnt, "%zu", j - i);
            proto_field(p, cnt);
            base64(raw, nb, text);
            proto_field(p, text);
        } else {
            char num[32];
            chunk_header(p, "sd", name, seq++);
            snprintf(num, sizeof num, "%" PRId64, v[i]);
            proto_field(p, num);
            j = i + 1;
            int first = 1;
            /* Deltas until 256 values or the line would pass the 4096-byte limit. */
            for (; j < n && j - i < PROTO_MAX_CHUNK && p->len < PROTO_MAX_LINE - 64; j++) {
                int k = snprintf(num, sizeof num, "%s%" PRId64, first ? " " : ",",
                                 (int64_t)((uint64_t)v[j] - (uint64_t)v[j - 1]));
                put(p, num, (size_t)k);
                first = 0;
            }
        }
        proto_finish(p);
        i = j;
    }
}

void proto_bucket(proto_t *p, const char *name, const char *unit, long long lo, long long hi,
                  long long count)
{
    proto_begin(p, "h");
    proto_field(p, name);
    proto_kv(p, "unit", unit);
    proto_kvi(p, "lo", lo);
    proto_kvi(p, "hi", hi);
    proto_kvi(p, "count", count);
    proto_finish(p);
}

void proto_end(proto_t *p, const char *status, const char *msg)
{
    long n = p->records;
    proto_begin(p, "end");
    proto_kvi(p, "records", n);
    proto_kv(p, "status", status);
    if (msg)
        proto_kv(p, "msg", msg);
    proto_finish(p);
    fflush(p->out);
}
