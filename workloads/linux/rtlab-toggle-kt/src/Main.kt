// rtlab-toggle-kt: the rtlab-toggle workload in Kotlin/Native, the same options, modes,
// protocol records and exit statuses as the C program (workloads/linux/rtlab-toggle/src/
// toggle.c) and the Rust one; GPIO through the uAPI v2 ioctls by cinterop (src/gpio.def).
@file:OptIn(kotlinx.cinterop.ExperimentalForeignApi::class)

import gpio.*
import kotlinx.cinterop.*
import platform.posix.*
import kotlin.system.exitProcess

const val NAME = "rtlab-toggle-kt"
const val VERSION = "1.0.0"
const val GPIO_EXIT = 3
const val LINES_MAX = 64

fun eprintln(s: String) {
    fputs("$s\n", stderr)
}

fun dieUsage(msg: String): Nothing {
    eprintln("$NAME: $msg")
    eprintln(
        "usage: $NAME [-c CHIP] [-l LINES] [-w fast|busy|abs|usleep] [-i NS] " +
            "[-n N | -D TIME] [-t] [--verify] [--policy P] [-p PRIO] [-a CPU] [-m]",
    )
    exitProcess(2)
}

fun gpioDie(msg: String): Nothing {
    eprintln("$NAME: $msg")
    exitProcess(GPIO_EXIT)
}

fun parseInt(opt: String, s: String, lo: Long, hi: Long): Long {
    val v = s.toLongOrNull()
    if (v == null || v < lo || v > hi) dieUsage("$opt: expected an integer in [$lo, $hi], got '$s'")
    return v
}

fun parseDurationNs(s: String): Long? {
    val split = s.indexOfFirst { !(it.isDigit() || it == '.') }.let { if (it < 0) s.length else it }
    val v = s.substring(0, split).toDoubleOrNull() ?: return null
    val scale = when (s.substring(split)) {
        "", "s" -> 1e9
        "ms" -> 1e6
        "us" -> 1e3
        "ns" -> 1.0
        "m" -> 60e9
        else -> return null
    }
    return if (v > 0.0) (v * scale).toLong() else null
}

fun parseLines(s: String): List<Int> {
    val bad = "lines: expected offsets like 0 or 0,3 or 0-3, got '$s'"
    val out = ArrayList<Int>()
    for (part in s.split(',')) {
        val ab = part.split('-', limit = 2)
        val a = ab[0].toUIntOrNull()?.toLong() ?: dieUsage(bad)
        val b = if (ab.size == 2) ab[1].toUIntOrNull()?.toLong() ?: dieUsage(bad) else a
        if (b < a || b > 0xFFFF) dieUsage(bad)
        for (v in a..b) {
            if (out.contains(v.toInt())) dieUsage("line $v given twice")
            out.add(v.toInt())
        }
    }
    if (out.size > LINES_MAX) dieUsage("at most $LINES_MAX lines per request")
    return out
}

fun errText(e: Int): String = strerror(e)?.toKString() ?: "errno $e"

class Chip(val fd: Int, val path: String, val name: String, val label: String, val lines: Int)

fun openChipPath(path: String): Chip {
    val fd = open(path, O_RDWR or O_CLOEXEC)
    if (fd < 0) {
        val e = errno
        gpioDie(
            when (e) {
                ENOENT -> "unknown GPIO chip $path: no such device (chips: ls /dev/gpiochip*)"
                EACCES, EPERM -> "no permission to open $path (${errText(e)}): run as root or give your " +
                    "user access (group of the device, a udev rule)"
                else -> "cannot open GPIO chip $path: ${errText(e)}"
            },
        )
    }
    return memScoped {
        val info = alloc<gpiochip_info>()
        if (ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, info.ptr) < 0) {
            val e = errno
            close(fd)
            gpioDie("$path is not a GPIO character device (${errText(e)})")
        }
        Chip(fd, path, info.name.toKString(), info.label.toKString(), info.lines.toInt())
    }
}

