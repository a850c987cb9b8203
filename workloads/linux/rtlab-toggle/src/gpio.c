/* GPIO uAPI v2 helpers: see gpio.h. Messages say what to do, not just the errno. */
#include "gpio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "workload.h"

static int open_path(gpio_chip_t *c, const char *path, char *err, size_t errlen)
{
    snprintf(c->path, sizeof c->path, "%.250s", path);
    c->fd = open(path, O_RDWR | O_CLOEXEC);
    if (c->fd < 0) {
        int e = errno;
        if (e == ENOENT)
            snprintf(err, errlen, "unknown GPIO chip %s: no such device (chips: ls /dev/gpiochip*)",
                     path);
        else if (e == EACCES || e == EPERM)
            snprintf(err, errlen,
                     "no permission to open %s (%s): run as root or give your user access "
                     "(group of the device, a udev rule)",
                     path, strerror(e));
        else
            snprintf(err, errlen, "cannot open GPIO chip %s: %s", path, strerror(e));
        return -1;
    }
    memset(&c->info, 0, sizeof c->info);
    if (ioctl(c->fd, GPIO_GET_CHIPINFO_IOCTL, &c->info) < 0) {
        int e = errno;
        snprintf(err, errlen, "%s is not a GPIO character device (%s)", path, strerror(e));
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    return 0;
}

int gpio_open_chip(gpio_chip_t *c, const char *spec, char *err, size_t errlen)
{
    char path[256];
    c->fd = -1;
    if (!spec || !*spec) {
        snprintf(err, errlen, "empty GPIO chip name");
        return -1;
    }
    if (strchr(spec, '/'))
        return open_path(c, spec, err, errlen);
    char *end;
    long n = strtol(spec, &end, 10);
    if (*end == 0 && n >= 0) {
        snprintf(path, sizeof path, "/dev/gpiochip%ld", n);
        return open_path(c, path, err, errlen);
    }
    if (strncmp(spec, "gpiochip", 8) == 0) {
        snprintf(path, sizeof path, "/dev/%.200s", spec);
        return open_path(c, path, err, errlen);
    }
    /* A label (e.g. "pl061" device name or a board's "300b000.pinctrl"): scan chips. */
    DIR *d = opendir("/dev");
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strncmp(de->d_name, "gpiochip", 8) != 0)
                continue;
            char tmp[300];
            gpio_chip_t t;
            snprintf(path, sizeof path, "/dev/%.200s", de->d_name);
            if (open_path(&t, path, tmp, sizeof tmp) < 0)
                continue;
            if (strcmp(t.info.label, spec) == 0 || strcmp(t.info.name, spec) == 0) {
                closedir(d);
                *c = t;
                return 0;
            }
            close(t.fd);
        }
        closedir(d);
    }
    snprintf(err, errlen,
             "unknown GPIO chip '%s': give /dev/gpiochipN, gpiochipN, N or a chip label "
             "(labels: cat /sys/bus/gpio/devices/*/label)",
             spec);
    return -1;
}

int gpio_parse_lines(const char *s, uint32_t *offsets, unsigned *n, char *err, size_t errlen)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a > 0xFFFF)
            goto bad;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b > 0xFFFF)
                goto bad;
        }
        for (long v = a; v <= b; v++) {
            if (*n >= GPIO_MAX_LINES) {
                snprintf(err, errlen, "at most %d lines per request", GPIO_MAX_LINES);
                return -1;
            }
            for (unsigned i = 0; i < *n; i++)
                if (offsets[i] == (uint32_t)v) {
                    snprintf(err, errlen, "line %ld given twice", v);
                    return -1;
                }
            offsets[(*n)++] = (uint32_t)v;
        }
        if (*end == ',')
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (*n == 0)
        goto bad;
    return 0;
bad:
    snprintf(err, errlen, "lines: expected offsets like 0 or 0,3 or 0-3, got '%s'", s);
    return -1;
}

int gpio_request(gpio_chip_t *c, const uint32_t *offsets, unsigned n, uint64_t flags,
                 uint64_t values, const char *consumer, unsigned event_buffer, char *err,
                 size_t errlen)
{
    /* Range first: the kernel answers EINVAL, which would not say which line. */
    for (unsigned i = 0; i < n; i++)
        if (offsets[i] >= c->info.lines) {
            snprintf(err, errlen, "line %u out of range: %s (%s) has lines 0..%u", offsets[i],
                     c->path, c->info.label, c->info.lines - 1);
            return -1;
        }
    struct gpio_v2_line_request req;
    memset(&req, 0, sizeof req);
    memcpy(req.offsets, offsets, n * sizeof *offsets);
    snprintf(req.consumer, sizeof req.consumer, "%s", consumer);
    req.num_lines = n;
    req.event_buffer_size = event_buffer;
    req.config.flags = flags;
    if (flags & GPIO_V2_LINE_FLAG_OUTPUT) {
        req.config.num_attrs = 1;
        req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
        req.config.attrs[0].attr.values = values;
        req.config.attrs[0].mask = gpio_mask(n);
    }
    if (ioctl(c->fd, GPIO_V2_GET_LINE_IOCTL, &req) < 0) {
        int e = errno;
        if (e == EBUSY) {
            /* Name the holder: the line info carries the consumer label. */
            for (unsigned i = 0; i < n; i++) {
                struct gpio_v2_line_info li;
                memset(&li, 0, sizeof li);
                li.offset = offsets[i];
                if (ioctl(c->fd, GPIO_V2_GET_LINEINFO_IOCTL, &li) == 0 &&
                    (li.flags & GPIO_V2_LINE_FLAG_USED)) {
                    snprintf(err, errlen, "line %u of %s busy: held by '%s' (EBUSY)",
                             offsets[i], c->path, li.consumer[0] ? li.consumer : "?");
                    return -1;
                }
            }
            snprintf(err, errlen, "line(s) of %s busy (EBUSY)", c->path);
        } else if (e == EACCES || e == EPERM) {
            snprintf(err, errlen, "no permission to request lines of %s (%s)", c->path,
                     strerror(e));
        } else {
            snprintf(err, errlen, "requesting lines of %s failed: %s", c->path, strerror(e));
        }
        return -1;
    }
    return req.fd;
}

