/*
 * QEMU mps2 family (an385: Cortex-M3, an386: Cortex-M4F, ...) bare-metal board layer:
 * CMSDK UART output, a CMSDK timer as a 32-bit up-counter, NVIC, semihosting (mps2.c);
 * the same interface on QEMU's microbit (nRF51, Cortex-M0: nrf51.c, `chip = "nrf51"` in
 * its description). No RTOS here: each port's glue is ports/<rtos>/boards/, and the smoke
 * test uses this file alone.
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
#ifndef BOARD_CORES /* NuttX's app includes this header without the layer's CMake */
#define BOARD_CORES 1
#endif
#ifndef BOARD_TS_MASK /* the counter's width: 32 bits but on a 16-bit timer (STM32L0 TIM2) */
#define BOARD_TS_MASK 0xFFFFFFFFu
#endif
#ifndef BOARD_TS_EXTEND_TICKS /* ticks between extensions: well inside one counter wrap */
#define BOARD_TS_EXTEND_TICKS 10000u /* TIMER0 at 25 MHz wraps every 171 s */
#endif
#define MPS2_SWI_FIRST_IRQ BOARD_SWI_FIRST_IRQ /* SWIn_Handler serves IRQ first + n */
#define MPS2_SWI_SLOTS 4
#if defined(BOARD_EXT_WIRE) /* ext_wire.c: one more line, the wired external interrupt */
#define MPS2_EXT_SLOT MPS2_SWI_SLOTS
#define MPS2_LINES (MPS2_SWI_SLOTS + 1)
void mps2_ext_wire(int ch, int on); /* marker channel 3's store: pends the line */
#else
#define MPS2_LINES MPS2_SWI_SLOTS
#endif

/* n turns of `subs; bne` (2 instructions each); Thumb-1 (Cortex-M0) needs GCC's inline
 * assembly switched to unified syntax for `subs`. */
#if defined(__ARM_ARCH_6M__)
#define MPS2_SPIN(n)                                                                        \
    __asm__ volatile(".syntax unified\n1: subs %0, %0, #1\n bne 1b\n.syntax divided"       \
                     : "+r"(n)::"cc")
#else
#define MPS2_SPIN(n) __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n)::"cc")
#endif

void mps2_uart_init(void);
void mps2_uart_write(const char *s, size_t n);
void mps2_timer_init(void);
#if defined(BOARD_NRF51)
static inline uint32_t mps2_ts(void)
{
    /* nRF51 TIMER0 (nrf51.c): TASKS_CAPTURE[0], then CC[0] holds the count. */
    *(volatile uint32_t *)(BOARD_COUNTER_BASE + 0x040u) = 1u;
    return *(volatile uint32_t *)(BOARD_COUNTER_BASE + 0x540u);
}
#elif defined(BOARD_STM32) || defined(BOARD_RP2350)
static inline uint32_t mps2_ts(void)
{
    /* boards/stm32: DWT CYCCNT or TIM2 CNT, boards/rp2350: DWT CYCCNT; an up-counter read
     * as it is (BOARD_TS_MASK). */
    return *(volatile uint32_t *)BOARD_COUNTER_BASE;
}
#else
static inline uint32_t mps2_ts(void)
{
    /* TIMER0 counts down from reload 0xFFFFFFFF: ~VALUE counts up and wraps at 2^32. */
    return ~*(volatile uint32_t *)(BOARD_COUNTER_BASE + 4u);
}
#endif
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

#if BOARD_CORES > 1 /* sse200.c (mps2-an521): the second core */
int mps2_core_id(void);                   /* 0 or 1: the calling core */
void mps2_start_core1(const void *vectors); /* releases core 1 with that vector table */
void mps2_ipi_send(int core);             /* pends BOARD_IPI_IRQ on that core */
void mps2_ipi_clear(void);                /* the calling core's, in its IPI handler */
/* Core 1's vector table (startup.c): core 0's handlers, core 1's own main stack (the
 * 16 KiB below core 0's) and `entry` as its reset handler. */
const void *mps2_core1_vectors(void (*entry)(void));
#else
static inline int mps2_core_id(void) { return 0; }
#endif

#endif
