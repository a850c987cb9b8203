// The system calls rtlab-toggle-kt makes beyond platform.posix: the GPIO uAPI v2 ioctl
// request codes (<asm-generic/ioctl.h> _IOR/_IOWR, computed as the C macros do), the
// stop flag set from SIGINT/SIGTERM, and the monotonic clock.
@file:OptIn(kotlinx.cinterop.ExperimentalForeignApi::class)

import gpio.*
import kotlinx.cinterop.*
import platform.posix.*

private const val IOC_WRITE = 1uL
private const val IOC_READ = 2uL

private fun ioc(dir: ULong, nr: Int, size: Long): ULong =
    (dir shl 30) or (size.toULong() shl 16) or (0xB4uL shl 8) or nr.toULong()

val GPIO_GET_CHIPINFO_IOCTL = ioc(IOC_READ, 0x01, sizeOf<gpiochip_info>())
val GPIO_V2_GET_LINEINFO_IOCTL = ioc(IOC_READ or IOC_WRITE, 0x05, sizeOf<gpio_v2_line_info>())
val GPIO_V2_GET_LINE_IOCTL = ioc(IOC_READ or IOC_WRITE, 0x07, sizeOf<gpio_v2_line_request>())
val GPIO_V2_LINE_GET_VALUES_IOCTL = ioc(IOC_READ or IOC_WRITE, 0x0E, sizeOf<gpio_v2_line_values>())
val GPIO_V2_LINE_SET_VALUES_IOCTL = ioc(IOC_READ or IOC_WRITE, 0x0F, sizeOf<gpio_v2_line_values>())

/** The signal that asked the loop to stop, 0 while none did (written by the handler). */
private val stopSignal: IntVar = nativeHeap.alloc<IntVar>().also { it.value = 0 }

fun stopRequested(): Int = stopSignal.value

/** SIGINT/SIGTERM end the loop; no SA_RESTART, so clock_nanosleep returns at once. */
fun catchStopSignals() {
    memScoped {
        val sa = alloc<sigaction>()
        memset(sa.ptr, 0, sizeOf<sigaction>().convert())
        sa.__sigaction_handler.sa_handler = staticCFunction { sig: Int -> stopSignal.value = sig }
        sigaction(SIGINT, sa.ptr, null)
        sigaction(SIGTERM, sa.ptr, null)
    }
}

fun sleepUntil(t: Long, ts: timespec) {
    ts.tv_sec = t / 1_000_000_000L
    ts.tv_nsec = t % 1_000_000_000L
    // EINTR from SIGINT/SIGTERM returns at once: the loop then sees the stop flag.
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, ts.ptr, null)
}

/** One SET_VALUES ioctl per write, as in the C and Rust togglers; 0 or -1 with errno. */
fun setValues(fd: Int, v: gpio_v2_line_values, bits: ULong, mask: ULong): Int {
    v.bits = bits
    v.mask = mask
    return ioctl(fd, GPIO_V2_LINE_SET_VALUES_IOCTL, v.ptr)
}

fun getValues(fd: Int, v: gpio_v2_line_values, mask: ULong): Int {
    v.bits = 0u
    v.mask = mask
    return ioctl(fd, GPIO_V2_LINE_GET_VALUES_IOCTL, v.ptr)
}

fun nowNs(ts: timespec): Long {
    clock_gettime(CLOCK_MONOTONIC, ts.ptr)
    return ts.tv_sec * 1_000_000_000L + ts.tv_nsec
}

fun setAffinity(cpu: Int): Int = memScoped {
    val set = allocArray<ULongVar>(16) // a cpu_set_t: 1024 CPUs
    for (k in 0 until 16) set[k] = 0u
    set[cpu / 64] = 1uL shl (cpu % 64)
    sched_setaffinity(0, 128u, set)
}

fun setScheduler(policy: Int, prio: Int): Int = memScoped {
    val sp = alloc<sched_param>()
    sp.__sched_priority = prio
    sched_setscheduler(0, policy, sp.ptr)
}
