/*
 * Clock trees, from the reference manuals (stm32_regs.h), to the description's
 * sysclk_hz: the study's listed maximum (L0 32 MHz, F1 72 MHz, F4 100 MHz, H7 480 MHz) or
 * 8 MHz, the clock the study's measurements ran at. Sources: HSI everywhere but the F1,
 * whose 72 MHz needs the 8 MHz HSE the Nucleo's ST-LINK feeds to OSC_IN (bypass); if that
 * clock is not wired the F1 stays on HSI 8 MHz and stm32_sysclk_hz says so.
 *
 * `clock_tree = "reset"` (QEMU netduinoplus2: no RCC model, its ready bits would never
 * set) runs none of this: the chip keeps the clock it was given.
 */
#include "stm32.h"

uint32_t stm32_sysclk_hz = STM32_SYSCLK_HZ;

#if !defined(STM32_CLOCK_RESET)

static inline void wait_set(uint32_t reg, uint32_t bits) /* unused on the F1 at 8 MHz */
{
    while ((REG(reg) & bits) != bits)
        ;
}

/* Until RCC_CFGR's SWS field reports sw: SYSCLK runs from the source switched to. */
static inline void wait_sysclk(uint32_t sw)
{
    while (RCC_CFGR_SWS(REG(RCC_CFGR)) != sw)
        ;
}

/* The configured PLL on (RCC_CR's bit on, then its ready bit rdy), then SYSCLK switched to
 * it (sw in RCC_CFGR's SW field) and waited for: the L0, F1 and F4 at their maximum. */
static inline void pll_select(uint32_t on, uint32_t rdy, uint32_t sw)
{
    REG(RCC_CR) |= on;
    wait_set(RCC_CR, rdy);
    REG(RCC_CFGR) |= sw;
    wait_sysclk(sw);
}

