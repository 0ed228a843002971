"""The one-step safety filter: hard half-planes every method runs behind.

Not in the ORCA paper: our addition, so that crowds stay collision-free when ORCA's
linear program is infeasible, when data is late, and for robots that brake rather than
stop. Against every neighbour that could be reached before both robots have stopped
(:meth:`SafetyFilter.within_one_step`) and every visible wall, the robot keeps to a
half-plane of velocities that cannot close the gap while the command acts
(:func:`one_step_safety_half_plane`, :func:`one_step_obstacle_half_plane`; in 3D
:func:`one_step_safety_half_space`), within its braking envelope
(:func:`braking_speed`). ``v = 0`` satisfies every one of them while nothing
overlaps, so they can be kept hard. A method that optimises under constraints (ORCA's
linear program) takes them into its own program; behind any other method the velocity
is projected onto them (:func:`filter_velocity`). A unicycle inside a tracking margin
also limits what its forward motion may do (:meth:`SafetyFilter.driving_half_planes`).

The 2D half-planes and the choice of close neighbours are computed in C
(``orca_ros/core/orca/_orca2d.c``, as ORCA is), lengths rounded as Python's
``math.hypot`` rounds them; the functions here say what each does and call it. The 3D
half-space (:func:`one_step_safety_half_space`) stays in Python.
"""

from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from ..geometry.linprog import HalfPlane, linear_program_2d, linear_program_3d
from ..geometry.linprog3d import HalfSpace, solve_half_spaces
from ..geometry.obstacles import ObstacleVertex
from ..geometry.types import Vector2, Vector3
from ..orca import _orca2d
from ..orca.orca3d import TIE_DIRECTION

SAFETY_ROUNDING_MARGIN = 1e-4
"""m added to true radii in the hard safety half-planes, so rounding never makes contact."""


def braking_speed(gap: float, braking_accel: float, time_step: float,
                  hold: Optional[float] = None) -> float:
    """Largest speed ``v`` from which a robot stops within ``gap``.

    The command is held for ``hold`` seconds (default: one ``time_step``),
    then the robot brakes by ``a dt`` per step (``a = braking_accel``). Braking
    covers at most ``v**2 / (2 a) - v dt / 2 + a dt**2 / 8`` (the last term is
    the worst rounding of the step count), so ``v hold`` plus that must fit:
    ``v = a (sqrt(h**2 + 2 g' / a) - h)`` with ``h = hold - dt / 2`` and
    ``g' = gap - a dt**2 / 8``.
    """
    usable = gap - 0.125 * braking_accel * time_step * time_step
    if usable <= 0.0:
        return 0.0
    head = (time_step if hold is None else max(hold, time_step)) - 0.5 * time_step
    return braking_accel * (math.sqrt(head * head + 2.0 * usable / braking_accel) - head)


def one_step_safety_half_plane(other_position_rel: Vector2, combined_radius: float,
                               time_step: float, tie_direction: Vector2 = (1.0, 0.0),
                               braking_accel: Optional[float] = None,
                               contact_radius: Optional[float] = None,
                               horizon: Optional[float] = None,
                               other_velocity: Optional[Vector2] = None) -> HalfPlane:
    """Velocities that cannot close this pair's gap while the command acts, if both comply.

    Not in the paper: our addition for dense crowds. With ``n`` the unit
    vector towards the neighbour, ``g`` the current gap (centre distance
    minus ``combined_radius``) and ``T`` the ``horizon`` (how long the command
    can act before the robot brakes: one ``time_step`` in the world, the
    command's validity through ROS), the half-plane is ``v . n <= g / (2 T)``.
    If both agents keep to theirs, their distance along ``n`` shrinks by at
    most ``g`` while the commands act, and sideways motion only adds distance,
    so they cannot overlap. ``v = 0`` always satisfies it when the pair does
    not overlap, so these half-planes can be kept hard (like obstacle ones)
    without making the program infeasible; when the pair overlaps, ``g < 0``
    and the half-plane makes the agent back off by half the overlap.
    ``tie_direction`` is ``n`` for coincident centres (the neighbour must use
    the opposite one).

    A robot that can only decelerate at ``a = braking_accel`` also keeps its
    approach speed ``v`` within its braking envelope: held for ``T``, then
    braking by ``a dt`` per step, it covers ``v T + v**2 / (2 a) - v dt / 2``,
    which must fit in its half of the gap (:func:`braking_speed`).

    A neighbour that does not reciprocate (``other_velocity`` given: it does
    not avoid us) leaves the whole gap to us, as ORCA gives the whole ``u`` to
    an agent facing a non-reciprocating one (van den Berg et al. 2011, section
    4). Coming at us (``v_B . n <= 0``) it may keep its velocity:
    ``(v - v_B) . n <= g / T``. Moving away, it may also brake (its command
    expired, it was stopped): straight along its direction of travel at
    ``braking_accel`` it covers at least ``s`` (:func:`least_retreat`; 0 if it
    can stop at once), so the
    room is ``g + d_B`` with ``d_B = (v_B . n / |v_B|) s``, the least it
    retreats: ``v . n <= (g + d_B) / T``, and within
    our braking envelope for that room. Crediting its whole ``(v_B . n) T``
    (as if it kept going) let a robot follow a braking one 4 cm behind into
    contact (100 robots on two cores, a process late: its robots braked).
    """
    return _orca2d.one_step_safety_half_plane(other_position_rel, combined_radius, time_step,
                                              tie_direction, braking_accel, contact_radius,
                                              horizon, other_velocity)


