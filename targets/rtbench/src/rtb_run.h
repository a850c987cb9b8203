/* One protocol run per scenario: hello, the metadata every run carries, the port's
 * set-up warnings, the heap peak and the end record with its record count. */
#ifndef RTB_RUN_H
#define RTB_RUN_H

#include "rtbench.h"

void rtb_run_begin(const rtbench_config *cfg, const char *scenario, unsigned cores);
/* Emits heap counters and `end`; err != 0 gives status=error with msg. Returns err. */
int rtb_run_end(int err, const char *msg);
/* Heap peak since the last reset as counter NAME (bytes), when the port can tell. */
void rtb_report_heap_peak(const char *name);

#endif
