/*
 * The FreeRTOS port's interrupt entry and exit, and the lock of the core's
 * software-interrupt pool (src/board/rtb_swi.c includes this; contract there).
 *
 * *_from_isr calls OR their xHigherPriorityTaskWoken into the core's flag; the dispatch
 * clears it on entry and yields on exit if a task above the interrupted one was woken.
 */
#ifndef RTB_ISR_H
#define RTB_ISR_H

#include "FreeRTOS.h"
#include "task.h"

#ifndef configNUMBER_OF_CORES
#define configNUMBER_OF_CORES 1
#endif
#ifndef portGET_CORE_ID
#define portGET_CORE_ID() 0
#endif

/* One per core: set by *_from_isr, consumed by the dispatch on that core. */
extern volatile BaseType_t rtb_freertos_isr_woken[configNUMBER_OF_CORES];

#define RTB_ISR_ENTER()                                                                     \
    UBaseType_t rtb_isr_core = (UBaseType_t)portGET_CORE_ID();                              \
    rtb_freertos_isr_woken[rtb_isr_core] = pdFALSE
#define RTB_ISR_EXIT() portYIELD_FROM_ISR(rtb_freertos_isr_woken[rtb_isr_core])
#define RTB_LOCK_ENTER() taskENTER_CRITICAL()
#define RTB_LOCK_EXIT() taskEXIT_CRITICAL()

#endif
