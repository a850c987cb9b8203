/* PIO edge capture: per-channel state machines, DMA rings, compact encoding. */
#ifndef CAPTURE_H
#define CAPTURE_H
#include <stdint.h>

#define MAX_CHANNELS 8u
#define SAMPLE_CYCLES 2u /* the PIO program samples every 2 system clocks */
#define RING_POOL_WORDS (224u * 1024u / 4u) /* 57344 edges of buffer in total */

#define CFG_TEST_X_WRAP 1u /* start X at 2^16 so it wraps after 65536 samples (tests) */
#define CFG_FINE 2u        /* 8 ns: two state machines per pin on alternate cycles */
#define MAX_STREAMS 8u     /* state machines, i.e. record streams */

typedef struct {
    uint8_t base_pin, nch, st_gpio, st_div;
    uint16_t st_top;
    uint8_t flags;
} capture_cfg_t;

int capture_start(const capture_cfg_t *cfg); /* 0 ok, else an error code */
void capture_request_stop(void);
/* Moves edges from the DMA rings to the output; returns 0 once stopped and reported. */
int capture_poll(void);
int capture_running(void);
#endif
