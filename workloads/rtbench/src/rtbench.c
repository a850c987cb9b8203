#include "rtbench.h"

#include "rtb_emit.h"
#include "rtbench_port.h"
#include "scenarios.h"

void rtbench_config_default(rtbench_config *cfg)
{
    int n = rtb_core_count();
    cfg->scenarios = RTB_SC_ALL;
    cfg->iterations = 1000;
    cfg->window_ms = 1000;
    cfg->period_us = 1000; /* the kernel-v4 study's 1 ms tick */
    cfg->n_core_counts = 0;
    cfg->core_counts[cfg->n_core_counts++] = 1;
    if (n > 1)
        cfg->core_counts[cfg->n_core_counts++] = (uint8_t)(n < 255 ? n : 255);
    cfg->n_levels = 0;
    for (uint8_t l = 0; l <= 70; l += 10)
        cfg->levels[cfg->n_levels++] = l;
    cfg->tm_mask = 0xff;
    cfg->shared = 0;
    cfg->crc = 0;
    cfg->markers = 0;
    cfg->irq_ext = 0;
    cfg->start_delay_ms = RTB_START_DELAY_DEFAULT;
    cfg->seed = 0x2545F491u;
}

int rtbench_run(const rtbench_config *cfg)
{
    int errors = 0;
    unsigned online = (unsigned)rtb_core_count();
    unsigned maxc = 1;
    for (unsigned i = 0; i < cfg->n_core_counts; i++)
        if (cfg->core_counts[i] <= online && cfg->core_counts[i] > maxc)
            maxc = cfg->core_counts[i];
    if (cfg->scenarios & RTB_SC_PRIMITIVES)
        errors += rtb_sc_primitives(cfg) != 0;
    if (cfg->scenarios & RTB_SC_IRQ)
        errors += rtb_sc_irq(cfg) != 0;
    for (unsigned i = 0; i < cfg->n_core_counts; i++) {
        unsigned c = cfg->core_counts[i];
        if (c == 0 || c > online)
            continue; /* more cores than the machine has: skipped, see docs/rtbench.md */
        if (cfg->scenarios & RTB_SC_THREADMETRIC)
            errors += rtb_sc_threadmetric(cfg, c) != 0;
        if (cfg->scenarios & RTB_SC_SCALABILITY)
            errors += rtb_sc_scalability(cfg, c) != 0;
    }
    if (cfg->scenarios & RTB_SC_CONTENTION)
        errors += rtb_sc_contention(cfg, maxc) != 0;
    return errors;
}
