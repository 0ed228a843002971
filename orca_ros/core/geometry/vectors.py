"""Unit vectors that stay exact for the tiniest vectors.

``w / |w|`` is what RVO2 and RVO2-3D write. For a vector whose length is near the
bottom of the float range it goes wrong: the length rounds to a subnormal number (or
its squares underflow to zero), and the quotient is no longer a unit vector. A
relative velocity of 5e-324 m/s along (1, 1) gave the "unit" vector (1, 1), and
ORCA's collision branch asked for a change of relative velocity 1.41 times too
long. Here such a vector is first scaled by a power of two (exact), so its direction
is kept; every other vector gives the very numbers ``w / |w|`` gives.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

TINY_LENGTH = 2.0 ** -400  # below this, squares of components may be subnormal
RESCALE = 2.0 ** 600       # exact: a power of two; 2**-1074 * 2**600 is a normal number


def unit2(x: float, y: float) -> Optional[Tuple[float, float]]:
    """(x, y) / |(x, y)|; None for the zero vector."""
    length = math.hypot(x, y)
    if length == 0.0:
        return None
    if length < TINY_LENGTH:
        x, y = x * RESCALE, y * RESCALE
        length = math.hypot(x, y)
    return (x / length, y / length)


def unit3(x: float, y: float, z: float) -> Optional[Tuple[float, float, float]]:
    """(x, y, z) / |(x, y, z)| with the length as RVO2-3D takes it (the square root of
    the sum of squares); None for the zero vector."""
    length = math.sqrt(x * x + y * y + z * z)
    if length < TINY_LENGTH:
        if x == 0.0 and y == 0.0 and z == 0.0:
            return None
        x, y, z = x * RESCALE, y * RESCALE, z * RESCALE
        length = math.sqrt(x * x + y * y + z * z)
    return (x / length, y / length, z / length)


def unit2_arrays(x, y, zero_direction=(1.0, 0.0)):
    """:func:`unit2` for arrays: ``(ux, uy)``, ``zero_direction`` where the vector is zero.

    Where no rescaling is needed the numbers are those of ``x / hypot(x, y)``."""
    import numpy as np

    length = np.hypot(x, y)
    scale = np.where(length < TINY_LENGTH, RESCALE, 1.0)
    sx, sy = x * scale, y * scale
    scaled = np.hypot(sx, sy)
    zero = scaled == 0.0
    safe = np.where(zero, 1.0, scaled)
    return (np.where(zero, zero_direction[0], sx / safe),
            np.where(zero, zero_direction[1], sy / safe))


def closest_point_on_segment(p: Sequence[float], a: Sequence[float], b: Sequence[float]
                             ) -> Tuple[Tuple[float, float], float]:
    """The point ``c = a + s (b - a)`` of segment a-b nearest to ``p``, and its parameter
    ``s`` in [0, 1] (orthogonal projection, clamped; ``a`` itself for a segment shorter
    than 1e-9). The batch form over arrays: :mod:`.segment_index`."""
    abx, aby = b[0] - a[0], b[1] - a[1]
    length_sq = abx * abx + aby * aby
    s = 0.0 if length_sq < 1e-18 else \
        min(1.0, max(0.0, ((p[0] - a[0]) * abx + (p[1] - a[1]) * aby) / length_sq))
    return (a[0] + s * abx, a[1] + s * aby), s


def point_segment_distance(p: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float:
    """Euclidean distance from ``p`` to segment a-b."""
    c, _ = closest_point_on_segment(p, a, b)
    return math.dist(p, c)
