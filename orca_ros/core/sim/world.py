"""A kinematic multi-agent world that runs a scenario with a chosen avoidance method.

Like RVO2's ``doStep``, every agent's new velocity is computed from the same
start-of-step state, then all agents move. Neighbours are found with a k-d
tree (scipy's cKDTree), so a step costs about O(N log N) besides the ORCA
solves. Collisions are accounted exactly (see :class:`~orca_ros.core.sim.metrics.CollisionLedger`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from collections import deque
from typing import Callable, Deque, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
from scipy.spatial import cKDTree

from ..collector import steady_loop
from ..supervisor.cocoon import CocoonConfig, CocoonSupervisor, Track
from ..robot.config import COMMAND_VALIDITY_PERIODS, ControllerConfig
from ..robot.controller import RobotController
from ..robot.cycle import CycleResult, NeighborsNow, OwnReading, PerceptionSettings, RobotCycle
from ..robot.state import Neighbor, RobotState
from ..models.toio_cube import (CUBE_ROBOT_PARAMETERS, DEFAULT_MM_PER_UNIT, PHYSICS_STEP_S,
                                CubeBody, CubeOdometry, MatFrame, timed_duration_ms,
                                twist_to_wheels)
from ..models.drive import drive_model
from ..models.bodies import (FLEET_SIM_LIMITS, WORLD_KINEMATICS, Body, DiffDriveLimits, step_body,
                             unicycle_step)
from ..methods.links import links_within
from .metrics import CollisionLedger, LinkLedger, linked_pairs
from .motion_quality import (MotionQuality, RobotTrack, fleet_motion_quality,
                             run_motion_summary, steering_signal)
from .backends import start_world_backend
from .batch import batch_for
from ..methods import LinkView, TetherView, method_names, world_spec
from ..geometry.frames import world_to_body
from ..geometry.obstacles import ObstacleVertex, build_obstacle_edges
from ..robot.safety_filter import SafetyFilter
from ..robot.perception import NeighborRadii, NeighborReading, SharedPrediction
from ..scenario.loader import AgentSpec, LinkSpec, Scenario

MAX_DELAY_S = 60.0
"""The longest delivery delay the world takes (s): the fault injector's bound."""

CUBE_CONTROLLER = {name: value for name, value in CUBE_ROBOT_PARAMETERS.items()
                   if name in {f.name for f in dataclass_fields(ControllerConfig)}}
"""The :class:`ControllerConfig` fields a toio cube's orca_node runs with."""
@dataclass(frozen=True)
class WorldOptions:
    """How a scenario is run.

    ``method``: a registered avoidance method (:mod:`orca_ros.core.methods`):
    ``orca`` (ours, see :mod:`orca_ros.core.robot.controller`: RVO2's ORCA plus hard
    one-step safety half-planes, a soft safety margin, keep-right symmetry
    breaking with stall escape, and roadmap guidance around obstacles),
    ``orca_strict`` (exactly RVO2's behaviour, what the conformance cases
    check), ``rvo2`` (the reference C++ library through pyrvo, holonomic only)
    or ``direct`` (straight at the goals, no avoidance). ``supervisor``: run the
    :class:`~orca_ros.core.supervisor.cocoon.CocoonSupervisor` too. ``controller``
    overrides :class:`~orca_ros.core.robot.controller.ControllerConfig` fields for
    every agent.

    ``kinematics``: ``holonomic``, ``diff_drive`` (ideal unicycles that do
    what they are told at once) or ``toio``: simulated toio Core Cubes
    (:class:`~orca_ros.core.models.toio_cube.CubeBody`: command lag, wheel dead zone,
    saturation and time constant, timed commands), controlled as diff_drive
    with a cube's orca_node settings (:data:`CUBE_CONTROLLER`; ``controller``
    overrides still win) and seeing only what toio_bridge reports: the last
    position reading, rounded to mat units and degrees in the scenario's
    ``toio:`` mat frame, and its finite-differenced velocity; with
    ``share_predictions`` (orca_node's parameter of that name, on for cubes)
    also where each neighbour said, one period ago, it would be when its
    command acts (:class:`~orca_ros.core.robot.perception.SharedPrediction`).
    """

    method: str = "orca"
    kinematics: str = "holonomic"
    supervisor: Optional[CocoonConfig] = None
    controller: Tuple[Tuple[str, object], ...] = ()
    record_every: int = 1
    share_predictions: bool = bool(CUBE_ROBOT_PARAMETERS["share_predictions"])
    command_validity_periods: Optional[float] = None
    """Plan as the ROS nodes do: a command may act this many time steps (their
    ``command_validity``) and bodies brake at their acceleration limit. None:
    one step, as commands come every step here (two with ``ros_timing``)."""
    ros_timing: bool = False
    """Time the robots' cycles as the ROS path through fleet_sim times them
    (:class:`RosTiming`), so the world predicts what the nodes do."""
    delay: float = 0.0
    """With ``ros_timing``: every odometry and command delivery held this long (s,
    rounded up to a time step), as ``orca-ros sim --faults delay=S`` holds them over a
    slow network (:class:`RosTiming`)."""

    def __post_init__(self) -> None:
        if self.method not in method_names():
            raise ValueError(f"method must be one of {method_names()}, got {self.method!r}")
        if self.kinematics not in WORLD_KINEMATICS:
            raise ValueError(f"kinematics must be one of {WORLD_KINEMATICS}, "
                             f"got {self.kinematics!r}")
        if world_spec(self.method).holonomic_only and self.kinematics != "holonomic":
            raise ValueError(f"method {self.method} is holonomic only")
        if self.ros_timing and self.kinematics == "toio":
            raise ValueError("kinematics toio times the cubes as toio_bridge does already; "
                             "ros_timing is for fleet_sim's holonomic and diff_drive robots")
        if self.command_validity_periods is not None and not self.command_validity_periods >= 1:
            raise ValueError("command_validity_periods must be >= 1, got "
                             f"{self.command_validity_periods}")
        if not 0.0 <= self.delay <= MAX_DELAY_S:
            raise ValueError(f"delay must be within [0, {MAX_DELAY_S}] s, got {self.delay}")
        if self.delay > 0.0 and not self.ros_timing:
            raise ValueError("delay holds the deliveries of the ROS path: it needs ros_timing")

    def delay_steps(self, time_step: float) -> int:
        """:attr:`delay` in whole time steps, rounded up (as the fault injector holds a
        delivery until the receiver's clock, which moves in steps, has passed it)."""
        return math.ceil(self.delay / time_step - 1e-9) if self.delay > 0.0 else 0

    @property
    def strict(self) -> bool:
        """The method reproduces a reference exactly (no safety layer: no close lists)."""
        return world_spec(self.method).strict

    def controller_config(self, agent: AgentSpec, scenario: Scenario) -> ControllerConfig:
        """One agent's controller settings: the scenario's, then these options' overrides."""
        fields = dict(radius=agent.radius, max_speed=agent.max_speed,
                      pref_speed=agent.pref_speed, time_step=scenario.time_step,
                      neighbor_dist=agent.neighbor_dist, max_neighbors=agent.max_neighbors,
                      time_horizon=agent.time_horizon,
                      time_horizon_obst=agent.time_horizon_obst, kinematics=self.kinematics,
                      method=self.method, goal_tolerance=scenario.goal_tolerance,
                      lookahead=scenario.waypoint_tolerance)
        if self.kinematics == "toio":
            fields.update(CUBE_CONTROLLER)  # diff_drive, with the cube's lag, limits, validity
            fields["tracking"] = world_spec(self.method).cube_tracking
        periods = self.command_validity_periods
        if periods is None and self.ros_timing:
            periods = RosTiming.COMMAND_VALIDITY_PERIODS
        if periods is not None:
            fields.update(command_validity=periods * scenario.time_step, accel_limited=True)
        fields.update(dict(self.controller))
        return ControllerConfig(**fields)

    def perception_settings(self) -> PerceptionSettings:
        """How the world's robots perceive each other: neighbours carried forward as in
        orca_node, and toio cubes share their predictions as cubes' orca_nodes do. The
        reciprocity monitor runs under ``ros_timing``, as in orca_node; otherwise not
        (every robot of a scenario runs its method: none to flag; with it on, the toio
        scenes in the world with cube dynamics lost a cube of toio_d_to_target4)."""
        return PerceptionSettings(
            detect_non_reciprocating=self.ros_timing,
            share_predictions=self.kinematics == "toio" and self.share_predictions,
            odom_timeout=float(CUBE_ROBOT_PARAMETERS["odom_timeout"]))


