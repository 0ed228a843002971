"""Optimal Reciprocal Collision Avoidance in three dimensions, for aerial robots.

van den Berg, Guy, Lin, Manocha, "Reciprocal n-Body Collision Avoidance",
ISRR 2009 / STAR 70, 2011: the paper's formulation holds in any dimension; in
3D the agents are spheres, the velocity obstacle ``VO^tau_A|B`` is a cone
truncated by a sphere, and ``ORCA^tau_A|B`` a half-space. The reference
implementation is RVO2-3D's ``Agent::computeNewVelocity`` (github.com/snape/RVO2-3D,
``src/Agent.cc``); this module follows it step by step:

1. :func:`select_agent_neighbors_3d` (``computeNeighbors``: strictly inside
   ``neighbor_dist``, nearest ``max_neighbors``, nearest first).
2. :func:`agent_orca_half_space` for each neighbour (eq. 3 of the paper:
   ``ORCA_A|B = {v | (v - (v_A + u/2)) . n >= 0}``), where ``u`` comes from
   :func:`cutoff_sphere_projection` (onto the sphere that truncates the cone,
   or, when the spheres already overlap, onto the one of a single time step)
   or :func:`cone_projection` (onto the cone's side).
3. :func:`~orca_ros.core.geometry.linprog3d.linear_program_3d_in_sphere`, and
   :func:`~orca_ros.core.geometry.linprog3d.linear_program_3d_least_violation` when it
   is infeasible (:func:`~orca_ros.core.geometry.linprog3d.solve_half_spaces`).

RVO2-3D has no obstacles, and neither has this module. Where RVO2-3D divides
by zero (coincident centres moving alike; a relative velocity exactly on the
cone's axis) a fixed direction is taken instead, so every input gives a
finite velocity. Our addition, as in 2D: :func:`one_step_safety_half_space`,
the hard half-space that keeps a pair from closing its gap within one command
(see :mod:`orca_ros.core.robot.aerial`); :func:`compute_new_velocity_3d` with
:data:`STRICT_RVO2_3D` is RVO2-3D exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ..geometry.linprog3d import HalfSpace, solve_half_spaces
from ..geometry.types import AgentState3D, NeighborState3D, Vector3, as_finite
from ..geometry.vectors import unit3

TIE_DIRECTION: Vector3 = (1.0, 0.0, 0.0)
"""The direction taken where RVO2-3D has none (coincident centres moving alike)."""
AXIS_SINE = 1e-6
"""A relative velocity whose angle to the cone's axis has a smaller sine counts as on the
axis (:func:`cone_projection`): there RVO2-3D's formula is 0 / 0 or rounding residue."""


@dataclass(frozen=True)
class Orca3DOptions:
    """Departures from the reference behaviour; the defaults are exactly RVO2-3D.

    ``safety_margin`` (m) enlarges every sphere the agent reasons about (its
    own and each neighbour's), so a pair keeps ``2 * safety_margin`` apart.
    """

    safety_margin: float = 0.0

    def __post_init__(self) -> None:
        as_finite(self.safety_margin, "safety_margin", minimum=0.0)


STRICT_RVO2_3D = Orca3DOptions()


@dataclass(frozen=True)
class Orca3DResult:
    """The new velocity and how it was found."""

    velocity: Vector3
    half_spaces: Tuple[HalfSpace, ...]  # the hard ones first, then one per neighbour
    num_hard_half_spaces: int
    used_fallback: bool  # the 3D program was infeasible: the least violation was taken


def select_agent_neighbors_3d(agent: AgentState3D, neighbors: Sequence[NeighborState3D]
                              ) -> List[NeighborState3D]:
    """Neighbours strictly inside ``neighbor_dist``, the nearest ``max_neighbors``, nearest
    first (RVO2-3D's k-d tree query, ``Agent::insertAgentNeighbor``); equal distances in
    the order given."""
    if agent.max_neighbors <= 0:
        return []
    px, py, pz = agent.position
    range_sq = agent.neighbor_dist * agent.neighbor_dist
    in_range = []
    for index, other in enumerate(neighbors):
        ox, oy, oz = other.position
        dist_sq = (ox - px) * (ox - px) + (oy - py) * (oy - py) + (oz - pz) * (oz - pz)
        if dist_sq < range_sq:
            in_range.append((dist_sq, index, other))
    in_range.sort(key=lambda item: (item[0], item[1]))
    return [other for _, _, other in in_range[:agent.max_neighbors]]


