#include "hw.h"
#include "rp2040_regs.h"

static void unreset(uint32_t bits)
{
    RESETS_RESET_CLR = bits;
    while ((RESETS_DONE & bits) != bits) {
    }
}

static void clocks_init(void)
{
    /* XOSC: 12 MHz crystal, ~1 ms start-up delay in units of 256 cycles. */
    XOSC_STARTUP = 47;
    XOSC_CTRL = (0xfabu << 12) | 0xaa0u;
    while (!(XOSC_STATUS & XOSC_STATUS_STABLE)) {
    }
    CLK_SYS_RESUS_CTRL = 0;
    CLK_REF_CTRL = 2; /* clk_ref = XOSC */
    while (!(CLK_REF_SELECTED & (1u << 2))) {
    }
    CLK_SYS_CTRL = 0; /* clk_sys = clk_ref while the PLL is reprogrammed */
    while (!(CLK_SYS_SELECTED & 1u)) {
    }
    RESETS_RESET_SET = RST_PLL_SYS;
    unreset(RST_PLL_SYS);
    /* 12 MHz / 1 * 125 = 1500 MHz VCO, / 6 / 2 = 125 MHz. */
    PLL_SYS_CS = 1;
    PLL_SYS_FBDIV = 125;
    REG(PLL_SYS_BASE + ALIAS_CLR + 0x4) = PLL_PWR_PD | PLL_PWR_VCOPD;
    while (!(PLL_SYS_CS & PLL_CS_LOCK)) {
    }
    PLL_SYS_PRIM = (6u << 16) | (2u << 12);
    REG(PLL_SYS_BASE + ALIAS_CLR + 0x4) = PLL_PWR_POSTDIVPD;
    CLK_SYS_DIV = 1u << 8;
    CLK_SYS_CTRL = 0u << 5; /* aux source pll_sys */
    CLK_SYS_CTRL = (0u << 5) | 1u;
    while (!(CLK_SYS_SELECTED & 2u)) {
    }
    CLK_PERI_CTRL = (1u << 11) | (0u << 5); /* clk_peri = clk_sys, enabled */
    WATCHDOG_TICK = (1u << 9) | 12u;        /* TIMER ticks every 12 clk_ref = 1 us */
}

static void uart_init(void)
{
    unreset(RST_UART0);
    /* baud divisor = 125e6 / (16 * 921600) = 8.4771 -> 8 + 31/64 */
    UART0_IBRD = 8;
    UART0_FBRD = 31;
    UART0_LCR_H = (3u << 5) | (1u << 4); /* 8N1, FIFOs on */
    UART0_CR = (1u << 0) | (1u << 8) | (1u << 9);
    GPIO_CTRL(0) = FUNC_UART; /* TX */
    GPIO_CTRL(1) = FUNC_UART; /* RX */
    PADS_GPIO(1) = PADS_IE | PADS_SCHMITT;
    PADS_GPIO(0) = 0;
}

void hw_init(void)
{
    clocks_init();
    unreset(RST_IO_BANK0 | RST_PADS_BANK0 | RST_TIMER | RST_DMA | RST_PIO0 | RST_PIO1 |
            RST_PWM);
    uart_init();
}

uint64_t hw_time_us(void)
{
    uint32_t hi, lo;
    do {
        hi = TIMER_TIMERAWH;
        lo = TIMER_TIMERAWL;
    } while (hi != TIMER_TIMERAWH);
    return ((uint64_t)hi << 32) | lo;
}

int uart_getc(void)
{
    if (UART0_FR & UART_FR_RXFE) {
        return -1;
    }
    return (int)(UART0_DR & 0xffu);
}


void pad_input(uint32_t gpio)
{
    /* rp2040js resets pads with IE off (silicon has it on): set it explicitly. */
    PADS_GPIO(gpio) = PADS_IE | PADS_OD | PADS_SCHMITT;
    GPIO_CTRL(gpio) = FUNC_SIO;
}

void gpio_inover(uint32_t gpio, uint32_t mode)
{
    GPIO_CTRL(gpio) = (GPIO_CTRL(gpio) & ~(3u << 16)) | ((mode & 3u) << 16);
}
