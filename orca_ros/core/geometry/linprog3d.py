"""The small linear programs that pick 3D ORCA's velocity (van den Berg et al. 2011, §5.2).

In 3D the ORCA constraints are half-spaces (:class:`HalfSpace`), bounded by
planes, and the velocity must also lie in the ball of radius ``max_speed``.
:func:`linear_program_3d_in_sphere` finds the velocity in their intersection
closest to the preferred one, with Seidel's incremental algorithm: when the
current optimum violates a half-space, the optimum moves onto its plane
(:func:`linear_program_3d_on_plane`, a 2D program there), and on a plane, when
it violates an earlier half-space, onto the line where the two planes meet
(:func:`linear_program_3d_on_line`, a 1D program). When the half-spaces leave
nothing, :func:`linear_program_3d_least_violation` finds the velocity that
violates them least (the paper's eq. 7 fallback, a 4D program: the violation
distance is the fourth variable).

These follow RVO2-3D's ``linearProgram1`` to ``linearProgram4`` (``src/Agent.cc``)
step for step, in float64. One addition, off by default: the first
``num_hard`` half-spaces can be kept hard in the fallback (as RVO2's 2D
``linearProgram3`` keeps obstacle lines), for the safety half-spaces of
:mod:`orca_ros.core.orca.orca3d`; with ``num_hard=0`` it is RVO2-3D's.

Everything is plain Python floats and tuples; reusable by any method that
optimises a velocity under half-space constraints.
"""

from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from .types import Vector3

RVO3D_EPSILON = 1e-5
"""Parallel threshold for squared sines and squared lengths, as RVO2-3D's ``RVO3D_EPSILON``."""


class HalfSpace(NamedTuple):
    """An ORCA half-space: the velocities ``v`` with ``normal . (v - point) >= 0``.

    ``normal`` is a unit vector pointing into the permitted side; ``point``
    lies on the bounding plane (RVO2-3D's ``Plane``).
    """

    point: Vector3
    normal: Vector3

    def violation(self, velocity: Vector3) -> float:
        """How far ``velocity`` lies outside (positive) or inside (negative) the half-space."""
        (px, py, pz), (nx, ny, nz) = self.point, self.normal
        return nx * (px - velocity[0]) + ny * (py - velocity[1]) + nz * (pz - velocity[2])


def _unit(x: float, y: float, z: float) -> Vector3:
    norm = math.sqrt(x * x + y * y + z * z)
    return (x / norm, y / norm, z / norm)


def linear_program_3d_on_line(half_spaces: Sequence[HalfSpace], plane_no: int,
                              line_point: Vector3, line_direction: Vector3, radius: float,
                              opt_velocity: Vector3, direction_opt: bool) -> Optional[Vector3]:
    """Optimise on a line (RVO2-3D's ``linearProgram1``).

    Clips the line ``line_point + t * line_direction`` (unit direction) to the
    speed ball and to the half-spaces before ``plane_no``, then returns the
    point of the remaining interval nearest to ``opt_velocity`` (or furthest
    along it, with ``direction_opt``), or ``None`` when the interval is empty.
    """
    px, py, pz = line_point
    dx, dy, dz = line_direction
    dot = px * dx + py * dy + pz * dz
    discriminant = dot * dot + radius * radius - (px * px + py * py + pz * pz)
    if discriminant < 0.0:
        return None  # the speed ball lies wholly off this line
    sqrt_disc = math.sqrt(discriminant)
    t_left = -dot - sqrt_disc
    t_right = -dot + sqrt_disc

    for i in range(plane_no):
        (qx, qy, qz), (nx, ny, nz) = half_spaces[i]
        numerator = (qx - px) * nx + (qy - py) * ny + (qz - pz) * nz
        denominator = dx * nx + dy * ny + dz * nz
        if denominator * denominator <= RVO3D_EPSILON:
            if numerator > 0.0:
                return None  # (almost) parallel to plane i and outside it
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            if t > t_left:
                t_left = t  # half-space i bounds the line on the left
        elif t < t_right:
            t_right = t  # ... or on the right
        if t_left > t_right:
            return None

    ox, oy, oz = opt_velocity
    if direction_opt:
        t = t_right if ox * dx + oy * dy + oz * dz > 0.0 else t_left
    else:
        t = dx * (ox - px) + dy * (oy - py) + dz * (oz - pz)
        if t < t_left:
            t = t_left
        elif t > t_right:
            t = t_right
    return (px + t * dx, py + t * dy, pz + t * dz)


