/*
 * The mps2 board under the FreeRTOS port of rtbench: its init (the shared rtb_board_*
 * hooks are board_hooks.c), the software interrupt handlers (SWI0..3: the description's
 * swi_first_irq and the 3 after), the tick hook and FreeRTOS's failure hooks.
 */
#include <string.h>

#include "FreeRTOS.h"
#include "task.h"

#include "board_hooks.h"
#include "mps2.h"
#include "rtb_freertos.h"

void rtb_board_init(void) { rtb_mps2_board_init(RTB_MPS2_SWI_PRIORITY); }

void SWI0_Handler(void) { rtb_freertos_swi_dispatch(0); }
void SWI1_Handler(void) { rtb_freertos_swi_dispatch(1); }
void SWI2_Handler(void) { rtb_freertos_swi_dispatch(2); }
void SWI3_Handler(void) { rtb_freertos_swi_dispatch(3); }

void vApplicationTickHook(void)
{
    /* TIMER0 wraps every 171 s of virtual time: extend it well before that. */
    static uint32_t n;
    if (++n >= 10000u) {
        n = 0;
        (void)mps2_time_ticks();
    }
}

static void die(const char *what, const char *detail, int line)
{
    char num[12];
    int k = 11;
    num[k] = 0;
    do {
        num[--k] = (char)('0' + line % 10);
        line /= 10;
    } while (line && k > 0);
    mps2_uart_write("\nrtbench: ", 10);
    mps2_uart_write(what, strlen(what));
    mps2_uart_write(detail, strlen(detail));
    mps2_uart_write(":", 1);
    mps2_uart_write(num + k, strlen(num + k));
    mps2_uart_write("\n", 1);
    mps2_exit(4);
}

void rtb_mps2_assert_failed(const char *file, int line) { die("assert ", file, line); }

void vApplicationStackOverflowHook(TaskHandle_t t, char *name)
{
    (void)t;
    die("stack overflow in ", name, 0);
}
