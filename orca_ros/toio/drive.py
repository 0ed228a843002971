"""Twist <-> toio wheel speed commands.

A toio wheel speed command is an integer in -115..115 (sign = direction);
0-7 leave the wheel stopped (dead zone), 8..115 are linear at about
2.814 mm/s per unit, and larger values saturate. The wheels are 26.6 mm apart
(shared/design/toio.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class WheelModel:
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


def twist_to_wheels(linear: float, angular: float, model: WheelModel = TOIO) -> Tuple[int, int]:
    """``(left, right)`` commands for a body twist (m/s, rad/s).

    When a wheel would exceed the saturation, both are scaled down together so
    the ratio, and so the path's curvature, is kept. A wheel asked for less
    than half the dead-zone speed stops; between that and the dead zone it is
    raised to the smallest moving value.
    """
    if not (math.isfinite(linear) and math.isfinite(angular)):
        raise ValueError(f"twist must be finite, got ({linear}, {angular})")
    half_track = model.track_m / 2.0
    left = (linear - angular * half_track) / model.mps_per_unit
    right = (linear + angular * half_track) / model.mps_per_unit
    largest = max(abs(left), abs(right))
    if largest > model.saturation:
        scale = model.saturation / largest
        left, right = left * scale, right * scale

    def quantise(units: float) -> int:
        magnitude = abs(units)
        if magnitude < model.dead_zone / 2.0:
            return 0
        return int(math.copysign(max(round(magnitude), model.dead_zone), units))

    return quantise(left), quantise(right)


def wheels_to_twist(left: int, right: int, model: WheelModel = TOIO) -> Tuple[float, float]:
    """The body twist ``(v, omega)`` that wheel commands produce."""
    v_left, v_right = model.wheel_speed(left), model.wheel_speed(right)
    return (v_left + v_right) / 2.0, (v_right - v_left) / model.track_m
