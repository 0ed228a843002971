"""A kinematic multi-agent world that runs a scenario with a chosen avoidance method.

Like RVO2's ``doStep``, every agent's new velocity is computed from the same
start-of-step state, then all agents move. Neighbours are found with a k-d
tree (scipy's cKDTree), so a step costs about O(N log N) besides the ORCA
solves. Collisions are accounted exactly (see :class:`CollisionLedger`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np
from scipy.spatial import cKDTree

from .drive import (DiffDriveLimits, keep_right_angle, kinematic_half_planes, tracking_error_bound,
                    unicycle_command, unicycle_step)
from .geometry import points_polygon_signed_distance
from .guidance import VisibilityRoadmap
from .linprog import linear_program_2d, linear_program_3d
from .obstacles import ObstacleVertex, build_obstacle_edges, dist_sq_point_segment
from .orca import one_step_obstacle_half_plane, one_step_safety_half_plane, solve_orca
from .scenario import Scenario

METHODS = ("orca", "orca_strict", "rvo2")
KINEMATICS = ("holonomic", "diff_drive")
OVERLAP_TOLERANCE = 1e-6
"""Overlaps deeper than this (m) count as collisions; touching does not."""


@dataclass(frozen=True)
class WorldOptions:
    """How a scenario is run.

    ``method``: ``orca`` (ours: RVO2's ORCA plus the safety margin and the
    keep-right symmetry breaking below), ``orca_strict`` (exactly RVO2's
    behaviour, what conformance checks) or ``rvo2`` (the reference C++ library
    through pyrvo, holonomic only).

    ``safety_margin_ratio``: each disc is enlarged by this fraction of its
    radius for avoidance. ``keep_right_deg``: the preferred velocity is turned
    this many degrees clockwise, so agents meeting head-on both veer right
    instead of freezing face to face. A stalled agent (short of its target,
    slower than a tenth of its preferred speed) turns further right, by up to
    ``stall_escape_deg`` after ``stall_escape_time`` seconds, so a jammed ring
    unwinds as a vortex (see :func:`~orca_ros.core.drive.keep_right_angle`).
    ``one_step_safety``: every agent within
    one step's reach adds a hard
    :func:`~orca_ros.core.orca.one_step_safety_half_plane`, whatever
    ``max_neighbors`` says. ``guidance``: an agent whose straight line to its
    waypoint is blocked by an obstacle heads for the next corner of a
    :class:`~orca_ros.core.guidance.VisibilityRoadmap` path (clearance: its
    avoidance radius plus ``guidance_clearance_ratio`` of its radius),
    re-checked every ``guidance_period`` steps.
    """

    method: str = "orca"
    kinematics: str = "holonomic"
    safety_margin_ratio: float = 0.1
    keep_right_deg: float = 8.0
    max_angular_speed: float = 3.0
    max_linear_accel: float = 4.0
    max_angular_accel: float = 20.0
    lateral_error_ratio: float = 0.05  # E_lat as a fraction of the radius
    one_step_safety: bool = True
    stall_escape_deg: float = 75.0
    stall_escape_time: float = 3.0
    guidance: bool = True
    guidance_clearance_ratio: float = 0.25
    guidance_period: int = 5
    record_every: int = 1

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.kinematics not in KINEMATICS:
            raise ValueError(f"kinematics must be one of {KINEMATICS}, got {self.kinematics!r}")
        if self.method == "rvo2" and self.kinematics != "holonomic":
            raise ValueError("method rvo2 (the reference library) is holonomic only")

    @property
    def strict(self) -> bool:
        return self.method in ("orca_strict", "rvo2")


@dataclass
class CollisionLedger:
    """Exact collision accounting over a run.

    A pair of agents collides when their centres are closer than the sum of
    their radii by more than :data:`OVERLAP_TOLERANCE`; an agent collides with
    an obstacle when its centre is closer to the polygon than its radius by
    more than that (or inside it). Distinct pairs are counted once; the
    deepest penetration and the smallest separation are kept.
    """

    pairs: Set[Tuple[str, str]] = field(default_factory=set)
    deepest: float = 0.0
    min_separation: float = math.inf
    points: List[Tuple[float, float]] = field(default_factory=list)

    def update(self, positions: np.ndarray, radii: np.ndarray, names: Sequence[str],
               obstacles: Sequence[np.ndarray]) -> None:
        n = len(positions)
        if n == 0:
            return
        if n > 1:
            reach = 2.0 * float(radii.max()) + 1.0
            pairs = cKDTree(positions).query_pairs(reach, output_type="ndarray")
            if len(pairs):
                i, j = pairs[:, 0], pairs[:, 1]
                gap = np.linalg.norm(positions[i] - positions[j], axis=1) - radii[i] - radii[j]
                self.min_separation = min(self.min_separation, float(gap.min()))
                for k in np.flatnonzero(gap < -OVERLAP_TOLERANCE):
                    a, b = sorted((names[i[k]], names[j[k]]))
                    self.pairs.add((a, b))
                    self.deepest = max(self.deepest, float(-gap[k]))
                    self.points.append(tuple((positions[i[k]] + positions[j[k]]) / 2.0))
        for index, polygon in enumerate(obstacles):
            gap = points_polygon_signed_distance(positions, polygon) - radii
            self.min_separation = min(self.min_separation, float(gap.min()))
            for k in np.flatnonzero(gap < -OVERLAP_TOLERANCE):
                self.pairs.add((names[k], f"obstacle{index}"))
                self.deepest = max(self.deepest, float(-gap[k]))
                self.points.append(tuple(positions[k]))


@dataclass
class RunResult:
    """What a run measured; ``summary()`` gives the ``orca-ros bench`` JSON object."""

    scenario: str
    method: str
    kinematics: str
    agents: int
    reached: int
    collisions: int
    min_separation: float
    deepest_penetration: float
    makespan: Optional[float]
    mean_time_to_goal: Optional[float]
    path_length_ratio: Optional[float]
    steps: int
    wall_time_s: float
    compute_us_per_agent_step: float
    trajectory: np.ndarray  # (frames, agents, 2), NaN where an agent has left
    frame_times: np.ndarray
    collision_points: List[Tuple[float, float]]
    collision_pairs: List[Tuple[str, str]]

    def summary(self) -> Dict[str, object]:
        return {
            "scenario": self.scenario, "method": self.method, "kinematics": self.kinematics,
            "agents": self.agents, "reached": self.reached, "collisions": self.collisions,
            "min_separation": _round(self.min_separation), "makespan": _round(self.makespan),
            "mean_time_to_goal": _round(self.mean_time_to_goal),
            "path_length_ratio": _round(self.path_length_ratio), "steps": self.steps,
            "wall_time_s": _round(self.wall_time_s),
            "compute_us_per_agent_step": _round(self.compute_us_per_agent_step),
        }


def _round(value: Optional[float], digits: int = 6) -> Optional[float]:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


class World:
    """Agents of a scenario, stepped together with one avoidance method."""

    def __init__(self, scenario: Scenario, options: WorldOptions = WorldOptions()) -> None:
        self.scenario = scenario
        self.options = options
        agents = scenario.agents
        self.names = [a.name for a in agents]
        n = len(agents)
        self.dt = scenario.time_step
        self.time = 0.0
        self.steps = 0
        self.positions = np.array([a.start for a in agents], dtype=float)
        self.velocities = np.zeros((n, 2))
        self.radius = np.array([a.radius for a in agents])
        self.max_speed = np.array([a.max_speed for a in agents])
        self.pref_speed = np.array([a.pref_speed for a in agents])
        self.neighbor_dist = np.array([a.neighbor_dist for a in agents])
        self.max_neighbors = np.array([a.max_neighbors for a in agents], dtype=int)
        self.time_horizon = np.array([a.time_horizon for a in agents])
        self.time_horizon_obst = np.array([a.time_horizon_obst for a in agents])
        self.waypoints = [np.array(a.waypoints, dtype=float) for a in agents]
        self.waypoint_index = np.zeros(n, dtype=int)
        self.goal_tolerance = np.array([scenario.goal_tolerance_of(a) for a in agents])
        self.waypoint_tolerance = np.array([scenario.waypoint_tolerance_of(a) for a in agents])
        self.reference_length = np.array([a.reference_length for a in agents])
        self.path_length = np.zeros(n)
        self.arrival_time = np.full(n, np.nan)
        self.active = np.ones(n, dtype=bool)
        self.obstacle_polygons = [np.array(p.vertices) for p in scenario.obstacles]
        self.edges: List[ObstacleVertex] = build_obstacle_edges(scenario.obstacles)
        self.ledger = CollisionLedger()
        self.compute_seconds = 0.0
        self.agent_steps = 0

        # Kinematics: unicycles start facing their first waypoint.
        first = np.array([w[0] for w in self.waypoints])
        delta = first - self.positions
        self.headings = np.arctan2(delta[:, 1], delta[:, 0])
        self.linear_speed = np.zeros(n)
        self.angular_speed = np.zeros(n)
        self.limits = [DiffDriveLimits(max_linear_speed=a.max_speed,
                                       max_angular_speed=options.max_angular_speed,
                                       max_linear_accel=options.max_linear_accel,
                                       max_angular_accel=options.max_angular_accel,
                                       lateral_error=options.lateral_error_ratio * a.radius)
                       for a in agents]
        margin = 0.0 if options.strict else options.safety_margin_ratio
        self.avoidance_radius = self.radius * (1.0 + margin)
        # The one-step safety half-planes keep true discs (plus tracking error
        # for unicycles, plus a hair) apart; the margin above stays soft.
        self.safety_radius = self.radius + 1e-4
        if options.kinematics == "diff_drive":
            tracking = np.array([tracking_error_bound(l, self.dt) for l in self.limits])
            self.avoidance_radius += tracking
            self.safety_radius += tracking
        self.stalled_time = np.zeros(n)

        self._rvo2 = _Rvo2Backend(self) if options.method == "rvo2" else None
        self._roadmaps: Dict[float, VisibilityRoadmap] = {}
        self._guide_target = np.full((n, 2), np.nan)
        self._guided = (not options.strict) and options.guidance and bool(self.edges)
        self._frames: List[np.ndarray] = [self.positions.copy()]
        self._frame_times: List[float] = [0.0]
        self._check_arrivals()

    # --- preferred velocity -------------------------------------------------

    def preferred_velocities(self) -> np.ndarray:
        """Towards the current waypoint at ``pref_speed``, capped so as not to overshoot."""
        n = len(self.names)
        targets = np.empty((n, 2))
        for i in range(n):
            path = self.waypoints[i]
            k = self.waypoint_index[i]
            # Move on to the next waypoint once within waypoint tolerance.
            while k < len(path) - 1 and \
                    math.dist(self.positions[i], path[k]) <= self.waypoint_tolerance[i]:
                k += 1
            self.waypoint_index[i] = k
            targets[i] = path[k]
        if self._guided:
            targets = self._guide(targets)
        delta = targets - self.positions
        distance = np.linalg.norm(delta, axis=1)
        speed = np.minimum(self.pref_speed, distance / self.dt)
        with np.errstate(invalid="ignore", divide="ignore"):
            pref = np.where(distance[:, None] > 1e-12, delta / distance[:, None] * speed[:, None],
                            0.0)
        if self.options.strict:
            return pref
        speed_now = np.linalg.norm(self.velocities, axis=1)
        stalled = (speed_now < 0.1 * self.pref_speed) & (distance > self.goal_tolerance)
        self.stalled_time = np.where(stalled, self.stalled_time + self.dt, 0.0)
        angle = -np.radians(keep_right_angle(self.stalled_time, self.options.keep_right_deg,
                                             self.options.stall_escape_deg,
                                             self.options.stall_escape_time))
        c, s = np.cos(angle), np.sin(angle)
        return np.column_stack((c * pref[:, 0] - s * pref[:, 1], s * pref[:, 0] + c * pref[:, 1]))

    # --- stepping --------------------------------------------------------------

    def step(self) -> None:
        pref = self.preferred_velocities()
        started = time.perf_counter()
        if self._rvo2 is not None:
            new_positions, new_velocities = self._rvo2.step(pref)
            self.compute_seconds += time.perf_counter() - started
            moved = new_positions - self.positions
        else:
            planned, free = self._orca_velocities(pref)
            self.compute_seconds += time.perf_counter() - started
            if self.options.kinematics == "holonomic":
                new_velocities = planned
                new_positions = self.positions + planned * self.dt
            else:
                new_positions, new_velocities = self._drive_unicycles(planned, free)
            moved = new_positions - self.positions
        self.agent_steps += int(self.active.sum())
        active = self.active
        self.path_length[active] += np.linalg.norm(moved[active], axis=1)
        self.positions[active] = new_positions[active]
        self.velocities[active] = new_velocities[active]
        self.time = (self.steps + 1) * self.dt
        self.steps += 1
        self._account()
        self._check_arrivals()
        if self.steps % self.options.record_every == 0:
            frame = self.positions.copy()
            frame[~self.active] = np.nan
            self._frames.append(frame)
            self._frame_times.append(self.time)

    def _roadmap(self, i: int) -> VisibilityRoadmap:
        clearance = round(float(self.avoidance_radius[i]
                                + self.options.guidance_clearance_ratio * self.radius[i]), 3)
        if clearance not in self._roadmaps:
            self._roadmaps[clearance] = VisibilityRoadmap(self.edges, clearance)
        return self._roadmaps[clearance]

    def _guide(self, targets: np.ndarray) -> np.ndarray:
        """Replace blocked targets by the next corner of a roadmap path around the obstacles."""
        guided = targets.copy()
        recheck = self.steps % self.options.guidance_period == 0
        for i in np.flatnonzero(self.active):
            corner = self._guide_target[i]
            if not recheck and not np.isnan(corner[0]):
                if math.dist(self.positions[i], corner) > self.waypoint_tolerance[i] * 0.5:
                    guided[i] = corner
                    continue
            elif not recheck:
                continue
            roadmap = self._roadmap(i)
            own = float(self.radius[i])
            if roadmap.visible(self.positions[i], targets[i], own)[0]:
                self._guide_target[i] = np.nan
                continue
            corner = roadmap.next_corner(tuple(self.positions[i]), tuple(targets[i]), own)
            if corner is None:
                self._guide_target[i] = np.nan
                continue
            self._guide_target[i] = corner
            guided[i] = corner
        return guided

    def _neighbors(self, active_idx: np.ndarray) -> List[np.ndarray]:
        """For each active agent: active agents strictly inside neighbor_dist, nearest first."""
        if len(active_idx) < 2:
            return [np.empty(0, dtype=int) for _ in active_idx]
        points = self.positions[active_idx]
        tree = cKDTree(points)
        k = int(min(len(active_idx), self.max_neighbors[active_idx].max() + 1))
        if k < 2:
            return [np.empty(0, dtype=int) for _ in active_idx]
        distances, indices = tree.query(points, k=k,
                                        distance_upper_bound=float(self.neighbor_dist.max()))
        distances = np.atleast_2d(distances)
        indices = np.atleast_2d(indices)
        result = []
        for row, agent in enumerate(active_idx):
            limit = self.neighbor_dist[agent]
            keep = (indices[row] != row) & (indices[row] < len(active_idx)) & \
                (distances[row] < limit)
            chosen = active_idx[indices[row][keep]][: self.max_neighbors[agent]]
            result.append(chosen)
        return result

    def _close_neighbors(self, active_idx: np.ndarray) -> Optional[List[List[int]]]:
        """For each active agent, every active agent it could reach within one step."""
        if self.options.strict or not self.options.one_step_safety or len(active_idx) < 2:
            return None
        points = self.positions[active_idx]
        reach = 2.0 * float(self.safety_radius.max()) + 2.0 * float(self.max_speed.max()) * self.dt
        groups = cKDTree(points).query_ball_point(points, reach)
        return [[int(active_idx[k]) for k in group if k != row]
                for row, group in enumerate(groups)]

    def _visible_edges(self, i: int) -> List[ObstacleVertex]:
        if not self.edges:
            return []
        reach = self.time_horizon_obst[i] * self.max_speed[i] + self.avoidance_radius[i]
        range_sq = reach * reach
        px, py = self.positions[i]
        position = (float(px), float(py))
        visible = []
        for index, edge in enumerate(self.edges):
            ax, ay = edge.point
            bx, by = edge.next.point
            if (ax - px) * (by - ay) - (ay - py) * (bx - ax) >= 0.0:
                continue
            dist_sq = dist_sq_point_segment(edge.point, edge.next.point, position)
            if dist_sq < range_sq:
                visible.append((dist_sq, index, edge))
        visible.sort()
        return [edge for _, _, edge in visible]

    def _orca_velocities(self, pref: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """ORCA for every active agent from the start-of-step state.

        Returns the velocity each agent plans (with kinematic half-planes for
        unicycles) and the one ORCA would pick without them.
        """
        n = len(self.names)
        planned = np.zeros((n, 2))
        free = np.zeros((n, 2))
        self.safety_radius_list = self.safety_radius.tolist()
        active_idx = np.flatnonzero(self.active)
        neighbor_lists = self._neighbors(active_idx)
        positions = self.positions.tolist()
        velocities = self.velocities.tolist()
        radius = self.avoidance_radius.tolist()
        diff_drive = self.options.kinematics == "diff_drive"
        close_lists = self._close_neighbors(active_idx)
        braking = self.options.max_linear_accel if diff_drive else None
        use_safety = not self.options.strict and self.options.one_step_safety
        for row, (i, neighbors) in enumerate(zip(active_idx.tolist(), neighbor_lists)):
            safety = []
            visible_edges = self._visible_edges(i)
            if use_safety:
                for edge in visible_edges:
                    line = one_step_obstacle_half_plane(tuple(positions[i]),
                                                        self.safety_radius_list[i], edge,
                                                        self.dt, braking)
                    if line is not None:
                        safety.append(line)
                px, py = positions[i]
                for j in (close_lists[row] if close_lists is not None else ()):
                    safety.append(one_step_safety_half_plane(
                        (positions[j][0] - px, positions[j][1] - py),
                        self.safety_radius_list[i] + self.safety_radius_list[j], self.dt,
                        (1.0, 0.0) if i < j else (-1.0, 0.0), braking))
            others = [(positions[j][0], positions[j][1], velocities[j][0], velocities[j][1],
                       radius[j]) for j in neighbors.tolist()]
            args = (tuple(positions[i]), tuple(velocities[i]), radius[i],
                    float(self.max_speed[i]), (float(pref[i, 0]), float(pref[i, 1])),
                    float(self.time_horizon[i]), float(self.time_horizon_obst[i]), self.dt,
                    others, visible_edges)
            result = solve_orca(*args, hard_half_planes=safety)
            free[i] = result.velocity
            if diff_drive:
                hard = safety + kinematic_half_planes(float(self.headings[i]),
                                                      float(self.linear_speed[i]),
                                                      self.limits[i], self.dt)
                planned[i] = solve_orca(*args, hard_half_planes=hard).velocity
            else:
                planned[i] = result.velocity
        return planned, free

    def _drive_unicycles(self, planned: np.ndarray, free: np.ndarray):
        new_positions = self.positions.copy()
        new_velocities = np.zeros_like(self.velocities)
        for i in np.flatnonzero(self.active):
            v, omega = unicycle_command(tuple(planned[i]), tuple(free[i]), float(self.headings[i]),
                                        (float(self.linear_speed[i]),
                                         float(self.angular_speed[i])),
                                        self.limits[i], self.dt)
            x, y, heading = unicycle_step(float(self.positions[i, 0]),
                                          float(self.positions[i, 1]),
                                          float(self.headings[i]), v, omega, self.dt)
            new_positions[i] = (x, y)
            new_velocities[i] = ((x - self.positions[i, 0]) / self.dt,
                                 (y - self.positions[i, 1]) / self.dt)
            self.headings[i] = heading
            self.linear_speed[i] = v
            self.angular_speed[i] = omega
        return new_positions, new_velocities

    # --- bookkeeping -------------------------------------------------------------

    def _account(self) -> None:
        active = np.flatnonzero(self.active)
        self.ledger.update(self.positions[active], self.radius[active],
                           [self.names[i] for i in active], self.obstacle_polygons)

    def _check_arrivals(self) -> None:
        for i in np.flatnonzero(self.active & np.isnan(self.arrival_time)):
            on_last = self.waypoint_index[i] == len(self.waypoints[i]) - 1 or \
                len(self.waypoints[i]) == 1
            if on_last and math.dist(self.positions[i], self.waypoints[i][-1]) <= \
                    self.goal_tolerance[i]:
                self.arrival_time[i] = self.time
                if self.scenario.on_goal == "remove":
                    self.active[i] = False
                    if self._rvo2 is not None:
                        self._rvo2.remove(i)

    @property
    def all_arrived(self) -> bool:
        return bool(np.all(~np.isnan(self.arrival_time)))

    def run(self, progress: Optional[Callable[[float], None]] = None) -> RunResult:
        started = time.perf_counter()
        while not self.all_arrived and self.time < self.scenario.max_time - 1e-9:
            self.step()
            if progress is not None:
                progress(self.time)
        return self.result(time.perf_counter() - started)

    def result(self, wall_time: float) -> RunResult:
        arrived = ~np.isnan(self.arrival_time)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = self.path_length[arrived] / self.reference_length[arrived]
        ratios = ratios[np.isfinite(ratios)]
        return RunResult(
            scenario=self.scenario.name, method=self.options.method,
            kinematics=self.options.kinematics, agents=len(self.names),
            reached=int(arrived.sum()), collisions=len(self.ledger.pairs),
            min_separation=self.ledger.min_separation,
            deepest_penetration=self.ledger.deepest,
            makespan=float(np.nanmax(self.arrival_time)) if arrived.any() else None,
            mean_time_to_goal=float(np.nanmean(self.arrival_time)) if arrived.any() else None,
            path_length_ratio=float(ratios.mean()) if len(ratios) else None,
            steps=self.steps, wall_time_s=wall_time,
            compute_us_per_agent_step=(1e6 * self.compute_seconds / self.agent_steps
                                       if self.agent_steps else 0.0),
            trajectory=np.array(self._frames), frame_times=np.array(self._frame_times),
            collision_points=list(self.ledger.points),
            collision_pairs=sorted(self.ledger.pairs))


class _Rvo2Backend:
    """The reference RVO2 library (through pyrvo) stepping the same agents."""

    FAR_AWAY = 1e7

    def __init__(self, world: World) -> None:
        try:
            import pyrvo
        except ImportError:
            raise RuntimeError("method rvo2 needs the RVO2 bindings: "
                               "pip install --no-deps pyrvo") from None
        self.sim = pyrvo.RVOSimulator(world.dt, 10.0, 10, 2.0, 2.0, 0.5, 1.0)
        for i, name in enumerate(world.names):
            self.sim.add_agent(tuple(world.positions[i]), float(world.neighbor_dist[i]),
                               int(world.max_neighbors[i]), float(world.time_horizon[i]),
                               float(world.time_horizon_obst[i]), float(world.radius[i]),
                               float(world.max_speed[i]), (0.0, 0.0))
        for polygon in world.obstacle_polygons:
            self.sim.add_obstacle([tuple(v) for v in polygon])
        self.sim.process_obstacles()
        self.world = world

    def step(self, pref: np.ndarray):
        sim = self.sim
        for i in np.flatnonzero(self.world.active):
            sim.set_agent_pref_velocity(int(i), (float(pref[i, 0]), float(pref[i, 1])))
        sim.do_step()
        n = len(self.world.names)
        positions = np.empty((n, 2))
        velocities = np.empty((n, 2))
        for i in range(n):
            positions[i] = sim.get_agent_position(i).to_tuple()
            velocities[i] = sim.get_agent_velocity(i).to_tuple()
        return positions, velocities

    def remove(self, i: int) -> None:
        """RVO2 cannot delete an agent: park it far away, still and alone."""
        far = (self.FAR_AWAY + 1000.0 * i, self.FAR_AWAY)
        self.sim.set_agent_position(int(i), far)
        self.sim.set_agent_pref_velocity(int(i), (0.0, 0.0))
        self.sim.set_agent_velocity(int(i), (0.0, 0.0))
