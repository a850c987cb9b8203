#include "rtb_emit.h"

#include "rtbench_port.h"

static struct {
    char buf[RTB_LINE_MAX + 16];
    size_t len;
    uint32_t records;
    int crc;
} E;

uint32_t rtb_crc32(const void *data, size_t len)
{
    /* Bitwise IEEE 802.3 CRC (zlib's crc32): no table, small firmware stays small. */
    const uint8_t *p = data;
    uint32_t c = 0xFFFFFFFFu;
    while (len--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put(char ch)
{
    if (E.len < RTB_LINE_MAX - 12) /* room kept for " *xxxxxxxx\n" */
        E.buf[E.len++] = ch;
}

static void put_raw(const char *s)
{
    while (*s)
        put(*s++);
}

static void put_encoded(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c > 0x20 && c < 0x7F && c != '=' && c != '*' && c != '%') {
            put((char)c);
        } else {
            put('%');
            put(hex[c >> 4]);
            put(hex[c & 15]);
        }
    }
}

static void put_u64(uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        put(tmp[--n]);
}

static void put_i64(int64_t v)
{
    if (v < 0) {
        put('-');
        put_u64(0u - (uint64_t)v); /* well defined for INT64_MIN too */
    } else {
        put_u64((uint64_t)v);
    }
}

void rtb_line_begin(const char *type)
{
    E.len = 0;
    put_raw("@rtl1 ");
    put_raw(type);
}

void rtb_line_token(const char *text)
{
    put(' ');
    put_encoded(text);
}

void rtb_line_kv(const char *key, const char *value)
{
    put(' ');
    put_encoded(key);
    put('=');
    put_encoded(value);
}

void rtb_line_i64(int64_t v)
{
    put(' ');
    put_i64(v);
}

void rtb_line_end(void)
{
    static const char hex[] = "0123456789abcdef";
    if (E.crc) {
        uint32_t c = rtb_crc32(E.buf, E.len);
        E.buf[E.len++] = ' ';
        E.buf[E.len++] = '*';
        for (int k = 7; k >= 0; k--)
            E.buf[E.len++] = hex[(c >> (4 * k)) & 15];
    }
    E.buf[E.len++] = '\n';
    rtb_out_write(E.buf, E.len);
    E.records++;
}

void rtb_emit_set_crc(int on) { E.crc = on; }
uint32_t rtb_emit_records(void) { return E.records; }

void rtb_emit_hello(const char *workload, const char *version)
{
    E.records = 0;
    rtb_line_begin("hello");
    rtb_line_kv("workload", workload);
    rtb_line_kv("version", version);
    rtb_line_end();
}

void rtb_emit_meta(const char *key, const char *value)
{
    rtb_line_begin("meta");
    rtb_line_kv(key, value);
    rtb_line_end();
}

void rtb_emit_meta_u64(const char *key, uint64_t value)
{
    rtb_line_begin("meta");
    put(' ');
    put_encoded(key);
    put('=');
    put_u64(value);
    rtb_line_end();
}

void rtb_emit_series(const char *name, const char *unit, uint32_t tick_hz)
{
    rtb_line_begin("series");
    rtb_line_token(name);
    rtb_line_kv("unit", unit);
    if (tick_hz) {
        put_raw(" tick_hz=");
        put_u64(tick_hz);
    }
    rtb_line_end();
}

uint64_t rtb_emit_values(const char *name, uint64_t seq, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i += RTB_CHUNK, seq++) {
        size_t m = n - i < RTB_CHUNK ? n - i : RTB_CHUNK;
        rtb_line_begin("sd");
        rtb_line_token(name);
        put(' ');
        put_u64(seq);
        rtb_line_i64(v[i]);
        /* Deltas restart in every chunk, computed modulo 2^64 as the protocol says. */
        for (size_t k = 1; k < m; k++) {
            put(k == 1 ? ' ' : ',');
            put_i64((int64_t)((uint64_t)v[i + k] - (uint64_t)v[i + k - 1]));
        }
        rtb_line_end();
    }
    return seq;
}

void rtb_emit_counter(const char *name, int64_t value, const char *unit)
{
    rtb_line_begin("c");
    rtb_line_token(name);
    rtb_line_i64(value);
    if (unit)
        rtb_line_kv("unit", unit);
    rtb_line_end();
}

void rtb_emit_warn(const char *code, const char *msg)
{
    rtb_line_begin("warn");
    rtb_line_kv("code", code);
    rtb_line_kv("msg", msg);
    rtb_line_end();
}

void rtb_emit_end(const char *status, const char *msg)
{
    uint32_t n = E.records;
    rtb_line_begin("end");
    put_raw(" records=");
    put_u64(n);
    rtb_line_kv("status", status);
    if (msg)
        rtb_line_kv("msg", msg);
    rtb_line_end();
    rtb_out_flush();
}
