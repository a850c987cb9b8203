#include "capture.h"
#include "edge_ts.pio.h"
#include "hw.h"
#include "proto.h"
#include "rp2040_regs.h"

/* Word rings the DMA writes into. Up to 4 streams: one ring each from the whole pool,
 * re-armed by a control DMA channel (any size). 5-8 streams: 32 or 16 KB rings using the
 * DMA ring wrap (which needs size alignment, hence the 32 KB aligned pool). */
static uint32_t ring_pool[RING_POOL_WORDS] __attribute__((section(".ring"), aligned(32768)));
static uint32_t ring_base_addr[4]; /* what the control channels copy into WRITE_ADDR_TRIG */
static volatile uint32_t pass_sink;  /* where the pass counters write their word */

#define MARGIN 8u        /* words kept clear of the DMA write pointer */
#define MAX_BATCH 250u   /* records per EDGES frame at most (payload <= 255 bytes) */
#define MAX_FRAMES_PER_POLL 8u
#define MIN_BATCH 32u        /* records worth a frame of their own ... */
#define MAX_HOLD_US 1000u    /* ... or the age after which fewer are sent anyway */
#define STATUS_US 5000u /* a STATUS frame every 5 ms (live display, host-side stop) */

typedef struct {
    uint32_t pio, sm, dma;
    volatile uint32_t *ring;
    uint32_t ring_words;
    uint32_t slot;     /* ring position of record `consumed` */
    int chained;       /* ring re-armed by a control channel (else DMA ring wrap) */
    uint32_t laps, last_pos; /* chained mode: passes over the ring, and that mod 8192 */
    uint32_t consumed; /* index n of the next record to encode */
    uint32_t limit;    /* records at or past this index are not trusted (after a stall) */
    uint32_t safe_w;   /* written count seen while no stall was flagged */
    uint64_t dlast;    /* extended decrement count of the last record seen */
    uint32_t lost_from, lost_count; /* overflow not yet reported */
    uint32_t edges, lost;
    uint64_t pending_since; /* when the oldest unencoded record was first seen (us) */
} chan_t;

enum { ST_IDLE, ST_RUNNING, ST_DRAINING };
static chan_t ch[MAX_STREAMS]; /* one per state machine (record stream) */
static uint32_t nstreams, phases;
static capture_cfg_t cfg;
static int state = ST_IDLE;
static uint64_t start_us, next_status_us;
static uint32_t stall_mask;
static uint64_t end_k;
static uint32_t cpu_cycles, encode_cycles, max_fill_pct;

/* Records the DMA has written so far. Chained rings: at the end of each pass the data
 * channel triggers a counter channel (8+i) whose READ_ADDR steps 4 bytes through a 32 KB
 * read ring, then the control channel (4+i) re-arms the data channel. So READ_ADDR counts
 * passes modulo 8192, whatever the CPU was doing; it only has to look once per 8192
 * passes (>= 7.5 s at the full PIO rate). */
static uint32_t written(chan_t *c)
{
    if (!c->chained) {
        return 0xffffffffu - DMA_TRANS_COUNT(c->dma);
    }
    for (;;) {
        uint32_t tc = DMA_TRANS_COUNT(c->dma);
        uint32_t cnt = DMA_READ_ADDR(8u + (c->dma & 3u));
        uint32_t tc2 = DMA_TRANS_COUNT(c->dma);
        int idle = tc2 == 0 && !(DMA_AL1_CTRL(c->dma) & DMA_CTRL_BUSY);
        if (tc2 > tc || (idle && state == ST_RUNNING)) {
            continue; /* a pass ended between the reads, or it is being re-armed */
        }
        uint32_t passes = ((cnt - (uint32_t)(uintptr_t)ring_pool) >> 2) & 8191u;
        c->laps += (passes - c->last_pos) & 8191u; /* last_pos: pass count mod 8192 */
        c->last_pos = passes;
        /* idle after halt_machines: the pass just ended and the counter has counted it */
        return c->laps * c->ring_words + (idle ? 0u : c->ring_words - tc2);
    }
}

static void advance(chan_t *c, uint32_t count)
{
    c->consumed += count;
    c->slot += count;
    if (c->slot >= c->ring_words) {
        c->slot = c->slot < 2u * c->ring_words ? c->slot - c->ring_words
                                                 : c->slot % c->ring_words; /* rare */
    }
}

int capture_running(void) { return state != ST_IDLE; }

