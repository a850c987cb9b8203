/*
 * The ROM's memory functions ('MC' memcpy, 'C4' memcpy44, 'MS' memset, 'S4' memset4),
 * written for rtlab's model to do what the RP2040's boot ROM does, instruction class for
 * instruction class, so that a copy costs on the model what it costs on a Pico (the
 * pico-sdk sends memcpy and memset to these, and every FreeRTOS or µC/OS-III queue item
 * goes through one):
 *
 * - under 8 bytes: a computed branch into a run of byte moves, the last byte first;
 * - copy, source and destination not co-aligned (their difference not a multiple of 4):
 *   byte by byte, from the last byte down;
 * - otherwise: up to 3 head bytes (a byte to reach an even address, a halfword to reach
 *   a word), then 16 bytes a turn by LDM/STM of four registers, then the rest taken from
 *   the low 4 bits of the count: 8 bytes (two registers), 4 (one), a halfword, a byte.
 *   The fill spreads its byte over a word first and stores 16 bytes a turn with one STM.
 * - memcpy44 and memset4 assume word-aligned pointers and skip the head; memcpy44 under
 *   8 bytes takes the byte moves too.
 *
 * Arguments and results as the ROM's: (dest, src, n) and (ptr, c, n) in r0..r2, dest or
 * ptr back in r0. r3 and ip are scratch; r4..r6 are saved around the block loops.
 * tests/models/rp2040/test_rom_copy.py checks the cycles of each path against the
 * Cortex-M0+ TRM's table.
 */
    .syntax unified
    .cpu cortex-m0plus
    .thumb
    .section .text.rom_mem, "ax"

/* ---- copies ---- */

    .balign 4
    .global rom_memcpy44
    .type rom_memcpy44, %function
    .thumb_func
rom_memcpy44:
    mov ip, r0                  @ the result
    cmp r2, #8
    blo copy_small
    push {r4, r5, r6}
    b copy_blocks

    .thumb_func
copy_down_bytes:                @ r2 >= 8 bytes that cannot move as words
    subs r2, #1
    ldrb r3, [r1, r2]
    strb r3, [r0, r2]
    bne copy_down_bytes
    mov r0, ip
    bx lr

    .balign 4
    .global rom_memcpy
    .type rom_memcpy, %function
    .thumb_func
rom_memcpy:
    mov ip, r0
    cmp r2, #8
    blo copy_small
    subs r3, r0, r1
    lsls r3, #30                @ the low 2 bits of dest - src
    bne copy_down_bytes
    push {r4, r5, r6}
    subs r1, r0                 @ r1 = src - dest while the head moves
    mov r5, r0                  @ where dest started
    lsrs r3, r0, #1             @ C = bit 0 of dest
    bcc 1f
    ldrb r4, [r0, r1]
    strb r4, [r0]
    adds r0, #1
1:  lsrs r3, r0, #2             @ C = bit 1 of dest
    bcc 2f
    ldrh r4, [r0, r1]
    strh r4, [r0]
    adds r0, #2
2:  adds r1, r0                 @ src again
    subs r5, r0                 @ - the head's length
    adds r2, r5
copy_blocks:                    @ r0, r1 word-aligned, r2 bytes, r4..r6 saved
    subs r2, #16
    bcc copy_rest
3:  ldm r1!, {r3, r4, r5, r6}
    stm r0!, {r3, r4, r5, r6}
    subs r2, #16
    bcs 3b
copy_rest:                      @ the count's low 4 bits say what is left
    lsls r2, #29                @ C = 8s bit
    bcc 4f
    ldm r1!, {r3, r4}
    stm r0!, {r3, r4}
4:  lsls r2, #1                 @ C = 4s bit, Z: nothing after it
    bcc 5f
    ldm r1!, {r3}
    stm r0!, {r3}
5:  beq copy_done
    lsls r2, #1                 @ C = 2s bit, Z: no byte after it
    bcc 6f
    ldrh r3, [r1]
    strh r3, [r0]
    beq copy_done
    adds r1, #2
    adds r0, #2
6:  beq copy_done               @ (Z clear here: falls through)
    ldrb r3, [r1]
    strb r3, [r0]
copy_done:
    pop {r4, r5, r6}
    mov r0, ip
    bx lr

    .thumb_func
copy_small:                     @ n < 8: enter the byte moves n pairs before their end
    adr r3, copy_small_end
    lsls r2, #2                 @ 4 bytes of code a byte
    subs r3, r2
    adds r3, #1                 @ Thumb
    bx r3
    .balign 4
    .irp i, 6, 5, 4, 3, 2, 1, 0
    ldrb r3, [r1, #\i]
    strb r3, [r0, #\i]
    .endr
copy_small_end:
    mov r0, ip
    bx lr

/* ---- fills ---- */

    .balign 4
    .global rom_memset4
    .type rom_memset4, %function
    .thumb_func
rom_memset4:
    mov ip, r0
    uxtb r1, r1
    lsls r3, r1, #8
    orrs r1, r3                 @ the byte in both bytes of a halfword
    b fill_words

    .balign 4
    .global rom_memset
    .type rom_memset, %function
    .thumb_func
rom_memset:
    mov ip, r0
    cmp r2, #8
    blo fill_small
    lsrs r3, r0, #1             @ C = bit 0 of ptr
    bcc 1f
    strb r1, [r0]
    adds r0, #1
1:  uxtb r1, r1
    lsls r3, r1, #8
    orrs r1, r3
    lsrs r3, r0, #2             @ C = bit 1 of ptr
    bcc 2f
    strh r1, [r0]
    adds r0, #2
2:  mov r3, ip
    subs r3, r0
    adds r2, r3                 @ n - the head's length
fill_words:                     @ r0 word-aligned, r1 = the byte in its low halfword twice
    rev r3, r1
    orrs r1, r3                 @ and in all four bytes
    mov r3, r1
    subs r2, #16
    bcc fill_rest
    push {r4, r5}
    mov r4, r1
    mov r5, r1
    nop                         @ the RP2040 ROM's loop alignment, run once: its cycle kept
3:  stm r0!, {r1, r3, r4, r5}
    subs r2, #16
    bcs 3b
    pop {r4, r5}
fill_rest:
    lsls r2, #29                @ C = 8s bit
    bcc 4f
    stm r0!, {r1, r3}
4:  lsls r2, #1                 @ C = 4s bit, Z: nothing after it
    bcc 5f
    stm r0!, {r1}
5:  beq fill_done
    lsls r2, #1                 @ C = 2s bit, Z: no byte after it
    bcc 6f
    strh r1, [r0]
    beq fill_done
    adds r0, #2
6:  beq fill_done               @ (Z clear here: falls through)
    strb r1, [r0]
fill_done:
    mov r0, ip
    bx lr

    .thumb_func
fill_small:                     @ n < 8: enter the byte stores n before their end
    adr r3, fill_small_end
    subs r3, r2
    subs r3, r2                 @ 2 bytes of code a byte
    adds r3, #1
    bx r3
    .balign 4
    nop                         @ never run: puts the table's end on a word (ADR's need)
    .irp i, 6, 5, 4, 3, 2, 1, 0
    strb r1, [r0, #\i]
    .endr
fill_small_end:
    mov r0, ip
    bx lr
