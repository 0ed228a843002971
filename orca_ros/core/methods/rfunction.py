"""``rfunction``: ORCA's half-planes from the R-function velocity obstacle.

Loktev, Tolok, Romakin, "Functional-voxel Modeling of Navigation Algorithm ORCA"
(2020), as reconstructed in ``doc/how_it_works/methods/rfunction.md``; the geometry is
:mod:`orca_ros.core.orca.rfunction`. Against each neighbour the R-function ``F`` of its
truncated velocity obstacle says whether the relative velocity is inside, the
region label which part of the boundary is nearest, and that part's primitive and
normal give ``u`` (``u = f_k n_k``). The half-plane is ``{v : (v - (v_A + s u)) . n >= 0}``
with ``s`` this robot's share:

- ``variant: orca`` (default): a half-plane against every neighbour, ``s = 1/2``
  (1 against a neighbour that does not reciprocate). These are ORCA's half-planes
  (eq. 3-4 of van den Berg et al. 2011; :func:`~orca_ros.core.orca.orca2d.agent_orca_half_plane`),
  reached through the R-function geometry, and keep ORCA's reciprocal promise.
- ``variant: paper``: the paper's own rule. A half-plane only against a neighbour
  whose velocity obstacle holds the relative velocity (``F(v) >= 0``), and ``s = 1``
  (this robot alone takes the whole ``u``, and does nothing while outside). Without
  reciprocity there is no collision-free promise: the shared one-step safety
  half-planes remain.

Overlapping robots (``|p| <= r``) have no cone and the R-function form has no branch
for them; both variants take ORCA's collision branch (the cut-off circle of one time
step), with the variant's share.

``backend: exact`` (default) evaluates the formula; ``backend: template`` looks ``F``
and ``u`` up in the voxel template (:class:`~orca_ros.core.orca.rfunction.VoxelTemplate`,
built once per process for its ``template_slices``, ``template_step`` and
``template_extent``), with the formula where a cell is ambiguous.

Everything else is ORCA's (:func:`~orca_ros.core.orca.orca2d.solve_orca`): the static
obstacles' half-planes, the view's hard half-planes kept hard, the linked robots'
half-planes as :class:`~orca_ros.core.methods.orca.Orca` adds them, the linear
program and its least-violation fallback.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence

from ..geometry.linprog import HalfPlane
from ..geometry.linprog3d import HalfSpace, solve_half_spaces
from ..orca.orca2d import agent_orca_half_plane, solve_orca
from ..orca.rfunction import (Vector3, VoxelTemplate, cone_of, correction, correction_3d,
                              half_planes_batch, shared_template, template_shape, truncated_cone_3d)
from ..geometry.types import Vector2, as_finite
from .base import Capabilities, MethodOutput, MethodSpec, RobotView, parameter
from .registry import register_method
from .base3d import AvoidanceMethod3D, MethodOutput3D, RobotView3D
from .orca import Orca

VARIANTS = ("orca", "paper")
BACKENDS = ("exact", "template")


@dataclass(frozen=True)
class RfunctionParameters:
    """``time_horizon``, ``time_horizon_obst`` (s) as ORCA's; ``variant``: ``orca`` or
    ``paper`` (module docstring); ``backend``: ``exact`` or ``template``, and the
    template's ``beta``-slices, grid step and extent (in units of ``rho``)."""

    time_horizon: float = 2.0
    time_horizon_obst: float = 2.0
    variant: str = parameter("orca", "orca: a half-plane against every neighbour, half the "
                                     "avoidance each (ORCA's, reached through the "
                                     "R-function); paper: only against a neighbour whose "
                                     "velocity obstacle holds the relative velocity, all of "
                                     "it")
    backend: str = parameter("exact", "exact: the formula; template: the voxel template, the "
                                      "formula where a cell is ambiguous")
    template_slices: int = parameter(100, "template: slices of beta")
    template_step: float = parameter(0.08, "template: grid step (units of rho)")
    template_extent: float = parameter(16.0, "template: grid extent (units of rho)")

    def __post_init__(self) -> None:
        as_finite(self.time_horizon, "time_horizon", strictly_positive=True)
        as_finite(self.time_horizon_obst, "time_horizon_obst", strictly_positive=True)
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        template_shape(self.template_slices, self.template_step, self.template_extent)

    def template(self) -> Optional[VoxelTemplate]:
        """The process's template for these settings with ``backend: template``, else None."""
        if self.backend != "template":
            return None
        return shared_template(self.template_slices, self.template_step, self.template_extent)