def least_retreat(velocity: Vector2, direction: Vector2, braking_accel: Optional[float],
                  hold: float, time_step: float) -> float:
    """The least a robot moving at ``velocity`` goes along the unit ``direction`` in
    ``hold`` s if it either keeps its velocity or brakes straight at ``braking_accel``
    (None: it can stop at once); see :func:`one_step_safety_half_plane`.

    Braking by ``a dt`` per step before each step's move (as the world and
    fleet_sim step bodies) it covers ``v hold - a hold (hold + dt) / 2`` in
    ``hold``, or, stopping first, at least ``v**2 / (2 a) - v dt / 2`` (the
    exact sum exceeds it by ``a dt**2 f (1 - f) / 2``, ``f`` the fraction of the
    last step); a robot braking continuously covers more. Vectors of two or three
    components (:mod:`orca_ros.core.orca.orca3d` uses it too)."""
    along = sum(v * d for v, d in zip(velocity, direction))
    if along <= 0.0:
        return along * hold  # coming closer: braking only helps
    speed = math.hypot(*velocity)
    if braking_accel is None:
        return 0.0
    if speed > braking_accel * hold:
        travel = speed * hold - 0.5 * braking_accel * hold * (hold + time_step)
    else:
        travel = max(0.0, speed * speed / (2.0 * braking_accel) - 0.5 * speed * time_step)
    return along / speed * travel


def one_step_obstacle_half_plane(position: Vector2, radius: float, edge: ObstacleVertex,
                                 time_step: float, braking_accel: Optional[float] = None,
                                 contact_radius: Optional[float] = None,
                                 horizon: Optional[float] = None) -> Optional[HalfPlane]:
    """Velocities that cannot reach this obstacle edge while the command acts.

    The static counterpart of :func:`one_step_safety_half_plane`: the
    obstacle does not move, so the agent may close the whole gap ``g`` to the
    edge's nearest point, ``v . n <= g / T`` (and within its braking envelope
    for the whole gap when it can only decelerate at ``braking_accel``;
    ``contact_radius`` and ``horizon`` as in :func:`one_step_safety_half_plane`).
    Returns ``None`` for a point on the edge (no direction).
    """
    return _orca2d.one_step_obstacle_half_plane(position, radius, edge, time_step,
                                                braking_accel, contact_radius, horizon)


