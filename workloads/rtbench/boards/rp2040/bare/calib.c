/*
 * The cycle calibration program: instruction sequences of known Cortex-M0+ timing
 * (calib_seq.S, from SRAM), each timed by SysTick on the core clock, printed as counters
 * `<class>` = the sequence's cycles without the timer read's own (calib_empty). Each
 * sequence runs three times and the last (warm) figure is printed. The test
 * (tests/models/rp2040/test_calibration.py) divides by the instance count and compares
 * with the TRM's table; docs/rp2040-model.md holds the table.
 */
#include <stdint.h>

#include "rp2040_bare.h"
#include "rtb_emit.h"
#include "rtbench_port.h"

void rtb_out_write(const char *line, size_t len) { bare_uart_write(line, len); }
void rtb_out_flush(void) {}

#define SEQS(X)                                                                             \
    X(nop) X(ldr_sram) X(str_sram) X(ldr_sio) X(b) X(bcond_taken) X(bcond_not_taken)        \
    X(bl_bx) X(ldm1) X(ldm4) X(stm4) X(push4_pop4) X(call_push_lr_pop_pc) X(muls) X(mrs_msr) \
    X(barriers)

#define DECLARE(n) uint32_t calib_##n(void);
SEQS(DECLARE)
uint32_t calib_empty(void);
uint32_t calib_svc(void);
extern volatile uint32_t calib_svc_back;

typedef uint32_t (*seq_fn)(void);
#define ENTRY(n) {#n, calib_##n},
static const struct {
    const char *name;
    seq_fn fn;
} seqs[] = {SEQS(ENTRY)};

static uint32_t warm(seq_fn fn)
{
    uint32_t v = 0;
    for (int i = 0; i < 3; i++)
        v = fn();
    return v;
}

int main(void)
{
    bare_init();
    rtb_emit_hello("rp2040_calib", "1");
    rtb_emit_meta("board", "pico");
    rtb_emit_meta("clock", "systick_cpu");
    rtb_emit_meta_u64("clock_hz", BARE_SYSCLK_HZ);
    uint32_t empty = warm(calib_empty);
    rtb_emit_counter("timer_read", empty, "cycles");
    for (unsigned i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
        rtb_emit_counter(seqs[i].name, (int64_t)warm(seqs[i].fn) - empty, "cycles");
    /* SVC: to the handler's first instruction, less the read and the SVC itself (1 cycle);
     * back from it, less the handler's read (2) and its BX LR (2). */
    uint32_t entry = warm(calib_svc);
    rtb_emit_counter("exception_entry", (int64_t)entry - empty - 1, "cycles");
    rtb_emit_counter("exception_return", (int64_t)calib_svc_back - 2 - 2, "cycles");
    rtb_emit_end("ok", 0);
    return 0;
}