# --- the world's parts: how each robot's readings are timed, how its body moves ---------------

class RosTiming:
    """How the ROS path through fleet_sim times a robot's cycle, as ``orca-ros sim``
    runs it (orca_node's ``control_trigger: odom``, the fleet plan's settings), the
    world's readings under ``ros_timing``:

    - fleet_sim steps every body, then publishes ``/clock`` and every robot's
      odometry, in the scenario's order, stamped with the new time;
    - each orca_node plans as its own odometry arrives, on that clock: its own state
      is fresh; every neighbour is as it announced itself (``/orca/states``), which it
      does after its own cycle of the step, so one step old, carried forward by
      perception;
    - its command reaches fleet_sim before the next step and acts for that step; a
      command is valid for two steps (``command_validity``), so the safety filter
      plans over two;
    - bodies move at fleet_sim's limits (:data:`FLEET_SIM_LIMITS`,
      :func:`~orca_ros.core.models.bodies.step_body`).

    Measured in ``orca-ros sim`` (crowdnav_square_crossing_5h_case0, diff-drive, speed
    factor 4, the nodes' ``neighbor_ages_s`` on ``/diagnostics``): every neighbour was
    one step (0.25 s) old, and three steps old with ``--faults delay=0.25``.

    With a delay of ``d`` steps (:attr:`WorldOptions.delay`, ``orca-ros sim --faults
    delay=S``), every odometry reaches its node ``d`` steps after fleet_sim published
    it, stamped when it was published, and every command reaches fleet_sim ``d`` steps
    after it was sent and acts from the step it arrives at (:class:`FleetSimBodies`):
    a robot hears of its turn ``2 d + 1`` steps after it commanded it. A neighbour's
    state comes as it announced it when its odometry reached it, one more delay on the
    way and a step for its cycle: ``2 d + 1`` steps old (before the first, as old as
    there is).
    """

    COMMAND_VALIDITY_PERIODS = COMMAND_VALIDITY_PERIODS

    def __init__(self, delay_steps: int = 0) -> None:
        self.delay_steps = delay_steps
        # What fleet_sim published at each of the last steps: its odometry as neighbours
        # and as the robots themselves read it, newest last.
        self._published: Deque[Tuple[List[NeighborReading], List[OwnReading]]] = \
            deque(maxlen=2 * delay_steps + 2)

    def inputs(self, world: "World", active_idx: np.ndarray
               ) -> Iterator[Tuple[int, Optional[OwnReading], Dict[str, NeighborReading]]]:
        """Per active robot, in the scenario's order: ``(i, its own reading, its
        neighbours' readings by name)``, from fleet_sim's bodies (:class:`FleetSimBodies`):
        its own as delivered now, the neighbours' as they announced them (one step older,
        and a delay more). Before the first odometry has come through a delay: no
        reading."""
        now = world.time
        bodies = world.bodies
        count = len(world.names)
        self._published.append((
            [bodies.reading(i, now) for i in range(count)],
            [bodies.own(i, now) for i in range(count)] if self.delay_steps else None))
        published, d = self._published, self.delay_steps
        newest = len(published) - 1
        active = active_idx.tolist()
        if newest < d:  # no odometry has come through yet
            for i in active:
                yield i, None, {}
            return
        own = published[newest - d][1]
        # The neighbours' states come as they announced them after their cycles: one
        # step, and one more delay on the way.
        announced = published[max(newest - 2 * d - 1, 0)][0]
        names = world.names
        for i in active:
            yield i, own[i] if own is not None else bodies.own(i, now), \
                {names[j]: announced[j] for j in active if j != i}


