"""Optimal Reciprocal Collision Avoidance for one agent.

van den Berg, Guy, Lin, Manocha, "Reciprocal n-Body Collision Avoidance",
ISRR 2009 / STAR 70, 2011. The reference implementation is RVO2's
``Agent::computeNewVelocity``, which the code follows step by step so that a
reader can set the two side by side:

1. :func:`select_obstacle_neighbors` and :func:`select_agent_neighbors`
   (RVO2's ``computeNeighbors``).
2. :func:`obstacle_orca_half_plane` for each obstacle edge in range, skipping
   edges whose velocity obstacle an earlier obstacle half-plane already covers.
3. :func:`agent_orca_half_plane` for each neighbour (eq. 3 of the paper:
   ``ORCA_A|B = {v | (v - (v_A + u/2)) . n >= 0}``).
4. :func:`~orca_ros.core.geometry.linprog.linear_program_2d`, and
   :func:`~orca_ros.core.geometry.linprog.linear_program_3d` when it is infeasible.

The work is done in C, in ``orca_ros/core/orca/_orca2d.c`` (compiled as
``orca_ros.core.orca._orca2d`` when the package is built): neighbour selection, the
half-planes and the linear programs, in float64, in the same order of operations as
RVO2. The functions here are its Python face and say what each step does; a call of
:func:`compute_new_velocity` takes a few microseconds. ``test/helpers/orca_reference.py``
keeps the former pure-Python version, which the tests hold the C one to.
:func:`agent_orca_half_plane_rows` builds many agents' half-planes in one call (the
world's batch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from . import _orca2d
from ..geometry.linprog import HalfPlane
from ..geometry.obstacles import ObstacleEdges, ObstacleVertex
from ..geometry.segment_index import BRUTE_FORCE_SEGMENTS
from ..geometry.types import AgentState, NeighborState, Vector2, as_finite


@dataclass(frozen=True)
class OrcaOptions:
    """Departures from the reference behaviour; the defaults are exactly RVO2.

    ``safety_margin`` (m) enlarges every disc the agent reasons about (its own
    and each neighbour's), so a pair keeps ``2 * safety_margin`` apart and an
    agent keeps ``safety_margin`` from walls. It absorbs the violation the 3D
    fallback accepts when a dense crowd leaves no feasible velocity.
    """

    safety_margin: float = 0.0

    def __post_init__(self) -> None:
        as_finite(self.safety_margin, "safety_margin", minimum=0.0)


STRICT_RVO2 = OrcaOptions()


@dataclass(frozen=True)
class OrcaResult:
    """The new velocity and how it was found (for markers and diagnostics)."""

    velocity: Vector2
    half_planes: Tuple[HalfPlane, ...]
    num_obstacle_half_planes: int
    used_fallback: bool


def select_agent_neighbors(agent: AgentState,
                           neighbors: Sequence[NeighborState]) -> List[NeighborState]:
    """Neighbours strictly inside ``neighbor_dist``, nearest ``max_neighbors``, nearest first
    (ties in list order). In C (``rank_agents``)."""
    return _orca2d.select_agent_neighbors(agent.position, agent.neighbor_dist,
                                          agent.max_neighbors, neighbors)


def select_obstacle_neighbors(agent: AgentState,
                              edges: Sequence[ObstacleVertex]) -> List[ObstacleVertex]:
    """Obstacle edges the agent sees within reach of ``time_horizon_obst``, nearest first.

    The reach is ``time_horizon_obst * max_speed + radius`` (RVO2's
    ``computeObstacleNeighbors``).
    """
    return select_visible_edges(agent.position,
                                agent.time_horizon_obst * agent.max_speed + agent.radius, edges)


def _candidate_edges(position: Vector2, reach: float,
                     edges: Sequence[ObstacleVertex]) -> Sequence[ObstacleVertex]:
    """``edges``, or of a long :class:`ObstacleEdges` (a map's walls) only those its
    spatial index finds near, in list order."""
    if len(edges) > BRUTE_FORCE_SEGMENTS and isinstance(edges, ObstacleEdges):
        return [edges[i] for i in edges.near(position, reach).tolist()]
    return edges


def select_visible_edges(position: Vector2, reach: float,
                         edges: Sequence[ObstacleVertex]) -> List[ObstacleVertex]:
    """Edges closer than ``reach`` whose outer (right-hand) side faces ``position``,
    nearest first (ties in list order). Of a long :class:`ObstacleEdges` (a map's
    walls) only those its spatial index finds near are looked at; the answer is the same.
    The test of each edge is C (``rank_edges``)."""
    return _orca2d.select_visible_edges(position, reach,
                                        _candidate_edges(position, reach, edges))


def obstacle_orca_half_plane(position: Vector2, velocity: Vector2, radius: float,
                             edge: ObstacleVertex, inv_time_horizon_obst: float,
                             lines: Sequence[HalfPlane]) -> Optional[HalfPlane]:
    """The ORCA half-plane of a static obstacle edge (paper §6, RVO2's obstacle loop).

    Obstacles do not reciprocate, so the whole velocity obstacle (truncated at
    ``time_horizon_obst``) is avoided: the current velocity is projected onto
    the nearest part of its boundary (a cut-off circle, a leg, or the cut-off
    line). Returns ``None`` when the edge adds no constraint: already covered
    (both cut-off centres, pushed out by the scaled radius, on the forbidden side
    of one of the earlier obstacle half-planes ``lines``), seen from behind a
    non-convex vertex, or projected onto a foreign leg. In C (``obstacle_line``).
    """
    return _orca2d.obstacle_orca_half_plane(position, velocity, radius, edge,
                                            inv_time_horizon_obst, lines)


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
    within that step (coincident centres moving alike, where RVO2 divides by
    zero, take the direction (1, 0)). ``responsibility`` is the share of ``u``
    this agent takes: 1/2 against an agent that reciprocates, 1 against one that
    does not (the paper's section 4 remark on non-reciprocating agents).
    In C (``agent_line``).
    """
    return _orca2d.agent_orca_half_plane(velocity, other_position_rel, other_velocity,
                                         combined_radius, inv_time_horizon, inv_time_step,
                                         responsibility)


def agent_orca_half_plane_rows(velocity, other_position_rel, other_velocity, combined_radius,
                               inv_time_horizon, inv_time_step) -> List[List[HalfPlane]]:
    """:func:`agent_orca_half_plane` (every neighbour reciprocates: the share is 1/2) for
    many agent-neighbour pairs at once, in one call into C (``agent_line`` for each pair).

    Shapes: ``velocity`` (N, 2); ``other_position_rel``, ``other_velocity``
    (N, K, 2); ``combined_radius`` (N, K); ``inv_time_horizon`` (N,). Returns N lists
    of K :class:`HalfPlane`, the very numbers of the scalar function."""
    import numpy as np

    arrays = [np.ascontiguousarray(a, dtype=float) for a in
              (velocity, other_position_rel, other_velocity, combined_radius, inv_time_horizon)]
    n, k = arrays[3].shape
    return _orca2d.agent_orca_half_plane_rows(*arrays, float(inv_time_step), n, k)


def agent_orca_half_planes_batch(velocity, other_position_rel, other_velocity, combined_radius,
                                 inv_time_horizon, inv_time_step):
    """:func:`agent_orca_half_plane_rows` as one (N, K, 4) array of rows ``(point_x,
    point_y, direction_x, direction_y)``."""
    import numpy as np

    combined = np.asarray(combined_radius, dtype=float)
    rows = agent_orca_half_plane_rows(velocity, other_position_rel, other_velocity, combined,
                                      inv_time_horizon, inv_time_step)
    return np.array(rows, dtype=float).reshape(combined.shape + (4,))


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

    The half-planes are, in order: obstacle, hard, yielding, agent. When the 2D
    program fails at a hard one (they contradict each other), the 3D fallback runs
    over obstacle and hard ones only, keeping the obstacle ones; otherwise over all
    of them, keeping obstacle, hard and (when the failure is past them) yielding ones.
    Half-planes given as ``HalfPlane`` come back as the same objects. In C (``solve``).
    """
    velocity, lines, num_obstacle_lines, used_fallback = _orca2d.solve_orca(
        position, velocity, radius, max_speed, pref_velocity, time_horizon, time_horizon_obst,
        time_step, neighbors, obstacle_edges, hard_half_planes, agent_half_planes,
        yielding_half_planes)
    return OrcaResult(velocity, lines, num_obstacle_lines, used_fallback)


def compute_new_velocity(agent: AgentState, neighbors: Sequence[NeighborState],
                         obstacle_edges: Sequence[ObstacleVertex], time_step: float,
                         options: OrcaOptions = STRICT_RVO2) -> OrcaResult:
    """ORCA's new velocity for ``agent`` (RVO2's ``Agent::computeNewVelocity``).

    ``neighbors`` may hold any agents; those within ``neighbor_dist`` count,
    nearest ``max_neighbors`` first. ``obstacle_edges`` come from
    :func:`~orca_ros.core.geometry.obstacles.build_obstacle_edges`. ``time_step`` is only
    used when two discs already overlap. The same as :func:`solve_orca` on
    :func:`select_agent_neighbors` and :func:`select_obstacle_neighbors`, in one call
    into C.
    """
    if not (time_step > 0.0 and math.isfinite(time_step)):
        raise ValueError(f"time_step must be positive and finite, got {time_step}")
    reach = agent.time_horizon_obst * agent.max_speed + agent.radius
    velocity, lines, num_obstacle_lines, used_fallback = _orca2d.compute_new_velocity(
        agent.position, agent.velocity, agent.radius, agent.max_speed, agent.pref_velocity,
        agent.time_horizon, agent.time_horizon_obst, time_step, agent.neighbor_dist,
        agent.max_neighbors, reach, options.safety_margin, neighbors,
        _candidate_edges(agent.position, reach, obstacle_edges))
    return OrcaResult(velocity, lines, num_obstacle_lines, used_fallback)
