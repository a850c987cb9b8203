"""A known model of wake-up latency with run-to-run variance, for calibrating intervals.

Each run has its own scale (load, frequency: log-normal, sd `scale_sd`) and its own rate of
long wake-ups (`tail_p` × log-normal, sd `tail_sd`: how often the scheduler runs something
else first), as the runs of one rtlab-latency cell on a shared VM do: there the per-run
p99 of 1 s at 1 ms spreads by a factor ~10 (164–1796 µs over 8 runs), which the default
model (log sd of the per-run p99 ≈ 0.8) reproduces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Model:
    n: int = 1000  # samples per run
    median_ns: float = 80e3
    scale_sd: float = 0.1
    tail_p: float = 0.02
    tail_sd: float = 0.5
    tail_mean_ns: float = 1e6

    def runs(self, rng: np.random.Generator, k: int, factor: float = 1.0) -> np.ndarray:
        """k runs × n samples (int64 ns), every value multiplied by `factor`."""
        scale = np.exp(rng.normal(0, self.scale_sd, (k, 1)))
        p = np.minimum(0.5, self.tail_p * np.exp(rng.normal(0, self.tail_sd, (k, 1))))
        v = self.median_ns * scale * np.exp(rng.normal(0, 0.1, (k, self.n)))
        v += (rng.random((k, self.n)) < p) * rng.exponential(self.tail_mean_ns, (k, self.n))
        return np.round(v * factor).astype(np.int64)


NOISY = Model()  # a shared VM
QUIET = Model(n=2000, scale_sd=0.05, tail_p=0.002, tail_sd=0.3)  # an idle, pinned machine