def one_step_safety_half_space(other_position_rel: Vector3, combined_radius: float,
                               time_step: float, tie_direction: Vector3 = TIE_DIRECTION,
                               braking_accel: Optional[float] = None,
                               horizon: Optional[float] = None,
                               other_velocity: Optional[Vector3] = None) -> HalfSpace:
    """Velocities that cannot close this pair's gap while the command acts, if both comply.

    Not in the paper: our addition, the 3D form of
    :func:`orca_ros.core.orca.orca2d.one_step_safety_half_plane`. With ``n`` the unit
    vector towards the neighbour, ``g`` the gap (centre distance less
    ``combined_radius``) and ``T`` the ``horizon`` (how long a command may act:
    one ``time_step`` in the world, the command's validity through ROS), the
    half-space is ``v . n <= g / (2 T)``: if both keep to theirs, their
    distance along ``n`` shrinks by at most ``g``, and motion across ``n``
    only adds distance. ``v = 0`` meets it whenever the pair does not overlap,
    so it can be kept hard; an overlapping pair backs off by half the overlap.
    A body that can only decelerate at ``braking_accel`` also keeps ``v . n``
    within its braking envelope for its half of the gap. A neighbour that does
    not reciprocate (``other_velocity`` given) leaves the whole gap to us, less
    what it closes (coming at us) or plus the least it retreats (moving away,
    even if it brakes). ``tie_direction``: ``n`` for coincident centres.
    """
    rx, ry, rz = other_position_rel
    distance = math.sqrt(rx * rx + ry * ry + rz * rz)
    if distance > 1e-12:
        n = (rx / distance, ry / distance, rz / distance)
    else:
        n = tie_direction
    hold = time_step if horizon is None else max(horizon, time_step)
    share = 0.5 if other_velocity is None else 1.0
    gap = distance - combined_radius
    retreat = closing = 0.0
    if other_velocity is not None:
        along = other_velocity[0] * n[0] + other_velocity[1] * n[1] + other_velocity[2] * n[2]
        if along > 0.0:
            retreat = least_retreat(other_velocity, n, braking_accel, hold, time_step)
        else:
            closing = along
    room = share * gap + retreat
    limit = room / hold
    if braking_accel is not None and gap > 0.0:
        limit = min(limit, braking_speed(room, braking_accel, time_step, hold))
    offset = limit + closing
    # v . n <= offset  <=>  (-n) . (v - offset n) >= 0
    return HalfSpace((n[0] * offset, n[1] * offset, n[2] * offset), (-n[0], -n[1], -n[2]))


def filter_velocity(velocity: Vector2, max_speed: float,
                    hard_half_planes: Sequence[HalfPlane]) -> Tuple[Vector2, bool]:
    """The velocity nearest ``velocity`` (within ``max_speed``) that satisfies every hard
    half-plane: the one-step safety filter behind a method that does not take
    constraints itself. When they cannot all hold, RVO2's ``linearProgram3`` finds the
    velocity that violates them least. Returns ``(velocity, relaxed)``."""
    lines = list(hard_half_planes)
    if not lines:
        speed = math.hypot(*velocity)
        if speed <= max_speed:
            return velocity, False
        return (velocity[0] * max_speed / speed, velocity[1] * max_speed / speed), False
    fail, result = linear_program_2d(lines, max_speed, velocity, False)
    if fail < len(lines):
        return linear_program_3d(lines, 0, fail, max_speed, result), True
    return result, False


def filter_output(output, max_speed: float, hard_half_planes: Sequence[HalfPlane]):
    """A method's output (:class:`~orca_ros.core.methods.base.MethodOutput`) kept within
    ``hard_half_planes`` and ``max_speed`` (:func:`filter_velocity`): unchanged if its
    velocity already is; else with the filter's velocity, ``used_fallback`` set when the
    half-planes had to be relaxed, and no waypoint (the filter's velocity rules)."""
    velocity, relaxed = filter_velocity(output.velocity, max_speed, hard_half_planes)
    if velocity == output.velocity:
        return output
    return output._replace(velocity=velocity, used_fallback=output.used_fallback or relaxed,
                           waypoint=None, waypoint_speed=None)


def filter_velocity_3d(velocity: Vector3, max_speed: float,
                       hard_half_spaces: Sequence[HalfSpace]) -> Tuple[Vector3, bool]:
    """The velocity nearest ``velocity`` (within ``max_speed``) in every hard half-space:
    the safety filter behind a 3D method that does not take constraints itself. When
    they cannot all hold, the least violation (RVO2-3D's ``linearProgram4``). Returns
    ``(velocity, relaxed)``."""
    if not hard_half_spaces:
        speed = math.sqrt(sum(c * c for c in velocity))
        if speed <= max_speed:
            return velocity, False
        scale = max_speed / speed
        return (velocity[0] * scale, velocity[1] * scale, velocity[2] * scale), False
    return solve_half_spaces(list(hard_half_spaces), max_speed, velocity)


