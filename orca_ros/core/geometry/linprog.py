"""The small linear programs that pick ORCA's velocity (van den Berg et al. 2011, §5.2).

The feasible set is the intersection of half-planes ``ORCA_A|B`` with the disc
of radius ``max_speed``. :func:`linear_program_2d` finds the velocity closest to
the preferred one with Seidel's incremental algorithm (expected O(n) for n
half-planes). When the half-planes leave nothing, :func:`linear_program_3d`
finds the velocity that violates the agent half-planes least while keeping
obstacle half-planes hard (the paper's eq. 7 fallback, "3D" because the
violation distance is the third variable).

The work is done in C, in ``orca_ros/core/orca/_orca2d.c`` (``lp_on_line``, ``lp_2d``,
``lp_3d``: RVO2's ``linearProgram1/2/3`` step for step, in float64); the functions here
are its Python face. ``test/helpers/orca_reference.py`` keeps the former pure-Python
version, which the tests hold the C one to.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence, Tuple

from ..orca import _orca2d
from .types import Vector2

RVO_EPSILON = _orca2d.RVO_EPSILON
"""Parallel-line threshold for determinants, as in RVO2 (1e-5)."""


class HalfPlane(NamedTuple):
    """An ORCA half-plane: the velocities to the left of the directed line.

    ``direction`` is a unit vector; the permitted side is to its left.
    """

    point_x: float
    point_y: float
    direction_x: float
    direction_y: float


# The C code returns its half-planes as instances of this class.
_orca2d.set_half_plane_type(HalfPlane)


def linear_program_2d(lines: Sequence[HalfPlane], radius: float, opt_velocity: Vector2,
                      direction_opt: bool = False) -> Tuple[int, Vector2]:
    """Seidel's incremental 2D linear program (RVO2's linearProgram2).

    Returns ``(fail_index, velocity)``. ``fail_index == len(lines)`` means the
    program was feasible and ``velocity`` is optimal; otherwise half-plane
    ``fail_index`` could not be met and ``velocity`` is the optimum of the
    half-planes before it. Each violated half-plane in turn is optimised on
    along its boundary (RVO2's linearProgram1), clipped to the speed disc and
    the half-planes before it. With ``direction_opt``, ``opt_velocity`` is a
    unit direction and the point furthest along it is sought.

    ``lines`` is any sequence of four numbers each (``HalfPlane`` is a tuple).
    """
    return _orca2d.linear_program_2d(lines, radius, opt_velocity, direction_opt)


def linear_program_3d(lines: Sequence[HalfPlane], num_obstacle_lines: int, begin_line: int,
                      radius: float, velocity: Vector2) -> Vector2:
    """Least-violation fallback when the 2D program is infeasible (RVO2's linearProgram3).

    Minimises the largest distance by which any agent half-plane is violated
    (the first ``num_obstacle_lines`` stay hard), eq. 7 of the paper. For each
    half-plane from ``begin_line`` on that ``velocity`` violates by more than
    the current distance, it solves a 2D program over the bisectors of that
    half-plane with every earlier agent half-plane, optimising in the direction
    perpendicular to it.
    """
    return _orca2d.linear_program_3d(lines, num_obstacle_lines, begin_line, radius, velocity)