static void add_loss(chan_t *c, uint32_t from, uint32_t count)
{
    if (c->lost_count == 0) {
        c->lost_from = from;
    }
    c->lost_count += count; /* losses are contiguous: we never skip past a pending one */
    c->lost += count;
}

static int flush_loss(uint32_t i, chan_t *c)
{
    if (c->lost_count == 0) {
        return 0;
    }
    frame_t f;
    frame_begin(&f, F_OVERFLOW);
    frame_u8(&f, i);
    frame_varint32(&f, c->lost_from);
    frame_varint32(&f, c->lost_count);
    if (frame_send(&f) != 0) {
        return -1;
    }
    c->lost_count = 0;
    return 0;
}

/* Records before w + MARGIN - ring_words may already be overwritten by the DMA. */
static void check_overrun(chan_t *c, uint32_t w)
{
    uint32_t first_valid = w + MARGIN - c->ring_words;
    if (w + MARGIN > c->ring_words && (int32_t)(first_valid - c->consumed) > 0) {
        add_loss(c, c->consumed, first_valid - c->consumed);
        advance(c, first_valid - c->consumed);
    }
}

/* Encode up to one frame of records straight from the ring. Deltas stay 32-bit: for
 * consecutive records k' - k = (X - X') + 1 exactly (they are < 2^32 samples apart). */
static uint32_t encode_frame(uint32_t i, chan_t *c, uint32_t n, uint64_t dfloor, frame_t *f)
{
    const volatile uint32_t *src = &c->ring[c->slot];
    uint32_t first = src[0];
    uint64_t dl = c->dlast;
    if (dl < dfloor) {
        dl = dfloor; /* > 2^32 samples since the last record: re-anchor */
    }
    dl += (uint32_t)(~first - (uint32_t)dl);
    frame_begin(f, F_EDGES);
    frame_u8(f, i);
    frame_varint32(f, c->consumed);
    frame_varint(f, dl + c->consumed); /* absolute sample index of the first record */
    uint8_t *out = &f->buf[f->len];
    const uint8_t *limit = &f->buf[FRAME_MAX_PAYLOAD - 5u];
    uint32_t prev = first, j = 1;
    for (; j < n && out <= limit; j++) {
        uint32_t x = src[j];
        uint32_t delta = prev - x + 1u;
        prev = x;
        while (delta >= 0x80u) {
            *out++ = (uint8_t)(delta | 0x80u);
            delta >>= 7;
        }
        *out++ = (uint8_t)delta;
    }
    f->len = (uint8_t)(out - f->buf);
    c->dlast = dl + (uint32_t)(first - prev); /* extended decrements of the last record */
    return j;
}

/* Encode what the ring holds now, at most MAX_FRAMES_PER_POLL frames, then return so
 * that commands and USB are serviced even when edges arrive as fast as we encode. */
static void encode_channel(uint32_t i, chan_t *c, uint32_t w_safe, uint64_t dfloor)
{
    /* w_safe: records written before this poll saw PIO FDEBUG clear; nothing past it is
     * sent (a stall flagged later may already have hit them). w: the freshest count, for
     * the overrun checks. */
    uint32_t w = w_safe;
    for (uint32_t frames = 0; frames < MAX_FRAMES_PER_POLL; frames++) {
        check_overrun(c, w);
        if (flush_loss(i, c) != 0) {
            return;
        }
        uint32_t end = w_safe;
        if (c->limit != 0xffffffffu && (int32_t)(c->limit - end) < 0) {
            end = c->limit;
        }
        uint32_t avail = end - c->consumed;
        if ((int32_t)avail <= 0 || out_free() < FRAME_MAX_PAYLOAD + FRAME_OVERHEAD) {
            return;
        }
        uint32_t n = avail < MAX_BATCH ? avail : MAX_BATCH;
        if (n > c->ring_words - c->slot) {
            n = c->ring_words - c->slot; /* contiguous part; the rest next round */
        }
        uint32_t t0 = SYST_CVR;
        uint64_t dlast = c->dlast;
        frame_t f;
        uint32_t used = encode_frame(i, c, n, dfloor, &f);
        /* Re-check after reading: if the DMA may have overwritten any of them meanwhile,
         * drop the frame, report the overwritten part lost and go round again. */
        uint32_t w2 = written(c);
        if (w2 + MARGIN > c->ring_words &&
            (int32_t)(w2 + MARGIN - c->ring_words - c->consumed) > 0) {
            c->dlast = dlast;
            w = w2;
            continue;
        }
        frame_send(&f); /* room was checked above */
        c->edges += used;
        advance(c, used);
        encode_cycles += (t0 - SYST_CVR) & 0xffffffu;
        w = w2;
    }
}

