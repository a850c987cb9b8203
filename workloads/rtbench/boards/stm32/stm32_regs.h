/*
 * The STM32 registers rtbench's board layer touches, written from ST's reference
 * manuals (no vendor header is installable here, and this little is all it needs):
 * RM0367 (STM32L0x3), RM0008 (STM32F10x), RM0383 (STM32F411), RM0090 (STM32F405, QEMU's
 * netduinoplus2), RM0433 (STM32H743). One chip family per build: STM32_L0, STM32_F1,
 * STM32_F4 or STM32_H7 (from the description's `chip`).
 */
#ifndef STM32_REGS_H
#define STM32_REGS_H

#include <stdint.h>

#define REG(a) (*(volatile uint32_t *)(a))

/* Cortex-M core: DWT cycle counter (ARMv7-M only: the M0+ has none), SCB caches (M7). */
#define DEMCR 0xE000EDFCu
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL 0xE0001000u
#define DWT_CTRL_CYCCNTENA (1u << 0)
#define DWT_CYCCNT 0xE0001004u
#define DWT_LAR 0xE0001FB0u /* Cortex-M7: writes to DWT need the key first */
#define DWT_LAR_KEY 0xC5ACCE55u
#define SCB_CCR 0xE000ED14u
#define SCB_CCR_IC (1u << 17)
#define SCB_ICIALLU 0xE000EF50u

/* General-purpose timer (TIM2): the counter where there is no DWT. */
#define TIM_CR1(t) ((t) + 0x00u)
#define TIM_CR1_CEN (1u << 0)
#define TIM_EGR(t) ((t) + 0x14u)
#define TIM_EGR_UG (1u << 0)
#define TIM_CNT(t) ((t) + 0x24u)
#define TIM_PSC(t) ((t) + 0x28u)
#define TIM_ARR(t) ((t) + 0x2Cu)
#define TIM2_BASE 0x40000000u /* every family here */

/* GPIO ports A..K, 0x400 apart; MODER/AFR layout on L0, F4, H7 (F1: CRL/CRH). */
#if defined(STM32_L0)
#define GPIO_BASE(port) (0x50000000u + 0x400u * (uint32_t)(port)) /* IOPORT */
#elif defined(STM32_F1)
#define GPIO_BASE(port) (0x40010800u + 0x400u * (uint32_t)(port)) /* APB2 */
#elif defined(STM32_F4)
#define GPIO_BASE(port) (0x40020000u + 0x400u * (uint32_t)(port)) /* AHB1 */
#elif defined(STM32_H7)
#define GPIO_BASE(port) (0x58020000u + 0x400u * (uint32_t)(port)) /* AHB4 */
#else
#error "define one of STM32_L0, STM32_F1, STM32_F4, STM32_H7 (the description's chip)"
#endif
#if defined(STM32_F1)
#define GPIO_CRL(g) ((g) + 0x00u) /* 4 bits a pin: CNF[1:0] MODE[1:0], pins 0..7 */
#define GPIO_CRH(g) ((g) + 0x04u) /* pins 8..15 */
#define GPIO_BSRR(g) ((g) + 0x10u)
#else
#define GPIO_MODER(g) ((g) + 0x00u) /* 2 bits a pin: 01 output, 10 alternate function */
#define GPIO_OSPEEDR(g) ((g) + 0x08u)
#define GPIO_BSRR(g) ((g) + 0x18u) /* low half sets, high half resets: one store */
#define GPIO_AFR(g, pin) ((g) + 0x20u + 4u * ((uint32_t)(pin) / 8u))
#endif

/* USART: F1/F4 have SR/DR; L0/H7 the newer ISR/TDR layout. */
#if defined(STM32_F1) || defined(STM32_F4)
#define USART_SR(u) ((u) + 0x00u)
#define USART_TXE (1u << 7)
#define USART_DR(u) ((u) + 0x04u)
#define USART_BRR(u) ((u) + 0x08u)
#define USART_CR1(u) ((u) + 0x0Cu)
#define USART_CR1_ENABLE ((1u << 13) | (1u << 3)) /* UE, TE */
#define USART_TX_STATUS(u) USART_SR(u)
#define USART_TX_DATA(u) USART_DR(u)
#else
#define USART_CR1(u) ((u) + 0x00u)
#define USART_CR1_UE (1u << 0)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_ENABLE (USART_CR1_UE | USART_CR1_TE)
#define USART_BRR(u) ((u) + 0x0Cu)
#define USART_ISR(u) ((u) + 0x1Cu)
#define USART_TXE (1u << 7) /* TXE (L0), TXFNF (H7, FIFO off: the same bit) */
#define USART_TDR(u) ((u) + 0x28u)
#define USART_TX_STATUS(u) USART_ISR(u)
#define USART_TX_DATA(u) USART_TDR(u)
#endif