class IdealTiming:
    """Readings of zero age: every robot reads itself and every other at the step's start,
    as they are. Perceiving such a reading leaves it as it is, so the world perceives for
    all its robots at once and hands each cycle its slice
    (:class:`~orca_ros.core.robot.cycle.NeighborsNow`): the ORCA neighbours and the close
    ones from one k-d tree (:meth:`ScenarioRun._neighbors`), ORCA's half-planes in one
    batch (:mod:`.batch`), the linked partners and other groups' links."""

    def inputs(self, world: "World", active_idx: np.ndarray
               ) -> Iterator[Tuple[int, OwnReading, NeighborsNow]]:
        """Per active robot, in order: ``(i, its own reading, its neighbours)``."""
        now = world.time
        neighbor_lists, close_lists = world._neighbors(active_idx)
        positions = [tuple(p) for p in world.positions.tolist()]
        velocities = [tuple(v) for v in world.velocities.tolist()]
        # (_make: a thousand robots' tuples at a third of the keyword constructors' cost)
        seen = [Neighbor._make((p, v, r, name, 0.0, True, 0.0)) for p, v, r, name in
                zip(positions, velocities, world.radius.tolist(), world.names)]
        of = seen.__getitem__
        headings = world.headings.tolist()
        linear, angular = world.linear_speed.tolist(), world.angular_speed.tolist()
        batch = None if world._batch is None else world._batch(world, active_idx,
                                                                neighbor_lists)
        linked = bool(world.link_pairs)
        for row, i in enumerate(active_idx.tolist()):
            state = RobotState._make((positions[i], velocities[i], headings[i], linear[i],
                                      angular[i]))
            yield i, OwnReading._make((state, now, 0.0, 0.0)), NeighborsNow._make((
                list(map(of, neighbor_lists[row])),
                None if close_lists is None else list(map(of, close_lists[row])),
                None if batch is None else batch[row],
                world._tethers(i) if linked else (), world._links(i) if linked else ()))


class IdealBodies:
    """Bodies that do what they are told at once: a holonomic robot moves at its
    command's velocity for the step, a unicycle along the arc of its ``(v, omega)``
    (:func:`~orca_ros.core.models.bodies.unicycle_step`); one that holds stands."""

    def __init__(self, unicycle: bool) -> None:
        self.unicycle = unicycle

    def move(self, world: "World", active_idx: np.ndarray, results: Dict[int, CycleResult]
             ) -> Tuple[np.ndarray, np.ndarray]:
        """The active robots' positions and velocities after the step under their
        cycles' ``results`` (headings and unicycle speeds set on the world)."""
        positions, dt = world.positions, world.dt
        new_positions = positions.copy()
        new_velocities = np.zeros_like(world.velocities)
        moved = list(results)
        if not moved:
            return new_positions, new_velocities
        commands = [results[i].command for i in moved]
        if not self.unicycle:
            new_velocities[moved] = [(0.0, 0.0) if c is None else c.velocity for c in commands]
            new_positions[moved] = positions[moved] + new_velocities[moved] * dt
            return new_positions, new_velocities
        x, y = positions[moved, 0].tolist(), positions[moved, 1].tolist()
        headings = world.headings[moved].tolist()
        twists = [(0.0, 0.0) if c is None else (c.linear, c.angular) for c in commands]
        poses = [unicycle_step(*pose, v, omega, dt)
                 for pose, (v, omega) in zip(zip(x, y, headings), twists)]
        new_positions[moved] = [pose[:2] for pose in poses]
        new_velocities[moved] = (new_positions[moved] - positions[moved]) / dt
        world.headings[moved] = [pose[2] for pose in poses]
        world.linear_speed[moved] = [v for v, _ in twists]
        world.angular_speed[moved] = [omega for _, omega in twists]
        return new_positions, new_velocities


class FleetSimBodies:
    """fleet_sim's bodies (:func:`~orca_ros.core.models.bodies.step_body`, at
    :data:`FLEET_SIM_LIMITS`), taking each command as orca_node sends it: ``(v, 0,
    omega)`` for a unicycle, a holonomic robot's world velocity in its body frame; a robot
    that holds is sent a stop. They report the odometry :class:`RosTiming` times."""

    def __init__(self, world: "World") -> None:
        self.kinematics = world.options.kinematics
        self.bodies = [Body(float(x), float(y), float(h))
                       for (x, y), h in zip(world.positions, world.headings)]
        self.limits = [DiffDriveLimits(c.config.max_speed, **FLEET_SIM_LIMITS)
                       for c in world.cycles]
        # Commands on their way to fleet_sim under a delay: each step's, oldest first.
        self.delay_steps = world.options.delay_steps(world.dt)
        self._on_the_way: Deque[Dict[int, Tuple[float, float, float]]] = deque()

    def reading(self, i: int, stamp: float) -> NeighborReading:
        """Robot ``i``'s odometry as its neighbours get it (announced: every robot of the
        world runs the cycle)."""
        body = self.bodies[i]
        return NeighborReading(stamp, (body.x, body.y), body.world_velocity, announced=True)

    def own(self, i: int, stamp: float) -> OwnReading:
        """Robot ``i``'s odometry as its own cycle gets it."""
        body = self.bodies[i]
        return OwnReading(RobotState((body.x, body.y), body.world_velocity, body.heading,
                                     body.vx, body.omega), stamp)

    def twist(self, i: int, command) -> Tuple[float, float, float]:
        """A command as orca_node sends it (class docstring)."""
        if self.kinematics == "diff_drive":
            return (command.linear, 0.0, command.angular)
        return (*world_to_body(self.bodies[i].heading, command.velocity), 0.0)

    def move(self, world: "World", active_idx: np.ndarray, results: Dict[int, CycleResult]
             ) -> Tuple[np.ndarray, np.ndarray]:
        """Every active body one step under its command (:meth:`IdealBodies.move`); under
        a delay, under the command sent that many steps ago (none yet: it brakes)."""
        sent = {i: (0.0, 0.0, 0.0) if result.holds else self.twist(i, result.command)
                for i, result in results.items()}
        if self.delay_steps:
            self._on_the_way.append(sent)
            sent = self._on_the_way.popleft() if len(self._on_the_way) > self.delay_steps \
                else {}
        new_positions = world.positions.copy()
        new_velocities = np.zeros_like(world.velocities)
        for i in (results if not self.delay_steps else active_idx.tolist()):
            body = step_body(self.bodies[i], sent.get(i, (0.0, 0.0, 0.0)), self.kinematics,
                             self.limits[i], world.dt)
            self.bodies[i] = body
            new_positions[i] = (body.x, body.y)
            new_velocities[i] = body.world_velocity
            world.headings[i] = body.heading
            world.linear_speed[i], world.angular_speed[i] = body.vx, body.omega
        return new_positions, new_velocities


