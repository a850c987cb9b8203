from fractions import Fraction

import numpy as np
import pytest

from rtlab.analysis.stats import (
    _MAX_HIST_RANGE,
    DEFAULT_QUANTILES,
    compute_stats,
    parse_quantiles,
)
from rtlab.model import Samples

QS = (*DEFAULT_QUANTILES, 0.0, 1.0, 0.123)


def reference(values: np.ndarray, tick_ns: float) -> dict:
    v = values.astype(np.float64)
    mean = v.mean()
    dev = np.abs(v - mean)
    return {
        "mean": mean * tick_ns,
        "rms": v.std() * tick_ns,
        "min": v.min() * tick_ns,
        "max": v.max() * tick_ns,
        "max_dev": dev.max() * tick_ns,
        "mean_abs_dev": dev.mean() * tick_ns,
        "q": {q: np.quantile(values, q, method="inverted_cdf") * tick_ns for q in QS},
        "aq": {q: np.quantile(dev, q, method="inverted_cdf") * tick_ns for q in QS},
    }


@pytest.mark.parametrize(
    "values",
    [
        np.array([5]),
        np.array([3, 1, 2]),
        np.random.default_rng(1).integers(1000, 1100, 10_001),  # histogram path
        np.random.default_rng(2).integers(-(10**12), 10**12, 5_000),  # partition path
        np.concatenate([np.full(999, 137), [10**15]]),  # one huge outlier: partition path
    ],
)
def test_stats_match_numpy_reference(values: np.ndarray) -> None:
    st = compute_stats(Samples(values, Fraction(16, 10**9)), QS)
    ref = reference(values, 16.0)
    assert st.n == values.size
    for key in ("mean", "rms", "min", "max", "max_dev", "mean_abs_dev"):
        assert getattr(st, key) == pytest.approx(ref[key], rel=1e-9, abs=1e-6), key
    for q in QS:
        assert st.quantiles[q] == pytest.approx(ref["q"][q]), q
        assert st.abs_dev_quantiles[q] == pytest.approx(ref["aq"][q], rel=1e-9, abs=1e-6), q
    assert st.pkpk == pytest.approx(ref["max"] - ref["min"])


def test_histogram_and_partition_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    import rtlab.analysis.stats as stats_mod

    values = np.random.default_rng(3).integers(0, 5000, 20_000)
    hist = compute_stats(Samples(values, Fraction(1, 10**9)), QS).to_dict()
    monkeypatch.setattr(stats_mod, "_MAX_HIST_RANGE", 0)
    part = compute_stats(Samples(values, Fraction(1, 10**9)), QS).to_dict()
    assert hist.keys() == part.keys()
    for k in hist:
        if isinstance(hist[k], dict):
            for q in hist[k]:
                assert hist[k][q] == pytest.approx(part[k][q], rel=1e-12, abs=1e-9)
        else:
            assert hist[k] == pytest.approx(part[k], rel=1e-12, abs=1e-9), k
    assert _MAX_HIST_RANGE > 0


def test_empty_samples_give_nan_not_error() -> None:
    d = compute_stats(Samples(np.zeros(0, np.int64), Fraction(1, 10**9))).to_dict()
    assert d["n"] == 0 and d["mean_ns"] is None and d["quantiles"]["0.5"] is None


def test_json_keys_follow_the_documented_schema() -> None:
    d = compute_stats(Samples(np.arange(1, 101), Fraction(8, 10**9))).to_dict()
    for key in ("n", "mean_ns", "rms_ns", "min_ns", "max_ns", "max_dev_ns", "pkpk_ns"):
        assert key in d
    assert list(d["quantiles"]) == ["0.05", "0.25", "0.5", "0.75", "0.95", "0.99", "0.999"]
    assert d["quantiles"]["0.5"] == 50 * 8.0  # inverted CDF: sample 50 of 1..100
    assert d["resolution_ns"] == 8.0


def test_parse_quantiles() -> None:
    assert parse_quantiles("0.5 0.99,p99.9") == (0.5, 0.99, 0.999)
    with pytest.raises(ValueError, match="not in"):
        parse_quantiles("1.5")
