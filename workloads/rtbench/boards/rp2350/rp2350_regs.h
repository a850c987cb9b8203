/*
 * The RP2350's registers this board layer touches, written from the RP2350 datasheet
 * (its address map and each block's register list): base
 * addresses, offsets and the bits used, nothing more. Every APB block has atomic
 * aliases: +0x1000 XOR, +0x2000 SET, +0x3000 CLR (the datasheet's "Atomic register access").
 */
#ifndef RP2350_REGS_H
#define RP2350_REGS_H

#include <stdint.h>

#define REG(a) (*(volatile uint32_t *)(a))
#define REG_SET(a) REG((a) + 0x2000u)
#define REG_CLR(a) REG((a) + 0x3000u)

/* Memory: XIP flash, its cache-maintenance window, SRAM0..9. */
#define XIP_BASE 0x10000000u
#define XIP_MAINTENANCE_BASE 0x18000000u
#define XIP_SPACE_SIZE 0x04000000u /* XIP_BASE .. XIP_END (0x14000000) */
#define XIP_CACHE_SIZE 16384u      /* 2 ways x 8 KiB, 8-byte lines */
#define XIP_CACHE_LINE 8u
#define XIP_OP_INVALIDATE_SET_WAY 0u /* maintenance op in address bits 2:0 */
#define SRAM_BASE 0x20000000u
#define SRAM_END 0x20082000u /* 520 KiB */

/* RESETS: a set bit holds the block in reset; RESET_DONE says it is out. */
#define RESETS_BASE 0x40020000u
#define RESETS_RESET (RESETS_BASE + 0x0u)
#define RESETS_RESET_DONE (RESETS_BASE + 0x8u)
#define RESET_IO_BANK0 (1u << 6)
#define RESET_PADS_BANK0 (1u << 9)
#define RESET_PLL_SYS (1u << 14)
#define RESET_TIMER0 (1u << 23)
#define RESET_UART0 (1u << 26)

/* CLOCKS: each clock has CTRL, DIV, SELECTED (12 bytes). DIV's integer part is
 * bits 31:16 (1 << 16 = divide by 1). SELECTED is one-hot in the glitchless SRC. */
#define CLOCKS_BASE 0x40010000u
#define CLK_REF_CTRL (CLOCKS_BASE + 0x30u)
#define CLK_REF_DIV (CLOCKS_BASE + 0x34u)
#define CLK_REF_SELECTED (CLOCKS_BASE + 0x38u)
#define CLK_SYS_CTRL (CLOCKS_BASE + 0x3Cu)
#define CLK_SYS_DIV (CLOCKS_BASE + 0x40u)
#define CLK_SYS_SELECTED (CLOCKS_BASE + 0x44u)
#define CLK_PERI_CTRL (CLOCKS_BASE + 0x48u)
#define CLK_PERI_DIV (CLOCKS_BASE + 0x4Cu)
#define CLK_SYS_RESUS_CTRL (CLOCKS_BASE + 0x84u)
#define CLK_DIV_1 (1u << 16)
#define CLK_REF_SRC_XOSC 2u       /* CTRL.SRC 1:0 = xosc_clksrc */
#define CLK_SYS_SRC_AUX 1u        /* CTRL.SRC bit 0: clksrc_clk_sys_aux */
#define CLK_SYS_AUXSRC_MASK (7u << 5) /* AUXSRC 7:5; 0 = clksrc_pll_sys */
#define CLK_PERI_ENABLE (1u << 11) /* AUXSRC 7:5 = 0: clk_sys */

/* XOSC: the Pico 2's 12 MHz crystal. */
#define XOSC_BASE 0x40048000u
#define XOSC_CTRL (XOSC_BASE + 0x0u)
#define XOSC_STATUS (XOSC_BASE + 0x4u)
#define XOSC_STARTUP (XOSC_BASE + 0xCu)
#define XOSC_RANGE_1_15MHZ 0xAA0u
#define XOSC_ENABLE (0xFABu << 12)
#define XOSC_STABLE (1u << 31)
#define XOSC_HZ 12000000u

