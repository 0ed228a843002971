"""Peer libraries on the same scenes, for figures side by side in one run.

navground (C++ ORCA, HRVO and HL behind a Python binding; ``pip install .[peers]``) is
optional, as pyrvo is: without it :func:`navground_modules` gives None and the columns
stay empty. A scenario becomes a navground world robot for robot
(:func:`navground_world`): the same radius, top speed (an omnidirectional body's
limit), preferred speed (the behaviour's optimal speed), sensing range
(``neighbor_dist``), time horizons and neighbour count, and the scenario's waypoints as
the robot's task; a step is the control period, the scenario's ``time_step``.
"""

from __future__ import annotations

import time
from typing import Optional

import numpy as np

NAVGROUND_BEHAVIORS = {"orca": "ORCABehavior", "hrvo": "HRVOBehavior", "hl": "HLBehavior"}
"""Our names for navground's behaviours."""


def navground_modules():
    """navground's ``(core, sim)`` modules, or None where it is not installed."""
    try:
        from navground import core, sim
    except ImportError:
        return None
    return core, sim


def navground_world(scenario, behavior: str = "orca"):
    """The robots of ``scenario`` (2D, no walls: the crowd scenes the benchmarks time) in
    a navground world, each driven by navground's ``behavior`` (``orca``, ``hrvo``,
    ``hl``)."""
    modules = navground_modules()
    if modules is None:
        raise RuntimeError("navground is not installed (pip install navground)")
    if scenario.dimensions != 2 or scenario.walls:
        raise ValueError(f"{scenario.name}: the navground comparison takes 2D scenes "
                         "without walls")
    core, sim = modules
    world = sim.World()
    for agent in scenario.agents:
        steer = getattr(core.behaviors, NAVGROUND_BEHAVIORS[behavior])()
        steer.optimal_speed = agent.pref_speed
        steer.horizon = agent.neighbor_dist
        if behavior in ("orca", "hrvo"):
            steer.time_horizon = agent.time_horizon
        if behavior == "orca":
            steer.static_time_horizon = agent.time_horizon_obst
            steer.max_number_of_neighbors = agent.max_neighbors
        robot = sim.Agent(
            radius=agent.radius, behavior=steer,
            kinematics=core.kinematics.OmnidirectionalKinematics(agent.max_speed),
            task=sim.tasks.WaypointsTask([np.array(p, dtype=float) for p in agent.waypoints],
                                         loop=False,
                                         tolerance=scenario.goal_tolerance_of(agent)),
            state_estimations=[sim.state_estimations.BoundedStateEstimation(
                range=agent.neighbor_dist)],
            control_period=scenario.time_step)
        robot.position = np.array(agent.start, dtype=float)
        world.add_agent(robot)
    return world


def navground_us_per_agent_step(scenario, steps: int, behavior: str = "orca"
                                ) -> Optional[float]:
    """Microseconds per agent-step of navground's ``behavior`` on ``scenario`` (one step
    to warm up, then ``steps`` timed); None without navground."""
    if navground_modules() is None:
        return None
    world = navground_world(scenario, behavior)
    world.run(1, scenario.time_step)
    started = time.perf_counter()
    world.run(steps, scenario.time_step)
    return (time.perf_counter() - started) / steps / len(scenario.agents) * 1e6


def navground_orca_call(agent, neighbors, segments):
    """One velocity of navground's C++ ORCA for ``agent`` (an :class:`AgentState`) among
    ``neighbors`` (:class:`NeighborState`) and wall ``segments``, as a call without
    arguments (for timing it beside ``compute_new_velocity``): the same radius, top
    speed, horizons and neighbour count, the preferred velocity as a direction at the
    optimal speed. Each call starts from the agent's velocity."""
    modules = navground_modules()
    if modules is None:
        raise RuntimeError("navground is not installed (pip install navground)")
    core, _ = modules
    behavior = core.behaviors.ORCABehavior()
    behavior.kinematics = core.kinematics.OmnidirectionalKinematics(agent.max_speed)
    behavior.radius = agent.radius
    behavior.horizon = agent.neighbor_dist
    behavior.time_horizon = agent.time_horizon
    behavior.static_time_horizon = agent.time_horizon_obst
    behavior.max_number_of_neighbors = agent.max_neighbors
    behavior.position = np.array(agent.position, dtype=float)
    pref = np.array(agent.pref_velocity, dtype=float)
    speed = float(np.hypot(*pref))
    behavior.optimal_speed = speed
    behavior.target = core.Target.Direction(pref / speed if speed > 0 else np.array([1.0, 0.0]))
    state = behavior.environment_state
    state.neighbors = [core.Neighbor(position=np.array(n.position, dtype=float), radius=n.radius,
                                     velocity=np.array(n.velocity, dtype=float))
                       for n in neighbors]
    state.line_obstacles = [core.LineSegment(np.array(s.a, dtype=float),
                                             np.array(s.b, dtype=float)) for s in segments]
    velocity = np.array(agent.velocity, dtype=float)

    def call():
        behavior.velocity = velocity
        return behavior.compute_cmd(0.1)
    return call

