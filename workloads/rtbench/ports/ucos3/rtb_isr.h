/*
 * The µC/OS-III port's interrupt entry and exit, and the lock of the core's
 * software-interrupt pool (src/board/rtb_swi.c includes this; contract there).
 *
 * µC/OS-III has no woken flag: OSIntEnter (under the kernel's ISR prologue, as in
 * OS_CPU_SysTickHandler) before the handler, OSIntExit after it, which switches to the
 * highest ready task if a post readied one above the interrupted task.
 */
#ifndef RTB_ISR_H
#define RTB_ISR_H

#include "os.h"

#define RTB_ISR_ENTER()                                                                     \
    CPU_SR_ALLOC();                                                                         \
    CPU_CRITICAL_ENTER();                                                                   \
    OSIntEnter();                                                                           \
    CPU_CRITICAL_EXIT()
#define RTB_ISR_EXIT() OSIntExit()
#define RTB_LOCK_ENTER()                                                                    \
    CPU_SR_ALLOC();                                                                         \
    CPU_CRITICAL_ENTER()
#define RTB_LOCK_EXIT() CPU_CRITICAL_EXIT()

#endif
