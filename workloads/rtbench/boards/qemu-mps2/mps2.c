/* The mps2 family's own devices: CMSDK UART0 and TIMER0 (the rest: cortexm.c). */
#include "mps2.h"

#define UART0 BOARD_UART_BASE
#define TIMER0 BOARD_COUNTER_BASE
#define REG(a) (*(volatile uint32_t *)(a))

void mps2_uart_init(void)
{
    REG(UART0 + 0x10) = 16; /* BAUDDIV: QEMU ignores the rate but wants a legal value */
    REG(UART0 + 0x08) = 1;  /* CTRL: TX enable */
}

void mps2_uart_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (REG(UART0 + 0x04) & 1u) /* STATE.TXFULL */
            ;
        REG(UART0) = (uint8_t)s[i];
    }
}

void mps2_timer_init(void)
{
    REG(TIMER0 + 0x00) = 0; /* stop, no interrupt */
    REG(TIMER0 + 0x08) = 0xFFFFFFFFu;
    REG(TIMER0 + 0x04) = 0xFFFFFFFFu;
    REG(TIMER0 + 0x00) = 1; /* enable */
}
