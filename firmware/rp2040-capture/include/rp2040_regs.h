/* Minimal RP2040 register map: only what the capture firmware touches.
 * Addresses and bit positions from the RP2040 datasheet (chapter 2 and 3). */
#ifndef RP2040_REGS_H
#define RP2040_REGS_H
#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
/* Atomic set/clear aliases of APB/AHB peripherals (datasheet 2.1.2). */
#define ALIAS_XOR 0x1000u
#define ALIAS_SET 0x2000u
#define ALIAS_CLR 0x3000u

/* RESETS */
#define RESETS_BASE 0x4000c000u
#define RESETS_RESET REG(RESETS_BASE + 0x0)
#define RESETS_RESET_CLR REG(RESETS_BASE + ALIAS_CLR + 0x0)
#define RESETS_RESET_SET REG(RESETS_BASE + ALIAS_SET + 0x0)
#define RESETS_DONE REG(RESETS_BASE + 0x8)
#define RST_DMA (1u << 2)
#define RST_IO_BANK0 (1u << 5)
#define RST_PADS_BANK0 (1u << 8)
#define RST_PIO0 (1u << 10)
#define RST_PIO1 (1u << 11)
#define RST_PLL_SYS (1u << 12)
#define RST_PWM (1u << 14)
#define RST_TIMER (1u << 21)
#define RST_UART0 (1u << 22)
#define RST_PLL_USB (1u << 13)
#define RST_USBCTRL (1u << 24)

/* XOSC */
#define XOSC_BASE 0x40024000u
#define XOSC_CTRL REG(XOSC_BASE + 0x00)
#define XOSC_STATUS REG(XOSC_BASE + 0x04)
#define XOSC_STARTUP REG(XOSC_BASE + 0x0c)
#define XOSC_STATUS_STABLE (1u << 31)

/* CLOCKS */
#define CLOCKS_BASE 0x40008000u
#define CLK_REF_CTRL REG(CLOCKS_BASE + 0x30)
#define CLK_REF_DIV REG(CLOCKS_BASE + 0x34)
#define CLK_REF_SELECTED REG(CLOCKS_BASE + 0x38)
#define CLK_SYS_CTRL REG(CLOCKS_BASE + 0x3c)
#define CLK_SYS_DIV REG(CLOCKS_BASE + 0x40)
#define CLK_SYS_SELECTED REG(CLOCKS_BASE + 0x44)
#define CLK_PERI_CTRL REG(CLOCKS_BASE + 0x48)
#define CLK_USB_CTRL REG(CLOCKS_BASE + 0x54)
#define CLK_USB_DIV REG(CLOCKS_BASE + 0x58)
#define CLK_SYS_RESUS_CTRL REG(CLOCKS_BASE + 0x78)

/* PLL_SYS */
#define PLL_SYS_BASE 0x40028000u
#define PLL_SYS_CS REG(PLL_SYS_BASE + 0x0)
#define PLL_SYS_PWR REG(PLL_SYS_BASE + 0x4)
#define PLL_SYS_FBDIV REG(PLL_SYS_BASE + 0x8)
#define PLL_SYS_PRIM REG(PLL_SYS_BASE + 0xc)
#define PLL_USB_BASE 0x4002c000u
#define PLL_CS_LOCK (1u << 31)
#define PLL_PWR_PD (1u << 0)
#define PLL_PWR_POSTDIVPD (1u << 3)
#define PLL_PWR_VCOPD (1u << 5)

/* WATCHDOG tick generator: drives the 1 us TIMER from clk_ref. */
#define WATCHDOG_TICK REG(0x4005802cu)

/* TIMER (1 MHz, 64-bit) */
#define TIMER_BASE 0x40054000u
#define TIMER_TIMERAWH REG(TIMER_BASE + 0x24)
#define TIMER_TIMERAWL REG(TIMER_BASE + 0x28)

/* IO_BANK0 / PADS_BANK0 */
#define IO_BANK0_BASE 0x40014000u
#define GPIO_CTRL(n) REG(IO_BANK0_BASE + 0x04 + 8u * (n))
#define FUNC_UART 2u
#define FUNC_PWM 4u
#define FUNC_SIO 5u
#define FUNC_PIO0 6u
#define FUNC_PIO1 7u
#define PADS_BANK0_BASE 0x4001c000u
#define PADS_GPIO(n) REG(PADS_BANK0_BASE + 0x04 + 4u * (n))
#define PADS_OD (1u << 7)
#define PADS_IE (1u << 6)
#define PADS_SCHMITT (1u << 1)

/* UART0 (PL011) */
#define UART0_BASE 0x40034000u
#define UART0_DR REG(UART0_BASE + 0x00)
#define UART0_FR REG(UART0_BASE + 0x18)
#define UART0_IBRD REG(UART0_BASE + 0x24)
#define UART0_FBRD REG(UART0_BASE + 0x28)
#define UART0_LCR_H REG(UART0_BASE + 0x2c)
#define UART0_CR REG(UART0_BASE + 0x30)
#define UART_FR_TXFF (1u << 5)
#define UART_FR_RXFE (1u << 4)

/* PWM (self-test square wave) */
#define PWM_BASE 0x40050000u
#define PWM_CSR(s) REG(PWM_BASE + 0x14u * (s) + 0x00)
#define PWM_DIV(s) REG(PWM_BASE + 0x14u * (s) + 0x04)
#define PWM_CTR(s) REG(PWM_BASE + 0x14u * (s) + 0x08)
#define PWM_CC(s) REG(PWM_BASE + 0x14u * (s) + 0x0c)
#define PWM_TOP(s) REG(PWM_BASE + 0x14u * (s) + 0x10)

