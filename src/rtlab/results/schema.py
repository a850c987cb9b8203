"""The store's tables and run statuses: what a store file holds, old ones included
(tests/fixtures/store-v0 was written before the restructure and must still read)."""

from __future__ import annotations

import json
from typing import Any

from rtlab.errors import RtlabError

STATUSES = ("running", "ok", "incomplete", "error", "interrupted")

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY,
    spec_name VARCHAR,
    cell_key VARCHAR,          -- the matrix cell (workload x params x condition) for resume
    repetition INTEGER,
    workload VARCHAR,
    status VARCHAR NOT NULL,
    message VARCHAR,
    problems VARCHAR,          -- JSON list: what the protocol parser found missing
    spec VARCHAR,              -- JSON: the spec (or its text) that produced the run
    params VARCHAR,            -- JSON
    target VARCHAR,            -- JSON
    fingerprint VARCHAR,       -- JSON: rtlab.lab.fingerprint
    load VARCHAR,              -- JSON: rtlab.lab.fingerprint.LoadMonitor during the run
    meta VARCHAR,              -- JSON: the workload's own metadata
    samples_file VARCHAR,      -- relative to the store directory, NULL without samples
    started_at DOUBLE,         -- unix seconds
    finished_at DOUBLE,
    owner_pid INTEGER,
    owner_host VARCHAR,
    owner_boot VARCHAR
);
CREATE TABLE IF NOT EXISTS series (
    run_id VARCHAR, name VARCHAR, unit VARCHAR,
    tick_num BIGINT, tick_den BIGINT,   -- exact tick length in seconds, NULL for counts
    n BIGINT, attrs VARCHAR,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS summaries (
    run_id VARCHAR, series VARCHAR, unit VARCHAR, n BIGINT,
    min DOUBLE, mean DOUBLE, rms DOUBLE, p50 DOUBLE, p90 DOUBLE, p99 DOUBLE, p999 DOUBLE,
    max DOUBLE,
    PRIMARY KEY (run_id, series)
);
CREATE TABLE IF NOT EXISTS counters (
    run_id VARCHAR, name VARCHAR, value BIGINT, unit VARCHAR, PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS histograms (
    run_id VARCHAR, name VARCHAR, unit VARCHAR, lo BIGINT, hi BIGINT, count BIGINT
);
CREATE TABLE IF NOT EXISTS warnings (run_id VARCHAR, code VARCHAR, msg VARCHAR);
"""


class StoreError(RtlabError):
    """The store cannot be opened or a request names something it does not hold."""


def to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=str)
