"""Instruments as labgrid resources: the place's logic analyzer, locked with the board.

A place = a board + its instrument. The exporter publishes the analyzer as labgrid's
`SigrokDevice` (or `SigrokUSBDevice`), the role binds it with labgrid's `SigrokDriver`,
and the spec says `[instrument] kind = "sigrok"`, `driver = "labgrid"`: rtlab takes the
sigrok driver (and a USB device's `conn`, and the channel group if the spec gives none)
from the resource of the place it holds, so each place of a tag captures with its own
analyzer. rtlab's own sigrok instrument then runs sigrok-cli, on the machine `rtlab run`
runs on (the analyzer must be plugged in there: a device on another exporter host is
refused with one line).

The RP2040 capture module the same way: its serial port is a second serial resource of
the place (a NetworkSerialPort named in the exporter, or the USBSerialPort the exporter
serves), bound by a SerialDriver named `instrument` in the role; `[instrument] kind =
"rp2040"`, `port = "labgrid"` (or `"place"`, which the model's bench reads too, so one
spec runs on both: docs/instrument-pair.md) opens it by its URL (socket:// or rfc2217://).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rtlab.lab.targets.labgrid.places import LabgridError

FROM_PLACE = "labgrid"  # the spec's [instrument] driver that means "the place's"
PLACES = (FROM_PLACE, "place")  # a capture module's port: "place" also names the model's


def place_instrument(target: Any, spec: Any, place: str) -> Any:
    """`spec` with its device taken from the place's resources (when it asks)."""
    kind = spec.kind
    if kind == "rp2040" and spec.port in PLACES:
        return dataclasses.replace(spec, port=_capture_port(target, place))
    if kind != "sigrok" or spec.driver != FROM_PLACE:
        return spec
    try:
        driver = target.get_driver("SigrokDriver", activate=False)
    except Exception:
        raise LabgridError(
            f'[instrument] driver = "{FROM_PLACE}": the role has no SigrokDriver for the '
            f"place {place}'s analyzer (add `SigrokDriver: {{}}` to its drivers, and a "
            "SigrokDevice to the place's exporter)"
        ) from None
    res = driver.sigrok
    cls = type(res).__name__
    if cls.startswith("Network"):
        raise LabgridError(
            f"labgrid place {place}: its analyzer ({cls}) is on exporter host {res.host}; "
            "rtlab runs sigrok-cli where `rtlab run` runs, so plug it in there"
        )
    conn = f"{res.busnum}.{res.devnum}" if cls == "SigrokUSBDevice" else spec.conn
    return dataclasses.replace(
        spec,
        driver=str(res.driver),
        conn=conn,
        channel_group=spec.channel_group or res.channel_group,
    )


def _capture_port(target: Any, place: str) -> str:
    """The URL of the place's serial resource bound by the role's SerialDriver named
    `instrument` (labgrid's own address of it: proxy and all)."""
    from labgrid.util.proxy import proxymanager

    try:
        driver = target.get_driver("SerialDriver", name="instrument", activate=False)
    except Exception:
        raise LabgridError(
            f'[instrument] port = "{FROM_PLACE}": the role has no SerialDriver named '
            f"instrument for the place {place}'s capture module (bindings: port: the "
            "resource's name)"
        ) from None
    res = driver.port
    if type(res).__name__ != "NetworkSerialPort":
        return str(res.port)  # a local port: its device path
    host, port = proxymanager.get_host_and_port(res)
    scheme = "rfc2217" if res.protocol == "rfc2217" else "socket"
    return f"{scheme}://{host}:{port}"
