"""A toio Core Cube's physics, and the controller settings cubes run with.

One model, used by the scenario world (``WorldOptions(kinematics="toio")``)
and by the simulated cube behind ``toio_bridge``
(:class:`orca_ros.toio.transport.SimulatedCube`), so the two cannot drift
apart. The numbers come from doc/how_it_works/toio.md (the toio Core Cube
communication specification, toio SDK for Unity, toio.py).

Wheels (:class:`~.cube_wheels.WheelModel`). A wheel speed command ``c`` is an integer in
-115..115 (the sign is the direction). Its steady wheel speed is::

    s(c) = 0                                  if |c| < 8      (dead zone: 0-7 stop)
    s(c) = sign(c) * min(|c|, 115) * 2.814e-3 otherwise (m/s; saturates above 115)

(8 -> 34 rpm, linear to 115 -> 494 rpm, 4.3 rpm per unit on a 12.5 mm wheel,
so 2.814 mm/s per unit and about 0.32 m/s at most.) The wheels are 26.6 mm
apart, so the body twist is ``v = (s_l + s_r) / 2``, ``omega = (s_r - s_l) /
0.0266``.

Body (:class:`CubeBody`), advanced in steps ``dt`` (at most
:data:`PHYSICS_STEP_S` = 0.01 s; the world sub-steps its control period):

* lag: a motor command written at time ``t`` acts from ``t + 0.14`` s
  (:data:`LAG_S`; the spec's users measure 0.13-0.15 s, toio SDK for Unity
  compensates 0.14 s). Commands wait in a queue of ``(act_time, left, right,
  duration)``; at the end of a step every command whose ``act_time`` has come
  becomes the wheels' target and drives that whole step;
* watchdog: a timed command (``duration > 0``, protocol ``02``, 10 ms units,
  at most 2.55 s) sets the targets back to 0 once ``duration`` has passed
  since it took effect; a basic command (``01``) or duration 0 runs until the
  next one;
* wheel response: each wheel speed ``w`` follows its target ``s(c)`` as a
  first-order lag with time constant ``tau = 0.04`` s (:data:`TIME_CONSTANT_S`,
  toio SDK for Unity's simulator), integrated exactly for a target held over
  the step: ``w += (1 - exp(-dt / tau)) (s(c) - w)``;
* motion: the new wheel speeds give ``(v, omega)`` as above, held over the
  step and integrated exactly along the arc
  (:func:`orca_ros.core.models.bodies.unicycle_step`) in the right-handed world frame.

The pose is kept in mat units and degrees (the cube's own frame: y down,
angle clockwise); :class:`MatFrame` converts to world metres and radians
(``x = X s``, ``y = -Y s``, ``yaw = -angle``, ``s`` = mm per unit / 1000,
1.3625 mm per unit by default, toio SDK for Unity's 560 mm / 411 units).

Readings: the cube reports its centre at most every ``id_interval_s``
(:data:`ID_INTERVAL_S` = 0.03 s here, real cubes deliver 20-57 Hz while
moving), rounded to whole mat units and whole degrees. ``toio_bridge`` makes
odometry from successive readings: the pose, and the velocity finite-differenced
by :func:`body_velocity`.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from types import MappingProxyType
from typing import Deque, Dict, List, Mapping, NamedTuple, Optional, Tuple

from .bodies import unicycle_step
from .cube_wheels import (CUBE_RADIUS_M, CUBE_RADIUS_UNITS, DEFAULT_MM_PER_UNIT,  # noqa: F401
                          TOIO, WheelModel)
from ..geometry.frames import wrap_angle
from ..geometry.types import Segment, as_finite

LAG_S = 0.14
"""s from writing a motor command to the wheels acting on it."""
TIME_CONSTANT_S = 0.04
"""s, the wheels' first-order time constant."""
ID_INTERVAL_S = 0.03
"""s between position readings (the simulated cube's default)."""
PHYSICS_STEP_S = 0.01
"""Longest step the world advances a cube by (the bridge's ``sim_step``)."""
MAX_TIMED_MS = 2550
"""Longest duration of a timed motor command (a u8 in 10 ms units)."""

CUBE_AGENT_DEFAULTS: Mapping[str, object] = MappingProxyType({
    # A toio Core Cube as an agent: 31.8 mm square (a 23 mm disc covers it); about
    # 0.32 m/s top speed, driven at 0.12 m/s at most (a tenth of a metre a second:
    # the speed every built-in toio scene is tuned and checked at).
    "radius": 0.023, "max_speed": 0.12, "pref_speed": 0.1, "neighbor_dist": 0.3,
    "max_neighbors": 10, "time_horizon": 2.0, "time_horizon_obst": 1.0})
