/*
 * rtbench's NuttX board for the QEMU mps2 family (an385, an386, an500): one board for
 * every machine, so NuttX is compared with FreeRTOS on the very same machine.
 */
#ifndef RTBENCH_MPS2_BOARD_H
#define RTBENCH_MPS2_BOARD_H

/* QEMU's SysTick runs from a 25 MHz reference on every mps2 machine (CLKSOURCE=1).
 * NuttX's own mps2-an500 board says 32 MHz: its "1 ms" tick lasts 1.28 ms in QEMU. */
#define MPS_SYSTICK_CLOCK (25 * 1000 * 1000)

#endif
