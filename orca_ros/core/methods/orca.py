"""ORCA as a method: ``orca`` (ours) and ``orca_strict`` (exactly RVO2).

The geometry and the linear programs are :mod:`orca_ros.core.orca.orca2d` (van den
Berg et al. 2011, RVO2's ``Agent::computeNewVelocity`` step by step); this
module only adapts them to :class:`~orca_ros.core.methods.base.AvoidanceMethod`.
Both take the view's hard half-planes into ORCA's own linear program (kept hard
like obstacle half-planes, eq. 7's fallback never trades them away).

Both have a 3D version for aerial robots (:mod:`.orca3d`, RVO2-3D's algorithm).

``orca`` runs with everything the controller shares (guidance, keep-right and
stall escape, the planning margin, the one-step safety filter). ``orca_strict``
runs with none of it: what the conformance cases check against RVO2.

Linked robots (scenario ``links:``, :mod:`orca_ros.core.methods.links`): ``orca`` adds,
only when the view has ``links`` or ``tethers``, a hard one-step safety
half-plane against each other group's link, and yielding ones (hard while the
hard ones allow): ORCA's half-plane of each other group's link, per partner
one that keeps the tether within ``max_length``, and per robot near the
tether one that keeps the tether from sweeping onto it. The partners stay
ordinary neighbour discs. ``orca_strict`` ignores links (RVO2 has none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..geometry.linprog import HalfPlane
from .links import (LINK_CLEARANCE, TETHER_MARGIN, link_safety_half_plane,
                    moving_segment_half_plane, point_segment_distance, tether_half_plane,
                    tether_sweep_half_plane)
from ..orca.orca2d import agent_orca_half_plane_rows, solve_orca
from ..geometry.types import as_finite
from .base import AvoidanceMethod, Capabilities, MethodOutput, MethodSpec, RobotView
from .registry import register_method
from .orca3d import Orca3D


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
    uses_links = True

    def link_half_planes(self, view: RobotView) -> Tuple[List[HalfPlane], List[HalfPlane]]:
        """Half-planes for linked robots, ``(hard, yielding)``.

        Hard: per other group's link, the one-step safety half-plane (true
        radius): the robot's disc never reaches the link, as it never reaches
        another robot. Yielding (kept while the hard ones allow, see
        :func:`~orca_ros.core.orca.orca2d.solve_orca`): per other group's link, ORCA's
        half-plane of its moving segment (the whole ``u``: the link's robots do
        not keep their link off us); per partner, the tether's (half the slack
        each, over one time step), and per robot near the tether, the one that
        keeps the tether from sweeping onto it
        (:func:`~orca_ros.core.methods.links.tether_sweep_half_plane`). Kept hard
        too, they contradicted the robots' own safety half-planes in dense
        linked crowds, and the least violation of all of them let robots touch
        (public scenarios with links: menge_circle 36 colliding pairs,
        rvo2_circle 64).
        """
        hard: List[HalfPlane] = []
        yielding: List[HalfPlane] = []
        for link in view.links:
            yielding.append(moving_segment_half_plane(
                view.position, view.velocity, view.radius, link.a, link.b, link.velocity_a,
                link.velocity_b, self.params.time_horizon, view.time_step))
            line = link_safety_half_plane(view.position, view.true_radius + LINK_CLEARANCE,
                                          link.a, link.b, link.velocity_a, link.velocity_b,
                                          view.time_step)
            if line is not None:
                hard.append(line)
        # A unicycle drives its planned velocity's part along its heading: the lateral
        # part (at most min(0.25 v_max dt, 0.15 r) by the kinematic half-planes, the
        # controller's defaults) is not driven, and may lengthen the tether by that
        # much per partner per step; the margin keeps both partners' share free. For a
        # holonomic robot it only keeps the pair a few centimetres shorter.
        margin = TETHER_MARGIN + 2.0 * min(0.25 * view.max_speed * view.time_step,
                                           0.15 * view.true_radius)
        group = {partner.key for partner in view.tethers}
        for partner in view.tethers:
            line = tether_half_plane(view.position, view.velocity, partner.position,
                                     partner.velocity, partner.max_length, view.time_step,
                                     margin)
            if line is not None:
                yielding.append(line)
            for other in view.neighbors:
                if other.key in group:
                    continue
                reach = other.radius + LINK_CLEARANCE + 2.0 * view.time_step * (
                    view.max_speed + math.hypot(*other.velocity))
                if point_segment_distance(other.position, view.position,
                                          partner.position) > reach:
                    continue
                line = tether_sweep_half_plane(view.position, partner.position,
                                               partner.velocity, other.position,
                                               other.velocity,
                                               other.radius + LINK_CLEARANCE, view.time_step)
                if line is not None:
                    yielding.append(line)
        return hard, yielding

    _planned: Optional[tuple] = None  # (the view's neighbours, own state, their lines)

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        """ORCA's velocity for ``view``. Run again on the same view with other hard
        half-planes (a unicycle's tracking adds its kinematic ones), the neighbours'
        half-planes of the first run are taken as they are: the same neighbours (the
        same objects) and own state give the same lines."""
        agent_lines = view.agent_half_planes
        state = (view.position, view.velocity, view.radius, view.time_step)
        planned = self._planned
        if agent_lines is None and planned is not None and planned[0] is view.neighbors \
                and planned[1] == state:
            agent_lines = planned[2]
        neighbors = [] if agent_lines is not None else [
            (n.position[0], n.position[1], n.velocity[0], n.velocity[1], n.radius,
             0.5 if n.reciprocates else 1.0) for n in view.neighbors]
        hard, yielding = view.hard_half_planes, []
        if self.uses_links and (view.links or view.tethers):
            link_hard, yielding = self.link_half_planes(view)
            hard = list(hard) + link_hard
        result = solve_orca(view.position, view.velocity, view.radius, view.max_speed,
                            view.pref_velocity, self.params.time_horizon,
                            self.params.time_horizon_obst, view.time_step, neighbors,
                            view.obstacle_edges, hard_half_planes=hard,
                            agent_half_planes=agent_lines,
                            yielding_half_planes=yielding)
        first_agent_line = result.num_obstacle_half_planes + len(hard) + len(yielding)
        lines = result.half_planes[first_agent_line:]
        if view.agent_half_planes is None:
            self._planned = (view.neighbors, state, lines)
        return MethodOutput(result.velocity, result.half_planes, result.used_fallback, lines)


class OrcaStrict(Orca):
    """Exactly RVO2's ORCA: no link or tether half-planes (RVO2 has no links)."""

    uses_links = False


def orca_half_planes_batch(params, velocity, other_position_rel, other_velocity,
                           combined_radius, inv_time_horizon, inv_time_step):
    """ORCA's half-planes of many robots against their neighbours at once, from plain
    arrays (:attr:`~orca_ros.core.methods.base.MethodSpec.half_planes_batch`): the rows of
    :func:`~orca_ros.core.orca.orca2d.agent_orca_half_plane_rows` (every neighbour
    reciprocates, the share is 1/2; lists of :class:`HalfPlane`, built in C), all kept.
    ``params`` (the robots' parameters) do not enter: ``inv_time_horizon`` carries each
    robot's horizon."""
    del params
    return agent_orca_half_plane_rows(velocity, other_position_rel, other_velocity,
                                      combined_radius, inv_time_horizon, inv_time_step), None


ORCA = MethodSpec(
    "orca", "ORCA with guidance, keep-right, planning margin and the one-step safety filter",
    Orca, OrcaParameters, factory_3d=Orca3D,
    capabilities=Capabilities(takes_constraints=True, collision_free=True),
    half_planes_batch=orca_half_planes_batch)
ORCA_STRICT = MethodSpec(
    "orca_strict", "exactly RVO2's ORCA: no guidance, keep-right, margin or safety filter",
    OrcaStrict, OrcaParameters, factory_3d=Orca3D,
    capabilities=Capabilities(strict=True, keep_right=False, safety_filter=False,
                              takes_constraints=True, collision_free=True),
    half_planes_batch=orca_half_planes_batch)


def register() -> None:
    """Register ``orca`` and ``orca_strict`` (the entry point ``orca``)."""
    register_method(ORCA)
    register_method(ORCA_STRICT)
