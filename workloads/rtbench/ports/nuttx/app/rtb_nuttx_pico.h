/* rtbench on NuttX SMP, Raspberry Pi Pico: the board's counter (rtb_nuttx_pico.c). */
#ifndef RTB_NUTTX_PICO_H
#define RTB_NUTTX_PICO_H

/* Hands the RP2040 TIMER to the POSIX port as its clock. Before rtb_port_init. */
void rtb_nuttx_pico_init(void);
/* After rtb_port_init: the warnings every run repeats. */
void rtb_nuttx_pico_note_warnings(void);

#endif