/* PLL_SYS: VCO = ref / REFDIV x FBDIV, out = VCO / POSTDIV1 / POSTDIV2. */
#define PLL_SYS_BASE 0x40050000u
#define PLL_CS (PLL_SYS_BASE + 0x0u)
#define PLL_PWR (PLL_SYS_BASE + 0x4u)
#define PLL_FBDIV_INT (PLL_SYS_BASE + 0x8u)
#define PLL_PRIM (PLL_SYS_BASE + 0xCu)
#define PLL_CS_LOCK (1u << 31)
#define PLL_PWR_PD (1u << 0)
#define PLL_PWR_POSTDIVPD (1u << 3)
#define PLL_PWR_VCOPD (1u << 5)

/* TICKS: the tick generators that clock TIMER0 (and SysTick's reference) from
 * clk_ref: CTRL bit 0 enables, CYCLES = clk_ref cycles per 1 us tick. */
#define TICKS_BASE 0x40108000u
#define TICKS_TIMER0_CTRL (TICKS_BASE + 0x18u)
#define TICKS_TIMER0_CYCLES (TICKS_BASE + 0x1Cu)

/* TIMER0: 64-bit microsecond counter; the raw halves need no latching. */
#define TIMER0_BASE 0x400B0000u
#define TIMER_TIMERAWH (TIMER0_BASE + 0x24u)
#define TIMER_TIMERAWL (TIMER0_BASE + 0x28u)

/* IO_BANK0: GPIOn_CTRL at 8n + 4, FUNCSEL 4:0; PADS_BANK0: GPIOn at
 * 4n + 4. Pads come out of reset isolated (ISO) with the input off. */
#define IO_BANK0_BASE 0x40028000u
#define GPIO_CTRL(n) (IO_BANK0_BASE + 8u * (n) + 4u)
#define FUNCSEL_UART 2u
#define FUNCSEL_SIO 5u
#define PADS_BANK0_BASE 0x40038000u
#define PAD(n) (PADS_BANK0_BASE + 4u * (n) + 4u)
#define PAD_IE (1u << 6)
#define PAD_OD (1u << 7)
#define PAD_ISO (1u << 8)

/* SIO: single-cycle GPIO set/clear from either core. */
#define SIO_BASE 0xD0000000u
#define SIO_GPIO_OUT_SET (SIO_BASE + 0x18u)
#define SIO_GPIO_OUT_CLR (SIO_BASE + 0x20u)
#define SIO_GPIO_OE_SET (SIO_BASE + 0x38u)

/* UART0: an Arm PL011. */
#define UART0_BASE 0x40070000u
#define UART_DR (UART0_BASE + 0x00u)
#define UART_FR (UART0_BASE + 0x18u)
#define UART_IBRD (UART0_BASE + 0x24u)
#define UART_FBRD (UART0_BASE + 0x28u)
#define UART_LCR_H (UART0_BASE + 0x2Cu)
#define UART_CR (UART0_BASE + 0x30u)
#define UART_FR_TXFF (1u << 5)
#define UART_LCR_8N1_FIFO ((3u << 5) | (1u << 4)) /* WLEN = 8 bits, FEN */
#define UART_CR_ENABLE ((1u << 0) | (1u << 8) | (1u << 9)) /* UARTEN, TXE, RXE */

/* Cortex-M33 debug (Armv8-M ARM): DWT's cycle counter. CYCDISS stops it in the
 * Secure state, where this image runs: cleared. */
#define DEMCR 0xE000EDFCu
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL 0xE0001000u
#define DWT_CYCCNT 0xE0001004u
#define DWT_CTRL_CYCCNTENA (1u << 0)
#define DWT_CTRL_CYCDISS (1u << 23)

/* The boot ROM's block format (datasheet, "Bootrom concepts: Blocks"): an IMAGE_DEF
 * within the first 4 KiB of
 * flash makes the image bootable. */
#define PICOBIN_MARKER_START 0xFFFFDED3u
#define PICOBIN_MARKER_END 0xAB123579u
#define PICOBIN_ITEM_IMAGE_TYPE 0x42u /* 1-byte size, in words */
#define PICOBIN_ITEM_LAST 0xFFu       /* 2-byte size: words of the items before it */
#define IMAGE_TYPE_EXE 0x1u
#define IMAGE_TYPE_SECURITY_S (2u << 4)
#define IMAGE_TYPE_CPU_ARM (0u << 8)
#define IMAGE_TYPE_CHIP_RP2350 (1u << 12)

#endif
