"""Mulberry32, the source harness's deterministic generator, bit for bit.

The source document's ``seeded(seed)`` is the 32-bit *mulberry32* generator
written in JavaScript. Its state is a single unsigned 32-bit word that grows by
``0x6D2B79F5`` at every step, so the state after ``i + 1`` steps is
``seed + (i + 1) * 0x6D2B79F5 mod 2**32`` and each output depends only on its
own state. That is what lets :func:`mulberry32` compute the stream with numpy,
one block of draws after another, and still equal :func:`seeded` called the
same number of times.

Mulberry32 is here to reproduce the source's simulation exactly. For new
simulations use a :class:`numpy.random.Generator` through an ``rng`` argument.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from passk_lab._checks import as_int

__all__ = ["mulberry32", "seeded"]

_INCREMENT = 0x6D2B79F5
_MASK = 0xFFFFFFFF
_TWO_32 = 4294967296.0
# Draws per block of mulberry32. The hash makes 14 passes over a block, so its three
# uint32 working arrays (128 KiB each at this size) stay in a core's L2 cache, even a
# 512 KiB one; much smaller blocks pay the per-call cost of the 14 ufuncs too often.
_BLOCK = 32_768


def _as_uint32_seed(seed: object) -> int:
    """Return ``seed >>> 0``: the integer seed modulo 2**32."""
    return as_int("seed", seed) & _MASK


def seeded(seed: int) -> Callable[[], float]:
    """Return the source harness's generator: a callable drawing floats in [0, 1).

    Each call advances the state and returns the next draw, equal bit for bit
    to the JavaScript ``seeded(seed)()`` of the source document. Seeds wrap
    modulo 2**32 as JavaScript's ``seed >>> 0`` does, so ``-1`` and
    ``2**32 - 1`` give the same stream.

    Parameters
    ----------
    seed : int
        Any Python or numpy integer.

    Returns
    -------
    Callable[[], float]
        A generator function; every call returns a float in ``[0, 1)`` with 32
        random bits.

    Raises
    ------
    TypeError
        If `seed` is not an integer (a float, a string, a bool).

    See Also
    --------
    mulberry32 : The same stream as a numpy array, computed with numpy in blocks.

    Examples
    --------
    >>> draw = seeded(42)
    >>> [draw() for _ in range(3)]
    [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]
    """
    state = _as_uint32_seed(seed)

    def draw() -> float:
        nonlocal state
        state = (state + _INCREMENT) & _MASK
        t = state
        t = ((t ^ (t >> 15)) * (t | 1)) & _MASK
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & _MASK)) & _MASK
        return ((t ^ (t >> 14)) & _MASK) / _TWO_32

    return draw


def mulberry32(seed: int, size: int) -> npt.NDArray[np.float64]:
    """Return the first `size` draws of ``seeded(seed)`` as a float64 array.

    The stream is computed in closed form (draw ``i`` uses the state
    ``seed + (i + 1) * 0x6D2B79F5 mod 2**32``) with unsigned 32-bit numpy
    arithmetic, in blocks of 32,768 draws whose working arrays stay in the CPU
    cache, so ten million draws take about as long as numpy's own
    :meth:`numpy.random.Generator.random`.

    Parameters
    ----------
    seed : int
        Any Python or numpy integer; wraps modulo 2**32 like :func:`seeded`.
    size : int
        How many draws, ``>= 0``.

    Returns
    -------
    numpy.ndarray
        float64 values in ``[0, 1)``, identical to calling ``seeded(seed)``
        `size` times.

    Raises
    ------
    TypeError
        If `seed` or `size` is not an integer.
    ValueError
        If `size` is negative.

    Examples
    --------
    >>> mulberry32(42, 3)
    array([0.60110375, 0.44829056, 0.85246579])
    >>> bool((mulberry32(-1, 1000) == mulberry32(2**32 - 1, 1000)).all())
    True
    """
    start = _as_uint32_seed(seed)
    count = as_int("size", size)
    if count < 0:
        raise ValueError(f"size must be a non-negative integer, got {count}")

    # The state after i + 1 steps is seed + (i + 1) * increment: a block starting at
    # draw `low` adds `seed + low * increment` to the states of the first block.
    # uint32 arithmetic wraps modulo 2**32, exactly like JavaScript's `>>> 0` and
    # Math.imul (the low 32 bits of the product).
    steps = np.arange(1, min(count, _BLOCK) + 1, dtype=np.uint32)
    steps *= np.uint32(_INCREMENT)
    t, u, v = np.empty_like(steps), np.empty_like(steps), np.empty_like(steps)
    draws = np.empty(count, dtype=np.float64)
    for low in range(0, count, _BLOCK):
        n = min(_BLOCK, count - low)
        bt, bu, bv = t[:n], u[:n], v[:n]
        np.add(steps[:n], np.uint32((start + low * _INCREMENT) & _MASK), out=bt)
        np.right_shift(bt, np.uint32(15), out=bu)
        np.bitwise_xor(bu, bt, out=bu)
        np.bitwise_or(bt, np.uint32(1), out=bt)
        np.multiply(bt, bu, out=bt)  # t = imul(t ^ (t >>> 15), t | 1)
        np.right_shift(bt, np.uint32(7), out=bu)
        np.bitwise_xor(bu, bt, out=bu)
        np.bitwise_or(bt, np.uint32(61), out=bv)
        np.multiply(bu, bv, out=bu)  # imul(t ^ (t >>> 7), t | 61)
        np.add(bu, bt, out=bu)
        np.bitwise_xor(bt, bu, out=bt)  # t ^= t + imul(...)
        np.right_shift(bt, np.uint32(14), out=bu)
        np.bitwise_xor(bt, bu, out=bt)
        np.divide(bt, _TWO_32, out=draws[low : low + n])
    return draws
