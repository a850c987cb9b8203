/* Reset handler and vector table (after boot2, at 0x10000100: boot2 sets VTOR to it):
 * .data (and .ramfunc) copied to SRAM, .bss cleared, then main(); its return value is
 * the run's error count. An unexpected exception prints its number and ends the run. */
#include "rp2040_bare.h"

#include "../../common/cortexm_crt.h"

extern uint32_t __stack_top;

void reset_handler(void)
{
    crt_init_ram();
    bare_exit(main());
}

void default_handler(void)
{
    static const char hex[] = "0123456789abcdef";
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    char msg[] = "\nrp2040: unexpected exception 0x00\n";
    msg[sizeof msg - 4] = hex[(ipsr >> 4) & 15u];
    msg[sizeof msg - 3] = hex[ipsr & 15u];
    bare_uart_write(msg, sizeof msg - 1);
    bare_exit(3);
}

/* The handlers the table names: those above; the others default_handler unless an
 * image defines them (smoke.c, instrumented.c). */
void swi_handler(void) __attribute__((weak, alias("default_handler")));
void systick_handler(void) __attribute__((weak, alias("default_handler")));
void svc_handler(void) __attribute__((weak, alias("default_handler")));
void gpio_handler(void) __attribute__((weak, alias("default_handler")));

typedef void (*vector)(void);
__attribute__((section(".vectors"), used)) const vector vector_table[48] = {
    (vector)(uintptr_t)&__stack_top,
    reset_handler,
    [2 ... 10] = default_handler,
    [11] = svc_handler,
    [12 ... 14] = default_handler,
    [15] = systick_handler,
    [16 ... 16 + 12] = default_handler,
    [16 + 13] = gpio_handler, /* IO_IRQ_BANK0 */
    [16 + 14 ... 16 + BARE_SWI_IRQ - 1] = default_handler,
    [16 + BARE_SWI_IRQ] = swi_handler,
    [16 + BARE_SWI_IRQ + 1 ... 47] = default_handler,
};