def cutoff_sphere_projection(relative_velocity: Vector3, relative_position: Vector3,
                             combined_radius: float, inv_time: float
                             ) -> Tuple[Vector3, Vector3]:
    """``(n, u)`` for a relative velocity nearest the sphere that truncates the cone.

    The sphere is the other agent's, grown by the agent's radius and scaled by
    ``inv_time`` (``1/tau``: centre ``p / tau``, radius ``r / tau``). With
    ``w = v_rel - p / tau``, ``u = (r / tau - |w|) w / |w|`` moves ``v_rel``
    onto the sphere and ``n = w / |w|`` points out of it. With ``inv_time =
    1 / time_step`` it is RVO2-3D's collision branch: overlapping spheres
    separate within one step. ``w = 0`` (coincident centres moving alike, a
    division by zero in RVO2-3D) takes :data:`TIE_DIRECTION`.
    """
    wx = relative_velocity[0] - inv_time * relative_position[0]
    wy = relative_velocity[1] - inv_time * relative_position[1]
    wz = relative_velocity[2] - inv_time * relative_position[2]
    w_length = math.sqrt(wx * wx + wy * wy + wz * wz)
    unit_w = unit3(wx, wy, wz) or TIE_DIRECTION
    scale = combined_radius * inv_time - w_length
    return unit_w, (scale * unit_w[0], scale * unit_w[1], scale * unit_w[2])


def perpendicular(axis: Vector3) -> Vector3:
    """A unit vector perpendicular to ``axis`` (not zero), the same for the same axis."""
    ax, ay, az = axis
    # axis x e for the unit vector e least aligned with it
    if abs(ax) <= abs(ay) and abs(ax) <= abs(az):
        px, py, pz = 0.0, az, -ay  # axis x (1, 0, 0)
    elif abs(ay) <= abs(az):
        px, py, pz = -az, 0.0, ax  # axis x (0, 1, 0)
    else:
        px, py, pz = ay, -ax, 0.0  # axis x (0, 0, 1)
    norm = math.sqrt(px * px + py * py + pz * pz)
    return (px / norm, py / norm, pz / norm)


def cone_projection(relative_velocity: Vector3, relative_position: Vector3,
                    combined_radius: float) -> Tuple[Vector3, Vector3]:
    """``(n, u)`` for a relative velocity nearest the side of the velocity obstacle's cone.

    The cone (apex at the origin, axis ``p``, half-angle ``asin(r / |p|)``) is
    the union of the spheres of centre ``t p`` and radius ``t r``; RVO2-3D
    finds the ``t`` of the sphere that ``v_rel`` projects onto,
    ``t = (b + sqrt(b**2 - a c)) / a`` with ``a = |p|**2``, ``b = p . v_rel``
    and ``c = |v_rel|**2 - |p x v_rel|**2 / (|p|**2 - r**2)``; then with
    ``w = v_rel - t p``, ``u = (r t - |w|) w / |w|`` and ``n = w / |w|``. A
    relative velocity on the cone's axis, to within :data:`AXIS_SINE` (``w = 0``:
    RVO2-3D divides by zero; near it ``w`` is rounding residue that may point
    anywhere, even along the axis) gets the formula's limit as ``v_rel`` nears
    the axis from its side ``e`` (a fixed one, exactly on it): ``n = cos(theta)
    e - sin(theta) p / |p|`` (the cone's outward normal) and ``u = r t n``,
    ``t = b / a``.
    """
    px, py, pz = relative_position
    vx, vy, vz = relative_velocity
    dist_sq = px * px + py * py + pz * pz
    cx, cy, cz = py * vz - pz * vy, pz * vx - px * vz, px * vy - py * vx  # p x v_rel
    cross_sq = cx * cx + cy * cy + cz * cz
    a = dist_sq
    b = px * vx + py * vy + pz * vz
    if cross_sq <= AXIS_SINE * AXIS_SINE * dist_sq * (vx * vx + vy * vy + vz * vz):
        # On the axis (to rounding): the formula's limit as v_rel nears the axis from
        # the side e is n = cos(theta) e - sin(theta) p / |p|, u = r t n with t = b / a.
        # Computed by the formula, w would be rounding residue pointing anywhere (along
        # the axis too: a pair sent exactly head on then sped up into each other).
        if cross_sq > 0.0:
            ex, ey, ez = _unit_or_none(cy * pz - cz * py, cz * px - cx * pz,
                                       cx * py - cy * px) or perpendicular(relative_position)
        else:
            ex, ey, ez = perpendicular(relative_position)
        distance = math.sqrt(dist_sq)
        sin_theta = combined_radius / distance
        cos_theta = math.sqrt(max(1.0 - sin_theta * sin_theta, 0.0))
        unit_w = (cos_theta * ex - sin_theta * px / distance,
                  cos_theta * ey - sin_theta * py / distance,
                  cos_theta * ez - sin_theta * pz / distance)
        scale = combined_radius * b / a
        return unit_w, (scale * unit_w[0], scale * unit_w[1], scale * unit_w[2])
    c = (vx * vx + vy * vy + vz * vz) - cross_sq / (dist_sq - combined_radius * combined_radius)
    t = (b + math.sqrt(max(b * b - a * c, 0.0))) / a
    wx, wy, wz = vx - t * px, vy - t * py, vz - t * pz
    w_length = math.sqrt(wx * wx + wy * wy + wz * wz)
    unit_w = (wx / w_length, wy / w_length, wz / w_length)
    scale = combined_radius * t - w_length
    return unit_w, (scale * unit_w[0], scale * unit_w[1], scale * unit_w[2])


