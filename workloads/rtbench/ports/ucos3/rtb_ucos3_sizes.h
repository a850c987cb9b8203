/*
 * The µC/OS-III port's static pools (µC/OS-III allocates nothing: every TCB, stack and
 * object is the port's). Two sets: the default one (mps2 and the 128 KiB boards) and,
 * with RTB_UCOS3_SMALL=1 (boards with 16-20 KiB of RAM: microbit, nucleo-l073rz,
 * nucleo-f103rb), one sized for what rtbench's primitives, irq and Thread-Metric
 * scenarios hold at once on one core: 6 threads, 12 semaphores, 3 queues; its interrupt
 * stack is the reset stack (os_cfg_app.h, rtb_port_ucos3.c). A run that
 * needs more gets NULL from a create and ends in error, never a wrong figure.
 * The stacks come from the board description (RTB_THREAD_STACK_WORDS,
 * BOARD_MAIN_TASK_WORDS), as in the FreeRTOS build.
 */
#ifndef RTB_UCOS3_SIZES_H
#define RTB_UCOS3_SIZES_H

#ifndef RTB_MAX_WORKERS
#define RTB_MAX_WORKERS 16
#endif
#ifndef RTB_THREAD_STACK_WORDS
#define RTB_THREAD_STACK_WORDS 512 /* 2 KiB, as the FreeRTOS port: no large locals */
#endif
#ifdef BOARD_MAIN_TASK_WORDS
#define RTB_UCOS3_MAIN_STACK_WORDS BOARD_MAIN_TASK_WORDS
#else
#define RTB_UCOS3_MAIN_STACK_WORDS 4096
#endif

#if defined(RTB_UCOS3_SMALL) && RTB_UCOS3_SMALL
#define RTB_UCOS3_THREADS 6       /* Thread-Metric T2/T3: 5 workers + the window timer */
#define RTB_UCOS3_SEMS 12
#define RTB_UCOS3_QUEUES 3        /* primitives holds 2 */
#define RTB_UCOS3_QUEUE_STORE 192 /* Thread-Metric's (8 + 2) x 16 bytes fit */
#define RTB_UCOS3_EVENTS 4
#define RTB_UCOS3_MUTEXES 4
#define RTB_UCOS3_BLOCKS 2 /* T8 holds one block at a time */
#else
#define RTB_UCOS3_THREADS (RTB_MAX_WORKERS + 4)
#define RTB_UCOS3_SEMS 48
#define RTB_UCOS3_QUEUES 8
#define RTB_UCOS3_QUEUE_STORE 512
#define RTB_UCOS3_EVENTS 8
#define RTB_UCOS3_MUTEXES 8
#define RTB_UCOS3_BLOCKS 32
#endif

#endif