/* One branch per (chip, sysclk_hz): the chip's listed maximum, or 8 MHz. */
void stm32_clock_init(void)
{
#if defined(STM32_L0) /* both clocks come from HSI16 */
    REG(RCC_APB1ENR) |= RCC_APB1ENR_PWR;
    REG(RCC_CR) |= RCC_CR_HSI16ON;
    wait_set(RCC_CR, RCC_CR_HSI16RDY);
#endif
#if defined(STM32_L0) && STM32_SYSCLK_HZ == 32000000
    /* Range 1 (1.8 V) for 32 MHz; 1 flash wait state above 16 MHz. */
    REG(PWR_CR) = (REG(PWR_CR) & ~PWR_CR_VOS_MASK) | PWR_CR_VOS_RANGE1;
    while (REG(PWR_CSR) & PWR_CSR_VOSF)
        ;
    REG(FLASH_ACR) |= FLASH_ACR_LATENCY1 | FLASH_ACR_PRFTEN;
    wait_set(FLASH_ACR, FLASH_ACR_LATENCY1);
    /* HSI16 x 4 = 64 MHz VCO, / 2 = 32 MHz; AHB, APB1, APB2 undivided. */
    REG(RCC_CFGR) = RCC_CFGR_PLLMUL4 | RCC_CFGR_PLLDIV2;
    pll_select(RCC_CR_PLLON, RCC_CR_PLLRDY, RCC_CFGR_SW_PLL);
#elif defined(STM32_L0) && STM32_SYSCLK_HZ == 8000000
    REG(RCC_CFGR) = RCC_CFGR_HPRE_DIV2 | RCC_CFGR_SW_HSI16; /* 16 / 2, range 2, 0 WS */
    wait_sysclk(RCC_CFGR_SW_HSI16);
#elif defined(STM32_F1) && STM32_SYSCLK_HZ == 72000000
    REG(RCC_CR) |= RCC_CR_HSEBYP;
    REG(RCC_CR) |= RCC_CR_HSEON;
    for (uint32_t n = 0; !(REG(RCC_CR) & RCC_CR_HSERDY); n++) {
        if (n > 500000u) { /* no MCO from the ST-LINK (solder bridges): stay on HSI */
            REG(RCC_CR) &= ~(RCC_CR_HSEON | RCC_CR_HSEBYP);
            stm32_sysclk_hz = 8000000u;
            return;
        }
    }
    REG(FLASH_ACR) = FLASH_ACR_LATENCY2 | FLASH_ACR_PRFTBE;
    /* HSE 8 MHz x 9 = 72 MHz; APB1 / 2 = 36 MHz (its maximum), APB2 72 MHz. */
    REG(RCC_CFGR) = RCC_CFGR_PLLSRC_HSE | RCC_CFGR_PLLMUL9 | RCC_CFGR_PPRE1_DIV2;
    pll_select(RCC_CR_PLLON, RCC_CR_PLLRDY, RCC_CFGR_SW_PLL);
#elif defined(STM32_F1) && STM32_SYSCLK_HZ == 8000000
    /* 8 MHz: the HSI it resets to */
#elif defined(STM32_F4) && STM32_SYSCLK_HZ == 100000000
    REG(RCC_APB1ENR) |= RCC_APB1ENR_PWR;
    REG(PWR_CR) |= PWR_CR_VOS_SCALE1;
    REG(FLASH_ACR) = FLASH_ACR_LATENCY3 | FLASH_ACR_CACHES;
    wait_set(FLASH_ACR, FLASH_ACR_LATENCY3);
    /* HSI 16 MHz / 8 = 2 MHz, x 100 = 200 MHz VCO, / 2 = 100 MHz; APB1 / 2 = 50 MHz. */
    REG(RCC_PLLCFGR) =
        RCC_PLLCFGR_M(8) | RCC_PLLCFGR_N(100) | RCC_PLLCFGR_P2 | RCC_PLLCFGR_Q(4);
    REG(RCC_CFGR) = RCC_CFGR_PPRE1_DIV2;
    pll_select(RCC_CR_PLLON, RCC_CR_PLLRDY, RCC_CFGR_SW_PLL);
#elif defined(STM32_F4) && STM32_SYSCLK_HZ == 8000000
    REG(RCC_CFGR) = RCC_CFGR_HPRE_DIV2; /* HSI 16 MHz / 2, 0 wait states */
#elif defined(STM32_H7) && STM32_SYSCLK_HZ == 480000000
    /* Supply from the LDO (written once after reset), then VOS1 + overdrive = VOS0. */
    REG(PWR_CR3) = PWR_CR3_LDOEN;
    wait_set(PWR_CSR1, PWR_CSR1_ACTVOSRDY);
    REG(PWR_D3CR) = PWR_D3CR_VOS1;
    wait_set(PWR_D3CR, PWR_D3CR_VOSRDY);
    REG(RCC_APB4ENR) |= RCC_APB4ENR_SYSCFG;
    REG(SYSCFG_PWRCR) |= SYSCFG_PWRCR_ODEN;
    wait_set(PWR_D3CR, PWR_D3CR_VOSRDY);
    REG(FLASH_ACR) = FLASH_ACR_480;
    wait_set(FLASH_ACR, FLASH_ACR_480);
    /* HSI 64 MHz / 4 = 16 MHz, x 60 = 960 MHz VCO, P / 2 = 480 MHz; AXI/AHB / 2 = 240,
     * every APB / 2 = 120 MHz. */
    REG(RCC_PLLCKSELR) = RCC_PLLCKSELR_HSI_DIVM1(4);
    REG(RCC_PLLCFGR) = RCC_PLLCFGR_PLL1RGE_8_16 | RCC_PLLCFGR_DIVP1EN;
    REG(RCC_PLL1DIVR) = RCC_PLL1DIVR_N_P(60, 2) | (1u << 16) | (1u << 24);
    REG(RCC_D1CFGR) = RCC_D1CFGR_HPRE_DIV2 | RCC_D1CFGR_D1PPRE_DIV2;
    REG(RCC_D2CFGR) = RCC_D2CFGR_PPRE_DIV2;
    REG(RCC_D3CFGR) = RCC_D3CFGR_PPRE_DIV2;
    REG(RCC_CR) |= RCC_CR_PLL1ON;
    wait_set(RCC_CR, RCC_CR_PLL1RDY);
    REG(RCC_CFGR) = RCC_CFGR_SW_PLL1;
    wait_sysclk(RCC_CFGR_SW_PLL1);
    /* Code runs from flash through the AXI bus: the M7's instruction cache on. */
    REG(SCB_ICIALLU) = 0;
    __asm__ volatile("dsb\n isb" ::: "memory");
    REG(SCB_CCR) |= SCB_CCR_IC;
    __asm__ volatile("dsb\n isb" ::: "memory");
#elif defined(STM32_H7) && STM32_SYSCLK_HZ == 8000000
    REG(RCC_CR) = (REG(RCC_CR) & ~(3u << 3)) | RCC_CR_HSIDIV8; /* HSI / 8 = 8 MHz */
    wait_set(RCC_CR, RCC_CR_HSIDIVF);
    REG(FLASH_ACR) = 0; /* 0 wait states at 8 MHz */
#else
#error "sysclk_hz: 8000000 or the chip's maximum (L0 32 MHz, F1 72, F4 100, H7 480)"
#endif
}
#endif /* !STM32_CLOCK_RESET */
