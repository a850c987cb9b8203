/*
 * Ends latency_measure on the RP2040 model: Zephyr's main thread calls main() (the
 * benchmark's, linked as __real_main through -Wl,--wrap=main); when it returns, every
 * result line has been printed, and the done line the model stops at (rtbench's) says
 * so. Nothing runs before or during the benchmark.
 */
#include <zephyr/sys/printk.h>

int __real_main(void);
int __wrap_main(void);

int __wrap_main(void)
{
    int status = __real_main();
    printk("rtbench: done errors=%d\n", status != 0);
    return status;
}
