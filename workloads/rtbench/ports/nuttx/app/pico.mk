# rtbench on NuttX's raspberrypi-pico board (SMP, both cores) or raspberrypi-pico-2 (one
# core), included by the Makefile when the chip is the RP2040 or RP2350: the Pico's own
# main and counter (rtb_nuttx_pico.c: either chip's TIMER) instead of mps2's, and sizes
# for the RP2040's 264 KiB of SRAM (workers for 2 cores, 3 KiB stacks, 32 KiB of
# samples), kept on the Pico 2.
MAINSRC := rtbench_nuttx_pico.c
CSRCS   := $(filter-out rtb_nuttx_mps2.c %/mps2.c %/cortexm.c,$(CSRCS)) rtb_nuttx_pico.c
CFLAGS  := $(filter-out -I%/qemu-mps2 -DRTB_MAX_WORKERS=% -DRTB_POSIX_STACK_SIZE=% \
             -DBOARD_%,$(CFLAGS))
CFLAGS  += -DRTB_MAX_WORKERS=16 -DRTB_POSIX_STACK_SIZE=3072 -DRTB_SAMPLE_POOL=8192
