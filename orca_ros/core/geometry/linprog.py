"""The small linear programs that pick ORCA's velocity (van den Berg et al. 2011, §5.2).

The feasible set is the intersection of half-planes ``ORCA_A|B`` with the disc
of radius ``max_speed``. :func:`linear_program_2d` finds the velocity closest to
the preferred one with Seidel's incremental algorithm (expected O(n) for n
half-planes). When the half-planes leave nothing, :func:`linear_program_3d`
finds the velocity that violates the agent half-planes least while keeping
obstacle half-planes hard (the paper's eq. 7 fallback, "3D" because the
violation distance is the third variable).

These follow RVO2's ``linearProgram1/2/3`` step for step, in float64.
"""

from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from .types import Vector2

RVO_EPSILON = 1e-5
"""Parallel-line threshold for determinants, as in RVO2."""


class HalfPlane(NamedTuple):
    """An ORCA half-plane: the velocities to the left of the directed line.

    ``direction`` is a unit vector; the permitted side is to its left.
    """

    point_x: float
    point_y: float
    direction_x: float
    direction_y: float


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
