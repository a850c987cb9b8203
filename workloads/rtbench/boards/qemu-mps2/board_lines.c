/*
 * The Cortex-M glue of every board layer built on the mps2 layer (mps2, STM32, RP2350),
 * whatever the RTOS: rtb_board_init over the layer's rtb_mps2_board_init, the
 * software-interrupt lines (the description's swi_first_irq and the 3 after it) and
 * their vectors, the kernel tick's clock.
 * Zephyr owns the vector table and connects the same lines itself (ports/zephyr/boards/).
 */
#include "board_hooks.h"

#include "mps2.h"

void rtb_board_init(void) { rtb_mps2_board_init(RTB_MPS2_SWI_PRIORITY); }

int rtb_board_swi_slots(void) { return MPS2_SWI_SLOTS; }
#if BOARD_CORES > 1
static int swi_core[MPS2_SWI_SLOTS];
static void line_on(int irq) { mps2_nvic_enable(irq); }
static void line_off(int irq) { mps2_nvic_disable(irq); }
void rtb_board_swi_enable(int slot, int core)
{
    swi_core[slot] = core;
    rtb_mps2_run_on_core(core, line_on, MPS2_SWI_FIRST_IRQ + slot);
}
void rtb_board_swi_disable(int slot)
{
    rtb_mps2_run_on_core(swi_core[slot], line_off, MPS2_SWI_FIRST_IRQ + slot);
}
#else
void rtb_board_swi_enable(int slot, int core)
{
    (void)core; /* one core */
    mps2_nvic_enable(MPS2_SWI_FIRST_IRQ + slot);
}
void rtb_board_swi_disable(int slot) { mps2_nvic_disable(MPS2_SWI_FIRST_IRQ + slot); }
#endif
/* The lines' vectors (startup.c: SWI0..3, the description's swi_first_irq and the 3
 * after it). */
void SWI0_Handler(void) { rtb_swi_dispatch(0); }
void SWI1_Handler(void) { rtb_swi_dispatch(1); }
void SWI2_Handler(void) { rtb_swi_dispatch(2); }
void SWI3_Handler(void) { rtb_swi_dispatch(3); }
#if defined(BOARD_EXT_WIRE) /* the wired external interrupt's line (ext_wire.c) */
int rtb_board_extirq_slot(void) { return MPS2_EXT_SLOT; }
void EXT_Handler(void);
void EXT_Handler(void) { rtb_swi_dispatch(MPS2_EXT_SLOT); }
#endif

/* Pends on the calling core's NVIC: the scenarios trigger from a task on the line's core. */
void rtb_board_swi_pend(int slot) { mps2_nvic_pend(MPS2_SWI_FIRST_IRQ + slot); }
/* The options and the end of the program are the chip's mps2_cmdline and mps2_exit
 * themselves (cortexm.c: rtb_board_cmdline and rtb_board_exit are their aliases), but
 * for options compiled into a silicon image (stm32.c, rp2350_args.c). */
#if defined(BOARD_NO_SEMIHOSTING)
const char *rtb_board_cmdline(void) { return mps2_cmdline(); }
#endif
uint32_t rtb_board_tick_hz(void) { return BOARD_SYSTICK_HZ; }
