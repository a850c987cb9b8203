/* Clocks, UART0, pads and the 1 us timer: the little hardware setup the module needs. */
#ifndef HW_H
#define HW_H
#include <stdint.h>

#define SYS_CLK_HZ 125000000u
#define UART_BAUD 921600u
#define SYNC_GPIO 29u /* its input is forced low/high to start all state machines */

void hw_init(void);
uint64_t hw_time_us(void);
int uart_getc(void);             /* -1 when nothing received */
void pad_input(uint32_t gpio);   /* input enable + Schmitt, output disabled */
void gpio_inover(uint32_t gpio, uint32_t mode); /* 0 normal, 2 force low, 3 force high */
#endif
