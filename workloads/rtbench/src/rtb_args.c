/* The suite's options: see rtb_args.h. No libc: this also runs on MCUs. */
#include "rtb_args.h"

#include "rtbench_port.h"

static int word_is(const char *s, size_t n, const char *w)
{
    size_t k = 0;
    for (; k < n && w[k]; k++)
        if (s[k] != w[k])
            return 0;
    return k == n && !w[k];
}

static int parse_u32(const char *s, size_t n, uint32_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 10)
        return -1;
    for (size_t k = 0; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return -1;
        v = v * 10u + (uint64_t)(s[k] - '0');
    }
    if (v > 0xFFFFFFFFu)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Comma-separated numbers in [lo, hi] into out (cap items); returns the count or -1. */
static int parse_list(const char *s, size_t n, uint8_t *out, int cap, unsigned lo, unsigned hi)
{
    int m = 0;
    size_t a = 0;
    while (a < n) {
        size_t b = a;
        while (b < n && s[b] != ',')
            b++;
        uint32_t v;
        if (m >= cap || parse_u32(s + a, b - a, &v) || v < lo || v > hi)
            return -1;
        out[m++] = (uint8_t)v;
        a = b + 1;
    }
    return m ? m : -1;
}

static int parse_scenarios(const char *s, size_t n, unsigned *out)
{
    static const char *const names[] = {"primitives", "irq", "threadmetric", "scalability",
                                        "contention"};
    size_t a = 0;
    *out = 0;
    while (a < n) {
        size_t b = a;
        while (b < n && s[b] != ',')
            b++;
        unsigned bit = word_is(s + a, b - a, "all") ? RTB_SC_ALL : 0;
        for (unsigned i = 0; i < 5; i++)
            if (word_is(s + a, b - a, names[i]))
                bit = 1u << i;
        if (!bit)
            return -1;
        *out |= bit;
        a = b + 1;
    }
    return *out ? 0 : -1;
}

/* A list option into items[] and its count; a bad list leaves no item. */
static int list_option(const char *val, size_t vn, uint8_t *items, uint8_t *count, int cap,
                       unsigned lo, unsigned hi)
{
    int m = parse_list(val, vn, items, cap, lo, hi);
    *count = (uint8_t)(m < 0 ? 0 : m);
    return m < 0;
}

rtb_arg_result rtb_args_option(rtbench_config *cfg, const char *opt, size_t on,
                               const char *val, size_t vn)
{
    int err;
    if (word_is(opt, on, "--shared")) {
        cfg->shared = 1;
        return RTB_ARG_FLAG;
    }
    if (word_is(opt, on, "--crc")) {
        cfg->crc = 1;
        return RTB_ARG_FLAG;
    }
    if (word_is(opt, on, "--markers")) {
        cfg->markers = 1;
        return RTB_ARG_FLAG;
    }
    if (word_is(opt, on, "--irq-ext")) {
        cfg->irq_ext = 1;
        return RTB_ARG_FLAG;
    }
    if (word_is(opt, on, "--scenarios")) {
        err = parse_scenarios(val, vn, &cfg->scenarios);
    } else if (word_is(opt, on, "--iterations")) {
        err = parse_u32(val, vn, &cfg->iterations) || cfg->iterations < 2;
    } else if (word_is(opt, on, "--window-ms")) {
        err = parse_u32(val, vn, &cfg->window_ms) || !cfg->window_ms ||
              cfg->window_ms > 600000;
    } else if (word_is(opt, on, "--period-us")) {
        err = parse_u32(val, vn, &cfg->period_us) || !cfg->period_us;
    } else if (word_is(opt, on, "--start-delay-ms")) {
        err = parse_u32(val, vn, &cfg->start_delay_ms) || cfg->start_delay_ms > 600000;
    } else if (word_is(opt, on, "--seed")) {
        err = parse_u32(val, vn, &cfg->seed);
    } else if (word_is(opt, on, "--cores")) {
        err = list_option(val, vn, cfg->core_counts, &cfg->n_core_counts, RTB_MAX_CORE_COUNTS,
                          1, 255);
    } else if (word_is(opt, on, "--levels")) {
        err = list_option(val, vn, cfg->levels, &cfg->n_levels, RTB_MAX_LEVELS, 0, 100);
    } else if (word_is(opt, on, "--tests")) {
        uint8_t list[8], n;
        err = list_option(val, vn, list, &n, 8, 1, 8);
        cfg->tm_mask = 0;
        for (int k = 0; k < n; k++)
            cfg->tm_mask |= (uint8_t)(1u << (list[k] - 1));
    } else {
        return RTB_ARG_UNKNOWN;
    }
    return err ? RTB_ARG_BAD : RTB_ARG_VALUE;
}

static size_t word_len(const char *s)
{
    size_t n = 0;
    while (s[n] && s[n] != ' ')
        n++;
    return n;
}

static const char *skip_spaces(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

int rtb_args_parse_line(const char *line, rtbench_config *cfg, const char **bad)
{
    const char *p = skip_spaces(line ? line : "");
    *bad = NULL;
    while (*p) {
        const char *opt = p;
        size_t on = word_len(opt);
        const char *val = skip_spaces(opt + on);
        size_t vn = word_len(val);
        p = val;
        if (on < 2 || opt[0] != '-' || opt[1] != '-')
            continue; /* the program name */
        *bad = opt;
        switch (rtb_args_option(cfg, opt, on, val, vn)) {
        case RTB_ARG_FLAG:
            break;
        case RTB_ARG_VALUE:
            p = skip_spaces(val + vn);
            break;
        default:
            return -1;
        }
    }
    return 0;
}

void rtb_args_report_bad(const char *bad)
{
    static const char msg[] = "rtbench: bad option near: ";
    rtb_out_write(msg, sizeof msg - 1);
    rtb_out_write(bad, word_len(bad));
    rtb_out_write("\n", 1);
}
