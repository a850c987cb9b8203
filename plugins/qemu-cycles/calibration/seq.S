/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calibration's timed sequences. Each is bracketed the same way:
 *
 *     str  r6, [r6, #4] @ channel 0 high (r6 = rtb_marker_words: word 1 sets, word 0 clears)
 *     nop               @ keeps the body's first load from pipelining with the store
 *     <body>
 *     mov  r6, r8       @ the marker address again (a body may overwrite r6)
 *     str  r6, [r6]     @ channel 0 low
 *
 * so a body's cycles are its bracket's minus the empty bracket's (the first sequence).
 * The order here is the test's (tests/lab/test_qemu_cycles_calibration.py, SEQUENCES):
 * the ARMv6-M ones on every core, then the ARMv7-M / v8-M Mainline ones.
 */
    .syntax unified
    .thumb
    .text

#define ISPR(irq) (0xE000E200 + 4 * ((irq) / 32))
#define IRQ_BIT(irq) (1 << ((irq) % 32))

    .global cal_irq_a
    .global cal_irq_b
    .type cal_irq_a, %function
    .type cal_irq_b, %function
    .thumb_func
cal_irq_a:
    bx lr
    .thumb_func
cal_irq_b:
    bx lr

    .type cal_leaf, %function
    .thumb_func
cal_leaf:
    bx lr

.macro BEGIN
    push {r4-r7, lr}
    mov r4, r8
    push {r4}
    ldr r6, =rtb_marker_words
    mov r8, r6
    ldr r5, =cal_data
    ldr r0, =cal_data
    movs r1, #3
    movs r2, #0
    movs r3, #5
.endm
.macro START
    str r6, [r6, #4]
    nop
.endm
.macro END
    mov r6, r8
    str r6, [r6]
    pop {r4}
    mov r8, r4
    pop {r4-r7, pc}
.endm
.macro SEQ name
    .type cal_\name, %function
    .thumb_func
cal_\name:
    BEGIN
.endm

SEQ empty
    START
    END

SEQ alu8
    START
    .rept 8
    adds r2, r2, #1
    .endr
    END

SEQ muls4
    START
    .rept 4
    muls r2, r1, r2
    .endr
    END

SEQ ldr4
    START
    .rept 4
    ldr r2, [r5]
    .endr
    END

SEQ ldr_dependent2
    START
    ldr r5, [r5]
    ldr r5, [r5]
    END

SEQ str4
    START
    .rept 4
    str r2, [r5]
    .endr
    END

SEQ ldm1
    START
    ldm r0!, {r1}
    END

SEQ ldm4
    START
    ldm r0!, {r1-r4}
    END

SEQ ldm8
    START
    ldm r0, {r0-r7}
    END

SEQ push_pop3
    START
    push {r1-r3}
    pop {r1-r3}
    END

SEQ b_taken
    START
    b 1f
    nop
1:
    END

SEQ bcc_taken
    START
    cmp r0, r0
    beq 1f
    nop
1:
    END

SEQ bcc_not_taken
    START
    cmp r0, r0
    bne 1f
    nop
1:
    END

SEQ bl_bx
    START
    bl cal_leaf
    END

SEQ exception
    ldr r1, =ISPR(CAL_IRQ)
    ldr r0, =IRQ_BIT(CAL_IRQ)
    START
    str r0, [r1]
    END

SEQ tail_chain
    ldr r1, =ISPR(CAL_IRQ)
    ldr r0, =(3 << (CAL_IRQ % 32))
    START
    str r0, [r1]
    END

#if !defined(__ARM_ARCH_6M__)
SEQ udiv2
    START
    udiv r2, r3, r1
    udiv r2, r3, r1
    END

SEQ umull2
    START
    umull r2, r4, r3, r1
    umull r2, r4, r3, r1
    END

SEQ mla2
    START
    mla r2, r3, r1, r2
    mla r2, r3, r1, r2
    END

SEQ ldrd1
    START
    ldrd r2, r3, [r5]
    END

SEQ b_wide_unaligned
    START
    b 2f
3:
    END
    .p2align 2
    nop                 @ never executed: puts 2: on a halfword boundary
2:
    add.w r2, r2, #1
    b 3b
#endif
    .ltorg

    .global cal_run_all
    .type cal_run_all, %function
    .thumb_func
cal_run_all:
    push {r4, lr}
    ldr r4, =cal_sequences
1:
    ldr r0, [r4]
    cmp r0, #0
    beq 2f
    blx r0
    adds r4, r4, #4
    b 1b
2:
    pop {r4, pc}

    .section .rodata
    .p2align 2
cal_sequences:
    .word cal_empty, cal_alu8, cal_muls4, cal_ldr4, cal_ldr_dependent2, cal_str4
    .word cal_ldm1, cal_ldm4, cal_ldm8, cal_push_pop3, cal_b_taken, cal_bcc_taken
    .word cal_bcc_not_taken, cal_bl_bx, cal_exception, cal_tail_chain
#if !defined(__ARM_ARCH_6M__)
    .word cal_udiv2, cal_umull2, cal_mla2, cal_ldrd1, cal_b_wide_unaligned
#endif
    .word 0
