/* rtbench's front end to the shared @rtl1 writer: one writer, lines to the port's
 * output hook (rtb_out_write), so the MCU side needs no stdio. */
#include "rtb_emit.h"

#include "rtbench_port.h"

static void write_line(void *ctx, const char *line, size_t len)
{
    (void)ctx;
    rtb_out_write(line, len);
}

static rtl1_writer W = {.write = write_line};

uint32_t rtb_crc32(const void *data, size_t len) { return rtl1_crc32(data, len); }

void rtb_emit_set_crc(int on) { W.crc = on; }
uint32_t rtb_emit_records(void) { return (uint32_t)W.records; }

void rtb_line_begin(const char *type) { rtl1_begin(&W, type); }
void rtb_line_token(const char *text) { rtl1_token(&W, text); }
void rtb_line_kv(const char *key, const char *value) { rtl1_kv(&W, key, value); }
void rtb_line_i64(int64_t v) { rtl1_field_i64(&W, v); }
void rtb_line_end(void) { rtl1_finish(&W); }

void rtb_emit_hello(const char *workload, const char *version)
{
    rtl1_hello(&W, workload, version);
}

void rtb_emit_meta(const char *key, const char *value) { rtl1_meta(&W, key, value); }

void rtb_emit_meta_u64(const char *key, uint64_t value)
{
    rtl1_begin(&W, "meta");
    rtl1_kv_u64(&W, key, value);
    rtl1_finish(&W);
}

void rtb_emit_series(const char *name, const char *unit, uint32_t tick_hz)
{
    rtl1_series(&W, name, unit, tick_hz ? "tick_hz" : NULL, tick_hz);
}

uint64_t rtb_emit_values(const char *name, uint64_t seq, const int64_t *v, size_t n)
{
    return rtl1_samples(&W, name, seq, v, n, RTB_CHUNK, 0);
}

void rtb_emit_counter(const char *name, int64_t value, const char *unit)
{
    rtl1_counter(&W, name, value, unit);
}

void rtb_emit_warn(const char *code, const char *msg) { rtl1_warn(&W, code, msg); }

void rtb_emit_end(const char *status, const char *msg)
{
    rtl1_end(&W, status, msg);
    rtb_out_flush();
}

size_t rtb_done_line(char line[32], int errors)
{
    static const char head[] = "rtbench: done errors=";
    size_t k = 0;
    while (head[k]) {
        line[k] = head[k];
        k++;
    }
    unsigned e = errors < 0 ? 99u : (unsigned)errors % 1000u;
    if (e >= 100u)
        line[k++] = (char)('0' + e / 100u);
    if (e >= 10u)
        line[k++] = (char)('0' + e / 10u % 10u);
    line[k++] = (char)('0' + e % 10u);
    line[k++] = '\n';
    return k;
}
