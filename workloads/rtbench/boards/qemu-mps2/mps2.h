/*
 * QEMU mps2 family (an385: Cortex-M3, an386: Cortex-M4F, ...) bare-metal board layer:
 * CMSDK UART output, a CMSDK timer as a 32-bit up-counter, NVIC, semihosting. No RTOS
 * here: the FreeRTOS glue is board_freertos.c, and the smoke test uses this file alone.
 *
 * The machine's facts (addresses, rates, IRQ lines) are data: BOARD_* macros from its
 * description, machines/<m>.toml (see boards/cmake/board_description.cmake).
 */
#ifndef MPS2_H
#define MPS2_H

#include <stddef.h>
#include <stdint.h>

#if !defined(BOARD_MACHINE) || !defined(BOARD_COUNTER_BASE) || !defined(BOARD_SWI_FIRST_IRQ)
#error "build through boards/qemu-mps2/CMakeLists.txt: it defines BOARD_* from machines/<m>.toml"
#endif

#define MPS2_TIMER_HZ BOARD_COUNTER_HZ
#define MPS2_SWI_FIRST_IRQ BOARD_SWI_FIRST_IRQ /* SWIn_Handler serves IRQ first + n */
#define MPS2_SWI_SLOTS 4

void mps2_uart_init(void);
void mps2_uart_write(const char *s, size_t n);
void mps2_timer_init(void);
static inline uint32_t mps2_ts(void)
{
    /* TIMER0 counts down from reload 0xFFFFFFFF: ~VALUE counts up and wraps at 2^32. */
    return ~*(volatile uint32_t *)(BOARD_COUNTER_BASE + 4u);
}
uint64_t mps2_time_ticks(void); /* TIMER0 extended to 64 bits; call at least every 171 s */
/* Instructions per second of virtual time, measured on a fixed loop against TIMER0:
 * 10^9 >> shift under -icount shift=N. Before any interrupt is enabled. */
uint32_t mps2_measure_ips(void);
/* 10^9 >> N when ips matches an icount shift within 1 %, else 0 (no icount). */
uint32_t mps2_icount_hz(uint32_t ips);

void mps2_nvic_enable(int irq);
void mps2_nvic_disable(int irq);
void mps2_nvic_pend(int irq); /* the handler has run when this returns */
void mps2_nvic_priority(int irq, uint8_t prio);

/* Semihosting: SYS_EXIT_EXTENDED with the status (QEMU exits with it). */
void mps2_exit(int status) __attribute__((noreturn));
/* The command line (QEMU: kernel name, then -append); "" when there is none. */
const char *mps2_cmdline(void);
const char *mps2_machine(void); /* BOARD_MACHINE: "mps2-an385", ... */

#endif
