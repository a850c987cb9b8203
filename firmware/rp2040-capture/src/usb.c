/* USB full-speed CDC-ACM device for the RP2040 USB controller, polled (no interrupts).
 * EP0 control, EP1 IN interrupt (notifications, never used), EP2 bulk OUT/IN.
 * Written from the RP2040 datasheet (USB chapter) and the USB 2.0 / CDC 1.2 specs. */
#include "usb.h"
#include "rp2040_regs.h"

#define EP0_BUF 0x100u
#define EP1_IN_BUF 0x180u
#define EP2_IN_BUF 0x1c0u
#define EP2_OUT_BUF 0x200u
#define PKT 64u

static const uint8_t dev_desc[18] = {
    18, 1, 0x00, 0x02, 0x02, 0x00, 0x00, PKT, /* USB 2.0, class CDC, EP0 64 bytes */
    0x09, 0x12, 0x01, 0x00,                   /* pid.codes test VID 0x1209, PID 0x0001 */
    0x00, 0x01, 1, 2, 3, 1,
};

static const uint8_t cfg_desc[67] = {
    9, 2, 67, 0, 2, 1, 0, 0x80, 50,          /* configuration: 2 interfaces, 100 mA */
    9, 4, 0, 0, 1, 0x02, 0x02, 0x00, 0,      /* interface 0: CDC control, ACM */
    5, 0x24, 0x00, 0x10, 0x01,               /* header functional descriptor, CDC 1.10 */
    5, 0x24, 0x01, 0x00, 1,                  /* call management: data on interface 1 */
    4, 0x24, 0x02, 0x02,                     /* ACM: line coding + control line state */
    5, 0x24, 0x06, 0, 1,                     /* union: master 0, slave 1 */
    7, 5, 0x81, 0x03, 8, 0, 16,              /* EP1 IN interrupt, 8 bytes */
    9, 4, 1, 0, 2, 0x0a, 0x00, 0x00, 0,      /* interface 1: CDC data */
    7, 5, 0x02, 0x02, PKT, 0, 0,             /* EP2 OUT bulk */
    7, 5, 0x82, 0x02, PKT, 0, 0,             /* EP2 IN bulk */
};

static const char *const strings[] = {"rtlab", "rtlab capture module", "0001"};

static uint8_t str_buf[2 + 2 * 32];
static uint8_t line_coding[7] = {0x00, 0x10, 0x0e, 0x00, 0, 0, 8}; /* 921600 8N1 */

static const uint8_t *ep0_data;
static uint32_t ep0_left;
static int ep0_pid, ep0_zlp, ep0_out_line_coding;
static int set_addr_pending;
static uint8_t new_addr;
static int configured, dtr;
static int tx_busy, tx_pid, rx_pid;
static uint8_t rx_ring[256];
static uint8_t rx_head, rx_tail;

static void dpram_write(uint32_t off, const uint8_t *src, uint32_t len)
{
    for (uint32_t i = 0; i < len; i += 4) { /* DPRAM is written by words */
        uint32_t w = 0;
        for (uint32_t b = 0; b < 4 && i + b < len; b++) {
            w |= (uint32_t)src[i + b] << (8 * b);
        }
        REG(USB_DPRAM_BASE + off + i) = w;
    }
}

static void dpram_read(uint32_t off, uint8_t *dst, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        dst[i] = (uint8_t)(REG(USB_DPRAM_BASE + off + (i & ~3u)) >> (8 * (i & 3u)));
    }
}

/* Hand a buffer to the controller: AVAILABLE goes in a second write, after the rest has
 * settled (datasheet: clk_sys may be faster than clk_usb). */
static void arm(volatile uint32_t *ctrl, uint32_t value)
{
    *ctrl = value;
    __asm volatile("nop\n nop\n nop");
    *ctrl = value | USB_BUF_AVAILABLE;
}

static void ep0_send_chunk(void)
{
    uint32_t n = ep0_left < PKT ? ep0_left : PKT;
    dpram_write(EP0_BUF, ep0_data, n);
    ep0_data += n;
    ep0_left -= n;
    if (n < PKT) {
        ep0_zlp = 0; /* a short packet ends the transfer */
    }
    arm(&USB_BUF_CTRL_IN(0), n | USB_BUF_FULL | (ep0_pid ? USB_BUF_DATA1 : 0));
    ep0_pid ^= 1;
}

static void ep0_reply(const uint8_t *data, uint32_t len, uint32_t wlength)
{
    ep0_data = data;
    ep0_left = len < wlength ? len : wlength;
    ep0_zlp = ep0_left < wlength; /* a full last packet needs a ZLP if the host wants more */
    ep0_pid = 1;
    ep0_send_chunk();
}

