"""A naive controller in front of orca_node's filter mode: straight at the goal, blind to
everyone else, as a stand-in for Nav2's controller (``straight_driver`` publishes its
twist on each robot's ``cmd_vel_in``).

:func:`straight_twist` is the body-frame twist ``(vx, vy, omega)`` that drives a robot at
``position``/``heading`` towards ``goal`` at ``speed``: zero within ``tolerance``; slower
within ``slow_within`` of the goal (in proportion to the distance, at least a tenth of
``speed``). A holonomic robot moves along the bearing to the goal (rotated into its body
frame); a unicycle turns towards the bearing at ``bearing error / turn_time`` (within
``max_angular_speed``) and drives forward at ``speed x max(cos(error), 0)``, so it turns
on the spot while the goal is behind it.
"""

from __future__ import annotations

import math
from typing import Tuple

from ..geometry.frames import wrap_angle


def straight_twist(position: Tuple[float, float], heading: float, goal: Tuple[float, float],
                   speed: float, diff_drive: bool, tolerance: float = 0.05,
                   slow_within: float = 0.5, turn_time: float = 0.3,
                   max_angular_speed: float = 3.0) -> Tuple[float, float, float]:
    """The body-frame twist straight at ``goal`` (module docstring): m/s, m/s, rad/s."""
    dx, dy = goal[0] - position[0], goal[1] - position[1]
    distance = math.hypot(dx, dy)
    if distance <= tolerance:
        return 0.0, 0.0, 0.0
    along = speed * max(0.1, min(1.0, distance / slow_within)) if slow_within > 0 else speed
    bearing = math.atan2(dy, dx)
    error = wrap_angle(bearing - heading)
    if diff_drive:
        omega = max(-max_angular_speed, min(max_angular_speed, error / turn_time))
        return along * max(math.cos(error), 0.0), 0.0, omega
    return along * math.cos(error), along * math.sin(error), 0.0
