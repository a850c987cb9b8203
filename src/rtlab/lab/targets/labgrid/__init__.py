"""The `labgrid` target kind: rtlab on a labgrid lab (docs/labgrid.md).

- places: the places of a coordinator (acquire, release, who holds one), through
  labgrid's own client;
- lease: holding a place for one `rtlab run`, released on every way out (a reaper
  process releases it when rtlab is killed);
- boards: the board behind a place, through labgrid's own drivers (SSHDriver,
  QEMUDriver);
- kind: the target kind (`TARGET_KIND`), one place or every place with some tags.
"""

from rtlab.lab.targets.labgrid.kind import TARGET_KIND

__all__ = ["TARGET_KIND"]
