"""The rtlab-hrtimer workload kind and the qemu_gpio target's kernel keys: what a spec
may say, refused at load with the key named."""

from __future__ import annotations

import pytest

from rtlab.errors import ConfigError
from rtlab.lab.spec import SpecError, parse_spec
from rtlab.lab.workloads.base import KINDS

KIND = KINDS["rtlab-hrtimer"]


def test_argv_is_the_readers_options() -> None:
    p = {"period_us": 50, "samples": 100, "soft": True, "binary": False, "gpio": 504}
    KIND.check(p)
    assert KIND.argv("/rtlab/rtlab-hrtimer", p) == [
        "/rtlab/rtlab-hrtimer", "-q", "-i", "50", "-l", "100", "--soft", "--gpio", "504",
    ]  # fmt: skip
    assert KIND.seconds({"period_us": 100, "samples": 10_000}) == pytest.approx(1.5)


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"period_us": 0}, "period_us"),
        ({"samples": 2_000_000}, "samples"),
        ({"soft": 1}, "soft"),
        ({"period": 10}, "period"),
        ({"gpio": -1}, "gpio"),
        ({"module": 3}, "module"),
    ],
)
def test_bad_parameters_are_refused_with_their_key(params: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as e:
        KIND.check(params)
    assert e.value.key == key


SPEC = """
name = "t"
[target]
kind = "qemu_gpio"
{target}
[[workload]]
kind = "rtlab-hrtimer"
period_us = [100, 20]
"""


def test_target_kernel_and_icount_keys() -> None:
    spec = parse_spec(SPEC.format(target='kernel = "rt"\nicount_shift = 1'), "t.toml")
    assert spec.target["kernel"] == "rt" and len(spec.cells()) == 2


@pytest.mark.parametrize(
    ("target", "words"),
    [('kernel = "lowlatency"', "kernel"), ("icount_shift = 11", "icount_shift")],
)
def test_bad_target_keys_name_the_key(target: str, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        parse_spec(SPEC.format(target=target), "t.toml")


def test_timerlat_kind_argv_and_refusals() -> None:
    tl = KINDS["rtlab-timerlat"]
    tl.check({"period_us": 100, "samples": 500})
    assert tl.argv("/rtlab/rtlab-timerlat", {"period_us": 100, "samples": 500}) == [
        "/rtlab/rtlab-timerlat", "-i", "100", "-l", "500",
    ]  # fmt: skip
    for bad, key in (({"period_us": 0}, "period_us"), ({"soft": True}, "soft"),
                     ({"samples": 1.5}, "samples")):  # fmt: skip
        with pytest.raises(ConfigError) as e:
            tl.check(bad)
        assert e.value.key == key
