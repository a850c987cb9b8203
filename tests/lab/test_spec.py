"""Spec errors name file, line and key; the matrix expands with stable cell ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.lab.spec import load_spec, parse_spec
from rtlab.lab.specfile import SpecError
from tests.lab.workloads.hrtimer.test_one_spec_both_kernels import BOTH_KERNELS

GOOD = """\
name = "t"
conditions = ["idle", "load"]

[[workload]]
kind = "rtlab-latency"
method = ["abs", "busy"]
policy = ["other", "fifo"]
duration = "1s"

[[workload]]
kind = "rtlab-latency"
name = "sleep"
mode = "sleep"
sleeps = [1, 10]
"""


def _err(text: str, tmp_path: Path) -> str:
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(SpecError) as e:
        load_spec(p)
    return str(e.value)


def test_matrix_and_stable_keys() -> None:
    spec = parse_spec(GOOD)
    cells = spec.cells()
    # 2 methods x 2 policies x 2 conditions + 1 sleep workload x 2 conditions
    assert len(cells) == 10
    assert cells[0].label == "rtlab-latency[method=abs,policy=other]@idle"
    assert cells[-1].label == "sleep@load"
    assert cells[-1].params["sleeps"] == [1, 10]  # a list parameter, not an axis
    assert [c.key for c in parse_spec(GOOD).cells()] == [c.key for c in cells]
    changed = parse_spec(GOOD.replace('"1s"', '"2s"')).cells()
    assert changed[0].label == cells[0].label and changed[0].key != cells[0].key


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        (GOOD.replace('method = ["abs"', 'methd = ["abs"'), 6, "workload[0].methd"),
        (GOOD.replace('"busy"', '"spin"'), 6, "workload[0].method"),
        (GOOD.replace("sleeps = [1, 10]", 'sleeps = ["a"]'), 14, "workload[1].sleeps"),
        (
            GOOD.replace('kind = "rtlab-latency"\nname', 'kind = "rtlab-lat"\nname'),
            11,
            "workload[1].kind",
        ),
        (GOOD.replace('"idle", "load"', '"idle", "storm"'), 2, "conditions"),
        (GOOD + '\n[target]\nkind = "ssh"\nhost = "-oProxyCommand=x"\n', 18, "target.host"),
        (GOOD + '\n[condition.load]\nprofile = "cpu"\nworkerz = 2\n', 18, "condition.load.workerz"),
    ],
)
def test_semantic_errors_name_line_and_key(tmp_path: Path, text: str, line: int, key: str) -> None:
    msg = _err(text, tmp_path)
    assert msg.startswith(f"{tmp_path / 'bad.toml'}:{line}: {key}:"), msg


def test_missing_key_is_named(tmp_path: Path) -> None:
    msg = _err('name = "t"\n', tmp_path)
    assert msg == f"{tmp_path / 'bad.toml'}: workload: at least one [[workload]] table is needed"


def test_syntax_error_has_line(tmp_path: Path) -> None:
    msg = _err(GOOD.replace('duration = "1s"', "duration = 1s"), tmp_path)
    assert msg.startswith(f"{tmp_path / 'bad.toml'}:8: TOML syntax"), msg


def test_rtbench_parameter_error(tmp_path: Path) -> None:
    text = 'name = "r"\n[[workload]]\nkind = "rtbench"\nwindow_ms = 0\n'
    msg = _err(text, tmp_path)
    assert ":4: workload[0].window_ms:" in msg, msg


def test_cli_spec_error_is_one_line(tmp_path: Path) -> None:
    from tests.conftest import rtlab

    p = tmp_path / "bad.toml"
    p.write_text(GOOD.replace("policy =", "polcy ="))
    r = rtlab("run", str(p), "--store", str(tmp_path / "s.duckdb"))
    assert r.returncode == 2
    assert f"{p}:7: workload[0].polcy: unknown rtlab-latency parameter" in " ".join(
        r.stderr.split()
    )
    assert "Traceback" not in r.stderr


AXES = 'name = "uvk"\n' + BOTH_KERNELS + "period_us = [100, 20]\nsamples = 100\n"


def test_a_target_axis_runs_every_cell_on_each_variant() -> None:
    """kernel = ["stock", "rt"]: one spec, both kernels; each cell names its variant and
    carries its own target table, and the keys are those of the one-kernel spec's cells."""
    cells = parse_spec(AXES).cells()
    assert [c.label for c in cells] == [
        "hrtimer[kernel=stock,period_us=100]@idle",
        "hrtimer[kernel=stock,period_us=20]@idle",
        "hrtimer[kernel=rt,period_us=100]@idle",
        "hrtimer[kernel=rt,period_us=20]@idle",
    ]
    assert [c.target["kernel"] for c in cells if c.target] == ["stock", "stock", "rt", "rt"]
    one = parse_spec(AXES.replace('kernel = ["stock", "rt"]', 'kernel = "rt"')).cells()
    assert one[0].target is None and one[0].label == "hrtimer[period_us=100]@idle"
    # the same definition, so the same hash: an rt run stored by either spec is found
    assert one[0].key.split("#")[1] == cells[2].key.split("#")[1]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('["stock", "stock"]', "distinct values"),
        ("[]", "distinct values"),
        ('["stock", "vanilla"]', "vanilla"),
    ],
)
def test_a_bad_target_axis_is_a_spec_error(tmp_path: Path, value: str, message: str) -> None:
    text = AXES.replace('kernel = ["stock", "rt"]', f"kernel = {value}")
    err = _err(text, tmp_path)
    assert "bad.toml:4:" in err and "kernel" in err and message in err, err


