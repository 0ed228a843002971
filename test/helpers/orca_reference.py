"""The pure-Python ORCA that the C extension replaced, kept as the tests' reference.

These are the former bodies of :mod:`orca_ros.core.geometry.linprog` (RVO2's
``linearProgram1/2/3``) and :mod:`orca_ros.core.orca.orca2d` (the obstacle and agent
half-planes, neighbour selection and ``solve_orca``, RVO2's
``Agent::computeNewVelocity``), unchanged but for their imports and one seam: the
length of a vector is this module's :data:`hypot`. The package's own implementation is
C (``orca_ros/core/orca/_orca2d.c``); ``test/unit/geometry/test_linprog.py`` and
``test/unit/orca/test_orca2d.py`` check that it gives the same numbers as these.
Nothing in the package imports this module.

``hypot`` is Python's ``math.hypot``; the C code calls the C library's ``hypot``. The
two round the last bit differently in about one case in a thousand, and so this
module's numbers and the C code's then differ by about 1e-16 relative.
:func:`c_library_hypot` makes this module use the C library's, and then the two agree
bit for bit.
"""

from __future__ import annotations

import contextlib
import math
from typing import Iterator, List, Optional, Sequence, Tuple

from orca_ros.core.geometry.linprog import HalfPlane
from orca_ros.core.geometry.obstacles import ObstacleVertex, dist_sq_point_segment
from orca_ros.core.geometry.types import AgentState, NeighborState, Vector2
from orca_ros.core.geometry.vectors import RESCALE, TINY_LENGTH, unit2_arrays
from orca_ros.core.orca.orca2d import STRICT_RVO2, OrcaOptions, OrcaResult

RVO_EPSILON = 1e-5
"""Parallel-line threshold for determinants, as in RVO2."""

hypot = math.hypot
"""The length of (x, y): Python's by default (see the module docstring)."""


@contextlib.contextmanager
def c_library_hypot() -> Iterator[None]:
    """Within the block, :data:`hypot` is the C library's (numpy's ``hypot`` calls it),
    the one ``_orca2d.c`` calls."""
    import numpy as np

    def c_hypot(x: float, y: float) -> float:
        return float(np.hypot(x, y))

    global hypot
    saved = hypot
    hypot = c_hypot
    try:
        yield
    finally:
        hypot = saved


def unit2(x: float, y: float) -> Optional[Tuple[float, float]]:
    """:func:`orca_ros.core.geometry.vectors.unit2` with this module's :data:`hypot`."""
    length = hypot(x, y)
    if length == 0.0:
        return None
    if length < TINY_LENGTH:
        x, y = x * RESCALE, y * RESCALE
        length = hypot(x, y)
    return (x / length, y / length)


def linear_program_on_line(lines: Sequence[HalfPlane], line_no: int, radius: float,
                           opt_velocity: Vector2, direction_opt: bool) -> Optional[Vector2]:
    """Optimise on the boundary of half-plane ``line_no`` (RVO2's linearProgram1).

    Clips the boundary line to the speed disc and to the half-planes before it,
    then returns the point of the remaining interval nearest to
    ``opt_velocity`` (or furthest along it, with ``direction_opt``), or
    ``None`` when the interval is empty.
    """
    px, py, dx, dy = lines[line_no]
    dot = px * dx + py * dy
    discriminant = dot * dot + radius * radius - (px * px + py * py)
    if discriminant < 0.0:
        return None  # the speed disc lies wholly outside this half-plane
    sqrt_disc = math.sqrt(discriminant)
    t_left = -dot - sqrt_disc
    t_right = -dot + sqrt_disc

    for i in range(line_no):
        qx, qy, ex, ey = lines[i]
        denominator = dx * ey - dy * ex
        numerator = ex * (py - qy) - ey * (px - qx)
        if -RVO_EPSILON <= denominator <= RVO_EPSILON:
            if numerator < 0.0:
                return None  # (almost) parallel and on the wrong side
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            if t < t_right:
                t_right = t
        elif t > t_left:
            t_left = t
        if t_left > t_right:
            return None

    if direction_opt:
        if opt_velocity[0] * dx + opt_velocity[1] * dy > 0.0:
            t = t_right
        else:
            t = t_left
    else:
        t = dx * (opt_velocity[0] - px) + dy * (opt_velocity[1] - py)
        if t < t_left:
            t = t_left
        elif t > t_right:
            t = t_right
    return (px + t * dx, py + t * dy)