static void pio_load(uint32_t pio)
{
    for (uint32_t i = 0; i < edge_ts_length; i++) {
        PIO_INSTR_MEM(pio, i) = edge_ts_program[i];
    }
}

static void selftest_start(void)
{
    uint32_t g = cfg.st_gpio, slice = (g >> 1) & 7u;
    uint32_t top = cfg.st_top, half = (top + 1u) / 2u;
    PWM_CSR(slice) = 0;
    PWM_DIV(slice) = (uint32_t)cfg.st_div << 4;
    PWM_TOP(slice) = top;
    PWM_CC(slice) = (g & 1u) ? (half << 16) : half;
    PWM_CTR(slice) = 0;
    PADS_GPIO(g) = PADS_IE; /* output enabled, input too (a loop-back is readable) */
    GPIO_CTRL(g) = FUNC_PWM;
    PWM_CSR(slice) = 1;
}

int capture_start(const capture_cfg_t *c_in)
{
    if (state != ST_IDLE) {
        return 1;
    }
    cfg = *c_in;
    phases = (cfg.flags & CFG_FINE) ? 2u : 1u;
    nstreams = cfg.nch * phases;
    if (cfg.nch < 1 || nstreams > MAX_STREAMS || cfg.base_pin < 2 ||
        cfg.base_pin + cfg.nch > SYNC_GPIO) {
        return 2;
    }
    if (cfg.st_gpio != 0xff &&
        (cfg.st_gpio < 2 || cfg.st_gpio >= SYNC_GPIO || cfg.st_div == 0 || cfg.st_top < 1 ||
         (cfg.st_gpio >= cfg.base_pin && cfg.st_gpio < cfg.base_pin + cfg.nch))) {
        return 3;
    }
    /* Fresh PIO and DMA state for every capture. */
    RESETS_RESET_SET = RST_PIO0 | RST_PIO1 | RST_DMA;
    RESETS_RESET_CLR = RST_PIO0 | RST_PIO1 | RST_DMA;
    while ((RESETS_DONE & (RST_PIO0 | RST_PIO1 | RST_DMA)) != (RST_PIO0 | RST_PIO1 | RST_DMA)) {
    }
    pio_load(PIO0_BASE);
    pio_load(PIO1_BASE);
    /* Restart every state machine and its clock divider (the emulator ignores RESETS). */
    PIO_CTRL(PIO0_BASE) = 0xff0u;
    PIO_CTRL(PIO1_BASE) = 0xff0u;
    PIO_FDEBUG(PIO0_BASE) = 0xffffffffu; /* sticky stall flags: write 1 to clear */
    PIO_FDEBUG(PIO1_BASE) = 0xffffffffu;
    pad_input(SYNC_GPIO);
    gpio_inover(SYNC_GPIO, 2); /* hold the start gate closed */
    if (cfg.st_gpio != 0xff) {
        selftest_start();
    }
    int chained = nstreams <= 4; /* control DMA channels 4..7 are free */
    /* Ring-wrap mode: 32 KB rings (the largest the DMA can wrap) while 7 fit in the pool,
     * 16 KB for 8. */
    uint32_t ring_bits = nstreams <= 7 ? 15u : 14u;
    uint32_t ring_words = chained ? (RING_POOL_WORDS / nstreams) & ~7u : (1u << ring_bits) / 4u;
    uint32_t en0 = 0, en1 = 0;
    for (uint32_t i = 0; i < nstreams; i++) {
        chan_t *c = &ch[i];
        uint32_t pin = cfg.base_pin + i / phases;
        uint32_t entry = (i % phases) ? edge_ts_length - 2u : 0u; /* odd phase: entry_odd */
        *c = (chan_t){0};
        c->pio = i < 4 ? PIO0_BASE : PIO1_BASE;
        c->sm = i & 3u;
        c->dma = i;
        c->ring = &ring_pool[i * ring_words];
        c->ring_words = ring_words;
        c->chained = chained;
        c->limit = 0xffffffffu;
        pad_input(pin);
        PIO_SM_CLKDIV(c->pio, c->sm) = 1u << 16;
        PIO_SM_EXECCTRL(c->pio, c->sm) = (pin << EXECCTRL_JMP_PIN_LSB) |
                                         (edge_ts_wrap << EXECCTRL_WRAP_TOP_LSB) |
                                         (edge_ts_wrap_target << EXECCTRL_WRAP_BOTTOM_LSB);
        PIO_SM_PINCTRL(c->pio, c->sm) = pin << PINCTRL_IN_BASE_LSB;
        PIO_SM_INSTR(c->pio, c->sm) = 0xa02bu; /* mov x, ~null: X = 0xffffffff */
        if (cfg.flags & CFG_TEST_X_WRAP) {
            /* X = 2^16: all times shift by a constant and X wraps 1 ms into the run,
             * which exercises the wrap paths of the program and of the encoder.
             * (Before FJOIN_RX: a joined state machine has no TX FIFO.) */
            PIO_SM_SHIFTCTRL(c->pio, c->sm) = 0;
            PIO_TXF(c->pio, c->sm) = 1u << 16;
            PIO_SM_INSTR(c->pio, c->sm) = 0x80a0u; /* pull block */
            PIO_SM_INSTR(c->pio, c->sm) = 0xa027u; /* mov x, osr */
        }
        PIO_SM_SHIFTCTRL(c->pio, c->sm) =
            SHIFTCTRL_FJOIN_RX | SHIFTCTRL_AUTOPUSH | SHIFTCTRL_IN_SHIFTDIR; /* 32-bit push */
        PIO_SM_INSTR(c->pio, c->sm) = entry; /* jmp entry: its start gate */
        DMA_READ_ADDR(c->dma) = PIO_RXF_ADDR(c->pio, c->sm);
        DMA_WRITE_ADDR(c->dma) = (uint32_t)(uintptr_t)c->ring;
        uint32_t dreq = (i < 4 ? DREQ_PIO0_RX0 : DREQ_PIO1_RX0) + c->sm;
        if (chained) {
            /* Control channel 4+i: one word, ring base -> data channel's WRITE_ADDR_TRIG. */
            uint32_t ctl = 4u + i;
            ring_base_addr[i] = (uint32_t)(uintptr_t)c->ring;
            DMA_READ_ADDR(ctl) = (uint32_t)(uintptr_t)&ring_base_addr[i];
            DMA_WRITE_ADDR(ctl) = DMA_BASE + 0x40u * c->dma + 0x2cu; /* AL2_WRITE_ADDR_TRIG */
            DMA_TRANS_COUNT(ctl) = 1;
            DMA_AL1_CTRL(ctl) = DMA_CTRL_EN | DMA_CTRL_HIGH_PRIORITY | DMA_CTRL_SIZE_WORD |
                                (ctl << DMA_CTRL_CHAIN_TO_LSB) |
                                (0x3fu << DMA_CTRL_TREQ_LSB) | DMA_CTRL_IRQ_QUIET;
            /* Pass counter 8+i: one word per pass, its READ_ADDR walking a 32 KB read ring
             * (the pool itself; reading it is harmless), then on to the control channel. */
            uint32_t cnt = 8u + i;
            DMA_READ_ADDR(cnt) = (uint32_t)(uintptr_t)ring_pool;
            DMA_WRITE_ADDR(cnt) = (uint32_t)(uintptr_t)&pass_sink;
            DMA_TRANS_COUNT(cnt) = 1;
            DMA_AL1_CTRL(cnt) = DMA_CTRL_EN | DMA_CTRL_HIGH_PRIORITY | DMA_CTRL_SIZE_WORD |
                                DMA_CTRL_INCR_READ | (15u << DMA_CTRL_RING_SIZE_LSB) |
                                (ctl << DMA_CTRL_CHAIN_TO_LSB) |
                                (0x3fu << DMA_CTRL_TREQ_LSB) | DMA_CTRL_IRQ_QUIET;
            DMA_TRANS_COUNT(c->dma) = ring_words;
            DMA_CTRL_TRIG(c->dma) = DMA_CTRL_EN | DMA_CTRL_HIGH_PRIORITY | DMA_CTRL_SIZE_WORD |
                                    DMA_CTRL_INCR_WRITE | (cnt << DMA_CTRL_CHAIN_TO_LSB) |
                                    (dreq << DMA_CTRL_TREQ_LSB) | DMA_CTRL_IRQ_QUIET;
        } else {
            DMA_TRANS_COUNT(c->dma) = 0xffffffffu;
            DMA_CTRL_TRIG(c->dma) = DMA_CTRL_EN | DMA_CTRL_HIGH_PRIORITY | DMA_CTRL_SIZE_WORD |
                                    DMA_CTRL_INCR_WRITE | DMA_CTRL_RING_SEL_WRITE |
                                    (ring_bits << DMA_CTRL_RING_SIZE_LSB) |
                                    (c->dma << DMA_CTRL_CHAIN_TO_LSB) |
                                    (dreq << DMA_CTRL_TREQ_LSB) | DMA_CTRL_IRQ_QUIET;
        }
        if (i < 4) {
            en0 |= 1u << c->sm;
        } else {
            en1 |= 1u << c->sm;
        }
    }
    PIO_CTRL(PIO0_BASE) = en0;
    PIO_CTRL(PIO1_BASE) = en1;
    SYST_RVR = 0xffffffu;
    SYST_CVR = 0;
    SYST_CSR = 5u; /* processor clock, no interrupt: cycle counts for the bench */
    cpu_cycles = 0;
    encode_cycles = 0;
    max_fill_pct = 0;
    stall_mask = 0;
    end_k = 0;
    gpio_inover(SYNC_GPIO, 3); /* open the gate: every state machine starts now */
    start_us = hw_time_us();
    next_status_us = start_us + STATUS_US;
    state = ST_RUNNING;

    frame_t f;
    frame_begin(&f, F_STARTED);
    frame_u8(&f, cfg.base_pin);
    frame_u8(&f, cfg.nch);
    frame_u32(&f, SYS_CLK_HZ);
    frame_u8(&f, SAMPLE_CYCLES);
    frame_u32(&f, ring_words);
    frame_u8(&f, cfg.st_gpio);
    frame_u32(&f, cfg.st_gpio == 0xff ? 0u : (uint32_t)cfg.st_div * (cfg.st_top + 1u));
    frame_u32(&f, (uint32_t)start_us);
    frame_u32(&f, (uint32_t)(start_us >> 32));
    frame_u8(&f, phases);
    frame_send(&f);
    return 0;
}

