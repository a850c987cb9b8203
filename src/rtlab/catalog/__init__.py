"""The catalog: what rtlab knows of the things it measures, below every layer that uses
it (lab builds and runs them; studies and report name them in tables).

- machines: the machine files (`machines.MACHINES`), hardware only;
- rtoses: each RTOS port's declaration (title, default) and where it runs (its
  per-machine overlays), read from its port folder;
- study_errors, gpio_kinds, emulation: the error types, workload kinds and figure labels
  a study shares with the runner.

It reads files; it builds, runs and imports nothing of lab (an import contract says so).
"""
