"""toio mats: their coordinate ranges, and the mat <-> world (metres, right-handed) transform.

Mat coordinates are mat units with y growing downwards and angles in degrees
clockwise. The world frame is x = X s, y = -Y s, yaw = -angle (s = metres per
mat unit), as the toio_ros2 bridge does; see shared/design/toio.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

# The mat <-> world transform and odometry's finite difference belong to the
# cube's model (the scenario world uses them too); importable from here as before.
from ..core.cube import DEFAULT_MM_PER_UNIT, MatFrame, body_velocity  # noqa: F401


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
