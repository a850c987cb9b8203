"""The GPIO study's section (rtlab.studies.gpio): Tables 1 and 2, Fig. 2, and a finding:
the fastest toggling implementation per source, with its jitter."""

from __future__ import annotations

from typing import Any

from rtlab.report.figures import svg_uri
from rtlab.report.sections import Section, SectionKind
from rtlab.results import Store
from rtlab.results import query as results
from rtlab.studies import gpio as gpio_study
from rtlab.studies import gpio_fig2


def findings(table1: list[dict[str, Any]]) -> list[str]:
    out = []
    for source in dict.fromkeys(r["source"] for r in table1):
        rows = [r for r in table1 if r["source"] == source and r["freq_mhz"]]
        if not rows:
            continue
        best = max(rows, key=lambda r: r["freq_mhz"])
        runs = best["runs"]
        pooled = "one run: no run-to-run range" if runs < 2 else f"pooled over {runs} runs"
        env = f", {best['environment']}" if best["environment"] else ""
        slow = min(rows, key=lambda r: r["freq_mhz"])
        # one implementation in several cells: name the cells, not "C … slowest C"
        same = slow is not best and slow["implementation"] == best["implementation"]
        name = f"{best['implementation']} ({best['cell']})" if same else best["implementation"]
        text = (
            f"GPIO toggle ({source}{env}): {name} is fastest at "
            f"{gpio_study.fmt(best['freq_mhz'], 4)} MHz (mean period "
            f"{gpio_study.fmt(best['mean_ns'])} ns, RMS jitter {gpio_study.fmt(best['rms_ns'])} "
            f"ns, max deviation {gpio_study.fmt(best['max_dev_ns'])} ns; {pooled})"
        )
        if slow is not best:
            text += (
                f"; slowest {slow['implementation']} ({slow['cell']}) "
                f"{gpio_study.fmt(slow['freq_mhz'], 4)} MHz"
            )
        out.append(text + ".")
    return out


def build(store: Store, cells: dict[str, results.CellRuns]) -> Section | None:
    st = gpio_study.study(store, cells)
    if st is None:
        return None
    data = {
        **gpio_study.to_dict(st),
        "figures": [
            {"title": f"Fig. 2 ({f.source})", "uri": svg_uri(gpio_fig2.density(f))}
            for f in st.figures
        ],
    }
    title = "GPIO study" + (f" — {', '.join(st.emulated)}" if st.emulated else "")
    return Section(
        "gpio-study",
        title,
        "gpio_study.html.j2",
        data,
        findings(data["table1"]),
        markdown=["", gpio_study.markdown(st).rstrip("\n")],
        json={"gpio_study": gpio_study.to_dict(st)},
        shows=("gpio",),
    )


SECTION = SectionKind("gpio", build, md_rank=5)