def linear_program_2d(lines: Sequence[HalfPlane], radius: float, opt_velocity: Vector2,
                      direction_opt: bool = False) -> Tuple[int, Vector2]:
    """Seidel's incremental 2D linear program (RVO2's linearProgram2).

    Returns ``(fail_index, velocity)``. ``fail_index == len(lines)`` means the
    program was feasible and ``velocity`` is optimal; otherwise half-plane
    ``fail_index`` could not be met and ``velocity`` is the optimum of the
    half-planes before it.
    """
    ox, oy = opt_velocity
    if direction_opt:
        result = (ox * radius, oy * radius)
    elif ox * ox + oy * oy > radius * radius:
        norm = math.sqrt(ox * ox + oy * oy)
        result = (ox / norm * radius, oy / norm * radius)
    else:
        result = (ox, oy)

    for i, (px, py, dx, dy) in enumerate(lines):
        if dx * (py - result[1]) - dy * (px - result[0]) > 0.0:
            candidate = linear_program_on_line(lines, i, radius, opt_velocity, direction_opt)
            if candidate is None:
                return i, result
            result = candidate
    return len(lines), result


def linear_program_3d(lines: Sequence[HalfPlane], num_obstacle_lines: int, begin_line: int,
                      radius: float, velocity: Vector2) -> Vector2:
    """Least-violation fallback when the 2D program is infeasible (RVO2's linearProgram3).

    Minimises the largest distance by which any agent half-plane is violated
    (obstacle half-planes stay hard), eq. 7 of the paper. For each violated
    half-plane it solves a 2D program over the bisectors of that half-plane
    with every earlier agent half-plane, optimising in the direction
    perpendicular to it.
    """
    result = velocity
    distance = 0.0
    for i in range(begin_line, len(lines)):
        px, py, dx, dy = lines[i]
        if dx * (py - result[1]) - dy * (px - result[0]) <= distance:
            continue
        projected: List[HalfPlane] = list(lines[:num_obstacle_lines])
        for j in range(num_obstacle_lines, i):
            qx, qy, ex, ey = lines[j]
            determinant = dx * ey - dy * ex
            if -RVO_EPSILON <= determinant <= RVO_EPSILON:
                if dx * ex + dy * ey > 0.0:
                    continue  # same direction: line j cannot matter
                point = (0.5 * (px + qx), 0.5 * (py + qy))
            else:
                s = (ex * (py - qy) - ey * (px - qx)) / determinant
                point = (px + s * dx, py + s * dy)
            bx, by = ex - dx, ey - dy
            norm = math.sqrt(bx * bx + by * by)
            projected.append(HalfPlane(point[0], point[1], bx / norm, by / norm))

        previous = result
        fail, candidate = linear_program_2d(projected, radius, (-dy, dx), direction_opt=True)
        # By construction the previous result is feasible here; a failure can
        # only come from rounding, and then the previous result is kept.
        result = candidate if fail == len(projected) else previous
        distance = dx * (py - result[1]) - dy * (px - result[0])
    return result


def select_agent_neighbors(agent: AgentState,
                           neighbors: Sequence[NeighborState]) -> List[NeighborState]:
    """Neighbours strictly inside ``neighbor_dist``, nearest ``max_neighbors``, nearest first."""
    if agent.max_neighbors <= 0:
        return []
    px, py = agent.position
    range_sq = agent.neighbor_dist * agent.neighbor_dist
    in_range = []
    for index, other in enumerate(neighbors):
        ox, oy = other.position
        dist_sq = (ox - px) * (ox - px) + (oy - py) * (oy - py)
        if dist_sq < range_sq:
            in_range.append((dist_sq, index, other))
    in_range.sort()  # by distance, then by index: indices are unique
    return [other for _, _, other in in_range[:agent.max_neighbors]]


def select_obstacle_neighbors(agent: AgentState,
                              edges: Sequence[ObstacleVertex]) -> List[ObstacleVertex]:
    """Obstacle edges the agent sees within reach of ``time_horizon_obst``, nearest first.

    The reach is ``time_horizon_obst * max_speed + radius`` (RVO2's
    ``computeObstacleNeighbors``).
    """
    return select_visible_edges(agent.position,
                                agent.time_horizon_obst * agent.max_speed + agent.radius, edges)


