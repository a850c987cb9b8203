// Writer of the rtlab output protocol v1 (docs/protocol.md): the same records as the C
// writer (workloads/linux/common/proto.c) and the Rust one, buffered, counted for `end`.
@file:OptIn(kotlinx.cinterop.ExperimentalForeignApi::class)

import kotlinx.cinterop.convert
import kotlinx.cinterop.usePinned
import kotlinx.cinterop.addressOf
import platform.posix.fflush
import platform.posix.fwrite
import platform.posix.stdout

private const val HEX = "0123456789ABCDEF"
private const val B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

fun encode(v: String): String {
    val s = StringBuilder()
    for (b in v.encodeToByteArray()) {
        val c = b.toInt() and 0xFF
        if (c <= 0x20 || c >= 0x7F || c == '='.code || c == '*'.code || c == '%'.code) {
            s.append('%').append(HEX[c shr 4]).append(HEX[c and 15])
        } else {
            s.append(c.toChar())
        }
    }
    return s.toString()
}

private fun crc32(data: ByteArray): UInt {
    var c = 0xFFFFFFFFu
    for (b in data) {
        c = c xor (b.toUInt() and 0xFFu)
        repeat(8) { c = if (c and 1u != 0u) 0xEDB88320u xor (c shr 1) else c shr 1 }
    }
    return c.inv()
}

private fun base64(raw: List<Byte>): String {
    val s = StringBuilder()
    var i = 0
    while (i < raw.size) {
        val n = minOf(3, raw.size - i)
        var v = 0
        for (k in 0 until 3) v = (v shl 8) or (if (k < n) raw[i + k].toInt() and 0xFF else 0)
        for (k in 0..n) s.append(B64[(v shr (18 - 6 * k)) and 63]) // no '=' padding
        i += 3
    }
    return s.toString()
}

class Proto(private val crc: Boolean) {
    private val buf = StringBuilder()
    private var records = 0L

    fun line(body: String) {
        var l = "@rtl1 $body"
        if (crc) l += " *" + crc32(l.encodeToByteArray()).toString(16).padStart(8, '0')
        buf.append(l).append('\n')
        records++
        if (buf.length > 1 shl 16) flush()
    }

    fun hello(workload: String, version: String) {
        records = 0
        line("hello workload=${encode(workload)} version=${encode(version)}")
    }
    fun meta(key: String, value: String) = line("meta $key=${encode(value)}")
    fun warn(code: String, msg: String) = line("warn code=$code msg=${encode(msg)}")
    fun counter(name: String, value: Long, unit: String) = line("c $name $value unit=$unit")
    fun series(name: String, unit: String) = line("series $name unit=$unit")

    /** `sd` (delta text) or `sb` (zigzag LEB128, base64) chunks of 150. */
    fun samples(name: String, v: LongArray, n: Int, binary: Boolean) {
        var start = 0
        var seq = 0
        while (start < n) {
            val end = minOf(n, start + 150)
            if (binary) {
                val raw = ArrayList<Byte>()
                var prev = 0L
                for (k in start until end) {
                    val d = v[k] - prev
                    prev = v[k]
                    var z = ((d shl 1) xor (d shr 63)).toULong()
                    while (true) {
                        val b = (z and 0x7Fu).toInt()
                        z = z shr 7
                        raw.add((if (z != 0uL) b or 0x80 else b).toByte())
                        if (z == 0uL) break
                    }
                }
                line("sb $name $seq ${end - start} ${base64(raw)}")
            } else {
                val l = StringBuilder("sd $name $seq ${v[start]}")
                for (k in start + 1 until end) l.append(if (k == start + 1) ' ' else ',').append(v[k] - v[k - 1])
                line(l.toString())
            }
            start = end
            seq++
        }
    }

    fun flush() {
        val bytes = buf.toString().encodeToByteArray()
        buf.clear()
        if (bytes.isNotEmpty()) bytes.usePinned { fwrite(it.addressOf(0), 1u, bytes.size.convert(), stdout) }
        fflush(stdout)
    }

    fun end(status: String, msg: String?) {
        var l = "end records=$records status=$status"
        if (msg != null) l += " msg=${encode(msg)}"
        line(l)
        flush()
    }
}
