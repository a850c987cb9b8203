/* Two loops for test/shared_bus.js, position-independent (copied to each core's own SRAM
 * words): r0 = the address read, r1 = turns; each ends asleep in WFI (nothing wakes it). */
    .syntax unified
    .thumb
    .global bank_loop
    .thumb_func
bank_loop:                 @ offset 0: four words from one SRAM bank a turn (LDM)
    ldm r0!, {r4, r5, r6, r7}
    subs r0, #16
    subs r1, #1
    bne bank_loop
1:  wfi
    b 1b
    .balign 16
    .global flash_loop
    .thumb_func
flash_loop:                @ offset 16: one word from the flash a turn
    ldr r2, [r0]
    subs r1, #1
    bne flash_loop
1:  wfi
    b 1b
