"""Write and query speed of the results store for 10^7 samples.

    .venv/bin/python bench/store_speed.py [--samples 10000000] [--runs 1]

Writes one run of N latency-like int64 samples (Parquet, zstd, plus its summary rows),
then reads them back (numpy), and queries them with DuckDB (count, median, p99, p99.9,
max over the Parquet file through the `samples` view).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rtlab.results import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10**7)
    a = ap.parse_args()
    n = a.samples
    rng = np.random.default_rng(1)
    v = (rng.lognormal(10, 0.3, n)).astype(np.int64)  # ~22 us median latencies in ns
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "rtlab.duckdb") as st:
        t0 = time.perf_counter()
        with st.run(workload="bench") as r:
            r.add_series("latency", v)
        t_write = time.perf_counter() - t0
        size = (st.samples_dir / f"{r.run_id}.parquet").stat().st_size

        t0 = time.perf_counter()
        back = st.samples(r.run_id, "latency")
        t_read = time.perf_counter() - t0
        assert np.array_equal(back, v)

        t0 = time.perf_counter()
        (row,) = st.sql(
            "SELECT count(*), quantile_disc(value, 0.5), quantile_disc(value, 0.99),"
            " quantile_disc(value, 0.999), max(value) FROM samples WHERE run_id=?",
            [r.run_id],
        )
        t_query = time.perf_counter() - t0
        t0 = time.perf_counter()
        st.summaries([r.run_id])
        t_summary = time.perf_counter() - t0
    print(f"{n:,} samples")
    print(
        f"write (Parquet zstd + summary + commit): {t_write:6.2f} s  "
        f"{n / t_write / 1e6:6.1f} M samples/s  file {size / 1e6:.1f} MB "
        f"({size * 8 / n:.1f} bits/sample)"
    )
    print(
        f"read back to numpy:                     {t_read:6.2f} s  "
        f"{n / t_read / 1e6:6.1f} M samples/s"
    )
    print(f"DuckDB count/median/p99/p99.9/max:      {t_query:6.2f} s  -> {row}")
    print(f"summary row lookup:                     {t_summary * 1e3:6.1f} ms")


if __name__ == "__main__":
    main()
