/* The ROM's lookup tables (RP2040 datasheet 2.8.3): pairs of 16-bit code ('P' | '3' << 8)
 * and 16-bit address, ended by a 0 code; function addresses are Thumb (odd). */
    .syntax unified
    .section .rodata.rom_tables, "a"
    .balign 4
    .global rom_func_table
rom_func_table:
    .macro fn c1, c2, f
    .hword \c1 | (\c2 << 8), \f + 1
    .endm
    fn 'P', '3', popcount32
    fn 'R', '3', reverse32
    fn 'L', '3', clz32
    fn 'T', '3', ctz32
    fn 'M', 'S', rom_memset
    fn 'S', '4', rom_memset4
    fn 'M', 'C', rom_memcpy
    fn 'C', '4', rom_memcpy44
    fn 'I', 'F', connect_internal_flash
    fn 'E', 'X', flash_exit_xip
    fn 'R', 'E', flash_range_erase
    fn 'R', 'P', flash_range_program
    fn 'F', 'C', flash_flush_cache
    fn 'C', 'X', flash_enter_cmd_xip
    fn 'D', 'T', debug_trampoline
    fn 'D', 'E', debug_trampoline_end
    fn 'U', 'B', reset_to_usb_boot
    fn 'W', 'V', rom_core1_wait
    .hword 0, 0

    .balign 4
    .global rom_data_table
rom_data_table:
    .hword 'C' | ('R' << 8), rom_copyright
    .hword 'G' | ('R' << 8), rom_git_revision
    .hword 'S' | ('F' << 8), rom_sf_table + 4   /* the entries, after size byte and pad */
    .hword 'S' | ('D' << 8), rom_sd_table + 4
    .hword 0, 0
