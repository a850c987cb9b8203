// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_hrtimer: a periodic hrtimer measured from the kernel (docs/user-vs-kernel.md).
 *
 *   insmod rtlab_hrtimer.ko period_us=100 samples=1000 [soft=1] [gpio=N]
 *   cat /proc/rtlab_hrtimer      # blocks until the samples are in, then one line each
 *
 * The timer is armed on an absolute expiry and forwarded by whole periods, so the
 * programmed period never drifts. HRTIMER_MODE_ABS_HARD by default: on PREEMPT_RT the
 * callback still runs in hard-irq context; soft=1 asks for HRTIMER_MODE_ABS_SOFT,
 * which RT (and stock) defer to softirq (on RT: the ktimers thread). Per expiry the
 * callback records the actual period (now - previous callback), the wake-up latency
 * (now - expiry) and the periods it skipped (hrtimer_forward's overrun - 1).
 * The user-space reader (rtlab-hrtimer) loads the module, reads this file, prints @rtl1
 * and unloads it.
 */
#include <linux/delay.h>
#include <linux/gpio.h>
#include <linux/gpio/consumer.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#define RTLAB_MAX_SAMPLES 1000000u
#define RTLAB_MAX_PERIOD_US 1000000u

static unsigned int period_us = 1000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "timer period in microseconds (1..1000000)");
static unsigned int samples = 1000;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "number of expiries to record (1..1000000)");
static bool soft;
module_param(soft, bool, 0444);
MODULE_PARM_DESC(soft, "use HRTIMER_MODE_ABS_SOFT (softirq; a thread on PREEMPT_RT)");
static int gpio = -1;
module_param(gpio, int, 0444);
MODULE_PARM_DESC(gpio, "legacy GPIO number to toggle on every expiry (-1: none)");

struct rtlab_sample {
	s64 period_ns;
	s64 latency_ns;
	u32 skipped;
};

static struct rtlab_sample *buf;
static unsigned int count;	/* samples recorded, written only by the callback */
static u64 skipped_total;
static ktime_t last_now;
static bool gpio_level;
static bool gpio_owned;
static bool stopping;	/* rmmod: a blocked reader returns instead of holding it up */
static struct hrtimer timer;
static DECLARE_WAIT_QUEUE_HEAD(done_wq);
static struct proc_dir_entry *proc_entry;

static enum hrtimer_restart rtlab_tick(struct hrtimer *t)
{
	ktime_t now = ktime_get();
	ktime_t expiry = hrtimer_get_expires(t);
	u64 over;

	if (gpio_owned) {
		gpio_level = !gpio_level;
		gpio_set_value(gpio, gpio_level);
	}
	over = hrtimer_forward(t, now, ns_to_ktime((u64)period_us * NSEC_PER_USEC));
	/* the first expiry has no previous one: it is the reference, not a sample */
	if (last_now != 0) {
		struct rtlab_sample *s = &buf[count];

		s->period_ns = ktime_to_ns(ktime_sub(now, last_now));
		s->latency_ns = ktime_to_ns(ktime_sub(now, expiry));
		s->skipped = over > 1 ? (u32)(over - 1) : 0;
		skipped_total += s->skipped;
		/* publish the sample before the count the reader waits on */
		smp_store_release(&count, count + 1);
	}
	last_now = now;
	if (READ_ONCE(count) >= samples) {
		wake_up_all(&done_wq);
		return HRTIMER_NORESTART;
	}
	return HRTIMER_RESTART;
}

static int rtlab_show(struct seq_file *m, void *v)
{
	unsigned int i, n;

	if (wait_event_interruptible(done_wq, smp_load_acquire(&count) >= samples ||
					 READ_ONCE(stopping)))
		return -EINTR;
	n = smp_load_acquire(&count);
	if (n < samples)
		return -ESHUTDOWN;	/* unloaded before the samples were in */
	seq_printf(m, "# rtlab_hrtimer period_us=%u samples=%u mode=%s gpio=%d skipped=%llu\n",
		   period_us, n, soft ? "soft" : "hard", gpio, skipped_total);
	for (i = 0; i < n; i++)
		seq_printf(m, "%lld %lld %u\n", buf[i].period_ns, buf[i].latency_ns,
			   buf[i].skipped);
	return 0;
}

static int rtlab_open(struct inode *inode, struct file *file)
{
	/* one line per sample: size the buffer once instead of seq_file's retries */
	return single_open_size(file, rtlab_show, NULL, 64 + (size_t)samples * 48);
}

static const struct proc_ops rtlab_proc_ops = {
	.proc_open = rtlab_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

static int __init rtlab_init(void)
{
	int err;

	if (period_us < 1 || period_us > RTLAB_MAX_PERIOD_US) {
		pr_err("rtlab_hrtimer: period_us=%u: expected 1..%u\n", period_us,
		       RTLAB_MAX_PERIOD_US);
		return -EINVAL;
	}
	if (samples < 1 || samples > RTLAB_MAX_SAMPLES) {
		pr_err("rtlab_hrtimer: samples=%u: expected 1..%u\n", samples, RTLAB_MAX_SAMPLES);
		return -EINVAL;
	}
	buf = vmalloc(array_size(samples, sizeof(*buf)));
	if (!buf)
		return -ENOMEM;
	if (gpio >= 0) {
		/* gpio_request() takes a number with no chip behind it as an "optional"
		 * GPIO and succeeds: refuse it here, or the toggling goes nowhere */
		if (!gpio_to_desc(gpio)) {
			pr_err("rtlab_hrtimer: gpio=%d: no such GPIO line\n", gpio);
			vfree(buf);
			return -ENODEV;
		}
		err = gpio_request_one(gpio, GPIOF_OUT_INIT_LOW, "rtlab_hrtimer");
		if (err) {
			pr_err("rtlab_hrtimer: gpio=%d: cannot request it (%d)\n", gpio, err);
			vfree(buf);
			return err == -EPROBE_DEFER ? -ENODEV : err;
		}
		gpio_owned = true;
	}
	proc_entry = proc_create("rtlab_hrtimer", 0444, NULL, &rtlab_proc_ops);
	if (!proc_entry) {
		if (gpio_owned)
			gpio_free(gpio);
		vfree(buf);
		return -ENOMEM;
	}
	hrtimer_init(&timer, CLOCK_MONOTONIC, soft ? HRTIMER_MODE_ABS_SOFT : HRTIMER_MODE_ABS_HARD);
	timer.function = rtlab_tick;
	hrtimer_start(&timer, ktime_add_us(ktime_get(), period_us),
		      soft ? HRTIMER_MODE_ABS_SOFT : HRTIMER_MODE_ABS_HARD);
	pr_info("rtlab_hrtimer: period_us=%u samples=%u mode=%s gpio=%d\n", period_us, samples,
		soft ? "soft" : "hard", gpio);
	return 0;
}

static void __exit rtlab_exit(void)
{
	/* wake a blocked reader, stop the timer, then remove the file: proc_remove waits
	 * for readers still inside it, so the buffer is freed only after them */
	WRITE_ONCE(stopping, true);
	wake_up_all(&done_wq);
	hrtimer_cancel(&timer);
	proc_remove(proc_entry);
	if (gpio_owned)
		gpio_free(gpio);
	vfree(buf);
}

module_init(rtlab_init);
module_exit(rtlab_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtlab: periodic hrtimer period and wake-up latency");
MODULE_AUTHOR("rtlab");
