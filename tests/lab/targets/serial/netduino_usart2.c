/* A test image for the serial target's netduinoplus2 wiring (tests/lab/targets/serial):
 * STM32F405 on QEMU netduinoplus2, the protocol on USART2, then a semihosting exit. */
#include <stdint.h>
#define USART2_SR (*(volatile uint32_t *)0x40004400u)
#define USART2_DR (*(volatile uint32_t *)0x40004404u)
#define USART2_CR1 (*(volatile uint32_t *)0x4000440Cu)
static const char text[] = "@rtl1 hello workload=usart2 version=1\n"
                           "@rtl1 meta board=netduinoplus2\n"
                           "@rtl1 c bytes 2 unit=count\n"
                           "@rtl1 end records=3 status=ok\n";
static void put(char c)
{
    while (!(USART2_SR & (1u << 7))) /* TXE */
        ;
    USART2_DR = (uint8_t)c;
}
void reset(void)
{
    USART2_CR1 = (1u << 13) | (1u << 3); /* UE, TE */
    for (const char *p = text; *p; p++)
        put(*p);
    register uint32_t op __asm__("r0") = 0x18; /* SYS_EXIT */
    register uint32_t arg __asm__("r1") = 0x20026; /* ApplicationExit */
    __asm__ volatile("bkpt 0xab" : : "r"(op), "r"(arg) : "memory");
    for (;;)
        ;
}
__attribute__((section(".vectors"), used)) static const uintptr_t vectors[2] = {
    0x20010000u, (uintptr_t)reset};
