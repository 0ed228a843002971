"""The scenario world for aerial robots (``dimensions: 3``): holonomic spheres in 3D.

Like :class:`~orca_ros.core.sim.world.World` (and RVO2-3D's ``doStep``): every
agent's new velocity is computed from the same start-of-step state, then all
agents move. Each agent runs the aerial robot's cycle, the one orca_node runs
(:class:`~orca_ros.core.robot.cycle.AerialCycle`, its
:class:`~orca_ros.core.robot.aerial.AerialController`), on readings of zero age;
neighbours come from a k-d tree (scipy's cKDTree, in 3D). A world-only method
(``rvo2``: RVO2-3D itself) steps the agents instead, the controllers still
giving each its preferred velocity. Collisions are accounted exactly by the
same :class:`~orca_ros.core.sim.metrics.CollisionLedger` (distances in 3D), and
:meth:`World3D.result` gives the same :class:`~orca_ros.core.sim.world.RunResult`,
whose trajectory has three columns.

What a 3D scenario cannot have is refused with a message: ``diff_drive`` or
``toio`` kinematics, the supervisor, a method without a 3D version.
"""

from __future__ import annotations

import math
import time
from typing import List, Optional, Union

import numpy as np

from ..robot.aerial import AerialController, Neighbor3D
from ..robot.cycle import AerialCycle, NeighborsNow, OwnReading
from ..robot.perception import NeighborRadii
from ..robot.state import RobotState
from ..methods import method_names, world_spec
from ..scenario.loader import Scenario
from .backends import start_world_backend
from .world import ScenarioRun, World, WorldOptions


def check_3d_options(scenario: Scenario, options: WorldOptions) -> None:
    """Refuse what a 3D scenario cannot run with, naming it."""
    where = scenario.path or scenario.name
    if options.kinematics != "holonomic":
        raise ValueError(f"{where}: a 3D scenario (dimensions: 3) is run holonomic only, "
                         f"not with kinematics {options.kinematics!r}")
    if options.supervisor is not None:
        raise ValueError(f"{where}: the supervisor is 2D only; a 3D scenario "
                         f"(dimensions: 3) runs without it")
    if not world_spec(options.method).supports_3d:
        raise ValueError(f"{where}: method {options.method!r} has no 3D version; in 3D: "
                         f"{', '.join(method_names(dimensions=3))}")


