/* QEMU microbit's own devices (nRF51822): UART0 for the protocol, TIMER0 as a free-running
 * 32-bit counter at 16 MHz read by capture (mps2_ts in mps2.h); the rest: cortexm.c. */
#include "mps2.h"

#define UART0 BOARD_UART_BASE
#define TIMER0 BOARD_COUNTER_BASE
#define REG(a) (*(volatile uint32_t *)(a))

void mps2_uart_init(void)
{
    REG(UART0 + 0x500) = 4; /* ENABLE */
    REG(UART0 + 0x008) = 1; /* TASKS_STARTTX */
}

void mps2_uart_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        REG(UART0 + 0x51C) = (uint8_t)s[i]; /* TXD */
        while (!REG(UART0 + 0x11C))         /* EVENTS_TXDRDY */
            ;
        REG(UART0 + 0x11C) = 0;
    }
}

void mps2_timer_init(void)
{
    REG(TIMER0 + 0x004) = 1; /* TASKS_STOP */
    REG(TIMER0 + 0x00C) = 1; /* TASKS_CLEAR */
    REG(TIMER0 + 0x504) = 0; /* MODE: timer */
    REG(TIMER0 + 0x508) = 3; /* BITMODE: 32 bits */
    REG(TIMER0 + 0x510) = 0; /* PRESCALER: 16 MHz */
    REG(TIMER0 + 0x000) = 1; /* TASKS_START */
}
