/*
 * Ends latency_measure in QEMU: Zephyr's main thread calls main() (the benchmark's,
 * linked as __real_main through -Wl,--wrap=main); when it returns, every result line
 * has been printed and QEMU is told to exit through semihosting. Nothing runs before
 * or during the benchmark.
 */
#include "mps2.h"

int __real_main(void);
int __wrap_main(void);

int __wrap_main(void)
{
    int status = __real_main();
    mps2_exit(status);
}
