"""Avoidance methods that tests register (under names starting with ``test_``)."""

import math
from dataclasses import dataclass

from orca_ros.core.methods import AvoidanceMethod, MethodOutput


@dataclass(frozen=True)
class SidestepParameters:
    sideways: float = 0.25  # m/s to the left of the preferred velocity


class Sidestep(AvoidanceMethod):
    """Test method: the preferred velocity plus a fixed part to its left."""

    def compute_velocity(self, view):
        px, py = view.pref_velocity
        norm = math.hypot(px, py) or 1.0
        return MethodOutput((px - py / norm * self.params.sideways,
                             py + px / norm * self.params.sideways))
