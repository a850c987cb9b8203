/*
 * rtbench on FreeRTOS: the semaphore give and take the suite times, inline
 * (rtbench_port.h), so that a timed region holds the kernel's call and no call into the
 * port.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include "FreeRTOS.h"
#include "semphr.h"

/* rtb_timeout holds a TickType_t as it is: RTB_NO_WAIT is 0, RTB_FOREVER portMAX_DELAY
 * (rtb_port_freertos.c asserts it), so a blocking call passes it on unchanged. */
#define RTB_FREERTOS_TICKS(t) ((TickType_t)(t).ticks)

RTB_INLINE int rtb_sem_take(rtb_sem *s, rtb_timeout t)
{
    return xSemaphoreTake((SemaphoreHandle_t)s, RTB_FREERTOS_TICKS(t)) == pdTRUE ? 0 : -1;
}

RTB_INLINE void rtb_sem_give(rtb_sem *s) { (void)xSemaphoreGive((SemaphoreHandle_t)s); }

#endif
