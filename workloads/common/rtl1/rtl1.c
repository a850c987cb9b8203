/* The @rtl1 writer: see rtl1.h and docs/protocol.md. No libc: it also runs on MCUs. */
#include "rtl1.h"

void rtl1_init(rtl1_writer *w, rtl1_write_fn write, void *ctx, int crc)
{
    w->write = write;
    w->ctx = ctx;
    w->crc = crc;
    w->records = 0;
    w->len = 0;
}

uint32_t rtl1_crc32(const void *data, size_t len)
{
    /* Bitwise, no table: small firmware stays small; only --crc runs pay for it. */
    const uint8_t *p = data;
    uint32_t c = 0xFFFFFFFFu;
    while (len--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* --- one line ---------------------------------------------------------------------- */
static void put(rtl1_writer *w, char ch)
{
    /* Room is kept for " *xxxxxxxx\n"; a longer line is clipped (the host then sees a
     * bad field or CRC) rather than overflowing the buffer. */
    if (w->len < RTL1_MAX_LINE - 12)
        w->line[w->len++] = ch;
}

static void put_str(rtl1_writer *w, const char *s)
{
    while (*s)
        put(w, *s++);
}

void rtl1_raw(rtl1_writer *w, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(w, s[i]);
}

void rtl1_encoded(rtl1_writer *w, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c > 0x20 && c < 0x7F && c != '=' && c != '*' && c != '%') {
            put(w, (char)c);
        } else {
            put(w, '%');
            put(w, hex[c >> 4]);
            put(w, hex[c & 15]);
        }
    }
}

void rtl1_u64(rtl1_writer *w, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        put(w, tmp[--n]);
}

void rtl1_i64(rtl1_writer *w, int64_t v)
{
    if (v < 0) {
        put(w, '-');
        rtl1_u64(w, 0u - (uint64_t)v); /* well defined for INT64_MIN too */
    } else {
        rtl1_u64(w, (uint64_t)v);
    }
}

void rtl1_begin(rtl1_writer *w, const char *type)
{
    w->len = 0;
    put_str(w, "@rtl1 ");
    put_str(w, type);
}

void rtl1_field(rtl1_writer *w, const char *text)
{
    put(w, ' ');
    put_str(w, text);
}

void rtl1_token(rtl1_writer *w, const char *text)
{
    put(w, ' ');
    rtl1_encoded(w, text);
}

void rtl1_field_i64(rtl1_writer *w, int64_t v)
{
    put(w, ' ');
    rtl1_i64(w, v);
}

void rtl1_kv(rtl1_writer *w, const char *key, const char *value)
{
    rtl1_token(w, key);
    put(w, '=');
    rtl1_encoded(w, value);
}

void rtl1_kv_i64(rtl1_writer *w, const char *key, int64_t value)
{
    rtl1_token(w, key);
    put(w, '=');
    rtl1_i64(w, value);
}

void rtl1_kv_u64(rtl1_writer *w, const char *key, uint64_t value)
{
    rtl1_token(w, key);
    put(w, '=');
    rtl1_u64(w, value);
}

void rtl1_finish(rtl1_writer *w)
{
    static const char hex[] = "0123456789abcdef";
    if (w->crc) {
        uint32_t c = rtl1_crc32(w->line, w->len);
        w->line[w->len++] = ' ';
        w->line[w->len++] = '*';
        for (int k = 7; k >= 0; k--)
            w->line[w->len++] = hex[(c >> (4 * k)) & 15];
    }
    w->line[w->len++] = '\n';
    w->write(w->ctx, w->line, w->len);
    w->records++;
}

/* --- whole records ------------------------------------------------------------------ */
void rtl1_hello(rtl1_writer *w, const char *workload, const char *version)
{
    w->records = 0;
    rtl1_begin(w, "hello");
    rtl1_kv(w, "workload", workload);
    rtl1_kv(w, "version", version);
    rtl1_finish(w);
}

void rtl1_meta(rtl1_writer *w, const char *key, const char *value)
{
    rtl1_begin(w, "meta");
    rtl1_kv(w, key, value);
    rtl1_finish(w);
}

void rtl1_meta_i64(rtl1_writer *w, const char *key, int64_t value)
{
    rtl1_begin(w, "meta");
    rtl1_kv_i64(w, key, value);
    rtl1_finish(w);
}

void rtl1_counter(rtl1_writer *w, const char *name, int64_t value, const char *unit)
{
    rtl1_begin(w, "c");
    rtl1_token(w, name);
    rtl1_field_i64(w, value);
    if (unit)
        rtl1_kv(w, "unit", unit);
    rtl1_finish(w);
}

void rtl1_warn(rtl1_writer *w, const char *code, const char *msg)
{
    rtl1_begin(w, "warn");
    rtl1_kv(w, "code", code);
    rtl1_kv(w, "msg", msg);
    rtl1_finish(w);
}

