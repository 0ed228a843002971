"""Robot bodies as a simulator moves them: holonomic, unicycle (differential drive) and
aerial, with their speed, acceleration and turn limits.

:func:`step_body` and :func:`step_body_3d` advance a body by one step under a command
(fleet_sim and the world step the same bodies); :func:`unicycle_step` is the exact arc
of a unicycle at constant ``(v, omega)``. How a controller follows a velocity with such
a body is :mod:`orca_ros.core.robot.tracking`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Tuple

from ..geometry.frames import wrap_angle
from ..geometry.types import Vector2, as_finite

KINEMATICS = ("holonomic", "diff_drive")
"""What a robot's controller can track: a holonomic body, or a unicycle."""
WORLD_KINEMATICS = KINEMATICS + ("toio",)
"""Bodies the scenario world simulates: those, and toio Core Cubes
(:mod:`orca_ros.core.models.toio_cube`: lag, dead zone, readings), controlled as diff_drive."""


FLEET_SIM_LIMITS = dict(max_angular_speed=3.0, max_linear_accel=4.0, max_angular_accel=20.0)
"""The body limits fleet_sim steps its robots with (its parameters' defaults, and
orca_node's): under ``ros_timing`` the world's bodies are fleet_sim's."""


@dataclass(frozen=True)
class DiffDriveLimits:
    """Speed and acceleration limits of a unicycle robot, and its lateral tracking budget."""

    max_linear_speed: float
    max_angular_speed: float = 2.0
    max_linear_accel: float = 2.0
    max_angular_accel: float = 8.0
    lateral_error: float = 0.02  # E_lat, m per control period

    def __post_init__(self) -> None:
        for name in ("max_linear_speed", "max_angular_speed", "max_linear_accel",
                     "max_angular_accel", "lateral_error"):
            as_finite(getattr(self, name), name, strictly_positive=True)


def unicycle_step(x: float, y: float, heading: float, v: float, omega: float,
                  dt: float) -> Tuple[float, float, float]:
    """Exact integration of constant ``(v, omega)`` over ``dt`` (an arc, or a line)."""
    if abs(omega) < 1e-9:
        return x + v * dt * math.cos(heading), y + v * dt * math.sin(heading), heading
    new_heading = heading + omega * dt
    radius = v / omega
    return (x + radius * (math.sin(new_heading) - math.sin(heading)),
            y - radius * (math.cos(new_heading) - math.cos(heading)),
            wrap_angle(new_heading))


@dataclass
class Body:
    """A simulated robot body: world pose, body-frame velocity and yaw rate."""

    x: float
    y: float
    heading: float
    vx: float = 0.0  # body frame, forward
    vy: float = 0.0  # body frame, left (0 for unicycles)
    omega: float = 0.0

    @property
    def world_velocity(self) -> Vector2:
        c, s = math.cos(self.heading), math.sin(self.heading)
        return (c * self.vx - s * self.vy, s * self.vx + c * self.vy)


def _toward(current: float, target: float, step: float) -> float:
    return min(max(target, current - step), current + step)


