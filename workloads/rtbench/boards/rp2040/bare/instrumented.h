/* The smoke image's marked paths (instrumented.c). */
#ifndef SMOKE_INSTRUMENTED_H
#define SMOKE_INSTRUMENTED_H

#include <stdint.h>

/* Runs them and prints their series; returns the number of failed checks. flash_path is
 * smoke.c's path in flash; swi_ts the software interrupt handler's last timestamp. */
int smoke_instrumented(uint32_t (*flash_path)(uint32_t), volatile uint32_t *swi_ts);

#endif
