/*
 * Template of a board port's interrupt side (copy to ports/<rtos>/rtb_isr.h): the core's
 * software-interrupt pool (src/board/rtb_swi.c) includes it and wraps each scenario
 * handler in RTB_ISR_ENTER/EXIT, and each slot's claim in RTB_LOCK_ENTER/EXIT. Macros or
 * static inline calls only: the dispatch then executes what a port's own copy would.
 * The models: ports/freertos/rtb_isr.h (a woken flag and portYIELD_FROM_ISR),
 * ports/ucos3/rtb_isr.h (OSIntEnter/OSIntExit), ports/zephyr/rtb_isr.h (nothing: the
 * kernel reschedules on interrupt exit).
 */
#ifndef RTB_ISR_H
#define RTB_ISR_H

/* #include "<your kernel>.h" */

/* Before the handler: what the kernel wants at interrupt entry (a nesting count, a
 * per-core "a task was woken" flag cleared). May declare locals for RTB_ISR_EXIT. */
#define RTB_ISR_ENTER() ((void)0)
/* After it: request the context switch if a *_from_isr call readied a task above the
 * interrupted one (or the kernel's interrupt-exit call, which does it). */
#define RTB_ISR_EXIT() ((void)0)
/* A critical section around a slot's claim (thread context, short). */
#define RTB_LOCK_ENTER() ((void)0)
#define RTB_LOCK_EXIT() ((void)0)

#endif
