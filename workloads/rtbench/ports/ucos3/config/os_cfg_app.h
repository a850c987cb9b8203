/*
 * µC/OS-III application configuration for rtbench (the project's own). The ISR stack is
 * the MSP after OSStart: rtbench's software-interrupt handlers and the tick nest on it,
 * so it is raised from the template's 128 words. A small board (RTB_UCOS3_SMALL: 16-20
 * KiB of RAM) has none: its interrupts run on the reset stack (the board description's
 * main_stack, idle after OSStart otherwise), with fewer messages (3 queues) and a
 * smaller idle stack.
 */
#ifndef OS_CFG_APP_H
#define OS_CFG_APP_H

#define OS_CFG_ISR_STK_SIZE 1024u /* words: nested SWI + SysTick handlers */
#define OS_CFG_MSG_POOL_SIZE 64u  /* messages in flight over every queue */
#define OS_CFG_TASK_STK_LIMIT_PCT_EMPTY 10u
#define OS_CFG_IDLE_TASK_STK_SIZE 128u

/* small: stacks and pools of a 16-20 KiB board (the Python side reads this block). */
#if defined(RTB_UCOS3_SMALL) && RTB_UCOS3_SMALL
#undef OS_CFG_ISR_STK_SIZE
#define OS_CFG_ISR_STK_SIZE 0u /* interrupts use the reset stack (main_stack bytes) */
#undef OS_CFG_MSG_POOL_SIZE
#define OS_CFG_MSG_POOL_SIZE 16u
#undef OS_CFG_IDLE_TASK_STK_SIZE
#define OS_CFG_IDLE_TASK_STK_SIZE 96u
#endif

#define OS_CFG_STAT_TASK_PRIO ((OS_PRIO)(OS_CFG_PRIO_MAX - 2u)) /* unused: task off */
#define OS_CFG_STAT_TASK_RATE_HZ 10u
#define OS_CFG_STAT_TASK_STK_SIZE 128u

/* SysTick at 25 MHz / 1000: one tick = 1 ms, 10^6 instructions under -icount shift=0. */
#define OS_CFG_TICK_RATE_HZ 1000u

#define OS_CFG_TMR_TASK_PRIO ((OS_PRIO)(OS_CFG_PRIO_MAX - 3u)) /* unused: timers off */
#define OS_CFG_TMR_TASK_STK_SIZE 128u
#define OS_CFG_TMR_TASK_RATE_HZ 10u

#endif
