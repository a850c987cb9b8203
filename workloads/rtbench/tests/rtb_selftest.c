/* C-level checks of the pieces that need no RTOS: the wrap-safe counter difference and
 * the protocol emitter. Prints a protocol run on stdout that the pytest side parses
 * with rtlab.protocol; exits non-zero when an assertion fails. */
#include <stdio.h>
#include <string.h>

#include "rtb_emit.h"
#include "rtb_measure.h"

static int failures;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "selftest: %s:%d: %s\n", __FILE__, __LINE__, #cond);         \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

/* The emitter's only dependency on a port. */
void rtb_out_write(const char *line, size_t len) { fwrite(line, 1, len, stdout); }
void rtb_out_flush(void) { fflush(stdout); }

int main(int argc, char **argv)
{
    CHECK(rtb_ts_elapsed(10, 25, 0xFFFFFFFFu) == 15);
    CHECK(rtb_ts_elapsed(0xFFFFFFF0u, 0x10u, 0xFFFFFFFFu) == 0x20);      /* 32-bit wrap */
    CHECK(rtb_ts_elapsed(0xFFFFF0u, 0x10u, 0xFFFFFFu) == 0x20);          /* 24-bit wrap */
    CHECK(rtb_ts_elapsed(5, 5, 0xFFFFu) == 0);
    CHECK(rtb_crc32("123456789", 9) == 0xCBF43926u); /* the CRC-32 check value */

    rtb_emit_set_crc(argc > 1 && strcmp(argv[1], "--crc") == 0);
    rtb_emit_hello("rtbench-selftest", "0");
    rtb_emit_meta("text", "a b=c*d%e");
    rtb_emit_series("v", "ticks", 1000000000u);
    int64_t v[200];
    for (int i = 0; i < 200; i++)
        v[i] = (i % 3 == 0) ? -i * 1000 : i * 7;
    v[1] = INT64_MAX;
    v[2] = INT64_MIN;
    uint64_t seq = rtb_emit_values("v", 0, v, 130);
    CHECK(seq == 3);
    rtb_emit_values("v", seq, v + 130, 70);
    rtb_emit_counter("n", 200, "count");
    rtb_emit_warn("selftest", "a message with spaces");
    CHECK(rtb_emit_records() == 10);
    rtb_emit_end("ok", NULL);
    return failures ? 1 : 0;
}
