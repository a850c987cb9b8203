/*
 * An STM32's devices for the mps2 layer's chip interface (mps2.h): the UART the Nucleo's
 * ST-LINK carries to the host (USART2; USART3 on the Nucleo-144 H743ZI), the counter
 * (DWT CYCCNT at the core clock; TIM2 where the core has no DWT cycle counter, the M0+
 * of the L073, or where QEMU models none, netduinoplus2) and the marker pin. On silicon
 * no debugger answers semihosting: the exit prints `rtbench: done errors=N` (the serial
 * target's end of output) and the options are the ones built in (STM32_ARGS).
 */
#include "stm32.h"

#if defined(STM32_L0)
#define GPIO_RCC_EN RCC_IOPENR
#define GPIO_RCC_BIT(port) (1u << (port))
#elif defined(STM32_F1)
#define GPIO_RCC_EN RCC_APB2ENR
#define GPIO_RCC_BIT(port) (1u << (2 + (port))) /* IOPAEN is bit 2 */
#elif defined(STM32_F4)
#define GPIO_RCC_EN RCC_AHB1ENR
#define GPIO_RCC_BIT(port) (1u << (port))
#else
#define GPIO_RCC_EN RCC_AHB4ENR
#define GPIO_RCC_BIT(port) (1u << (port))
#endif
#if defined(STM32_H7)
#define UART_RCC_EN RCC_APB1LENR
#define UART_RCC_BIT RCC_APB1LENR_USART3
#define TIM2_RCC_BIT RCC_APB1LENR_TIM2
#else
#define UART_RCC_EN RCC_APB1ENR
#define UART_RCC_BIT RCC_APB1ENR_USART2
#define TIM2_RCC_BIT RCC_APB1ENR_TIM2
#endif
#define UART BOARD_UART_BASE

/* The clock the UART's bus runs at, for its baud-rate divider (stm32_clock.c's trees). */
static uint32_t uart_pclk(void)
{
    uint32_t f = stm32_sysclk_hz;
#if defined(STM32_F1)
    return f > 36000000u ? f / 2u : f;
#elif defined(STM32_F4)
    return f > 50000000u ? f / 2u : f;
#elif defined(STM32_H7)
    return f > 120000000u ? f / 4u : f;
#else
    return f;
#endif
}

/* A pin as output (af < 0) or alternate function af, fast edges. */
static void pin_mode(uint32_t port, uint32_t pin, int af)
{
    uint32_t g = GPIO_BASE(port);
    REG(GPIO_RCC_EN) |= GPIO_RCC_BIT(port);
    (void)REG(GPIO_RCC_EN); /* the clock is on before the port is written */
#if defined(STM32_F1)
    uint32_t cr = pin < 8u ? GPIO_CRL(g) : GPIO_CRH(g);
    uint32_t shift = 4u * (pin % 8u);
    uint32_t cfg = af < 0 ? 0x3u : 0xBu; /* push-pull 50 MHz: output, alternate */
    REG(cr) = (REG(cr) & ~(0xFu << shift)) | (cfg << shift);
#else
    REG(GPIO_OSPEEDR(g)) |= 3u << (2u * pin);
    if (af >= 0) {
        uint32_t shift = 4u * (pin % 8u);
        REG(GPIO_AFR(g, pin)) = (REG(GPIO_AFR(g, pin)) & ~(0xFu << shift)) | ((uint32_t)af << shift);
    }
    uint32_t mode = af < 0 ? 1u : 2u;
    REG(GPIO_MODER(g)) = (REG(GPIO_MODER(g)) & ~(3u << (2u * pin))) | (mode << (2u * pin));
#endif
}

void mps2_uart_init(void)
{
    /* The first call of every image: the baud-rate divider needs the final clock. */
#if !defined(STM32_CLOCK_RESET)
    stm32_clock_init();
#endif
    REG(UART_RCC_EN) |= UART_RCC_BIT;
    (void)REG(UART_RCC_EN);
    pin_mode(STM32_UART_TX_PORT, STM32_UART_TX_PIN, STM32_UART_AF);
    REG(USART_BRR(UART)) = (uart_pclk() + STM32_BAUD / 2u) / STM32_BAUD;
    REG(USART_CR1(UART)) = USART_CR1_ENABLE;
    stm32_marker_init();
}

void mps2_uart_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (!(REG(USART_TX_STATUS(UART)) & USART_TXE))
            ;
        REG(USART_TX_DATA(UART)) = (uint8_t)s[i];
    }
}

void mps2_timer_init(void)
{
#if defined(STM32_COUNTER_DWT)
    REG(DEMCR) |= DEMCR_TRCENA;
#if defined(STM32_H7)
    REG(DWT_LAR) = DWT_LAR_KEY; /* the M7's DWT ignores writes until unlocked */
#endif
    REG(DWT_CYCCNT) = 0;
    REG(DWT_CTRL) |= DWT_CTRL_CYCCNTENA;
#else
    REG(UART_RCC_EN) |= TIM2_RCC_BIT; /* TIM2 sits on APB1 beside the UART everywhere */
    (void)REG(UART_RCC_EN);
    REG(TIM_CR1(TIM2_BASE)) = 0;
    REG(TIM_PSC(TIM2_BASE)) = 0;
    REG(TIM_ARR(TIM2_BASE)) = 0xFFFFFFFFu; /* a 16-bit TIM2 (L0) keeps the low half */
    REG(TIM_EGR(TIM2_BASE)) = TIM_EGR_UG;  /* loads the prescaler */
    REG(TIM_CR1(TIM2_BASE)) = TIM_CR1_CEN;
#endif
}

void stm32_marker_init(void)
{
    pin_mode(STM32_MARKER_PORT, STM32_MARKER_PIN, -1);
    stm32_marker(0);
}

void stm32_marker(int on)
{
    REG(GPIO_BSRR(GPIO_BASE(STM32_MARKER_PORT))) =
        on ? 1u << STM32_MARKER_PIN : 1u << (16 + STM32_MARKER_PIN);
}

#if defined(BOARD_NO_SEMIHOSTING)
/* A probe passes no command line: the options built into the image. */
const char *mps2_cmdline(void) { return STM32_ARGS; }
#endif
