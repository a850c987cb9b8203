/* rtlab capture module: command loop (UART and USB CDC). Polling only, no interrupts: every cycle the CPU
 * spends is either encoding edges or feeding the UART, which keeps the timing simple. */
#include "capture.h"
#include "hw.h"
#include "proto.h"
#include "usb.h"

static void send_hello(void)
{
    frame_t f;
    frame_begin(&f, F_HELLO);
    frame_u8(&f, 'R');
    frame_u8(&f, 'T');
    frame_u8(&f, 'L');
    frame_u8(&f, 'C');
    frame_u8(&f, PROTO_VERSION);
    frame_u8(&f, FW_VERSION_MAJOR);
    frame_u8(&f, FW_VERSION_MINOR);
    frame_u32(&f, SYS_CLK_HZ);
    frame_u8(&f, SAMPLE_CYCLES);
    frame_u8(&f, MAX_CHANNELS);
    frame_u32(&f, RING_POOL_WORDS);
    frame_u8(&f, SYNC_GPIO);
    frame_send(&f);
}

static void send_error(uint8_t code)
{
    frame_t f;
    frame_begin(&f, F_ERROR);
    frame_u8(&f, code);
    frame_send(&f);
}

static void handle(const cmd_parser_t *p)
{
    switch (p->type) {
    case C_HELLO:
        send_hello();
        break;
    case C_START: {
        if (p->len < 6) {
            send_error(10);
            break;
        }
        capture_cfg_t cfg = {
            .base_pin = p->payload[0],
            .nch = p->payload[1],
            .st_gpio = p->payload[2],
            .st_div = p->payload[3],
            .st_top = (uint16_t)(p->payload[4] | (p->payload[5] << 8)),
            .flags = p->len > 6 ? p->payload[6] : 0u,
        };
        int err = capture_start(&cfg);
        if (err) {
            send_error((uint8_t)err);
        }
        break;
    }
    case C_STOP:
        if (capture_running()) {
            capture_request_stop();
        } else {
            send_error(11);
        }
        break;
    default:
        send_error(12);
    }
}

int main(void)
{
    hw_init();
    usb_init();
    out_reset();
    send_hello(); /* unsolicited once at boot; the host asks again anyway */
    cmd_parser_t uart_cmd = {0}, usb_cmd = {0}; /* one parser per link */
    for (;;) {
        int c;
        while ((c = uart_getc()) >= 0) {
            if (cmd_feed(&uart_cmd, (uint8_t)c)) {
                handle(&uart_cmd);
            }
        }
        usb_poll();
        while ((c = usb_getc()) >= 0) {
            if (cmd_feed(&usb_cmd, (uint8_t)c)) {
                handle(&usb_cmd);
            }
        }
        capture_poll();
        out_drain();
    }
}