fun openChip(spec: String): Chip {
    if (spec.contains('/')) return openChipPath(spec)
    if (spec.toUIntOrNull() != null) return openChipPath("/dev/gpiochip$spec")
    if (spec.startsWith("gpiochip")) return openChipPath("/dev/$spec")
    // A label: scan the chips.
    for (i in 0 until 64) {
        val p = "/dev/gpiochip$i"
        if (access(p, F_OK) != 0) continue
        val fd = open(p, O_RDWR or O_CLOEXEC)
        if (fd < 0) continue
        val hit = memScoped {
            val info = alloc<gpiochip_info>()
            ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, info.ptr) == 0 && (info.label.toKString() == spec || info.name.toKString() == spec)
        }
        close(fd)
        if (hit) return openChipPath(p)
    }
    gpioDie(
        "unknown GPIO chip '$spec': give /dev/gpiochipN, gpiochipN, N or a chip label " +
            "(labels: cat /sys/bus/gpio/devices/*/label)",
    )
}

fun maskOf(n: Int): ULong = if (n >= 64) ULong.MAX_VALUE else (1uL shl n) - 1uL

/** Request the lines as outputs, low; the line request fd. */
fun requestOutput(chip: Chip, offsets: List<Int>): Int {
    for (o in offsets) {
        if (o >= chip.lines) {
            gpioDie("line $o out of range: ${chip.path} (${chip.label}) has lines 0..${maxOf(chip.lines - 1, 0)}")
        }
    }
    memScoped {
        val req = alloc<gpio_v2_line_request>()
        memset(req.ptr, 0, sizeOf<gpio_v2_line_request>().convert())
        offsets.forEachIndexed { i, o -> req.offsets[i] = o.toUInt() }
        NAME.encodeToByteArray().forEachIndexed { i, b -> req.consumer[i] = b }
        req.num_lines = offsets.size.toUInt()
        req.config.flags = GPIO_V2_LINE_FLAG_OUTPUT.toULong()
        req.config.num_attrs = 1u
        req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES.toUInt()
        req.config.attrs[0].attr.values = 0u
        req.config.attrs[0].mask = maskOf(offsets.size)
        if (ioctl(chip.fd, GPIO_V2_GET_LINE_IOCTL, req.ptr) == 0) return req.fd
        val e = errno
        when (e) {
            EBUSY -> {
                // Name the holder from the line info.
                for (o in offsets) {
                    val li = alloc<gpio_v2_line_info>()
                    memset(li.ptr, 0, sizeOf<gpio_v2_line_info>().convert())
                    li.offset = o.toUInt()
                    if (ioctl(chip.fd, GPIO_V2_GET_LINEINFO_IOCTL, li.ptr) == 0 && (li.flags and GPIO_V2_LINE_FLAG_USED.toULong()) != 0uL) {
                        val who = li.consumer.toKString().ifEmpty { "?" }
                        gpioDie("line $o of ${chip.path} busy: held by '$who' (EBUSY)")
                    }
                }
                gpioDie("line(s) of ${chip.path} busy (EBUSY)")
            }
            EPERM, EACCES -> gpioDie("no permission to request lines of ${chip.path} (${errText(e)})")
            else -> gpioDie("requesting lines of ${chip.path} failed: ${errText(e)}")
        }
    }
}

enum class Mode { FAST, BUSY, ABS, USLEEP }

val TAKES_VALUE = setOf(
    "-c", "--chip", "-l", "--lines", "-w", "--mode", "-i", "--interval", "-n", "--count",
    "-D", "--duration", "--max-samples", "--policy", "-p", "--priority", "-a", "--affinity", "--meta",
)