/* Stop the state machines, let DMA drain the FIFOs, then read each X for the end time. */
static void halt_machines(void)
{
    PIO_CTRL(PIO0_BASE) = 0;
    PIO_CTRL(PIO1_BASE) = 0;
    state = ST_DRAINING; /* from now on an idle data channel is final, not re-arming */
    for (uint32_t i = 0; i < nstreams; i++) { /* let the DMA empty each RX FIFO */
        for (uint32_t spin = 0; spin < 1000u; spin++) {
            if (PIO_FSTAT(ch[i].pio) & (1u << (8u + ch[i].sm))) {
                break;
            }
        }
    }
    uint32_t abort = 0;
    for (uint32_t i = 0; i < nstreams; i++) {
        abort |= 1u << ch[i].dma;
        if (ch[i].chained) {
            DMA_AL1_CTRL(4u + i) = 0; /* no re-arm after the abort */
        }
    }
    /* A pass ending right now still gets counted before the data channels stop. */
    for (volatile int spin = 0; spin < 32; spin++) {
    }
    DMA_CHAN_ABORT = abort;
    /* Wait on each channel's BUSY bit (rp2040js does not implement reading CHAN_ABORT). */
    for (uint32_t i = 0; i < nstreams; i++) {
        for (uint32_t spin = 0; spin < 100000u && (DMA_AL1_CTRL(ch[i].dma) & DMA_CTRL_BUSY);
             spin++) {
        }
    }
    for (uint32_t i = 0; i < nstreams; i++) {
        chan_t *c = &ch[i];
        uint32_t w = written(c);
        PIO_SM_INSTR(c->pio, c->sm) = 0x4020u; /* in x, 32: autopush X */
        uint32_t x = REG(PIO_RXF_ADDR(c->pio, c->sm));
        uint64_t d = c->dlast + (uint32_t)(~x - (uint32_t)c->dlast);
        uint64_t k = d + w;
        if (k > end_k) {
            end_k = k;
        }
    }
}

