/* Core 1's wait for its vector (RP2040 datasheet 2.8.2, "launching code on core 1"), in
 * registers only: core 0's stack may be anywhere in SRAM meanwhile, so this loop keeps no
 * state in memory.
 *
 * handshake: drain the RX FIFO, SEV, send 0 to core 0; then read a word from core 0:
 *   0        -> handshake again (so 0 is echoed by the next handshake's 0)
 *   1        -> echo it, then read the vector table, the stack pointer and the entry
 *               point, echoing each; set VTOR and MSP and jump to the entry
 *   other    -> handshake again (core 0 sees 0 where it expected its word: it restarts)
 * This accepts the pico-sdk's sequence (reset: pop the 0; then 0, 0, 1, VTOR, SP, entry,
 * each echoed) and NuttX's (drain, then 0, 1, VTOR, SP, entry). Reading or waiting for
 * the FIFO sleeps in WFE; core 0 sends SEV after each write. */
    .syntax unified
    .cpu cortex-m0plus
    .thumb
    .text

    .equ SIO_BASE, 0xd0000000
    .equ FIFO_ST, 0x50
    .equ FIFO_WR, 0x54
    .equ FIFO_RD, 0x58
    .equ PPB_VTOR, 0xe000ed08

    .global rom_core1_wait
    .type rom_core1_wait, %function
    .thumb_func
rom_core1_wait:
    ldr r4, =SIO_BASE
handshake:
1:  ldr r1, [r4, #FIFO_ST]      /* drain */
    lsrs r1, r1, #1             /* VLD -> C */
    bcc 2f
    ldr r1, [r4, #FIFO_RD]
    b 1b
2:  sev
    movs r0, #0
    bl fifo_push
    bl fifo_pop
    cmp r0, #0
    beq handshake
    cmp r0, #1
    bne handshake
    bl fifo_push                /* echo 1 */
    bl fifo_pop
    bl fifo_push
    mov r6, r0                  /* vector table */
    bl fifo_pop
    bl fifo_push
    mov r7, r0                  /* stack pointer */
    bl fifo_pop
    bl fifo_push                /* r0: entry point */
    ldr r1, =PPB_VTOR
    str r6, [r1]
    msr msp, r7
    movs r1, #1
    orrs r0, r1
    bx r0

/* r0 -> core 0 (waits for room), then SEV. Clobbers r1. */
    .type fifo_push, %function
    .thumb_func
fifo_push:
    ldr r1, [r4, #FIFO_ST]
    lsrs r1, r1, #2             /* RDY -> C */
    bcc fifo_push
    str r0, [r4, #FIFO_WR]
    sev
    bx lr

/* r0 <- core 0, asleep in WFE while the FIFO is empty. */
    .type fifo_pop, %function
    .thumb_func
fifo_pop:
    ldr r0, [r4, #FIFO_ST]
    lsrs r0, r0, #1             /* VLD -> C */
    bcs 3f
    wfe
    b fifo_pop
3:  ldr r0, [r4, #FIFO_RD]
    bx lr
    .ltorg