fun main(args: Array<String>) {
    var chipSpec = "0"
    var linesSpec = "0"
    var mode = Mode.FAST
    var interval = 100_000L
    var count = 0L
    var duration = 0L
    var maxSamples = 1_000_000L
    var timestamps = false
    var verify = false
    var mlock = false
    var binary = false
    var crc = false
    var quiet = false
    var policy = SCHED_OTHER
    var priority = -1L
    var cpu = -1L
    val metas = ArrayList<String>()
    var i = 0
    // getopt-like: "-x V", "--long=V" or "--long V".
    while (i < args.size) {
        val a = args[i]
        val eq = a.indexOf('=')
        val (name, inline) = if (a.startsWith("--") && eq > 0) a.substring(0, eq) to a.substring(eq + 1) else a to null
        val v = if (name in TAKES_VALUE) {
            inline ?: run {
                i++
                if (i >= args.size) dieUsage("option $name needs a value")
                args[i]
            }
        } else {
            ""
        }
        when (name) {
            "-c", "--chip" -> chipSpec = v
            "-l", "--lines" -> linesSpec = v
            "-w", "--mode" -> mode = when (v) {
                "fast" -> Mode.FAST
                "busy" -> Mode.BUSY
                "abs", "clock_nanosleep" -> Mode.ABS
                "usleep" -> Mode.USLEEP
                else -> dieUsage("--mode: fast, busy, abs or usleep, got '$v'")
            }
            "-i", "--interval" -> interval = parseInt("-i", v, 1, 60_000_000_000)
            "-n", "--count" -> count = parseInt("-n", v, 1, 1L shl 40)
            "-D", "--duration" -> duration = parseDurationNs(v)
                ?: dieUsage("-D: expected 2s, 500ms, 100us, 1m or seconds, got '$v'")
            "-t", "--timestamps" -> timestamps = true
            "--max-samples" -> maxSamples = parseInt("--max-samples", v, 2, 1L shl 28)
            "--verify" -> verify = true
            "--policy" -> policy = when (v) {
                "other" -> SCHED_OTHER
                "fifo" -> SCHED_FIFO
                "rr" -> SCHED_RR
                else -> dieUsage("--policy: other, fifo or rr, got '$v'")
            }
            "-p", "--priority" -> priority = parseInt("-p", v, 0, 99)
            "-a", "--affinity" -> cpu = parseInt("-a", v, 0, 1023)
            "-m", "--mlockall" -> mlock = true
            "--meta" -> {
                if (metas.size >= 16 || !v.contains('=') || v.startsWith('=')) dieUsage("--meta: KEY=VALUE, at most 16")
                metas.add(v)
            }
            "--binary" -> binary = true
            "--crc" -> crc = true
            "-q", "--quiet" -> quiet = true
            "--help" -> {
                println("see docs/gpio-workloads.md")
                return
            }
            else -> if (name.startsWith("-")) dieUsage("unknown option $name") else dieUsage("unexpected argument '$name'")
        }
        i++
    }
    if (count > 0 && duration > 0) dieUsage("give -n or -D, not both")
    if (mode == Mode.USLEEP && interval < 1000) dieUsage("usleep mode: -i must be >= 1000 ns")
    if (policy == SCHED_OTHER && priority > 0) dieUsage("-p $priority needs --policy fifo or rr")
    if (policy != SCHED_OTHER && priority < 0) priority = 80
    if (policy != SCHED_OTHER && priority == 0L) dieUsage("-p: fifo/rr need a priority in 1..99")
    if (count == 0L && duration == 0L) count = 1000
    val offsets = parseLines(linesSpec)

    val chip = openChip(chipSpec)
    val lfd = requestOutput(chip, offsets)
    close(chip.fd)
    catchStopSignals()
    val mask = maskOf(offsets.size)

    val p = Proto(crc)
    p.hello(NAME, VERSION)
    val rel = fopen("/proc/sys/kernel/osrelease", "r")
    if (rel != null) {
        memScoped {
            val b = allocArray<ByteVar>(256)
            if (fgets(b, 256, rel) != null) p.meta("kernel", b.toKString().trim())
        }
        fclose(rel)
    }
    p.meta("machine", memScoped { alloc<utsname>().also { uname(it.ptr) }.machine.toKString() })
    p.meta("api", "gpio-cdev-v2")
    p.meta("language", "kotlin-native")
    p.meta("chip", chip.name)
    p.meta("chip_label", chip.label)
    p.meta("lines", offsets.joinToString(","))
    p.meta("mode", listOf("fast", "busy", "abs", "usleep")[mode.ordinal])
    if (mode != Mode.FAST) p.meta("interval_ns", interval.toString())
    if (count > 0) p.meta("count", count.toString())
    if (duration > 0) p.meta("duration_ns", duration.toString())
    p.meta("clock", "monotonic")
    for (m in metas) p.meta(m.substringBefore('='), m.substringAfter('='))
    p.meta("policy", listOf("other", "fifo", "rr")[policy])
    if (policy != SCHED_OTHER) {
        p.meta("priority", priority.toString())
        if (setScheduler(policy, priority.toInt()) < 0) {
            p.warn("sched_fallback", "sched_setscheduler: ${errText(errno)}; running SCHED_OTHER")
        }
    }
    if (cpu >= 0) {
        p.meta("affinity", cpu.toString())
        if (setAffinity(cpu.toInt()) < 0) p.warn("affinity_failed", "sched_setaffinity($cpu): ${errText(errno)}")
    }
    val cap = if (!timestamps) 0 else if (count > 0) minOf(count, maxSamples).toInt() else maxSamples.toInt()
    val ts = LongArray(cap) // zero-filled: the pages are faulted in now
    if (mlock) {
        p.meta("mlockall", "1")
        if (mlockall(MCL_CURRENT or MCL_FUTURE) < 0) p.warn("mlockall_failed", "mlockall: ${errText(errno)}")
    }
    p.flush() // header records out before the loop

    var writes = 0L
    var overruns = 0L
    var rbChecks = 0L
    var rbErrors = 0L
    var nTs = 0
    var failed = 0
    var level = 0uL
    val clk = nativeHeap.alloc<timespec>()
    val vals = nativeHeap.alloc<gpio_v2_line_values>()
    val t0 = nowNs(clk)
    var first = 0L
    var last = 0L
    val endAt = if (duration > 0) t0 + duration else 0L
    var next = t0
    run {
        while (stopRequested() == 0) {
            if (count > 0 && writes >= count) break
            if (mode != Mode.FAST) {
                next += interval
                when (mode) {
                    Mode.BUSY -> while (nowNs(clk) < next && stopRequested() == 0) {}
                    Mode.ABS -> sleepUntil(next, clk)
                    else -> usleep((interval / 1000).toUInt())
                }
                if (stopRequested() != 0) break
            }
            level = level xor mask
            val r = setValues(lfd, vals, level, mask)
            val t = nowNs(clk)
            if (r < 0) {
                failed = errno
                break
            }
            if (writes == 0L) first = t
            last = t
            if (nTs < cap) ts[nTs++] = t
            writes++
            if (verify) {
                rbChecks++
                if (getValues(lfd, vals, mask) < 0 || (vals.bits and mask) != level) rbErrors++
            }
            if ((mode == Mode.ABS || mode == Mode.BUSY) && t - next > interval) {
                overruns++ // resynchronise rather than burst to catch up
                next = t
            } else if (mode == Mode.USLEEP) {
                next = t
            }
            if (endAt > 0 && t >= endAt) break
        }
    }
    setValues(lfd, vals, 0u, mask) // leave the lines low, then release them
    close(lfd)

    if (timestamps) {
        p.series("write_ts", "ns")
        p.samples("write_ts", ts, nTs, binary)
        if (nTs > 2) {
            val per = LongArray((nTs - 1) / 2) { ts[2 * it + 2] - ts[2 * it] }
            p.series("period", "ns")
            p.samples("period", per, per.size, binary)
        }
        if (count == 0L && nTs == cap && writes > cap) p.warn("samples_truncated", "timestamps beyond --max-samples not kept")
    }
    p.counter("writes", writes, "count")
    p.counter("elapsed_ns", if (writes > 0) last - first else 0, "ns")
    if (mode != Mode.FAST) p.counter("overruns", overruns, "count")
    if (verify) {
        p.counter("readback_checks", rbChecks, "count")
        p.counter("readback_errors", rbErrors, "count")
    }
    if (!quiet && writes > 1) {
        val per = (last - first).toDouble() / (writes - 1).toDouble()
        val tenths = kotlin.math.round(per * 10).toLong()
        val check = if (verify) (if (rbErrors > 0) ", READBACK ERRORS" else ", read back ok") else ""
        eprintln("$NAME: $writes writes, ${tenths / 10}.${tenths % 10} ns per write$check")
    }
    if (failed != 0) {
        val m = "GPIO_V2_LINE_SET_VALUES_IOCTL: ${errText(failed)}"
        eprintln("$NAME: $m")
        p.end("error", m)
        exitProcess(1)
    }
    val sig = stopRequested()
    if (sig != 0) {
        p.end("interrupted", if (sig == SIGTERM) "SIGTERM" else "SIGINT")
        exitProcess(130)
    }
    p.end("ok", null)
}