void capture_request_stop(void)
{
    if (state != ST_RUNNING) {
        return;
    }
    halt_machines();
    state = ST_DRAINING;
}

static void send_status(uint64_t now)
{
    frame_t f;
    uint32_t edges = 0, lost = 0;
    for (uint32_t i = 0; i < nstreams; i++) {
        edges += ch[i].edges;
        lost += ch[i].lost;
    }
    frame_begin(&f, F_STATUS);
    frame_varint(&f, (now - start_us) * (SYS_CLK_HZ / 1000000u) / SAMPLE_CYCLES);
    frame_varint32(&f, edges);
    frame_varint32(&f, lost);
    frame_u8(&f, max_fill_pct);
    frame_u8(&f, out_used() * 100u / (out_used() + out_free()));
    frame_varint32(&f, cpu_cycles);
    frame_varint32(&f, encode_cycles);
    if (frame_send(&f) == 0) {
        max_fill_pct = 0;
    }
}

static int finish(void)
{
    frame_t f;
    if (stall_mask) {
        frame_begin(&f, F_STALL);
        frame_u8(&f, stall_mask);
        for (uint32_t i = 0; i < nstreams; i++) {
            if (stall_mask & (1u << i)) {
                frame_varint32(&f, ch[i].limit);
            }
        }
        if (frame_send(&f) != 0) {
            return 1;
        }
        stall_mask = 0;
    }
    frame_begin(&f, F_STOPPED);
    frame_varint(&f, end_k);
    frame_varint32(&f, cpu_cycles);
    frame_varint32(&f, encode_cycles);
    for (uint32_t i = 0; i < nstreams; i++) {
        frame_varint32(&f, ch[i].consumed);
    }
    if (frame_send(&f) != 0) {
        return 1;
    }
    PWM_CSR((cfg.st_gpio >> 1) & 7u) = 0;
    state = ST_IDLE;
    return 0;
}

