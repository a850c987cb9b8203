/*
 * The ROM's flash functions on the model. The SSI setup is what the RP2040's ROM leaves
 * (serial 03h reads, 32-bit frames, 24-bit address), so the model's XIP miss cost follows
 * it; the erase and program commands are the model's (BKPT #0xF0 / #0xF1), which acts on
 * its flash array: erase sets 4 KiB sectors to 0xFF, program clears bits of 256-byte pages.
 */
#include "rom.h"

#define SSI_CTRLR0 (SSI_BASE + 0x00u)
#define SSI_CTRLR1 (SSI_BASE + 0x04u)
#define SSI_SSIENR (SSI_BASE + 0x08u)
#define SSI_SPI_CTRLR0 (SSI_BASE + 0xf4u)

void connect_internal_flash(void) {}

void flash_exit_xip(void) { REG(SSI_SSIENR) = 0; }

void flash_enter_cmd_xip(void)
{
    REG(SSI_SSIENR) = 0;
    REG(SSI_CTRLR0) = 0x001f0300u;     /* standard SPI, 32-bit frames, EEPROM read */
    REG(SSI_SPI_CTRLR0) = 0x03000218u; /* XIP command 03h, 8-bit instruction, 24-bit address */
    REG(SSI_CTRLR1) = 0;
    REG(SSI_SSIENR) = 1;
}

void flash_range_erase(uint32_t addr, size_t count, uint32_t block_size, uint8_t block_cmd)
{
    (void)block_size;
    (void)block_cmd;
    register uint32_t r0 __asm__("r0") = addr;
    register uint32_t r1 __asm__("r1") = count;
    __asm__ volatile("bkpt #0xf0" ::"r"(r0), "r"(r1) : "memory");
}

void flash_range_program(uint32_t addr, const uint8_t *data, size_t count)
{
    register uint32_t r0 __asm__("r0") = addr;
    register const uint8_t *r1 __asm__("r1") = data;
    register uint32_t r2 __asm__("r2") = count;
    __asm__ volatile("bkpt #0xf1" ::"r"(r0), "r"(r1), "r"(r2) : "memory");
}

/* As the RP2040's ROM: flush the XIP cache, and read FLUSH back to wait for it. */
void flash_flush_cache(void)
{
    REG(XIP_CTRL_FLUSH) = 1;
    (void)REG(XIP_CTRL_FLUSH);
}

void reset_to_usb_boot(uint32_t gpio_activity_pin_mask, uint32_t disable_interface_mask)
{
    (void)gpio_activity_pin_mask;
    (void)disable_interface_mask;
    for (;;)
        __asm__ volatile("bkpt #0xf4");
}
