"""Timing benchmarks of the ORCA core, beside the RVO2 reference through pyrvo.

Nothing here is asserted in tests: the figures go into the README with the
command that produced them (``orca-ros bench-step``, ``orca-ros bench-scaling``).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass
from functools import partial
from typing import List, Optional, Sequence, Tuple

from ..core.collector import steady_loop
from ..core import AgentState, NeighborState, Segment, build_obstacle_edges, compute_new_velocity
from ..core.scenario.builders import circle_scenario_yaml

try:  # the reference library is optional
    import pyrvo
except ImportError:  # pragma: no cover - depends on the environment
    pyrvo = None


@dataclass
class StepTiming:
    neighbors: int
    segments: int
    median_us: float
    p99_us: float
    rvo2_median_us: Optional[float]
    rvo2_p99_us: Optional[float]
    navground_median_us: Optional[float] = None
    cycle_median_us: Optional[float] = None  # the whole robot cycle, holonomic
    cycle_diff_drive_median_us: Optional[float] = None  # ... and a unicycle's
    # their means: with the periods that re-plan round the walls (every guidance_period),
    # which the median passes over and the robot's CPU does not
    cycle_mean_us: Optional[float] = None
    cycle_diff_drive_mean_us: Optional[float] = None

    @property
    def ratio(self) -> Optional[float]:
        return self.median_us / self.rvo2_median_us if self.rvo2_median_us else None

    @property
    def navground_ratio(self) -> Optional[float]:
        return self.median_us / self.navground_median_us if self.navground_median_us else None


def _percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(math.ceil(q * len(ordered))) - 1)]


def random_step_case(rng: random.Random, num_neighbors: int, num_segments: int):
    """An agent at the origin with neighbours in a 0.8-6 m ring and segments within reach."""
    agent = AgentState(position=(0.0, 0.0), velocity=(rng.uniform(-1, 1), rng.uniform(-1, 1)),
                       radius=0.3, max_speed=1.5, pref_velocity=(1.2, 0.0), time_horizon=2.0,
                       time_horizon_obst=2.0, neighbor_dist=10.0,
                       max_neighbors=max(num_neighbors, 1))
    neighbors = []
    for _ in range(num_neighbors):
        distance, bearing = rng.uniform(0.8, 6.0), rng.uniform(-math.pi, math.pi)
        neighbors.append(NeighborState(
            (distance * math.cos(bearing), distance * math.sin(bearing)),
            (rng.uniform(-1, 1), rng.uniform(-1, 1)), 0.3))
    segments = []
    for k in range(num_segments):
        bearing = 2 * math.pi * k / max(num_segments, 1)
        distance = rng.uniform(1.2, 3.0)
        cx, cy = distance * math.cos(bearing), distance * math.sin(bearing)
        tx, ty = -math.sin(bearing) * 0.4, math.cos(bearing) * 0.4  # tangent, 0.8 m long
        segments.append(Segment((cx - tx, cy - ty), (cx + tx, cy + ty)))
    return agent, neighbors, segments


def _time_rvo2(agent, neighbors, segments, repeats: int) -> List[float]:
    """RVO2 per agent: one ``doStep`` of the subject and its neighbours, divided by their number.

    Every agent in that step sees the same crowd, so the quotient is RVO2's
    cost of one ``computeNewVelocity`` (its k-d tree rebuild and the Python
    call shared out among them).
    """
    sim = pyrvo.RVOSimulator(0.1, agent.neighbor_dist, agent.max_neighbors, agent.time_horizon,
                             agent.time_horizon_obst, agent.radius, agent.max_speed)
    states = [(agent.position, agent.velocity)] + [(n.position, n.velocity) for n in neighbors]
    for position, velocity in states:
        index = sim.add_agent(position)
        sim.set_agent_velocity(index, velocity)
        sim.set_agent_pref_velocity(index, agent.pref_velocity)
    for segment in segments:
        sim.add_obstacle([segment.a, segment.b])
    sim.process_obstacles()
    samples = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        for index, (position, velocity) in enumerate(states):
            sim.set_agent_position(index, position)
            sim.set_agent_velocity(index, velocity)
        start = clock()
        sim.do_step()
        samples.append((clock() - start) / 1000.0 / len(states))
    return samples


def _time_call(call, repeats: int) -> List[float]:
    samples = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        start = clock()
        call()
        samples.append((clock() - start) / 1000.0)
    return samples


def _time_robot_cycle(agent, neighbors, edges, kinematics: str, repeats: int) -> List[float]:
    """One robot's whole cycle (:meth:`~orca_ros.core.robot.cycle.RobotCycle.step`: its
    neighbours' readings perceived, the preferred velocity with guidance round the walls,
    the safety filter, ORCA and, for a unicycle, tracking), on a case of
    :func:`random_step_case`, its goal 8 m ahead; the first call, which builds what lasts
    (guidance's roadmap), is not timed. The readings come as orca_node hands them over:
    rows of arrays (:class:`~orca_ros.core.robot.readings.Readings`), written as the
    messages came, not in the cycle."""
    from ..core.robot.config import ControllerConfig
    from ..core.robot.cycle import OwnReading, RobotCycle
    from ..core.robot.perception import NeighborReading
    from ..core.robot.readings import Readings
    from ..core.robot.state import RobotState

    config = ControllerConfig(radius=agent.radius, max_speed=agent.max_speed, pref_speed=1.2,
                              time_step=0.1, neighbor_dist=agent.neighbor_dist,
                              max_neighbors=agent.max_neighbors,
                              time_horizon=agent.time_horizon,
                              time_horizon_obst=agent.time_horizon_obst, kinematics=kinematics)
    cycle = RobotCycle(config, key="robot")
    cycle.set_path([(8.0, 0.0)])
    readings = Readings.of({f"n{k}": NeighborReading(0.0, n.position, n.velocity,
                                                     announced=True)
                            for k, n in enumerate(neighbors)})
    vx, vy = agent.velocity
    own = OwnReading(RobotState(agent.position, agent.velocity, math.atan2(vy, vx),
                                math.hypot(vx, vy), 0.0), 0.0)
    cycle.step(0.0, own, readings, edges)
    return _time_call(partial(cycle.step, 0.0, own, readings, edges), repeats)


def step_benchmark(neighbor_counts: Sequence[int] = (0, 5, 10, 20), num_segments: int = 10,
                   cases: int = 100, repeats: int = 50, seed: int = 1) -> List[StepTiming]:
    """Median and p99 time of one ``compute_new_velocity`` call, with RVO2's (pyrvo) and
    navground's C++ ORCA (one ``compute_cmd`` through its binding) beside it, on the same
    cases, where those are installed; and the median and mean of the whole robot cycle
    around it (:func:`_time_robot_cycle`), holonomic and diff-drive. Timed with the
    collector set as the nodes set it (:func:`~orca_ros.core.collector.steady_loop`)."""
    from .peers import navground_modules

    with_navground = navground_modules() is not None
    rng = random.Random(seed)
    results = []
    with steady_loop():  # the collector as the nodes and the world set it
        for count in neighbor_counts:
            results.append(_step_timing(count, num_segments, cases, repeats, rng,
                                        with_navground))
    return results


def _step_timing(count: int, num_segments: int, cases: int, repeats: int,
                 rng: random.Random, with_navground: bool) -> StepTiming:
    """One row of :func:`step_benchmark`: ``cases`` random cases of ``count`` neighbours."""
    from .peers import navground_orca_call

    ours: List[float] = []
    theirs: List[float] = []
    navground: List[float] = []
    cycles: List[float] = []
    unicycles: List[float] = []
    for _ in range(cases):
        agent, neighbors, segments = random_step_case(rng, count, num_segments)
        edges = build_obstacle_edges(segments)
        ours.extend(_time_call(partial(compute_new_velocity, agent, neighbors, edges, 0.1),
                               repeats))
        if pyrvo is not None:
            theirs.extend(_time_rvo2(agent, neighbors, segments, repeats))
        if with_navground:
            navground.extend(_time_call(navground_orca_call(agent, neighbors, segments),
                                        repeats))
        cycles.extend(_time_robot_cycle(agent, neighbors, edges, "holonomic", repeats))
        unicycles.extend(_time_robot_cycle(agent, neighbors, edges, "diff_drive", repeats))
    return StepTiming(
        count, num_segments, statistics.median(ours), _percentile(ours, 0.99),
        statistics.median(theirs) if theirs else None,
        _percentile(theirs, 0.99) if theirs else None,
        statistics.median(navground) if navground else None,
        statistics.median(cycles), statistics.median(unicycles),
        statistics.fmean(cycles), statistics.fmean(unicycles))


def format_step_table(results: Sequence[StepTiming]) -> str:
    lines = ["| neighbours | segments | median µs | p99 µs | RVO2 median µs | RVO2 p99 µs "
             "| ratio (median) | navground ORCA median µs | ratio "
             "| robot cycle median µs (holonomic) | (diff-drive) "
             "| robot cycle mean µs (holonomic) | (diff-drive) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        rvo2 = (f"{r.rvo2_median_us:.2f} | {r.rvo2_p99_us:.2f} | {r.ratio:.1f}x"
                if r.rvo2_median_us else "n/a | n/a | n/a")
        navground = (f"{r.navground_median_us:.2f} | {r.navground_ratio:.1f}x"
                     if r.navground_median_us else "n/a | n/a")
        cycle = " | ".join(f"{t:.1f}" if t is not None else "n/a"
                           for t in (r.cycle_median_us, r.cycle_diff_drive_median_us,
                                     r.cycle_mean_us, r.cycle_diff_drive_mean_us))
        lines.append(f"| {r.neighbors} | {r.segments} | {r.median_us:.1f} | {r.p99_us:.1f} "
                     f"| {rvo2} | {navground} | {cycle} |")
    return "\n".join(lines)


def node_period_benchmark(robots: int = 100, kinematics: str = "holonomic",
                          periods: int = 1000, seed: int = 1) -> Tuple[float, int]:
    """Median CPU time (µs) of one ``orca_node`` period at ``robots`` robots, as the node
    runs it without ROS: the readings that count chosen from its table of the others'
    announced states (:meth:`~orca_ros.core.robot.inputs.RobotInputs.neighbors`), then
    :meth:`~orca_ros.core.robot.control.RobotControl.control` (the cycle, the reciprocity
    monitor, the progress watch). The fleet stands at random in a square of 1.5 m a side
    per robot and drifts along x at 0.3 m/s with the robot; every period brings every
    robot's new state. Returns the median and how many neighbours the last period
    perceived (the robot drives through the crowd: it never holds)."""
    from ..core.geometry.frames import Pose2
    from ..core.robot.control import RobotControl
    from ..core.robot.readings import ReadingTable
    from ..nodes.params.orca_node import PARAMETERS

    rng = random.Random(seed)
    params = {p.name: list(p.default) if isinstance(p.default, tuple) else p.default
              for p in PARAMETERS}
    params["kinematics"] = kinematics
    robot = RobotControl("me", params, True, lambda: {})
    robot.set_goal("", (1e4, 0.0, 0.0))
    side = 1.5 * math.sqrt(robots)
    others = [(f"r{k}", rng.uniform(-side / 2, side / 2), rng.uniform(-side / 2, side / 2),
               0.3 + rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2)) for k in range(robots - 1)]
    table = ReadingTable()
    clock = time.thread_time_ns
    samples = []
    with steady_loop():  # the collector as orca_node's process sets it
        for k in range(periods + 1):
            now = 1.0 + 0.1 * k
            drift = 0.3 * (now - 1.0)
            for name, x, y, vx, vy in others:  # their states came a little before
                table.put(name, now - 0.03, now - 0.03, x + drift, y, vx, vy, announced=True)
            robot.odometry(int(now * 1e9), now, Pose2(drift, 0.0, 0.0), (0.3, 0.0), 0.0, 0.0,
                           lambda: (0.0, 0.0))
            start = clock()
            outcome = robot.control(now, robot.inputs.neighbors(now, table, table, False, 1.5),
                                    lambda name: True)
            if k:  # the first builds what lasts
                samples.append((clock() - start) / 1000.0)
    perceived = outcome.result.perceived
    return statistics.median(samples), len(perceived.neighbors) if perceived else 0


def ros_fleet_benchmark(counts: Sequence[int] = (10, 20, 40), duration: float = 20.0,
                        speed_factor: float = 1.0, kinematics: str = "holonomic") -> List[dict]:
    """Run N robots through real nodes in one process; report the control loop's timing."""
    import tempfile

    from ..fleet.plan import FleetOptions
    from ..fleet.runner import run_in_process

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for count in counts:
            path = f"{folder}/circle_{count}.yaml"
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(circle_scenario_yaml(count))
            run = run_in_process(path, FleetOptions(kinematics=kinematics,
                                                    speed_factor=speed_factor),
                                 max_time=duration)
            s = run.summary
            rows.append({"robots": count, "sim_s": round(float(run.frame_times[-1]), 2),
                         "wall_s": s["wall_time_s"], "control_rate_hz": s["control_rate_hz"],
                         "late_cycle_share": s["late_cycle_share"],
                         "latency_ms_p50": s["odom_to_cmd_latency_ms_p50"],
                         "latency_ms_p99": s["odom_to_cmd_latency_ms_p99"],
                         "collisions": s["collisions"]})
    return rows


def format_ros_table(rows: Sequence[dict], target_hz: float = 10.0) -> str:
    lines = [f"| robots | sim s | wall s | control rate Hz (target {target_hz:g}) | late cycles "
             "| odom→cmd_vel p50 ms | p99 ms | colliding pairs |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['robots']} | {r['sim_s']} | {r['wall_s']:.1f} | {r['control_rate_hz']} "
                     f"| {100 * (r['late_cycle_share'] or 0):.1f}% | {r['latency_ms_p50']} "
                     f"| {r['latency_ms_p99']} | {r['collisions']} |")
    return "\n".join(lines)


def _crowd_circle(count: int, spacing: float = 2.0):
    """``count`` agents 2 m apart on a circle, each seeing ~10 neighbours, all heading across."""
    from ..core.scenario.loader import parse_scenario

    circle = count * spacing / (2 * math.pi)
    agents = []
    for k in range(count):
        a = 2 * math.pi * k / count
        agents.append({"name": f"a{k}", "start": [circle * math.cos(a), circle * math.sin(a)],
                       "goal": [-circle * math.cos(a), -circle * math.sin(a)]})
    return parse_scenario({
        "name": f"crowd_circle_{count}", "time_step": 0.25, "max_time": 1e6, "on_goal": "stay",
        "defaults": {"radius": 0.5, "max_speed": 2.0, "pref_speed": 1.0, "neighbor_dist": 10.5,
                     "max_neighbors": 10, "time_horizon": 5.0, "time_horizon_obst": 5.0},
        "agents": agents, "obstacles": []}, f"<crowd circle of {count}>")


@dataclass
class ScalingRow:
    agents: int
    method: str
    us_per_agent_step: float
    rvo2_us_per_agent_step: Optional[float]
    navground_us_per_agent_step: Optional[float] = None  # navground's ORCA, same scene

    @property
    def ratio(self) -> Optional[float]:
        return (self.us_per_agent_step / self.rvo2_us_per_agent_step
                if self.rvo2_us_per_agent_step else None)


def scaling_benchmark(counts: Sequence[int] = (100, 1000, 5000), steps: int = 30,
                      methods: Sequence[str] = ("orca", "orca_strict")) -> List[ScalingRow]:
    """Time of one world step per agent (neighbour search and ORCA for everyone), beside RVO2
    in the same world loop and navground's ORCA in its own (:mod:`orca_ros.tools.peers`),
    where they are installed."""
    from ..core.sim.world import World, WorldOptions
    from .peers import navground_us_per_agent_step

    rows = []
    for count in counts:
        scenario = _crowd_circle(count)
        navground = navground_us_per_agent_step(scenario, steps)
        reference = None
        if pyrvo is not None:
            world = World(scenario, WorldOptions(method="rvo2"))
            reference = _us_per_agent_step(world, steps, count)
        for method in methods:
            world = World(scenario, WorldOptions(method=method))
            elapsed = _us_per_agent_step(world, steps, count)
            rows.append(ScalingRow(count, method, elapsed, reference, navground))
    return rows


def _us_per_agent_step(world, steps: int, count: int) -> float:
    """A world's mean wall time per agent-step over ``steps`` steps after one of warm-up,
    the collector set as :meth:`~orca_ros.core.sim.world.ScenarioRun.run` sets it."""
    world.step()
    with steady_loop():
        started = time.perf_counter()
        for _ in range(steps):
            world.step()
        return (time.perf_counter() - started) / steps / count * 1e6


def format_scaling_table(rows: Sequence[ScalingRow]) -> str:
    lines = ["| agents | method | µs per agent-step | RVO2 µs per agent-step | ratio | "
             "navground ORCA µs per agent-step | ratio |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        rvo2 = f"{r.rvo2_us_per_agent_step:.2f} | {r.ratio:.1f}x" if r.rvo2_us_per_agent_step \
            else "n/a | n/a"
        peer = r.navground_us_per_agent_step
        navground = f"{peer:.2f} | {r.us_per_agent_step / peer:.1f}x" if peer else "n/a | n/a"
        lines.append(f"| {r.agents} | {r.method} | {r.us_per_agent_step:.1f} | {rvo2} | "
                     f"{navground} |")
    return "\n".join(lines)


@dataclass
class RfunctionTemplateFigures:
    """What ``orca-ros bench-rfunction`` measures (see :func:`rfunction_benchmark`)."""

    slices: int
    step: float
    extent: float
    nbytes: int
    build_s: float
    ambiguous_cell_share: float
    grid_queries: int
    grid_answered_share: float
    grid_max_error: float  # |u_template - u_exact| / rho, over the queries answered
    grid_p99_error: float
    grid_sign_mismatches: int
    scene_queries: int
    scene_ambiguous_share: float
    scene_outside_share: float
    scene_max_error: float
    exact_us: float  # one scalar correction, exact formula
    template_us: float  # one scalar correction through the template (fallbacks included)
    exact_batch_ns: float  # per query, numpy over all the scene queries at once
    template_batch_ns: float


def _best_seconds(run, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def rfunction_scene_pairs(count: int, seed: int = 1, radius: float = 0.3,
                          max_speed: float = 1.5, time_horizon: float = 2.0,
                          reach: float = 6.0):
    """``count`` random pairs as robots meet them: two robots of ``radius``, the other
    between just apart and ``reach`` m away at any bearing, both velocities anywhere in
    the ``max_speed`` disc. Returns ``(cones, relative velocities)``."""
    from ..core.orca.rfunction import truncated_cone

    rng = random.Random(seed)
    cones, velocities = [], []
    r = 2.0 * radius
    for _ in range(count):
        distance = rng.uniform(1.05 * r, reach)
        bearing = rng.uniform(-math.pi, math.pi)
        cones.append(truncated_cone((distance * math.cos(bearing), distance * math.sin(bearing)),
                                    r, time_horizon))
        rel = []
        for _robot in range(2):
            speed = max_speed * math.sqrt(rng.random())
            heading = rng.uniform(-math.pi, math.pi)
            rel.append((speed * math.cos(heading), speed * math.sin(heading)))
        velocities.append((rel[0][0] - rel[1][0], rel[0][1] - rel[1][1]))
    return cones, velocities


def rfunction_benchmark(queries: int = 200000, scene_queries: int = 20000, slices: int = 100,
                        step: float = 0.08, extent: float = 16.0, seed: int = 1,
                        repeats: int = 5) -> RfunctionTemplateFigures:
    """The voxel template (:class:`~orca_ros.core.orca.rfunction.VoxelTemplate`) against the exact
    formula: its error in units of ``rho`` over ``queries`` uniform over the grid and every
    ``beta`` and over ``scene_queries`` pairs as robots meet them
    (:func:`rfunction_scene_pairs`), the share answered by the formula instead, its memory
    and build time, and the time per query of both, scalar (as the method calls them) and
    numpy over all scene queries at once (best of ``repeats``)."""
    import numpy as np

    from ..core.orca.rfunction import VoxelTemplate, correction, normalised_exact

    template = VoxelTemplate(slices, step, extent)
    rng = np.random.default_rng(seed)
    beta = rng.uniform(0.0, 0.5 * math.pi, queries)
    qx = rng.uniform(-extent, 0.5 * extent, queries)
    qy = rng.uniform(0.0, 0.5 * extent, queries)
    big_f, ux, uy, _, answered = template.lookup_batch(beta, qx, qy)
    exact_f, exact_ux, exact_uy, _ = normalised_exact(np.sin(beta), np.cos(beta), qx, qy)
    error = np.hypot(ux - exact_ux, uy - exact_uy)[answered]
    mismatches = int(np.sum((big_f >= 0.0)[answered] != (exact_f >= 0.0)[answered]))

    cones, velocities = rfunction_scene_pairs(scene_queries, seed)
    template.reset_stats()
    scene_error = 0.0
    for cone, v in zip(cones, velocities):
        ours = template.correction(cone, v)
        if ours.from_template:
            exact = correction(cone, v)
            scene_error = max(scene_error, math.hypot(ours.u[0] - exact.u[0],
                                                      ours.u[1] - exact.u[1]) / cone.rho)
    stats = template.stats()
    pairs = list(zip(cones, velocities))
    exact_s = _best_seconds(lambda: [correction(c, v) for c, v in pairs], repeats)
    template_s = _best_seconds(lambda: [template.correction(c, v) for c, v in pairs], repeats)

    # numpy over all scene queries: the normalised coordinates, then formula or look-up
    s_beta = np.array([c.beta for c in cones])
    bearing = np.array([c.bearing for c in cones])
    w = np.array(velocities) - np.array([c.centre for c in cones])
    rho = np.array([c.rho for c in cones])
    s_qx = (w[:, 0] * bearing[:, 0] + w[:, 1] * bearing[:, 1]) / rho
    s_qy = np.abs(bearing[:, 0] * w[:, 1] - bearing[:, 1] * w[:, 0]) / rho
    sin_b, cos_b = np.sin(s_beta), np.cos(s_beta)
    exact_batch = _best_seconds(lambda: normalised_exact(sin_b, cos_b, s_qx, s_qy), repeats)
    template_batch = _best_seconds(lambda: template.lookup_batch(s_beta, s_qx, s_qy), repeats)
    n = len(pairs)
    return RfunctionTemplateFigures(
        slices, step, extent, template.nbytes, template.build_seconds,
        template.ambiguous_cell_share, queries, float(answered.mean()), float(error.max()),
        float(np.percentile(error, 99)), mismatches, n, stats.ambiguous / stats.queries,
        stats.outside / stats.queries, scene_error, exact_s / n * 1e6, template_s / n * 1e6,
        exact_batch / n * 1e9, template_batch / n * 1e9)


def format_rfunction_figures(f: RfunctionTemplateFigures) -> str:
    return "\n".join([
        f"template: {f.slices} beta-slices, step {f.step:g} rho, q_x in [-{f.extent:g}, "
        f"{f.extent / 2:g}], q_y in [0, {f.extent / 2:g}]: {f.nbytes / 1e6:.1f} MB, "
        f"build {f.build_s:.2f} s, {100 * f.ambiguous_cell_share:.1f}% of cells ambiguous",
        "",
        "| queries | answered by the template | fallback (ambiguous / outside the grid) "
        "| max error (rho) | p99 error (rho) | sign of F wrong |",
        "|---|---:|---:|---:|---:|---:|",
        f"| {f.grid_queries} uniform over the grid and beta | {100 * f.grid_answered_share:.1f}% "
        f"| {100 * (1 - f.grid_answered_share):.1f}% / 0% | {f.grid_max_error:.2e} "
        f"| {f.grid_p99_error:.2e} | {f.grid_sign_mismatches} |",
        f"| {f.scene_queries} robot pairs (r 0.6 m, tau 2 s, 1.5 m/s, within 6 m) "
        f"| {100 * (1 - f.scene_ambiguous_share - f.scene_outside_share):.1f}% "
        f"| {100 * f.scene_ambiguous_share:.1f}% / {100 * f.scene_outside_share:.1f}% "
        f"| {f.scene_max_error:.2e} | - | - |",
        "",
        "| µs per query (robot pairs) | exact | template | template / exact |",
        "|---|---:|---:|---:|",
        f"| scalar, as the method calls it | {f.exact_us:.2f} | {f.template_us:.2f} "
        f"| {f.template_us / f.exact_us:.1f}x |",
        f"| numpy, all queries at once | {f.exact_batch_ns / 1e3:.3f} "
        f"| {f.template_batch_ns / 1e3:.3f} | {f.template_batch_ns / f.exact_batch_ns:.1f}x |",
    ])


def rfunction_world_comparison(scenarios: Sequence[str], slices: int = 100, step: float = 0.08,
                               extent: float = 16.0, variant: str = "orca") -> List[dict]:
    """Each scenario in the world with ``rfunction``'s exact formula and with its voxel
    template (built before the run, so its build time is not in the run's µs): arrivals,
    colliding pairs, makespan, µs per agent-step, and how many of the template's queries it
    answered itself."""
    from ..core.orca.rfunction import shared_template
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from ..core.sim.world import World, WorldOptions

    template = shared_template(slices, step, extent)
    rows = []
    for path in scenarios:
        scenario = load_scenario(resolve_scenario(path))
        row = {"scenario": scenario.name}
        for backend in ("exact", "template"):
            parameters = (("variant", variant), ("backend", backend), ("template_slices", slices),
                          ("template_step", step), ("template_extent", extent))
            template.reset_stats()
            result = World(scenario, WorldOptions(
                method="rfunction", controller=(("method_parameters", parameters),))).run()
            row[backend] = {"reached": result.reached, "agents": result.agents,
                            "collisions": result.collisions, "makespan": result.makespan,
                            "us": result.compute_us_per_agent_step}
        stats = template.stats()
        row["queries"] = stats.queries
        row["ambiguous"] = stats.ambiguous
        row["outside"] = stats.outside
        rows.append(row)
    return rows


def format_rfunction_world_table(rows: Sequence[dict]) -> str:
    lines = ["| scenario | exact: arrived, pairs, makespan s, µs/agent-step "
             "| template: arrived, pairs, makespan s, µs/agent-step | template queries "
             "| answered by the template | fallback: ambiguous / outside the grid |",
             "|---|---|---|---:|---:|---:|"]

    def cell(r):
        makespan = "-" if r["makespan"] is None else f"{r['makespan']:.1f}"
        return f"{r['reached']}/{r['agents']}, {r['collisions']}, {makespan}, {r['us']:.0f}"

    for row in rows:
        n = max(row["queries"], 1)
        answered = row["queries"] - row["ambiguous"] - row["outside"]
        lines.append(f"| {row['scenario']} | {cell(row['exact'])} | {cell(row['template'])} "
                     f"| {row['queries']} | {100 * answered / n:.1f}% "
                     f"| {100 * row['ambiguous'] / n:.1f}% / {100 * row['outside'] / n:.1f}% |")
    return "\n".join(lines)
