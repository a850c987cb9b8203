"""A UART's reset NUL before the first line (Zephyr's RP2040 image sends one) is no part
of the board's output: the hello is seen and the stored text parses as a whole run."""

from __future__ import annotations

from rtlab.lab.serialboard.reading import OutputReader
from rtlab.protocol.parser import parse_one


class _Link:
    """A port that gives the chunks, then closes."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = list(chunks)

    def read(self, timeout: float) -> bytes | None:
        return self.chunks.pop(0) if self.chunks else None


def test_a_reset_nul_before_the_hello_is_dropped() -> None:
    run = (
        b"@rtl1 hello workload=rtbench version=0.1.0\n@rtl1 meta board=pico\n"
        b"@rtl1 end records=2 status=ok\n"
    )
    link = _Link(b"\0" + run[:20], run[20:], b"rtbench: done errors=0\n")
    got = OutputReader(link, {"board": "pico"}, "pico").read(10, 5)  # type: ignore[arg-type]
    assert got.ended_by == "done" and got.exit_status == 0
    assert "\0" not in got.text
    parsed = parse_one(got.text, "serial")
    assert parsed.complete and parsed.meta["board"] == "pico"
