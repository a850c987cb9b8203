/* Marker pins around measured paths (--markers, off by default: docs/rtbench.md), the
 * STM32 study's method: a pin goes high just after a path's first timestamp and low just
 * before its last, so an instrument on the pin (a logic analyzer, the rtlab capture
 * module) times the same path from outside; the irq scenario toggles one pin in the
 * handler and one in the task it wakes (K4perf). Marked, an internal figure includes the
 * pin's own cost, measured in every run (series marker_cost).
 *
 * Every edge on channels 0..3 is counted from the image's start (both directions), so
 * an instrument's capture of the whole run finds each sample's edges by index: meta
 * `marker.NAME = A@a+s>B@b+t` says sample i of series NAME (i = 0: its cold sample)
 * starts at edge a + s*i of channel A and ends at edge b + t*i of channel B. */
#ifndef RTB_MARK_H
#define RTB_MARK_H

#include <stdint.h>

#define RTB_MARK_CHANNELS 4
#define RTB_MARK_EXT 3 /* the channel the external interrupt's trigger toggles (wired) */

/* Non-zero while the run marks its paths (rtb_run_begin sets it from the config). */
extern int rtb_marking;

void rtb_mark_set(int ch);    /* rtb_marker_set, counting a rising edge */
void rtb_mark_clear(int ch);  /* rtb_marker_clear, counting a falling edge */
void rtb_mark_toggle(int ch); /* the other level */
/* A bracket's ends, each atomic with its timestamp (between rtb_critical_enter/exit, so
 * that no interrupt falls between the counter's read and the pin's write, which would
 * lengthen one clock's figure only): the timestamp then the pin high; the pin low then
 * the timestamp; the timestamp then the other level. Thread context only (an interrupt
 * handler reads rtb_ts and calls rtb_mark_toggle itself). */
uint32_t rtb_mark_ts_set(int ch);
uint32_t rtb_mark_clear_ts(int ch);
/* The timestamp is stored at *t before the pin changes: an edge that interrupts (the
 * external trigger) may run code that reads *t as soon as the section ends. */
void rtb_mark_ts_toggle(int ch, volatile uint32_t *t);
/* Edges a scenario made with rtb_marker_set/clear itself (the gpio rows): counted. */
void rtb_mark_made(int ch, uint32_t edges);
uint32_t rtb_mark_edges(int ch); /* edges on ch so far */

/* meta marker.NAME (see above). */
void rtb_mark_plan(const char *series, int a_ch, uint32_t a, uint32_t as, int b_ch, uint32_t b,
                   uint32_t bs);
/* A bracket series on one channel: sample i = pulse i from edge `first`. */
void rtb_mark_plan_pulses(const char *series, int ch, uint32_t first);
/* meta marker_cold.NAME = all: every sample of NAME was taken cold (after a cache
 * flush), not only the first. */
void rtb_mark_all_cold(const char *series);

/* With markers on: times 16 empty brackets (rtb_mark_ts_set then rtb_mark_clear_ts; the
 * first after rtb_cache_cold) (set + clear between two timestamps) on
 * channel 0, emits them as rtb_report does a series (marker_cost and marker_cost.cold,
 * ticks, the timestamp floor removed) with their plan; nothing when off. */
void rtb_mark_cost(void);

#endif