static void ep0_status_in(void) /* zero-length status stage */
{
    ep0_data = 0;
    ep0_left = 0;
    ep0_zlp = 0;
    arm(&USB_BUF_CTRL_IN(0), USB_BUF_FULL | USB_BUF_DATA1);
}

static void ep0_stall(void)
{
    USB_EP_STALL_ARM = 3u;
    USB_BUF_CTRL_IN(0) = USB_BUF_STALL;
    USB_BUF_CTRL_OUT(0) = USB_BUF_STALL;
}

static const uint8_t *string_desc(uint32_t index, uint32_t *len)
{
    if (index == 0) {
        static const uint8_t lang[4] = {4, 3, 0x09, 0x04}; /* English (US) */
        *len = 4;
        return lang;
    }
    if (index > 3) {
        return 0;
    }
    const char *s = strings[index - 1];
    uint32_t n = 0;
    for (; s[n] && n < 32; n++) {
        str_buf[2 + 2 * n] = (uint8_t)s[n];
        str_buf[3 + 2 * n] = 0;
    }
    str_buf[0] = (uint8_t)(2 + 2 * n);
    str_buf[1] = 3;
    *len = str_buf[0];
    return str_buf;
}

static void configure_endpoints(void)
{
    USB_EP_CTRL_IN(1) = USB_EP_ENABLE | USB_EP_INT_PER_BUFF | (3u << USB_EP_TYPE_LSB) | EP1_IN_BUF;
    USB_EP_CTRL_IN(2) = USB_EP_ENABLE | USB_EP_INT_PER_BUFF | (2u << USB_EP_TYPE_LSB) | EP2_IN_BUF;
    USB_EP_CTRL_OUT(2) = USB_EP_ENABLE | USB_EP_INT_PER_BUFF | (2u << USB_EP_TYPE_LSB) | EP2_OUT_BUF;
    tx_busy = 0;
    tx_pid = 0;
    rx_pid = 0;
    arm(&USB_BUF_CTRL_OUT(2), PKT);
    rx_pid = 1;
}

static void handle_setup(void)
{
    uint8_t s[8];
    dpram_read(0, s, 8);
    uint32_t req_type = s[0], req = s[1];
    uint32_t value = s[2] | ((uint32_t)s[3] << 8), wlength = s[6] | ((uint32_t)s[7] << 8);
    ep0_out_line_coding = 0;
    if ((req_type & 0x60u) == 0x20u) { /* CDC class requests */
        if (req == 0x20) {              /* SET_LINE_CODING: 7 bytes follow */
            ep0_out_line_coding = 1;
            arm(&USB_BUF_CTRL_OUT(0), 7u | USB_BUF_DATA1);
        } else if (req == 0x21) {       /* GET_LINE_CODING */
            ep0_reply(line_coding, sizeof line_coding, wlength);
        } else if (req == 0x22) {       /* SET_CONTROL_LINE_STATE */
            dtr = (int)(value & 1u);
            ep0_status_in();
        } else {
            ep0_stall();
        }
        return;
    }
    switch (req) {
    case 0x05: /* SET_ADDRESS: takes effect after the status stage */
        new_addr = (uint8_t)(value & 0x7fu);
        set_addr_pending = 1;
        ep0_status_in();
        break;
    case 0x06: { /* GET_DESCRIPTOR */
        uint32_t type = value >> 8, len = 0;
        const uint8_t *d = 0;
        if (type == 1) {
            d = dev_desc;
            len = sizeof dev_desc;
        } else if (type == 2) {
            d = cfg_desc;
            len = sizeof cfg_desc;
        } else if (type == 3) {
            d = string_desc(value & 0xffu, &len);
        }
        if (d) {
            ep0_reply(d, len, wlength);
        } else {
            ep0_stall(); /* e.g. device qualifier: we are full-speed only */
        }
        break;
    }
    case 0x09: /* SET_CONFIGURATION */
        configured = (value & 0xffu) != 0;
        if (configured) {
            configure_endpoints();
        }
        ep0_status_in();
        break;
    case 0x08: { /* GET_CONFIGURATION */
        static uint8_t cfg;
        cfg = (uint8_t)configured;
        ep0_reply(&cfg, 1, wlength);
        break;
    }
    case 0x00: { /* GET_STATUS */
        static const uint8_t zero[2] = {0, 0};
        ep0_reply(zero, 2, wlength);
        break;
    }
    case 0x0b: /* SET_INTERFACE (alternate 0 only) */
        ep0_status_in();
        break;
    case 0x01: /* CLEAR_FEATURE: ENDPOINT_HALT restarts the data toggle */
    case 0x03: /* SET_FEATURE: nothing to do (no remote wakeup, no halting) */
        if (req == 0x01 && (req_type & 0x1fu) == 2u && (s[4] & 0x0fu) == 2u) {
            if (s[4] & 0x80u) {
                tx_pid = 0;
            } else {
                rx_pid = 0;
            }
        }
        ep0_status_in();
        break;
    default:
        ep0_stall();
    }
}