def _unit_or_none(x: float, y: float, z: float) -> Optional[Vector3]:
    norm = math.sqrt(x * x + y * y + z * z)
    return None if norm == 0.0 else (x / norm, y / norm, z / norm)


def agent_orca_half_space(velocity: Vector3, other_position_rel: Vector3,
                          other_velocity: Vector3, combined_radius: float,
                          inv_time_horizon: float, inv_time_step: float,
                          responsibility: float = 0.5) -> HalfSpace:
    """The reciprocal half-space ``ORCA_A|B`` against one neighbour (paper eq. 3-4).

    ``u`` is the smallest change of the relative velocity that leaves the
    truncated velocity obstacle ``VO^tau_A|B``: onto the cut-off sphere when
    ``w = v_rel - p / tau`` points back at the apex within the cone's angle
    (``w . p < 0`` and ``(w . p)**2 > r**2 |w|**2``), else onto the cone's
    side. When the spheres already overlap, onto the cut-off sphere of one
    time step instead, so the pair separates within that step. Each agent
    takes ``responsibility`` of ``u`` (1/2 against an agent that reciprocates,
    1 against one that does not), so the half-space's plane passes through
    ``v_A + responsibility * u`` with normal ``n``.
    """
    rpx, rpy, rpz = other_position_rel
    relative_velocity = (velocity[0] - other_velocity[0], velocity[1] - other_velocity[1],
                         velocity[2] - other_velocity[2])
    dist_sq = rpx * rpx + rpy * rpy + rpz * rpz
    combined_radius_sq = combined_radius * combined_radius

    if dist_sq > combined_radius_sq:
        wx = relative_velocity[0] - inv_time_horizon * rpx  # cut-off centre -> v_rel
        wy = relative_velocity[1] - inv_time_horizon * rpy
        wz = relative_velocity[2] - inv_time_horizon * rpz
        w_length_sq = wx * wx + wy * wy + wz * wz
        dot = wx * rpx + wy * rpy + wz * rpz
        if dot < 0.0 and dot * dot > combined_radius_sq * w_length_sq:
            normal, u = cutoff_sphere_projection(relative_velocity, other_position_rel,
                                                 combined_radius, inv_time_horizon)
        else:
            normal, u = cone_projection(relative_velocity, other_position_rel, combined_radius)
    else:
        normal, u = cutoff_sphere_projection(relative_velocity, other_position_rel,
                                             combined_radius, inv_time_step)
    return HalfSpace((velocity[0] + responsibility * u[0], velocity[1] + responsibility * u[1],
                      velocity[2] + responsibility * u[2]), normal)


def solve_orca_3d(position: Vector3, velocity: Vector3, radius: float, max_speed: float,
                  pref_velocity: Vector3, time_horizon: float, time_step: float,
                  neighbors: Sequence[Tuple[Vector3, Vector3, float, float]],
                  hard_half_spaces: Sequence[HalfSpace] = ()) -> Orca3DResult:
    """3D ORCA on preselected input: the core of :func:`compute_new_velocity_3d`.

    ``neighbors`` are ``(position, velocity, radius, responsibility)``, nearest
    first (responsibility 0.5 against a reciprocating agent); ``radius``
    already includes any margin. ``hard_half_spaces`` (the safety ones) come
    first and the fallback never trades them while they agree.
    """
    half_spaces: List[HalfSpace] = list(hard_half_spaces)
    num_hard = len(half_spaces)
    inv_time_horizon = 1.0 / time_horizon
    inv_time_step = 1.0 / time_step
    px, py, pz = position
    for (ox, oy, oz), other_velocity, other_radius, responsibility in neighbors:
        half_spaces.append(agent_orca_half_space(
            velocity, (ox - px, oy - py, oz - pz), other_velocity, radius + other_radius,
            inv_time_horizon, inv_time_step, responsibility))
    new_velocity, used_fallback = solve_half_spaces(half_spaces, max_speed, pref_velocity,
                                                    num_hard)
    return Orca3DResult(new_velocity, tuple(half_spaces), num_hard, used_fallback)


def compute_new_velocity_3d(agent: AgentState3D, neighbors: Sequence[NeighborState3D],
                            time_step: float,
                            options: Orca3DOptions = STRICT_RVO2_3D) -> Orca3DResult:
    """3D ORCA's new velocity for ``agent`` (RVO2-3D's ``Agent::computeNewVelocity``).

    ``neighbors`` may hold any agents; those strictly within ``neighbor_dist``
    count, nearest ``max_neighbors`` first. ``time_step`` is only used when two
    spheres already overlap.
    """
    if not (time_step > 0.0 and math.isfinite(time_step)):
        raise ValueError(f"time_step must be positive and finite, got {time_step}")
    margin = options.safety_margin
    selected = [(n.position, n.velocity, n.radius + margin, 0.5)
                for n in select_agent_neighbors_3d(agent, neighbors)]
    return solve_orca_3d(agent.position, agent.velocity, agent.radius + margin,
                         agent.max_speed, agent.pref_velocity, agent.time_horizon, time_step,
                         selected)