int capture_poll(void)
{
    if (state == ST_IDLE) {
        return 0;
    }
    uint32_t t0 = SYST_CVR;
    uint32_t w[MAX_STREAMS];
    for (uint32_t i = 0; i < nstreams; i++) {
        w[i] = written(&ch[i]);
    }
    if (state == ST_RUNNING) {
        /* A stall (RX FIFO full) freezes that state machine's clock: records written
         * before we last saw FDEBUG clear are good, later ones are not trusted. */
        uint32_t fd0 = PIO_FDEBUG(PIO0_BASE) & 0xfu, fd1 = PIO_FDEBUG(PIO1_BASE) & 0xfu;
        uint32_t stalled = 0;
        for (uint32_t i = 0; i < nstreams; i++) {
            uint32_t bit = 1u << ch[i].sm;
            if ((i < 4 ? fd0 : fd1) & bit) {
                stalled |= 1u << i;
                ch[i].limit = ch[i].safe_w;
            } else {
                ch[i].safe_w = w[i];
            }
        }
        if (stalled) {
            stall_mask = stalled;
            halt_machines();
            state = ST_DRAINING;
        }
    }
    uint64_t now = hw_time_us();
    /* Lower bound for the decrement count of any record still in a ring (see encode). */
    uint64_t est = (now - start_us) * (SYS_CLK_HZ / 1000000u) / SAMPLE_CYCLES;
    uint64_t dfloor = est > (1ull << 31) ? est - (1ull << 31) : 0;
    for (uint32_t i = 0; i < nstreams; i++) {
        chan_t *c = &ch[i];
        uint32_t used = w[i] - c->consumed;
        if (used * 100u > max_fill_pct * c->ring_words) { /* no division on the fast path */
            max_fill_pct = used >= c->ring_words ? 100u : used * 100u / c->ring_words;
        }
        /* Batch sparse edges: a frame per edge costs ~450 clocks and 6+ bytes. */
        uint32_t pending = w[i] - c->consumed;
        if (pending == 0) {
            c->pending_since = 0;
            continue;
        }
        if (c->pending_since == 0) {
            c->pending_since = now;
        }
        if (state == ST_RUNNING && pending < MIN_BATCH && c->lost_count == 0 &&
            now - c->pending_since < MAX_HOLD_US) {
            continue;
        }
        encode_channel(i, c, w[i], dfloor > c->consumed ? dfloor - c->consumed : 0);
        c->pending_since = w[i] == c->consumed ? 0 : now;
    }
    cpu_cycles += (t0 - SYST_CVR) & 0xffffffu;
    if (state == ST_RUNNING && now >= next_status_us) {
        send_status(now);
        next_status_us = now + STATUS_US;
    }
    if (state == ST_DRAINING) {
        int done = 1;
        for (uint32_t i = 0; i < nstreams; i++) {
            uint32_t end = ch[i].limit != 0xffffffffu ? ch[i].limit : written(&ch[i]);
            if ((int32_t)(ch[i].consumed - end) < 0 || ch[i].lost_count) {
                done = 0;
            }
        }
        if (done) {
            return finish();
        }
    }
    return 1;
}
