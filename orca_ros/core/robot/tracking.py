"""How a unicycle (differential drive) follows the velocity avoidance chose, in the
spirit of NH-ORCA.

Alonso-Mora, Breitenmoser, Rufli, Beardsley, Siegwart, "Optimal Reciprocal
Collision Avoidance for Multiple Non-Holonomic Robots", DARS 2010: a unicycle
tracks a holonomic velocity ``u`` only approximately, so each robot (a) limits
ORCA to velocities it can follow within a tracking error ``E`` and (b) enlarges
its radius by ``E``. Then the holonomic guarantee carries over.

Here the horizon of the tracking bound is one control period ``dt`` (ORCA
re-plans every period from the measured state), which makes every limit a
half-plane that joins ORCA's linear program as a hard constraint
(:func:`kinematic_half_planes`):

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
acceleration limits and to a rate the robot can still brake to zero by the new
heading, so it settles on it without turning past it and back
(:func:`unicycle_command`), where ``u_free`` is ORCA's
velocity without the kinematic half-planes and ``s = +1`` forward, ``-1`` in
reverse: the robot turns its axis towards where avoidance wants it to go while it
moves only as far as it can follow. A robot that may reverse backs off when
avoidance sends it back, instead of turning round before it can move.

The position error over one period is then at most
``E = E_lat + v_max * omega_max * dt**2 / 2`` (the second term is the arc
driven while turning, against the straight chord); :func:`tracking_error_bound`
returns it and the avoidance radius is ``radius + E``.

toio cubes may instead follow the toio SDK's ``CubeHandle.Move2Target``
(:func:`move_to_target`, :func:`move_to_target_command`).
"""

from __future__ import annotations

import math
from typing import Callable, List, Optional, Sequence, Tuple

