/* What the QEMU mps2 machines' figures are, said in every run: the set-up warning of
 * each RTOS's build on them (board_hooks.c, ports/zephyr/boards/). Inline: each board file's
 * rtb_board_warning runs it as its own code. */
#ifndef MPS2_ICOUNT_H
#define MPS2_ICOUNT_H

#include <stdint.h>

#include "mps2.h"

#if defined(BOARD_NRF51)
_Static_assert(BOARD_COUNTER_HZ == 16000000u, "mps2_icount_warning names 16 MHz: reword it");
#define MPS2_TICK_TEXT "one 16 MHz tick = 62.5 instructions at shift 0"
#elif defined(BOARD_SSE200) || BOARD_COUNTER_HZ == 20000000u /* the Armv8-M images: AN505, AN521 */
_Static_assert(BOARD_COUNTER_HZ == 20000000u, "mps2_icount_warning names 20 MHz: reword it");
#define MPS2_TICK_TEXT "one 20 MHz tick = 50 instructions at shift 0"
#else
_Static_assert(BOARD_COUNTER_HZ == 25000000u, "mps2_icount_warning names 25 MHz: reword it");
#define MPS2_TICK_TEXT "one 25 MHz tick = 40 instructions at shift 0"
#endif

/* icount_hz: mps2_icount_hz's answer (0: QEMU runs without -icount). */
static inline const char *mps2_icount_warning(uint32_t icount_hz, const char **msg)
{
    /* Every run says what its numbers are: QEMU's virtual time, not silicon time. */
    if (icount_hz) {
        *msg = "QEMU -icount: the counter runs in virtual time (" MPS2_TICK_TEXT "): an "
               "instruction-count model, not time on silicon";
        return "icount_model";
    }
    *msg = "QEMU runs without -icount: the timer follows host time, figures are not "
           "deterministic and not an instruction-count model";
    return "no_icount";
}

#endif