def along_heading(heading: float, line: HalfPlane,
                  may_reverse: bool = False) -> Optional[HalfPlane]:
    """A safety half-plane ``v . n <= L`` applied to what a unicycle really drives.

    A unicycle commanded ``u`` moves at ``(u . h) h`` along its heading ``h``;
    the lateral part of ``u`` (up to ``E_lat / dt``) is only covered by the
    tracking margin, which a robot already inside the margin no longer has.
    So the motion itself keeps to the limit: ``(u . h)(h . n) <= L``, a
    half-plane in ``u`` when the robot faces the other (``h . n > 0``: a limit
    on driving forward) or, if it ``may_reverse``, turns its back to it
    (``h . n < 0``: a limit on backing). ``u = 0`` satisfies it whenever ``L >= 0``.
    """
    hx, hy = math.cos(heading), math.sin(heading)
    nx, ny = line.direction_y, -line.direction_x  # the normal towards the other
    facing = hx * nx + hy * ny
    if facing < 0.1 and not (may_reverse and facing < -0.1):
        return None
    limit = (line.point_x * nx + line.point_y * ny) / facing
    if facing < 0.0:  # its back to the other: backing towards it is what is limited
        return HalfPlane(hx * limit, hy * limit, hy, -hx)
    return HalfPlane(hx * limit, hy * limit, -hy, hx)


class SafetyConstraints(NamedTuple):
    """What the safety filter holds a period's velocity to: ``safety``, the hard
    half-planes against close neighbours and visible walls (the method's
    ``hard_half_planes``), and ``driving``, a unicycle's limits on its forward motion
    inside the tracking margin (:meth:`SafetyFilter.driving_half_planes`), which bind
    what it drives (:mod:`.tracking`)."""

    safety: List[HalfPlane]
    driving: List[HalfPlane]