class Cubes:
    """toio Core Cubes, as orca_node and toio_bridge run them: the cubes' timing and their
    bodies in one, since a cube's readings come from its body as its physics runs.

    Each cube's cycle gets its own last reading and every other cube's, each with the
    time it was taken (what toio_bridge reports: rounded to mat units and degrees in the
    scenario's ``toio:`` mat frame, its velocity finite-differenced), and what each
    neighbour said one period ago it would do (with ``share_predictions``). The command
    reaches the cube as toio_bridge sends it:
    :func:`~orca_ros.core.models.toio_cube.twist_to_wheels`, timed to end when the
    command's validity does. Then the cubes' physics
    (:class:`~orca_ros.core.models.toio_cube.CubeBody`) runs in sub-steps of at most
    :data:`~orca_ros.core.models.toio_cube.PHYSICS_STEP_S`, readings arriving as they fall
    due. Perception is O(N^2): fine for the cubes a mat holds."""

    def __init__(self, world: "World") -> None:
        frame = MatFrame(float(world.scenario.toio.get("mm_per_unit", DEFAULT_MM_PER_UNIT)))
        self.cubes = [CubeBody.at_world_pose(float(x), float(y), float(yaw), frame)
                      for (x, y), yaw in zip(world.positions, world.headings)]
        self.odometry = [CubeOdometry(frame, cube.reading(), 0.0) for cube in self.cubes]
        self.predictions: Dict[int, SharedPrediction] = {}
        # Where each cube's controller planned it to be when its command acts, and how
        # far off that was (RunResult.lag_prediction_error).
        self._planned_at: List[Deque[Tuple[float, Tuple[float, float]]]] = \
            [deque() for _ in self.cubes]
        self._covered: Dict[int, bool] = {}  # this period: the sent commands cover the lag
        self.lag_prediction_errors: List[float] = []
        for i, cube in enumerate(self.cubes):  # the true pose, as the cube holds it
            x, y, world.headings[i] = cube.world_pose()
            world.positions[i] = (x, y)

    def state(self, i: int) -> RobotState:
        """Cube ``i`` as its odometry says (what orca_node gets from toio_bridge)."""
        odometry = self.odometry[i]
        x, y, yaw = odometry.pose
        return RobotState((x, y), odometry.world_velocity, yaw, *odometry.velocity)

    def inputs(self, world: "World", active_idx: np.ndarray
               ) -> Iterator[Tuple[int, OwnReading, Dict[str, NeighborReading]]]:
        """Per active cube, in order: ``(i, its own reading, its neighbours' readings by
        name)``, its cycle told first what each neighbour said last period."""
        shared = dict(self.predictions)  # what each said last period (orca_node's topic)
        readings = {}
        active = active_idx.tolist()
        for i in active:
            state = self.state(i)
            readings[i] = NeighborReading(self.odometry[i].time, state.position,
                                          state.velocity, announced=True)
        names = world.names
        for i in active:
            cycle = world.cycles[i]
            for j, prediction in shared.items():
                if j != i:
                    cycle.share(names[j], prediction)
            self._covered[i] = cycle.sent.covers(self.odometry[i].time)
            yield i, OwnReading(self.state(i), readings[i].stamp), \
                {names[j]: readings[j] for j in active if j != i}

    def move(self, world: "World", active_idx: np.ndarray, results: Dict[int, CycleResult]
             ) -> Tuple[np.ndarray, np.ndarray]:
        """Every active cube commanded and moved one step (class docstring); where each
        was planned to be when its command acts is compared with where it is then."""
        now, dt = world.time, world.dt
        for i, result in results.items():
            config = world.cycles[i].controller.effective_config
            if result.holds:
                linear = angular = 0.0
            else:
                linear, angular = result.command.linear, result.command.angular
                if self._covered[i]:  # else a guess, uncertain as one
                    self._planned_at[i].append((now + config.command_lag,
                                                result.perceived.state.position))
                if result.prediction is not None:
                    self.predictions[i] = result.prediction
            left, right = twist_to_wheels(linear, angular)  # at its goal too: it yields
            self.cubes[i].command(left, right,
                                  timed_duration_ms(config.command_horizon) / 1000.0)
        active = active_idx.tolist()
        substeps = max(1, math.ceil(dt / PHYSICS_STEP_S - 1e-9))
        for _ in range(substeps):
            for i in active:
                cube = self.cubes[i]
                cube.advance(dt / substeps)
                planned = self._planned_at[i]
                while planned and planned[0][0] <= cube.time + 1e-6:
                    _, position = planned.popleft()
                    self.lag_prediction_errors.append(math.dist(position,
                                                                cube.world_pose()[:2]))
                reading = cube.poll_reading()
                if reading is not None:
                    self.odometry[i].update(reading, cube.time)
        new_positions = world.positions.copy()
        new_velocities = np.zeros_like(world.velocities)
        for i in active:
            x, y, world.headings[i] = self.cubes[i].world_pose()
            new_positions[i] = (x, y)
            new_velocities[i] = (new_positions[i] - world.positions[i]) / dt
            world.linear_speed[i], world.angular_speed[i] = self.cubes[i].twist
        return new_positions, new_velocities


