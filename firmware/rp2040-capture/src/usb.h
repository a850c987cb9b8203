/* Minimal USB CDC-ACM device: enumeration, line coding, one bulk pipe each way. */
#ifndef USB_H
#define USB_H
#include <stdint.h>

void usb_init(void);
void usb_poll(void);     /* enumeration and buffer completions; call often */
int usb_active(void);    /* configured and the host opened the port (DTR) */
int usb_tx_ready(void);  /* the bulk IN buffer is free */
void usb_send(const uint8_t *data, uint32_t len); /* len <= 64 */
int usb_getc(void);      /* -1 when nothing received */
#endif