def step_body(body: Body, command: Tuple[float, float, float], kinematics: str,
              limits: DiffDriveLimits, dt: float) -> Body:
    """Advance a body by ``dt`` under a commanded body-frame twist ``(vx, vy, omega)``.

    Speeds are clipped to the limits and change at most by the acceleration
    limits (``lateral_error`` plays no part: the body just moves). A unicycle
    ignores ``vy`` and moves along an exact arc; a holonomic body moves straight
    at its new world velocity and turns at ``omega``.
    """
    vx_cmd, vy_cmd, omega_cmd = command
    omega_cmd = min(max(omega_cmd, -limits.max_angular_speed), limits.max_angular_speed)
    omega = _toward(body.omega, omega_cmd, limits.max_angular_accel * dt)
    if kinematics == "diff_drive":
        v_cmd = min(max(vx_cmd, -limits.max_linear_speed), limits.max_linear_speed)
        v = _toward(body.vx, v_cmd, limits.max_linear_accel * dt)
        x, y, heading = unicycle_step(body.x, body.y, body.heading, v, omega, dt)
        return Body(x, y, heading, v, 0.0, omega)
    speed = math.hypot(vx_cmd, vy_cmd)
    if speed > limits.max_linear_speed:
        scale = limits.max_linear_speed / speed
        vx_cmd, vy_cmd = vx_cmd * scale, vy_cmd * scale
    # Accelerate in the world frame (the heading turns during the step).
    c, s = math.cos(body.heading), math.sin(body.heading)
    target = (c * vx_cmd - s * vy_cmd, s * vx_cmd + c * vy_cmd)
    now = body.world_velocity
    dvx, dvy = target[0] - now[0], target[1] - now[1]
    change = math.hypot(dvx, dvy)
    allowed = limits.max_linear_accel * dt
    if change > allowed:
        dvx, dvy = dvx / change * allowed, dvy / change * allowed
    wvx, wvy = now[0] + dvx, now[1] + dvy
    heading = wrap_angle(body.heading + omega * dt)
    c, s = math.cos(heading), math.sin(heading)
    return Body(body.x + wvx * dt, body.y + wvy * dt, heading,
                c * wvx + s * wvy, -s * wvx + c * wvy, omega)


@dataclass
class Body3D:
    """A simulated aerial robot (holonomic, ``dimensions: 3``): world position, yaw, and
    its velocity, horizontal part in the body frame (as :class:`Body`) and vertical
    ``vz`` (world z, up)."""

    x: float
    y: float
    z: float
    heading: float
    vx: float = 0.0  # body frame, forward
    vy: float = 0.0  # body frame, left
    vz: float = 0.0  # up
    omega: float = 0.0

    @property
    def world_velocity(self) -> Tuple[float, float, float]:
        c, s = math.cos(self.heading), math.sin(self.heading)
        return (c * self.vx - s * self.vy, s * self.vx + c * self.vy, self.vz)


def step_body_3d(body: Body3D, command: Tuple[float, float, float, float],
                 limits: DiffDriveLimits, dt: float) -> Body3D:
    """Advance an aerial body by ``dt`` under a commanded twist ``(vx, vy, vz, omega)``
    (``vx``, ``vy`` in the body frame, ``vz`` up): :func:`step_body`'s holonomic rule in
    3D. The speed is clipped to ``max_linear_speed``, the velocity changes by at most
    ``max_linear_accel * dt`` (as one vector), the yaw rate by the angular limits, and
    the body moves straight at its new velocity."""
    vx_cmd, vy_cmd, vz_cmd, omega_cmd = command
    omega_cmd = min(max(omega_cmd, -limits.max_angular_speed), limits.max_angular_speed)
    omega = _toward(body.omega, omega_cmd, limits.max_angular_accel * dt)
    speed = math.sqrt(vx_cmd * vx_cmd + vy_cmd * vy_cmd + vz_cmd * vz_cmd)
    if speed > limits.max_linear_speed:
        scale = limits.max_linear_speed / speed
        vx_cmd, vy_cmd, vz_cmd = vx_cmd * scale, vy_cmd * scale, vz_cmd * scale
    c, s = math.cos(body.heading), math.sin(body.heading)
    target = (c * vx_cmd - s * vy_cmd, s * vx_cmd + c * vy_cmd, vz_cmd)
    now = body.world_velocity
    change = [t - n for t, n in zip(target, now)]
    size = math.sqrt(sum(d * d for d in change))
    allowed = limits.max_linear_accel * dt
    if size > allowed:
        change = [d / size * allowed for d in change]
    wvx, wvy, wvz = (n + d for n, d in zip(now, change))
    heading = wrap_angle(body.heading + omega * dt)
    c, s = math.cos(heading), math.sin(heading)
    return Body3D(body.x + wvx * dt, body.y + wvy * dt, body.z + wvz * dt, heading,
                  c * wvx + s * wvy, -s * wvx + c * wvy, wvz, omega)