def rfunction_half_plane(velocity: Vector2, other_position_rel: Vector2,
                         other_velocity: Vector2, combined_radius: float,
                         inv_time_horizon: float, inv_time_step: float,
                         responsibility: float = 0.5, variant: str = "orca",
                         template: Optional[VoxelTemplate] = None) -> Optional[HalfPlane]:
    """This robot's half-plane against one neighbour (module docstring), or None when
    the ``paper`` variant adds none (the relative velocity is outside the velocity
    obstacle). ``responsibility``: the share of ``u`` with ``variant: orca``
    (``paper``: always 1). Arguments as :func:`~orca_ros.core.orca.orca2d.agent_orca_half_plane`."""
    share = responsibility if variant == "orca" else 1.0
    px, py = other_position_rel
    dist_sq = px * px + py * py
    if dist_sq <= combined_radius * combined_radius:
        # Overlapping: no cone. ORCA's collision branch (every v is in VO^tau here).
        return agent_orca_half_plane(velocity, other_position_rel, other_velocity,
                                     combined_radius, inv_time_horizon, inv_time_step, share)
    cone = cone_of(px, py, dist_sq, combined_radius, inv_time_horizon)
    relative = (velocity[0] - other_velocity[0], velocity[1] - other_velocity[1])
    found = correction(cone, relative) if template is None else \
        template.correction(cone, relative)
    if variant == "paper" and found.membership < 0.0:
        return None
    (ux, uy), (nx, ny) = found.u, found.normal
    return HalfPlane(velocity[0] + share * ux, velocity[1] + share * uy, ny, -nx)


def rfunction_half_space(velocity: Vector3, other_position_rel: Vector3,
                         other_velocity: Vector3, combined_radius: float,
                         inv_time_horizon: float, inv_time_step: float,
                         responsibility: float = 0.5, variant: str = "orca",
                         template: Optional[VoxelTemplate] = None) -> Optional[HalfSpace]:
    """:func:`rfunction_half_plane` in 3D: the R-function velocity obstacle of two spheres
    (:func:`~orca_ros.core.orca.rfunction.correction_3d`, through the meridian plane, from the
    template when given). Overlapping spheres: ORCA's collision branch, the sphere of
    one time step (``u = (r/dt - |w|) w/|w|``, ``w = v - p/dt``; coincident centres
    moving alike: along x)."""
    share = responsibility if variant == "orca" else 1.0
    px, py, pz = other_position_rel
    rel = (velocity[0] - other_velocity[0], velocity[1] - other_velocity[1],
           velocity[2] - other_velocity[2])
    if px * px + py * py + pz * pz <= combined_radius * combined_radius:
        wx, wy, wz = (rel[0] - inv_time_step * px, rel[1] - inv_time_step * py,
                      rel[2] - inv_time_step * pz)
        length = math.hypot(wx, wy, wz)  # no underflow for tiny w
        normal = (wx / length, wy / length, wz / length) if length > 0.0 else (1.0, 0.0, 0.0)
        scale = combined_radius * inv_time_step - length
        u = (scale * normal[0], scale * normal[1], scale * normal[2])
    else:
        found = correction_3d(truncated_cone_3d(other_position_rel, combined_radius,
                                                1.0 / inv_time_horizon), rel, template)
        if variant == "paper" and found.membership < 0.0:
            return None
        u, normal = found.u, found.normal
    return HalfSpace((velocity[0] + share * u[0], velocity[1] + share * u[1],
                      velocity[2] + share * u[2]), normal)


class Rfunction(Orca):
    """ORCA's linear program over the R-function half-planes (module docstring)."""

    params: RfunctionParameters

    def __init__(self, params: Optional[RfunctionParameters] = None) -> None:
        super().__init__(params or RfunctionParameters())

    def agent_half_planes(self, view: RobotView) -> List[Optional[HalfPlane]]:
        """One entry per neighbour of the view, in order (None: the paper variant adds
        no half-plane against it)."""
        p = self.params
        template = p.template()
        inv_tau, inv_dt = 1.0 / p.time_horizon, 1.0 / view.time_step
        px, py = view.position
        return [rfunction_half_plane(view.velocity, (n.position[0] - px, n.position[1] - py),
                                     n.velocity, view.radius + n.radius, inv_tau, inv_dt,
                                     0.5 if n.reciprocates else 1.0, p.variant, template)
                for n in view.neighbors]

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        if view.agent_half_planes is not None:  # built for the whole world at once
            lines = list(view.agent_half_planes)
        else:
            lines = [line for line in self.agent_half_planes(view) if line is not None]
        hard, yielding = view.hard_half_planes, []
        if view.links or view.tethers:
            link_hard, yielding = self.link_half_planes(view)
            hard = list(hard) + link_hard
        result = solve_orca(view.position, view.velocity, view.radius, view.max_speed,
                            view.pref_velocity, self.params.time_horizon,
                            self.params.time_horizon_obst, view.time_step, (),
                            view.obstacle_edges, hard_half_planes=hard,
                            agent_half_planes=lines, yielding_half_planes=yielding)
        # The reciprocity monitor's expectation: ORCA's half-planes, one per neighbour.
        # The paper variant expects nothing of its neighbours.
        expected = tuple(lines) if self.params.variant == "orca" else ()
        return MethodOutput(result.velocity, result.half_planes, result.used_fallback,
                            expected, report={"variant": self.params.variant,
                                              "backend": self.params.backend,
                                              "agent_half_planes": len(lines)})


