"""The bare-metal smoke image on rtlab's RP2040 model: no kernel, no SDK; CI exercises the
model (boot through the project's ROM, SysTick, NVIC, XIP cache) and the ROM's table."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlab.protocol.parser import parse_one
from tests.models.rp2040 import model


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> tuple[model.ModelRun, model.ModelRun]:
    model.build()
    tmp = tmp_path_factory.mktemp("smoke")
    first = model.run(model.bare_image("smoke"), tmp)
    second = model.run(model.bare_image("smoke"), tmp)
    return first, second


def test_smoke_boots_and_passes(smoke: tuple[model.ModelRun, model.ModelRun]) -> None:
    res = smoke[0]
    assert res.returncode == 0, res.stderr
    assert res.stdout.endswith(b"rtbench: done errors=0\n")
    assert res.summary["reason"] == "done"
    run = parse_one(res.stdout, "smoke")
    assert run.complete and run.status == "ok"
    assert run.counters["rom_checks_failed"][0] == 0
    assert run.counters["swi_runs"][0] == 8
    # SysTick on the core clock: two reads back to back are one LDR apart (2 cycles), and
    # 1000 turns of subs + bne are 1000 x 3 - 1 cycles, plus that read (the first call
    # also takes the XIP misses of its code in flash).
    assert set(run.series["ts_pair"].values) == {2}
    loop = run.series["loop_1000"].values
    assert set(loop[1:]) == {2999 + 2} and loop[0] > 2999 + 2


def test_smoke_xip_cold_costs_misses(smoke: tuple[model.ModelRun, model.ModelRun]) -> None:
    run = parse_one(smoke[0].stdout, "smoke")
    cold, warm = run.series["xip_cold"].values, run.series["xip_warm"].values
    assert (cold > warm).all()
    assert len(set(cold)) == 1 and len(set(warm)) == 1  # every flush makes it cold again


def test_smoke_runs_are_bit_identical(smoke: tuple[model.ModelRun, model.ModelRun]) -> None:
    first, second = smoke
    assert first.stdout == second.stdout
    assert first.summary["cycles"] == second.summary["cycles"]
    assert first.summary["instructions"] == second.summary["instructions"]


def test_warm_path_costs_the_same_without_the_cache_model(tmp_path: Path) -> None:
    model.build()
    res = model.run(model.bare_image("smoke"), tmp_path, "--no-xip-cache")
    run = parse_one(res.stdout, "smoke")
    on = parse_one(model.run(model.bare_image("smoke"), tmp_path).stdout, "smoke")
    assert list(run.series["xip_warm"].values) == list(on.series["xip_warm"].values)
    assert list(run.series["xip_cold"].values) == list(run.series["xip_warm"].values)


def test_compulsory_mode_drops_conflict_misses_only(
    smoke: tuple[model.ModelRun, model.ModelRun], tmp_path: Path
) -> None:
    """Three paths 8 KiB apart share one set of the two-way cache: every warm round misses
    three times there. In "compulsory" mode the warm rounds cost what they cost with no
    cache model at all, and the cold figures (each line's first miss after a flush) are the
    two-way cache's where nothing conflicts."""
    two_way = parse_one(smoke[0].stdout, "smoke")
    compulsory = parse_one(
        model.run(model.bare_image("smoke"), tmp_path, "--xip-cache", "compulsory").stdout,
        "smoke",
    )
    off = parse_one(
        model.run(model.bare_image("smoke"), tmp_path, "--xip-cache", "off").stdout, "smoke"
    )
    miss = 388  # one 8-byte line through the project's boot2 (03h read, BAUDR 4)
    warm_2way = set(two_way.series["xip_same_set"].values[1:])
    warm_comp = set(compulsory.series["xip_same_set"].values[1:])
    assert warm_comp == set(off.series["xip_same_set"].values[1:])
    assert {w - 3 * miss for w in warm_2way} == warm_comp  # the three conflict misses
    assert compulsory.series["xip_same_set"].values[0] > max(warm_comp) + miss  # cold misses
    for name in ("xip_cold", "xip_warm", "loop_1000"):  # no conflict there: the same figures
        assert list(compulsory.series[name].values) == list(two_way.series[name].values)
    assert compulsory.meta == two_way.meta


def test_fully_associative_mode_keeps_capacity_misses_drops_conflict_misses(
    smoke: tuple[model.ModelRun, model.ModelRun], tmp_path: Path
) -> None:
    """One set of 2048 lines, LRU (Hill's 3C model: compulsory and capacity misses). The
    three paths of one two-way set hit from the second round, as in "compulsory" mode; a
    20 KiB path, more than the 16 KiB cache, misses on every line again when called a
    second time, where "compulsory" mode hits on all of them."""
    two_way = parse_one(smoke[0].stdout, "smoke")
    full = parse_one(
        model.run(model.bare_image("smoke"), tmp_path, "--xip-cache", "fully-associative").stdout,
        "smoke",
    )
    compulsory = parse_one(
        model.run(model.bare_image("smoke"), tmp_path, "--xip-cache", "compulsory").stdout,
        "smoke",
    )
    miss = 388
    lines = 20 * 1024 // 8
    assert list(full.series["xip_same_set"].values) == list(
        compulsory.series["xip_same_set"].values
    )
    cold, second = full.series["xip_capacity"].values
    assert second >= lines * miss  # every line of the path missed again
    assert cold - second <= 2 * miss  # as cold, give or take the caller's own lines
    adds = 10240  # one cycle each, the path's own cost without a miss
    _, c_second = compulsory.series["xip_capacity"].values
    assert c_second < adds + 10 * miss  # an ideal cache: the path's lines all hit
    for name in ("xip_cold", "xip_warm", "loop_1000"):  # nothing evicted there
        assert list(full.series[name].values) == list(two_way.series[name].values)


def test_an_unknown_cache_mode_is_one_error(tmp_path: Path) -> None:
    model.build()
    res = model.run(model.bare_image("smoke"), tmp_path, "--xip-cache", "four-way")
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        'rp2040-model: xip cache mode "four-way": expected one of two-way, compulsory, '
        "fully-associative, off"
    ]


