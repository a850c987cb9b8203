/* Framing of the device <-> host byte stream (docs/capture-module.md).
 * frame = 0xA5, type, len, seq (u16 LE), payload[len], CRC-8 (poly 0x07) of type..payload */
#ifndef PROTO_H
#define PROTO_H
#include <stdint.h>

#define PROTO_SYNC 0xa5u
#define PROTO_VERSION 1u
#define FW_VERSION_MAJOR 0u
#define FW_VERSION_MINOR 1u
#define FRAME_MAX_PAYLOAD 255u
#define FRAME_OVERHEAD 6u

/* device -> host */
enum {
    F_HELLO = 0x01,
    F_STARTED = 0x02,
    F_EDGES = 0x03,
    F_OVERFLOW = 0x04,
    F_STALL = 0x05,
    F_STATUS = 0x06,
    F_STOPPED = 0x07,
    F_ERROR = 0x08,
};
/* host -> device */
enum { C_HELLO = 0x48, C_START = 0x53, C_STOP = 0x58 };

typedef struct {
    uint8_t type;
    uint8_t len;
    uint8_t buf[FRAME_MAX_PAYLOAD];
} frame_t;

static inline void frame_begin(frame_t *f, uint8_t type)
{
    f->type = type;
    f->len = 0;
}
static inline void frame_u8(frame_t *f, uint32_t v) { f->buf[f->len++] = (uint8_t)v; }
void frame_u32(frame_t *f, uint32_t v);
void frame_varint(frame_t *f, uint64_t v);

static inline void frame_varint32(frame_t *f, uint32_t v)
{
    while (v >= 0x80u) {
        f->buf[f->len++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    f->buf[f->len++] = (uint8_t)v;
}

uint32_t out_free(void);     /* bytes free in the output ring */
uint32_t out_used(void);
int frame_send(const frame_t *f); /* 0 when queued, -1 when no room (nothing queued) */
void out_drain(void);        /* move queued bytes into the UART FIFO */
void out_reset(void);

/* Command parser: feed received bytes; returns 1 when a whole valid command is ready. */
typedef struct {
    uint8_t state, type, len, pos, crc;
    uint8_t payload[32];
} cmd_parser_t;
int cmd_feed(cmd_parser_t *p, uint8_t byte);
#endif
