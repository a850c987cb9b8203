/* Thin helpers over the GPIO character device uAPI v2 (<linux/gpio.h>, no libgpiod), and
 * what the GPIO workloads (rtlab-toggle, rtlab-gpio-events) share around them. */
#ifndef RTLAB_GPIO_H
#define RTLAB_GPIO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/gpio.h>

#include "proto.h"

#define GPIO_MAX_LINES 64

typedef struct {
    int fd;            /* the chip */
    char path[256];
    struct gpiochip_info info;
} gpio_chip_t;

/* Exit status for GPIO errors (unknown chip, busy, out of range, permission). */
#define GPIO_EXIT 3

/* Open a chip given as /dev/gpiochipN, gpiochipN, N, or a chip label/name.
 * On failure returns -1 with a complete human message in err. */
int gpio_open_chip(gpio_chip_t *c, const char *spec, char *err, size_t errlen);

/* Parse "0,3,5" or "0-3" into offsets; -1 with a message on error. */
int gpio_parse_lines(const char *s, uint32_t *offsets, unsigned *n, char *err, size_t errlen);

/* Request lines with flags (GPIO_V2_LINE_FLAG_*) and initial output values bitmap.
 * Returns the line request fd or -1 with a message naming the cause (range, busy and
 * its consumer, permission). */
int gpio_request(gpio_chip_t *c, const uint32_t *offsets, unsigned n, uint64_t flags,
                 uint64_t values, const char *consumer, unsigned event_buffer, char *err,
                 size_t errlen);

/* Set/get all requested lines (mask = first n bits). 0 or -errno. */
static inline uint64_t gpio_mask(unsigned n) { return n >= 64 ? ~0ULL : (1ULL << n) - 1; }
int gpio_set(int line_fd, uint64_t bits, uint64_t mask);
int gpio_get(int line_fd, uint64_t mask, uint64_t *bits);

/* Open the chip, request the lines (outputs start low), close the chip: the line
 * request fd, or -1 with the message of gpio_open_chip or gpio_request in err. c keeps
 * the chip's info (name, label) for gpio_meta. */
int gpio_claim(gpio_chip_t *c, const char *spec, const uint32_t *offsets, unsigned n,
               uint64_t flags, const char *consumer, unsigned event_buffer, char *err,
               size_t errlen);

/* -D of the GPIO workloads: 2s, 500ms, 100us, 7ns, 1m or plain seconds, in ns; anything
 * else is a usage error. */
long long gpio_duration_arg(const char *s);

/* The meta records every GPIO workload starts with: kernel, machine, api, chip,
 * chip_label, lines. */
void gpio_meta(proto_t *p, const gpio_chip_t *c, const uint32_t *offsets, unsigned n);

#endif
