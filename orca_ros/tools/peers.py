"""Peer libraries on the same scenes, for figures side by side in one run.

navground (C++ ORCA, HRVO and HL behind a Python binding; ``pip install .[peers]``) is
optional, as pyrvo is: without it :func:`navground_modules` gives None and the columns
stay empty. A scenario becomes a navground world robot for robot
(:func:`navground_world`): the same radius, top speed (an omnidirectional body's
limit), preferred speed (the behaviour's optimal speed), sensing range
(``neighbor_dist``), time horizons and neighbour count, and the scenario's waypoints as
the robot's task; a step is the control period, the scenario's ``time_step``. The
scenario's walls are navground's walls, edge for edge (a polygon's every side, a segment
as it is). navground's own collision handling is off (no push-apart): robots move as
their behaviour commands, and contact is judged afterwards by our ledger.

:func:`navground_run` runs such a world to completion (every robot home, or
``max_time``), recording every robot's position each step; :func:`judge_tracks` judges
any recorded run as the world judges its own (:class:`~orca_ros.core.sim.metrics.CollisionLedger`,
arrivals, the motion and social-navigation figures), so one contact rule and one set of
figures apply to every library.
"""

from __future__ import annotations

import time
from typing import Optional, Sequence

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
    """The robots of ``scenario`` (2D) in a navground world, each driven by navground's
    ``behavior`` (``orca``, ``hrvo``, ``hl``), among the scenario's walls
    (:func:`wall_segments`), with navground's collision handling off."""
    modules = navground_modules()
    if modules is None:
        raise RuntimeError("navground is not installed (pip install navground)")
    if scenario.dimensions != 2:
        raise ValueError(f"{scenario.name}: the navground comparison takes 2D scenes")
    if scenario.occupancy is not None:
        raise ValueError(f"{scenario.name}: the navground comparison takes no map: scenes")
    core, sim = modules
    world = sim.World()
    world.ignore_collisions = True  # no push-apart: our ledger judges contact
    for a, b in wall_segments(scenario):
        world.add_wall(sim.Wall(np.array(a, dtype=float), np.array(b, dtype=float)))
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


def wall_segments(scenario) -> list:
    """Every wall of ``scenario`` as segments ``((x0, y0), (x1, y1))``: a polygon's sides
    (closed), a two-vertex outline as it is; the ``unmapped_obstacles`` too (robots are
    not told of them, but they are there)."""
    segments = []
    for outline in scenario.solid_outlines:
        points = [tuple(float(c) for c in v[:2]) for v in outline]
        if len(points) == 2:
            segments.append((points[0], points[1]))
        else:
            segments.extend(zip(points, points[1:] + points[:1]))
    return segments


class PeerTimeout(RuntimeError):
    """A peer's run stopped at its wall-time limit: no figures (a run judged half way
    would count robots still on their way as left out)."""


def navground_run(scenario, behavior: str = "orca", wall_limit: Optional[float] = None):
    """Run ``scenario`` in navground with ``behavior`` until every robot has arrived (and,
    for ``on_goal: stay``, stands within its goal tolerance) or ``max_time``, one
    ``time_step`` at a time, and judge it (:func:`judge_tracks`). Every robot's position
    is recorded after every step; a robot within its goal tolerance of its goal has
    arrived, and under ``on_goal: remove`` it leaves navground's world then (disabled:
    no one sees it) and its positions after that are NaN, as the world records them.
    The row's method is ``navground-<behavior>``, its kinematics holonomic.
    ``wall_limit`` (s): a run still going after that much wall time raises
    :class:`PeerTimeout`, saying how far it came (navground's HRVO took 0.1 s a step
    and more on SteerSuite's 200-robot hallway, of 8,000 steps)."""
    world = navground_world(scenario, behavior)
    agents = list(world.agents)
    goals = np.array([a.goal for a in scenario.agents], dtype=float)
    tolerance = np.array([scenario.goal_tolerance_of(a) for a in scenario.agents])
    active = np.ones(len(agents), dtype=bool)
    arrived = np.zeros(len(agents), dtype=bool)
    frames = [np.array([a.start for a in scenario.agents], dtype=float)]
    times = [0.0]
    steps, compute = 0, 0.0
    dt = scenario.time_step
    started = time.perf_counter()
    while steps * dt < scenario.max_time - 1e-9:
        before = time.perf_counter()
        world.update(dt)
        compute += time.perf_counter() - before
        steps += 1
        if wall_limit is not None and time.perf_counter() - started > wall_limit:
            raise PeerTimeout(f"stopped after {wall_limit:g} s of wall time, "
                              f"{steps * dt:g} of {scenario.max_time:g} s simulated")
        positions = np.array([a.position for a in agents], dtype=float)
        positions[~active] = np.nan
        near = np.linalg.norm(positions - goals, axis=1) <= tolerance  # NaN: False
        arrived |= near
        frames.append(positions)
        times.append(steps * dt)
        if scenario.on_goal == "remove":
            for i in np.flatnonzero(near & active):
                agents[i].enabled = False
            active &= ~near
        if arrived.all() and (scenario.on_goal != "stay" or near.all()):
            break
    agent_steps = sum(int(np.sum(np.isfinite(f[:, 0]))) for f in frames[1:])
    return judge_tracks(scenario, np.array(times), np.array(frames),
                        f"navground-{behavior}", wall_time=time.perf_counter() - started,
                        compute_us_per_agent_step=1e6 * compute / agent_steps
                        if agent_steps else 0.0)


