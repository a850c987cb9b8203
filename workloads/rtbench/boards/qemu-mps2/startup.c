/*
 * Start-up for QEMU mps2 (Cortex-M3/M4F): vector table, .data copy, .bss clear, FPU on
 * for the M4F build, then main(). Faults print a line and exit QEMU with status 3 so a
 * test sees a crash as a failure, not as a hang.
 */
#include <stdint.h>

#include "mps2.h"

#include "../common/cortexm_crt.h"

extern uint32_t __StackTop;

void Reset_Handler(void);
void Default_Handler(void);
void HardFault_Handler(void);
/* The RTOS glue overrides these; FreeRTOSConfig.h maps the kernel's names onto them so
 * its handler-installation check sees its own functions in the table. */
void SVC_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SWI0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SWI1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SWI2_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SWI3_Handler(void) __attribute__((weak, alias("Default_Handler")));
void IPI_Handler(void) __attribute__((weak, alias("Default_Handler")));
void EXT_Handler(void) __attribute__((weak, alias("Default_Handler")));

typedef void (*vector)(void);

/* Up to the last software-interrupt line: no IRQ above it is ever enabled. */
#define SWI_VECTOR(n) (16 + MPS2_SWI_FIRST_IRQ + (n))
__attribute__((section(".vectors"), used)) const vector vector_table[SWI_VECTOR(MPS2_LINES)] = {
    (vector)(uintptr_t)&__StackTop,
    Reset_Handler,
    Default_Handler,   /* NMI */
    HardFault_Handler, /* HardFault */
    HardFault_Handler, /* MemManage */
    HardFault_Handler, /* BusFault */
    HardFault_Handler, /* UsageFault */
    0, 0, 0, 0,
    SVC_Handler,
    Default_Handler, /* DebugMon */
    0,
    PendSV_Handler,
    SysTick_Handler,
#if BOARD_CORES > 1 /* the inter-core interrupt's line, below the software interrupts */
    [16 ... 16 + BOARD_IPI_IRQ - 1] = Default_Handler,
    [16 + BOARD_IPI_IRQ] = IPI_Handler,
    [16 + BOARD_IPI_IRQ + 1 ... SWI_VECTOR(0) - 1] = Default_Handler,
#else
    [16 ... SWI_VECTOR(0) - 1] = Default_Handler,
#endif
    [SWI_VECTOR(0)] = SWI0_Handler,
    [SWI_VECTOR(1)] = SWI1_Handler,
    [SWI_VECTOR(2)] = SWI2_Handler,
    [SWI_VECTOR(3)] = SWI3_Handler,
#if defined(BOARD_EXT_WIRE) /* the wired external interrupt's line (ext_wire.c) */
    [SWI_VECTOR(MPS2_EXT_SLOT)] = EXT_Handler,
#endif
};

void Reset_Handler(void)
{
#if defined(__ARM_FP)
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10/CP11 full access */
    __asm__ volatile("dsb\n isb" ::: "memory");
#endif
    crt_init_ram();
    mps2_exit(main());
}

#if BOARD_CORES > 1
/* VTOR needs the table aligned to its size rounded up to a power of two. */
#define CORE1_TABLE_ALIGN 512
_Static_assert(sizeof vector_table <= CORE1_TABLE_ALIGN, "raise CORE1_TABLE_ALIGN");
static vector core1_table[SWI_VECTOR(MPS2_LINES)] __attribute__((aligned(CORE1_TABLE_ALIGN)));
extern uint32_t __StackTop1;

const void *mps2_core1_vectors(void (*entry)(void))
{
    for (unsigned i = 0; i < SWI_VECTOR(MPS2_LINES); i++)
        core1_table[i] = vector_table[i];
    core1_table[0] = (vector)(uintptr_t)&__StackTop1;
    core1_table[1] = entry;
    __asm__ volatile("dsb" ::: "memory");
    return core1_table;
}
#endif

static void fail(const char *msg, uint32_t n)
{
    static const char hex[] = "0123456789abcdef";
    char buf[12];
    mps2_uart_write(msg, __builtin_strlen(msg));
    for (int i = 0; i < 8; i++)
        buf[i] = hex[(n >> (28 - 4 * i)) & 15u];
    buf[8] = '\n';
    mps2_uart_write(buf, 9);
    mps2_exit(3);
}

#if defined(__ARM_ARCH_6M__) /* Cortex-M0: no CFSR to read */
void HardFault_Handler(void) { fail("\nmps2: hard fault, ICSR=", *(volatile uint32_t *)0xE000ED04u); }
#else
void HardFault_Handler(void) { fail("\nmps2: fault, CFSR=", *(volatile uint32_t *)0xE000ED28u); }
#endif

void Default_Handler(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    fail("\nmps2: unexpected exception ", ipsr);
}
