/* The port's set-up warnings, kept by the core so that no port needs its own list:
 * rtb_port_init notes them, every run repeats them as warn records. */
#include "rtbench_port.h"

#define MAX_WARNINGS 4 /* more are dropped: a set-up rarely has more than two */

static const char *codes[MAX_WARNINGS];
static const char *msgs[MAX_WARNINGS];
static int count;

void rtb_port_note_warning(const char *code, const char *msg)
{
    if (count < MAX_WARNINGS) {
        codes[count] = code;
        msgs[count++] = msg;
    }
}

const char *rtb_port_warning(int i, const char **msg)
{
    if (i < 0 || i >= count)
        return NULL;
    *msg = msgs[i];
    return codes[i];
}
