/*
 * rtlab's RP2040 model ROM: what the RP2040's boot ROM offers an image (RP2040 datasheet
 * 2.8: the header at 0x10, the lookup tables, the functions and data images look up),
 * written for the model. Where the model is the hardware (the flash's erase and program
 * commands, a function this ROM does not provide) the ROM calls it with BKPT #0xF0..#0xF4
 * (models/rp2040/src/machine.js); on silicon those would stop at a debugger.
 */
#ifndef RTLAB_RP2040_ROM_H
#define RTLAB_RP2040_ROM_H

#include <stddef.h>
#include <stdint.h>

#define REG(a) (*(volatile uint32_t *)(a))
#define SIO_CPUID 0xd0000000u
#define SIO_FIFO_ST 0xd0000050u
#define SIO_FIFO_WR 0xd0000054u
#define SIO_FIFO_RD 0xd0000058u
#define SSI_BASE 0x18000000u
#define XIP_CTRL_FLUSH 0x14000004u
#define XIP_NOCACHE_NOALLOC 0x13000000u
#define BOOT2_SRAM 0x20041f00u

/* A function the ROM does not provide: rom_table_lookup returns this address, where the
 * model traps and names the code (machine.js TRAP_BASE). */
#define ROM_TRAP_FUNC(code) ((void *)(0x00010000u + 2u * (code) + 1u))
#define ROM_TRAP_SF(i) (0x00030000u + 4u * (i) + 1u)
#define ROM_TRAP_SD(i) (0x00030100u + 4u * (i) + 1u)

#define ROM_CODE(c1, c2) ((uint32_t)(c1) | (uint32_t)(c2) << 8)

void *rom_table_lookup(const uint16_t *table, uint32_t code);
extern const uint16_t rom_func_table[]; /* rom_tables.S */
extern const uint16_t rom_data_table[];

void connect_internal_flash(void);
void flash_exit_xip(void);
void flash_range_erase(uint32_t addr, size_t count, uint32_t block_size, uint8_t block_cmd);
void flash_range_program(uint32_t addr, const uint8_t *data, size_t count);
void flash_flush_cache(void);
void flash_enter_cmd_xip(void);
void reset_to_usb_boot(uint32_t gpio_activity_pin_mask, uint32_t disable_interface_mask);
void rom_core1_wait(void) __attribute__((noreturn)); /* rom_core1.S */
void rom_enter_boot2(uint32_t entry) __attribute__((noreturn));

#endif
