"""One capture with the rtlab RP2040 module: open the port, say hello, set up the
self-test wave if asked, capture for a device time (`rtlab capture rp2040`)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from rtlab.errors import RtlabError
from rtlab.instruments.rp2040.selftest import selftest
from rtlab.model import Capture


def capture(
    port: str,
    pins: list[int],
    duration: Fraction,
    *,
    baud: int = 921600,
    selftest_pin: int | None = None,
    selftest_period: Fraction | None = None,
    names: list[str] | None = None,
    timeout_s: float = 5.0,
    fine: bool = False,
    on_status: Callable[[Any, Any, Any], None] | None = None,
) -> Capture:
    """Capture `pins` (consecutive GPIOs) for `duration` s of device time.
    on_status(status, decoder, device info) is called for every status record."""
    import serial

    from rtlab.instruments.rp2040.driver import RP2040Module
    from rtlab.instruments.rp2040.wire import START_FINE

    try:
        ser = serial.serial_for_url(port, baudrate=baud, timeout=0.05)
    except (serial.SerialException, OSError) as exc:
        raise RtlabError(f"cannot open {port}: {exc}") from None
    with ser:
        mod = RP2040Module(ser, timeout_s=timeout_s)
        info = mod.hello()
        wave = None
        if selftest_pin is not None:
            wave = selftest(selftest_pin, selftest_period, info.clk_hz)

        def status(st: Any, dec: Any) -> None:
            if on_status is not None:
                on_status(st, dec, info)

        return mod.capture(
            pins[0],
            len(pins),
            duration,
            selftest=wave,
            on_status=status,
            names=names,
            flags=START_FINE if fine else 0,
        )
