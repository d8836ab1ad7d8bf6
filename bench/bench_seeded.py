"""mulberry32: the vectorised stream against numpy's own generator and the scalar port."""

from __future__ import annotations

import numpy as np
from timing import Row, best_of

from passk_lab import mulberry32, seeded

SIZE = 10_000_000
SCALAR_SIZE = 200_000


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    vector = best_of(lambda: mulberry32(42, SIZE))
    numpy_random = best_of(lambda: rng.random(SIZE))

    def scalar_loop() -> None:
        draw = seeded(42)
        for _ in range(SCALAR_SIZE):
            draw()

    scalar_per_draw = best_of(scalar_loop, repeat=3) / SCALAR_SIZE
    return [
        Row("mulberry32 (vectorised)", "1e7", vector, "numpy Generator.random", numpy_random),
        Row(
            "mulberry32 (vectorised)",
            "1e7",
            vector,
            "seeded() loop (extrapolated)",
            scalar_per_draw * SIZE,
        ),
    ]
