/*
 * The Pico's software-interrupt lines and its external interrupt, under every RTOS (the
 * rest of the board: board_rp2040.c; what each kernel asks of the application:
 * ports/<rtos>/boards/rp2040.c).
 *
 * Software interrupts: user IRQs (26..31) claimed from the SDK on first use, each one's
 * handler calling the core's rtb_swi_dispatch; the NVIC is per core, so under SMP a line
 * is enabled on its core by a short thread pinned there, and pended from that core.
 * Slot SWI_SLOTS is the external interrupt (rtbench --irq-ext): IO_IRQ_BANK0 on both
 * edges of GP6, the input wired to marker 3's pin.
 */
#include "hardware/gpio.h"
#include "hardware/irq.h"
#include "hardware/structs/sio.h"
#include "hardware/sync.h"
#include "pico/platform.h"

#include "board_rp2040.h"
#include "rtbench_port.h"

#define SWI_SLOTS 6

/* --- software interrupts ------------------------------------------------------------ */
static void swi0(void) { rtb_swi_dispatch(0); }
static void swi1(void) { rtb_swi_dispatch(1); }
static void swi2(void) { rtb_swi_dispatch(2); }
static void swi3(void) { rtb_swi_dispatch(3); }
static void swi4(void) { rtb_swi_dispatch(4); }
static void swi5(void) { rtb_swi_dispatch(5); }
static irq_handler_t const swi_handlers[SWI_SLOTS] = {swi0, swi1, swi2, swi3, swi4, swi5};
static int swi_core[SWI_SLOTS];
static int swi_irq[SWI_SLOTS]; /* 0: not claimed yet */

/* Runs irq_set_enabled on `core`'s own NVIC: from a short thread pinned there (the
 * RTOS interface's threads), unless the caller is on that core or there is one. The
 * job's argument is irq << 1 | on. */
static void nvic_job(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    irq_set_enabled((uint)(v >> 1), (v & 1u) != 0);
}

static void nvic_on_core(int irq, bool on, int core)
{
    if (rtb_core_count() == 1 || (int)get_core_num() == core) {
        irq_set_enabled((uint)irq, on);
        return;
    }
    void *job = (void *)(uintptr_t)((unsigned)irq << 1 | (on ? 1u : 0u));
    rtb_thread *t = rtb_thread_create("nvic", nvic_job, job, RTB_PRIO_LEVELS, core);
    if (t)
        rtb_thread_join(t);
}

int rtb_board_swi_slots(void) { return SWI_SLOTS; }

/* --- the external interrupt: a GPIO edge on GP6 ------------------------------------- */
#define EXT_SLOT SWI_SLOTS
#define EXT_EDGES (GPIO_IRQ_EDGE_RISE | GPIO_IRQ_EDGE_FALL)

/* The handler first (its timestamp is the latency's end), then the edge acknowledged:
 * the line drops before the exception returns, so it is not taken twice. */
static void ext_isr(void)
{
    rtb_swi_dispatch(EXT_SLOT);
    gpio_acknowledge_irq(RTB_PICO_EXT_IN_PIN, EXT_EDGES);
}

int rtb_board_extirq_slot(void) { return EXT_SLOT; }

static void ext_enable(int core, bool on)
{
    static bool installed;
    if (!installed) {
        irq_set_exclusive_handler(IO_IRQ_BANK0, ext_isr);
        installed = true;
    }
    gpio_acknowledge_irq(RTB_PICO_EXT_IN_PIN, EXT_EDGES); /* stale edges */
    gpio_set_irq_enabled(RTB_PICO_EXT_IN_PIN, EXT_EDGES, on);
    irq_set_priority(IO_IRQ_BANK0, PICO_DEFAULT_IRQ_PRIORITY);
    nvic_on_core(IO_IRQ_BANK0, on, core);
}

static int ext_core;

void rtb_board_swi_enable(int slot, int core)
{
    if (slot == EXT_SLOT) {
        ext_core = core;
        ext_enable(core, true);
        return;
    }
    if (!swi_irq[slot]) { /* the vector table is shared by both cores: once */
        int irq = user_irq_claim_unused(false);
        if (irq < 0)
            return; /* the scenario then sees no handler run: isr_lost */
        irq_set_exclusive_handler((uint)irq, swi_handlers[slot]);
        swi_irq[slot] = irq;
    }
    int irq = swi_irq[slot];
    irq_set_priority((uint)irq, PICO_DEFAULT_IRQ_PRIORITY);
    swi_core[slot] = core;
    nvic_on_core(irq, true, core);
}

void rtb_board_swi_disable(int slot)
{
    if (slot == EXT_SLOT) {
        ext_enable(ext_core, false);
        return;
    }
    if (swi_irq[slot])
        nvic_on_core(swi_irq[slot], false, swi_core[slot]);
}

/* Pends on the calling core's NVIC: the scenarios trigger from a task on `core`. */
/* The external slot: toggles marker 3's pin, which the bench wires to GP6. */
void rtb_board_swi_pend(int slot)
{
    if (slot == EXT_SLOT)
        sio_hw->gpio_togl = 1u << (RTB_PICO_MARKER_PIN0 + 3);
    else
        irq_set_pending((uint)swi_irq[slot]);
}
