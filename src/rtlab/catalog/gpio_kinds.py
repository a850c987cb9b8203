"""The GPIO workload kinds (rtlab.lab.workloads.gpio runs them; the GPIO study picks the
cells that ran one): a writer that toggles lines in each language, and the edge reader."""

from __future__ import annotations

TOGGLE_KINDS = ("rtlab-toggle", "rtlab-toggle-rs", "rtlab-toggle-kt")  # C, Rust, Kotlin/Native
EVENTS_KIND = "rtlab-gpio-events"
GPIO_KINDS = (*TOGGLE_KINDS, EVENTS_KIND)