/* PIO0 / PIO1 */
#define PIO0_BASE 0x50200000u
#define PIO1_BASE 0x50300000u
#define PIO_CTRL(p) REG((p) + 0x000)
#define PIO_FSTAT(p) REG((p) + 0x004)
#define PIO_FDEBUG(p) REG((p) + 0x008)
#define PIO_RXF_ADDR(p, sm) ((p) + 0x020 + 4u * (sm))
#define PIO_TXF(p, sm) REG((p) + 0x010 + 4u * (sm))
#define PIO_INSTR_MEM(p, i) REG((p) + 0x048 + 4u * (i))
#define PIO_SM_CLKDIV(p, sm) REG((p) + 0x0c8 + 0x18u * (sm))
#define PIO_SM_EXECCTRL(p, sm) REG((p) + 0x0cc + 0x18u * (sm))
#define PIO_SM_SHIFTCTRL(p, sm) REG((p) + 0x0d0 + 0x18u * (sm))
#define PIO_SM_ADDR(p, sm) REG((p) + 0x0d4 + 0x18u * (sm))
#define PIO_SM_INSTR(p, sm) REG((p) + 0x0d8 + 0x18u * (sm))
#define PIO_SM_PINCTRL(p, sm) REG((p) + 0x0dc + 0x18u * (sm))
#define PIO_INPUT_SYNC_BYPASS(p) REG((p) + 0x038)
#define EXECCTRL_JMP_PIN_LSB 24
#define EXECCTRL_WRAP_TOP_LSB 12
#define EXECCTRL_WRAP_BOTTOM_LSB 7
#define SHIFTCTRL_IN_SHIFTDIR (1u << 18)
#define SHIFTCTRL_AUTOPUSH (1u << 16)
#define SHIFTCTRL_FJOIN_RX (1u << 31)
#define PINCTRL_IN_BASE_LSB 15

/* DMA */
#define DMA_BASE 0x50000000u
#define DMA_READ_ADDR(c) REG(DMA_BASE + 0x40u * (c) + 0x00)
#define DMA_WRITE_ADDR(c) REG(DMA_BASE + 0x40u * (c) + 0x04)
#define DMA_TRANS_COUNT(c) REG(DMA_BASE + 0x40u * (c) + 0x08)
#define DMA_CTRL_TRIG(c) REG(DMA_BASE + 0x40u * (c) + 0x0c)
#define DMA_AL1_CTRL(c) REG(DMA_BASE + 0x40u * (c) + 0x10)
#define DMA_MULTI_CHAN_TRIGGER REG(DMA_BASE + 0x430)
#define DMA_CHAN_ABORT REG(DMA_BASE + 0x444)
#define DMA_CTRL_EN (1u << 0)
#define DMA_CTRL_HIGH_PRIORITY (1u << 1)
#define DMA_CTRL_SIZE_WORD (2u << 2)
#define DMA_CTRL_INCR_READ (1u << 4)
#define DMA_CTRL_INCR_WRITE (1u << 5)
#define DMA_CTRL_RING_SIZE_LSB 6
#define DMA_CTRL_RING_SEL_WRITE (1u << 10)
#define DMA_CTRL_CHAIN_TO_LSB 11
#define DMA_CTRL_TREQ_LSB 15
#define DMA_CTRL_IRQ_QUIET (1u << 21)
#define DMA_CTRL_BUSY (1u << 24)
#define DREQ_PIO0_RX0 4u
#define DREQ_PIO1_RX0 12u

/* USB controller (device mode) and its dual-port RAM */
#define USB_DPRAM_BASE 0x50100000u
#define USB_REGS_BASE 0x50110000u
#define USB_ADDR_ENDP REG(USB_REGS_BASE + 0x00)
#define USB_MAIN_CTRL REG(USB_REGS_BASE + 0x40)
#define USB_SIE_CTRL REG(USB_REGS_BASE + 0x4c)
#define USB_SIE_STATUS REG(USB_REGS_BASE + 0x50)
#define USB_BUFF_STATUS REG(USB_REGS_BASE + 0x58)
#define USB_EP_STALL_ARM REG(USB_REGS_BASE + 0x68)
#define USB_MUXING REG(USB_REGS_BASE + 0x74)
#define USB_PWR REG(USB_REGS_BASE + 0x78)
#define USB_SIE_SETUP_REC (1u << 17)
#define USB_SIE_BUS_RESET (1u << 19)
#define USB_SIE_CTRL_PULLUP_EN (1u << 16)
#define USB_SIE_CTRL_EP0_INT_1BUF (1u << 29)
/* DPRAM: endpoint control (EP1..15) and buffer control (EP0..15) words */
#define USB_EP_CTRL_IN(n) REG(USB_DPRAM_BASE + 0x08 + 8u * ((n) - 1u))
#define USB_EP_CTRL_OUT(n) REG(USB_DPRAM_BASE + 0x0c + 8u * ((n) - 1u))
#define USB_BUF_CTRL_IN(n) REG(USB_DPRAM_BASE + 0x80 + 8u * (n))
#define USB_BUF_CTRL_OUT(n) REG(USB_DPRAM_BASE + 0x84 + 8u * (n))
#define USB_EP_ENABLE (1u << 31)
#define USB_EP_INT_PER_BUFF (1u << 29)
#define USB_EP_TYPE_LSB 26
#define USB_BUF_FULL (1u << 15)
#define USB_BUF_LAST (1u << 14)
#define USB_BUF_DATA1 (1u << 13)
#define USB_BUF_STALL (1u << 11)
#define USB_BUF_AVAILABLE (1u << 10)

/* SysTick (core-private, for cycle counts in the bench build) */
#define SYST_CSR REG(0xe000e010u)
#define SYST_RVR REG(0xe000e014u)
#define SYST_CVR REG(0xe000e018u)

#endif