class SafetyFilter:
    """The safety filter of one robot for one control period: ``config`` (its
    effective :class:`~orca_ros.core.robot.config.ControllerConfig`, the supervisor's
    speed limit applied) and ``key`` (its name, which breaks ties between coincident
    robots the same way on both sides)."""

    def __init__(self, config, key: str = "") -> None:
        self.config = config
        self.key = key

    def constraints(self, state, candidates: Sequence, edges: Sequence[ObstacleVertex],
                    own_uncertainty: float = 0.0, drift: float = 0.0,
                    own_localization: float = 0.0) -> SafetyConstraints:
        """This period's constraints: the ``candidates`` that could be reached before both
        robots stop (:meth:`within_one_step`), their and the ``edges``' hard half-planes
        (:meth:`half_planes`) and, for a unicycle, its driving limits."""
        close = self.within_one_step(state, candidates, own_uncertainty)
        safety, inside = self.half_planes(state, close, edges, own_uncertainty, drift,
                                          own_localization)
        return SafetyConstraints(safety, self.driving_half_planes(state, inside))

    def within_one_step(self, state, candidates: Sequence, own_uncertainty: float = 0.0
                        ) -> list:
        """The candidates close enough that the pair could meet before both have stopped.

        Robots that change velocity at once stop within one command:
        ``2 v_max T`` covers the pair. A robot that brakes at ``a`` (unicycles,
        accel-limited bodies) keeps moving along its direction of travel while
        it stops, so the pair is also covered while either robot's
        :meth:`closing_distance` (towards the other) is more than half their gap:
        the half the reciprocal half-plane leaves each (twice the larger of the
        two; against a robot that does not reciprocate, their sum, plus its travel
        over the horizon). The braking envelope then applies before the pair can
        no longer stop, not only once it is one command apart, and it applies
        gradually: a neighbour enters the list while the robot's velocity still
        keeps its half-plane. (Counted while the two closing distances added up
        to more than the gap, a robot behind one moving the same way entered its
        list already breaking its half-plane, braked at once, left the list and
        came back: a unicycle's turn command changed side 150 times a minute on
        SteerSuite's ``fan_in``. Counted from full speeds instead of the closing
        parts, a crossing crowd of unicycles stalled: block crowd ``cross``
        51/100.) The reach is taken with the full tracking errors and both
        uncertainties added (more than :meth:`pair_distances`), so it never leaves out a
        neighbour whose half-plane could bind.
        """
        c = self.config
        return _orca2d.within_one_step(*self._numbers(), state.position, state.velocity,
                                       c.safety_radius(c.radius) + own_uncertainty,
                                       candidates)

    def _numbers(self) -> tuple:
        """The configuration's numbers the C code takes first: time step, command
        horizon, tracking error, maximum speed and braking deceleration (None: none)."""
        return self.config.safety_numbers

    def closing_distance(self, velocity: Vector2, towards: Vector2) -> float:
        """How far a robot moving at ``velocity`` may still go along the unit vector
        ``towards`` before it stands (m), braking straight along its direction of
        travel ``d``: one period's speed-up, the command held for its horizon
        ``T``, then braking at ``a``: ``(d . n)+ (v T + v**2 / (2 a))`` with
        ``v = min(speed + a dt, v_max)``. Zero for a robot that stops at once."""
        return _orca2d.closing_distance(*self._numbers(), velocity, towards)

    def half_planes(self, state, close: Sequence, edges: Sequence[ObstacleVertex],
                    own_uncertainty: float = 0.0, drift: float = 0.0,
                    own_localization: float = 0.0
                    ) -> Tuple[List[HalfPlane], List[HalfPlane]]:
        """The hard half-planes against every ``close`` neighbour and visible wall, over
        the time the command can act (:attr:`ControllerConfig.command_horizon`), and
        those of them whose wall or robot is nearer than the safety distance (inside
        the tracking margin).

        ``own_uncertainty`` (m, how far the robot may be from ``state.position``) grows
        the disc: nearer than the grown safety distance the robot may not close in on
        a wall or robot, and nearer a wall than its true radius plus the uncertainty it
        is pushed back out. A robot placed by a localization of a few centimetres would
        otherwise rest wherever it came to be pressed (by keep-right, say) between its
        true radius and the grown one, as close as its estimate allows: its true body
        then touches the wall about half the time it rests there. Robots are pushed
        apart only inside their true radii: both sides' uncertainty is already in their
        safety distance (:meth:`pair_distances`), and a crowd standing closer than that
        (robots placed side by side) would otherwise push in every direction at once
        and stand. ``own_localization`` (m): the part of ``own_uncertainty`` that is
        the localization fix's (:attr:`~.localization.SharedFramePose.uncertainty`; the
        rest comes of the odometry's age). ``drift`` (m) grows the disc further against
        walls alone: how far the odometry may have drifted since the last localization
        fix (:attr:`~.localization.SharedFramePose.drift_uncertainty`)."""
        c = self.config
        return _orca2d.safety_half_planes(*self._numbers(), state.position, c.radius,
                                          own_uncertainty, own_localization, drift, self.key,
                                          close, edges)

    def pair_distances(self, neighbors: Sequence, own_uncertainty: float = 0.0,
                       own_localization: float = 0.0) -> List[float]:
        """How far apart the hard half-planes keep the robot's centre from each of the
        ``neighbors``' (m; :meth:`half_planes`).

        For robots ``a`` and ``b``: ``r_a + E + r_b + E + u_a + u_b + 3 sqrt(s_a**2 +
        s_b**2)``, ``r`` the true radii (each with a rounding margin of
        :data:`SAFETY_ROUNDING_MARGIN`), ``E`` the tracking error
        (:attr:`ControllerConfig.tracking_error`), ``u`` the parts of their
        uncertainties that come of their data's age (``a``'s odometry; ``b``'s state
        message, ``Neighbor.age_uncertainty``), and ``3 s`` their localization margins
        (:data:`~.localization.UNCERTAINTY_DEVIATIONS` standard deviations of each fix,
        ``own_localization`` and the rest of ``Neighbor.uncertainty``). Two fixes err
        independently, so the error of one robot's position relative to the other's has
        the standard deviation ``sqrt(s_a**2 + s_b**2)``: the margin keeps the same
        three deviations of it that each robot keeps of its own. (Added up, ``3 s_a +
        3 s_b``, a hundred unicycles with a 6 cm margin each, goals on menge_circle's
        53.75 m circle, asked for 65.4 m of it, and a fifth never arrived; in quadrature
        61.9 m.) The age parts and the tracking errors are bounds, not deviations, and
        stay added."""
        c = self.config
        return _orca2d.pair_distances(*self._numbers(), c.radius, own_uncertainty,
                                      own_localization, neighbors)

    def driving_half_planes(self, state, inside: Sequence[HalfPlane]) -> List[HalfPlane]:
        """For a unicycle inside the tracking margin of the walls or robots behind
        ``inside`` (their safety half-planes): the limit on its forward motion
        (:func:`along_heading`); the margin no longer covers the lateral part.
        These bind what the robot drives, not where it turns to: a robot facing
        a wall it may not drive towards still turns to the velocity avoidance
        wants (a lone robot whose stall escape pointed into a block's wall, 13°
        off its heading, stood there for the rest of a crowd run)."""
        if not self.config.diff_drive:
            return []
        may_reverse = self.config.reverse_speed > 0.0
        driving = (along_heading(state.heading, line, may_reverse) for line in inside)
        return [line for line in driving if line is not None]
