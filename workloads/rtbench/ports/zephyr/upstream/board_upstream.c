/*
 * Zephyr's own MCU boards under the Zephyr port of rtbench: nucleo_l073rz, nucleo_f103rb,
 * nucleo_f411re, nucleo_h743zi (hal_stm32) and rpi_pico (hal_rpi_pico). Zephyr owns the
 * clock tree (the board's devicetree: SYSCLK = the rcc node's clock-frequency), the
 * console UART (ST-LINK virtual COM port; the Pico's UART0 on GP0/GP1), the vector table
 * and SysTick; this file adds what the suite needs beyond that:
 *
 * - the counter: DWT CYCCNT on the M3/M4/M7 (core clock); the Cortex-M0+ (L073, RP2040)
 *   has no DWT cycle counter, so k_cycle_get_32 (SysTick extended by Zephyr's cycle
 *   count, core clock) replaces it, and a warning says what a read costs;
 * - software interrupts: 4 NVIC lines no driver of the build uses (RTB_UPSTREAM_SWI_IRQ..+3),
 *   pended through NVIC ISPR;
 * - the marker: the study's pin (led0: PA5 on the Nucleo-64s, PB0 on the H743ZI) through
 *   Zephyr's GPIO API, one port write (the Pico: GP2, as the FreeRTOS Pico layer);
 * - the cold hook: the F4's ART, the M7's I-cache, the RP2040's XIP cache emptied;
 * - the options built into the image (rtb_zephyr_args.h), and the end line
 *   `rtbench: done errors=N` (nothing answers semihosting on silicon).
 */
#include <zephyr/cache.h>
#include <zephyr/device.h>
#include <zephyr/drivers/gpio.h>
#include <zephyr/drivers/uart.h>
#include <zephyr/fatal.h>
#include <zephyr/irq.h>
#include <zephyr/kernel.h>

#include "rtb_board.h"
#include "rtb_isr.h"
#include "rtb_emit.h"
#include "rtb_zephyr_args.h" /* RTB_ZEPHYR_ARGS: written by rtlab for each option set */

#ifndef RTB_UPSTREAM_NAME
#error "RTB_UPSTREAM_NAME: the rtlab board name (CMakeLists.txt sets it)"
#endif

#define REG(a) (*(volatile uint32_t *)(a))
#define NVIC_ISPR0 0xE000E200u
#define SWI_SLOTS 4

#if defined(CONFIG_CPU_CORTEX_M0PLUS)
#define COUNTER "zephyr_k_cycle_get_32"
BUILD_ASSERT(IS_ENABLED(CONFIG_CORTEX_M_SYSTICK), "k_cycle_get_32 at the core clock: SysTick");
#else
#define USE_DWT 1
#define COUNTER "dwt_cyccnt"
#define DEMCR 0xE000EDFCu
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL 0xE0001000u
#define DWT_CYCCNT 0xE0001004u
#define DWT_LAR 0xE0001FB0u /* the M7's lock (ARMv7-M CoreSight): writes need the key */
#endif

/* The core clock, as Zephyr's devicetree sets it (SysTick runs on it too). */
#if DT_NODE_HAS_PROP(DT_NODELABEL(rcc), clock_frequency)
BUILD_ASSERT(DT_PROP(DT_NODELABEL(rcc), clock_frequency) == CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC,
             "the counter's rate is the rcc node's SYSCLK");
#endif
#define CPU_HZ ((uint32_t)CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC)

static const struct device *const console = DEVICE_DT_GET(DT_CHOSEN(zephyr_console));

#if defined(CONFIG_SOC_RP2040)
#define MARKER_PIN 2 /* GP2, the FreeRTOS Pico layer's first marker */
static const struct device *const marker_port = DEVICE_DT_GET(DT_NODELABEL(gpio0));
#else
static const struct gpio_dt_spec marker = GPIO_DT_SPEC_GET(DT_ALIAS(led0), gpios);
BUILD_ASSERT(DT_GPIO_PIN(DT_ALIAS(led0), gpios) == RTB_UPSTREAM_MARKER_PIN,
             "led0 is the study's marker pin (boards/stm32/machines: marker)");
#define MARKER_PIN marker.pin
#define marker_port marker.port
#endif

void rtb_board_init(void)
{
#ifdef USE_DWT
    REG(DEMCR) |= DEMCR_TRCENA;
#if defined(CONFIG_CPU_CORTEX_M7)
    REG(DWT_LAR) = 0xC5ACCE55u;
#endif
    REG(DWT_CYCCNT) = 0;
    REG(DWT_CTRL) |= 1u; /* CYCCNTENA */
#endif
    (void)gpio_pin_configure(marker_port, MARKER_PIN, GPIO_OUTPUT_INACTIVE);
    /* Priority 0: the highest Zephyr gives a regular (rescheduling) ISR. */
    RTB_ZEPHYR_CONNECT_SWI(RTB_UPSTREAM_SWI_IRQ, 0);
    for (int k = 0; k < SWI_SLOTS; k++)
        irq_disable(RTB_UPSTREAM_SWI_IRQ + k);
#if defined(CONFIG_SOC_RP2040)
    k_msleep(2000); /* as the other Pico images: time for the host to open the port */
#endif
}