def reaches_goal(path, position: Sequence[float]) -> bool:
    """Whether a robot following ``path`` (a
    :class:`~orca_ros.core.robot.preferred_velocity.FollowsWaypoints`) stands at its goal
    at ``position``: on its last waypoint, once those within ``lookahead_m`` of
    ``position`` count as passed, and within ``goal_tolerance_m`` of it. What
    ``at_goal`` says after ``current_target(position)``, read without moving the path
    on: the world counts arrivals without touching its robots' controllers."""
    waypoints = path.waypoints
    if not waypoints:
        return False
    last = len(waypoints) - 1
    index = path.waypoint_index
    tolerance = path.config.lookahead_m
    while index < last and math.dist(position, waypoints[index]) <= tolerance:
        index += 1
    return index == last and math.dist(position, waypoints[-1]) <= path.config.goal_tolerance_m


@dataclass(frozen=True)
class LagPredictionError:
    """How far toio cubes were, when each command acted, from where their controller
    planned them to be (m): the error ``lag_error`` must cover."""

    count: int
    max: float
    p99: float
    median: float

    @classmethod
    def of(cls, errors: Sequence[float]) -> Optional["LagPredictionError"]:
        if not errors:
            return None
        values = np.asarray(errors)
        return cls(len(values), float(values.max()), float(np.percentile(values, 99)),
                   float(np.median(values)))

    def as_dict(self) -> Dict[str, float]:
        return {"count": self.count, "max": _round(self.max), "p99": _round(self.p99),
                "median": _round(self.median)}


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
    at_goal_at_end: Optional[int] = None  # agents on their goals when a full-time run ends
    lag_prediction_error: Optional["LagPredictionError"] = None  # toio cubes
    conflicts: Optional[List[Dict[str, object]]] = None  # supervisor actions
    captures: Optional[List[Dict[str, object]]] = None  # pairs judged not in conflict
    linked: bool = False  # the scenario has links: (its rows then carry the two link counts)
    link_crossings: int = 0  # distinct (robot, link) pairs: a robot crossed another group's link
    link_overstretches: int = 0  # distinct links longer than max_length at some step
    link_crossing_pairs: Tuple[Tuple[str, str], ...] = ()
    overstretched_links: Tuple[str, ...] = ()
    motion_quality: Optional[Dict[str, MotionQuality]] = None  # per robot, by name
    wall_collisions: int = 0  # of ``collisions``: distinct (robot, wall) pairs

    def summary(self) -> Dict[str, object]:
        """The ``orca-ros bench --json`` row (the contract's fields; ``link_crossings``
        and ``link_overstretches`` for a scenario with ``links:``; the motion-quality
        fields of :func:`~orca_ros.core.sim.motion_quality.run_motion_summary`).

        Of the social-navigation set, the run's own: ``success_rate`` (``reached`` over
        ``agents``), and ``collisions`` split into ``robot_collisions`` (distinct pairs
        of robots that overlapped) and ``wall_collisions`` (distinct robot-wall pairs,
        a map's occupied cells one wall); the rest are the motion fields."""
        row = {
            "scenario": self.scenario, "method": self.method, "kinematics": self.kinematics,
            "agents": self.agents, "reached": self.reached, "collisions": self.collisions,
            "robot_collisions": self.collisions - self.wall_collisions,
            "wall_collisions": self.wall_collisions,
            "success_rate": _round(self.reached / self.agents) if self.agents else None,
            "min_separation": _round(self.min_separation), "makespan": _round(self.makespan),
            "mean_time_to_goal": _round(self.mean_time_to_goal),
            "path_length_ratio": _round(self.path_length_ratio), "steps": self.steps,
            "wall_time_s": _round(self.wall_time_s),
            "compute_us_per_agent_step": _round(self.compute_us_per_agent_step),
        }
        if self.linked:
            row["link_crossings"] = self.link_crossings
            row["link_overstretches"] = self.link_overstretches
        if self.at_goal_at_end is not None:
            row["at_goal_at_end"] = self.at_goal_at_end
        if self.lag_prediction_error is not None:
            row["lag_prediction_error"] = self.lag_prediction_error.as_dict()
        if self.motion_quality is not None:
            row.update(run_motion_summary(self.motion_quality))
        return row


def _round(value: Optional[float], digits: int = 6) -> Optional[float]:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


