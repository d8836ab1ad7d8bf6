from __future__ import annotations

import numpy as np
import pytest

from passk_lab import mulberry32, seeded
from passk_lab.mulberry import _BLOCK


def _imul(a: int, b: int) -> int:
    """JavaScript's Math.imul, written from its specification: signed 32-bit product."""
    product = ((a & 0xFFFFFFFF) * (b & 0xFFFFFFFF)) & 0xFFFFFFFF
    return product - 0x100000000 if product & 0x80000000 else product


def _to_int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - 0x100000000 if x & 0x80000000 else x


def _js_seeded(seed: int):
    """A literal transcription with JavaScript's signed int32 semantics, independent of the
    package's unsigned arithmetic."""
    a = seed & 0xFFFFFFFF

    def draw() -> float:
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = _to_int32(a)  # `let t = a` then bitwise ops see int32
        t = _imul(t ^ ((t & 0xFFFFFFFF) >> 15), t | 1)
        t = _to_int32(t ^ (t + _imul(t ^ ((t & 0xFFFFFFFF) >> 7), t | 61)))
        return ((t ^ ((t & 0xFFFFFFFF) >> 14)) & 0xFFFFFFFF) / 4294967296

    return draw


SEEDS = [0, 1, 42, 2**31 - 1, 2**31, 2**32 - 1, -1, -123456789, 2**40 + 7]


def test_published_first_draws_for_seed_42():
    draw = seeded(42)
    assert [draw(), draw(), draw()] == [
        0.6011037519201636,
        0.44829055899754167,
        0.8524657934904099,
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_seeded_matches_an_independent_transcription(seed):
    ours, theirs = seeded(seed), _js_seeded(seed)
    assert [ours() for _ in range(2000)] == [theirs() for _ in range(2000)]


@pytest.mark.parametrize("seed", SEEDS)
def test_vectorised_stream_equals_the_scalar_one_on_a_million_draws(seed):
    draw = seeded(seed)
    scalar = np.array([draw() for _ in range(1_000_000)])
    vector = mulberry32(seed, 1_000_000)
    assert vector.dtype == np.float64
    np.testing.assert_array_equal(vector, scalar)


@pytest.mark.parametrize(
    "size", [0, 1, _BLOCK - 1, _BLOCK, _BLOCK + 1, 2 * _BLOCK, 3 * _BLOCK + 17]
)
@pytest.mark.parametrize("seed", [42, 2**32 - 1])
def test_blocked_stream_equals_the_scalar_one_across_block_boundaries(seed, size):
    # the scalar port, called `size` times, against every way a size can meet the blocks:
    # one short block, one full one, one draw past it, several with a short last one
    draw = seeded(seed)
    scalar = np.array([draw() for _ in range(size)], dtype=np.float64)
    vector = mulberry32(seed, size)
    assert vector.shape == (size,)
    np.testing.assert_array_equal(vector, scalar)


def test_node_runs_the_source_javascript_to_the_same_bits(run_js):
    seeds = [0, 42, 2**32 - 1, -1, -987654321, 2**31]
    expected = run_js(
        f"const seeds = {seeds};"
        "console.log(JSON.stringify(seeds.map(s => { const r = seeded(s);"
        " return Array.from({length: 5000}, () => r()); })));"
    )
    for seed, values in zip(seeds, expected, strict=True):
        np.testing.assert_array_equal(mulberry32(seed, 5000), np.array(values))


def test_seeds_wrap_modulo_2_to_the_32():
    np.testing.assert_array_equal(mulberry32(-1, 100), mulberry32(2**32 - 1, 100))
    np.testing.assert_array_equal(mulberry32(2**32 + 42, 100), mulberry32(42, 100))
    np.testing.assert_array_equal(mulberry32(np.int64(42), 100), mulberry32(42, 100))


def test_draws_are_in_the_unit_interval_and_look_uniform():
    values = mulberry32(7, 200_000)
    assert values.min() >= 0.0
    assert values.max() < 1.0
    # 200,000 uniform draws: the mean's standard error is 0.29 / sqrt(2e5) = 6.5e-4.
    assert abs(values.mean() - 0.5) < 5 * 6.5e-4


def test_empty_stream():
    assert mulberry32(42, 0).shape == (0,)


@pytest.mark.parametrize("seed", [1.5, 42.0, "42", None, True])
def test_non_integer_seed_is_refused(seed):
    with pytest.raises(TypeError, match="seed must be an integer"):
        seeded(seed)
    with pytest.raises(TypeError, match="seed must be an integer"):
        mulberry32(seed, 3)


def test_bad_size_is_refused():
    with pytest.raises(ValueError, match="size must be a non-negative integer, got -1"):
        mulberry32(42, -1)
    with pytest.raises(TypeError, match="size must be an integer"):
        mulberry32(42, 2.0)