class World3D(ScenarioRun):
    """Agents of a 3D scenario, each with its own :class:`AerialController`, stepped
    together."""

    def __init__(self, scenario: Scenario, options: Optional[WorldOptions] = None) -> None:
        options = WorldOptions() if options is None else options
        if scenario.dimensions != 3:
            raise ValueError(f"{scenario.path or scenario.name}: World3D runs 3D scenarios "
                             f"(dimensions: 3); this one is 2D")
        check_3d_options(scenario, options)
        self._start_run(scenario, options)
        agents = scenario.agents
        spec = world_spec(options.method)
        self.controllers: List[AerialController] = []
        self.cycles: List[AerialCycle] = []
        self._backend = None
        if spec.world_only:  # a world backend (rvo2: RVO2-3D)
            self.controllers = [_PreferenceOnly(options.controller_config(a, scenario))
                                for a in agents]
            self._backend = start_world_backend(options.method, self, dimensions=3)
        else:
            radius_of = NeighborRadii({a.name: a.radius for a in agents})
            perception = options.perception_settings()
            self.cycles = [AerialCycle(options.controller_config(a, scenario), key=a.name,
                                       perception=perception, radius_of=radius_of)
                           for a in agents]
            self.controllers = [cycle.controller for cycle in self.cycles]
        for agent, controller in zip(agents, self.controllers):
            controller.set_path(agent.waypoints)
        self.strict = spec.strict
        configs = [c.config for c in self.controllers]
        # The k-d tree's reach for the safety half-spaces: a pair farther apart than the
        # distance both can close within one command horizon is never bound by them.
        self._close_reach = 2.0 * max(c.safety_radius(c.radius) for c in configs) + \
            2.0 * max(c.max_speed * c.command_horizon for c in configs) * 2.0
        self._frames: List[np.ndarray] = [self.positions.copy()]
        self._frame_times: List[float] = [0.0]
        self._check_arrivals()

    # --- stepping ----------------------------------------------------------------------

    def step(self) -> None:
        started = time.perf_counter()
        if self._backend is not None:
            pref = np.zeros((len(self.names), 3))
            for i in np.flatnonzero(self.active):
                pref[i] = self.controllers[i].preferred_velocity(tuple(self.positions[i]))
            new_positions, new_velocities = self._backend.step(pref)
        else:
            new_positions, new_velocities = self._controller_step()
        self.compute_seconds += time.perf_counter() - started
        self._advance(new_positions, new_velocities)

    def _controller_step(self):
        """Every active robot's cycle (:meth:`AerialCycle.step`) with readings of zero
        age, perceived for all at once (one k-d tree) and handed to each as its
        :class:`~orca_ros.core.robot.cycle.NeighborsNow`; then every robot moves at its
        command's velocity (one that holds stands)."""
        active_idx = np.flatnonzero(self.active)
        neighbor_lists, close_lists = self._neighbors(active_idx)
        seen = [Neighbor3D(tuple(p.tolist()), tuple(v.tolist()), float(r), name)
                for p, v, r, name in zip(self.positions, self.velocities, self.radius,
                                         self.names)]
        now = self.time
        moved = active_idx.tolist()
        velocities = []
        for row, i in enumerate(moved):
            close = None if close_lists is None else [seen[j] for j in close_lists[row]]
            own = seen[i]
            result = self.cycles[i].step(
                now, OwnReading(RobotState(own.position[:2], own.velocity[:2]), now),
                own.position, own.velocity,
                NeighborsNow([seen[j] for j in neighbor_lists[row]], close))
            velocities.append((0.0, 0.0, 0.0) if result.holds else result.command.velocity)
        new_positions = self.positions.copy()
        new_velocities = np.zeros_like(self.velocities)
        if moved:
            new_velocities[moved] = velocities
            new_positions[moved] = self.positions[moved] + new_velocities[moved] * self.dt
        return new_positions, new_velocities

    # --- bookkeeping -------------------------------------------------------------------

    def _account(self) -> None:
        active = np.flatnonzero(self.active)
        self.ledger.update(self.positions[active], self.radius[active],
                           [self.names[i] for i in active], [])


class _PreferenceOnly:
    """The controller of an agent a world-only library moves: its path and its
    preferred velocity only (RVO2-3D's examples set preferred velocities, nothing else)."""

    def __init__(self, config) -> None:
        self.config = config
        self.waypoints = []
        self.waypoint_index = 0

    set_path = AerialController.set_path
    goal = AerialController.goal
    at_goal = AerialController.at_goal
    current_target = AerialController.current_target

    def preferred_velocity(self, position):
        target = self.current_target(position)
        if target is None:
            return (0.0, 0.0, 0.0)
        delta = [t - p for t, p in zip(target, position)]
        distance = math.sqrt(sum(d * d for d in delta))
        if distance < 1e-12:
            return (0.0, 0.0, 0.0)
        speed = min(self.config.pref_speed, distance / self.config.time_step)
        return tuple(d / distance * speed for d in delta)


def create_world(scenario: Scenario, options: Optional[WorldOptions] = None
                 ) -> Union[World, World3D]:
    """The world for the scenario: :class:`World3D` for ``dimensions: 3``, else
    :class:`~orca_ros.core.sim.world.World`."""
    options = WorldOptions() if options is None else options
    if scenario.dimensions == 3:
        return World3D(scenario, options)
    return World(scenario, options)
