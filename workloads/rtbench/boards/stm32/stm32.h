/*
 * The STM32 board layer's chip half (stm32.c, stm32_clock.c): it provides the mps2
 * layer's chip interface (mps2.h: UART, counter, exit) so that layer's Cortex-M code
 * (cortexm.c, startup.c, board_lines.c, board_<rtos>.c; the start-up is the core's
 * src/board/rtb_main.c) runs unchanged on
 * a Nucleo, plus the clock tree and the marker pin. The board's facts are BOARD_* and
 * STM32_* macros from its description, machines/<board>.toml (CMakeLists.txt).
 */
#ifndef STM32_H
#define STM32_H

#include <stddef.h>
#include <stdint.h>

#include "mps2.h"
#include "stm32_regs.h"

#if !defined(STM32_SYSCLK_HZ) || !defined(STM32_MARKER_PORT) || !defined(STM32_UART_TX_PORT)
#error "build through boards/stm32/CMakeLists.txt: it defines STM32_* from machines/<b>.toml"
#endif

extern uint32_t stm32_sysclk_hz; /* what the clock tree reached (F1 without HSE: 8 MHz) */
void stm32_clock_init(void);      /* stm32_clock.c; not on the "reset" tree (QEMU) */
void stm32_marker_init(void);
void stm32_marker(int on); /* the marker pin, one BSRR store */

#endif
