"""What the boards with baked options share (the Pico's rp2040 layer on the pico-sdk,
the Pico 2's rp2350 layer): the options checked before they go into the image, one
image name per option set, and the UF2 written from the built ELF and checked as the
chip's boot ROM would. Which writer: the machine file's `chip` (rp2040, rp2350)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from rtlab.fsutil import atomic_path
from rtlab.lab import uf2_format as uf2
from rtlab.lab import uf2_rp2350
from rtlab.lab.c_targets import RtosBuildError

# chip -> (its UF2 from an ELF, its boot ROM's check)
WRITERS: dict[str, tuple[Callable[[Path], bytes], Callable[[list[uf2.Block]], None]]] = {
    "rp2040": (uf2.from_elf, uf2.check_rp2040),
    "rp2350": (uf2_rp2350.from_elf, uf2_rp2350.check_rp2350),
}


def baked_args(words: list[str], board: str) -> str:
    """The options as the one line the image holds (a C string: no quotes, ; or
    backslashes)."""
    args = " ".join(words)
    if any(c in args for c in '"\\;\n'):
        raise RtosBuildError(f"options for the {board} image: no quotes, ; or backslashes ({args})")
    return args


def image_path(out: Path, stem: str, args: str) -> Path:
    """<out>/<stem>-<hash of the options>.uf2: one image per option set."""
    return out / f"{stem}-{hashlib.sha256(args.encode()).hexdigest()[:8]}.uf2"


def write_uf2(built: Path, image: Path, chip: str) -> Path:
    """The ELF `built` copied beside `image` (its .elf) and its UF2 written there; one
    RtosBuildError when the chip's boot ROM would not boot it."""
    from_elf, check = WRITERS[chip]
    elf = image.with_suffix(".elf")
    # Renamed into place: a parallel run may be loading this very image (same options).
    with atomic_path(elf) as part:
        part.write_bytes(built.read_bytes())
    data = from_elf(elf)
    try:
        check(uf2.read(data))
    except uf2.Uf2Error as e:
        raise RtosBuildError(f"the image {elf.name} is not bootable: {e}") from None
    with atomic_path(image) as part:
        part.write_bytes(data)
    return image
