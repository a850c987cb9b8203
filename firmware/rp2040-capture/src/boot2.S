/* Second-stage boot (boot2): the bootrom copies these 252 bytes (+ CRC) to SRAM and
 * runs them. We set the flash interface (XIP SSI) up for plain 03h serial reads, which
 * every SPI flash supports (slow but safe), then enter the vector table at 0x10000100.
 * Position independent: it runs at 0x20041f00 on silicon, at 0x10000000 in rp2040js. */
    .syntax unified
    .cpu cortex-m0plus
    .thumb
    .section .boot2_code, "ax"
    .global boot2_entry
    .type boot2_entry, %function
boot2_entry:
    push {lr}
    ldr r3, =0x18000000        /* XIP_SSI base */
    movs r1, #0
    str r1, [r3, #0x08]        /* SSIENR = 0: the SSI must be off to configure it */
    movs r1, #4
    str r1, [r3, #0x14]        /* BAUDR = 4: SCK = clk_sys / 4 */
    ldr r1, =0x001f0300        /* CTRLR0: standard SPI, 32-bit frames, EEPROM-read mode */
    str r1, [r3, #0x00]
    ldr r1, =0x03000218        /* SPI_CTRLR0: cmd 0x03, 8-bit instruction, 24-bit address */
    movs r2, #0xf4
    str r1, [r3, r2]
    movs r1, #0
    str r1, [r3, #0x04]        /* CTRLR1 = 0: one data frame per XIP access */
    movs r1, #1
    str r1, [r3, #0x08]        /* SSIENR = 1 */
    pop {r0}
    cmp r0, #0                 /* called as a function (LR != 0): return */
    beq 1f
    bx r0
1:  ldr r0, =0x10000100        /* our vector table, right after boot2 */
    ldr r1, =0xe000ed08        /* VTOR */
    str r0, [r1]
    ldmia r0!, {r1, r2}        /* initial SP, reset handler */
    msr msp, r1
    bx r2
    .ltorg
