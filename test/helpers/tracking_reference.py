"""A unicycle's tracking in pure Python: the former bodies of
:func:`~orca_ros.core.robot.tracking.kinematic_half_planes` and
:func:`~orca_ros.core.robot.tracking.unicycle_command` (with its turn-rate cut
``_stoppable``), which ``orca_ros/core/orca/_orca2d.c`` replaced. The tests' reference
for the C code (``test/unit/robot/test_tracking_c.py``). Nothing in the package imports
this module.
"""

from __future__ import annotations

import math
from typing import List, Tuple

from orca_ros.core.geometry.frames import wrap_angle
from orca_ros.core.geometry.linprog import HalfPlane
from orca_ros.core.geometry.types import Vector2
from orca_ros.core.models.bodies import DiffDriveLimits
from orca_ros.core.robot.safety_filter import braking_speed


def kinematic_half_planes(heading: float, linear_speed: float, limits: DiffDriveLimits,
                          dt: float, direction: int = 1,
                          reverse_speed: float = 0.0) -> List[HalfPlane]:
    """The velocities a unicycle can follow within ``lateral_error`` over ``dt``, as half-planes.

    ``direction``: +1 driving forward, -1 in reverse (at most ``reverse_speed``).
    A robot still moving the other way may only brake towards it. Allowed side is
    to the left of each direction, as for ORCA half-planes.
    """
    hx, hy = math.cos(heading), math.sin(heading)
    lateral = limits.lateral_error / dt
    change = limits.max_linear_accel * dt
    if direction < 0:
        lowest = max(-reverse_speed, linear_speed - change)
        highest = min(0.0, linear_speed + change)
        if lowest > highest:  # still moving forward: brake as hard as it can
            lowest = highest = linear_speed - change
    else:
        lowest = max(0.0, linear_speed - change)
        highest = min(limits.max_linear_speed, linear_speed + change)
        if lowest > highest:  # still moving in reverse: brake as hard as it can
            lowest = highest = linear_speed + change
    # n = (-hy, hx) is the heading's left normal.
    return [
        HalfPlane(-hy * lateral, hx * lateral, -hx, -hy),   # u . n <= lateral
        HalfPlane(hy * lateral, -hx * lateral, hx, hy),     # u . n >= -lateral
        HalfPlane(hx * lowest, hy * lowest, hy, -hx),       # u . h >= lowest
        HalfPlane(hx * highest, hy * highest, -hy, hx),     # u . h <= highest
    ]


def unicycle_command(planned: Vector2, free: Vector2, heading: float,
                     current: Tuple[float, float], limits: DiffDriveLimits,
                     dt: float, heading_time_constant: float = 0.0, direction: int = 1,
                     reverse_speed: float = 0.0) -> Tuple[float, float]:
    """Map ORCA's velocities to ``(v, omega)`` for a unicycle.

    ``planned`` is ORCA's velocity with the kinematic half-planes (what the
    robot drives), ``free`` the one without them (where it turns its axis to:
    its front driving forward, ``direction`` +1, its back in reverse, -1, at
    most ``reverse_speed``).
    ``current`` is the present ``(v, omega)``; acceleration limits apply to it.
    The heading error is closed in ``max(dt, heading_time_constant)`` seconds:
    robots that answer late (toio cubes, ~0.14 s) need a longer time constant
    or they overshoot and circle. The turn rate is also one that braking at
    ``max_angular_accel`` still brings to zero by the heading wanted
    (:func:`_stoppable`): commanding ``error / dt`` up to the acceleration
    limit, a robot turned past the heading and back after every swerve.
    """
    v_now, omega_now = current
    hx, hy = math.cos(heading), math.sin(heading)
    v = planned[0] * hx + planned[1] * hy
    lowest, highest = (0.0, limits.max_linear_speed) if direction > 0 else (-reverse_speed, 0.0)
    v = min(max(v, lowest), highest)
    # The acceleration limit wins: a robot still moving the other way brakes.
    v = min(max(v, v_now - limits.max_linear_accel * dt), v_now + limits.max_linear_accel * dt)

    if free[0] * free[0] + free[1] * free[1] > 1e-12:
        facing = heading if direction > 0 else heading + math.pi
        error = wrap_angle(math.atan2(free[1], free[0]) - facing)
        omega = error / max(dt, heading_time_constant)
        omega = _stoppable(omega, error, limits.max_angular_accel, dt)
    else:
        omega = 0.0
    step = limits.max_angular_accel * dt
    omega = min(max(omega, omega_now - step), omega_now + step)
    omega = min(max(omega, -limits.max_angular_speed), limits.max_angular_speed)
    return v, omega


def _stoppable(omega: float, error: float, alpha: float, dt: float) -> float:
    """``omega`` cut to a turn rate the robot can still bring to zero by the heading
    ``error`` (rad) ahead, braking by ``alpha dt`` a period: the braking envelope of
    :func:`~.safety_filter.braking_speed` over the angle, or, for an error one period
    closes, any rate up to ``error / dt`` that one period's braking stops
    (``<= alpha dt``)."""
    reach = abs(error)
    limit = max(braking_speed(reach, alpha, dt), min(reach / dt, alpha * dt))
    return max(-limit, min(omega, limit))