class ScenarioRun:
    """What a world keeps of a run and how it ends, for the 2D :class:`World` and the 3D
    :class:`~orca_ros.core.sim.world3d.World3D` alike: arrivals (within the goal tolerance
    on the last waypoint; ``on_goal: remove`` takes the agent out), the run to all
    arrived or ``max_time``, and the :class:`RunResult`. A world sets the attributes
    read here and steps with ``step()``."""

    def _start_run(self, scenario, options: "WorldOptions") -> None:
        """The run's state at its start, in the scenario's dimensions: agents at their
        starts and at rest, their sizes, neighbour settings and goals, nothing counted."""
        agents = scenario.agents
        n = len(agents)
        self.scenario = scenario
        self.options = options
        self.names = [a.name for a in agents]
        self.dt = scenario.time_step
        self.time = 0.0
        self.steps = 0
        self.positions = np.array([a.start for a in agents], dtype=float)
        self.velocities = np.zeros_like(self.positions)
        self.radius = np.array([a.radius for a in agents])
        self.neighbor_dist = np.array([a.neighbor_dist for a in agents])
        self.max_neighbors = np.array([a.max_neighbors for a in agents], dtype=int)
        self.reference_length = np.array([a.reference_length for a in agents])
        self.path_length = np.zeros(n)
        self.arrival_time = np.full(n, np.nan)
        self.active = np.ones(n, dtype=bool)
        self.ledger = CollisionLedger(occupancy=scenario.occupancy)
        self.compute_seconds = 0.0
        self.agent_steps = 0
        self._goals = np.array([a.goal for a in agents], dtype=float)
        self._goal_tolerance = np.array([scenario.goal_tolerance_of(a) for a in agents])
        self._yaw_frames: Optional[List[np.ndarray]] = None  # body yaws, where they matter
        # Each robot's steering command of the last step (motion_quality.steering_signal),
        # NaN where no controller command was seen (a backend's method), and its frames.
        self._steering = np.full(n, np.nan)
        self._steer_frames: List[np.ndarray] = [self._steering.copy()]

    def _check_arrivals(self) -> None:
        waiting = self.active & np.isnan(self.arrival_time)
        # Only agents within goal tolerance of their final goal can have arrived.
        near = np.linalg.norm(self.positions - self._goals, axis=1) <= self._goal_tolerance
        for i in np.flatnonzero(waiting & near):
            position = tuple(float(x) for x in self.positions[i])
            if reaches_goal(self._follower(i), position):
                self.arrival_time[i] = self.time
                if self.scenario.on_goal == "remove":
                    self.active[i] = False
                    if self._backend is not None:
                        self._backend.remove(i)

    def _follower(self, i: int):
        """What agent ``i`` follows its waypoints with (a
        :class:`~orca_ros.core.robot.preferred_velocity.FollowsWaypoints`)."""
        return self.controllers[i]

    def _advance(self, new_positions: np.ndarray, new_velocities: np.ndarray) -> None:
        """The step's bookkeeping once its motion is known: the active agents move (path
        length, agent-steps), the clock ticks, contacts and arrivals are counted and every
        ``record_every``-th frame is kept."""
        active = self.active
        self.agent_steps += int(active.sum())
        moved = new_positions - self.positions
        self.path_length[active] += np.linalg.norm(moved[active], axis=1)
        self.positions[active] = new_positions[active]
        self.velocities[active] = new_velocities[active]
        self.steps += 1
        self.time = self.steps * self.dt
        self._account()
        self._check_arrivals()
        if self.steps % self.options.record_every == 0:
            # A robot taken out on arrival (on_goal: remove) is recorded where it arrived,
            # then no more: its record reaches its goal, as the motion figures (arrival,
            # SPL) and the pictures read it.
            gone = ~self.active & (self.arrival_time != self.time)
            frame = self.positions.copy()
            frame[gone] = np.nan
            self._frames.append(frame)
            self._frame_times.append(self.time)
            if self._yaw_frames is not None:
                self._yaw_frames.append(self.headings.copy())
            steering = self._steering.copy()
            steering[gone] = np.nan
            self._steer_frames.append(steering)

    @property
    def all_arrived(self) -> bool:
        """Every agent has arrived and, where agents stay on their goals (``on_goal:
        stay``), is within its goal tolerance now: one pushed off its goal after
        arriving must come back before the run is done."""
        return bool(np.all(~np.isnan(self.arrival_time))) and \
            self.at_goal_count() == len(self.names)

    def run(self, progress: Optional[Callable[[float], None]] = None,
            full_time: bool = False) -> RunResult:
        """Step until every agent has arrived and stands on its goal (:attr:`all_arrived`)
        or ``max_time``; with ``full_time`` on to ``max_time`` regardless. Either way
        :attr:`RunResult.at_goal_at_end` counts who stands on its goal at the end
        (arriving once is not staying there)."""
        started = time.perf_counter()
        with steady_loop():  # the collector set for a control loop (orca_ros.core.collector)
            while (full_time or not self.all_arrived) and \
                    self.time < self.scenario.max_time - 1e-9:
                self.step()
                if progress is not None:
                    progress(self.time)
        result = self.result(time.perf_counter() - started)
        result.at_goal_at_end = self.at_goal_count()
        return result

    def at_goal_count(self) -> int:
        """Agents within their goal tolerance of their final goal now, having arrived
        (a route that passes its goal's point before its end has not arrived there; an
        agent taken out on arrival, ``on_goal: remove``, counts as there)."""
        near = np.linalg.norm(self.positions - self._goals, axis=1) <= self._goal_tolerance
        return int(np.sum((near & ~np.isnan(self.arrival_time)) | ~self.active))

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
            collision_pairs=sorted(self.ledger.pairs),
            wall_collisions=len(self.ledger.wall_pairs),
            motion_quality=self.motion_figures(), **self._result_extras())

    def motion_figures(self) -> Dict[str, MotionQuality]:
        """Every robot's motion-quality figures from the recorded frames
        (:func:`~orca_ros.core.sim.motion_quality.fleet_motion_quality`), waypoints passed
        within each controller's lookahead, as it follows them."""
        trajectory = np.array(self._frames)
        times = np.array(self._frame_times)
        yaws = None if self._yaw_frames is None else np.array(self._yaw_frames)
        steering = np.array(self._steer_frames)
        steered = np.any(np.isfinite(steering), axis=0)
        tracks = {agent.name: RobotTrack(times, trajectory[:, i],
                                         None if yaws is None else yaws[:, i],
                                         steering[:, i] if steered[i] else None)
                  for i, agent in enumerate(self.scenario.agents)}
        lookahead = {agent.name: self.options.controller_config(agent, self.scenario).lookahead_m
                     for agent in self.scenario.agents}
        return fleet_motion_quality(self.scenario, tracks, lookahead)

    def _result_extras(self) -> Dict[str, object]:
        """More :class:`RunResult` fields a world fills in (the supervisor's, links')."""
        return {}

    def _neighbors(self, active_idx: np.ndarray):
        """Per active agent: the ORCA neighbours (nearest first, strictly inside
        neighbor_dist, at most max_neighbors: RVO2's k-d tree query), and every agent
        within ``_close_reach`` (for the hard safety half-planes or half-spaces; None
        for a strict method), in 2D or 3D."""
        count = len(active_idx)
        empty = [[] for _ in range(count)]
        if count < 2:
            return empty, (None if self.options.strict else empty)
        points = self.positions[active_idx]
        tree = cKDTree(points)
        k = int(min(count, self.max_neighbors[active_idx].max() + 1))
        neighbor_lists = empty
        if k >= 2:
            distances, indices = tree.query(points, k=k,
                                            distance_upper_bound=float(self.neighbor_dist.max()))
            rows = np.arange(count)[:, None]
            keep = (indices != rows) & (indices < count) & \
                (distances < self.neighbor_dist[active_idx, None])
            keep &= np.cumsum(keep, axis=1) <= self.max_neighbors[active_idx, None]
            kept = active_idx[indices[keep]].tolist()  # row by row, in each row's order
            ends = np.cumsum(keep.sum(axis=1)).tolist()
            neighbor_lists = [kept[start:end] for start, end in zip([0] + ends[:-1], ends)]
        if self.options.strict:
            return neighbor_lists, None
        groups = tree.query_ball_point(points, self._close_reach)
        if count == len(self.names):  # every agent active: a row's index is its agent's
            for row, group in enumerate(groups):
                group.remove(row)
            return neighbor_lists, list(groups)
        active = active_idx.tolist()
        close_lists = [[active[k] for k in group if k != row]
                       for row, group in enumerate(groups)]
        return neighbor_lists, close_lists


