"""One robot as orca_node runs it (no ROS): its control cycle (2D, or the aerial one),
its inputs, timing and walls, its goal or plan, and each control period's outcome: hold
(stand still, or say nothing as a filter with nothing to pass), or the command as the
body-frame twist to send, with the prediction to share.

:class:`RobotControl` reads orca_node's parameters through ``params`` (a mapping of
parameter name to value, read when asked, as :class:`~.inputs.RobotInputs` does); the
node turns messages into its arguments and its :class:`ControlOutcome` into messages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..geometry.frames import Pose2, world_to_body
from . import settings
from .clocks import ClockOffset, SenderClocks
from .cycle import AerialCycle, CycleResult, GoalState, RobotCycle, Status
from .inputs import RobotInputs, command_twist
from .obstacle_registry import ObstacleUpdateError
from .perception import NeighborRadii, NeighborReading
from .progress import ProgressWatch, goal_held_by, nearest_reason, remaining_path
from .report import RobotSnapshot, robot_report
from .safety_filter import SafetyFilter
from .timing import CycleTiming
from .walls import RobotWalls, scan_problem

Twist4 = Tuple[float, float, float, float]  # body frame (linear x, linear y, angular z, linear z)
STOP: Twist4 = (0.0, 0.0, 0.0, 0.0)
WATCHDOG_PERIODS = 1.25  # control periods without a cycle before the timer starts one
LOOK_PERIODS = 1.5
"""Under control_trigger 'odom', the control periods after the last own odometry at which
the control timer fires (:meth:`RobotControl.timer_period_ns`): half a period late."""


@dataclass
class ControlOutcome:
    """What one control period sends: ``twist`` (None: nothing at all, a quiet filter),
    the cycle's ``result`` (its command, what it perceived) and the ``prediction`` to
    share (None: none)."""

    result: CycleResult
    twist: Optional[Twist4] = None
    prediction: Optional[Any] = None


class RobotControl:
    """One robot's cycle and what feeds it, between messages and commands.

    ``robot``: its name; ``announcing``: whether the fleet announces itself;
    ``heard_radii``: the neighbours' radii as their footprints say (name -> m);
    ``drive``: how its drive carries out commands (:func:`~..models.drive.drive_model`)."""

    def __init__(self, robot: str, params: Mapping[str, Any], announcing: bool,
                 heard_radii: Callable[[], Mapping[str, float]] = dict,
                 drive: Optional[object] = None) -> None:
        self.robot, self.params = robot, params
        self.radii = NeighborRadii(heard=heard_radii)  # each neighbour's, by name
        self.inputs = RobotInputs(robot, params, announcing)
        self.timing = CycleTiming()  # cycles, late cycles, odom -> cmd_vel latencies
        self.own_clock = ClockOffset()  # the own odometry's stamps (its driver's clock)
        self.progress = ProgressWatch()  # how long it has got no nearer its goal
        self.goal: Optional[Tuple[float, ...]] = None
        self.plan: list = []
        self.status = Status(GoalState.NO_GOAL)  # what the robot is doing, from its cycle
        self.last_result: Optional[CycleResult] = None
        self.reverse_limited = 0  # filter mode: cmd_vel_in reversing faster than allowed
        self.dimensions = int(params["dimensions"])
        self.cycle = RobotCycle(settings.controller_config(params), key=robot,
                                perception=settings.perception_settings(params),
                                radius_of=self.radii, drive=drive)
        # Every source's walls, by (ns, id); their union is walls.edges.
        self.walls = RobotWalls(robot, self.cycle.controller.roadmaps)
        self.scan_mount = Pose2(*(float(v) for v in params["scan_pose"]))
        self.configure()
        self.aerial, self.aerial_error = self._aerial_cycle()

    # --- settings ---------------------------------------------------------------------------

    @property
    def radius_of(self) -> Dict[str, float]:
        """The radii listed in ``neighbor_radii``, by name."""
        return self.radii.listed

    def configure(self) -> str:
        """The cycle takes the settings (it keeps its path). Returns what is wrong with
        ``links`` ('' when nothing): the cycle then holds the robot until it is set right."""
        p = self.params
        self.radii.listed = settings.neighbor_radii(p)  # once per change, not per cycle
        self.radii.default = float(p["neighbor_radius"])
        self.cycle.reconfigure(settings.controller_config(p), settings.perception_settings(p),
                               p["supervisor_timeout"])
        return self.cycle.set_links(p["links"])

    def _aerial_cycle(self) -> Tuple[Optional[AerialCycle], str]:
        """With ``dimensions`` 3, the aerial robot's cycle (and ''), or, when the
        settings cannot fly (a method without a 3D version, a unicycle), None and why:
        the robot then holds."""
        if self.params["dimensions"] != 3:
            return None, ""
        try:
            return AerialCycle(self.cycle.config, key=self.robot,
                               perception=self.cycle.perception,
                               radius_of=self.radii), ""
        except ValueError as error:
            return None, f"dimensions 3: {error}"

    def redimension(self) -> None:
        """After :meth:`configure`: the aerial cycle anew; with ``dimensions`` changed,
        a goal, plan and positions of the other kind are forgotten."""
        changed = int(self.params["dimensions"]) != self.dimensions
        self.dimensions = int(self.params["dimensions"])
        self.aerial, self.aerial_error = self._aerial_cycle()
        if changed:
            self.goal, self.plan = None, []
            self.inputs.restart_3d()
        if self.aerial is not None:
            self.update_path()

    def problems(self) -> List[str]:
        """What holds the robot for its settings, as the node logs it: a bad ``links``
        (one the node started with: the parameter callback checks only later changes), or
        settings an aerial robot cannot fly with."""
        problems = []
        if self.cycle.links_error:
            problems.append(f"parameter {self.cycle.links_error}; holding the robot until a "
                            "valid 'links' is set")
        if self.aerial_error:
            problems.append(f"{self.aerial_error}; holding the robot")
        return problems

    # --- inputs -------------------------------------------------------------------------------

    def measured_ns(self, stamp_ns: int, now_ns: int) -> int:
        """When the own odometry stamped ``stamp_ns`` (by its driver, maybe another
        computer's clock), arriving at ``now_ns``, was measured on this clock: its stamp
        corrected by the driver's clock offset (:meth:`.clocks.ClockOffset.measured_ns`)."""
        return self.own_clock.measured_ns(stamp_ns, now_ns)

    @property
    def period_ns(self) -> float:
        """The control period (ns of the node clock)."""
        return 1e9 / self.params["control_rate"]

    def timer_period_ns(self) -> int:
        """The control timer's period (ns of the node clock). Under control_trigger
        'timer', the control period. Under 'odom' the timer is a watchdog that each own
        odometry re-arms (:meth:`rearms_timer`), so it fires only when the odometry is
        :data:`LOOK_PERIODS` periods old, half a period late (it then looks for one left
        waiting, :meth:`odometry_overdue`), and on while none comes (the watchdog,
        :meth:`timer_starts`). Firing every period besides, it took a tenth of a robot's
        CPU at 100 robots (doc/results.md, "Where the time goes") to find the odometry
        on time at most ticks."""
        periods = 1.0 if self.params["control_trigger"] == "timer" else LOOK_PERIODS
        return int(periods * self.period_ns)

    @property
    def rearms_timer(self) -> bool:
        """Whether each own odometry re-arms the control timer (control_trigger 'odom',
        :meth:`timer_period_ns`)."""
        return self.params["control_trigger"] == "odom"

    def timer_starts(self, now_ns: int) -> bool:
        """Whether the control timer, firing at ``now_ns``, starts a cycle: every time
        under control_trigger 'timer'; under 'odom' only when no odometry started one
        for :data:`WATCHDOG_PERIODS` periods (it stopped, or comes too slowly): the cycle
        then brakes or stops the robot as its odometry ages."""
        return self.params["control_trigger"] == "timer" or self.timing.due(
            now_ns, WATCHDOG_PERIODS, self.period_ns)

    def odometry_overdue(self) -> bool:
        """Whether no own odometry came for half a control period (wall clock): only
        then may a message be waiting that the executor has not handed over, and the
        control timer looks for one (a look costs a take per subscription)."""
        return not self.timing.odometry_heard_within(0.5 * self.period_ns)

    def odometry_starts(self, stamp_ns: int, spacing: float) -> bool:
        """Whether the own odometry measured at ``stamp_ns`` starts a cycle: under
        control_trigger 'odom', at least ``spacing`` control periods after the one that
        started the last (by the odometry's own stamps)."""
        return self.params["control_trigger"] == "odom" and self.timing.odometry_starts(
            stamp_ns, spacing * self.period_ns)

    def set_speed_limit(self, speed: float, now: float) -> Optional[str]:
        """The supervisor's speed limit (m/s) received at ``now`` (s); why it was
        refused, or None."""
        if not (math.isfinite(speed) and speed >= 0.0):
            return f"speed limit must be >= 0, got {speed}"
        self.cycle.set_speed_limit(speed, now)
        return None

    def odometry(self, stamp_ns: int, robot_stamp: float, pose: Pose2,
                 velocity: Tuple[float, float], v: float, omega: float,
                 height: Callable[[], Tuple[float, float]]) -> Optional[str]:
        """The own odometry measured at ``stamp_ns`` (:meth:`RobotInputs.odometry`;
        ``height``: its ``(z, vz)``, asked in 3D only). Returns None when taken, '' when
        older than the reading held (dropped), else why it was refused."""
        if self.inputs.older(stamp_ns * 1e-9):
            return ""
        return self.inputs.odometry(stamp_ns * 1e-9, robot_stamp, pose, velocity, v, omega,
                                    height() if self.dimensions == 3 else None)

    def frame_problem(self, what: str, frame: str) -> Optional[str]:
        """Why a goal or plan in ``frame`` cannot be taken (''/the shared frame can)."""
        shared = self.params["world_frame"]
        if frame in ("", shared):
            return None
        return f"{what} in frame {frame!r}, expected the shared frame {shared!r}"

    def set_goal(self, frame: str, point: Tuple[float, float, float]) -> Optional[str]:
        """A goal ``(x, y, z)`` (z only for an aerial robot) in place of any plan; returns
        why it was refused, or None."""
        problem = self.frame_problem("goal", frame)
        if problem is not None:
            return problem
        if not all(map(math.isfinite, point)):
            return f"non-finite goal ({point[0]}, {point[1]}, {point[2]})"
        self.goal = tuple(point) if self.dimensions == 3 else tuple(point[:2])
        self.plan = []
        self.update_path()
        return None

    def set_plan(self, points: Sequence[Tuple[float, ...]]) -> None:
        """A plan (finite points of the robot's dimensions); its last point is the goal."""
        self.plan = list(points)
        if self.plan:
            self.goal = self.plan[-1]
        self.update_path()

    def update_path(self) -> None:
        """The cycle follows the plan, else the goal."""
        path = list(self.plan) if self.plan else ([self.goal] if self.goal else [])
        if self.dimensions == 3:
            if self.aerial is not None:
                self.aerial.set_path(path)
        else:
            self.cycle.set_path(path)
        self.status = Status(GoalState.DRIVING if path else GoalState.NO_GOAL)
        self.progress = ProgressWatch()

    def scan(self, frame: str, ranges: Sequence[float], angle_min: float,
             angle_increment: float, range_min: float, range_max: float, now: float,
             neighbors: Callable[[], Mapping[str, NeighborReading]]) -> Optional[str]:
        """A laser scan in the laser's ``frame`` at ``now`` (s), ``neighbors`` the readings
        that count (asked only for a scan that is used): its walls
        (:meth:`RobotWalls.scan`). Returns why it adds nothing, or None."""
        p = self.params
        problem = scan_problem(frame, (p["world_frame"], p["odom_frame"]), angle_min,
                               angle_increment, range_min, range_max)
        if problem is not None:
            return problem

        def discs():
            return [(r.position[0], r.position[1], self.radii(name) + r.uncertainty)
                    for name, r in neighbors().items()]
        try:
            self.walls.scan(ranges, angle_min, angle_increment, range_min, range_max,
                            self.inputs.own.state, self.scan_mount, discs,
                            p["scan_cluster_gap"], p["scan_tolerance"],
                            p["scan_obstacle_lifetime"], now)
        except ObstacleUpdateError as error:  # a degenerate fit: this scan adds nothing
            return str(error)
        return None

    # --- the control period -------------------------------------------------------------------

    def start(self, now_ns: int) -> None:
        """A control period starts at ``now_ns`` (:meth:`CycleTiming.start`)."""
        self.timing.start(now_ns, self.period_ns, self.inputs.own is not None)

    def control(self, now: float, neighbors: Mapping[str, NeighborReading],
                heard: Callable[[str], bool]) -> ControlOutcome:
        """One control period at ``now`` (s), ``neighbors`` the readings that count and
        ``heard`` whether a robot of ``fleet_robots`` was heard (by state or odometry)."""
        if self.dimensions == 3:
            return self._control_3d(now, neighbors)
        awaited = self.walls.registry.missing_sources(
            [n for n in self.params["obstacle_sources"] if n])
        hold = self.inputs.hold(now, heard)
        if hold:
            result = CycleResult(Status(GoalState.HOLDING, hold))
        else:
            result = self.cycle.step(now, self.inputs.own, neighbors, self.walls.edges,
                                     awaited, self.inputs.preferred())
        self.last_result = result
        self.status = result.status
        self._note_progress(now, result)
        if result.holds:  # a filter with no input to pass stays quiet
            return ControlOutcome(result, None if self.inputs.quiet(now) else STOP)
        self.inputs.quiet_stops = 0
        command = result.command
        self.timing.command_sent()
        self.reverse_limited += command.reverse_limited if command.passed_through is not None else 0
        twist = command_twist(command, self.inputs.own.state.heading,
                              self.cycle.controller.effective_config.diff_drive)
        return ControlOutcome(result, tuple(twist) + (0.0,), result.prediction)

    def _note_progress(self, now: float, result: CycleResult) -> None:
        """:class:`~.progress.ProgressWatch` after a 2D period; what is nearest the robot
        (a neighbour or wall) is worked out only once it is stuck for no_progress_warn."""
        own, watch = self.inputs.own, self.progress
        if result.status.state is not GoalState.DRIVING or own is None:
            watch.note(now, False, None)
            return
        position, controller = own.state.position, self.cycle.controller
        watch.note(now, True, remaining_path(position, controller.waypoints,
                                             controller.preferred.waypoint_index), watch.reason)
        limit = self.params["no_progress_warn"]
        if 0.0 < limit <= watch.stuck_for(now):
            seen = result.perceived.neighbors if result.perceived is not None else ()
            watch.reason = nearest_reason(position, self.params["radius"], seen,
                                          self.walls.edges)

    def goal_held_by(self, now: float) -> Tuple[str, ...]:
        """While the robot has been stuck for no_progress_warn: the neighbours that leave
        it no room at its goal as it last perceived them
        (:func:`~.progress.goal_held_by`); else (). Worked out when asked (the
        diagnostics, once a second), not every period."""
        limit, result, controller = self.params["no_progress_warn"], self.last_result, \
            self.cycle.controller
        if not 0.0 < limit <= self.progress.stuck_for(now) or result is None \
                or result.perceived is None or not controller.waypoints:
            return ()
        c, perceived = controller.effective_config, result.perceived
        distances = SafetyFilter(c, controller.key).pair_distances(
            perceived.neighbors, perceived.own_uncertainty, perceived.localization)
        return goal_held_by(controller.waypoints[-1], c.goal_tolerance_m,
                            perceived.neighbors, distances)

    def _control_3d(self, now: float, neighbors: Mapping[str, NeighborReading]
                    ) -> ControlOutcome:
        """An aerial robot's period: the velocity in the body frame (x, y turned by the
        yaw; z up)."""
        if self.aerial is None:
            result = CycleResult(Status(GoalState.HOLDING, self.aerial_error))
        else:
            result = self.aerial.step(now, self.inputs.own, self.inputs.position3,
                                      self.inputs.velocity3, neighbors)
        self.status = result.status
        if result.holds:
            return ControlOutcome(result, STOP)
        self.timing.command_sent()
        vx, vy, vz = result.command.velocity  # world frame -> body frame (turned about z)
        bx, by = world_to_body(self.inputs.own.state.heading, (vx, vy))
        return ControlOutcome(result, (bx, by, 0.0, vz))

    # --- diagnostics ----------------------------------------------------------------------------

    def report(self, now: float, neighbors: Mapping[str, NeighborReading],
               neighbor_messages: int, shared_by: int, rejected: Mapping[str, int],
               last_problem: str, commanders: int, cmd_topic: str,
               failed: Mapping[str, int], clocks: Optional[SenderClocks] = None
               ) -> Tuple[int, str, Dict[str, object]]:
        """The diagnostics' level, message and values (:func:`~.report.robot_report`);
        the arguments are what the node alone knows (:class:`~.report.RobotSnapshot`;
        ``clocks``: the neighbours' clock offsets)."""
        p = self.params
        offsets = {} if clocks is None else {
            name: offset for name in neighbors
            if (offset := clocks.offset(name)) is not None}
        own_offset = self.own_clock.estimate_ns
        return robot_report(RobotSnapshot(
            self.robot, now, self.status, self.goal, self.dimensions, self.cycle, self.aerial,
            self.aerial_error, self.inputs, self.timing, neighbors, p["neighbor_timeout"],
            neighbor_messages, shared_by, len(self.walls.edges), rejected, last_problem,
            commanders, cmd_topic, self.reverse_limited, p["max_reverse_speed"], failed,
            self.walls.scan_report() if p["scan_obstacles"] else None, offsets,
            None if own_offset is None else own_offset * 1e-9, p["clock_offset_warn"],
            self.progress.stuck_for(now), self.progress.reason, p["no_progress_warn"],
            self.goal_held_by(now)))
