/* rtbench on NuttX in QEMU mps2: the board's counter and the program's end. */
#ifndef RTB_NUTTX_MPS2_H
#define RTB_NUTTX_MPS2_H

/* Starts CMSDK TIMER0 (NuttX does not use it on these machines) and hands it to the
 * POSIX port as its clock. Before rtb_port_init. */
void rtb_nuttx_mps2_init(void);
/* After rtb_port_init: the warnings every run repeats (icount, the clock, the SWI). */
void rtb_nuttx_mps2_note_warnings(void);
/* Flushes stdout, then semihosting SYS_EXIT_EXTENDED: QEMU exits with status. */
void rtb_nuttx_exit(int status) __attribute__((noreturn));

#endif