class Rfunction3D(AvoidanceMethod3D):
    """``rfunction`` for aerial robots: RVO2-3D's linear programs
    (:func:`~orca_ros.core.geometry.linprog3d.solve_half_spaces`) over the half-spaces of
    :func:`rfunction_half_space`, the view's hard (safety) half-spaces first. The paper
    variant adds a half-space only for a neighbour whose velocity obstacle holds the
    relative velocity."""

    params: RfunctionParameters

    def compute_velocity(self, view: RobotView3D) -> MethodOutput3D:
        p = self.params
        template = p.template()
        hard = list(view.hard_half_spaces)
        spaces: List[HalfSpace] = []
        px, py, pz = view.position
        for n in view.neighbors:
            space = rfunction_half_space(
                view.velocity, (n.position[0] - px, n.position[1] - py, n.position[2] - pz),
                n.velocity, view.radius + n.radius, 1.0 / p.time_horizon,
                1.0 / view.time_step, 0.5 if n.reciprocates else 1.0, p.variant, template)
            if space is not None:
                spaces.append(space)
        velocity, used_fallback = solve_half_spaces(hard + spaces, view.max_speed,
                                                    view.pref_velocity, len(hard))
        expected = tuple(spaces) if p.variant == "orca" else ()
        return MethodOutput3D(velocity, tuple(hard + spaces), used_fallback, expected,
                              report={"variant": p.variant, "backend": p.backend,
                                      "agent_half_spaces": len(spaces)})


def rfunction_half_planes_batch(params: Sequence[RfunctionParameters], velocity,
                                other_position_rel, other_velocity, combined_radius,
                                inv_time_horizon, inv_time_step):
    """The R-function half-planes of many robots against their neighbours at once, from
    plain arrays (:attr:`~orca_ros.core.methods.base.MethodSpec.half_planes_batch`):
    :func:`~orca_ros.core.orca.rfunction.half_planes_batch` once per distinct parameter
    value among the rows (``params``, one per row: its variant and template), every
    neighbour reciprocating. Returns ``(lines (N, K, 4), kept (N, K))``: the paper
    variant keeps only the half-planes it adds."""
    import numpy as np

    velocity = np.asarray(velocity, dtype=float)
    combined_radius = np.asarray(combined_radius, dtype=float)
    lines = np.zeros(combined_radius.shape + (4,))
    kept = np.zeros(combined_radius.shape, dtype=bool)
    other_position_rel = np.asarray(other_position_rel, dtype=float)
    other_velocity = np.asarray(other_velocity, dtype=float)
    inv_time_horizon = np.asarray(inv_time_horizon, dtype=float)
    params = list(params)
    for p in set(params):
        rows = [k for k, q in enumerate(params) if q == p]
        lines[rows], kept[rows] = half_planes_batch(
            velocity[rows], other_position_rel[rows], other_velocity[rows],
            combined_radius[rows], inv_time_horizon[rows], inv_time_step, p.variant,
            p.template())
    return lines, kept


# collision_free: the default variant's promise (ORCA's); ``variant: paper`` has none.
RFUNCTION = MethodSpec(
    "rfunction", "ORCA's half-planes from the R-function velocity obstacle (Loktev et al. "
    "2020): variant orca (ORCA's, the default) or paper (only inside the VO, full share); "
    "backend exact or voxel template", Rfunction, RfunctionParameters, factory_3d=Rfunction3D,
    capabilities=Capabilities(takes_constraints=True, collision_free=True),
    half_planes_batch=rfunction_half_planes_batch)


def register() -> None:
    """Register ``rfunction`` (the entry point ``rfunction``)."""
    register_method(RFUNCTION)
