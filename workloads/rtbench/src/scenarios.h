/* The scenarios: each prints one protocol run (two for per-core-count ones) and
 * returns non-zero when it ended in error. See docs/rtbench.md. */
#ifndef RTB_SCENARIOS_H
#define RTB_SCENARIOS_H

#include "rtbench.h"
#include "rtbench_port.h"

int rtb_sc_primitives(const rtbench_config *cfg);
int rtb_sc_irq(const rtbench_config *cfg);
int rtb_sc_threadmetric(const rtbench_config *cfg, unsigned cores);
int rtb_sc_scalability(const rtbench_config *cfg, unsigned cores);
int rtb_sc_contention(const rtbench_config *cfg, unsigned cores);

#endif