def judge_tracks(scenario, times: Sequence[float], trajectory: np.ndarray, method: str,
                 kinematics: str = "holonomic", wall_time: float = 0.0,
                 compute_us_per_agent_step: float = 0.0):
    """A recorded run of ``scenario`` judged as the world judges its own runs: ``times``
    (T,) s from 0 and ``trajectory`` (T, agents, 2) m in the scenario's agent order, NaN
    where a robot has left. Contact: our :class:`~orca_ros.core.sim.metrics.CollisionLedger`
    at every recorded step after the first (the robots present, the scenario's solid
    walls and map); arrival: the first step within its goal tolerance of its goal;
    path length: the polyline through its positions; the motion and social-navigation
    figures from its track (:func:`~orca_ros.core.sim.motion_quality.fleet_motion_quality`).
    Returns a :class:`~orca_ros.core.sim.world.RunResult`, whose ``summary()`` is a
    bench row."""
    from ..core.sim.metrics import CollisionLedger
    from ..core.sim.motion_quality import RobotTrack, fleet_motion_quality
    from ..core.sim.world import RunResult

    times = np.asarray(times, dtype=float)
    trajectory = np.asarray(trajectory, dtype=float)
    names = [a.name for a in scenario.agents]
    radii = np.array([a.radius for a in scenario.agents])
    goals = np.array([a.goal for a in scenario.agents], dtype=float)
    tolerance = np.array([scenario.goal_tolerance_of(a) for a in scenario.agents])
    walls = [np.array(w) for w in scenario.solid_outlines]
    ledger = CollisionLedger(occupancy=scenario.occupancy)
    for frame in trajectory[1:]:
        present = np.flatnonzero(np.all(np.isfinite(frame), axis=1))
        ledger.update(frame[present], radii[present], [names[i] for i in present], walls)
    arrival = np.full(len(names), np.nan)
    for k, frame in enumerate(trajectory):
        near = np.isnan(arrival) & (np.linalg.norm(frame - goals, axis=1) <= tolerance)
        arrival[near] = times[k]
    steps = np.linalg.norm(np.diff(trajectory, axis=0), axis=2)
    path = np.nansum(steps, axis=0)
    home = ~np.isnan(arrival)
    reference = np.array([a.reference_length for a in scenario.agents])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = path[home] / reference[home]
    ratios = ratios[np.isfinite(ratios)]
    figures = fleet_motion_quality(scenario, {
        name: RobotTrack(times, trajectory[:, i]) for i, name in enumerate(names)})
    return RunResult(
        scenario=scenario.name, method=method, kinematics=kinematics, agents=len(names),
        reached=int(home.sum()), collisions=len(ledger.pairs),
        min_separation=ledger.min_separation, deepest_penetration=ledger.deepest,
        makespan=float(np.nanmax(arrival)) if home.any() else None,
        mean_time_to_goal=float(np.nanmean(arrival)) if home.any() else None,
        path_length_ratio=float(ratios.mean()) if len(ratios) else None,
        steps=max(len(times) - 1, 0), wall_time_s=wall_time,
        compute_us_per_agent_step=compute_us_per_agent_step, trajectory=trajectory,
        frame_times=times, collision_points=list(ledger.points),
        collision_pairs=sorted(ledger.pairs), wall_collisions=len(ledger.wall_pairs),
        motion_quality=figures, at_goal_at_end=int(np.sum(
            ~np.all(np.isfinite(trajectory[-1]), axis=1) |
            (np.linalg.norm(trajectory[-1] - goals, axis=1) <= tolerance)))
        if len(trajectory) else None)


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

