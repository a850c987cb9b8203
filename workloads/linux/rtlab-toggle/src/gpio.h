/* Thin helpers over the GPIO character device uAPI v2 (<linux/gpio.h>, no libgpiod), and
 * what the GPIO workloads (rtlab-toggle, rtlab-gpio-events) share around them. */
#ifndef RTLAB_GPIO_H
#define RTLAB_GPIO_H

#include <getopt.h>
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

/* The options every GPIO workload takes: -c CHIP, -l LINES, -n N, -D TIME, --meta,
 * --binary, --crc, -q and --help. Its own options: short ones beside
 * GPIO_COMMON_SHORTOPTS, long-only ones numbered from GPIO_OPT_OWN, its table's entries
 * before GPIO_COMMON_LONGOPTS (which ends the table). */
#define GPIO_MAX_META 16
enum { GPIO_OPT_META = 256, GPIO_OPT_BINARY, GPIO_OPT_CRC, GPIO_OPT_HELP, GPIO_OPT_OWN };
#define GPIO_COMMON_SHORTOPTS "c:l:n:D:q"
#define GPIO_COMMON_LONGOPTS                                                              \
    {"chip", required_argument, 0, 'c'}, {"lines", required_argument, 0, 'l'},            \
        {"count", required_argument, 0, 'n'}, {"duration", required_argument, 0, 'D'},    \
        {"meta", required_argument, 0, GPIO_OPT_META},                                    \
        {"binary", no_argument, 0, GPIO_OPT_BINARY}, {"crc", no_argument, 0, GPIO_OPT_CRC}, \
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, GPIO_OPT_HELP}, {0, 0, 0, 0}

typedef struct {
    const char *chip_spec, *lines_spec; /* -c, -l: "0" unless given */
    long long count, duration;          /* -n, -D (ns): 0 unless given */
    long long max_count;                /* -n's largest value */
    const char *source;                 /* where --help sends the reader: "src/toggle.c" */
    const char *meta[GPIO_MAX_META];    /* --meta KEY=VALUE, n_meta of them */
    int n_meta, binary, crc, quiet;
} gpio_opts_t;

/* The start of a GPIO workload's command line: wl_init(program, usage), and the options'
 * defaults, -n up to max_count, --help naming source. */
gpio_opts_t gpio_opts(const char *program, const char *usage, long long max_count,
                      const char *source);

/* getopt_long over argv (opterr off: wl_die_bad_option reports): the common options go
 * into o, and the next of the workload's own is returned (own_short: its short ones;
 * longopts: its table, ending in GPIO_COMMON_LONGOPTS), or -1 after the last. A bad
 * value is a usage error (exit 2); --help prints where the usage is told and exits 0. */
int gpio_next_option(gpio_opts_t *o, int argc, char **argv, const char *own_short,
                     const struct option *longopts);

/* After the options: no operands, not both -n and -D (neither: -n 1000), and -l parsed
 * into offsets (GPIO_MAX_LINES of room) and *n_lines; an error is a usage error. */
void gpio_common_done(gpio_opts_t *o, int argc, char **argv, uint32_t *offsets,
                      unsigned *n_lines);

/* The meta records every GPIO workload starts with: kernel, machine, api, chip,
 * chip_label, lines. */
void gpio_meta(proto_t *p, const gpio_chip_t *c, const uint32_t *offsets, unsigned n);

#endif
