/*
 * The external interrupt of rtbench --irq-ext (K4perf's GPIO edge) on a QEMU machine
 * that models no GPIO interrupt (`ext_wire = 1` in its description: mps2-an505). On
 * silicon the bench wires marker channel 3's pin to an input whose edge pends a GPIO
 * interrupt (the RP2040's GP5 to GP6, boards/rp2040); here the wire is the marker
 * store's own code: a store to marker channel 3's word is followed by a store pending
 * the line after the software interrupts (IRQ swi_first_irq + 4), whose vector
 * (board_lines.c) dispatches the board's external slot. What a real pin adds between
 * the edge and the NVIC (input synchronizer, edge detect) is that one store here.
 */
#include "mps2.h"

#define NVIC_ISPR 0xE000E200u
#define EXT_IRQ (MPS2_SWI_FIRST_IRQ + MPS2_EXT_SLOT)
#define WIRED_CHANNEL 3 /* rtb_mark.h's RTB_MARK_EXT: the channel the trigger toggles */

/* Both edges, as K4perf's handler and rtbench's pass (every toggle is a trigger). */
void mps2_ext_wire(int ch, int on)
{
    (void)on;
    if ((ch & 3) == WIRED_CHANNEL)
        *(volatile uint32_t *)(NVIC_ISPR + 4u * (EXT_IRQ / 32u)) = 1u << (EXT_IRQ % 32u);
}