class World(ScenarioRun):
    """Agents of a scenario, each with its own control cycle
    (:class:`~orca_ros.core.robot.cycle.RobotCycle`, the one orca_node runs), stepped
    together.

    Every step, every active robot runs its cycle whole (:meth:`RobotCycle.step`), on
    one path; the world holds as parts how the readings it hands the cycles are timed
    (:attr:`timing`) and how the bodies carry out the commands (:attr:`bodies`):

    - ideal timing (the default): readings of zero age, perceived for all robots at
      once (:class:`IdealTiming`), and bodies that do what they are told
      (:class:`IdealBodies`);
    - ``ros_timing``: readings timed as the ROS path through fleet_sim times them
      (:class:`RosTiming`), fleet_sim's bodies (:class:`FleetSimBodies`);
    - ``kinematics: toio``: the readings toio_bridge reports and the cubes' dynamics
      (:class:`Cubes`).

    The supervisor's directives reach the robots through their cycles, as orca_node
    gets them; arrivals are counted from the positions and the controllers' paths,
    read and never moved on (:func:`reaches_goal`). A world backend (``rvo2``, the
    reference library) is its own path: it moves the robots itself from their
    preferred velocities, as the library's own examples do.
    """

    def __init__(self, scenario: Scenario, options: WorldOptions = WorldOptions()) -> None:
        if scenario.dimensions != 2:
            raise ValueError(f"{scenario.path or scenario.name}: a 3D scenario (dimensions: "
                             f"3) runs in orca_ros.core.sim.world3d.World3D (create_world picks)")
        self._start_run(scenario, options)
        agents = scenario.agents
        n = len(agents)
        self.max_speed = np.array([a.max_speed for a in agents])
        self.obstacle_polygons = [np.array(w) for w in scenario.solid_outlines]
        self.edges: List[ObstacleVertex] = build_obstacle_edges(scenario.walls)
        self.link_ledger = LinkLedger()
        self._previous_positions = self.positions.copy()

        roadmaps: Dict = {}  # shared: agents of one size share a roadmap
        radius_of = NeighborRadii({a.name: a.radius for a in agents})
        perception = options.perception_settings()
        self.cycles: List[RobotCycle] = []
        for agent in agents:
            config = options.controller_config(agent, scenario)
            cycle = RobotCycle(
                config, key=agent.name, perception=perception, radius_of=radius_of,
                drive=drive_model(str(CUBE_ROBOT_PARAMETERS["drive_model"]))
                if options.kinematics == "toio" else None, link_groups=scenario.links,
                controller=RobotController(config, key=agent.name, roadmaps=roadmaps))
            cycle.set_path(agent.waypoints)
            self.cycles.append(cycle)
        self.controllers = [cycle.controller for cycle in self.cycles]
        # Unicycles start at rest, facing their first waypoint unless the scenario says.
        self.headings = np.array([a.start_heading for a in agents], dtype=float)
        self.linear_speed = np.zeros(n)
        self.angular_speed = np.zeros(n)
        # How each robot's readings are timed, and how its body carries out its commands.
        self.timing: Union[IdealTiming, RosTiming, Cubes]
        self.bodies: Union[IdealBodies, FleetSimBodies, Cubes]
        if options.kinematics == "toio":
            self.timing = self.bodies = Cubes(self)
        elif options.ros_timing:
            self.timing = RosTiming(options.delay_steps(scenario.time_step))
            self.bodies = FleetSimBodies(self)
        else:
            self.timing = IdealTiming()
            self.bodies = IdealBodies(unicycle=options.kinematics == "diff_drive")
        # The k-d tree's radius for SafetyFilter.within_one_step's candidates.
        self._close_reach = 2.0 * max(c.config.safety_radius(c.config.radius)
                                      for c in self.controllers) \
            + 2.0 * max(max(SafetyFilter(c.config).closing_distance((c.config.max_speed, 0.0),
                                                                    (1.0, 0.0)),
                            c.config.max_speed * c.config.command_horizon)
                        for c in self.controllers)

        self._backend = start_world_backend(options.method, self)
        if self._backend is None:  # each robot's method made now: parameters it refuses
            for controller in self.controllers:  # are refused with the world, not mid-run
                controller.method  # noqa: B018 (made for its side effect)
        self._batch = batch_for(options.method)
        self.supervisor = None
        if options.supervisor is not None:
            options.supervisor.check_names(self.names)
            self.supervisor = CocoonSupervisor(options.supervisor)
        # Linked robots (scenario ``links:``): each agent's partners, and every linked pair.
        self.link_pairs, self._group = linked_pairs(scenario)  # (i, j, max_length), group
        self._partners: List[List[Tuple[int, LinkSpec]]] = [[] for _ in range(n)]
        for i, j, _ in self.link_pairs:
            link = scenario.links[self._group[i]]
            self._partners[i].append((j, link))
            self._partners[j].append((i, link))
        self._frames: List[np.ndarray] = [self.positions.copy()]
        self._frame_times: List[float] = [0.0]
        if options.kinematics != "holonomic":  # a unicycle's heading is its body's yaw
            self._yaw_frames = [self.headings.copy()]
        self._check_arrivals()

    # --- stepping --------------------------------------------------------------

    @property
    def cubes(self) -> Optional[List[CubeBody]]:
        """The toio cubes' bodies (``kinematics: toio``), else None."""
        return self.bodies.cubes if isinstance(self.bodies, Cubes) else None

    @property
    def odometry(self) -> List[CubeOdometry]:
        """What each toio cube last reported (``kinematics: toio``), else empty."""
        return self.bodies.odometry if isinstance(self.bodies, Cubes) else []

    @property
    def predictions(self) -> Dict[int, SharedPrediction]:
        """What each toio cube last said it will do (``kinematics: toio``), else empty."""
        return self.bodies.predictions if isinstance(self.bodies, Cubes) else {}

    def supervise(self) -> None:
        """One supervisor tick on the start-of-step state; its directives reach each robot
        as orca_node gets them: through its cycle, received now."""
        tracks = []
        for i in np.flatnonzero(self.active):
            controller = self.controllers[i]
            position = (float(self.positions[i, 0]), float(self.positions[i, 1]))
            goal = None if reaches_goal(controller.preferred, position) \
                else controller.goal_of_base_path
            tracks.append(Track(self.names[i], position, float(self.radius[i]),
                                controller.config.pref_speed, goal))
        directives = self.supervisor.update(self.time, tracks)
        for i, cycle in enumerate(self.cycles):
            directive = directives.get(self.names[i])
            cycle.set_speed_limit(None if directive is None else
                                  directive.speed_limit(cycle.controller.config.pref_speed),
                                  self.time)
            cycle.set_detour(() if directive is None else directive.detour, self.time)

    def step(self) -> None:
        """One time step: every active robot's cycle (:meth:`RobotCycle.step`) with its
        readings as :attr:`timing` gives them, then :attr:`bodies` move under the
        commands. A world backend (``rvo2``) moves the robots itself instead, from their
        preferred velocities (the reference library's own loop)."""
        started = time.perf_counter()
        if self.supervisor is not None:
            self.supervise()
        active_idx = np.flatnonzero(self.active)
        if self._backend is not None:
            pref = np.zeros((len(self.names), 2))
            for i in active_idx.tolist():
                if self.supervisor is not None:
                    self.cycles[i].apply_directives(self.time)
                pref[i] = self.controllers[i].preferred_velocity(self._state(i))
            new_positions, new_velocities = self._backend.step(pref)
        else:
            now, edges, cycles = self.time, self.edges, self.cycles
            results = {i: cycles[i].step(now, own, neighbors, edges)
                       for i, own, neighbors in self.timing.inputs(self, active_idx)}
            for i, result in results.items():
                self._note_steering(i, None if result.holds else result.command)
            new_positions, new_velocities = self.bodies.move(self, active_idx, results)
        self.compute_seconds += time.perf_counter() - started
        self._previous_positions = self.positions.copy()
        self._advance(new_positions, new_velocities)

    def _note_steering(self, i: int, command) -> None:
        """Keep robot ``i``'s steering command of this step for the motion figures
        (:func:`~orca_ros.core.sim.motion_quality.steering_signal`); None: it held still."""
        if command is None:
            self._steering[i] = np.nan
            return
        self._steering[i] = steering_signal(
            self.options.kinematics != "holonomic", command.angular, command.velocity,
            command.pref_velocity)

    def _state(self, i: int) -> RobotState:
        return RobotState((float(self.positions[i, 0]), float(self.positions[i, 1])),
                          (float(self.velocities[i, 0]), float(self.velocities[i, 1])),
                          float(self.headings[i]), float(self.linear_speed[i]),
                          float(self.angular_speed[i]))

    def _follower(self, i: int):
        return self.controllers[i].preferred

    def _tethers(self, i: int) -> List[TetherView]:
        """Agent ``i``'s partners as its method sees them (scenario ``links:``)."""
        positions, velocities = self.positions, self.velocities
        return [TetherView(self.names[j], (float(positions[j, 0]), float(positions[j, 1])),
                           (float(velocities[j, 0]), float(velocities[j, 1])),
                           float(self.radius[j]), link.max_length, link.rest_length)
                for j, link in self._partners[i] if self.active[j]]

    def _links(self, i: int) -> List[LinkView]:
        """Other groups' links within agent ``i``'s ``neighbor_dist``, nearest first."""
        if not self.link_pairs:
            return []
        positions, velocities = self.positions, self.velocities
        views = [LinkView((float(positions[a, 0]), float(positions[a, 1])),
                          (float(positions[b, 0]), float(positions[b, 1])),
                          (float(velocities[a, 0]), float(velocities[a, 1])),
                          (float(velocities[b, 0]), float(velocities[b, 1])),
                          (self.names[a], self.names[b]))
                 for a, b, _ in self.link_pairs
                 if self._group[a] != self._group[i] and self.active[a] and self.active[b]]
        return links_within(positions[i], views, float(self.neighbor_dist[i]))

    # --- bookkeeping -------------------------------------------------------------

    def _account(self) -> None:
        active = np.flatnonzero(self.active)
        self.ledger.update(self.positions[active], self.radius[active],
                           [self.names[i] for i in active], self.obstacle_polygons)
        if self.link_pairs:
            self.link_ledger.update(self._previous_positions, self.positions, self.radius,
                                    self.names, self.active, self.link_pairs, self._group)

    def _result_extras(self) -> Dict[str, object]:
        return dict(
            conflicts=None if self.supervisor is None else
            [d.as_dict() for d in self.supervisor.actions],
            captures=None if self.supervisor is None else
            [d.as_dict() for d in self.supervisor.decisions if d.resolution == "none"],
            linked=bool(self.link_pairs), link_crossings=len(self.link_ledger.crossings),
            link_overstretches=len(self.link_ledger.overstretched),
            link_crossing_pairs=tuple(sorted(self.link_ledger.crossings)),
            overstretched_links=tuple(sorted(self.link_ledger.overstretched)),
            lag_prediction_error=(LagPredictionError.of(self.bodies.lag_prediction_errors)
                                  if isinstance(self.bodies, Cubes) else None))