const char *rtb_board_name(void) { return RTB_UPSTREAM_NAME; }
const char *rtb_board_clock(void) { return COUNTER; }
uint32_t rtb_board_cpu_hz(void) { return CPU_HZ; }
#ifdef USE_DWT
uint32_t rtb_board_ts(void) { return REG(DWT_CYCCNT); }
#else
uint32_t rtb_board_ts(void) { return k_cycle_get_32(); }
#endif
uint32_t rtb_board_ts_hz(void) { return CPU_HZ; }
uint32_t rtb_board_ts_mask(void) { return 0xFFFFFFFFu; }

void rtb_board_out(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        uart_poll_out(console, s[k]);
}

void rtb_board_marker(int ch, int on)
{
    (void)ch; /* one pin: the study's */
    if (on)
        (void)gpio_port_set_bits_raw(marker_port, BIT(MARKER_PIN));
    else
        (void)gpio_port_clear_bits_raw(marker_port, BIT(MARKER_PIN));
}

int rtb_board_swi_slots(void) { return SWI_SLOTS; }
void rtb_board_swi_enable(int slot, int core)
{
    (void)core; /* one core */
    irq_enable(RTB_UPSTREAM_SWI_IRQ + slot);
}
void rtb_board_swi_disable(int slot) { irq_disable(RTB_UPSTREAM_SWI_IRQ + slot); }
void rtb_board_swi_pend(int slot)
{
    REG(NVIC_ISPR0 + 4u * ((RTB_UPSTREAM_SWI_IRQ + slot) / 32u)) =
        1u << ((RTB_UPSTREAM_SWI_IRQ + slot) % 32u);
    __asm__ volatile("dsb\n isb" ::: "memory"); /* the pended line is taken here */
}

const char *rtb_board_warning(const char **msg)
{
#ifdef USE_DWT
    *msg = NULL;
    return NULL;
#else
    *msg = "Cortex-M0+: no DWT cycle counter; samples read k_cycle_get_32 (SysTick at the "
           "core clock, extended by Zephyr under a spinlock): each read adds its cost";
    return "m0plus_k_cycle_get";
#endif
}

const char *rtb_board_cmdline(void) { return RTB_ZEPHYR_ARGS; }

/* Also the end of a fault (the port's k_sys_fatal_error_handler): no kernel call. */
void rtb_board_exit(int status)
{
    char line[32];
    rtb_board_out(line, rtb_done_line(line, status));
    (void)irq_lock();
    for (;;) {
    }
}

/* --- the cold hook (docs/boards.md "Cold and warm"): caches in front of the flash emptied as
 * a reset leaves them; the state is read back, as the STM32 layer's stm32_cache.h does. */
#if defined(CONFIG_SOC_SERIES_STM32H7X)
#define SCB_CCR 0xE000ED14u
static int cache_on(void) { return (REG(SCB_CCR) & (1u << 17)) != 0; } /* CCR.IC */
/* Zephyr turns the M7's D-cache on too (CONFIG_DCACHE), with its RAM in the AXI SRAM
 * behind it: data goes cold with the code (the rtbench images of the STM32 layer keep
 * theirs in the uncached DTCM instead). */
static int dcache_on(void) { return (REG(SCB_CCR) & (1u << 16)) != 0; } /* CCR.DC */
#elif defined(CONFIG_SOC_SERIES_STM32F4X)
#define FLASH_ACR 0x40023C00u
#define ACR_CACHES ((1u << 9) | (1u << 10)) /* ICEN, DCEN */
static int cache_on(void) { return (REG(FLASH_ACR) & ACR_CACHES) != 0; }
#elif defined(CONFIG_SOC_RP2040)
#define XIP_CTRL 0x14000000u
static int cache_on(void) { return (REG(XIP_CTRL) & 1u) != 0; } /* CTRL.EN */
#else
static int cache_on(void) { return 0; } /* L0, F1: a prefetch buffer only */
#endif

void rtb_board_cache_cold(void)
{
    if (!cache_on())
        return;
#if defined(CONFIG_SOC_SERIES_STM32H7X)
    (void)sys_cache_instr_invd_all(); /* the M7's L1 I-cache (ICIALLU, DSB, ISB) */
    if (dcache_on())
        (void)sys_cache_data_flush_and_invd_all(); /* written back first: nothing lost */
#elif defined(CONFIG_SOC_SERIES_STM32F4X)
    /* The ART accelerator (RM0383 3.4.2): reset only while disabled, then as it was. */
    unsigned int key = irq_lock();
    uint32_t acr = REG(FLASH_ACR);
    REG(FLASH_ACR) = acr & ~ACR_CACHES;
    REG(FLASH_ACR) = (acr & ~ACR_CACHES) | (3u << 11); /* ICRST, DCRST */
    REG(FLASH_ACR) = acr & ~ACR_CACHES;
    REG(FLASH_ACR) = acr;
    irq_unlock(key);
#elif defined(CONFIG_SOC_RP2040)
    REG(XIP_CTRL + 4u) = 1u;  /* FLUSH: the 16 KiB XIP cache */
    (void)REG(XIP_CTRL + 4u); /* the read returns once the flush is done */
#endif
}

const char *rtb_board_cold(void)
{
    if (!cache_on())
        return "first_call";
#if defined(CONFIG_SOC_SERIES_STM32H7X)
    return dcache_on() ? "icache_dcache_invalidated" : "icache_invalidated";
#elif defined(CONFIG_SOC_SERIES_STM32F4X)
    return "art_reset";
#else
    return "xip_cache_flushed";
#endif
}
