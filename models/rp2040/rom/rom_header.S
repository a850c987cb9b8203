/* The ROM's first bytes (RP2040 datasheet 2.8.2): initial SP and reset vector, NMI and
 * HardFault, then at 0x10 the magic 'M' 'u' 0x01, the version byte (3: an RP2040-B2),
 * and the 16-bit pointers to the function table (0x14), the data table (0x16) and
 * rom_table_lookup (0x18, a Thumb address). */
    .syntax unified
    .cpu cortex-m0plus
    .thumb
    .section .rom_header, "ax"
    .word 0x20041f00            /* below boot2's copy (0x20041f00..0x20042000) */
    .word rom_reset
    .word rom_fault
    .word rom_fault
    .byte 'M', 'u', 0x01
    .byte 3
    .hword rom_func_table
    .hword rom_data_table
    .hword rom_table_lookup + 1

    .text
    .global rom_reset
    .type rom_reset, %function
    .thumb_func
rom_reset:                     /* both cores start here; core 1 waits for its vector */
    ldr r0, =0xd0000000         /* SIO CPUID */
    ldr r0, [r0]
    cmp r0, #0
    beq 2f
    bl rom_core1_wait           /* never returns (no stack: rom_core1.S) */
2:  ldr r0, =0x20041f00
    mov sp, r0
    bl rom_boot
1:  b 1b

    .type rom_fault, %function
    .thumb_func
rom_fault:                     /* a fault before the image has its own table: stop here */
    bkpt #0xf5
    b rom_fault

/* Enter boot stage 2 as the RP2040's ROM does: a jump, not a call (LR = 0 tells boot2 to
 * vector into the image instead of returning). r0 = its Thumb entry address. */
    .global rom_enter_boot2
    .type rom_enter_boot2, %function
    .thumb_func
rom_enter_boot2:
    movs r1, #0
    mov lr, r1
    bx r0

/* Simple debugger trampoline: call r7 with r0..r3, then stop at a BKPT #0. */
    .global debug_trampoline
    .type debug_trampoline, %function
    .thumb_func
debug_trampoline:
    blx r7
    bkpt #0
    .global debug_trampoline_end
    .type debug_trampoline_end, %function
    .thumb_func
debug_trampoline_end:
    b debug_trampoline_end
    .ltorg
