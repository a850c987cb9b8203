/* Vector table and reset handler. Everything except these runs from SRAM: the reset
 * handler (in flash) copies .ramtext/.data there first, so timing does not depend on
 * the XIP cache and the 03h-read flash interface boot2 sets up. */
    .syntax unified
    .cpu cortex-m0plus
    .thumb

    .section .vectors, "a"
    .global vector_table
vector_table:
    .word __stack_top
    .word reset_handler
    .rept 46                   /* NMI .. IRQ31: all unexpected */
    .word default_handler
    .endr

    .section .reset, "ax"
    .global reset_handler
    .type reset_handler, %function
    .thumb_func
reset_handler:
    ldr r0, =__ram_load        /* copy code + data from flash to SRAM */
    ldr r1, =__ram_start
    ldr r2, =__ram_end
1:  cmp r1, r2
    bhs 2f
    ldmia r0!, {r3}
    stmia r1!, {r3}
    b 1b
2:  ldr r1, =__bss_start       /* zero .bss */
    ldr r2, =__bss_end
    movs r3, #0
3:  cmp r1, r2
    bhs 4f
    stmia r1!, {r3}
    b 3b
4:  ldr r0, =main
    blx r0
5:  b 5b

    .type default_handler, %function
    .thumb_func
default_handler:
    b default_handler
    .ltorg