def linear_program_3d_on_plane(half_spaces: Sequence[HalfSpace], plane_no: int, radius: float,
                               opt_velocity: Vector3, direction_opt: bool) -> Optional[Vector3]:
    """Optimise on the plane of half-space ``plane_no`` (RVO2-3D's ``linearProgram2``).

    The plane cuts the speed ball in a disc. The optimum on that disc (the
    projection of ``opt_velocity``, or with ``direction_opt`` the disc's point
    furthest along it) is moved, for each earlier half-space it violates, onto
    the line where the two planes meet (:func:`linear_program_3d_on_line`).
    Returns ``None`` when the plane misses the ball or no point of the disc
    meets the earlier half-spaces.
    """
    (px, py, pz), (nx, ny, nz) = half_spaces[plane_no]
    plane_dist = px * nx + py * ny + pz * nz
    plane_dist_sq = plane_dist * plane_dist
    radius_sq = radius * radius
    if plane_dist_sq > radius_sq:
        return None  # the speed ball lies wholly outside this half-space's plane
    plane_radius_sq = radius_sq - plane_dist_sq
    cx, cy, cz = plane_dist * nx, plane_dist * ny, plane_dist * nz  # the disc's centre

    ox, oy, oz = opt_velocity
    if direction_opt:
        along = ox * nx + oy * ny + oz * nz
        qx, qy, qz = ox - along * nx, oy - along * ny, oz - along * nz
        length_sq = qx * qx + qy * qy + qz * qz
        if length_sq <= RVO3D_EPSILON:
            result = (cx, cy, cz)
        else:
            scale = math.sqrt(plane_radius_sq / length_sq)
            result = (cx + scale * qx, cy + scale * qy, cz + scale * qz)
    else:
        # Project opt_velocity on the plane; outside the disc, onto its rim.
        offset = (px - ox) * nx + (py - oy) * ny + (pz - oz) * nz
        rx, ry, rz = ox + offset * nx, oy + offset * ny, oz + offset * nz
        if rx * rx + ry * ry + rz * rz > radius_sq:
            qx, qy, qz = rx - cx, ry - cy, rz - cz
            scale = math.sqrt(plane_radius_sq / (qx * qx + qy * qy + qz * qz))
            rx, ry, rz = cx + scale * qx, cy + scale * qy, cz + scale * qz
        result = (rx, ry, rz)

    for i in range(plane_no):
        (qx, qy, qz), (mx, my, mz) = half_spaces[i]
        rx, ry, rz = result
        if mx * (qx - rx) + my * (qy - ry) + mz * (qz - rz) <= 0.0:
            continue
        # The result violates half-space i: optimise on the line where planes i and
        # plane_no meet, direction m x n.
        kx, ky, kz = my * nz - mz * ny, mz * nx - mx * nz, mx * ny - my * nx
        if kx * kx + ky * ky + kz * kz <= RVO3D_EPSILON:
            return None  # (almost) parallel: half-space i excludes the whole plane
        dx, dy, dz = _unit(kx, ky, kz)
        # In the plane, normal to the line: line_normal = direction x n.
        lx, ly, lz = dy * nz - dz * ny, dz * nx - dx * nz, dx * ny - dy * nx
        step = ((qx - px) * mx + (qy - py) * my + (qz - pz) * mz) / (lx * mx + ly * my + lz * mz)
        line_point = (px + step * lx, py + step * ly, pz + step * lz)
        on_line = linear_program_3d_on_line(half_spaces, i, line_point, (dx, dy, dz), radius,
                                            opt_velocity, direction_opt)
        if on_line is None:
            return None
        result = on_line
    return result


