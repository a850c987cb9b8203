"""rtbench's timed regions hold the kernel call and nothing else, on every port and both
cycle-modelled targets: a `--markers` run of the primitives scenario, traced instruction
by instruction on the RP2040 model (run.js --pc-trace) and block by block on QEMU
mps2-an385 (`-d exec,nochain,int`), calls in each region only the port's entry point,
which calls only system code (regions.py). Each RTOS skips with one line when its kernel
is not brought. A build that puts a timeout conversion back into the take's region
(-DRTB_TIMED_CONVERSION) fails the same check."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from rtlab.lab.boards.cmake_layer import configure_and_build, layer_build
from rtlab.lab.boards.layers import BOARDS_DIR
from rtlab.lab.c_targets import REPO_ROOT
from rtlab.lab.qemu.machine import qemu_argv
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import merged_paths
from tests.lab.conformance.regions import timed_regions, violations
from tests.lab.conformance.symbols import Image
from tests.lab.conformance.traces import Trace, model_trace, qemu_trace
from tests.models.rp2040 import model
from tests.needs import brought, tool

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

ITERATIONS = 4
WORDS = ["--scenarios", "primitives", "--iterations", str(ITERATIONS), "--markers"]
# Every primitive is timed alone (give, take, send, recv) and in a preemption or return
# row (give and send wake the high task; its take and recv block again): 2 x ITERATIONS.
# Give and take are inline in every port (rtb_port_inline.h): their regions call the
# kernel (or the C library) directly, and no region calls the port's rtb_sem_*.
EXPECTED = dict.fromkeys(("rtb_queue_send", "rtb_queue_recv"), 2 * ITERATIONS)
INLINE_REGIONS = 2 * 2 * ITERATIONS
# The Pico's one-core images (each port's default there; FreeRTOS: both of its ports)
ON_MODEL = [("freertos", "arm-cm0"), ("freertos", "one-core"), ("ucos3", "default"),
            ("zephyr", "default"), ("nuttx", "one-core")]  # fmt: skip
ON_QEMU = [("freertos", "default"), ("ucos3", "default"), ("zephyr", "default"),
           ("nuttx", "default")]  # fmt: skip


def _brought(rtos: str, pico: bool) -> dict[str, str]:
    paths = merged_paths()
    why = RTOSES.get(rtos).missing(paths)
    if why:
        pytest.skip(why)
    if pico and rtos != "zephyr":
        brought("PICO_SDK_PATH", "a pico-sdk checkout", "tested: 2.1.1; README")
    return paths


def _checked(elf: Path, trace: Trace) -> None:
    regions = timed_regions(Image(elf), trace)
    assert violations(regions) == {}, f"{elf.name}: calls in timed regions"
    calls = Counter(p for r in regions for p in r.primitives)
    assert calls == EXPECTED, f"{elf.name}: regions found {calls}"
    inline = [r for r in regions if r.inline]
    assert len(inline) == INLINE_REGIONS, f"{elf.name}: {len(inline)} inline regions"
    assert all(not r.primitives for r in inline), "a region called the port and the kernel"
    assert all(len(r.primitives) == 1 for r in regions if not r.inline), "two primitives"


def _on_model(elf: Path, tmp_path: Path) -> Trace:
    start = Image(elf).start_of("rtb_sc_primitives")  # the boot stays out of the trace
    trace = tmp_path / "pc.trace"
    res = model.run(elf, tmp_path, "--pc-trace", str(trace), "--pc-trace-from", str(start))
    assert res.returncode == 0 and b"rtbench: done errors=0" in res.stdout, res.stderr
    return model_trace(trace)


def _on_qemu(elf: Path, tmp_path: Path) -> Trace:
    log = tmp_path / "qemu.log"
    extra = ["-d", "exec,nochain,int", "-D", str(log)]
    argv = qemu_argv(elf, "mps2-an385", 0, extra, " ".join(WORDS))
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "status=ok" in proc.stdout, proc.stdout[-2000:] + proc.stderr
    return qemu_trace(log)


@pytest.mark.parametrize(("rtos", "config"), ON_MODEL)
def test_timed_regions_hold_the_kernel_call_on_the_rp2040_model(
    rtos: str, config: str, tmp_path: Path
) -> None:
    paths = _brought(rtos, pico=True)
    model.build()
    uf2 = RTOSES.get(rtos).build_baked("pico", config, paths, WORDS)
    elf = tmp_path / "image.elf"  # a copy: another option set rebuilds the build's own
    elf.write_bytes(uf2.with_suffix(".elf").read_bytes())
    _checked(elf, _on_model(elf, tmp_path))


@pytest.mark.parametrize(("rtos", "config"), ON_QEMU)
def test_timed_regions_hold_the_kernel_call_on_qemu_mps2(
    rtos: str, config: str, tmp_path: Path
) -> None:
    paths = _brought(rtos, pico=False)
    tool("qemu-system-arm", "deps/apt.txt: qemu-system-arm")
    elf = RTOSES.get(rtos).build("mps2-an385", config, paths)
    _checked(elf, _on_qemu(elf, tmp_path))


def test_a_conversion_put_back_in_a_timed_region_is_found(tmp_path: Path) -> None:
    """FreeRTOS on mps2-an385 built with the take's timeout converted inside its region:
    each take row calls rtb_timeout_us (which calls the compiler's 64-bit divide)."""
    paths = _brought("freertos", pico=False)
    tool("qemu-system-arm", "deps/apt.txt: qemu-system-arm")
    out = REPO_ROOT / "build" / "rtbench-qemu-freertos-timed-conversion"
    kernel = Path(paths["FREERTOS_KERNEL_PATH"]).resolve()
    options = ["-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_FLAGS=-DRTB_TIMED_CONVERSION",
               f"-DFREERTOS_KERNEL_PATH={kernel}"]  # fmt: skip
    target = "rtbench-freertos-an385"
    with layer_build(BOARDS_DIR / "qemu-mps2", out, options) as cfg:
        configure_and_build(cfg, out, "qemu-mps2 board", "--target", target, "-j2")
    elf = out / "rtbench-freertos-an385.elf"
    found = violations(timed_regions(Image(elf), _on_qemu(elf, tmp_path)))
    assert found.get("low_task -> rtb_timeout_us") == ITERATIONS, found
