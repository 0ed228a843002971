"""The one-step safety filter's 2D half-planes in pure Python: the former bodies of
:mod:`orca_ros.core.robot.safety_filter` (``SafetyFilter.within_one_step``,
``closing_distance`` and ``half_planes``, ``one_step_safety_half_plane``,
``one_step_obstacle_half_plane``, ``least_retreat``, ``braking_speed``,
``edge_distance``), kept as the tests' reference for the C code that replaced them
(``orca_ros/core/orca/_orca2d.c``). Unchanged but for their imports; the C code computes
lengths as Python's ``math.hypot`` does, so the two agree bit for bit
(``test/unit/robot/test_safety_filter_c.py``). Nothing in the package imports this module.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

from orca_ros.core.geometry.linprog import HalfPlane
from orca_ros.core.geometry.obstacles import ObstacleVertex
from orca_ros.core.geometry.types import Vector2
from orca_ros.core.robot.safety_filter import braking_speed, least_retreat  # still Python


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
    rx, ry = other_position_rel
    distance = math.sqrt(rx * rx + ry * ry)
    if distance > 1e-12:
        nx, ny = rx / distance, ry / distance
    else:
        nx, ny = tie_direction
    hold = time_step if horizon is None else max(horizon, time_step)
    share = 0.5 if other_velocity is None else 1.0
    gap = distance - combined_radius
    retreat = closing = 0.0
    if other_velocity is not None:
        along = other_velocity[0] * nx + other_velocity[1] * ny
        if along > 0.0:  # moving away: only what it covers even if it brakes
            retreat = least_retreat(other_velocity, (nx, ny), braking_accel, hold, time_step)
        else:  # coming at us: at its velocity, as long as it likes
            closing = along
    room = share * gap + retreat
    limit = room / hold
    if gap < 0.0 and contact_radius is not None:
        limit = min(0.0, share * (distance - contact_radius) / hold)
    if braking_accel is not None and gap > 0.0:
        limit = min(limit, braking_speed(room, braking_accel, time_step, hold))
    return HalfPlane(nx * (limit + closing), ny * (limit + closing), -ny, nx)


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
    ax, ay = edge.point
    bx, by = edge.next.point
    px, py = position
    abx, aby = bx - ax, by - ay
    t = ((px - ax) * abx + (py - ay) * aby) / (abx * abx + aby * aby)
    t = min(max(t, 0.0), 1.0)
    nx, ny = ax + t * abx - px, ay + t * aby - py
    distance = math.sqrt(nx * nx + ny * ny)
    if distance < 1e-12:
        return None
    nx, ny = nx / distance, ny / distance
    hold = time_step if horizon is None else max(horizon, time_step)
    gap = distance - radius
    limit = gap / hold
    if gap < 0.0 and contact_radius is not None:
        limit = min(0.0, (distance - contact_radius) / hold)
    if braking_accel is not None and gap > 0.0:
        limit = min(limit, braking_speed(gap, braking_accel, time_step, hold))
    return HalfPlane(nx * limit, ny * limit, -ny, nx)


def edge_distance(position: Vector2, edge: ObstacleVertex) -> float:
    """Distance from a point to an obstacle edge (the segment to the next vertex)."""
    (ax, ay), (bx, by) = edge.point, edge.next.point
    abx, aby = bx - ax, by - ay
    length2 = abx * abx + aby * aby
    t = 0.0 if length2 == 0.0 else ((position[0] - ax) * abx + (position[1] - ay) * aby) / length2
    t = min(max(t, 0.0), 1.0)
    return math.hypot(ax + t * abx - position[0], ay + t * aby - position[1])


class SafetyFilterReference:
    """The former ``SafetyFilter``'s half-plane methods."""

    def __init__(self, config, key: str = "") -> None:
        self.config = config
        self.key = key

    def within_one_step(self, state, candidates: Sequence, own_uncertainty: float = 0.0
                        ) -> list:
        """The candidates close enough that the pair could meet before both have stopped.

        Robots that change velocity at once stop within one command:
        ``2 v_max T`` covers the pair. A robot that brakes at ``a`` (unicycles,
        accel-limited bodies) keeps moving along its direction of travel while
        it stops, so the pair is also covered while the two
        :meth:`closing_distance` (each towards the other) add up to more than
        their gap: the safety half-planes' braking envelope then applies
        before the pair can no longer stop, not only once it is one command
        apart. (Counted from full speeds instead of the closing parts, a
        crossing crowd of unicycles stalled: block crowd ``cross`` 51/100.)
        """
        c = self.config
        horizon = c.command_horizon
        own = c.safety_radius(c.radius) + own_uncertainty
        travel = 2.0 * c.max_speed * horizon
        px, py = state.position
        close = []
        for n in candidates:
            rx, ry = n.position[0] - px, n.position[1] - py
            distance = math.hypot(rx, ry)
            nx, ny = (rx / distance, ry / distance) if distance > 1e-12 else (1.0, 0.0)
            reach = own + c.safety_radius(n.radius) + n.uncertainty + max(
                travel, self.closing_distance(state.velocity, (nx, ny))
                + self.closing_distance(n.velocity, (-nx, -ny)))
            if not n.reciprocates:
                reach += math.hypot(*n.velocity) * horizon
            if distance < reach:
                close.append(n)
        return close

    def closing_distance(self, velocity: Vector2, towards: Vector2) -> float:
        """How far a robot moving at ``velocity`` may still go along the unit vector
        ``towards`` before it stands (m), braking straight along its direction of
        travel ``d``: one period's speed-up, the command held for its horizon
        ``T``, then braking at ``a``: ``(d . n)+ (v T + v**2 / (2 a))`` with
        ``v = min(speed + a dt, v_max)``. Zero for a robot that stops at once."""
        c = self.config
        braking = c.braking_accel
        speed = math.hypot(*velocity)
        if braking is None or speed < 1e-12:
            return 0.0
        facing = (velocity[0] * towards[0] + velocity[1] * towards[1]) / speed
        if facing <= 0.0:
            return 0.0
        v = min(speed + braking * c.time_step, c.max_speed)
        return facing * (v * c.command_horizon + v * v / (2.0 * braking))

    def half_planes(self, state, close: Sequence, edges: Sequence[ObstacleVertex],
                    own_uncertainty: float = 0.0) -> Tuple[List[HalfPlane], List[HalfPlane]]:
        """The hard half-planes against every ``close`` neighbour and visible wall, over
        the time the command can act (:attr:`ControllerConfig.command_horizon`), and
        those of them whose wall or robot is nearer than the safety distance (inside
        the tracking margin)."""
        c = self.config
        braking = c.braking_accel
        horizon = c.command_horizon
        own = c.safety_radius(c.radius) + own_uncertainty
        lines, inside = [], []
        for edge in edges:
            line = one_step_obstacle_half_plane(state.position, own, edge, c.time_step, braking,
                                                c.radius, horizon)
            if line is not None:
                lines.append(line)
                if edge_distance(state.position, edge) < own:
                    inside.append(line)
        px, py = state.position
        for other in close:
            tie = (1.0, 0.0) if self.key < other.key else (-1.0, 0.0)
            rel = (other.position[0] - px, other.position[1] - py)
            combined = own + c.safety_radius(other.radius) + other.uncertainty
            line = one_step_safety_half_plane(
                rel, combined, c.time_step, tie, braking, c.radius + other.radius, horizon,
                None if other.reciprocates else other.velocity)
            lines.append(line)
            if math.hypot(*rel) < combined:
                inside.append(line)
        return lines, inside
