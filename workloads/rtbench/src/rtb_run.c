#include "rtb_run.h"

#include "rtb_emit.h"
#include "rtb_mark.h"
#include "rtb_measure.h"
#include "rtbench_port.h"

static size_t run_peak; /* the run's peak across heap sections */

void rtb_run_heap_section(void)
{
    size_t used, peak;
    if (rtb_heap_stats(&used, &peak) == 0 && peak > run_peak)
        run_peak = peak;
    rtb_heap_peak_reset();
}

void rtb_run_begin(const rtbench_config *cfg, const char *scenario, unsigned cores)
{
    const rtb_port_info *pi = rtb_port_describe();
    rtb_pool_reset();
    rtb_emit_set_crc(cfg->crc);
    rtb_emit_hello("rtbench", RTBENCH_VERSION);
    rtb_emit_meta("scenario", scenario);
    rtb_emit_meta("port", pi->port);
    rtb_emit_meta("rtos", pi->rtos);
    rtb_emit_meta("rtos_version", pi->rtos_version);
    rtb_emit_meta("board", pi->board);
    rtb_emit_meta("clock", pi->clock);
    rtb_emit_meta("cold", pi->cold ? pi->cold : "first_call");
    rtb_emit_meta_u64("clock_hz", rtb_ts_hz());
    unsigned bits = 0;
    for (uint32_t m = rtb_ts_mask(); m; m >>= 1)
        bits++;
    rtb_emit_meta_u64("clock_bits", bits);
    if (pi->cpu_hz)
        rtb_emit_meta_u64("cpu_hz", pi->cpu_hz);
    rtb_emit_meta_u64("cores", cores);
    rtb_emit_meta_u64("cores_online", (uint64_t)rtb_core_count());
    rtb_emit_meta_u64("preemptive", (uint64_t)rtb_preemptive());
    rtb_emit_meta_u64("iterations", cfg->iterations);
    rtb_emit_meta_u64("window_ms", cfg->window_ms);
    const char *msg;
    for (int i = 0;; i++) {
        const char *code = rtb_port_warning(i, &msg);
        if (!code)
            break;
        rtb_emit_warn(code, msg);
    }
    rtb_marking = cfg->markers;
    if (cfg->markers) {
        rtb_emit_meta("markers", "on");
        rtb_mark_cost();
    }
    run_peak = 0;
    rtb_heap_peak_reset();
}

void rtb_report_heap_peak(const char *name)
{
    size_t used, peak;
    if (rtb_heap_stats(&used, &peak) == 0)
        rtb_emit_counter(name, (int64_t)peak, "bytes");
}

int rtb_run_end(int err, const char *msg)
{
    size_t used, peak;
    if (rtb_heap_stats(&used, &peak) == 0) {
        rtb_emit_counter("heap_peak", (int64_t)(peak > run_peak ? peak : run_peak), "bytes");
        rtb_emit_counter("heap_used_end", (int64_t)used, "bytes");
    }
    rtb_emit_end(err ? "error" : "ok", err ? msg : 0);
    return err;
}
