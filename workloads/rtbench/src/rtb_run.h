/* One protocol run per scenario: hello, the metadata every run carries, the port's
 * set-up warnings, the heap peak and the end record with its record count. */
#ifndef RTB_RUN_H
#define RTB_RUN_H

#include "rtbench.h"

void rtb_run_begin(const rtbench_config *cfg, const char *scenario, unsigned cores);
/* Emits heap counters and `end`; err != 0 gives status=error with msg. Returns err. */
int rtb_run_end(int err, const char *msg);
/* Starts a heap section: the peak so far counts toward the run's heap_peak, then the
 * port's peak restarts from the current use. */
void rtb_run_heap_section(void);
/* Peak of the current section as counter NAME (bytes), when the port can tell. */
void rtb_report_heap_peak(const char *name);

#endif