from ..geometry.linprog import HalfPlane
from ..geometry.types import Vector2
from ..geometry.frames import wrap_angle
from ..orca import _orca2d
from ..models.bodies import DiffDriveLimits
from ..models.cube_wheels import CUBE_RADIUS_UNITS, DEFAULT_MM_PER_UNIT, TOIO, WheelModel
from .safety_filter import filter_output

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
    176.2, 201.2, 120.8 and 137 s; doc/how_it_works/unicycles.md, "Backing off".)
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
    to the left of each direction, as for ORCA half-planes: ``|u . n| <= lateral_error /
    dt`` (``n`` the heading's left normal) and ``lowest <= u . h <= highest``. In C
    (``_orca2d.kinematic_half_planes``; its Python: test/helpers/tracking_reference.py).
    """
    return _orca2d.kinematic_half_planes(heading, linear_speed, limits.lateral_error,
                                         limits.max_linear_accel, limits.max_linear_speed,
                                         dt, direction, reverse_speed)


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
    ``max_angular_accel`` still brings to zero by the heading wanted (the
    braking envelope of :func:`~.safety_filter.braking_speed` over the angle, or,
    for an error one period closes, any rate up to ``error / dt`` that one period's
    braking stops): commanding ``error / dt`` up to the acceleration limit, a robot
    turned past the heading and back after every swerve. In C
    (``_orca2d.unicycle_command``; its Python: test/helpers/tracking_reference.py).
    """
    return _orca2d.unicycle_command(
        planned[0], planned[1], free[0], free[1], heading, current[0], current[1],
        limits.max_linear_speed, limits.max_linear_accel, limits.max_angular_speed,
        limits.max_angular_accel, dt, heading_time_constant, direction, reverse_speed)


def move_to_target(position: Tuple[float, float], heading: float,
                   waypoint: Tuple[float, float], max_speed: float,
                   mm_per_unit: Optional[float] = None, rotate_time: float = 0.25,
                   tolerance_units: float = 8.0,
                   model: Optional[WheelModel] = None) -> Tuple[float, float]:
    """The toio SDK's ``CubeHandle.Move2Target`` as a body twist ``(v, omega)`` (m/s, rad/s).

    In the SDK's units (mat dots, motor units, degrees): within ``tolerance_units`` of
    the waypoint it stops; otherwise the forward part is the top speed times
    ``clip(1 - (|bearing error| - 10 deg) / end, 0, 1)``, ``end = 110 deg x min(1,
    max(dist, 20) / max(1, top) / 2.0655 / 1.5 / rotate_time)`` (it slows while it turns,
    less so far from the waypoint), times ``clip(dist, dz/2, max(top, dz)/2) / (max(top,
    dz)/2)`` (it slows within half the top speed's dots of the waypoint); it turns at
    ``bearing error / rotate_time``, weakened as it drives faster (``mu = |forward| /
    115``: ``x (|forward / 50| mu + 1 - mu)``). ``twist_to_wheels`` then makes the same
    ``uL = forward + turn / 2``, ``uR = forward - turn / 2`` as the SDK (our frame is
    counter-clockwise, the mat's clockwise: the signs follow). Prediction is off, as
    the SDK's default. ``mm_per_unit`` and ``model``: a standard mat's and a toio cube's
    (:mod:`orca_ros.core.models.cube_wheels`) unless given.
    """
    dot = (DEFAULT_MM_PER_UNIT if mm_per_unit is None else mm_per_unit) / 1000.0
    model = TOIO if model is None else model
    units_per_mps = 1.0 / model.mps_per_unit
    dx, dy = waypoint[0] - position[0], waypoint[1] - position[1]
    distance = math.hypot(dx, dy) / dot
    if distance < tolerance_units:
        return 0.0, 0.0
    top = max(0.0, max_speed) * units_per_mps
    error = wrap_angle(math.atan2(dy, dx) - heading)
    end = math.radians(110.0) * min(1.0, max(distance, 20.0) / max(1.0, top)
                                    / (model.mps_per_unit / dot) / 1.5 / rotate_time)
    forward = top * min(max(1.0 - (abs(error) - math.radians(10.0)) / end, 0.0), 1.0)
    half = 0.5 * max(top, model.dead_zone)
    forward *= min(max(distance, 0.5 * model.dead_zone), half) / half
    mu = abs(forward) / model.saturation
    turn = error / rotate_time * (abs(forward / 50.0) * mu + (1.0 - mu))
    return forward * model.mps_per_unit, turn


def turnable_speed(distance: float, bearing: float, max_angular_speed: float) -> float:
    """The fastest a unicycle may drive towards a point ``distance`` (m) away and
    ``bearing`` (rad) off its axis and still turn onto it (m/s; infinite straight ahead
    or behind).

    The circle through the point tangent to the axis has radius ``distance / (2 |sin
    bearing|)``; at speed ``v`` the robot's tightest circle has radius ``v /
    max_angular_speed``. Driven faster it circles the point instead of reaching it."""
    sine = abs(math.sin(bearing))
    return max_angular_speed * distance / (2.0 * sine) if sine > 1e-12 else math.inf


def _violation(lines: Sequence[HalfPlane], ux: float, uy: float) -> float:
    """How far ``(ux, uy)`` lies outside the worst of ``lines`` (m/s; 0 inside all)."""
    worst = 0.0
    for px, py, dx, dy in lines:
        worst = max(worst, dx * (py - uy) - dy * (px - ux))
    return worst


AS_PREFERRED_SHARE = 0.02
"""Avoidance leaves a robot's preferred velocity as it is while its velocity differs from
it by at most this share of the top speed (:func:`as_preferred`)."""


def as_preferred(c, pref: Vector2, free: Vector2) -> bool:
    """Whether the method's velocity ``free`` is the preferred velocity ``pref``, to
    within :data:`AS_PREFERRED_SHARE` of the top speed: no one asks the robot to move
    otherwise. (A share of the preferred velocity would not do: a parked diff-drive robot
    4 cm off its point prefers its full 0.4 m/s, and a quarter of that left it deaf to a
    robot squeezing past.)"""
    return math.hypot(free[0] - pref[0], free[1] - pref[1]) <= AS_PREFERRED_SHARE * c.max_speed


def onto_goal_speed(c, state, goal: Vector2, pref: Vector2, free: Vector2, v: float,
                    lines: Sequence[HalfPlane]) -> float:
    """``v`` (the tracking's forward speed), at most the speed at which the robot still
    turns onto its ``goal`` (:func:`turnable_speed`, the axis taken in the direction it
    drives), while the method's velocity ``free`` is its preferred velocity ``pref``
    (:func:`as_preferred`); no lower than braking at ``max_linear_accel`` allows,
    and only where the slower motion along the heading breaks none of the half-planes
    ``lines`` (the method's and the safety filter's) more than ``v`` does. A robot the
    method sends elsewhere (a parked one making way) drives as planned: capped there
    too, parked robots stood fast on their goals and a robot short of its own between
    two of them never got in.

    Heading for its goal at ``distance / time_step``, a unicycle a few millimetres off
    the point drove faster than it could turn onto it and circled the point, round and
    round (a toio cube on ``toio_b_wall``: 12,721 degrees in 60 s). The speed it
    negotiates with (its preferred velocity) stays: it is a parked robot's claim on its
    place, and lowering that left robots short of goals beside parked ones."""
    dx, dy = goal[0] - state.position[0], goal[1] - state.position[1]
    distance = math.hypot(dx, dy)
    if distance < 1e-9 or abs(v) < 1e-12 or not as_preferred(c, pref, free):
        return v
    axis = state.heading if v > 0.0 else state.heading + math.pi
    cap = turnable_speed(distance, math.atan2(dy, dx) - axis, c.max_angular_speed)
    floor = abs(state.linear_speed) - c.limits.max_linear_accel * c.time_step \
        if state.linear_speed * v > 0.0 else 0.0
    speed = max(cap, floor)
    if speed >= abs(v):
        return v
    slower = math.copysign(speed, v)
    hx, hy = math.cos(state.heading), math.sin(state.heading)
    if _violation(lines, slower * hx, slower * hy) > _violation(lines, v * hx, v * hy) + 1e-9:
        return v
    return slower


SETTLED_SHARE = 0.25
"""A unicycle on its goal stands without turning within this share of its goal tolerance
of the point, while the method leaves its preferred velocity as it is
(:func:`settled`)."""


def settled(c, state, goal: Vector2, pref: Vector2, free: Vector2,
            lines: Sequence[HalfPlane] = ()) -> bool:
    """Whether a unicycle that reached its goal stands there, neither driving nor
    turning: within :data:`SETTLED_SHARE` of its goal tolerance of the point, with the
    method's velocity ``free`` its preferred velocity ``pref`` (:func:`as_preferred`),
    and standing inside every half-plane of ``lines`` (the method's and the safety
    filter's: a parked robot whose preferred velocity made way for one squeezing past
    it, and that stood instead, kept that one 0.33 m short of its goal).

    Turning to face a point a millimetre away, a cube chased the point's bearing round
    and round (toio_ring_swap_6: 8,971 degrees in 60 s). The preferred velocity stays
    what it is, the robot's claim on its place; a robot the method asks to make way
    (``free`` not ``pref``) turns and drives as ever: one that did not turn could not
    make way (menge_circle left a robot short in 5 of 10 runs)."""
    return math.dist(state.position, goal) <= SETTLED_SHARE * c.goal_tolerance_m and \
        as_preferred(c, pref, free) and _violation(lines, 0.0, 0.0) <= 1e-9


HELD_TURN_SPEED_SHARE = 0.02
"""A unicycle on its goal, or within two radii of a goal it has reached, whose avoidance
velocity is under this share of its top speed turns to its preferred velocity instead (see
:meth:`RobotController.compute`)."""


def turn_to(c, state, free: Vector2, pref: Vector2, result, held: bool) -> Vector2:
    """Where a unicycle turns its axis to: the method's velocity without the kinematic
    half-planes (``free``), but for a robot ``held`` still on or by its goal (at its
    goal, or within two radii of a goal it reached). ``c``: its effective
    configuration; ``result``: the method's output."""
    if not c.method_spec.takes_constraints and free == (0.0, 0.0) and \
            result.waypoint is not None:
        # Held at speed 0 with a waypoint: stand, but face it (as the SDK's cube does).
        return (result.waypoint[0] - state.position[0],
                result.waypoint[1] - state.position[1])
    if math.hypot(*free) < HELD_TURN_SPEED_SHARE * c.max_speed and held:
        # Held (nearly) still on its goal, or pushed off it by others: a velocity
        # this small is the linear program's rounding, its direction jumps from
        # period to period, and turning after it made parked unicycles spin and
        # wander off their goals. Face the preferred velocity (the goal) instead.
        # Only there: in a jam on the way, or short of a goal not yet reached among
        # parked robots, turning after those small velocities is what shuffles
        # robots apart (facing the preferred velocity everywhere gridlocked
        # diff-drive block crowds; within two radii of a goal not yet reached it
        # kept a menge_circle robot 0.5 m short for 40 s).
        return pref
    return free


def move_to_target_command(c, state, output) -> Tuple[float, float]:
    """``(v, omega)`` from the toio SDK's follower (:func:`move_to_target`): towards the
    method's waypoint at its ``waypoint_speed`` (without a waypoint, or when the safety
    filter changed the velocity: one second along the velocity, at its speed); the
    robot's mat units are its radius over a cube's
    (:data:`~orca_ros.core.models.cube_wheels.CUBE_RADIUS_UNITS`). ``c``: the robot's
    effective configuration; ``output``: the method's."""
    speed = math.hypot(*output.velocity)
    if output.waypoint is not None:
        # Towards the waypoint even at a speed limit of 0: the SDK's cube then turns
        # on the spot, towards it.
        target = output.waypoint
        cruise = speed if output.waypoint_speed is None else output.waypoint_speed
    elif speed < 1e-9:
        return 0.0, 0.0
    else:
        target = (state.position[0] + output.velocity[0],
                  state.position[1] + output.velocity[1])
        cruise = speed
    v, omega = move_to_target(state.position, state.heading, target, cruise,
                              mm_per_unit=1000.0 * c.radius / CUBE_RADIUS_UNITS)
    return min(v, c.max_speed), max(-c.max_angular_speed, min(omega, c.max_angular_speed))


DELAY_TIME_CONSTANT_RATIO = 2.25
"""A unicycle closes its heading error over at least this many times its loop's extra
delay (:class:`LoopDelay`). A turn command acts on a heading the controller sees only
after the loop's delay; closing the error within one period then turns past the heading
and back. (A discrete integrator under a proportional gain ``K`` a period with ``n``
periods of extra delay overshoots once ``K > n**n / (n + 1)**(n + 1)``: 0.15 for two
periods, where 2.25 gives 0.22. Measured with every delivery held 0.1 s, six runs of
``corridor_wall`` each: 1.5 left the turn command changing side 24-40 times a minute,
2.25 12-17, 3.0 10-18 with longer stands when held 0.2 s; doc/results.md.)"""


class LoopDelay:
    """How long a unicycle's turn commands take to show in the odometry its cycle reads
    (s, on the cycle's clock), measured from the commands and readings themselves.

    Each period the cycle notes the turn rate it read (:meth:`observe`) and the one it
    sent (:meth:`sent`). For each candidate delay ``D`` (whole control periods up to
    :attr:`longest`), the rate read now should be the one sent ``D`` ago (the latest
    sent by ``now - D``); a running mean of how far it is, forgotten by
    :attr:`forgetting` a period, scores every candidate. Periods whose commands in
    that window all agree tell nothing and are passed over. :attr:`delay` is the
    longest candidate that scores within :attr:`tolerance` of the best (a command sent
    at one period's start shows at once and one period later alike), once
    :attr:`evidence` periods have spoken; before, 0.

    :attr:`extra` is what the heading loop cannot see of its own commands beyond the
    one period every cycle has (fleet_sim and the world: 0; a tenth of a second each
    way on the network and a command's period: 0.2 s). The delay includes the
    odometry's age at the cycle, the command's way to the robot and the drive's
    response."""

    longest: float = 1.0  # s, the longest delay measured
    forgetting: float = 0.95  # a period's weight of the running means
    tolerance: float = 0.02  # rad/s, within the best mean error: a tie
    informative: float = 0.1  # rad/s, the commands' spread a period must show
    evidence: int = 5  # informative periods before the delay is given

    def __init__(self, period: float) -> None:
        self.period = period
        self.count = max(1, int(math.ceil(self.longest / period - 1e-9))) + 1
        self._times: List[float] = []  # when each kept command was sent, oldest first
        self._rates: List[float] = []  # its turn rate
        self._errors = [0.0] * self.count
        self._weight = 0.0
        self._heard = 0
        self.delay = 0.0

    @property
    def extra(self) -> float:
        """The delay beyond one control period (s, never negative)."""
        return max(0.0, self.delay - self.period)

    def sent(self, now: float, omega: float) -> None:
        """The turn rate commanded at ``now``."""
        times, rates = self._times, self._rates
        if times and now <= times[-1]:
            if now >= times[-1] - self.period:  # the same period again: the latest counts
                rates[-1] = omega
                return
            times.clear()  # the clock went back (a simulation started over): anew
            rates.clear()
        times.append(now)
        rates.append(omega)
        oldest = now - self.count * self.period  # one command at or before it is kept
        while len(times) > 1 and times[1] <= oldest:
            del times[0], rates[0]

    def observe(self, now: float, omega: float) -> None:
        """The turn rate the odometry read at ``now`` says (before this period's command
        is sent)."""
        times, sent = self._times, self._rates
        if not times:
            return
        reaches_back = times[0] <= now - (self.count - 1) * self.period
        # Commands that all agree (those kept, and the stand before them) tell nothing.
        if max(sent) - min(sent) < self.informative and \
                (reaches_back or abs(sent[0]) < self.informative):
            return
        # The rate in force at now - k periods, k = 0 .. count - 1: the latest sent by
        # then; before the first command, none (the robot stood).
        period, rates, j = self.period, [], len(times) - 1
        limit = now + 1e-6 * period
        for _ in range(self.count):
            while j >= 0 and times[j] > limit:
                j -= 1
            rates.append(sent[j] if j >= 0 else 0.0)
            limit -= period
        if max(rates) - min(rates) < self.informative:
            return
        keep = self.forgetting
        errors = self._errors = [keep * e + abs(omega - r) for e, r in zip(self._errors, rates)]
        self._weight = keep * self._weight + 1.0
        self._heard += 1
        if self._heard < self.evidence:
            return
        ties = min(errors) + self.tolerance * self._weight
        k = len(errors) - 1
        while errors[k] > ties:
            k -= 1
        self.delay = k * period


class UnicycleTracking:
    """The tracking stage of a unicycle: from the method's velocity to ``(v, omega)``.

    It keeps the direction the robot drives in (:attr:`drive_sign`, +1 forward, -1 in
    reverse, :func:`drive_direction`) from period to period. Each period
    (:meth:`command`) it turns the robot's axis to the method's velocity
    (:func:`turn_to`), plans what it drives within its kinematic half-planes
    (:func:`kinematic_half_planes`: the method runs again with them, if it takes
    constraints; else the velocity is projected onto the safety filter's driving
    limits) and follows that with :func:`unicycle_command` or, for ``tracking:
    move2target``, the toio SDK's follower (:func:`move_to_target_command`)."""

    def __init__(self, drive_sign: int = 1) -> None:
        self.drive_sign = drive_sign
        self.loop_delay: Optional[LoopDelay] = None  # measured by the cycle (LoopDelay)

    def heading_time_constant(self, c) -> float:
        """The time the heading error is closed in: ``c.heading_time_constant``, or
        :data:`DELAY_TIME_CONSTANT_RATIO` times the loop's measured extra delay if
        longer (:class:`LoopDelay`)."""
        if self.loop_delay is None:
            return c.heading_time_constant
        return max(c.heading_time_constant, DELAY_TIME_CONSTANT_RATIO * self.loop_delay.extra)

    def command(self, c, state, result, pref: Vector2, held: bool,
                safety: Sequence[HalfPlane], driving: Sequence[HalfPlane],
                replan: Callable[[List[HalfPlane]], object],
                goal: Optional[Vector2] = None) -> Tuple[object, float, float]:
        """``(planned, v, omega)``: the method output the robot drives (``planned``) and
        its twist. ``c``: the effective configuration; ``result``: the method's output
        without the kinematic half-planes; ``pref``: the preferred velocity; ``held``:
        the robot stands on or by its goal (:func:`turn_to`); ``safety``, ``driving``:
        the safety filter's half-planes (:class:`~.safety_filter.SafetyConstraints`);
        ``replan(hard_half_planes)``: the method's output under other hard half-planes;
        ``goal``: the robot's goal while it heads for it (no corner or detour between),
        which it drives no faster than it can turn onto (:func:`onto_goal_speed`)."""
        limits = c.limits
        planned = result
        facing = turn_to(c, state, result.velocity, pref, result, held)
        self.drive_sign = drive_direction(state.heading, facing, self.drive_sign,
                                          c.reverse_speed > 0.0, pref)
        if c.method_spec.takes_constraints:
            hard = safety + driving + kinematic_half_planes(
                state.heading, state.linear_speed, limits, c.time_step, self.drive_sign,
                c.reverse_speed)
            planned = replan(hard)
        elif driving:
            planned = filter_output(result, c.max_speed, safety + driving)
        # What the robot keeps to if it slows or stands for its goal: the method's own
        # half-planes (a neighbour counts on its share of their avoidance) and the
        # safety filter's.
        lines = list(result.half_planes) + safety + driving if goal is not None else []
        if c.tracking == "move2target":
            v, omega = move_to_target_command(c, state, planned)
        elif goal is not None and held and settled(c, state, goal, pref, result.velocity, lines):
            ahead = (self.drive_sign * math.cos(state.heading),
                     self.drive_sign * math.sin(state.heading))
            v, omega = unicycle_command((0.0, 0.0), ahead, state.heading,
                                        (state.linear_speed, state.angular_speed), limits,
                                        c.time_step, self.heading_time_constant(c),
                                        self.drive_sign, c.reverse_speed)
        else:
            v, omega = unicycle_command(planned.velocity, facing, state.heading,
                                        (state.linear_speed, state.angular_speed), limits,
                                        c.time_step, self.heading_time_constant(c),
                                        self.drive_sign,
                                        c.reverse_speed)
            if goal is not None:
                v = onto_goal_speed(c, state, goal, pref, result.velocity, v, lines)
        return planned, v, omega
