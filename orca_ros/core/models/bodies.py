"""Differential-drive (unicycle) robots under ORCA, in the spirit of NH-ORCA.

Alonso-Mora, Breitenmoser, Rufli, Beardsley, Siegwart, "Optimal Reciprocal
Collision Avoidance for Multiple Non-Holonomic Robots", DARS 2010: a unicycle
tracks a holonomic velocity ``u`` only approximately, so each robot (a) limits
ORCA to velocities it can follow within a tracking error ``E`` and (b) enlarges
its radius by ``E``. Then the holonomic guarantee carries over.

Here the horizon of the tracking bound is one control period ``dt`` (ORCA
re-plans every period from the measured state), which makes every limit a
half-plane that joins ORCA's linear program as a hard constraint:

* lateral: ``|u . n| <= E_lat / dt`` where ``n`` is normal to the heading
  ``h``, so the sideways part the unicycle cannot execute moves it at most
  ``E_lat`` off the planned straight motion in one period;
* longitudinal: ``v_prev - a_max dt <= u . h <= v_prev + a_max dt``, and
  ``0 <= u . h`` driving forward or ``-v_rev <= u . h <= 0`` in reverse
  (``v_rev`` the robot's ``max_reverse_speed``; 0: it never reverses), so the
  speed the LP plans is reachable under the acceleration limit and has the
  sign of the direction the robot drives in (:func:`drive_direction`).

The command is ``v = u . h`` (then clipped to the limits) and
``omega = wrap(angle(s u_free) - theta) / dt`` clipped to the angular speed and
acceleration limits, where ``u_free`` is ORCA's velocity without the kinematic
half-planes and ``s = +1`` forward, ``-1`` in reverse: the robot turns its
axis towards where avoidance wants it to go while it moves only as far as it
can follow. A robot that may reverse backs off when avoidance sends it back,
instead of turning round before it can move.

The position error over one period is then at most
``E = E_lat + v_max * omega_max * dt**2 / 2`` (the second term is the arc
driven while turning, against the straight chord); :func:`tracking_error_bound`
returns it and the avoidance radius is ``radius + E``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from ..geometry.linprog import HalfPlane
from ..geometry.types import Vector2, as_finite

KINEMATICS = ("holonomic", "diff_drive")
"""What a robot's controller can track: a holonomic body, or a unicycle."""
WORLD_KINEMATICS = KINEMATICS + ("toio",)
"""Bodies the scenario world simulates: those, and toio Core Cubes
(:mod:`orca_ros.core.models.toio_cube`: lag, dead zone, readings), controlled as diff_drive."""


def wrap_angle(angle: float) -> float:
    """Normalise to (-pi, pi]."""
    wrapped = math.fmod(angle + math.pi, 2.0 * math.pi)
    if wrapped <= 0.0:
        wrapped += 2.0 * math.pi
    return wrapped - math.pi


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


def tracking_error_bound(limits: DiffDriveLimits, dt: float) -> float:
    """Largest distance between the driven and the planned position after one period (m)."""
    return limits.lateral_error + 0.5 * limits.max_linear_speed * limits.max_angular_speed * dt * dt


REVERSE_HYSTERESIS = math.radians(20.0)
"""How far past a right angle the velocity to follow must point before a robot that
may reverse changes the direction it drives in (either way)."""


def drive_direction(heading: float, towards: Vector2, current: int, may_reverse: bool,
                    preferred: Vector2 = (0.0, 0.0)) -> int:
    """The direction a unicycle drives in to follow ``towards``: +1 forward, -1 in reverse.

    A robot that may reverse backs off while avoidance sends it back: ``towards``
    points more than a right angle plus :data:`REVERSE_HYSTERESIS` away from its
    heading and against its ``preferred`` velocity (``towards . preferred <= 0``).
    It keeps backing while ``towards`` stays more than a right angle less the
    hysteresis from its heading and within the same hysteresis of against
    ``preferred``, so a velocity near its side does not flip it from period to
    period; then it drives forward again. A goal behind the robot is not a reason
    to reverse: it turns round and drives there forward. (Block crowd ``converge``
    diff-drive, seeds 1-4, makespan: backing off 167.7, 152.2, 152.9 and 91 s; never
    176.2, 201.2, 120.8 and 137 s. The README's "Backing off" has the table.)
    """
    if not may_reverse:
        return 1
    if towards[0] * towards[0] + towards[1] * towards[1] < 1e-12:
        return current
    error = abs(wrap_angle(math.atan2(towards[1], towards[0]) - heading))
    against = abs(wrap_angle(math.atan2(towards[1], towards[0])
                             - math.atan2(preferred[1], preferred[0]))) \
        if preferred[0] * preferred[0] + preferred[1] * preferred[1] > 1e-24 else math.pi
    slack = REVERSE_HYSTERESIS if current < 0 else -REVERSE_HYSTERESIS
    if error > 0.5 * math.pi - slack and against >= 0.5 * math.pi - max(slack, 0.0):
        return -1
    return 1


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
    or they overshoot and circle.
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
        omega = wrap_angle(math.atan2(free[1], free[0]) - facing) / max(dt, heading_time_constant)
    else:
        omega = 0.0
    step = limits.max_angular_accel * dt
    omega = min(max(omega, omega_now - step), omega_now + step)
    omega = min(max(omega, -limits.max_angular_speed), limits.max_angular_speed)
    return v, omega


def keep_right_angle(stalled_time, base_deg: float, escape_deg: float, escape_time: float):
    """Clockwise turn (degrees) of the preferred velocity: symmetry breaking and stall escape.

    Every agent turns its preferred velocity ``base_deg`` to the right, so two
    agents meeting head-on both veer right rather than freeze face to face.
    An agent stalled for ``stalled_time`` seconds turns further, linearly up to
    ``escape_deg`` after ``escape_time``: because all agents turn the same way,
    a jammed group starts to circulate instead of pressing inwards. Works on
    floats and numpy arrays alike.
    """
    if isinstance(stalled_time, np.ndarray):
        fraction = np.clip(stalled_time / escape_time, 0.0, 1.0) if escape_time > 0 else 1.0
    else:  # plain floats: np.clip on a scalar costs microseconds per call
        fraction = min(max(stalled_time / escape_time, 0.0), 1.0) if escape_time > 0 else 1.0
    return base_deg + (escape_deg - base_deg) * fraction


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
