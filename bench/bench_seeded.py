"""mulberry32: the vectorised stream against numpy's own generator and the scalar port."""

from __future__ import annotations

import numpy as np
from timing import Row, alternating_minima, best_of

from passk_lab import mulberry32, seeded

SIZE = 10_000_000
SCALAR_SIZE = 200_000
ROUNDS = 5  # alternating rounds of the stream and its baseline, each timed twice a round


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    vector, numpy_random = alternating_minima(
        lambda: mulberry32(42, SIZE), lambda: rng.random(SIZE), rounds=ROUNDS, repeat=2
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
