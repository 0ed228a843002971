"""ORCA as a method: ``orca`` (ours) and ``orca_strict`` (exactly RVO2).

The geometry and the linear programs are :mod:`orca_ros.core.orca` (van den
Berg et al. 2011, RVO2's ``Agent::computeNewVelocity`` step by step); this
module only adapts them to :class:`~orca_ros.core.methods.base.AvoidanceMethod`.
Both take the view's hard half-planes into ORCA's own linear program (kept hard
like obstacle half-planes, eq. 7's fallback never trades them away).

``orca`` runs with everything the controller shares (guidance, keep-right and
stall escape, the planning margin, the one-step safety filter). ``orca_strict``
runs with none of it: what the conformance cases check against RVO2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from ..orca import agent_orca_half_planes_batch, solve_orca
from ..types import as_finite
from .base import AvoidanceMethod, MethodOutput, MethodSpec, RobotView, register_method


@dataclass(frozen=True)
class OrcaParameters:
    """ORCA's own parameters (RVO2's names): how far ahead it keeps velocities free
    of collisions with other robots (``time_horizon``, s) and with walls
    (``time_horizon_obst``, s)."""

    time_horizon: float = 2.0
    time_horizon_obst: float = 2.0

    def __post_init__(self) -> None:
        as_finite(self.time_horizon, "time_horizon", strictly_positive=True)
        as_finite(self.time_horizon_obst, "time_horizon_obst", strictly_positive=True)


class Orca(AvoidanceMethod):
    """Optimal Reciprocal Collision Avoidance: the velocity nearest the preferred one
    in the intersection of the ORCA half-planes (eq. 3-5), or the least violation (eq. 7)."""

    params: OrcaParameters

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        neighbors = [] if view.agent_half_planes is not None else [
            (n.position[0], n.position[1], n.velocity[0], n.velocity[1], n.radius,
             0.5 if n.reciprocates else 1.0) for n in view.neighbors]
        result = solve_orca(view.position, view.velocity, view.radius, view.max_speed,
                            view.pref_velocity, self.params.time_horizon,
                            self.params.time_horizon_obst, view.time_step, neighbors,
                            view.obstacle_edges, hard_half_planes=view.hard_half_planes,
                            agent_half_planes=view.agent_half_planes)
        first_agent_line = result.num_obstacle_half_planes + len(view.hard_half_planes)
        return MethodOutput(result.velocity, result.half_planes, result.used_fallback,
                            result.half_planes[first_agent_line:])


def orca_half_planes_batch(world, active_idx, neighbor_lists) -> List[list]:
    """Every active agent's ORCA half-planes against its neighbours, built in one numpy
    batch (:func:`~orca_ros.core.orca.agent_orca_half_planes_batch`), with the radii
    each agent plans with (:meth:`ControllerConfig.avoidance_radius`)."""
    import numpy as np

    count = len(active_idx)
    width = max((len(n) for n in neighbor_lists), default=0)
    if width == 0:
        return [[] for _ in range(count)]
    index = np.zeros((count, width), dtype=int)
    valid = np.zeros((count, width), dtype=bool)
    for row, neighbors in enumerate(neighbor_lists):
        index[row, :len(neighbors)] = neighbors
        valid[row, :len(neighbors)] = True
    index = np.where(valid, index, active_idx[:, None])  # padding: any agent, dropped below
    configs = [world.controllers[i].config for i in active_idx]
    margin = np.array([c.margin_ratio for c in configs])
    tracking = np.array([c.tracking_error for c in configs])
    own = np.array([c.avoidance_radius(c.radius) for c in configs])
    others = world.radius[index] * (1.0 + margin[:, None]) + tracking[:, None]
    combined = own[:, None] + others
    # ControllerConfig.pair_margin_shortfall, in a batch
    kept = np.array([world.controllers[i].margin_held for i in active_idx])[:, None]
    speed_ratio = np.array([c.margin_speed_ratio for c in configs])
    if np.any(speed_ratio > 0.0):
        full_at = speed_ratio * np.array([c.max_speed for c in configs])
        relative = np.linalg.norm(world.velocities[active_idx, None] - world.velocities[index],
                                  axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            kept = kept * np.where(full_at[:, None] > 0.0,
                                   np.minimum(1.0, relative / full_at[:, None]), 1.0)
    combined -= (1.0 - kept) * margin[:, None] * (world.radius[active_idx, None]
                                                  + world.radius[index])
    lines = agent_orca_half_planes_batch(
        world.velocities[active_idx],
        world.positions[index] - world.positions[active_idx, None],
        world.velocities[index], combined,
        np.array([1.0 / c.time_horizon for c in configs]), 1.0 / world.dt).tolist()
    return [row_lines[:len(neighbors)] for row_lines, neighbors in zip(lines, neighbor_lists)]


ORCA = register_method(MethodSpec(
    "orca", "ORCA with guidance, keep-right, planning margin and the one-step safety filter",
    Orca, OrcaParameters, takes_constraints=True, collision_free=True,
    batch=orca_half_planes_batch))
ORCA_STRICT = register_method(MethodSpec(
    "orca_strict", "exactly RVO2's ORCA: no guidance, keep-right, margin or safety filter",
    Orca, OrcaParameters, strict=True, keep_right=False, safety_filter=False,
    takes_constraints=True, collision_free=True, batch=orca_half_planes_batch))
