/* The Pico's pins, shared by its rtb_board_* hooks (board_rp2040.c; the interface is
 * include/rtb_board.h) and the software-interrupt lines (board_rp2040_lines.c). */
#ifndef RTB_BOARD_RP2040_H
#define RTB_BOARD_RP2040_H

#include "rtb_board.h"

/* The external interrupt's input (rtbench --irq-ext): GP6, wired to marker channel 3's
 * pin (GP5) on the bench (docs/instrument-pair.md). */
#define RTB_PICO_EXT_IN_PIN 6
#define RTB_PICO_MARKER_PIN0 2

#endif
