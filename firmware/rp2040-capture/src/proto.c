#include "proto.h"
#include "hw.h"
#include "rp2040_regs.h"
#include "usb.h"

#define OUT_SIZE 16384u /* power of two */
static uint8_t out_ring[OUT_SIZE];
static uint32_t out_head, out_tail; /* free-running byte counters */
static uint16_t out_seq;

static uint8_t crc8_table[256];

static uint8_t crc8_update(uint8_t crc, uint8_t byte) { return crc8_table[crc ^ byte]; }

static void crc8_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint8_t c = (uint8_t)i;
        for (int b = 0; b < 8; b++) {
            c = (uint8_t)((c & 0x80u) ? ((uint32_t)c << 1) ^ 0x07u : ((uint32_t)c << 1));
        }
        crc8_table[i] = c;
    }
}

void out_reset(void)
{
    if (crc8_table[1] == 0) {
        crc8_init();
    }
    out_head = out_tail = 0;
}

void frame_u32(frame_t *f, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        f->buf[f->len++] = (uint8_t)(v >> (8 * i));
    }
}

void frame_varint(frame_t *f, uint64_t v)
{
    if ((v >> 32) == 0) {
        frame_varint32(f, (uint32_t)v);
        return;
    }
    while (v >= 0x80u) {
        f->buf[f->len++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    f->buf[f->len++] = (uint8_t)v;
}

uint32_t out_used(void) { return out_head - out_tail; }
uint32_t out_free(void) { return OUT_SIZE - (out_head - out_tail); }

static inline void out_put(uint8_t b) { out_ring[out_head++ & (OUT_SIZE - 1u)] = b; }

int frame_send(const frame_t *f)
{
    if (out_free() < (uint32_t)f->len + FRAME_OVERHEAD) {
        return -1;
    }
    uint8_t crc = 0;
    out_put(PROTO_SYNC);
    out_put(f->type);
    crc = crc8_update(crc, f->type);
    out_put(f->len);
    crc = crc8_update(crc, f->len);
    out_put((uint8_t)out_seq);
    crc = crc8_update(crc, (uint8_t)out_seq);
    out_put((uint8_t)(out_seq >> 8));
    crc = crc8_update(crc, (uint8_t)(out_seq >> 8));
    for (uint32_t i = 0; i < f->len; i++) {
        out_put(f->buf[i]);
        crc = crc8_update(crc, f->buf[i]);
    }
    out_put(crc);
    out_seq++;
    return 0;
}

/* Send queued bytes: over USB once a host opened the CDC port, else over the UART.
 * UART register access is inlined: this runs for every byte sent. */
void out_drain(void)
{
    uint32_t tail = out_tail, head = out_head;
    if (usb_active()) {
        if (tail != head && usb_tx_ready()) {
            uint8_t pkt[64];
            uint32_t n = 0;
            while (n < sizeof pkt && tail != head) {
                pkt[n++] = out_ring[tail++ & (OUT_SIZE - 1u)];
            }
            usb_send(pkt, n);
            out_tail = tail;
        }
        return;
    }
    while (tail != head && !(UART0_FR & UART_FR_TXFF)) {
        UART0_DR = out_ring[tail++ & (OUT_SIZE - 1u)];
    }
    out_tail = tail;
}

/* Commands use the same framing; their seq is ignored. */
int cmd_feed(cmd_parser_t *p, uint8_t byte)
{
    switch (p->state) {
    case 0:
        if (byte == PROTO_SYNC) {
            p->state = 1;
            p->crc = 0;
        }
        return 0;
    case 1:
        p->type = byte;
        p->crc = crc8_update(p->crc, byte);
        p->state = 2;
        return 0;
    case 2:
        p->len = byte;
        p->crc = crc8_update(p->crc, byte);
        p->pos = 0;
        p->state = byte <= sizeof p->payload ? 3 : 0;
        return 0;
    case 3:
    case 4:
        p->crc = crc8_update(p->crc, byte);
        p->state++;
        if (p->state == 5 && p->len == 0) {
            p->state = 6;
        }
        return 0;
    case 5:
        p->payload[p->pos++] = byte;
        p->crc = crc8_update(p->crc, byte);
        if (p->pos == p->len) {
            p->state = 6;
        }
        return 0;
    default:
        p->state = 0;
        return byte == p->crc;
    }
}
