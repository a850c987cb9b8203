/* rtbench on NuttX in QEMU: the board's counter, options and the program's end (mps2:
 * rtb_nuttx_mps2.c, CMSDK TIMER0; virt-a53: rtb_nuttx_a53.c, the generic timer). */
#ifndef RTB_NUTTX_BOARD_H
#define RTB_NUTTX_BOARD_H

/* Starts the board's counter and hands it to the POSIX port as its clock (NuttX's
 * clock_gettime has the tick's resolution). Before rtb_port_init. */
void rtb_nuttx_board_init(void);
/* After rtb_port_init: the warnings every run repeats (icount, the clock, the SWI). */
void rtb_nuttx_board_note_warnings(void);
/* The options, from the semihosting command line ("" when there is none). */
const char *rtb_nuttx_cmdline(void);
/* Flushes stdout, then semihosting exit: QEMU exits with status. */
void rtb_nuttx_exit(int status) __attribute__((noreturn));

#endif
