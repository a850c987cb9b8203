/*
 * rtlab's RP2040 model ROM: the boot path (boot stage 2 copied from the flash, its CRC
 * checked, entered), the lookup tables and the bit and memory functions. The flash
 * functions are in rom_flash.c, core 1's wait loop in rom_core1.S.
 */
#include "rom.h"

uint32_t popcount32(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1u)
        n++;
    return n;
}

uint32_t reverse32(uint32_t v)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++, v >>= 1)
        r = r << 1 | (v & 1u);
    return r;
}

uint32_t clz32(uint32_t v)
{
    uint32_t n = 0;
    for (uint32_t bit = 0x80000000u; bit && !(v & bit); bit >>= 1)
        n++;
    return n;
}

uint32_t ctz32(uint32_t v)
{
    uint32_t n = 0;
    for (uint32_t bit = 1u; bit && !(v & bit); bit <<= 1)
        n++;
    return n;
}

/* memset, memset4, memcpy, memcpy44: rom_mem.S (the RP2040 ROM's algorithm and cycles). */

/* The soft float and double tables ('SF', 'SD'): the byte two before each table holds its
 * size in words, as the pico-sdk checks. The entries whose meaning is the AEABI's (the
 * arithmetic, integer to float, float <-> double) are libgcc's soft-float routines, which
 * take and return their operands in core registers as the ROM's do; every other entry
 * (comparisons with their own result conventions, float to integer with the ROM's
 * rounding, fixed point, sqrt, trigonometry, exp, ln) is a trap the model names. */
float __aeabi_fadd(float, float);
float __aeabi_fsub(float, float);
float __aeabi_fmul(float, float);
float __aeabi_fdiv(float, float);
float __aeabi_i2f(int);
float __aeabi_ui2f(unsigned);
float __aeabi_l2f(long long);
float __aeabi_ul2f(unsigned long long);
double __aeabi_f2d(float);
double __aeabi_dadd(double, double);
double __aeabi_dsub(double, double);
double __aeabi_dmul(double, double);
double __aeabi_ddiv(double, double);
double __aeabi_i2d(int);
double __aeabi_ui2d(unsigned);
double __aeabi_l2d(long long);
double __aeabi_ul2d(unsigned long long);
float __aeabi_d2f(double);

#define SF_WORDS 32
struct fn_table {
    uint16_t pad;
    uint8_t words, pad2; /* words: two bytes before entry[0] */
    uint32_t entry[SF_WORDS];
};
#define T4(f, i) f(i), f(i + 1), f(i + 2), f(i + 3)
#define T32(f) T4(f, 0), T4(f, 4), T4(f, 8), T4(f, 12), T4(f, 16), T4(f, 20), T4(f, 24), T4(f, 28)
#define FN(f) ((uint32_t)(uintptr_t)(f))
/* Entry indices: the pico-sdk's sf_table.h offsets / 4 (models/rp2040/src/rom_names.js).
 * Every entry a trap first, then the provided ones over it (hence override-init). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const struct fn_table rom_sf_table = {0, SF_WORDS, 0, {T32(ROM_TRAP_SF),
    [0] = FN(__aeabi_fadd), [1] = FN(__aeabi_fsub), [2] = FN(__aeabi_fmul),
    [3] = FN(__aeabi_fdiv), [11] = FN(__aeabi_i2f), [13] = FN(__aeabi_ui2f),
    [23] = FN(__aeabi_l2f), [25] = FN(__aeabi_ul2f), [31] = FN(__aeabi_f2d)}};
const struct fn_table rom_sd_table = {0, SF_WORDS, 0, {T32(ROM_TRAP_SD),
    [0] = FN(__aeabi_dadd), [1] = FN(__aeabi_dsub), [2] = FN(__aeabi_dmul),
    [3] = FN(__aeabi_ddiv), [11] = FN(__aeabi_i2d), [13] = FN(__aeabi_ui2d),
    [23] = FN(__aeabi_l2d), [25] = FN(__aeabi_ul2d), [31] = FN(__aeabi_d2f)}};
#pragma GCC diagnostic pop
const char rom_copyright[] = "rtlab RP2040 model ROM (not Raspberry Pi's)";
const uint32_t rom_git_revision = 0;

void *rom_table_lookup(const uint16_t *table, uint32_t code)
{
    for (const uint16_t *e = table; e[0]; e += 2)
        if (e[0] == code)
            return (void *)(uintptr_t)e[1];
    return table == rom_func_table ? ROM_TRAP_FUNC(code) : NULL;
}

/* CRC-32/MPEG-2 (poly 0x04C11DB7, init ~0, no reflection, no final xor): boot2's check. */
static uint32_t crc32_mpeg2(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xffffffffu;
    while (n--) {
        crc ^= (uint32_t)*p++ << 24;
        for (int i = 0; i < 8; i++)
            crc = crc & 0x80000000u ? crc << 1 ^ 0x04c11db7u : crc << 1;
    }
    return crc;
}

void rom_boot(void)
{
    connect_internal_flash();
    flash_exit_xip();
    flash_enter_cmd_xip();
    uint32_t *dst = (uint32_t *)BOOT2_SRAM;
    const volatile uint32_t *src = (const volatile uint32_t *)XIP_NOCACHE_NOALLOC;
    for (int i = 0; i < 64; i++)
        dst[i] = src[i];
    if (crc32_mpeg2((const uint8_t *)BOOT2_SRAM, 252) != dst[63])
        reset_to_usb_boot(0, 0); /* the RP2040's ROM falls back to USB boot */
    rom_enter_boot2(BOOT2_SRAM + 1u);
}
