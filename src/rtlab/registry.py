"""One way to plug in: a `Registry` maps a name to a plug-in (a target kind, a workload
kind, an instrument kind, a load condition, a file format).

    TARGETS = Registry("target kind", {"local": "rtlab.lab.targets.local", ...},
                       attr="TARGET_KIND")

A name not registered yet is looked up in the module table and its module imported the
first time it is asked for, so that `rtlab --help` imports no plug-in. The module names
its plug-ins in one attribute (`attr`: one plug-in or a list of them); each is
registered under its `.name`. Adding a plug-in is a new module plus one line in the
table; code can also `register()` one directly. An unknown name raises ConfigError
("kind", ...) listing the known names, or what `unknown` makes of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from rtlab.errors import ConfigError


class Named(Protocol):
    """What a registry holds: anything with a name (a kind, a port, a flasher class)."""

    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


def _unknown(what: str) -> Callable[[object, list[str]], Exception]:
    def make(name: object, known: list[str]) -> Exception:
        return ConfigError("kind", f"unknown {what} {name!r}; one of {', '.join(known)}")

    return make


class Registry(Generic[T]):
    def __init__(
        self,
        what: str,
        modules: Mapping[str, str],
        *,
        attr: str | Sequence[str] = (),
        unknown: Callable[[object, list[str]], Exception] | None = None,
    ) -> None:
        self.what = what
        self.modules = dict(modules)  # name -> module imported on first use
        self.attrs = (attr,) if isinstance(attr, str) else tuple(attr)
        self.unknown = unknown or _unknown(what)
        self._plugins: dict[str, T] = {}

    def register(self, plugin: T, name: str | None = None) -> T:
        self._plugins[name if name is not None else plugin.name] = plugin
        return plugin

    def _load(self, module: str) -> None:
        mod = importlib.import_module(module)
        for attr in self.attrs:
            found: Any = getattr(mod, attr, None)
            if found is not None:
                for plugin in found if isinstance(found, list | tuple) else [found]:
                    self._plugins.setdefault(plugin.name, plugin)
                return

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name not in self._plugins and name in self.modules:
            self._load(self.modules[name])
        return name in self._plugins

    def get(self, name: object) -> T:
        if not isinstance(name, str) or name not in self:
            raise self.unknown(name, self.names())
        return self._plugins[name]

    __getitem__ = get

    def names(self) -> list[str]:
        """Every known name: the module table's, then those registered directly."""
        return list(dict.fromkeys([*self.modules, *self._plugins]))

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def items(self) -> list[tuple[str, T]]:
        """Every plug-in (importing all their modules), in the order of names()."""
        return [(name, self.get(name)) for name in self.names()]
