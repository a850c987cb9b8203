/*
 * The RP2350's devices for the mps2 layer's chip interface (mps2.h), from the datasheet:
 * XOSC 12 MHz -> PLL_SYS (VCO 1500 MHz) -> clk_sys 150 MHz (or the study's 125 MHz),
 * clk_peri = clk_sys for UART0 (GP0/GP1, polled), TIMER0's 1 us tick from clk_ref, the
 * DWT cycle counter, the marker pins through SIO, and the IMAGE_DEF block that makes
 * the boot ROM run this image. No debugger answers semihosting: the exit prints
 * `rtbench: done errors=N` (the serial target's end of output) and the options are the
 * ones built in (rp2350_args.c).
 */
#include "rp2350.h"

/* The boot ROM looks for a block loop in the first 4 KiB of flash and runs the image
 * only if it holds an IMAGE_DEF; the linker script puts this right after the vector
 * table. One IMAGE_TYPE item (an Arm executable for the RP2350, Secure state), the LAST
 * item (the items before it: 1 word), then the link to the next block: 0, itself, a
 * loop of one block. With no VECTOR_TABLE item the ROM takes the table at the image's
 * start (0x10000000) for VTOR, the stack pointer and the entry point. */
__attribute__((section(".image_def"), used)) static const uint32_t image_def[5] = {
    PICOBIN_MARKER_START,
    PICOBIN_ITEM_IMAGE_TYPE | 1u << 8 |
        (IMAGE_TYPE_EXE | IMAGE_TYPE_SECURITY_S | IMAGE_TYPE_CPU_ARM | IMAGE_TYPE_CHIP_RP2350)
            << 16,
    PICOBIN_ITEM_LAST | 1u << 8,
    0u,
    PICOBIN_MARKER_END,
};

/* VCO 12 MHz x 125 = 1500 MHz (REFDIV 1), the datasheet's and the SDK's choice for both. */
#define PLL_FBDIV 125u
#if RP2350_SYSCLK_HZ == 150000000
#define PLL_POSTDIV1 5u
#elif RP2350_SYSCLK_HZ == 125000000
#define PLL_POSTDIV1 6u
#else
#error "RP2350_SYSCLK_HZ: 150000000 (the Pico 2's rating) or 125000000 (the K4perf study's)"
#endif
#define PLL_POSTDIV2 2u
_Static_assert(XOSC_HZ / 1000000u * PLL_FBDIV / PLL_POSTDIV1 / PLL_POSTDIV2 * 1000000u ==
                   RP2350_SYSCLK_HZ,
               "the PLL settings do not give RP2350_SYSCLK_HZ");

uint32_t rp2350_sysclk_hz = RP2350_SYSCLK_HZ;

static void unreset(uint32_t blocks)
{
    REG_CLR(RESETS_RESET) = blocks;
    while ((REG(RESETS_RESET_DONE) & blocks) != blocks)
        ;
}

static void pll_sys_start(void)
{
    REG_SET(RESETS_RESET) = RESET_PLL_SYS; /* from its reset state, whatever ran before */
    unreset(RESET_PLL_SYS);
    REG(PLL_CS) = 1u; /* REFDIV */
    REG(PLL_FBDIV_INT) = PLL_FBDIV;
    REG_CLR(PLL_PWR) = PLL_PWR_PD | PLL_PWR_VCOPD;
    while (!(REG(PLL_CS) & PLL_CS_LOCK))
        ;
    REG(PLL_PRIM) = PLL_POSTDIV1 << 16 | PLL_POSTDIV2 << 12;
    REG_CLR(PLL_PWR) = PLL_PWR_POSTDIVPD;
}

void rp2350_clock_init(void)
{
    REG(CLK_SYS_RESUS_CTRL) = 0;
    /* Crystal: a start-up wait of 64 x ~1 ms in units of 256 cycles, for slow crystals. */
    REG(XOSC_CTRL) = XOSC_RANGE_1_15MHZ;
    REG(XOSC_STARTUP) = (XOSC_HZ / 1000u + 128u) / 256u * 64u;
    REG_SET(XOSC_CTRL) = XOSC_ENABLE;
    while (!(REG(XOSC_STATUS) & XOSC_STABLE))
        ;
    /* clk_sys onto clk_ref through its glitchless mux while clk_ref and the PLL change. */
    REG_CLR(CLK_SYS_CTRL) = CLK_SYS_SRC_AUX;
    while (!(REG(CLK_SYS_SELECTED) & 1u))
        ;
    REG(CLK_REF_CTRL) = CLK_REF_SRC_XOSC;
    while (!(REG(CLK_REF_SELECTED) & 1u << CLK_REF_SRC_XOSC))
        ;
    REG(CLK_REF_DIV) = CLK_DIV_1;
    pll_sys_start();
    REG(CLK_SYS_DIV) = CLK_DIV_1;
    REG_CLR(CLK_SYS_CTRL) = CLK_SYS_AUXSRC_MASK; /* aux = pll_sys */
    REG_SET(CLK_SYS_CTRL) = CLK_SYS_SRC_AUX;
    while (!(REG(CLK_SYS_SELECTED) & 2u))
        ;
    /* clk_peri (UART0) = clk_sys: stopped while its source is chosen. */
    REG_CLR(CLK_PERI_CTRL) = CLK_PERI_ENABLE;
    REG(CLK_PERI_DIV) = CLK_DIV_1;
    REG(CLK_PERI_CTRL) = CLK_PERI_ENABLE;
    /* TIMER0 counts ticks, not a clock: one per microsecond of the 12 MHz clk_ref. */
    REG(TICKS_TIMER0_CYCLES) = XOSC_HZ / 1000000u;
    REG(TICKS_TIMER0_CTRL) = 1u;
}