"""A cube's agent values (a scenario's ``defaults``): the built-in toio scenes' and a
cube's that runs without a scenario (``toio.launch.py``)."""

CUBE_ROBOT_PARAMETERS: Mapping[str, object] = MappingProxyType({
    # Cubes are unicycles that answer commands ~0.14 s late (LAG_S) and brake hard.
    "kinematics": "diff_drive", "max_angular_speed": 4.0, "max_linear_accel": 1.0,
    "max_angular_accel": 20.0, "odom_timeout": 0.5, "command_lag": LAG_S,
    "heading_time_constant": 0.3, "safety_margin_ratio": 0.5,
    # The margin is for cubes moving relative to each other: two at rest keep only the
    # hard layer's distance, so cubes parked on goals 54 mm apart (toio_cross_4v4) hold
    # them (ControllerConfig.pair_margin_shortfall).
    "margin_speed_ratio": 0.5,
    # Replaying the commands sent within the lag through the cube's own wheel model
    # (CubeDrive: dead zone, saturation, time constant) predicted the cubes of all
    # thirteen toio scenes within 1.06 mm (p99 0.90 mm) of where they were when the
    # command acted, in the world with cube dynamics: the readings' rounding. Speeds
    # moving at the acceleration limits instead missed by up to 2.8 mm, and needed
    # 5 mm, which kept four cubes from goals 54 mm apart (toio_cross_4v4).
    "drive_model": "toio",
    "lag_error": 0.0015,
    # toio_bridge times motor commands to end when the command's validity does:
    # six control periods at 20 Hz, as cubes answer ~0.14 s late anyway and a
    # busy machine delays commands further.
    "command_validity": 0.3,
    # Neighbours' own predictions of where they will be when their commands act
    # (orca_node's orca/prediction): 2 mm uncertain instead of 14.5 mm from odometry.
    "share_predictions": True,
    # Cubes move without progress all the time near their tightly packed goals (a 2 x 2
    # block of goals 54 mm apart, a goal missed by 3 mm and come back to under lag): it
    # is not a sign of being stuck there (the 13 toio scenes: 50 of 51 cubes arrived in
    # the world with it, 51 without; three series through toio_bridge, 50, 49 and 49
    # with it, 50, 50 and 50 without).
    "progress_escape_time": 0.0,
    # Cubes drive forward only (the default, said here since it was measured for them):
    # a cube answers 0.14 s late and its wheels stop below the dead zone, and reversing
    # for any velocity behind it cost the toio scenes in the world with cube dynamics
    # (d_to_target4 3 of 4 cubes, e_4v4_lateral 40.6 s instead of 12.6 s).
    "max_reverse_speed": 0.0,
})
"""The orca_node parameters a toio cube runs with (``orca_ros.fleet.plan.TOIO_ROBOT``),
and the controller settings of the world's cubes (``kinematics="toio"``)."""


# --- wheels --------------------------------------------------------------------------------

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


