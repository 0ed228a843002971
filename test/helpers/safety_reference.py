"""The one-step safety filter's 2D half-planes in pure Python: the former bodies of
:mod:`orca_ros.core.robot.safety_filter` (``SafetyFilter.within_one_step``,
``closing_distance`` and ``half_planes``, ``one_step_safety_half_plane``,
``one_step_obstacle_half_plane``, ``least_retreat``, ``braking_speed``,
``edge_distance``), kept as the tests' reference for the C code that replaced them
(``orca_ros/core/orca/_orca2d.c``), and ``pair_distances``, the distance ``half_planes``
keeps between two robots (written for the C code's form of it); the C code computes
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
    """Reference of safety_filter.one_step_safety_half_plane (see its docstring)."""
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
    """Reference of safety_filter.one_step_obstacle_half_plane (see its docstring)."""
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
        """Reference of safety_filter.within_one_step (see its docstring)."""
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
            mine = self.closing_distance(state.velocity, (nx, ny))
            theirs = self.closing_distance(n.velocity, (-nx, -ny))
            braking = 2.0 * max(mine, theirs) if n.reciprocates else mine + theirs
            reach = own + c.safety_radius(n.radius) + n.uncertainty + max(travel, braking)
            if not n.reciprocates:
                reach += math.hypot(*n.velocity) * horizon
            if distance < reach:
                close.append(n)
        return close

    def closing_distance(self, velocity: Vector2, towards: Vector2) -> float:
        """Reference of safety_filter.closing_distance (see its docstring)."""
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

    def pair_distances(self, neighbors: Sequence, own_uncertainty: float = 0.0,
                       own_localization: float = 0.0) -> List[float]:
        """Reference of safety_filter.pair_distances (see its docstring)."""
        c = self.config
        uncertainty = max(own_uncertainty, 0.0)
        own_localization = min(max(own_localization, 0.0), uncertainty)
        age = uncertainty - own_localization
        distances = []
        for n in neighbors:
            theirs = max(n.uncertainty, 0.0)
            localization = max(theirs - max(n.age_uncertainty, 0.0), 0.0)
            distances.append(c.safety_radius(c.radius) + age + c.safety_radius(n.radius)
                             + (theirs - localization)
                             + math.hypot(own_localization, localization))
        return distances

    def half_planes(self, state, close: Sequence, edges: Sequence[ObstacleVertex],
                    own_uncertainty: float = 0.0, drift: float = 0.0,
                    own_localization: float = 0.0
                    ) -> Tuple[List[HalfPlane], List[HalfPlane]]:
        """Reference of safety_filter.half_planes (see its docstring)."""
        c = self.config
        braking = c.braking_accel
        horizon = c.command_horizon
        safety = c.safety_radius(c.radius)
        grown = max(own_uncertainty, 0.0) + drift
        lines, inside = [], []
        for edge in edges:  # walls: grown by the whole uncertainty and the drift
            line = one_step_obstacle_half_plane(state.position, safety + grown, edge,
                                                c.time_step, braking, c.radius + grown, horizon)
            if line is not None:
                lines.append(line)
                if edge_distance(state.position, edge) < safety + grown:
                    inside.append(line)
        px, py = state.position
        distances = self.pair_distances(close, own_uncertainty, own_localization)
        for other, combined in zip(close, distances):
            tie = (1.0, 0.0) if self.key < other.key else (-1.0, 0.0)
            rel = (other.position[0] - px, other.position[1] - py)
            line = one_step_safety_half_plane(
                rel, combined, c.time_step, tie, braking, c.radius + other.radius, horizon,
                None if other.reciprocates else other.velocity)
            lines.append(line)
            if math.hypot(*rel) < combined:
                inside.append(line)
        return lines, inside
