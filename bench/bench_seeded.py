"""mulberry32: the vectorised stream against numpy's own generator and the scalar port."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from timing import Row, best_of

from passk_lab import mulberry32, seeded

SIZE = 10_000_000
SCALAR_SIZE = 200_000
ROUNDS = 5  # alternating rounds of the stream and its baseline; the minimum of each is kept


def _alternating_minima(
    first: Callable[[], object], second: Callable[[], object]
) -> tuple[float, float]:
    """Best time of each of two functions, timed in turns so a burst of load hits both."""
    first_times, second_times = [], []
    for _ in range(ROUNDS):
        first_times.append(best_of(first, repeat=2))
        second_times.append(best_of(second, repeat=2))
    return min(first_times), min(second_times)


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    vector, numpy_random = _alternating_minima(
        lambda: mulberry32(42, SIZE), lambda: rng.random(SIZE)
    )

    def scalar_loop() -> None:
        draw = seeded(42)
        for _ in range(SCALAR_SIZE):
            draw()

    scalar_per_draw = best_of(scalar_loop, repeat=3) / SCALAR_SIZE
    return [
        Row(
            "mulberry32 (vectorised)",
            "1e7",
            vector,
            "numpy Generator.random",
            numpy_random,
            target=1.3,
        ),
        Row(
            "mulberry32 (vectorised)",
            "1e7",
            vector,
            "seeded() loop (extrapolated)",
            scalar_per_draw * SIZE,
        ),
    ]