def linear_program_3d_in_sphere(half_spaces: Sequence[HalfSpace], radius: float,
                                opt_velocity: Vector3, direction_opt: bool = False
                                ) -> Tuple[int, Vector3]:
    """Seidel's incremental 3D linear program (RVO2-3D's ``linearProgram3``).

    Returns ``(fail_index, velocity)``. ``fail_index == len(half_spaces)``
    means the program was feasible and ``velocity`` is the point of the ball
    of radius ``radius`` within every half-space nearest ``opt_velocity``
    (with ``direction_opt``: furthest along the unit vector ``opt_velocity``);
    otherwise half-space ``fail_index`` could not be met and ``velocity`` is
    the optimum of the half-spaces before it.
    """
    ox, oy, oz = opt_velocity
    if direction_opt:
        result = (ox * radius, oy * radius, oz * radius)
    elif ox * ox + oy * oy + oz * oz > radius * radius:
        ux, uy, uz = _unit(ox, oy, oz)
        result = (ux * radius, uy * radius, uz * radius)
    else:
        result = (ox, oy, oz)

    for i, ((px, py, pz), (nx, ny, nz)) in enumerate(half_spaces):
        if nx * (px - result[0]) + ny * (py - result[1]) + nz * (pz - result[2]) > 0.0:
            candidate = linear_program_3d_on_plane(half_spaces, i, radius, opt_velocity,
                                                   direction_opt)
            if candidate is None:
                return i, result
            result = candidate
    return len(half_spaces), result


def linear_program_3d_least_violation(half_spaces: Sequence[HalfSpace], begin: int,
                                      radius: float, velocity: Vector3,
                                      num_hard: int = 0) -> Vector3:
    """Least-violation fallback when the 3D program is infeasible (RVO2-3D's
    ``linearProgram4``).

    Minimises the largest distance by which a half-space is violated (eq. 7
    of the paper). For each half-space from ``begin`` on that ``velocity``
    violates by more than the distance reached so far, it solves a 3D
    program over the bisecting half-spaces of it and every earlier one,
    optimising along its normal (:func:`linear_program_3d_in_sphere` with
    ``direction_opt``). ``num_hard``: the first half-spaces are kept as they
    are rather than traded (0 in RVO2-3D); ``begin`` must not be below it.
    """
    result = velocity
    distance = 0.0
    for i in range(begin, len(half_spaces)):
        (px, py, pz), (nx, ny, nz) = half_spaces[i]
        if nx * (px - result[0]) + ny * (py - result[1]) + nz * (pz - result[2]) <= distance:
            continue
        projected: List[HalfSpace] = list(half_spaces[:num_hard])
        for j in range(num_hard, i):
            (qx, qy, qz), (mx, my, mz) = half_spaces[j]
            kx, ky, kz = my * nz - mz * ny, mz * nx - mx * nz, mx * ny - my * nx  # m x n
            if kx * kx + ky * ky + kz * kz <= RVO3D_EPSILON:
                if nx * mx + ny * my + nz * mz > 0.0:
                    continue  # (almost) parallel and alike: j cannot matter
                point = (0.5 * (px + qx), 0.5 * (py + qy), 0.5 * (pz + qz))
            else:
                # A point on the line where planes i and j meet: line_normal = (m x n) x n.
                lx, ly, lz = ky * nz - kz * ny, kz * nx - kx * nz, kx * ny - ky * nx
                step = ((qx - px) * mx + (qy - py) * my + (qz - pz) * mz) / \
                    (lx * mx + ly * my + lz * mz)
                point = (px + step * lx, py + step * ly, pz + step * lz)
            projected.append(HalfSpace(point, _unit(mx - nx, my - ny, mz - nz)))

        previous = result
        fail, candidate = linear_program_3d_in_sphere(projected, radius, (nx, ny, nz),
                                                      direction_opt=True)
        # The previous result is feasible here by construction; a failure can only
        # come from rounding, and then the previous result is kept.
        result = candidate if fail == len(projected) else previous
        distance = nx * (px - result[0]) + ny * (py - result[1]) + nz * (pz - result[2])
    return result


def solve_half_spaces(half_spaces: Sequence[HalfSpace], max_speed: float,
                      pref_velocity: Vector3, num_hard: int = 0) -> Tuple[Vector3, bool]:
    """The velocity within ``max_speed`` and every half-space nearest ``pref_velocity``,
    or, when there is none, the least violation of them (the first ``num_hard``
    kept hard while they agree among themselves). Returns ``(velocity, used_fallback)``.

    RVO2-3D's two calls at the end of ``computeNewVelocity`` (with ``num_hard=0``).
    """
    fail, velocity = linear_program_3d_in_sphere(half_spaces, max_speed, pref_velocity)
    if fail == len(half_spaces):
        return velocity, False
    if fail < num_hard:
        # The hard half-spaces contradict each other (squeezed from two sides, or
        # rounding at contact): violate them least and let the others go.
        return linear_program_3d_least_violation(half_spaces[:num_hard], fail, max_speed,
                                                 velocity), True
    return linear_program_3d_least_violation(half_spaces, fail, max_speed, velocity,
                                             num_hard), True