/* RCC, FLASH, PWR: per family (only the bits the clock trees use). */
#if defined(STM32_L0) /* RM0367 */
#define RCC 0x40021000u
#define RCC_CR (RCC + 0x00u)
#define RCC_CR_HSI16ON (1u << 0)
#define RCC_CR_HSI16RDY (1u << 2)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_CFGR (RCC + 0x0Cu)
#define RCC_CFGR_SW_HSI16 1u
#define RCC_CFGR_SW_PLL 3u
#define RCC_CFGR_SWS(v) (((v) >> 2) & 3u)
#define RCC_CFGR_HPRE_DIV2 (8u << 4)
#define RCC_CFGR_PLLMUL4 (1u << 18)
#define RCC_CFGR_PLLDIV2 (1u << 22)
#define RCC_IOPENR (RCC + 0x2Cu)
#define RCC_APB1ENR (RCC + 0x38u)
#define RCC_APB1ENR_TIM2 (1u << 0)
#define RCC_APB1ENR_USART2 (1u << 17)
#define RCC_APB1ENR_PWR (1u << 28)
#define PWR_CR 0x40007000u
#define PWR_CR_VOS_MASK (3u << 11)
#define PWR_CR_VOS_RANGE1 (1u << 11) /* 1.8 V: up to 32 MHz */
#define PWR_CSR 0x40007004u
#define PWR_CSR_VOSF (1u << 4)
#define FLASH_ACR 0x40022000u
#define FLASH_ACR_LATENCY1 (1u << 0)
#define FLASH_ACR_PRFTEN (1u << 1)
#elif defined(STM32_F1) /* RM0008 */
#define RCC 0x40021000u
#define RCC_CR (RCC + 0x00u)
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_CR_HSEBYP (1u << 18) /* the ST-LINK's 8 MHz MCO drives OSC_IN */
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_CFGR (RCC + 0x04u)
#define RCC_CFGR_SW_PLL 2u
#define RCC_CFGR_SWS(v) (((v) >> 2) & 3u)
#define RCC_CFGR_PPRE1_DIV2 (4u << 8) /* APB1 at most 36 MHz */
#define RCC_CFGR_PLLSRC_HSE (1u << 16)
#define RCC_CFGR_PLLMUL9 (7u << 18)
#define RCC_APB2ENR (RCC + 0x18u)
#define RCC_APB1ENR (RCC + 0x1Cu)
#define RCC_APB1ENR_TIM2 (1u << 0)
#define RCC_APB1ENR_USART2 (1u << 17)
#define FLASH_ACR 0x40022000u
#define FLASH_ACR_LATENCY2 2u /* 48 < SYSCLK <= 72 MHz */
#define FLASH_ACR_PRFTBE (1u << 4)
#elif defined(STM32_F4) /* RM0383 (F411), RM0090 (F405) */
#define RCC 0x40023800u
#define RCC_CR (RCC + 0x00u)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_PLLCFGR (RCC + 0x04u)
#define RCC_PLLCFGR_M(m) ((uint32_t)(m) << 0)
#define RCC_PLLCFGR_N(n) ((uint32_t)(n) << 6)
#define RCC_PLLCFGR_P2 (0u << 16)
#define RCC_PLLCFGR_Q(q) ((uint32_t)(q) << 24)
#define RCC_CFGR (RCC + 0x08u)
#define RCC_CFGR_SW_PLL 2u
#define RCC_CFGR_SWS(v) (((v) >> 2) & 3u)
#define RCC_CFGR_HPRE_DIV2 (8u << 4)
#define RCC_CFGR_PPRE1_DIV2 (4u << 10) /* APB1 at most 50 MHz (F411) */
#define RCC_AHB1ENR (RCC + 0x30u)
#define RCC_APB1ENR (RCC + 0x40u)
#define RCC_APB1ENR_TIM2 (1u << 0)
#define RCC_APB1ENR_USART2 (1u << 17)
#define RCC_APB1ENR_PWR (1u << 28)
#define PWR_CR 0x40007000u
#define PWR_CR_VOS_SCALE1 (3u << 14) /* F411: up to 100 MHz */
#define FLASH_ACR 0x40023C00u
#define FLASH_ACR_LATENCY3 3u /* 90 < HCLK <= 100 MHz at 2.7-3.6 V */
#define FLASH_ACR_CACHES ((1u << 8) | (1u << 9) | (1u << 10)) /* PRFTEN, ICEN, DCEN */
#define FLASH_ACR_ICEN (1u << 9)
#define FLASH_ACR_DCEN (1u << 10)
#define FLASH_ACR_ICRST (1u << 11) /* ART resets: only while its cache is off (RM0383 3.4) */
#define FLASH_ACR_DCRST (1u << 12)
#elif defined(STM32_H7) /* RM0433 */
#define RCC 0x58024400u
#define RCC_CR (RCC + 0x00u)
#define RCC_CR_HSIDIV8 (3u << 3) /* HSI 64 MHz / 8 */
#define RCC_CR_HSIDIVF (1u << 5)
#define RCC_CR_PLL1ON (1u << 24)
#define RCC_CR_PLL1RDY (1u << 25)
#define RCC_CFGR (RCC + 0x10u)
#define RCC_CFGR_SW_PLL1 3u
#define RCC_CFGR_SWS(v) (((v) >> 3) & 7u)
#define RCC_D1CFGR (RCC + 0x18u)
#define RCC_D1CFGR_HPRE_DIV2 (8u << 0) /* AXI/AHB at most 240 MHz */
#define RCC_D1CFGR_D1PPRE_DIV2 (4u << 4)
#define RCC_D2CFGR (RCC + 0x1Cu)
#define RCC_D2CFGR_PPRE_DIV2 ((4u << 4) | (4u << 8)) /* APB1, APB2 at most 120 MHz */
#define RCC_D3CFGR (RCC + 0x20u)
#define RCC_D3CFGR_PPRE_DIV2 (4u << 4)
#define RCC_PLLCKSELR (RCC + 0x28u)
#define RCC_PLLCKSELR_HSI_DIVM1(m) ((uint32_t)(m) << 4) /* PLLSRC = 00: HSI */
#define RCC_PLLCFGR (RCC + 0x2Cu)
#define RCC_PLLCFGR_PLL1RGE_8_16 (3u << 2)
#define RCC_PLLCFGR_DIVP1EN (1u << 16)
#define RCC_PLL1DIVR (RCC + 0x30u)
#define RCC_PLL1DIVR_N_P(n, p) (((uint32_t)(n) - 1u) | (((uint32_t)(p) - 1u) << 9))
#define RCC_AHB4ENR (RCC + 0xE0u)
#define RCC_APB1LENR (RCC + 0xE8u)
#define RCC_APB1LENR_TIM2 (1u << 0)
#define RCC_APB1LENR_USART3 (1u << 18)
#define RCC_APB4ENR (RCC + 0xF4u)
#define RCC_APB4ENR_SYSCFG (1u << 1)
#define PWR 0x58024800u
#define PWR_CSR1 (PWR + 0x04u)
#define PWR_CSR1_ACTVOSRDY (1u << 13)
#define PWR_CR3 (PWR + 0x0Cu)
#define PWR_CR3_LDOEN (1u << 1) /* the Nucleo's supply: the internal LDO */
#define PWR_D3CR (PWR + 0x18u)
#define PWR_D3CR_VOS1 (3u << 14)
#define PWR_D3CR_VOSRDY (1u << 13)
#define SYSCFG_PWRCR 0x5800042Cu
#define SYSCFG_PWRCR_ODEN (1u << 0) /* with VOS1: VOS0, needed for 480 MHz (rev V) */
#define FLASH_ACR 0x52002000u
#define FLASH_ACR_480 ((2u << 4) | 4u) /* WRHIGHFREQ 2, 4 wait states: AXI 240 MHz, VOS0 */
#endif

#endif