/* A pin to function f: input on, not open-drain, then the pad out of isolation (the
 * RP2350's pads come out of reset isolated: nothing reaches the pin until ISO is 0). */
static void pin_function(uint32_t pin, uint32_t f)
{
    REG_SET(PAD(pin)) = PAD_IE;
    REG_CLR(PAD(pin)) = PAD_OD;
    REG(GPIO_CTRL(pin)) = f;
    REG_CLR(PAD(pin)) = PAD_ISO;
}

void mps2_uart_init(void)
{
    /* The first call of every image: the baud-rate divisor needs the final clk_peri. */
    rp2350_clock_init();
    unreset(RESET_IO_BANK0 | RESET_PADS_BANK0 | RESET_UART0 | RESET_TIMER0);
    /* PL011 divisor = clk / (16 baud) in 16.6 fixed point, rounded. */
    uint32_t div = 8u * rp2350_sysclk_hz / RP2350_BAUD + 1u;
    REG(UART_IBRD) = div >> 7;
    REG(UART_FBRD) = (div & 0x7Fu) >> 1;
    REG(UART_LCR_H) = UART_LCR_8N1_FIFO; /* also latches the divisors */
    REG(UART_CR) = UART_CR_ENABLE;
    pin_function(RP2350_UART_TX_PIN, FUNCSEL_UART);
    pin_function(RP2350_UART_TX_PIN + 1u, FUNCSEL_UART); /* RX: GP1 beside GP0 */
    for (int ch = 0; ch < RP2350_MARKERS; ch++) {
        uint32_t pin = RP2350_MARKER_PIN + (uint32_t)ch;
        REG(SIO_GPIO_OUT_CLR) = 1u << pin;
        REG(SIO_GPIO_OE_SET) = 1u << pin;
        pin_function(pin, FUNCSEL_SIO);
    }
}

void mps2_uart_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (REG(UART_FR) & UART_FR_TXFF)
            ;
        REG(UART_DR) = (uint8_t)s[i];
    }
}

void mps2_timer_init(void)
{
    REG(DEMCR) |= DEMCR_TRCENA;
    REG(DWT_CYCCNT) = 0;
    REG(DWT_CTRL) = (REG(DWT_CTRL) & ~DWT_CTRL_CYCDISS) | DWT_CTRL_CYCCNTENA;
}

uint64_t rp2350_time_us(void)
{
    uint32_t hi, lo;
    do { /* the high half again: no carry between the two reads */
        hi = REG(TIMER_TIMERAWH);
        lo = REG(TIMER_TIMERAWL);
    } while (hi != REG(TIMER_TIMERAWH));
    return (uint64_t)hi << 32 | lo;
}

void rp2350_marker(int ch, int on)
{
    if (ch < 0 || ch >= RP2350_MARKERS)
        return;
    uint32_t bit = 1u << (RP2350_MARKER_PIN + (uint32_t)ch);
    REG(on ? SIO_GPIO_OUT_SET : SIO_GPIO_OUT_CLR) = bit;
}

/* Invalidate by set/way over the whole 16 KiB cache, one store per 8-byte line: the
 * maintenance window's top 16 KiB, the operation in the address's low bits (what the
 * pico-sdk's xip_cache_invalidate_all does). Safe from flash: a line this loop needs
 * is fetched again. */
void rp2350_xip_cache_invalidate(void)
{
    for (uint32_t off = XIP_SPACE_SIZE - XIP_CACHE_SIZE; off < XIP_SPACE_SIZE;
         off += XIP_CACHE_LINE)
        *(volatile uint8_t *)(XIP_MAINTENANCE_BASE + off + XIP_OP_INVALIDATE_SET_WAY) = 0;
    __asm__ volatile("dsb\n isb" ::: "memory");
}
