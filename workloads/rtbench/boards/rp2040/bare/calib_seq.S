/* The calibration program's timed sequences (calib.c), run from SRAM so no XIP miss
 * enters them. Each calib_<name> reads SysTick's CVR (r6 = its address) before and after
 * its body and returns the difference: the body's cycles plus the read's own 2 cycles
 * (calib_empty measures those). r7 carries the SVC handler's own CVR read out.
 * Expected figures per instance: calib.c, from the Cortex-M0+ TRM (ARM DDI 0484C, 3.3). */
    .syntax unified
    .cpu cortex-m0plus
    .thumb

    .macro timed name
    .section .ramfunc.calib_\name, "ax"
    .global calib_\name
    .type calib_\name, %function
    .thumb_func
calib_\name:
    push {r4-r7, lr}
    ldr r6, =0xe000e018
    .endm
    .macro start
    ldr r4, [r6]
    .endm
    .macro stop
    ldr r5, [r6]
    subs r0, r4, r5
    lsls r0, r0, #8             @ SysTick counts down through 24 bits
    lsrs r0, r0, #8
    pop {r4-r7, pc}
    .ltorg
    .endm

    timed empty
    start
    stop

    timed nop
    start
    .rept 8
    nop
    .endr
    stop

    timed ldr_sram
    ldr r1, =calib_word
    start
    .rept 8
    ldr r0, [r1]
    .endr
    stop

    timed str_sram
    ldr r1, =calib_word
    start
    .rept 8
    str r0, [r1]
    .endr
    stop

    timed ldr_sio                @ SIO CPUID: the single-cycle I/O port
    ldr r1, =0xd0000000
    start
    .rept 8
    ldr r0, [r1]
    .endr
    stop

    timed b                      @ unconditional, to the next instruction
    start
    .rept 8
    b 1f
1:
    .endr
    stop

    timed bcond_taken
    cmp r0, r0
    start
    .rept 8
    beq 1f
1:
    .endr
    stop

    timed bcond_not_taken
    cmp r0, r0
    start
    .rept 8
    bne 1f
1:
    .endr
    stop

    timed bl_bx                  @ BL to a BX LR: 8 pairs
    start
    .rept 8
    bl calib_ret
    .endr
    stop

    timed ldm1
    ldr r1, =calib_words
    start
    .rept 8
    mov r0, r1
    ldm r0!, {r2}
    .endr
    stop

    timed ldm4
    ldr r1, =calib_words
    start
    .rept 8
    mov r7, r1
    ldm r7!, {r0, r2, r3, r5}   @ r4 holds the start time
    .endr
    stop

    timed stm4
    ldr r1, =calib_words
    start
    .rept 8
    mov r7, r1
    stm r7!, {r0, r2, r3, r5}
    .endr
    stop

    timed push4_pop4
    start
    .rept 8
    push {r0-r3}
    pop {r0-r3}
    .endr
    stop

    timed call_push_lr_pop_pc    @ BL + PUSH {r4, LR} + POP {r4, PC}: 8 calls
    start
    .rept 8
    bl calib_frame
    .endr
    stop

    timed muls
    movs r1, #3
    start
    .rept 8
    muls r0, r1, r0
    .endr
    stop

    timed mrs_msr
    start
    .rept 4
    mrs r0, primask
    msr primask, r0
    .endr
    stop

    timed barriers
    start
    .rept 4
    dsb
    dmb
    isb
    .endr
    stop

    timed svc                    @ SVC to a handler that reads CVR (r7) and returns
    start
    svc #0
    ldr r5, [r6]
    subs r0, r4, r7              @ r0: to the handler's first instruction
    subs r1, r7, r5              @ r1: from it back, through the return
    lsls r0, r0, #8
    lsrs r0, r0, #8
    lsls r1, r1, #8
    lsrs r1, r1, #8
    ldr r2, =calib_svc_back
    str r1, [r2]
    pop {r4-r7, pc}
    .ltorg

    .section .ramfunc.calib_helpers, "ax"
    .type calib_ret, %function
    .thumb_func
calib_ret:
    bx lr
    .type calib_frame, %function
    .thumb_func
calib_frame:
    push {r4, lr}
    pop {r4, pc}
    .global svc_handler
    .type svc_handler, %function
    .thumb_func
svc_handler:
    ldr r7, [r6]
    bx lr

    .data
    .balign 4
calib_word:
    .word 0
calib_words:
    .word 0, 0, 0, 0
    .global calib_svc_back
calib_svc_back:
    .word 0
