"""Where a target's firmware comes from, for the targets that run rtbench firmware (the
`qemu` target, the `serial` target): a program of the spec's `programs`, one image of
its own (`elf`), or rtbench built by an RTOS port (rtlab.lab.rtos RTOSES) for a machine.

    fw = RtosFirmware({"rtos": "freertos"}, machine="mps2-an385")   # a machine file's name
    fw.program("rtbench-posix")          # builds (cached) and names the ELF
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.catalog.rtoses import default_rtos
from rtlab.errors import ConfigError
from rtlab.lab.boards.pico_sdk import sdk_describe
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import RtosBuildError, configs_on, merged_paths, runs_on
from rtlab.lab.rtos.identity import source_identity


def spec_keys() -> dict[str, str]:
    """Every port's own target keys (an older spelling of a variable: key -> variable)."""
    return {k: v for _, port in RTOSES.items() for k, v in port.spec_keys.items()}


KEYS = ("elf", "programs", "rtos", "rtos_config", "rtos_paths", *spec_keys())


def check_firmware(t: Mapping[str, Any], machine: str, where: str = "machine") -> None:
    """The spec's firmware keys: one ConfigError naming the key. `where` is the key that
    named the machine (the message points at it)."""
    for key in ("elf", "rtos", "rtos_config", *spec_keys()):
        if key in t and not isinstance(t[key], str):
            raise ConfigError(key, f"{key}: expected a string")
    rtos = t.get("rtos", default_rtos())
    if rtos not in RTOSES:
        raise ConfigError("rtos", f"rtos = {rtos!r}: expected one of {', '.join(RTOSES)}")
    port = RTOSES.get(rtos)
    if "elf" not in t and machine not in runs_on(port):
        raise ConfigError(
            where, f"{port.title} runs on {', '.join(runs_on(port))} here, not {machine}"
        )
    ours = configs_on(port, machine)
    config = t.get("rtos_config", ours[0])
    if config not in ours and ("elf" not in t or config not in port.configs):
        raise ConfigError(
            "rtos_config",
            f"rtos_config = {config!r}: {port.title} has {', '.join(ours)} on {machine}",
        )
    paths = t.get("rtos_paths", {})
    if not isinstance(paths, dict) or not all(isinstance(v, str) for v in paths.values()):
        raise ConfigError("rtos_paths", 'expected a table: VARIABLE = "path"')
    progs = t.get("programs", {})
    if not isinstance(progs, dict) or not all(isinstance(v, str) for v in progs.values()):
        raise ConfigError("programs", 'expected a table: program name = "path.elf"')


def unknown_version(fingerprint: str) -> str:
    """The version label of a kernel tree that states none (a plain tree without git
    or a version file): the tree's fingerprint (the cell key's `rtos_source`)."""
    return f"unknown version (tree {fingerprint})" if fingerprint else "unknown version"


class RtosFirmware:
    def __init__(self, t: Mapping[str, Any], machine: str) -> None:
        self.machine = machine
        self.elf: str | None = t.get("elf")
        self.port = RTOSES.get(t.get("rtos", default_rtos()))
        self.config = str(t.get("rtos_config", configs_on(self.port, machine)[0]))
        spec_paths = dict(t.get("rtos_paths", {}))
        for key, variable in spec_keys().items():  # a port's older spelling of a variable
            if key in t:
                spec_paths.setdefault(variable, str(t[key]))
        self.paths = merged_paths(spec_paths)
        self.programs = dict(t.get("programs", {}))
        self._rtbench = ""  # the rtbench image program() built (baked() rebuilds it)

    def describe(self) -> dict[str, Any]:
        """What a run records of the RTOS (version, configuration, what the build depends
        on), none for an elf."""
        if self.elf:
            return {}
        described = {
            **self.port.describe(self.config, self.paths, self.machine),
            **self._board_sdk(),
        }
        identity = self.identity()
        if not described.get("rtos_version"):  # the tree states none: say so, never guess
            described["rtos_version"] = unknown_version(identity.get("rtos_source", ""))
        return {**described, "build_identity": identity}

    def _board_sdk(self) -> dict[str, str]:
        """A board built on an SDK of its own (the Pico's pico-sdk): its version."""
        on_sdk = self.machine in self.port.pico_sdk_machines
        return sdk_describe(self.paths) if on_sdk else {}

    def identity(self) -> dict[str, str]:
        """What the cell key carries beyond the spec: the RTOS checkout, rtbench's
        sources and the compiler (rtlab.lab.rtos.identity); nothing for an elf."""
        if self.elf:
            return {}
        identity = source_identity(self.port, self.paths, self.machine)
        return {**identity, **self._board_sdk()} if identity else identity

    def labels(self) -> dict[str, object]:
        """The meta a run's output gets: the RTOS configuration it was built with."""
        return {} if self.elf else {"rtos_config": self.config}

    def program(self, name: str) -> str:
        """The image for a workload program: programs.<name>, elf, or rtbench built on
        the RTOS (the `rtbench` workload asks for rtbench-posix: same options), or another
        of the port's optional `programs` (its `build_program` makes it)."""
        if name in self.programs:
            return str(self.programs[name])
        if self.elf:
            return str(self.elf)
        if name in ("rtbench-posix", "rtbench", f"rtbench-{self.port.name}"):
            self._brought(f"rtbench on {self.port.title}")
            self._rtbench = str(self.port.build(self.machine, self.config, self.paths))
            return self._rtbench
        # Other firmware a port builds (Zephyr: its own latency_measure, the cross-check).
        if name in self.port.programs:
            self._brought(f"{name} on {self.port.title}")
            return str(self.port.build_program(name, self.machine, self.config, self.paths))
        return name

    def baked(self, image: str, words: Sequence[str]) -> str | None:
        """For a board that takes no command line (the Pico): the rtbench image program()
        built, rebuilt with `words` built in, so the run runs the spec's options; None
        when the port cannot (the flasher's rules then apply: builtin_args)."""
        if not image or image != self._rtbench or self.machine not in self.port.baked_machines:
            return None
        return str(self.port.build_baked(self.machine, self.config, self.paths, list(words)))

    def _brought(self, what: str) -> None:
        why = self.port.missing(self.paths)
        if why:
            raise RtosBuildError(f"the target builds {what}: {why}")
