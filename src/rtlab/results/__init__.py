"""The results store: a DuckDB file with raw samples as Parquet beside it (see store.py).

schema.py: the tables and statuses; run_writer.py: one run on its way in (RunWriter);
store.py: opening, recovery, writing and reading; query.py: runs grouped by cell.
"""

from rtlab.analysis.stats import summarize
from rtlab.results.run_writer import RunWriter, SeriesData
from rtlab.results.schema import STATUSES, StoreError
from rtlab.results.store import Store

__all__ = ["STATUSES", "RunWriter", "SeriesData", "Store", "StoreError", "summarize"]
