"""What a robot knows of its neighbours when data comes late, gets lost, or stops.

Through ROS a neighbour's odometry is always somewhat old: it was measured at
its stamp, and the command computed from it acts later still. Two things
follow (issue "safe when the computer is slow or the input is wrong"):

- :func:`perceive_neighbor`: the neighbour is extrapolated at its measured
  velocity to the time the command acts, and its disc grows by how far it can
  have strayed from that guess (:func:`position_uncertainty`). A neighbour
  whose data stopped is not forgotten: its disc keeps growing at its top
  speed, since it may still be there, or moving.
- :class:`ReciprocityMonitor`: a neighbour whose velocity keeps violating the
  reciprocal half-plane it would have to respect (it is driven by something
  else, its controller froze, it is a person) is reported, and the robot then
  takes the whole avoidance effort (ORCA's whole ``u`` instead of ``u/2``).
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from typing import (Callable, Deque, Dict, Iterable, List, Mapping, NamedTuple, Optional,
                    Sequence, Tuple)

from .state import Neighbor
from ..geometry.linprog import HalfPlane
from ..geometry.types import Vector2
from ..orca import _orca2d


@dataclass(frozen=True)
class NeighborReading:
    """A neighbour as measured: its odometry, or the state it announced (``announced``:
    then it runs orca_node, and its ``uncertainty`` is its localization's), when it was
    measured (``stamp``, s on the receiving robot's clock: its own stamp corrected by its
    sender's clock offset, :mod:`~.clocks`; ``sent``: that stamp as sent, on the sender's
    clock, which orders its stream), the position and world velocity on the floor, and
    the height ``z`` and climb rate ``vz`` of an aerial robot. orca_node keeps the
    latest per neighbour; the world hands its cycles the same, timed as the ROS path times them."""

    stamp: float
    position: Tuple[float, float]
    velocity: Tuple[float, float]
    z: float = 0.0
    vz: float = 0.0
    uncertainty: float = 0.0  # m it may be off where it was measured (announced covariance)
    announced: bool = False  # the robot announced itself (it runs the cycle: it reciprocates)
    sent: Optional[float] = None  # s on the sender's clock (None: as ``stamp``)

    @property
    def order(self) -> float:
        """What orders one sender's readings: its own stamp."""
        return self.stamp if self.sent is None else self.sent


@dataclass
class NeighborRadii:
    """Each neighbour's radius by name (m): as ``listed`` (the robot's configuration:
    orca_node's ``neighbor_radii``, a world's scenario), else as it announced itself
    (``heard()``: the radii of the footprints heard, read once a cycle), else
    ``default``. Called with a name, that radius; the cycle hands the three to C whole
    (``_orca2d.make_neighbors``, :meth:`~.cycle.RobotCycle._perceived_neighbors`)."""

    listed: Dict[str, float] = field(default_factory=dict)
    heard: Callable[[], Dict[str, float]] = dict
    default: float = 0.2

    def __call__(self, name: str) -> float:
        listed = self.listed.get(name)
        if listed is not None:
            return listed
        return self.heard().get(name, self.default)


def stopped_reading(reading: NeighborReading, now: float, command_validity: float,
                    max_speed: float, max_accel: float) -> NeighborReading:
    """A robot whose orca_node has left (it died, or was stopped) as it stands now: its
    driver stops it once its last command is ``command_validity`` s old, braking at up to
    ``max_accel`` (the contract every driver keeps, see doc/using_with_robots.md). From
    its last reading it moves on at its velocity ``v`` for at most ``command_validity``
    and then brakes: it stands within ``v command_validity + v^2 / (2 max_accel)`` along
    its velocity, and, since the command it was given may have been anything up to
    ``max_speed``, within ``(max_speed + v) command_validity + max_speed^2 / (2
    max_accel)`` of that (the uncertainty added). The result is a standing robot measured
    ``now``, not announced (it no longer yields), whose uncertainty no longer grows."""
    vx, vy = reading.velocity
    speed = math.hypot(vx, vy)
    reach = command_validity + (speed / (2.0 * max_accel) if max_accel > 0 else 0.0)
    position = (reading.position[0] + vx * reach, reading.position[1] + vy * reach)
    margin = (max_speed + speed) * command_validity + \
        (max_speed * max_speed / (2.0 * max_accel) if max_accel > 0 else 0.0)
    return NeighborReading(now, position, (0.0, 0.0), reading.z, 0.0,
                           reading.uncertainty + margin, announced=False)


def select_neighbors(position: Sequence[float], perceived: Iterable[Neighbor],
                     neighbor_dist: float) -> List[Neighbor]:
    """The neighbour rule, one for orca_node and the world, in 2D and 3D (aerial robots,
    :class:`~orca_ros.core.robot.aerial.Neighbor3D`): every robot that may be
    strictly inside ``neighbor_dist`` (its distance less its ``uncertainty``), nearest
    first, equal distances by name. ORCA takes the first ``max_neighbors`` (RVO2's
    ``computeNeighbors``); the safety filter takes them all. The world's vectorised
    form for ideal robots (no uncertainty) is ``World._neighbors``, checked equal to
    this in ``test/unit/sim/test_world.py``."""
    seen = []
    for neighbor in perceived:
        distance = math.dist(neighbor.position, position)
        if distance - neighbor.uncertainty < neighbor_dist:
            seen.append((distance, neighbor.key, neighbor))
    seen.sort(key=lambda item: (item[0], item[1]))
    return [n for _, _, n in seen]


def position_uncertainty(age: float, speed: float, max_speed: float, max_accel: float,
                         extrapolated: float) -> float:
    """How far a neighbour can be from its extrapolated position ``age`` s after its data (m).

    It was extrapolated at its measured velocity (``speed`` = its norm) for
    ``extrapolated`` s (at most ``age``), then assumed to stand. While
    extrapolated, its velocity can have drifted from the measured one by at
    most ``a t`` and by at most ``max_speed + speed``, so the error is
    ``min(a t**2 / 2, (max_speed + speed) t)``; after that it may have moved
    at up to ``max_speed``: ``+ max_speed (age - t)``.
    """
    age = max(age, 0.0)
    t = min(max(extrapolated, 0.0), age)
    drift = min(0.5 * max_accel * t * t, (max_speed + speed) * t)
    return drift + max_speed * (age - t)


def perceive_neighbor(neighbor: Neighbor, age: float, max_speed: float, max_accel: float,
                      max_extrapolation: float) -> Neighbor:
    """``neighbor``, measured ``age`` s ago, as it may be now.

    Moved on at its velocity for ``min(age, max_extrapolation)`` s, with
    :func:`position_uncertainty` added to its ``uncertainty``. A neighbour
    silent for longer than ``max_extrapolation`` is assumed to have stopped
    but may have moved anywhere within ``max_speed`` times its silence.
    """
    age = max(age, 0.0)
    t = min(age, max_extrapolation)
    vx, vy = neighbor.velocity
    uncertainty = position_uncertainty(age, math.hypot(vx, vy), max_speed, max_accel, t)
    return neighbor._replace(position=(neighbor.position[0] + vx * t,
                                       neighbor.position[1] + vy * t),
                             uncertainty=neighbor.uncertainty + uncertainty,
                             age_uncertainty=neighbor.age_uncertainty + uncertainty)


class SharedPrediction(NamedTuple):
    """Where a robot says it will be when its latest command acts, as it publishes it.

    At ``time`` (s) it expects to be at ``position`` facing ``heading``; from
    then on the command it just sent, ``(linear, angular)`` (m/s, rad/s),
    drives it. ``uncertainty`` (m): how far off its own estimate may be (its
    odometry's age). A robot with a command lag (toio cubes, 0.14 s) knows
    this from the commands it already sent (:class:`SentCommands`); its
    neighbours, from its odometry alone, would not know where its last
    0.14 s of commands take it (:func:`perceive_neighbor` adds ``a t**2 / 2``,
    14 mm for cubes).
    """

    time: float
    position: Vector2
    heading: float
    linear: float
    angular: float
    uncertainty: float = 0.0


def perceive_predicted_neighbor(neighbor: Neighbor, prediction: SharedPrediction, when: float,
                                max_accel: float, max_speed: float,
                                max_angular_speed: float) -> Neighbor:
    """``neighbor`` at ``when`` (s), from what it said it would do (:class:`SharedPrediction`).

    Its pose is carried along the arc of its command from ``prediction.time``
    to ``when``; its disc grows by its own ``uncertainty`` plus what a new
    command may change over that interval ``d``: speed by ``a d`` and heading
    by ``omega_max d``, so ``(a + v_max omega_max) d**2 / 2`` (the constant-
    velocity error of :attr:`ControllerConfig.tracking_error`).
    """
    from ..models.bodies import unicycle_step

    interval = when - prediction.time
    x, y, heading = unicycle_step(prediction.position[0], prediction.position[1],
                                  prediction.heading, prediction.linear, prediction.angular,
                                  interval)
    drift = 0.5 * (max_accel + max_speed * max_angular_speed) * interval * interval
    return neighbor._replace(
        position=(x, y),
        velocity=(prediction.linear * math.cos(heading), prediction.linear * math.sin(heading)),
        uncertainty=neighbor.uncertainty + prediction.uncertainty + drift,
        age_uncertainty=neighbor.age_uncertainty + prediction.uncertainty + drift)


def perceive_neighbor_best(neighbor: Neighbor, age: float, max_speed: float, max_accel: float,
                           max_extrapolation: float, prediction: Optional[SharedPrediction],
                           when: float, max_angular_speed: float) -> Neighbor:
    """``neighbor`` as it may be at ``when``: from its odometry (measured ``age`` s
    before, :func:`perceive_neighbor`) or, where that is surer, from what it said it
    would do (:func:`perceive_predicted_neighbor`). A neighbour that does not
    reciprocate is taken from its odometry only: it is not doing what is expected."""
    from_odometry = perceive_neighbor(neighbor, age, max_speed, max_accel, max_extrapolation)
    if prediction is None or not neighbor.reciprocates:
        return from_odometry
    from_prediction = perceive_predicted_neighbor(neighbor, prediction, when, max_accel,
                                                  max_speed, max_angular_speed)
    return min(from_odometry, from_prediction, key=lambda n: n.uncertainty)


@dataclass
class ReciprocityMonitor:
    """Tells, per neighbour, whether it reciprocates, from how it answers our half-planes.

    Each control period the robot hands over, per neighbour, the ORCA
    half-plane it built and the velocities it used (:meth:`expect`); when the
    neighbour's velocity measured after it could have answered comes
    (:meth:`observe`), its violation is judged: our half-plane ``ORCA_A|B``
    passes through ``v_A + u/2`` with normal ``m`` (to the left of its direction);
    a neighbour B running ORCA keeps to ``ORCA_B|A``, through ``v_B - u/2`` with
    normal ``-m`` (van den Berg et al. 2011, eq. 4 from B's side), so its violation
    is ``(v_B' - v_B + (v_A + u/2) - v_A) . m``: positive when B's new velocity
    ``v_B'`` is outside its half-plane, ``|u|/2`` when B keeps its velocity on a
    collision course.

    A neighbour heard ``L`` s late (its data's age when the half-plane was built)
    hears this robot about as late: its answer is looked for in its velocity
    measured ``L`` s after the half-plane was built, not in the next reading,
    which shows what it did before it could have heard anything (judged there,
    robots whose states are relayed with some delay flag each other in turn).
    An expectation waits until judged, or ``window`` s. Only periods in which
    reciprocating was required count (``|u|/2 > tolerance``). A neighbour is
    flagged when, within the last ``window`` s, at least ``min_violations``
    such periods saw a violation above ``tolerance`` and they are at least
    ``ratio`` of the periods that required it; the flag lifts after
    ``release_after`` s without a violation. Neighbours named in ``declared``
    never reciprocate (e.g. robots of another fleet).

    The tables are dicts by name; a period's expectations and answers are taken in C,
    all neighbours at once (:meth:`expect_all`, :meth:`observe_all`).
    """

    tolerance: float
    window: float = 2.0
    min_violations: int = 4
    ratio: float = 0.6
    release_after: float = 4.0
    declared: frozenset = frozenset()
    # (stamp, half_plane, own_velocity, neighbor_velocity, judge_after): the neighbour's
    # answer is in its velocity measured after judge_after
    _pending: Dict[str, tuple] = field(default_factory=dict)
    _history: Dict[str, List[Tuple[float, bool]]] = field(default_factory=dict)
    _violations: Dict[str, int] = field(default_factory=dict)  # the True ones in _history
    _flagged_at: Dict[str, float] = field(default_factory=dict)

    def expect(self, name: str, stamp: float, half_plane: HalfPlane, own_velocity: Vector2,
               neighbor_velocity: Vector2, now: Optional[float] = None) -> None:
        """Our half-plane against ``name``, built at ``now`` (default ``stamp``) from its
        data of time ``stamp``: judged on its velocity measured after
        ``now + (now - stamp)``. One expectation per neighbour waits at a time."""
        self.expect_all([Neighbor((0.0, 0.0), neighbor_velocity, 0.0, name)],
                        {name: stamp}, [half_plane], own_velocity, now)

    def expect_all(self, neighbors: Sequence[Neighbor], stamps: Mapping[str, float],
                   half_planes: Sequence[HalfPlane], own_velocity: Vector2,
                   now: Optional[float] = None) -> None:
        """:meth:`expect` for each of ``neighbors`` with its half-plane (as many), its
        data's stamp ``stamps[key]``."""
        _orca2d.reciprocity_expect(self._pending, self.window, neighbors, stamps,
                                   half_planes, own_velocity, now)

    @property
    def waiting(self) -> Mapping[str, object]:
        """The neighbours an expectation waits on (by name): :meth:`observe` judges only
        those."""
        return self._pending

    def observe(self, name: str, stamp: float, velocity: Vector2) -> None:
        """``name``'s velocity measured at ``stamp``."""
        self.observe_all([(name, stamp, velocity)])

    def observe_all(self, judged: List[Tuple[str, float, Vector2]]) -> None:
        """:meth:`observe` for each ``(name, stamp, velocity)``, in order."""
        _orca2d.reciprocity_observe(judged, self._pending, self._history, self._violations,
                                    self._flagged_at, self.tolerance, self.window,
                                    self.min_violations, self.ratio)

    def reciprocates(self, name: str, now: float) -> bool:
        if name in self.declared:
            return False
        flagged = self._flagged_at.get(name)
        if flagged is None:
            return True
        if now - flagged > self.release_after:
            del self._flagged_at[name]
            return True
        return False

    def refusing(self, now: float) -> frozenset:
        """The names that do not reciprocate at ``now`` (:meth:`reciprocates` false):
        the declared and those flagged within ``release_after``; the older flags lift.
        One set for a whole cycle's neighbours."""
        flagged = self._flagged_at
        if not flagged:
            return self.declared
        for name in [n for n, at in flagged.items() if now - at > self.release_after]:
            del flagged[name]
        return self.declared.union(flagged)

    def forget(self, name: str) -> None:
        for table in (self._pending, self._history, self._violations, self._flagged_at):
            table.pop(name, None)

    @property
    def flagged(self) -> Tuple[str, ...]:
        return tuple(sorted(set(self._flagged_at) | set(self.declared)))


@dataclass
class OdometryGate:
    """Keeps odometry that no robot could produce out of planning.

    A position beyond ``max_coordinate`` (1e300 m is finite) is refused. So is
    a jump farther than the robot can go since its previous accepted pose
    (``max_speed`` times the time between stamps, times 1.5, plus
    ``jump_slack``), until the new position has held for ``confirmations``
    messages in a row: then it is taken as a relocalisation and accepted.
    """

    max_speed: float
    max_coordinate: float = 1e6
    jump_slack: float = 0.25
    confirmations: int = 3
    _last: Optional[Tuple[float, Vector2]] = None
    _candidates: list = field(default_factory=list)

    def _reachable(self, earlier: Tuple[float, Vector2], stamp: float,
                   position: Vector2) -> bool:
        elapsed = max(stamp - earlier[0], 0.0)
        return math.dist(earlier[1], position) <= 1.5 * self.max_speed * elapsed + self.jump_slack

    def check(self, stamp: float, position: Vector2) -> Optional[str]:
        """None when ``position`` (measured at ``stamp`` s) may be planned on, else the reason."""
        if max(abs(position[0]), abs(position[1])) > self.max_coordinate:
            return (f"position ({position[0]:.6g}, {position[1]:.6g}) is beyond "
                    f"{self.max_coordinate:g} m")
        if self._last is None or self._reachable(self._last, stamp, position):
            self._last, self._candidates = (stamp, position), []
            return None
        if self._candidates and self._reachable(self._candidates[-1], stamp, position):
            self._candidates.append((stamp, position))
        else:
            self._candidates = [(stamp, position)]
        if len(self._candidates) >= self.confirmations:
            self._last, self._candidates = (stamp, position), []
            return None  # it held: a relocalisation
        jump = math.dist(self._last[1], position)
        return (f"jump of {jump:.3g} m in {max(stamp - self._last[0], 0.0):.3g} s (max speed "
                f"{self.max_speed:g} m/s); not planned on unless it holds for "
                f"{self.confirmations} messages")


@dataclass
class SentCommands:
    """The commands a unicycle was sent lately: its motion over its command lag, predicted.

    A robot that answers ``lag`` s late (toio cubes: 0.14 s) is, when a new
    command acts, where the commands *already sent* took it. Carrying its
    last measured state forward at constant velocity misses every turn and
    speed change in that window, up to ``a lag**2 / 2 + v omega lag**2 / 2``
    (toio: 14.5 mm, which :attr:`ControllerConfig.tracking_error` must then
    add to every disc). Replaying the sent commands instead leaves only what
    the drive does differently from the replay (:meth:`predict`): with speeds
    that move at the acceleration limits, the cube's dead zone and motor time
    constant (up to 2.8 mm on the toio scenes); with the cube's own
    :attr:`drive` model, the readings' rounding (1.1 mm).
    """

    lag: float
    validity: float
    keep: float = 2.0  # s of history kept
    drive: Optional[object] = None
    """How the robot's drive carries out commands, if known
    (:class:`~orca_ros.core.models.toio_cube.CubeDrive` for toio cubes): :meth:`predict` then
    replays it instead of speeds that move at the acceleration limits."""
    _sent: Deque[Tuple[float, float, float]] = field(default_factory=collections.deque)

    def record(self, sent_at: float, linear: float, angular: float) -> None:
        """A command ``(v, omega)`` was sent at ``sent_at`` (s, the caller's clock)."""
        self._sent.append((sent_at, linear, angular))
        while self._sent and self._sent[0][0] < sent_at - self.keep:
            self._sent.popleft()

    def covers(self, measured_at: float) -> bool:
        """Whether the history reaches back to the command acting at ``measured_at``.

        If it does not (a node just started, or restarted while its robot
        still runs an earlier command), :meth:`predict` is a constant-velocity
        guess for part of the lag, and as uncertain as one.
        """
        return bool(self._sent) and self._sent[0][0] <= measured_at - self.lag + 1e-9

    def _acting(self, t: float) -> Optional[Tuple[float, float]]:
        """The command driving the robot at ``t``: the latest sent by ``t - lag`` and still
        valid then; ``(0, 0)`` once it expired; None if the history does not reach back."""
        acting = None
        for sent_at, linear, angular in self._sent:
            if sent_at + self.lag > t + 1e-9:
                break
            acting = (sent_at, linear, angular)
        if acting is None:
            return None
        if t - acting[0] - self.lag >= self.validity - 1e-9:
            return (0.0, 0.0)
        return acting[1], acting[2]

    def predict(self, state, measured_at: float, until: float, limits, step: float = 0.01):
        """``state`` (a :class:`~orca_ros.core.robot.controller.RobotState` measured at
        ``measured_at``) carried to ``until`` under the commands that act in between.

        Speeds move towards each acting command at most at the acceleration
        limits (``limits``: :class:`~orca_ros.core.models.bodies.DiffDriveLimits`) and
        the pose follows exact arcs; before the first known command the robot
        keeps its measured speeds. With a :attr:`drive` (and a history that
        reaches back over the lag) the drive's own model replays the commands
        from the measured pose instead, its speeds included.
        """
        from ..models.bodies import unicycle_step

        if self.drive is not None and self.covers(measured_at):
            x, y, heading, v, omega = self.drive.replay(
                (*state.position, state.heading), measured_at, until,
                lambda t: self._acting(t) or (0.0, 0.0))
            c, s = math.cos(heading), math.sin(heading)
            return state._replace(position=(x, y), velocity=(v * c, v * s), heading=heading,
                                  linear_speed=v, angular_speed=omega)
        x, y = state.position
        heading, v, omega = state.heading, state.linear_speed, state.angular_speed
        t = measured_at
        while t < until - 1e-12:
            dt = min(step, until - t)
            target = self._acting(t)
            if target is not None:
                dv = limits.max_linear_accel * dt
                dw = limits.max_angular_accel * dt
                v = min(max(target[0], v - dv), v + dv)
                omega = min(max(target[1], omega - dw), omega + dw)
            x, y, heading = unicycle_step(x, y, heading, v, omega, dt)
            t += dt
        c, s = math.cos(heading), math.sin(heading)
        return state._replace(position=(x, y), velocity=(v * c, v * s), heading=heading,
                              linear_speed=v, angular_speed=omega)