def select_visible_edges(position: Vector2, reach: float,
                         edges: Sequence[ObstacleVertex]) -> List[ObstacleVertex]:
    """Edges closer than ``reach`` whose outer (right-hand) side faces ``position``,
    nearest first (ties in list order); every edge is looked at."""
    range_sq = reach * reach
    px, py = position
    visible = []
    for index, edge in enumerate(edges):
        ax, ay = edge.point
        bx, by = edge.next.point
        agent_left_of_line = (ax - px) * (by - ay) - (ay - py) * (bx - ax)
        if agent_left_of_line >= 0.0:
            continue
        dist_sq = dist_sq_point_segment(edge.point, edge.next.point, position)
        if dist_sq < range_sq:
            visible.append((dist_sq, index, edge))
    visible.sort()
    return [edge for _, _, edge in visible]


def is_already_covered(lines: Sequence[HalfPlane], rel1: Vector2, rel2: Vector2,
                       inv_time_horizon_obst: float, radius: float) -> bool:
    """True when an earlier obstacle half-plane already excludes this edge's velocity obstacle.

    Both cut-off centres, pushed out by the scaled radius, must lie on the
    forbidden side of one earlier line.
    """
    scaled_radius = inv_time_horizon_obst * radius
    c1x, c1y = inv_time_horizon_obst * rel1[0], inv_time_horizon_obst * rel1[1]
    c2x, c2y = inv_time_horizon_obst * rel2[0], inv_time_horizon_obst * rel2[1]
    for px, py, dx, dy in lines:
        if ((c1x - px) * dy - (c1y - py) * dx - scaled_radius >= -RVO_EPSILON
                and (c2x - px) * dy - (c2y - py) * dx - scaled_radius >= -RVO_EPSILON):
            return True
    return False


def _normalize(x: float, y: float) -> Vector2:
    return unit2(x, y) or (1.0, 0.0)


def _left_leg(rel: Vector2, dist_sq: float, radius: float) -> Vector2:
    leg = math.sqrt(dist_sq - radius * radius)
    return ((rel[0] * leg - rel[1] * radius) / dist_sq,
            (rel[0] * radius + rel[1] * leg) / dist_sq)


def _right_leg(rel: Vector2, dist_sq: float, radius: float) -> Vector2:
    leg = math.sqrt(dist_sq - radius * radius)
    return ((rel[0] * leg + rel[1] * radius) / dist_sq,
            (-rel[0] * radius + rel[1] * leg) / dist_sq)