static void bus_reset(void)
{
    USB_ADDR_ENDP = 0;
    configured = 0;
    dtr = 0;
    set_addr_pending = 0;
    ep0_left = 0;
}

void usb_init(void)
{
    /* PLL_USB: 12 MHz / 1 * 100 = 1200 MHz VCO, / 5 / 5 = 48 MHz for clk_usb. */
    RESETS_RESET_SET = RST_PLL_USB;
    RESETS_RESET_CLR = RST_PLL_USB;
    while (!(RESETS_DONE & RST_PLL_USB)) {
    }
    REG(PLL_USB_BASE + 0x0) = 1;
    REG(PLL_USB_BASE + 0x8) = 100;
    REG(PLL_USB_BASE + ALIAS_CLR + 0x4) = PLL_PWR_PD | PLL_PWR_VCOPD;
    while (!(REG(PLL_USB_BASE + 0x0) & PLL_CS_LOCK)) {
    }
    REG(PLL_USB_BASE + 0xc) = (5u << 16) | (5u << 12);
    REG(PLL_USB_BASE + ALIAS_CLR + 0x4) = PLL_PWR_POSTDIVPD;
    CLK_USB_DIV = 1u << 8;
    CLK_USB_CTRL = (1u << 11) | (0u << 5); /* enabled, from pll_usb */

    RESETS_RESET_SET = RST_USBCTRL;
    RESETS_RESET_CLR = RST_USBCTRL;
    while (!(RESETS_DONE & RST_USBCTRL)) {
    }
    for (uint32_t off = 0; off < 0x280u; off += 4) {
        REG(USB_DPRAM_BASE + off) = 0;
    }
    USB_MUXING = (1u << 0) | (1u << 3);  /* to PHY, softcon */
    USB_PWR = (1u << 2) | (1u << 3);     /* VBUS detect forced: bus powered, always there */
    USB_MAIN_CTRL = 1u;                  /* controller on, device mode */
    USB_SIE_CTRL = USB_SIE_CTRL_EP0_INT_1BUF | USB_SIE_CTRL_PULLUP_EN; /* connect */
}

void usb_poll(void)
{
    uint32_t st = USB_SIE_STATUS;
    if (st & USB_SIE_BUS_RESET) {
        bus_reset();
        USB_SIE_STATUS = USB_SIE_BUS_RESET;
        st = USB_SIE_STATUS;
    }
    if (st & USB_SIE_SETUP_REC) {
        USB_SIE_STATUS = USB_SIE_SETUP_REC;
        handle_setup();
    }
    uint32_t bs = USB_BUFF_STATUS;
    if (!bs) {
        return;
    }
    USB_BUFF_STATUS = bs;
    if (bs & 1u) { /* EP0 IN done */
        if (set_addr_pending) {
            USB_ADDR_ENDP = new_addr;
            set_addr_pending = 0;
        } else if (ep0_left || ep0_zlp) {
            ep0_send_chunk();
        } else if (ep0_data) {
            ep0_data = 0;
            arm(&USB_BUF_CTRL_OUT(0), USB_BUF_DATA1); /* host's zero-length status */
        }
    }
    if (bs & 2u) { /* EP0 OUT done */
        if (ep0_out_line_coding) {
            dpram_read(EP0_BUF, line_coding, sizeof line_coding);
            ep0_out_line_coding = 0;
            ep0_status_in();
        }
    }
    if (bs & (1u << 4)) { /* EP2 IN done */
        tx_busy = 0;
    }
    if (bs & (1u << 5)) { /* EP2 OUT: bytes from the host */
        uint32_t n = USB_BUF_CTRL_OUT(2) & 0x3ffu;
        uint8_t pkt[PKT];
        dpram_read(EP2_OUT_BUF, pkt, n > PKT ? PKT : n);
        for (uint32_t i = 0; i < n && i < PKT; i++) {
            if ((uint8_t)(rx_head + 1u) != rx_tail) {
                rx_ring[rx_head++] = pkt[i];
            }
        }
        arm(&USB_BUF_CTRL_OUT(2), PKT | (rx_pid ? USB_BUF_DATA1 : 0));
        rx_pid ^= 1;
    }
}

int usb_active(void) { return configured && dtr; }

int usb_tx_ready(void) { return configured && dtr && !tx_busy; }

void usb_send(const uint8_t *data, uint32_t len)
{
    dpram_write(EP2_IN_BUF, data, len);
    arm(&USB_BUF_CTRL_IN(2), len | USB_BUF_FULL | (tx_pid ? USB_BUF_DATA1 : 0));
    tx_pid ^= 1;
    tx_busy = 1;
}

int usb_getc(void)
{
    if (rx_head == rx_tail) {
        return -1;
    }
    return rx_ring[rx_tail++];
}