MODEL = """name = "v"
[target]
kind = "serial"
board = "pico"
flasher = "rp2040_model"
builtin_args = true
rtos = ["freertos", "nuttx"]
xip_cache = "fully-associative"
variants = [{xip_cache = "two-way"}, {xip_cache = "two-way", layout_shift_kib = 3}]
[[workload]]
kind = "rtbench"
name = "smp"
scenarios = ["threadmetric"]
"""


def test_variants_change_one_setting_at_a_time_after_the_spec_s_own() -> None:
    """A model's uncertainties: the page's own setting first, then each table of
    `variants` against it, not every product of the settings."""
    cells = parse_spec(MODEL).cells()
    assert [c.label for c in cells] == [
        "smp[rtos=freertos]@idle",
        "smp[rtos=freertos,xip_cache=two-way]@idle",
        "smp[rtos=freertos,xip_cache=two-way,layout_shift_kib=3]@idle",
        "smp[rtos=nuttx]@idle",
        "smp[rtos=nuttx,xip_cache=two-way]@idle",
        "smp[rtos=nuttx,xip_cache=two-way,layout_shift_kib=3]@idle",
    ]
    targets = [c.target for c in cells]
    assert all(t is not None and "variants" not in t for t in targets)
    assert [t["xip_cache"] for t in targets if t] == ["fully-associative", "two-way", "two-way"] * 2


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[]", "distinct tables"),
        ('[{xip_cache = "two-way"}, {xip_cache = "two-way"}]', "distinct tables"),
        ('[{board = "pico2"}]', "board"),
        ('[{xip_cache = ["two-way"]}]', "one value"),
    ],
)
def test_a_bad_variants_list_is_a_spec_error(tmp_path: Path, value: str, message: str) -> None:
    text = MODEL.replace(
        'variants = [{xip_cache = "two-way"}, {xip_cache = "two-way", layout_shift_kib = 3}]',
        f"variants = {value}",
    )
    err = _err(text, tmp_path)
    assert "variants" in err and message in err, err


def test_only_a_kind_s_axes_may_be_lists(tmp_path: Path) -> None:
    err = _err(AXES.replace("icount_shift = 1", "icount_shift = [0, 1]"), tmp_path)
    assert "bad.toml:5: target.icount_shift" in err, err
