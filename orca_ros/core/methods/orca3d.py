"""ORCA's 3D version, for aerial robots: ``orca`` and ``orca_strict`` in 3D scenarios.

The geometry and the linear programs are :mod:`orca_ros.core.orca.orca3d` and
:mod:`orca_ros.core.geometry.linprog3d` (RVO2-3D's ``Agent::computeNewVelocity`` step
by step); this module only adapts them to
:class:`~orca_ros.core.methods.base3d.AvoidanceMethod3D`. The view's hard
half-spaces (the one-step safety ones, for ``orca``) go into the program
first and the least-violation fallback keeps them while they agree. In 3D
``orca`` and ``orca_strict`` differ only in what the controller adds
(:class:`~orca_ros.core.robot.aerial.AerialController`): the planning margin,
the safety half-spaces and keep-right for ``orca``, nothing for ``orca_strict``
(RVO2-3D exactly).
"""

from __future__ import annotations

from ..orca.orca3d import solve_orca_3d
from .base3d import AvoidanceMethod3D, MethodOutput3D, RobotView3D


class Orca3D(AvoidanceMethod3D):
    """3D ORCA: the velocity nearest the preferred one in the intersection of the ORCA
    half-spaces and the speed ball, or the least violation (eq. 7). Its parameters are
    the 2D method's (:class:`~orca_ros.core.methods.orca.OrcaParameters`; in 3D only
    ``time_horizon`` matters)."""

    def compute_velocity(self, view: RobotView3D) -> MethodOutput3D:
        neighbors = [(n.position, n.velocity, n.radius, 0.5 if n.reciprocates else 1.0)
                     for n in view.neighbors]
        result = solve_orca_3d(view.position, view.velocity, view.radius, view.max_speed,
                               view.pref_velocity, self.params.time_horizon, view.time_step,
                               neighbors, view.hard_half_spaces)
        return MethodOutput3D(result.velocity, result.half_spaces, result.used_fallback,
                              result.half_spaces[result.num_hard_half_spaces:])


class Direct3D(AvoidanceMethod3D):
    """``direct`` in 3D: the preferred velocity, unchanged (a baseline)."""

    def compute_velocity(self, view: RobotView3D) -> MethodOutput3D:
        return MethodOutput3D(view.pref_velocity)