def obstacle_orca_half_plane(position: Vector2, velocity: Vector2, radius: float,
                             edge: ObstacleVertex, inv_time_horizon_obst: float,
                             lines: Sequence[HalfPlane]) -> Optional[HalfPlane]:
    """The ORCA half-plane of a static obstacle edge (paper §6, RVO2's obstacle loop).

    Obstacles do not reciprocate, so the whole velocity obstacle (truncated at
    ``time_horizon_obst``) is avoided: the current velocity is projected onto
    the nearest part of its boundary (a cut-off circle, a leg, or the cut-off
    line). Returns ``None`` when the edge adds no constraint (already covered,
    seen from behind a non-convex vertex, or projected onto a foreign leg).
    """
    obstacle1 = edge
    obstacle2 = edge.next
    rel1 = (obstacle1.point[0] - position[0], obstacle1.point[1] - position[1])
    rel2 = (obstacle2.point[0] - position[0], obstacle2.point[1] - position[1])

    if is_already_covered(lines, rel1, rel2, inv_time_horizon_obst, radius):
        return None

    dist_sq1 = rel1[0] * rel1[0] + rel1[1] * rel1[1]
    dist_sq2 = rel2[0] * rel2[0] + rel2[1] * rel2[1]
    radius_sq = radius * radius
    ovx = obstacle2.point[0] - obstacle1.point[0]
    ovy = obstacle2.point[1] - obstacle1.point[1]
    s = (-rel1[0] * ovx - rel1[1] * ovy) / (ovx * ovx + ovy * ovy)
    lx, ly = -rel1[0] - s * ovx, -rel1[1] - s * ovy
    dist_sq_line = lx * lx + ly * ly

    # Already colliding: push straight away from the vertex or the edge.
    if s < 0.0 and dist_sq1 <= radius_sq:
        if obstacle1.is_convex:
            d = _normalize(-rel1[1], rel1[0])
            return HalfPlane(0.0, 0.0, d[0], d[1])
        return None
    if s > 1.0 and dist_sq2 <= radius_sq:
        if obstacle2.is_convex and \
                rel2[0] * obstacle2.unit_dir[1] - rel2[1] * obstacle2.unit_dir[0] >= 0.0:
            d = _normalize(-rel2[1], rel2[0])
            return HalfPlane(0.0, 0.0, d[0], d[1])
        return None
    if 0.0 <= s <= 1.0 and dist_sq_line <= radius_sq:
        return HalfPlane(0.0, 0.0, -obstacle1.unit_dir[0], -obstacle1.unit_dir[1])

    # No collision: the legs of the velocity obstacle. Seen obliquely, both
    # legs come from one vertex; at a non-convex vertex a leg extends the edge.
    if s < 0.0 and dist_sq_line <= radius_sq:
        if not obstacle1.is_convex:
            return None
        obstacle2 = obstacle1
        left_leg = _left_leg(rel1, dist_sq1, radius)
        right_leg = _right_leg(rel1, dist_sq1, radius)
    elif s > 1.0 and dist_sq_line <= radius_sq:
        if not obstacle2.is_convex:
            return None
        obstacle1 = obstacle2
        left_leg = _left_leg(rel2, dist_sq2, radius)
        right_leg = _right_leg(rel2, dist_sq2, radius)
    else:
        if obstacle1.is_convex:
            left_leg = _left_leg(rel1, dist_sq1, radius)
        else:
            left_leg = (-obstacle1.unit_dir[0], -obstacle1.unit_dir[1])
        if obstacle2.is_convex:
            right_leg = _right_leg(rel2, dist_sq2, radius)
        else:
            right_leg = obstacle1.unit_dir

    # A leg may not point into the neighbouring edge at a convex vertex; then
    # that edge's cut-off line is used instead and the leg is "foreign".
    left_neighbor_dir = obstacle1.prev.unit_dir
    is_left_leg_foreign = False
    is_right_leg_foreign = False
    if obstacle1.is_convex and \
            left_leg[0] * -left_neighbor_dir[1] - left_leg[1] * -left_neighbor_dir[0] >= 0.0:
        left_leg = (-left_neighbor_dir[0], -left_neighbor_dir[1])
        is_left_leg_foreign = True
    if obstacle2.is_convex and \
            right_leg[0] * obstacle2.unit_dir[1] - right_leg[1] * obstacle2.unit_dir[0] <= 0.0:
        right_leg = obstacle2.unit_dir
        is_right_leg_foreign = True

    # Cut-off centres: the vertices scaled by 1/time_horizon_obst.
    left_cutoff = (inv_time_horizon_obst * (obstacle1.point[0] - position[0]),
                   inv_time_horizon_obst * (obstacle1.point[1] - position[1]))
    right_cutoff = (inv_time_horizon_obst * (obstacle2.point[0] - position[0]),
                    inv_time_horizon_obst * (obstacle2.point[1] - position[1]))
    cutoff_vec = (right_cutoff[0] - left_cutoff[0], right_cutoff[1] - left_cutoff[1])
    same_vertex = obstacle1 is obstacle2

    vlx, vly = velocity[0] - left_cutoff[0], velocity[1] - left_cutoff[1]
    vrx, vry = velocity[0] - right_cutoff[0], velocity[1] - right_cutoff[1]
    if same_vertex:
        t = 0.5
    else:
        t = (vlx * cutoff_vec[0] + vly * cutoff_vec[1]) / \
            (cutoff_vec[0] * cutoff_vec[0] + cutoff_vec[1] * cutoff_vec[1])
    t_left = vlx * left_leg[0] + vly * left_leg[1]
    t_right = vrx * right_leg[0] + vry * right_leg[1]
    scaled_radius = radius * inv_time_horizon_obst

    if (t < 0.0 and t_left < 0.0) or (same_vertex and t_left < 0.0 and t_right < 0.0):
        unit_w = _normalize(vlx, vly)  # project on the left cut-off circle
        return HalfPlane(left_cutoff[0] + scaled_radius * unit_w[0],
                         left_cutoff[1] + scaled_radius * unit_w[1], unit_w[1], -unit_w[0])
    if t > 1.0 and t_right < 0.0:
        unit_w = _normalize(vrx, vry)  # project on the right cut-off circle
        return HalfPlane(right_cutoff[0] + scaled_radius * unit_w[0],
                         right_cutoff[1] + scaled_radius * unit_w[1], unit_w[1], -unit_w[0])

    # Project on the left leg, the right leg, or the cut-off line, whichever is closest.
    if t < 0.0 or t > 1.0 or same_vertex:
        dist_sq_cutoff = math.inf
    else:
        ex = velocity[0] - (left_cutoff[0] + t * cutoff_vec[0])
        ey = velocity[1] - (left_cutoff[1] + t * cutoff_vec[1])
        dist_sq_cutoff = ex * ex + ey * ey
    if t_left < 0.0:
        dist_sq_left = math.inf
    else:
        ex = velocity[0] - (left_cutoff[0] + t_left * left_leg[0])
        ey = velocity[1] - (left_cutoff[1] + t_left * left_leg[1])
        dist_sq_left = ex * ex + ey * ey
    if t_right < 0.0:
        dist_sq_right = math.inf
    else:
        ex = velocity[0] - (right_cutoff[0] + t_right * right_leg[0])
        ey = velocity[1] - (right_cutoff[1] + t_right * right_leg[1])
        dist_sq_right = ex * ex + ey * ey

    if dist_sq_cutoff <= dist_sq_left and dist_sq_cutoff <= dist_sq_right:
        dx, dy = -obstacle1.unit_dir[0], -obstacle1.unit_dir[1]
        return HalfPlane(left_cutoff[0] - scaled_radius * dy, left_cutoff[1] + scaled_radius * dx,
                         dx, dy)
    if dist_sq_left <= dist_sq_right:
        if is_left_leg_foreign:
            return None
        dx, dy = left_leg
        return HalfPlane(left_cutoff[0] - scaled_radius * dy, left_cutoff[1] + scaled_radius * dx,
                         dx, dy)
    if is_right_leg_foreign:
        return None
    dx, dy = -right_leg[0], -right_leg[1]
    return HalfPlane(right_cutoff[0] - scaled_radius * dy, right_cutoff[1] + scaled_radius * dx,
                     dx, dy)


