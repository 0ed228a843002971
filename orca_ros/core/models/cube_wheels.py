"""A toio Core Cube's wheels and mat units: what a cube's tracking
(:func:`~orca_ros.core.robot.tracking.move_to_target`, the toio SDK's follower) needs,
apart from the cube's physics (:mod:`~orca_ros.core.models.toio_cube`, which uses them
too), so that a robot's controller never loads that model."""

from __future__ import annotations

import math
from dataclasses import dataclass

DEFAULT_MM_PER_UNIT = 1.3625  # toio SDK for Unity: 560 mm / 411 units
CUBE_RADIUS_M = 0.023
"""The disc our toio cubes are planned as (a 31.8 mm square fits in 22.5 mm)."""
CUBE_RADIUS_UNITS = CUBE_RADIUS_M * 1000.0 / DEFAULT_MM_PER_UNIT
"""That disc in mat units (16.88): the toio SDK's lengths scale with a robot's size by it."""


@dataclass(frozen=True)
class WheelModel:
    """A toio cube's wheels (:mod:`~orca_ros.core.models.toio_cube`, "Wheels"): ``track_m``
    apart, ``mps_per_unit`` m/s per command unit, still below ``dead_zone``, saturated
    above ``saturation``."""

    track_m: float = 0.0266
    mps_per_unit: float = 0.002814
    dead_zone: int = 8  # smallest value that moves the wheel
    saturation: int = 115

    def wheel_speed(self, command: int) -> float:
        """m/s of a wheel for a command value (dead zone and saturation applied)."""
        magnitude = min(abs(command), self.saturation)
        if magnitude < self.dead_zone:
            return 0.0
        return math.copysign(magnitude * self.mps_per_unit, command)


TOIO = WheelModel()
"""A toio Core Cube's wheels."""
