/* The RP2040 bare-metal layer (rp2040_bare.h). */
#include "rp2040_bare.h"
#include "rtb_emit.h"

static void unreset(uint32_t bits)
{
    RESETS_RESET_CLR = bits;
    while ((RESETS_DONE & bits) != bits) {
    }
}

/* XOSC 12 MHz -> PLL_SYS VCO 1500 MHz / 6 / 2 = 125 MHz; clk_peri = clk_sys. */
static void clocks_init(void)
{
    XOSC_STARTUP = 47; /* ~1 ms in units of 256 XOSC cycles */
    XOSC_CTRL = (0xfabu << 12) | 0xaa0u;
    while (!(XOSC_STATUS & XOSC_STATUS_STABLE)) {
    }
    CLK_SYS_RESUS_CTRL = 0;
    CLK_REF_CTRL = 2; /* clk_ref = XOSC */
    while (!(CLK_REF_SELECTED & (1u << 2))) {
    }
    CLK_SYS_CTRL = 0; /* clk_sys = clk_ref while the PLL is programmed */
    while (!(CLK_SYS_SELECTED & 1u)) {
    }
    RESETS_RESET_SET = RST_PLL_SYS;
    unreset(RST_PLL_SYS);
    PLL_SYS_CS = 1;
    PLL_SYS_FBDIV = 125;
    REG(PLL_SYS_BASE + ALIAS_CLR + 0x4) = PLL_PWR_PD | PLL_PWR_VCOPD;
    while (!(PLL_SYS_CS & PLL_CS_LOCK)) {
    }
    PLL_SYS_PRIM = (6u << 16) | (2u << 12);
    REG(PLL_SYS_BASE + ALIAS_CLR + 0x4) = PLL_PWR_POSTDIVPD;
    CLK_SYS_DIV = 1u << 8;
    CLK_SYS_CTRL = 0u << 5; /* aux source: pll_sys */
    CLK_SYS_CTRL = (0u << 5) | 1u;
    while (!(CLK_SYS_SELECTED & 2u)) {
    }
    CLK_PERI_CTRL = (1u << 11) | (0u << 5); /* clk_peri = clk_sys, enabled */
    WATCHDOG_TICK = (1u << 9) | 12u;        /* the 1 us tick (TIMER, SysTick's reference) */
}

void bare_init(void)
{
    clocks_init();
    unreset(RST_IO_BANK0 | RST_PADS_BANK0 | RST_TIMER | RST_UART0);
    /* 125 MHz / (16 x 115200) = 67.817: IBRD 67, FBRD round(0.817 x 64) = 52 */
    UART0_IBRD = 67;
    UART0_FBRD = 52;
    UART0_LCR_H = (3u << 5) | (1u << 4); /* 8N1, FIFOs on */
    UART0_CR = (1u << 0) | (1u << 8) | (1u << 9);
    GPIO_CTRL(0) = FUNC_UART;
    GPIO_CTRL(1) = FUNC_UART;
    PADS_GPIO(1) = PADS_IE | PADS_SCHMITT;
    SYST_RVR = 0x00ffffffu;
    SYST_CVR = 0;      /* clears it: the next clock loads RVR */
    SYST_CSR = 5u;     /* enabled, processor clock, no interrupt */
}

void bare_uart_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (UART0_FR & UART_FR_TXFF) {
        }
        UART0_DR = (uint8_t)s[i];
    }
}

void bare_nvic_enable(int irq) { REG(0xe000e100u) = 1u << irq; }

void bare_nvic_pend(int irq)
{
    REG(0xe000e200u) = 1u << irq;
    __asm__ volatile("dsb\n isb" ::: "memory");
}

/* XIP_CTRL FLUSH, then read it back: the read returns when the flush is done. */
void bare_xip_flush(void)
{
    XIP_CTRL_FLUSH = 1;
    (void)XIP_CTRL_FLUSH;
}

typedef void *(*rom_table_lookup_fn)(const uint16_t *table, uint32_t code);

/* A halfword of the ROM header; the address goes through a register so that GCC does not
 * take the ROM's low addresses for a null pointer's neighbourhood. */
static uintptr_t rom_hword(uintptr_t address)
{
    __asm__("" : "+r"(address));
    return *(const volatile uint16_t *)address;
}

void *bare_rom_func(char c1, char c2)
{
    rom_table_lookup_fn lookup = (rom_table_lookup_fn)rom_hword(0x18u);
    const uint16_t *table = (const uint16_t *)rom_hword(0x14u);
    return lookup(table, (uint32_t)(uint8_t)c1 | (uint32_t)(uint8_t)c2 << 8);
}

void *bare_rom_data(char c1, char c2)
{
    rom_table_lookup_fn lookup = (rom_table_lookup_fn)rom_hword(0x18u);
    const uint16_t *table = (const uint16_t *)rom_hword(0x16u);
    return lookup(table, (uint32_t)(uint8_t)c1 | (uint32_t)(uint8_t)c2 << 8);
}

void bare_exit(int errors)
{
    char line[32];
    bare_uart_write(line, rtb_done_line(line, errors));
    __asm__ volatile("cpsid i" ::: "memory");
    for (;;) {
    }
}

/* What GCC may call in a freestanding image (aggregate initialisation, struct copies). */
void *memset(void *ptr, int c, size_t n)
{
    unsigned char *p = ptr;
    while (n--)
        *p++ = (unsigned char)c;
    return ptr;
}

void *memcpy(void *dest, const void *src, size_t n)
{
    unsigned char *d = dest;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
    return dest;
}
