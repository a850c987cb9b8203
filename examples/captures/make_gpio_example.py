"""Makes gpio-toggle-pio.csv: a synthetic capture in the GPIO study's PIO CSV format.

It is modelled on the study's C/libgpiod toggle loop (≈2.2 us period, level durations
of 64–65 and 72–73 ticks of 16 ns, rare scheduler-induced stretches of the low level
up to ~30 us); it is not a measurement. Seeded, so the file is the same every time.

    python examples/captures/make_gpio_example.py examples/captures/gpio-toggle-pio.csv
"""

import sys

import numpy as np


def main(path: str, periods: int = 60_000) -> None:
    rng = np.random.default_rng(2025)
    high = rng.choice([64, 65], periods, p=[0.55, 0.45])
    low = rng.choice([72, 73], periods, p=[0.5, 0.5])
    stretched = rng.random(periods) < 0.00015
    low[stretched] += rng.integers(40, 1900, int(stretched.sum()))
    values = np.empty(2 * periods, dtype=np.int64)
    values[0::2], values[1::2] = high, low
    with open(path, "w") as fh:
        fh.write("\n".join(map(str, values.tolist())) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
