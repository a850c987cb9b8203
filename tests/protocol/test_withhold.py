"""Withheld runs, on the parsed runs: figures dropped, meta and the reason kept, the run
still complete; other runs, and a run cut short before its end, as they were."""

from __future__ import annotations

from rtlab.protocol import Writer, parse
from rtlab.protocol.withhold import withhold


def _run(scenario: str, cores: int, crc: bool) -> str:
    lines: list[str] = []
    w = Writer(lines.append, crc=crc)
    w.hello("rtbench", "1")
    w.meta(scenario=scenario, cores=cores)
    w.warn("icount_model", "an instruction-count model")
    w.series("p1.per_thread", [10, 12], unit="count")
    w.counter("p1", 22, "count")
    w.histogram("lat", [(0, 10, 3)])
    w.end()
    return "\n".join(lines)


def _two_core(meta: dict[str, str]) -> str | None:
    return "turns, not the kernel" if meta.get("cores") == "2" else None


def test_withheld_run_keeps_meta_and_reason_and_stays_complete() -> None:
    for crc in (False, True):
        text = "boot log\n" + _run("scalability", 1, crc) + "\n" + _run("scalability", 2, crc)
        runs = parse(text)
        one, two = withhold(runs, _two_core, "unsupported_on_icount")
        assert one is runs[0]  # not withheld: the very run the reader gave
        assert two.complete and two.status == "ok", two.problems
        assert one.counters["p1"][0] == 22 and one.series["p1.per_thread"].values.size == 2
        assert not two.counters and not two.series and not two.histograms
        assert two.meta["scenario"] == "scalability" and two.meta["cores"] == "2"
        assert two.meta["withheld"] == "unsupported_on_icount" and "withheld" not in one.meta
        assert dict(two.warnings) == {
            "icount_model": "an instruction-count model",
            "unsupported_on_icount": "turns, not the kernel",
        }
        assert runs[1].counters["p1"][0] == 22  # the reader's run itself is not changed


def test_nothing_withheld_is_the_same_runs_and_a_run_without_end_passes() -> None:
    runs = parse(_run("primitives", 1, True) + "\r\n@rtl1 hello workload=x version=1\nnoise")
    assert withhold(runs, _two_core, "unsupported_on_icount") == runs
    cut = parse(_run("contention", 2, False).rsplit("\n", 1)[0])  # no end: left as it is
    (kept,) = withhold(cut, _two_core, "unsupported_on_icount")
    assert kept.status == "truncated" and kept.counters["p1"][0] == 22
