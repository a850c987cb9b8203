/*
 * The RP2040 without SDK or kernel, from the RP2040 datasheet and the Armv6-M ARM: clk_sys
 * 125 MHz from XOSC and PLL_SYS, UART0 115200 8N1 on GP0/GP1 (polled), SysTick free-running
 * on the core clock as the cycle counter (24 bits), the NVIC's spare lines 26..31 as
 * software interrupts, the XIP cache flush, and the boot ROM's lookup (its table at 0x14,
 * rom_table_lookup at 0x18). Registers: firmware/rp2040-capture/include/rp2040_regs.h.
 */
#ifndef RP2040_BARE_H
#define RP2040_BARE_H

#include <stddef.h>
#include <stdint.h>

#include "rp2040_regs.h"

#define BARE_SYSCLK_HZ 125000000u
#define BARE_SWI_IRQ 26 /* the first of the six NVIC lines no device drives */

#define SYST_CSR REG(0xe000e010u)
#define SYST_RVR REG(0xe000e014u)
#define SYST_CVR REG(0xe000e018u)
#define XIP_CTRL_CTRL REG(0x14000000u)
#define XIP_CTRL_FLUSH REG(0x14000004u)
#define XIP_CTRL_CTR_HIT REG(0x1400000cu)
#define XIP_CTRL_CTR_ACC REG(0x14000010u)

void bare_init(void);
void bare_uart_write(const char *s, size_t n);
/* SysTick's count as an up-counter: differences & 0xFFFFFF are core cycles (< 134 ms). */
static inline uint32_t bare_cycles(void) { return ~SYST_CVR; }
#define BARE_CYCLES_MASK 0x00ffffffu
void bare_nvic_enable(int irq);
void bare_nvic_pend(int irq); /* the handler has run when this returns */
void bare_xip_flush(void);
/* A boot ROM function by its two-letter code (RP2040 datasheet 2.8.3). */
void *bare_rom_func(char c1, char c2);
void *bare_rom_data(char c1, char c2); /* the same, in the data table (0x16) */
/* Prints `rtbench: done errors=N` (the serial target's end of output) and stops. */
void bare_exit(int errors) __attribute__((noreturn));

#endif