def agent_orca_half_plane(velocity: Vector2, other_position_rel: Vector2,
                          other_velocity: Vector2, combined_radius: float,
                          inv_time_horizon: float, inv_time_step: float,
                          responsibility: float = 0.5) -> HalfPlane:
    """The reciprocal half-plane ``ORCA_A|B`` against one neighbour (paper eq. 3-4).

    ``u`` is the smallest change of the relative velocity that leaves the
    truncated velocity obstacle ``VO^tau_A|B``; each agent takes half of it,
    so the half-plane passes through ``v_A + u/2`` with normal ``n``
    (the direction of ``u``). When the discs already overlap, the velocity
    obstacle is truncated at one time step instead, so the pair separates
    within that step. ``responsibility`` is the share of ``u`` this agent
    takes: 1/2 against an agent that reciprocates, 1 against one that does
    not (the paper's section 4 remark on non-reciprocating agents).
    """
    rpx, rpy = other_position_rel
    rvx = velocity[0] - other_velocity[0]
    rvy = velocity[1] - other_velocity[1]
    dist_sq = rpx * rpx + rpy * rpy
    combined_radius_sq = combined_radius * combined_radius

    if dist_sq > combined_radius_sq:
        wx = rvx - inv_time_horizon * rpx  # from the cut-off centre to the relative velocity
        wy = rvy - inv_time_horizon * rpy
        w_length_sq = wx * wx + wy * wy
        dot1 = wx * rpx + wy * rpy
        if dot1 < 0.0 and dot1 * dot1 > combined_radius_sq * w_length_sq:
            # Project on the cut-off circle.
            w_length = hypot(wx, wy)
            ux_unit, uy_unit = unit2(wx, wy)
            dx, dy = uy_unit, -ux_unit
            scale = combined_radius * inv_time_horizon - w_length
            ux, uy = scale * ux_unit, scale * uy_unit
        else:
            # Project on the left or right leg.
            leg = math.sqrt(dist_sq - combined_radius_sq)
            if rpx * wy - rpy * wx > 0.0:
                dx = (rpx * leg - rpy * combined_radius) / dist_sq
                dy = (rpx * combined_radius + rpy * leg) / dist_sq
            else:
                dx = -(rpx * leg + rpy * combined_radius) / dist_sq
                dy = -(-rpx * combined_radius + rpy * leg) / dist_sq
            dot2 = rvx * dx + rvy * dy
            ux, uy = dot2 * dx - rvx, dot2 * dy - rvy
    else:
        # Collision: project on the cut-off circle of one time step.
        wx = rvx - inv_time_step * rpx
        wy = rvy - inv_time_step * rpy
        w_length = hypot(wx, wy)
        # Coincident centres moving alike (w = 0): no direction to separate in.
        # RVO2 divides by zero here; take a fixed direction instead.
        ux_unit, uy_unit = unit2(wx, wy) or (1.0, 0.0)
        dx, dy = uy_unit, -ux_unit
        scale = combined_radius * inv_time_step - w_length
        ux, uy = scale * ux_unit, scale * uy_unit

    return HalfPlane(velocity[0] + responsibility * ux, velocity[1] + responsibility * uy,
                     dx, dy)


