"""``rvo2``: the reference RVO2 library itself (through the ``pyrvo`` bindings), world only.

RVO2 steps all its agents at once, so it cannot run inside one robot's
orca_node; in the world it replaces the controllers' avoidance and motion
(holonomic only), while the controllers still give each agent its preferred
velocity, exactly as RVO2's examples do.
"""

from __future__ import annotations

from .base import AvoidanceMethod, MethodOutput, MethodSpec, RobotView, register_method


class Rvo2Reference(AvoidanceMethod):
    """Stands for the library in the registry; the world runs :class:`Rvo2Backend` instead."""

    def compute_velocity(self, view: RobotView) -> MethodOutput:
        raise RuntimeError("method rvo2 steps the whole world at once: it runs only in "
                           "`orca-ros bench`, not for one robot")


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


RVO2 = register_method(MethodSpec(
    "rvo2", "the reference RVO2 library through pyrvo (world only, holonomic)",
    Rvo2Reference, strict=True, keep_right=False, safety_filter=False, world_only=True,
    holonomic_only=True, world_backend=Rvo2Backend))