def test_a_layout_shift_moves_the_two_way_caches_conflicts_only(
    smoke: tuple[model.ModelRun, model.ModelRun], tmp_path: Path
) -> None:
    """3 KiB of code that never runs, as the cache sees it, between the first of the three
    same-set paths and the other two: those no longer share a set with it, and two lines
    fit the set's two ways, so the warm rounds' three conflict misses go; the
    fully-associative cache, which has no sets, gives the same figures shifted or not."""

    def shifted(*args: str) -> dict[str, list[int]]:
        res = model.run(model.bare_image("smoke"), tmp_path, *args)
        assert res.returncode == 0, res.stderr
        assert res.summary["xip_layout_shift"] == {"at": 0x10003000, "bytes": 3072}
        run = parse_one(res.stdout, "smoke")
        return {k: list(run.series[k].values) for k in ("xip_same_set", "xip_capacity")}

    miss = 388
    two_way = parse_one(smoke[0].stdout, "smoke").series["xip_same_set"].values
    moved = shifted("--xip-layout-shift", "3072@0x10003000")["xip_same_set"]
    assert list(moved[1:]) == [w - 3 * miss for w in two_way[1:]]
    full = model.run(model.bare_image("smoke"), tmp_path, "--xip-cache", "fully-associative")
    full_run = parse_one(full.stdout, "smoke")
    assert shifted("--xip-cache", "fully-associative", "--xip-layout-shift", "3072@0x10003000") == {
        k: list(full_run.series[k].values) for k in ("xip_same_set", "xip_capacity")
    }
    bad = model.run(model.bare_image("smoke"), tmp_path, "--xip-layout-shift", "3004")
    assert bad.returncode == 2 and "multiple of 8" in bad.stderr