def solve_orca(position: Vector2, velocity: Vector2, radius: float, max_speed: float,
               pref_velocity: Vector2, time_horizon: float, time_horizon_obst: float,
               time_step: float, neighbors: Sequence[Tuple[float, float, float, float, float]],
               obstacle_edges: Sequence[ObstacleVertex],
               hard_half_planes: Sequence[HalfPlane] = (),
               agent_half_planes: Optional[Sequence[HalfPlane]] = None,
               yielding_half_planes: Sequence[HalfPlane] = ()) -> OrcaResult:
    """ORCA on preselected input: the core of :func:`compute_new_velocity`.

    ``neighbors`` are ``(x, y, vx, vy, radius)`` tuples, nearest first, with
    an optional sixth element, the share of ``u`` to take (default 1/2);
    ``obstacle_edges`` are the visible edges, nearest first (see the
    ``select_*`` functions). ``radius`` already includes any margin.
    ``hard_half_planes`` (for example a robot's kinematic limits, see
    :mod:`orca_ros.core.models.bodies`) are kept hard like obstacle half-planes: the
    3D fallback never trades them away. ``agent_half_planes``, when given, are
    the neighbours' half-planes already built (by
    :func:`agent_orca_half_planes_batch`), and ``neighbors`` is ignored.
    ``yielding_half_planes`` rank between the two: kept hard while the hard ones
    allow them, else relaxed in the 3D fallback together with the neighbours'
    (a tether must not pull a robot into contact).
    """
    lines: List[HalfPlane] = []
    inv_time_horizon_obst = 1.0 / time_horizon_obst
    for edge in obstacle_edges:
        line = obstacle_orca_half_plane(position, velocity, radius, edge,
                                        inv_time_horizon_obst, lines)
        if line is not None:
            lines.append(line)
    num_obstacle_lines = len(lines)
    lines.extend(hard_half_planes)
    num_hard_lines = len(lines)
    lines.extend(yielding_half_planes)
    num_kept_lines = len(lines)  # what the fallback keeps when these agree

    if agent_half_planes is not None:
        lines.extend(agent_half_planes)
    else:
        inv_time_horizon = 1.0 / time_horizon
        inv_time_step = 1.0 / time_step
        px, py = position
        for neighbor in neighbors:
            ox, oy, ovx, ovy, other_radius = neighbor[:5]
            lines.append(agent_orca_half_plane(velocity, (ox - px, oy - py), (ovx, ovy),
                                               radius + other_radius, inv_time_horizon,
                                               inv_time_step,
                                               neighbor[5] if len(neighbor) > 5 else 0.5))

    fail, new_velocity = linear_program_2d(lines, max_speed, pref_velocity)
    used_fallback = fail < len(lines)
    if used_fallback:
        if num_obstacle_lines <= fail < num_hard_lines:
            # The hard half-planes contradict each other (an agent squeezed
            # from two sides, or rounding at contact): violate them least,
            # keeping obstacle half-planes, and let the agent ones go.
            new_velocity = linear_program_3d(lines[:num_hard_lines], num_obstacle_lines, fail,
                                             max_speed, new_velocity)
        else:
            kept = num_kept_lines if fail >= num_kept_lines else num_hard_lines
            new_velocity = linear_program_3d(lines, kept, fail, max_speed, new_velocity)
    return OrcaResult(new_velocity, tuple(lines), num_obstacle_lines, used_fallback)


