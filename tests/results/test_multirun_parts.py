"""A multi-part run records its part names: where a stored name's part ends is read
from the run, never guessed from the first `/`."""

from __future__ import annotations

from pathlib import Path

from rtlab.protocol import parse
from rtlab.results import Store, multirun


def _run(scenario: str) -> str:
    return (
        f"@rtl1 hello workload=rtbench version=1\n@rtl1 meta scenario={scenario}\n"
        "@rtl1 series irq/lat unit=ns\n@rtl1 s irq/lat 0 5,6,7\n"
        "@rtl1 c rounds/total 3\n@rtl1 end records=5 status=ok\n"
    )


def test_parts_and_names_with_a_slash_split_back_exactly(tmp_path: Path) -> None:
    runs = parse(_run("a") + _run("a/b"))
    with Store(tmp_path / "s.duckdb") as st:
        with st.run(workload="rtbench") as w:
            multirun.merge_into(w, runs)
        (info,) = st.runs()
        assert sorted(st.sql("SELECT name FROM series")) == [("a/b/irq/lat",), ("a/irq/lat",)]
        parts = multirun.split(st, info["run_id"])
    by = {p.meta["scenario"]: p for p in parts}
    assert set(by) == {"a", "a/b"}
    for p in by.values():
        assert list(p.series) == ["irq/lat"] and p.series["irq/lat"].values.tolist() == [5, 6, 7]
        assert p.counters == {"rounds/total": (3, None)}


def test_a_single_run_is_no_part_whatever_its_names(tmp_path: Path) -> None:
    (run,) = parse(_run("a"))
    with Store(tmp_path / "s.duckdb") as st:
        with st.run(workload="command") as w:
            w.add_protocol_run(run)
        (info,) = st.runs()
    assert multirun.splitter(info["meta"], info["workload"]) is None
    # a run stored before the parts were recorded: rtbench's part ends at the first /
    old = multirun.splitter({}, "rtbench")
    assert old is not None and old("a/irq/lat") == ("a", "irq/lat")
