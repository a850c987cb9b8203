"""Withheld runs: data records dropped, the reason kept, and the run still parses complete
(its end recounted, its CRCs fresh); other runs and lines untouched byte for byte."""

from __future__ import annotations

from rtlab.protocol import Writer, parse
from rtlab.protocol.withhold import withhold_runs


def _run(scenario: str, cores: int, crc: bool) -> str:
    lines: list[str] = []
    w = Writer(lines.append, crc=crc)
    w.hello("rtbench", "1")
    w.meta(scenario=scenario, cores=cores)
    w.warn("icount_model", "an instruction-count model")
    w.series("p1.per_thread", [10, 12], unit="count")
    w.counter("p1", 22, "count")
    w.end()
    return "\n".join(lines)


def _two_core(meta: dict[str, str]) -> str | None:
    return "turns, not the kernel" if meta.get("cores") == "2" else None


def test_withheld_run_keeps_meta_and_reason_and_parses_complete() -> None:
    for crc in (False, True):
        text = "boot log\n" + _run("scalability", 1, crc) + "\n" + _run("scalability", 2, crc)
        out = withhold_runs(text, _two_core, "unsupported_on_icount")
        one, two = parse(out)
        assert one.complete and two.complete, (one.problems, two.problems)
        assert one.counters["p1"][0] == 22 and one.series["p1.per_thread"].values.size == 2
        assert not two.counters and not two.series
        assert two.meta["scenario"] == "scalability" and two.meta["cores"] == "2"
        assert two.meta["withheld"] == "unsupported_on_icount" and "withheld" not in one.meta
        assert dict(two.warnings) == {
            "icount_model": "an instruction-count model",
            "unsupported_on_icount": "turns, not the kernel",
        }
        assert out.startswith("boot log\n" + _run("scalability", 1, crc) + "\n")


def test_nothing_withheld_is_byte_identical_and_a_run_without_end_passes() -> None:
    text = _run("primitives", 1, True) + "\r\n@rtl1 hello workload=x version=1\nnoise"
    assert withhold_runs(text, _two_core, "unsupported_on_icount") == text
    cut = _run("contention", 2, False).rsplit("\n", 1)[0]  # no end: left for the parser
    assert withhold_runs(cut, _two_core, "unsupported_on_icount") == cut