int gpio_set(int line_fd, uint64_t bits, uint64_t mask)
{
    struct gpio_v2_line_values v = {.bits = bits, .mask = mask};
    return ioctl(line_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &v) < 0 ? -errno : 0;
}

int gpio_get(int line_fd, uint64_t mask, uint64_t *bits)
{
    struct gpio_v2_line_values v = {.bits = 0, .mask = mask};
    if (ioctl(line_fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &v) < 0)
        return -errno;
    *bits = v.bits;
    return 0;
}

int gpio_claim(gpio_chip_t *c, const char *spec, const uint32_t *offsets, unsigned n,
               uint64_t flags, const char *consumer, unsigned event_buffer, char *err,
               size_t errlen)
{
    if (gpio_open_chip(c, spec, err, errlen) < 0)
        return -1;
    int fd = gpio_request(c, offsets, n, flags, 0, consumer, event_buffer, err, errlen);
    close(c->fd); /* the line request fd lives on its own */
    c->fd = -1;
    return fd;
}

long long gpio_duration_arg(const char *s)
{
    long long ns = 0;
    const char *unit;
    if (wl_parse_duration(s, WL_NS | WL_US | WL_MS | WL_S | WL_MIN, &ns, &unit))
        wl_die_usage("-D: expected 2s, 500ms, 100us, 1m or seconds, got '%s'", s);
    return ns;
}

gpio_opts_t gpio_opts(const char *program, const char *usage, long long max_count,
                      const char *source)
{
    wl_init(program, usage);
    return (gpio_opts_t){.chip_spec = "0", .lines_spec = "0", .max_count = max_count,
                         .source = source};
}

/* Takes ch (and its argument) if it is a common option: 1, else 0. */
static int common_option(gpio_opts_t *o, int ch, const char *arg)
{
    switch (ch) {
    case 'c': o->chip_spec = arg; break;
    case 'l': o->lines_spec = arg; break;
    case 'n': o->count = wl_parse_int("-n", arg, 1, o->max_count); break;
    case 'D': o->duration = gpio_duration_arg(arg); break;
    case GPIO_OPT_META: wl_add_meta(arg, o->meta, &o->n_meta, GPIO_MAX_META); break;
    case GPIO_OPT_BINARY: o->binary = 1; break;
    case GPIO_OPT_CRC: o->crc = 1; break;
    case 'q': o->quiet = 1; break;
    case GPIO_OPT_HELP:
        printf("see the comment at the top of %s or docs/gpio-workloads.md\n", o->source);
        exit(0);
    default: return 0;
    }
    return 1;
}

int gpio_next_option(gpio_opts_t *o, int argc, char **argv, const char *own_short,
                     const struct option *longopts)
{
    char shortopts[64];
    snprintf(shortopts, sizeof shortopts, ":%s%s", GPIO_COMMON_SHORTOPTS, own_short);
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
        if (!common_option(o, ch, optarg))
            return ch;
    return -1;
}

void gpio_common_done(gpio_opts_t *o, int argc, char **argv, uint32_t *offsets,
                      unsigned *n_lines)
{
    wl_no_operands(argc, argv);
    if (o->count && o->duration) wl_die_usage("give -n or -D, not both");
    if (!o->count && !o->duration) o->count = 1000;
    char err[512];
    if (gpio_parse_lines(o->lines_spec, offsets, n_lines, err, sizeof err) < 0)
        wl_die_usage("%s", err);
}

void gpio_meta(proto_t *p, const gpio_chip_t *c, const uint32_t *offsets, unsigned n)
{
    struct utsname u;
    if (uname(&u) == 0) {
        proto_meta(p, "kernel", u.release);
        proto_meta(p, "machine", u.machine);
    }
    proto_meta(p, "api", "gpio-cdev-v2");
    proto_meta(p, "chip", c->info.name);
    proto_meta(p, "chip_label", c->info.label);
    char lines[256] = "";
    for (unsigned i = 0; i < n; i++)
        snprintf(lines + strlen(lines), sizeof lines - strlen(lines), "%s%u", i ? "," : "",
                 offsets[i]);
    proto_meta(p, "lines", lines);
}
