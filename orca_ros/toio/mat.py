"""toio mats: their coordinate ranges, and the mat <-> world (metres, right-handed) transform.

Mat coordinates are mat units with y growing downwards and angles in degrees
clockwise. The world frame is x = X s, y = -Y s, yaw = -angle (s = metres per
mat unit), as the toio_ros2 bridge does; see shared/design/toio.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Tuple

from ..core.drive import wrap_angle
from ..core.types import as_finite

DEFAULT_MM_PER_UNIT = 1.3625  # toio SDK for Unity: 560 mm / 411 units


@dataclass(frozen=True)
class Mat:
    name: str
    x_range: Tuple[int, int]
    y_range: Tuple[int, int]

    def contains(self, x: float, y: float) -> bool:
        return self.x_range[0] <= x <= self.x_range[1] and self.y_range[0] <= y <= self.y_range[1]


MATS: Dict[str, Mat] = {m.name: m for m in (
    Mat("collection_ring", (45, 455), (45, 455)),
    Mat("collection_tiles", (545, 955), (45, 455)),
    Mat("simple", (98, 402), (142, 358)),
    Mat("gesundroid", (1050, 1460), (45, 455)),
    *(Mat(f"developer_{row * 3 + col + 1}", x, y)
      for row, y in enumerate(((35, 250), (251, 466), (467, 682), (683, 898)))
      for col, x in enumerate(((34, 339), (340, 644), (645, 949)))),
)}


def mat_named(name: str) -> Mat:
    try:
        return MATS[name]
    except KeyError:
        raise ValueError(f"unknown toio mat {name!r}; known: {sorted(MATS)}") from None


@dataclass(frozen=True)
class MatFrame:
    """Converts between mat units/degrees and world metres/radians."""

    mm_per_unit: float = DEFAULT_MM_PER_UNIT

    def __post_init__(self) -> None:
        as_finite(self.mm_per_unit, "mm_per_unit", strictly_positive=True)

    @property
    def metres_per_unit(self) -> float:
        return self.mm_per_unit / 1000.0

    def to_world(self, x: float, y: float, angle_deg: float) -> Tuple[float, float, float]:
        s = self.metres_per_unit
        return x * s, -y * s, wrap_angle(-math.radians(angle_deg))

    def to_mat(self, x: float, y: float, yaw: float) -> Tuple[float, float, float]:
        s = self.metres_per_unit
        return x / s, -y / s, (-math.degrees(yaw)) % 360.0


def body_velocity(previous: Tuple[float, float, float], current: Tuple[float, float, float],
                  dt: float) -> Tuple[float, float]:
    """``(v, omega)`` in the body frame from two world poses ``(x, y, yaw)`` ``dt`` apart.

    The cube reports positions only; odometry's twist is their finite difference,
    forward speed measured along the earlier heading.
    """
    if dt <= 0.0:
        raise ValueError(f"dt must be positive, got {dt}")
    dx, dy = current[0] - previous[0], current[1] - previous[1]
    heading = previous[2]
    return ((dx * math.cos(heading) + dy * math.sin(heading)) / dt,
            wrap_angle(current[2] - heading) / dt)
