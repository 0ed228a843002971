"""The ``rvo2`` world backend: the reference RVO2 library itself, through the ``pyrvo``
bindings (an optional install: ``pip install --no-deps pyrvo``).

RVO2 steps all its agents at once, so it cannot run inside one robot's
orca_node; in the world it replaces the controllers' avoidance and motion
(holonomic only), while the controllers still give each agent its preferred
velocity, exactly as RVO2's examples do (``orca-ros bench --method rvo2``).

In a 3D scenario ``rvo2`` is RVO2-3D, through the ``rvo23d`` bindings of the
``jt-pyrvo23d`` wheels (:class:`Rvo2Backend3D`; they reproduce the 240 RVO2-3D
conformance cases to 1e-9).
"""

from __future__ import annotations

from . import REFERENCE_CAPABILITIES, WorldBackendSpec, register_world_backend


class Rvo2Backend:
    """The reference RVO2 library (through pyrvo) stepping the world's agents."""

    FAR_AWAY = 1e7

    def __init__(self, world) -> None:
        try:
            import pyrvo
        except ImportError:
            raise RuntimeError("method rvo2 needs the RVO2 bindings: "
                               "pip install --no-deps pyrvo") from None
        self.sim = pyrvo.RVOSimulator(world.dt, 10.0, 10, 2.0, 2.0, 0.5, 1.0)
        for agent in world.scenario.agents:
            self.sim.add_agent(agent.start, agent.neighbor_dist, agent.max_neighbors,
                               agent.time_horizon, agent.time_horizon_obst, agent.radius,
                               agent.max_speed, (0.0, 0.0))
        for polygon in world.obstacle_polygons:
            self.sim.add_obstacle([tuple(v) for v in polygon])
        self.sim.process_obstacles()
        self.world = world

    def step(self, pref):
        import numpy as np

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


class Rvo2Backend3D:
    """The reference RVO2-3D library (through ``rvo23d``, pip package ``jt-pyrvo23d``)
    stepping a 3D world's agents (RVO2-3D has no obstacles)."""

    FAR_AWAY = 1e7

    def __init__(self, world) -> None:
        try:
            import rvo23d
        except ImportError:
            raise RuntimeError("method rvo2 in 3D needs the RVO2-3D bindings: "
                               "pip install --no-deps jt-pyrvo23d (CPython 3.11, x86_64 "
                               "wheels only)") from None
        first = world.scenario.agents[0]
        # (time step, neighbour distance, max neighbours, time horizon, radius, max speed,
        # velocity): the defaults; every agent gets its own below.
        self.sim = rvo23d.PyRVOSimulator(world.dt, first.neighbor_dist, first.max_neighbors,
                                         first.time_horizon, first.radius, first.max_speed,
                                         (0.0, 0.0, 0.0))
        for agent in world.scenario.agents:
            self.sim.addAgent(tuple(agent.start), agent.neighbor_dist, agent.max_neighbors,
                              agent.time_horizon, agent.radius, agent.max_speed,
                              (0.0, 0.0, 0.0))
        self.world = world

    def step(self, pref):
        import numpy as np

        sim = self.sim
        for i in np.flatnonzero(self.world.active):
            sim.setAgentPrefVelocity(int(i), tuple(float(c) for c in pref[i]))
        sim.doStep()
        n = len(self.world.names)
        positions = np.array([sim.getAgentPosition(i) for i in range(n)], dtype=float)
        velocities = np.array([sim.getAgentVelocity(i) for i in range(n)], dtype=float)
        return positions, velocities

    def remove(self, i: int) -> None:
        """RVO2-3D cannot delete an agent: park it far away, still and alone."""
        self.sim.setAgentPosition(int(i), (self.FAR_AWAY + 1000.0 * i, self.FAR_AWAY, 0.0))
        self.sim.setAgentPrefVelocity(int(i), (0.0, 0.0, 0.0))
        self.sim.setAgentVelocity(int(i), (0.0, 0.0, 0.0))


RVO2 = WorldBackendSpec(
    "rvo2", "the reference RVO2 library through pyrvo, RVO2-3D through rvo23d in 3D (world "
    "only, holonomic)", Rvo2Backend, Rvo2Backend3D, REFERENCE_CAPABILITIES)


def register() -> None:
    """Register the ``rvo2`` world backend (the entry point ``rvo2``)."""
    register_world_backend(RVO2)