void rtl1_series(rtl1_writer *w, const char *name, const char *unit, const char *attr_key,
                 int64_t attr_value)
{
    rtl1_begin(w, "series");
    rtl1_token(w, name);
    rtl1_kv(w, "unit", unit);
    if (attr_key)
        rtl1_kv_i64(w, attr_key, attr_value);
    rtl1_finish(w);
}

void rtl1_bucket(rtl1_writer *w, const char *name, const char *unit, int64_t lo, int64_t hi,
                 int64_t count)
{
    rtl1_begin(w, "h");
    rtl1_token(w, name);
    rtl1_kv(w, "unit", unit);
    rtl1_kv_i64(w, "lo", lo);
    rtl1_kv_i64(w, "hi", hi);
    rtl1_kv_i64(w, "count", count);
    rtl1_finish(w);
}

void rtl1_end(rtl1_writer *w, const char *status, const char *msg)
{
    uint64_t n = w->records;
    rtl1_begin(w, "end");
    rtl1_kv_u64(w, "records", n);
    rtl1_kv(w, "status", status);
    if (msg)
        rtl1_kv(w, "msg", msg);
    rtl1_finish(w);
}

/* --- samples ------------------------------------------------------------------------ */
/* "sd NAME SEQ FIRST D,D,...": deltas restart in every chunk, modulo 2^64 as the
 * protocol says; stops early before the line would pass the limit. Returns the count. */
static size_t sd_line(rtl1_writer *w, const char *name, uint64_t seq, const int64_t *v,
                      size_t n, size_t chunk)
{
    size_t k = 1;
    rtl1_begin(w, "sd");
    rtl1_token(w, name);
    put(w, ' ');
    rtl1_u64(w, seq);
    rtl1_field_i64(w, v[0]);
    for (; k < n && k < chunk && w->len < RTL1_MAX_LINE - 64; k++) {
        put(w, k == 1 ? ' ' : ',');
        rtl1_i64(w, (int64_t)((uint64_t)v[k] - (uint64_t)v[k - 1]));
    }
    rtl1_finish(w);
    return k;
}

/* Base64 without padding ('=' would clash with key=value, see docs/protocol.md), fed
 * one byte at a time. */
typedef struct {
    rtl1_writer *w;
    uint32_t bits;
    int nbytes;
} b64_out;

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_byte(b64_out *o, uint8_t byte)
{
    o->bits = o->bits << 8 | byte;
    if (++o->nbytes == 3) {
        for (int s = 18; s >= 0; s -= 6)
            put(o->w, b64[(o->bits >> s) & 63]);
        o->bits = 0;
        o->nbytes = 0;
    }
}

static void b64_flush(b64_out *o)
{
    if (!o->nbytes)
        return;
    /* 1 byte left: 2 characters, 2 bytes: 3 characters. */
    uint32_t v = o->bits << (8 * (3 - o->nbytes));
    for (int c = 0; c <= o->nbytes; c++)
        put(o->w, b64[(v >> (18 - 6 * c)) & 63]);
}

/* "sb NAME SEQ COUNT BASE64": 256 values of at most 10 varint bytes are 3414 base64
 * characters, inside the line limit. */
static size_t sb_line(rtl1_writer *w, const char *name, uint64_t seq, const int64_t *v,
                      size_t n, size_t chunk)
{
    size_t m = n < chunk ? n : chunk;
    b64_out o = {w, 0, 0};
    uint64_t prev = 0;
    rtl1_begin(w, "sb");
    rtl1_token(w, name);
    put(w, ' ');
    rtl1_u64(w, seq);
    put(w, ' ');
    rtl1_u64(w, m);
    put(w, ' ');
    for (size_t k = 0; k < m; k++) {
        uint64_t d = (uint64_t)v[k] - prev; /* modulo 2^64, as the host decodes */
        prev = (uint64_t)v[k];
        uint64_t z = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
        do {
            uint8_t byte = z & 0x7F;
            z >>= 7;
            b64_byte(&o, (uint8_t)(byte | (z ? 0x80 : 0)));
        } while (z);
    }
    b64_flush(&o);
    rtl1_finish(w);
    return m;
}

uint64_t rtl1_samples(rtl1_writer *w, const char *name, uint64_t seq, const int64_t *v,
                      size_t n, size_t chunk, int binary)
{
    if (binary && chunk > RTL1_SB_CHUNK_MAX)
        chunk = RTL1_SB_CHUNK_MAX;
    for (size_t i = 0; i < n; seq++)
        i += binary ? sb_line(w, name, seq, v + i, n - i, chunk)
                    : sd_line(w, name, seq, v + i, n - i, chunk);
    return seq;
}
