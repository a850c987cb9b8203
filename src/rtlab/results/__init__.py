"""The results store: a DuckDB file with raw samples as Parquet beside it (see store.py)."""

from rtlab.results.store import STATUSES, RunWriter, SeriesData, Store, StoreError, summarize

__all__ = ["STATUSES", "RunWriter", "SeriesData", "Store", "StoreError", "summarize"]