def compute_new_velocity(agent: AgentState, neighbors: Sequence[NeighborState],
                         obstacle_edges: Sequence[ObstacleVertex], time_step: float,
                         options: OrcaOptions = STRICT_RVO2) -> OrcaResult:
    """ORCA's new velocity for ``agent`` (RVO2's ``Agent::computeNewVelocity``).

    ``neighbors`` may hold any agents; those within ``neighbor_dist`` count,
    nearest ``max_neighbors`` first. ``obstacle_edges`` come from
    :func:`~orca_ros.core.geometry.obstacles.build_obstacle_edges`. ``time_step`` is only
    used when two discs already overlap.
    """
    if not (time_step > 0.0 and math.isfinite(time_step)):
        raise ValueError(f"time_step must be positive and finite, got {time_step}")
    margin = options.safety_margin
    selected = [(n.position[0], n.position[1], n.velocity[0], n.velocity[1], n.radius + margin)
                for n in select_agent_neighbors(agent, neighbors)]
    return solve_orca(agent.position, agent.velocity, agent.radius + margin, agent.max_speed,
                      agent.pref_velocity, agent.time_horizon, agent.time_horizon_obst,
                      time_step, selected, select_obstacle_neighbors(agent, obstacle_edges))


def agent_orca_half_planes_batch(velocity, other_position_rel, other_velocity, combined_radius,
                                 inv_time_horizon, inv_time_step):
    """The former numpy batch of :func:`agent_orca_half_plane` (the C code's
    ``agent_orca_half_plane_rows`` replaced it), for many agent-neighbour pairs at once.

    Shapes: ``velocity`` (N, 2); ``other_position_rel``, ``other_velocity``
    (N, K, 2); ``combined_radius`` (N, K); ``inv_time_horizon`` (N,). Returns
    (N, K, 4) rows ``(point_x, point_y, direction_x, direction_y)``, the same
    numbers as the scalar function (same formulas, same order of operations).
    """
    import numpy as np

    v = np.asarray(velocity, dtype=float)[:, None, :]
    rp = np.asarray(other_position_rel, dtype=float)
    rv = v - np.asarray(other_velocity, dtype=float)
    R = np.asarray(combined_radius, dtype=float)
    tau = np.asarray(inv_time_horizon, dtype=float)[:, None]
    rpx, rpy, rvx, rvy = rp[..., 0], rp[..., 1], rv[..., 0], rv[..., 1]
    dist_sq = rpx * rpx + rpy * rpy
    R_sq = R * R
    apart = dist_sq > R_sq

    with np.errstate(invalid="ignore", divide="ignore"):
        # No collision: cut-off circle or legs.
        wx, wy = rvx - tau * rpx, rvy - tau * rpy
        w_len_sq = wx * wx + wy * wy
        dot1 = wx * rpx + wy * rpy
        circle = apart & (dot1 < 0.0) & (dot1 * dot1 > R_sq * w_len_sq)
        w_len = np.hypot(wx, wy)
        uwx, uwy = unit2_arrays(wx, wy)
        scale = R * tau - w_len
        leg = np.sqrt(np.where(apart, dist_sq - R_sq, 0.0))
        left = rpx * wy - rpy * wx > 0.0
        ldx = np.where(left, (rpx * leg - rpy * R) / dist_sq, -(rpx * leg + rpy * R) / dist_sq)
        ldy = np.where(left, (rpx * R + rpy * leg) / dist_sq, -(-rpx * R + rpy * leg) / dist_sq)
        dot2 = rvx * ldx + rvy * ldy
        # Collision: cut-off circle of one time step.
        cwx, cwy = rvx - inv_time_step * rpx, rvy - inv_time_step * rpy
        c_len = np.hypot(cwx, cwy)
        cux, cuy = unit2_arrays(cwx, cwy)
        c_scale = R * inv_time_step - c_len

    dx = np.where(apart, np.where(circle, uwy, ldx), cuy)
    dy = np.where(apart, np.where(circle, -uwx, ldy), -cux)
    ux = np.where(apart, np.where(circle, scale * uwx, dot2 * ldx - rvx), c_scale * cux)
    uy = np.where(apart, np.where(circle, scale * uwy, dot2 * ldy - rvy), c_scale * cuy)
    return np.stack((v[..., 0] + 0.5 * ux, v[..., 1] + 0.5 * uy, dx, dy), axis=-1)
