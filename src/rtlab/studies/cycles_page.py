"""What the cycles study's page adds to the study's report (`rtlab study rtos
examples/rtos-cycles.toml --md`): external vs internal per run (rtlab.studies.cycles_agreement)
and, when the store also holds examples/rtos-cycles-crosscheck.toml's runs, the
cross-check of rtlab's two cycle models (rtlab.studies.cycles_crosscheck).

    tables(store, spec_name)   # Markdown, "" for a spec that did not run in cycles
"""

from __future__ import annotations

from rtlab.results import Store
from rtlab.studies import cycles_agreement, cycles_crosscheck


def tables(store: Store, spec: str) -> str:
    agreement = cycles_agreement.stored_agreement(store, spec)
    out = [cycles_agreement.agreement_markdown(agreement)] if agreement else []
    if spec == cycles_crosscheck.CYCLES_SPEC and _has(store, cycles_crosscheck.MODEL_SPEC):
        rows = cycles_crosscheck.compare(store)
        if rows:
            out.append(cycles_crosscheck.markdown(rows))
    return "\n" + "\n".join(out) if out else ""


def _has(store: Store, spec: str) -> bool:
    return bool(store.runs(spec_name=spec))
