/*
 * Bare-metal smoke test of the mps2 board layer (no RTOS): UART output in the rtlab
 * protocol, TIMER0 deltas on a fixed instruction count, the software interrupt through
 * NVIC set-pending, the semihosting exit status ("--exit N" on the command line) and the
 * timebase rtlab states on it ("timebase=icount:N" or "timebase=host", second word).
 * Under -icount shift=0 every figure is exact: 2000 instructions = 50 ticks.
 */
#include <stdint.h>

#include "../common/qemu_semihost.h"
#include "mps2.h"
#include "rtb_emit.h"
#include "rtbench_port.h"

void rtb_out_write(const char *line, size_t len) { mps2_uart_write(line, len); }
void rtb_out_flush(void) {}

static volatile uint32_t swi_runs, swi_ts;

void SWI0_Handler(void)
{
    swi_ts = mps2_ts();
    swi_runs++;
}

static uint32_t loop_1000(void)
{
    uint32_t n = 1000; /* subs + bne: 2000 instructions */
    uint32_t t0 = mps2_ts();
    MPS2_SPIN(n);
    return mps2_ts() - t0;
}

static int exit_status(const char *cmd)
{
    /* "--exit N" anywhere in the command line; 0 otherwise. */
    for (const char *p = cmd; *p; p++) {
        if (p[0] == '-' && p[1] == '-' && p[2] == 'e' && p[3] == 'x' && p[4] == 'i' &&
            p[5] == 't' && p[6] == ' ') {
            int v = 0;
            for (p += 7; *p >= '0' && *p <= '9'; p++)
                v = v * 10 + (*p - '0');
            return v;
        }
    }
    return 0;
}

int main(void)
{
    enum { N = 16 };
    int64_t v[N];
    mps2_uart_init();
    mps2_timer_init();
    uint32_t ips = mps2_measure_ips();
    uint32_t icount_hz = mps2_icount_hz(ips);
    const char *cmd = mps2_cmdline();

    rtb_emit_hello("mps2_smoke", "1");
    rtb_emit_meta("board", mps2_machine());
    rtb_emit_meta("clock", BOARD_COUNTER);
    rtb_emit_meta_u64("clock_hz", MPS2_TIMER_HZ);
    rtb_emit_counter("ips", ips, "count");
    /* The rate the command line states, else a guess from the measured one (a host that
     * runs at 1 GHz >> s looks like icount): a counter, not `meta timebase`, which the
     * host sets from its own command line. */
    uint32_t stated;
    rtb_emit_meta("icount_from", qemu_stated_icount_hz(cmd, &stated) ? "stated" : "guessed");
    rtb_emit_counter("icount_hz", icount_hz, "count");

    for (int i = 0; i < N; i++) {
        uint32_t a = mps2_ts();
        uint32_t b = mps2_ts();
        v[i] = (int64_t)(uint32_t)(b - a);
    }
    rtb_emit_samples("ts_pair", "ticks", MPS2_TIMER_HZ, v, N);
    for (int i = 0; i < N; i++)
        v[i] = loop_1000();
    rtb_emit_samples("loop_2000_insn", "ticks", MPS2_TIMER_HZ, v, N);

    mps2_nvic_priority(MPS2_SWI_FIRST_IRQ, 0x40);
    mps2_nvic_enable(MPS2_SWI_FIRST_IRQ);
    for (int i = 0; i < N; i++) {
        uint32_t t0 = mps2_ts();
        mps2_nvic_pend(MPS2_SWI_FIRST_IRQ);
        v[i] = (int64_t)(uint32_t)(swi_ts - t0);
    }
    mps2_nvic_disable(MPS2_SWI_FIRST_IRQ);
    rtb_emit_samples("swi_entry", "ticks", MPS2_TIMER_HZ, v, N);
    rtb_emit_counter("swi_runs", swi_runs, "count");
    rtb_emit_end(swi_runs == N ? "ok" : "error", swi_runs == N ? 0 : "software interrupt lost");
    return swi_runs == N ? exit_status(cmd) : 1;
}