def timed_duration_ms(seconds: float) -> int:
    """A timed motor command's duration for ``seconds``: whole 10 ms, 10..2550 ms."""
    steps = int(seconds * 1000.0) // 10
    return min(max(steps, 1), MAX_TIMED_MS // 10) * 10


@dataclass(frozen=True)
class CubeDrive:
    """How a cube's wheels carry out the commands sent to it, for predicting where it will
    be when a new command acts (:class:`~orca_ros.core.robot.perception.SentCommands`).

    The same physics as :class:`CubeBody`, replayed from the controller's side: each
    sent ``(v, omega)`` becomes the wheel commands toio_bridge writes
    (:func:`twist_to_wheels`, with their dead zone and saturation), each wheel follows
    its steady speed through the first-order lag ``w += (1 - exp(-dt / tau)) (s(c) -
    w)``, and the pose follows the arcs. The wheels' speeds at the reading are not
    measured (differenced from readings a whole mat unit coarse, a standing cube
    seems to move at up to 45 mm/s) but replayed from the commands of the
    ``settle_s`` before it (six time constants: the speeds they started from
    count for 0.25%). Replaying speeds that move at the acceleration limits instead
    missed by up to 2.8 mm on the toio scenes in the world; this replay leaves the
    readings' rounding (0.7 mm per axis, half a degree): 1.06 mm.
    """

    wheels: WheelModel = TOIO
    time_constant_s: float = TIME_CONSTANT_S
    step_s: float = PHYSICS_STEP_S

    @property
    def settle_s(self) -> float:
        return 6.0 * self.time_constant_s

    def wheel_targets(self, linear: float, angular: float) -> Tuple[float, float]:
        """The steady wheel speeds (m/s) a sent ``(v, omega)`` drives the wheels towards."""
        left, right = twist_to_wheels(linear, angular, self.wheels)
        return self.wheels.wheel_speed(left), self.wheels.wheel_speed(right)

    def replay(self, pose: Tuple[float, float, float], measured_at: float, until: float,
               acting) -> Tuple[float, float, float, float, float]:
        """``(x, y, yaw, v, omega)`` at ``until`` of a cube read at ``pose`` (world
        metres, radians) at ``measured_at``, under ``acting(t)``: the ``(v, omega)``
        command driving the wheels at ``t`` (``(0, 0)`` once expired). Steps of at
        most ``step_s``, each driven by the command acting at its end, as
        :meth:`CubeBody.advance` applies them."""
        gain_of = lambda dt: 1.0 - math.exp(-dt / self.time_constant_s)  # noqa: E731
        t = measured_at - self.settle_s
        left, right = self.wheel_targets(*acting(t))
        x, y, yaw = pose
        while t < until - 1e-12:
            dt = min(self.step_s, until - t, measured_at - t if t < measured_at - 1e-12
                     else self.step_s)
            target_left, target_right = self.wheel_targets(*acting(t + dt))
            gain = gain_of(dt)
            left += gain * (target_left - left)
            right += gain * (target_right - right)
            if t >= measured_at - 1e-12:
                x, y, yaw = unicycle_step(x, y, yaw, (left + right) / 2.0,
                                          (right - left) / self.wheels.track_m, dt)
            t += dt
        return x, y, wrap_angle(yaw), (left + right) / 2.0, (right - left) / self.wheels.track_m


# --- mat frame and odometry ---------------------------------------------------------------

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


@dataclass(frozen=True)
class Mat:
    """A toio mat's coordinate ranges (mat units, inclusive)."""

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


def mat_border(toio_block: Mapping) -> List[Segment]:
    """The four edges of a scenario's toio mat (its ``toio:`` block), in world metres.

    A cube that leaves its mat stops reporting its position (it is lost), so
    the edge is a wall: obstacle_server publishes it, and the scenario world
    has it too.
    """
    mat = mat_named(toio_block.get("mat", "collection_ring"))
    frame = MatFrame(float(toio_block.get("mm_per_unit", DEFAULT_MM_PER_UNIT)))
    (x0, x1), (y0, y1) = mat.x_range, mat.y_range
    corners = [frame.to_world(x, y, 0.0)[:2] for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    return [Segment(corners[i], corners[(i + 1) % 4]) for i in range(4)]


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


VELOCITY_BASELINE_S = 0.03
"""Shortest time between the two readings a cube's speed is differenced from (s)."""


class VelocityEstimator:
    """A cube's body twist from its position readings, over at least ``baseline`` s.

    Readings are whole mat units (1.36 mm) and whole degrees. Differenced
    over one 30 ms interval they make a standing cube look as if it moved at
    up to 45 mm/s and turned at 0.6 rad/s; the error shrinks with the time
    between the two readings, while the estimate gets ``baseline / 2`` older.
    The bridge asks for a reading every 10 ms, so 30 ms spans three of them
    (a third of the noise of consecutive readings) and is what the world's
    cubes, read every 30 ms, always had. Longer baselines were steadier (in
    the world, cubes parking close together arrived 24 of 34 at 30 ms, 26 at
    60 ms, 29 at 0.1 s), but an older speed also feeds the lag prediction an
    older turn rate, and through the bridge the results were not clearly
    better; 30 ms until that is measured properly.
    :func:`body_velocity` of the newest reading and the newest one at least
    ``baseline`` older (or the oldest kept, at first).
    """

    def __init__(self, baseline: float = VELOCITY_BASELINE_S) -> None:
        self.baseline = baseline
        self._poses: Deque[Tuple[float, Tuple[float, float, float]]] = deque()

    def reset(self) -> None:
        self._poses.clear()

    def update(self, pose: Tuple[float, float, float], time: float) -> Tuple[float, float]:
        """``(v, omega)`` with the reading ``pose`` taken at ``time``; (0, 0) at first."""
        self._poses.append((time, pose))
        while len(self._poses) > 2 and time - self._poses[1][0] >= self.baseline - 1e-6:
            self._poses.popleft()
        earlier, previous = self._poses[0]
        if time - earlier <= 1e-6:
            return (0.0, 0.0)
        return body_velocity(previous, pose, time - earlier)


class Reading(NamedTuple):
    """A position notification: the centre in whole mat units and whole degrees (0..359)."""

    x: int
    y: int
    angle: int


# --- the body -------------------------------------------------------------------------------

class CubeBody:
    """A cube's true state and its motors: pose (mat units, degrees), wheel speeds (m/s),
    the queue of motor commands on their way, and the reading schedule.

    :meth:`command` queues a motor command (it acts :attr:`lag_s` later),
    :meth:`advance` moves time on, :meth:`poll_reading` gives a position
    reading when one is due. See the module's docstring for the equations.
    """

    def __init__(self, x: float, y: float, angle: float, frame: MatFrame = MatFrame(),
                 wheels: WheelModel = TOIO, lag_s: float = LAG_S,
                 time_constant_s: float = TIME_CONSTANT_S,
                 id_interval_s: float = ID_INTERVAL_S) -> None:
        self.x, self.y, self.angle = x, y, angle
        self.left = self.right = 0.0
        self.frame, self.wheels = frame, wheels
        self.lag_s, self.time_constant_s, self.id_interval_s = lag_s, time_constant_s, id_interval_s
        self.time = 0.0
        self.pending: Deque[Tuple[float, int, int, Optional[float]]] = deque()
        self.target: Tuple[int, int] = (0, 0)
        self.stop_at: Optional[float] = None
        self.next_report = 0.0

    @classmethod
    def at_world_pose(cls, x: float, y: float, yaw: float, frame: MatFrame = MatFrame(),
                      **kwargs) -> "CubeBody":
        """A cube at rest at a world pose (metres, radians)."""
        mx, my, angle = frame.to_mat(x, y, yaw)
        return cls(mx, my, angle, frame, **kwargs)

    def world_pose(self) -> Tuple[float, float, float]:
        return self.frame.to_world(self.x, self.y, self.angle)

    @property
    def twist(self) -> Tuple[float, float]:
        """The body's ``(v, omega)`` now (m/s, rad/s)."""
        return (self.left + self.right) / 2.0, (self.right - self.left) / self.wheels.track_m

    def command(self, left: int, right: int, duration_s: Optional[float] = None) -> None:
        """A motor command written now: wheel speed commands, and for a timed command
        its duration (s; None or 0: until the next command)."""
        self.pending.append((self.time + self.lag_s, int(left), int(right), duration_s))

    def advance(self, dt: float, lifted: bool = False) -> None:
        """Move time on by ``dt`` s (at most :data:`PHYSICS_STEP_S` for the model's accuracy).

        A ``lifted`` cube's wheels spin freely: the body stays, its wheel speeds are 0.
        """
        self.time += dt
        while self.pending and self.pending[0][0] <= self.time + 1e-9:
            _, left, right, duration = self.pending.popleft()
            self.target = (left, right)
            self.stop_at = self.time + duration if duration else None
        if self.stop_at is not None and self.time >= self.stop_at - 1e-9:
            self.target, self.stop_at = (0, 0), None  # the timed command's watchdog
        if lifted:
            self.left = self.right = 0.0
            return
        gain = 1.0 - math.exp(-dt / self.time_constant_s)
        self.left += gain * (self.wheels.wheel_speed(self.target[0]) - self.left)
        self.right += gain * (self.wheels.wheel_speed(self.target[1]) - self.right)
        v, omega = self.twist
        x, y, yaw = self.world_pose()
        x, y, yaw = unicycle_step(x, y, yaw, v, omega, dt)
        self.x, self.y, self.angle = self.frame.to_mat(x, y, wrap_angle(yaw))

    def reading(self) -> Reading:
        """What a position notification says now: rounded to mat units and degrees."""
        return Reading(round(self.x), round(self.y), round(self.angle) % 360)

    def poll_reading(self) -> Optional[Reading]:
        """The reading if one is due (every ``id_interval_s``), else None."""
        if self.time < self.next_report:
            return None
        self.next_report = self.time + self.id_interval_s
        return self.reading()


class CubeOdometry:
    """A cube as ``toio_bridge`` reports it: the last reading as a world pose, when it
    came, and the body twist finite-differenced from readings at least
    :data:`VELOCITY_BASELINE_S` apart (:class:`VelocityEstimator`; zero until
    there are two)."""

    def __init__(self, frame: MatFrame, reading: Reading, time: float) -> None:
        self.frame = frame
        self.pose = frame.to_world(*reading)
        self.time = time
        self.velocity: Tuple[float, float] = (0.0, 0.0)  # body frame v, omega
        self.estimator = VelocityEstimator()
        self.estimator.update(self.pose, time)

    def update(self, reading: Reading, time: float) -> None:
        pose = self.frame.to_world(*reading)
        if time - self.time > 1e-6:
            self.velocity = self.estimator.update(pose, time)
        self.pose, self.time = pose, time

    @property
    def world_velocity(self) -> Tuple[float, float]:
        """The forward speed along the reported heading, in the world frame (as orca_node
        turns odometry's body twist into a velocity)."""
        yaw = self.pose[2]
        return self.velocity[0] * math.cos(yaw), self.velocity[0] * math.sin(yaw)
