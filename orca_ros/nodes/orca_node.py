"""orca_node: one robot's decentralized collision avoidance.

Subscribes (in the robot's namespace): ``odom`` (own), every neighbour's
``odom`` (the ``neighbors`` parameter, or discovery of ``*/odom`` topics),
``/obstacles`` (LINE_LIST markers of any number of sources, kept by ns and id, as RViz
keeps markers), ``goal_pose``, optionally ``plan``, and the
supervisor's ``supervisor/speed_limit`` and ``supervisor/detour``. Publishes
``cmd_vel`` at ``control_rate`` (``control_trigger``: on a timer, or as its own
odometry arrives), ``orca/markers`` (when watched) and
``/diagnostics``. With ``links`` (robots joined by a tether or a carried load, in
the scenario format) the robot keeps within reach of its partners, off the other
groups' links, and holds still while a partner's odometry is missing or stale. With
``share_predictions`` (toio cubes) a unicycle also publishes ``orca/prediction``
(nav_msgs/Odometry stamped with the time its command starts to act: the pose it will
have then, the command's twist, the pose covariance its uncertainty squared) and uses
its neighbours'. With ``neighbor_cell_size`` (neighbour cells,
:mod:`orca_ros.core.robot.cells`) it takes neighbours' odometry from the
``/orca/cells/...`` topics of the floor's squares near its robot instead of every
``/<other>/odom``, and publishes its own there.

The node converts and wires: messages become the inputs of the robot's control cycle
(:class:`orca_ros.core.robot.cycle.RobotCycle`, the same cycle the simulated world
runs), and its result becomes ``cmd_vel``, markers and diagnostics. Its parameters
are one table (:mod:`orca_ros.nodes.params.orca_node`, ``doc/parameters.md``).

With ``dimensions: 3`` it flies an aerial robot (holonomic; the method's 3D
version, :class:`orca_ros.core.robot.cycle.AerialCycle`): it reads the height and
climb rate from every ``odom`` (``pose.position.z``, ``twist.linear.z``), goals and
plans in 3D, and publishes ``cmd_vel.linear.z``. Walls, links, the supervisor's
directives, the reciprocity monitor and the ORCA markers are 2D only and play no part
there (a neighbour named in ``non_reciprocating`` still gets the whole avoidance).
"""

from __future__ import annotations

import collections
import math
import sys
import time
from typing import Dict, List, Optional, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import (PolygonStamped, PoseStamped, PoseWithCovarianceStamped,
                               Twist, TwistStamped)
from nav_msgs.msg import Odometry, Path
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data, qos_profile_system_default
from sensor_msgs.msg import LaserScan
from std_msgs.msg import Float64
from visualization_msgs.msg import Marker, MarkerArray

from ..core.methods import method_names, method_spec
from ..core.models.drive import drive_model
from ..core.robot.cells import CellGrid, cell_topic, publication_reach, subscription_reach
from ..core.robot.config import COMMAND_VALIDITY_PERIODS, ControllerConfig
from ..core.robot.controller import RobotController
from ..core.geometry.frames import Pose2, body_to_world, world_to_body
from ..core.robot.cycle import (AerialCycle, CycleResult, GoalState, OwnReading,
                                PerceptionSettings, Preferred, RobotCycle, Status)
from ..core.robot.guidance import same_guidance_walls
from ..core.robot.localization import UNCERTAINTY_DEVIATIONS, SharedFramePose, position_deviation
from ..core.robot.links import group_of, linked_names, parse_links
from ..core.robot.obstacle_registry import (ObstacleAction, ObstacleRegistry, ObstacleUpdate,
                                            ObstacleUpdateError)
from ..core.robot.perception import (NeighborReading, OdometryGate, SharedPrediction,
                                     stopped_reading)
from ..core.robot.state import RobotState
from . import markers
from .neighbor_odometry import FOOTPRINTS_TOPIC, STATES_TOPIC, NeighborOdometry
from .params import check_start, check_values, declare_table, removed_problem, table_by_name
from .params.orca_node import (ODOM_TRIGGER_SPACING, PARAMETERS, REMOVED,
                               method_parameter_defaults, method_parameters)
from .ros_common import (GuardedCallbacks, CELL, LATCHED, LATEST, LEVEL_ERROR, LEVEL_OK, LEVEL_WARN,
                         OBSTACLES_SUBSCRIPTION, RELIABLE_10, BadMessage, diagnostic_array,
                         diagnostic_status, obstacle_update, odometry_height, odometry_state,
                         quaternion_from_yaw, run_node, twist_message, twist_of,
                         yaw_from_quaternion)

QUIET_STOPS = 3  # filter mode: stop commands sent once cmd_vel_in times out, then none
FOOTPRINT_SIDES = 16  # the announced footprint: a polygon round the robot's disc

WATCHDOG_PERIODS = 1.25  # control periods without a cycle before the timer starts one


def _header_seconds(msg) -> float:
    """A message's header stamp in seconds."""
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


class OrcaNode(GuardedCallbacks, Node):
    def __init__(self, neighbor_odometry: Optional[NeighborOdometry] = None, **kwargs) -> None:
        """``neighbor_odometry``: the process's shared neighbours' odometry (orca_robots
        passes one to all its nodes); None: this node's own."""
        super().__init__("orca_node", **kwargs)
        gone = removed_problem(REMOVED, getattr(self, "_parameter_overrides", {}))
        if gone:
            raise ValueError(gone)
        declare_table(self, PARAMETERS)
        self.method_declared = self._param("method")
        declare_table(self, method_parameters(self.method_declared))
        self.table = table_by_name(PARAMETERS + method_parameters(self.method_declared))
        problem = check_start(self, self.table)
        if problem:
            raise ValueError(problem)
        self.robot = self.get_namespace().strip("/") or self.get_name()
        self.add_on_set_parameters_callback(self._validate_parameters)
        self._config_dirty = False

        self.own: Optional[OwnReading] = None
        origin = [float(v) for v in self._param("odom_origin")]  # [x, y, yaw], checked
        self.scan_mount = Pose2(*(float(v) for v in self._param("scan_pose")))
        self.localizer = SharedFramePose(self._param("pose_source"), Pose2(*origin),
                                         self._param("max_pose_uncertainty"))
        self.localization_problem = ""  # the last localization fix that was refused
        self.odom_heard = False  # odometry came, but no pose in the shared frame yet
        self.cmd_vel_in: Optional[Tuple[Tuple[float, float, float], float]] = None  # (twist, s)
        self.position3: Optional[Tuple[float, float, float]] = None
        self.velocity3: Tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.odometry_gate = OdometryGate(max(self._param("max_speed"), 1e-3))
        # Neighbours' odometry: the process's, one subscription per robot for all its nodes.
        self.neighbor_odometry = neighbor_odometry or NeighborOdometry()
        self.neighbor_odometry.join(self)
        self.announcing = bool(self._param("announce"))
        # Neighbour cells (neighbor_cell_size): publishers of the own odometry, by cell.
        self.cell_publishers: Dict[Tuple[int, int], object] = {}
        if self._param("neighbor_cell_size") > 0.0:
            self.neighbor_odometry.use_cells(CellGrid(self._param("neighbor_cell_size")))
        if self.announcing:
            self.neighbor_odometry.use_states()
        self.followed: List[str] = []  # the robots this node follows (order of discovery)
        self.prediction_subscriptions: Dict[str, object] = {}
        # Obstacles from every /obstacles source, by (ns, id); self.edges is their union.
        self.obstacles = ObstacleRegistry()
        self.obstacle_expiry_timer = None  # made when a marker with a lifetime comes
        self.edges = self.obstacles.edges
        self.goal: Optional[Tuple[float, ...]] = None
        self.plan: List[Tuple[float, ...]] = []
        self.rejected: Dict[str, int] = {}
        self.last_problem = ""
        self.status = Status(GoalState.NO_GOAL)  # what the robot is doing, from its cycle
        self.last_result: Optional[CycleResult] = None
        self.quiet_stops = 0  # stop commands sent since cmd_vel_in went quiet
        self.reverse_limited = 0  # filter mode: cmd_vel_in reversing faster than allowed
        self.departed: set = set()  # announced robots whose orca_node has left the graph
        # Timing, for diagnostics and `orca-ros bench-ros`: control cycles that
        # came more than 1.5 periods after the previous one (node clock), and
        # wall time from receiving the odometry used to publishing the command.
        self.cycles = 0
        self.late_cycles = 0
        self.last_cycle_ns: Optional[int] = None
        self.trigger_stamp_ns = -(1 << 62)  # stamp of the odometry that last started a cycle
        self.odom_wall_ns = 0
        self.latencies_s: collections.deque = collections.deque(maxlen=10_000)
        # This thread's CPU time in each cycle run by its own odometry's callback: how
        # much of the wall latency above is the cycle's own work, garbage collection
        # included (the rest is waiting for a core).
        self.cycle_cpu_start_ns: Optional[int] = None
        self.cycle_cpu_s: collections.deque = collections.deque(maxlen=10_000)

        self.radius_of = self._neighbor_radii()
        self.dimensions = int(self._param("dimensions"))
        self.cycle = RobotCycle(self._controller_config(), key=self.robot,
                                perception=self._perception_settings(),
                                radius_of=self._neighbor_radius,
                                drive=drive_model(self._param("drive_model")))
        self._configure_links()
        self.cycle.directive_timeout = self._param("supervisor_timeout")
        self.aerial, self.aerial_error = self._aerial_cycle()
        self.stamped = bool(self._param("enable_stamped_cmd_vel"))
        self.cmd_pub = self.create_publisher(TwistStamped if self.stamped else Twist, "cmd_vel",
                                             RELIABLE_10)
        self.marker_pub = self.create_publisher(MarkerArray, "orca/markers", 1)
        self.footprint_view_pub = self.create_publisher(PolygonStamped, "orca/footprint", 1)
        self.prediction_pub = self.create_publisher(Odometry, "orca/prediction", RELIABLE_10)
        self.state_pub = self.footprint_pub = None
        if self.announcing:
            if self.neighbor_odometry.grid is None:  # with cells: on the cell topics
                # Reliable: RViz, rqt and Foxglove (reliable readers) can show it; the
                # fleet's readers are best effort, and a reliable writer serves those
                # without acknowledgements.
                self.state_pub = self.create_publisher(Odometry, STATES_TOPIC, RELIABLE_10)
            self.footprint_pub = self.create_publisher(PolygonStamped, FOOTPRINTS_TOPIC, LATCHED)
            self._publish_footprint()
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics",
                                              qos_profile_system_default)
        self.create_subscription(Odometry, "odom", self._on_own_odom, LATEST)
        self.create_subscription(Marker, "/obstacles", self._on_obstacles,
                                 OBSTACLES_SUBSCRIPTION)
        self.create_subscription(PoseStamped, "goal_pose", self._on_goal, RELIABLE_10)
        self.create_subscription(Path, "plan", self._on_plan, RELIABLE_10)
        self.create_subscription(Float64, "supervisor/speed_limit", self._on_speed_limit,
                                 RELIABLE_10)
        self.create_subscription(Path, "supervisor/detour", self._on_detour, RELIABLE_10)
        self.scan_figures = {"scans": 0, "rays_ignored": 0, "rays_not_finite": 0,
                             "segments": 0, "ms": []}
        if self._param("scan_obstacles"):
            self.create_subscription(LaserScan, self._param("scan_topic"), self._on_scan,
                                     qos_profile_sensor_data)
        if self._param("pose_source") == "localization":
            self.create_subscription(PoseWithCovarianceStamped,
                                     self._param("localization_topic"), self._on_localization,
                                     RELIABLE_10)
        if self._param("preferred_velocity") == "topic":
            self.create_subscription(TwistStamped if self.stamped else Twist, "cmd_vel_in",
                                     self._on_cmd_vel_in, LATEST)

        self.control_timer = self.create_timer(1.0 / self._param("control_rate"),
                                               self._on_control_timer)
        self.create_timer(self._param("discovery_period"), self._discover)
        self.create_timer(1.0, self._publish_diagnostics)
        self._discover()

    # --- parameters: the table, and what joins several of them -------------------------

    def _param(self, name):
        return self.get_parameter(name).value

    def _param_or(self, name, default):
        return self.get_parameter(name).value if self.has_parameter(name) else default

    def _validate_parameters(self, params) -> SetParametersResult:
        values = {p.name: p.value for p in params}
        problem = check_values(self.table, values)
        if problem is None:
            problem = self._cross_check(values)
        if problem is not None:
            return SetParametersResult(successful=False, reason=problem)
        if "control_rate" in values and self._param("control_rate") != \
                values["control_rate"] and hasattr(self, "control_timer"):
            self.control_timer.timer_period_ns = int(1e9 / values["control_rate"])
        self._config_dirty = True
        return SetParametersResult(successful=True)

    def _cross_check(self, values) -> Optional[str]:
        """Checks that join several parameters (the table checks each alone)."""
        dimensions = values.get("dimensions", self._param_or("dimensions", 2))
        method = values.get("method", self._param_or("method", "orca"))
        if dimensions == 3:
            kinematics = values.get("kinematics", self._param_or("kinematics", "holonomic"))
            if kinematics != "holonomic":
                return f"dimensions 3 (an aerial robot) is holonomic, not kinematics {kinematics}"
            if method not in method_names(ros=True, dimensions=3):
                return (f"method {method} has no 3D version; with dimensions 3: "
                        f"{', '.join(method_names(ros=True, dimensions=3))}")
        for name in {n.partition(".")[0] for n in values if "." in n}:
            if name in method_names():
                try:
                    method_spec(name).create(**self._method_arguments(name, values))
                except (TypeError, ValueError) as error:
                    return f"{name} parameters: {error}"
        radii = list(values.get("neighbor_radii", self._param_or("neighbor_radii", [-1.0])))
        if radii != [-1.0]:
            names = [n for n in values.get("neighbors", self._param_or("neighbors", [""])) if n]
            if len(radii) != len(names) or not all(math.isfinite(r) and r >= 0 for r in radii):
                return (f"neighbor_radii {radii} must be one radius >= 0 (m) per entry of "
                        f"neighbors {names}, or [-1.0]")
        if "links" in values:
            try:
                parse_links(values["links"], "links")
            except ValueError as error:
                return str(error)
        return None

    def _method_arguments(self, method: str, pending=None) -> dict:
        """The method's own parameters, from ``<method>.<field>`` (``pending``: values
        about to be set); lists become tuples, ``[""]`` an empty one."""
        arguments = {}
        for field in method_parameter_defaults(method):
            name = f"{method}.{field}"
            if pending is not None and name in pending:
                value = pending[name]
            elif self.has_parameter(name):
                value = self._param(name)
            else:
                continue
            if isinstance(value, (list, tuple)) or type(value).__name__ == "array":
                value = tuple(v for v in value if v != "")
            arguments[field] = value
        return arguments

    def _declare_method(self) -> None:
        """Declare the chosen method's parameters (``method`` changed): only its own."""
        method = self._param("method")
        if method == self.method_declared:
            return
        for param in method_parameters(self.method_declared):
            if self.has_parameter(param.name):
                self.undeclare_parameter(param.name)
        declare_table(self, method_parameters(method))
        self.method_declared = method
        self.table = table_by_name(PARAMETERS + method_parameters(method))

    def _controller_config(self) -> ControllerConfig:
        method = self._param("method")
        return ControllerConfig(
            radius=self._param("radius"), max_speed=max(self._param("max_speed"), 1e-6),
            pref_speed=max(self._param("pref_speed"), 1e-6),
            time_step=1.0 / self._param("control_rate"),
            neighbor_dist=self._param("neighbor_dist"),
            max_neighbors=self._param("max_neighbors"),
            time_horizon=self._param("time_horizon"),
            time_horizon_obst=self._param("time_horizon_obst"),
            kinematics=self._param("kinematics"), method=method,
            method_parameters=tuple(self._method_arguments(method).items()),
            safety_filter=self._param("safety_filter"),
            safety_margin_ratio=self._param("safety_margin_ratio"),
            margin_speed_ratio=self._param("margin_speed_ratio"),
            keep_right_deg=self._param("keep_right_deg"),
            stall_escape_deg=self._param("stall_escape_deg"),
            stall_escape_time=self._param("stall_escape_time"),
            stall_detour_time=self._param("stall_detour_time"),
            progress_escape_time=self._param("progress_escape_time"),
            goal_tolerance=self._param("goal_tolerance"),
            lookahead=self._param("lookahead"),
            max_angular_speed=self._param("max_angular_speed"),
            max_linear_accel=self._param("max_linear_accel"),
            max_angular_accel=self._param("max_angular_accel"),
            heading_time_constant=self._param("heading_time_constant"),
            max_reverse_speed=None if self._param("max_reverse_speed") < 0 else
            self._param("max_reverse_speed"),
            tracking=self._param("tracking"),
            command_lag=self._param("command_lag"),
            lag_error=None if self._param("lag_error") < 0 else self._param("lag_error"),
            command_validity=self._param("command_validity")
            or COMMAND_VALIDITY_PERIODS / self._param("control_rate"),
            accel_limited=True)

    def _perception_settings(self) -> PerceptionSettings:
        return PerceptionSettings(
            neighbor_max_speed=self._param("neighbor_max_speed"),
            neighbor_timeout=self._param("neighbor_timeout"),
            detect_non_reciprocating=bool(self._param("detect_non_reciprocating")),
            non_reciprocating=frozenset(n.strip("/") for n in self._param("non_reciprocating")
                                        or [] if n),
            share_predictions=bool(self._param("share_predictions")),
            odom_timeout=self._param("odom_timeout"),
            unannounced_reciprocate=not self._param("announce"),
            max_uncertainty=self._param("max_pose_uncertainty"))

    def _neighbor_radii(self) -> Dict[str, float]:
        """Each listed neighbour's radius (m), from ``neighbor_radii``: read once per
        parameter change, not per cycle."""
        values = list(self._param("neighbor_radii"))
        if values == [-1.0]:
            return {}
        names = [n.strip("/") for n in self._param("neighbors") if n]
        return dict(zip(names, (float(r) for r in values)))

    def _neighbor_radius(self, name: str) -> float:
        """A neighbour's radius: listed in neighbor_radii, else as its footprint says,
        else neighbor_radius."""
        listed = self.radius_of.get(name)
        if listed is not None:
            return listed
        return self.neighbor_odometry.radii.get(name, self._param("neighbor_radius"))

    def _configure_links(self) -> None:
        """``links`` read into the cycle: its groups, or, for a bad value (one the node
        started with: the parameter callback checks only later changes), none and the
        error; the cycle then holds the robot until a valid value is set."""
        try:
            self.cycle.link_groups, self.cycle.links_error = \
                parse_links(self._param("links"), "links"), ""
        except ValueError as error:
            self.get_logger().error(f"parameter {error}; holding the robot until a valid "
                                    "'links' is set")
            self.cycle.link_groups, self.cycle.links_error = (), str(error)

    def _aerial_cycle(self) -> Tuple[Optional[AerialCycle], str]:
        """With ``dimensions`` 3, the aerial robot's cycle (and ''), or, when the
        settings it started with cannot fly (a method without a 3D version, a unicycle),
        None and why: the node then holds the robot and reports it."""
        if self._param("dimensions") != 3:
            return None, ""
        try:
            return AerialCycle(self.cycle.config, key=self.robot,
                               perception=self.cycle.perception,
                               radius_of=self._neighbor_radius), ""
        except ValueError as error:
            self.get_logger().error(f"dimensions 3: {error}; holding the robot")
            return None, f"dimensions 3: {error}"

    def _configure(self) -> None:
        """Parameters changed: the cycle takes the new settings (it keeps its path)."""
        self._config_dirty = False
        self._declare_method()
        if self.footprint_pub is not None:
            self._publish_footprint()  # the radius may have changed
        self.radius_of = self._neighbor_radii()
        self.cycle.reconfigure(self._controller_config(), self._perception_settings())
        self.cycle.directive_timeout = self._param("supervisor_timeout")
        self._configure_links()
        self._discover()  # follow robots named in new links at once
        changed = int(self._param("dimensions")) != self.dimensions
        self.dimensions = int(self._param("dimensions"))
        self.aerial, self.aerial_error = self._aerial_cycle()
        if changed:  # a goal of the other kind means nothing now; positions neither
            self.goal, self.plan, self.position3 = None, [], None
            self.odometry_gate = OdometryGate(max(self._param("max_speed"), 1e-3))
        if self.aerial is not None:
            self._update_path()

    @property
    def shared_frame(self) -> str:
        """The frame every robot plans in (``world_frame``)."""
        return self._param("world_frame")

    @property
    def odom_frame(self) -> str:
        """The frame the robot's own odometry must be in."""
        return self._param("odom_frame") or self.shared_frame

    @property
    def controller(self) -> RobotController:
        """The robot's controller (its path, method and tracking), inside its cycle."""
        return self.cycle.controller

    @property
    def goal_state(self) -> str:
        """What the robot is doing, as its diagnostics say it ("driving", "holding: ...")."""
        return str(self.status)

    @property
    def state(self) -> Optional[RobotState]:
        """The robot's own state as its odometry last said."""
        return self.own.state if self.own is not None else None

    # --- inputs -------------------------------------------------------------------------

    def _reject(self, what: str, reason: str) -> None:
        self.rejected[what] = self.rejected.get(what, 0) + 1
        self.last_problem = f"{what}: {reason}"
        self.get_logger().warning(f"dropped {what}: {reason}", throttle_duration_sec=2.0)

    def _now_ns(self) -> int:
        return self.get_clock().now().nanoseconds

    def measured_ns(self, msg: Odometry) -> int:
        """When an odometry message was measured: its stamp, unless that cannot be
        on this node's clock (zero, in the future, or older than neighbor_forget_after)."""
        now_ns = self._now_ns()
        stamp_ns = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        oldest_ns = now_ns - int(self._param("neighbor_forget_after") * 1e9)
        return stamp_ns if oldest_ns < stamp_ns <= now_ns + 50_000_000 else now_ns

    def _on_own_odom(self, msg: Odometry) -> None:
        try:
            if msg.header.frame_id != self.odom_frame:
                raise BadMessage(f"odom in frame {msg.header.frame_id!r}, expected "
                                 f"{self.odom_frame!r} (odom_frame, or world_frame)")
            position, velocity, yaw, v, omega = odometry_state(msg)
        except BadMessage as error:
            self._reject("own odom", str(error))
            return
        stamp_ns = self.measured_ns(msg)
        if self.own is not None and stamp_ns * 1e-9 < self.own.stamp:
            return  # older than what we have
        problem = self.odometry_gate.check(
            stamp_ns * 1e-9, position if self.dimensions != 3 else
            position + (odometry_height(msg)[0],))
        if problem is not None:
            self._reject("own odom", problem)
            return
        stamp = stamp_ns * 1e-9
        # A fix is matched with the odometry by the messages' own stamps (the robot's
        # clock, as TF matches them), not by when this node heard them.
        self.localizer.odometry(_header_seconds(msg), Pose2(position[0], position[1], yaw))
        shared = self.localizer.in_shared_frame(Pose2(position[0], position[1], yaw))
        state = None
        if shared is None:  # no localization yet: no pose in the shared frame
            self.own = None
            self.odom_heard = True
        else:
            velocity = self.localizer.velocity_in_shared_frame(velocity)
            self.own = OwnReading(RobotState(shared.position, velocity, shared.yaw, v, omega),
                                  stamp, self.localizer.uncertainty)
            state = self._state_message(msg, shared) if self.announcing else msg
        if self.dimensions == 3:
            z, vz = odometry_height(msg)
            self.position3 = (position[0], position[1], z)
            self.velocity3 = (velocity[0], velocity[1], vz)
        self.odom_wall_ns = time.perf_counter_ns()
        if self._param("control_trigger") == "odom":
            period_ns = 1e9 / self._param("control_rate")
            if stamp_ns - self.trigger_stamp_ns >= ODOM_TRIGGER_SPACING * period_ns:
                self.trigger_stamp_ns = stamp_ns  # spaced by the odometry's own stamps
                self.cycle_cpu_start_ns = time.thread_time_ns()
                try:
                    self._control()
                finally:
                    self.cycle_cpu_start_ns = None
        # After the command, not in its latency: this robot's state for the others.
        if state is not None and self.neighbor_odometry.grid is not None:
            self._share_in_cells(state, shared.position)
        elif state is not None and self.state_pub is not None:
            self.state_pub.publish(state)

    def _state_message(self, msg: Odometry, pose: Pose2) -> Odometry:
        """This robot's state in the shared frame, named by its robot: what it announces
        on /orca/states (or on the cell topics)."""
        state = Odometry()
        state.header.stamp = msg.header.stamp
        state.header.frame_id = self.shared_frame
        state.child_frame_id = self.robot
        state.pose.pose.position.x, state.pose.pose.position.y = pose.position
        state.pose.pose.position.z = msg.pose.pose.position.z
        state.pose.pose.orientation = quaternion_from_yaw(pose.yaw)
        # The localization's own covariance (each neighbour grows the disc by its margin)
        deviation = self.localizer.uncertainty / UNCERTAINTY_DEVIATIONS
        state.pose.covariance[0] = state.pose.covariance[7] = deviation ** 2
        state.twist.twist = msg.twist.twist  # body frame, as the odometry's
        return state

    def _publish_footprint(self) -> None:
        """This robot's footprint, latched on /orca/footprints: a polygon round its disc
        in its base frame (its farthest point is its radius; the frame names the robot)."""
        self.footprint_pub.publish(markers.footprint(
            f"{self.robot}/base_link", None, (0.0, 0.0), self._param("radius"),
            FOOTPRINT_SIDES))

    def _show_footprint(self) -> None:
        """The footprint where the robot is, in the shared frame, on ``orca/footprint``
        (as Nav2's costmaps publish ``published_footprint``): what RViz draws in ``map``
        with no TF of the robot's. Sent only while someone listens."""
        if self.own is None or self.footprint_view_pub.get_subscription_count() == 0:
            return
        self.footprint_view_pub.publish(markers.footprint(
            self.shared_frame, self.get_clock().now().to_msg(), self.own.state.position,
            self._param("radius"), FOOTPRINT_SIDES))

    def _on_localization(self, msg: PoseWithCovarianceStamped) -> None:
        """A localization fix (the pose in the shared frame), as AMCL publishes it."""
        try:
            if msg.header.frame_id != self.shared_frame:
                raise BadMessage(f"localization in frame {msg.header.frame_id!r}, expected "
                                 f"the shared frame {self.shared_frame!r}")
            p, q, c = msg.pose.pose.position, msg.pose.pose.orientation, msg.pose.covariance
            numbers = (p.x, p.y, q.x, q.y, q.z, q.w, c[0], c[1], c[7])
            if not all(math.isfinite(n) for n in numbers):
                raise BadMessage(f"non-finite number in localization: position ({p.x}, {p.y}), "
                                 f"orientation ({q.x}, {q.y}, {q.z}, {q.w}), covariance "
                                 f"({c[0]}, {c[1]}, {c[7]})")
            if q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w < 1e-12:
                raise BadMessage("localization orientation is a zero quaternion")
        except BadMessage as error:
            self.localization_problem = str(error)
            self._reject(self._param("localization_topic"), str(error))
            return
        report = self.localizer.fix(_header_seconds(msg),
                                    Pose2(p.x, p.y, yaw_from_quaternion(q)),
                                    position_deviation(c[0], c[1], c[7]))
        if report is not None:
            self.get_logger().warning(report, throttle_duration_sec=1.0)

    def _on_cmd_vel_in(self, msg) -> None:
        """The preferred velocity from outside (preferred_velocity: topic), body frame."""
        try:
            twist = twist_of(msg)
        except BadMessage as error:
            self._reject("cmd_vel_in", str(error))
            return
        self.cmd_vel_in = ((twist.linear.x, twist.linear.y, twist.angular.z),
                           self._now_ns() * 1e-9)

    def _share_in_cells(self, msg: Odometry, position: Tuple[float, float]) -> None:
        """Publish the own odometry, named by ``child_frame_id``, on the topic of the
        cell the robot stands in, with publishers made ahead for every cell within the
        publication reach (so each is connected before the robot enters its cell), and
        subscribe the process to the cells within the subscription reach
        (:mod:`orca_ros.core.robot.cells`)."""
        shared = self.neighbor_odometry
        grid = shared.grid
        match_time = self._param("neighbor_cell_match_time")
        fastest = max(self._param("max_speed"), self.cycle.neighbor_max_speed)
        shared.watch(self, position, subscription_reach(self._param("neighbor_dist"),
                                                        fastest, match_time))
        for cell in grid.cells_within(position[0], position[1],
                                      publication_reach(fastest, match_time)):
            if cell not in self.cell_publishers:
                self.cell_publishers[cell] = self.create_publisher(
                    Odometry, cell_topic(cell), CELL)
        msg.child_frame_id = self.robot
        self.cell_publishers[grid.cell_of(position[0], position[1])].publish(msg)

    def _cycle_due(self, periods: float) -> bool:
        """Whether ``periods`` control periods (node clock) have passed since the last cycle."""
        if self.last_cycle_ns is None:
            return True
        return self._now_ns() - self.last_cycle_ns >= periods * 1e9 / self._param("control_rate")

    def _on_control_timer(self) -> None:
        """Every cycle under control_trigger 'timer'; under 'odom' only when no odometry
        started one for WATCHDOG_PERIODS periods (it stopped, or comes too slowly): the
        cycle then brakes or stops the robot as its odometry ages."""
        if self._param("control_trigger") == "timer" or self._cycle_due(WATCHDOG_PERIODS):
            self._control()

    def report_bad_neighbor_odometry(self, name: str, reason: str) -> None:
        """A message of ``/<name>/odom`` was refused (:class:`NeighborOdometry`)."""
        self._reject(f"odom of {name}", reason)

    @property
    def neighbors(self) -> Dict[str, NeighborReading]:
        """The followed robots' latest odometry now (see :meth:`_neighbors`)."""
        return self._neighbors(self._now_ns())

    def _neighbors(self, now_ns: int) -> Dict[str, NeighborReading]:
        """The followed robots' latest odometry, none silent for neighbor_forget_after."""
        forget_ns = self._param("neighbor_forget_after") * 1e9
        latest = self.neighbor_odometry.latest
        names = list(self.followed)
        if self.neighbor_odometry.grid is not None and not any(self._param("neighbors")):
            # With cells, whoever is heard in them: a robot met for the first time counts
            # at once, not at the next discovery scan.
            names = [n for n in latest if n != self.robot]
        if self.announcing:  # every robot that announces itself
            names += [n for n in self.neighbor_odometry.states
                      if n != self.robot and n not in names]
        seen = {}
        now = now_ns * 1e-9
        silent_after = self._param("neighbor_timeout")
        for name in names:
            s = latest.get(name)
            if s is None:
                continue
            if s.announced and name in self.departed and now - s.stamp > silent_after:
                # Its orca_node has left the graph: its driver stops it; it stands.
                seen[name] = stopped_reading(
                    s, now, self._param("command_validity")
                    or COMMAND_VALIDITY_PERIODS / self._param("control_rate"),
                    self.cycle.neighbor_max_speed, self._param("max_linear_accel"))
            elif now - s.stamp <= forget_ns * 1e-9:
                seen[name] = s
        return seen

    def _on_neighbor_prediction(self, name: str, msg: Odometry) -> None:
        """A neighbour's :class:`SharedPrediction` (stamped when its command acts: the future)."""
        what = f"prediction of {name}"
        try:
            position, _, yaw, v, omega = odometry_state(msg)
        except BadMessage as error:
            self._reject(what, str(error))
            return
        variance = msg.pose.covariance[0]
        if not (math.isfinite(variance) and 0.0 <= variance <= 1e6):
            self._reject(what, f"pose variance {variance} is not a finite number in [0, 1e6]")
            return
        if max(abs(position[0]), abs(position[1])) > self.odometry_gate.max_coordinate:
            self._reject(what, f"position {position} is beyond "
                         f"{self.odometry_gate.max_coordinate:g} m")
            return
        stamp_ns = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        now_ns = self._now_ns()
        if abs(stamp_ns - now_ns) > self._param("neighbor_timeout") * 1e9:
            self._reject(what, f"stamped {(stamp_ns - now_ns) * 1e-9:+.3f} s from now, beyond "
                         "neighbor_timeout")
            return
        self.cycle.share(name, SharedPrediction(stamp_ns * 1e-9, position, yaw, v, omega,
                                                math.sqrt(variance)))

    @property
    def predictions(self) -> Dict[str, SharedPrediction]:
        """What the neighbours said they will do (``orca/prediction``)."""
        return self.cycle.predictions

    def _on_obstacles(self, msg: Marker) -> None:
        """One source's marker into the obstacle registry (RViz semantics, keyed by ns and id).

        A bad marker is dropped whole with a diagnostic and changes no obstacle; so is
        one that adds walls in a frame other than the shared one (``world_frame``): its
        points would be taken as coordinates of a frame they are not in.
        """
        now_s = self._now_ns() * 1e-9
        frame, shared = msg.header.frame_id, self._param("world_frame")
        if msg.action == Marker.ADD and frame != shared:
            self._reject("/obstacles", f"obstacles ns {msg.ns!r} id {msg.id}: in frame "
                                       f"{frame!r}, not the shared frame {shared!r}")
            return
        try:
            changed = self.obstacles.apply(obstacle_update(msg), now_s)
        except (BadMessage, ObstacleUpdateError) as error:
            self._reject("/obstacles", str(error))
            return
        if changed:
            self._obstacles_changed()
        self._arm_obstacle_expiry()

    def _on_scan(self, msg) -> None:
        """The laser's returns that no known neighbour explains as this robot's walls
        (ns ``<robot>/scan``, replaced by each scan, lasting ``scan_obstacle_lifetime``):
        :mod:`orca_ros.core.maps.scan`, from the robot's latest pose in the shared frame
        and the laser's on the robot (``scan_pose``). Rays with no valid range are left
        out and counted."""
        if self.own is None:
            return
        topic = self._param("scan_topic")
        frame = msg.header.frame_id
        if frame and frame in (self.shared_frame, self._param("odom_frame")):
            self._reject(topic, f"scan in frame {frame!r}: a laser's own frame is expected "
                                f"(placed on the robot by scan_pose), not the shared or odom "
                                f"frame")
            return
        if not (math.isfinite(msg.angle_min) and math.isfinite(msg.angle_increment)
                and math.isfinite(msg.range_min) and math.isfinite(msg.range_max)):
            self._reject(topic, f"scan with angle_min {msg.angle_min}, angle_increment "
                                f"{msg.angle_increment}, range_min {msg.range_min}, "
                                f"range_max {msg.range_max}: not finite")
            return
        started = time.perf_counter()
        state = self.own.state
        pose = Pose2(state.position[0], state.position[1], state.heading).compose(
            self.scan_mount)
        now_ns = self._now_ns()
        discs = [(r.position[0], r.position[1], self._neighbor_radius(name) + r.uncertainty)
                 for name, r in self._neighbors(now_ns).items()]
        from ..core.maps.scan import scan_walls  # only with scan_obstacles

        walls, found = scan_walls(msg.ranges, msg.angle_min, msg.angle_increment,
                                  msg.range_min, msg.range_max, pose, discs,
                                  self._param("scan_cluster_gap"), self._param("scan_tolerance"))
        figures = self.scan_figures
        figures["scans"] += 1
        figures["rays_ignored"] += found.ignored
        figures["rays_not_finite"] += found.not_finite
        figures["segments"] = len(walls)
        update = ObstacleUpdate(f"{self.robot}/scan", 0, ObstacleAction.ADD,
                                tuple(p for w in walls for p in (w.a, w.b)),
                                self._param("scan_obstacle_lifetime"))
        try:
            changed = self.obstacles.apply(update, now_ns * 1e-9)
        except ObstacleUpdateError as error:  # a degenerate fit: this scan adds nothing
            self._reject(topic, str(error))
            return
        if changed:
            self._obstacles_changed()
        self._arm_obstacle_expiry()
        figures["ms"] = (figures["ms"] + [(time.perf_counter() - started) * 1e3])[-200:]

    def _arm_obstacle_expiry(self) -> None:
        if self.obstacles.next_expiry is not None:
            if self.obstacle_expiry_timer is None:
                self.obstacle_expiry_timer = self.create_timer(0.1, self._expire_obstacles)
            elif self.obstacle_expiry_timer.is_canceled():
                self.obstacle_expiry_timer.reset()

    def _expire_obstacles(self) -> None:
        """Drop obstacles whose marker lifetime ran out (node clock, checked every 0.1 s)."""
        if self.obstacles.expire(self._now_ns() * 1e-9):
            self._obstacles_changed()
        if self.obstacles.next_expiry is None:
            self.obstacle_expiry_timer.cancel()

    def _obstacles_changed(self) -> None:
        before, self.edges = self.edges, self.obstacles.edges
        # The controller caches guidance roadmaps by (clearance, len(edges), id(edges[0])).
        # The address of a freed edge list is often reused by the next one, so a
        # moved obstacle could otherwise meet the old roadmap. A laser's walls beside a
        # map's leave the walls guidance plans round (and their roadmap) as they were.
        if not same_guidance_walls(before, self.edges):
            self.controller.roadmaps.clear()

    def _on_goal(self, msg: PoseStamped) -> None:
        if msg.header.frame_id not in ("", self.shared_frame):
            self._reject("goal_pose", f"goal in frame {msg.header.frame_id!r}, expected the "
                         f"shared frame {self.shared_frame!r}")
            return
        x, y, z = msg.pose.position.x, msg.pose.position.y, msg.pose.position.z
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            self._reject("goal_pose", f"non-finite goal ({x}, {y}, {z})")
            return
        self.goal = (x, y, z) if self.dimensions == 3 else (x, y)
        self.plan = []
        self._update_path()

    def _on_plan(self, msg: Path) -> None:
        if msg.header.frame_id not in ("", self.shared_frame):
            self._reject("plan", f"plan in frame {msg.header.frame_id!r}, expected the "
                         f"shared frame {self.shared_frame!r}")
            return
        points = [(p.pose.position.x, p.pose.position.y) + (
            (p.pose.position.z,) if self.dimensions == 3 else ()) for p in msg.poses]
        if not all(math.isfinite(c) for point in points for c in point):
            self._reject("plan", "non-finite point in plan")
            return
        self.plan = points
        if points:
            self.goal = points[-1]
        self._update_path()

    def _on_speed_limit(self, msg: Float64) -> None:
        if not (math.isfinite(msg.data) and msg.data >= 0.0):
            self._reject("supervisor/speed_limit", f"speed limit must be >= 0, got {msg.data}")
            return
        self.cycle.set_speed_limit(msg.data, self._now_ns() * 1e-9)

    def _on_detour(self, msg: Path) -> None:
        points = [(p.pose.position.x, p.pose.position.y) for p in msg.poses]
        if not all(math.isfinite(c) for point in points for c in point):
            self._reject("supervisor/detour", "non-finite point in detour")
            return
        self.cycle.set_detour(points, self._now_ns() * 1e-9)

    def _update_path(self) -> None:
        path = list(self.plan) if self.plan else ([self.goal] if self.goal else [])
        if self.dimensions == 3:
            if self.aerial is not None:
                self.aerial.set_path(path)
        else:
            self.cycle.set_path(path)
        self.status = Status(GoalState.DRIVING if path else GoalState.NO_GOAL)

    def _discover(self) -> None:
        """Follow the odom of every other robot: listed, or found in the graph."""
        if self.announcing:
            # Robots whose orca_node (a node named as this one, in the robot's namespace)
            # has left the graph: silent, they are kept as standing where their drivers
            # stop them (stopped_reading), never forgotten while gone.
            present = {namespace.strip("/") for node, namespace
                       in self.get_node_names_and_namespaces() if node == self.get_name()}
            self.departed = {name for name in self.neighbor_odometry.states
                             if name != self.robot and name not in present}
        listed = [n for n in self._param("neighbors") if n]
        if listed:
            names = [n.strip("/") for n in listed]
        elif not self._param("discover_odometry"):
            names = []
        else:
            names = []
            for topic, types in self.get_topic_names_and_types():
                if topic.endswith("/odom") and "nav_msgs/msg/Odometry" in types:
                    name = topic[:-len("/odom")].strip("/")
                    if name:
                        names.append(name)
        if not listed and self.neighbor_odometry.grid is not None:
            names += [n for n in self.neighbor_odometry.latest if n not in names]
        names += [n for n in linked_names(self.cycle.link_groups) if n not in names]
        if self._param("pose_source") == "odom":
            # A departed robot's odometry, in the shared frame as this robot's is, says
            # where it really stands: better than the margin of stopped_reading.
            names += sorted(n for n in self.departed if n not in names)
        for name in names:
            if name == self.robot or name in self.followed:
                continue
            self.neighbor_odometry.follow(name, self)
            self.followed.append(name)
        if self._param("share_predictions"):
            for name in self.followed:
                if name not in self.prediction_subscriptions:
                    self.prediction_subscriptions[name] = self.create_subscription(
                        Odometry, f"/{name}/orca/prediction",
                        lambda msg, name=name: self._on_neighbor_prediction(name, msg), LATEST)

    # --- control: the cycle, fed from messages --------------------------------------------

    def _control(self) -> None:
        self.cycles += 1
        now_ns = self._now_ns()
        period_ns = 1e9 / self._param("control_rate")
        if self.last_cycle_ns is not None and now_ns - self.last_cycle_ns > 1.5 * period_ns \
                and self.own is not None:  # not while it waits for its first odometry
            self.late_cycles += 1
        self.last_cycle_ns = now_ns
        if self._config_dirty:
            self._configure()
        readings = self._neighbors(now_ns)
        if self.dimensions == 3:
            self._control_3d(now_ns, readings)
            return
        self._show_footprint()
        awaited = self.obstacles.missing_sources([n for n in self._param("obstacle_sources")
                                                  if n])
        now = now_ns * 1e-9
        hold = self._input_hold(now)
        if hold:
            result = CycleResult(Status(GoalState.HOLDING, hold))
        else:
            result = self.cycle.step(now, self.own, readings, self.edges, awaited,
                                     self._preferred())
        self.last_result = result
        self.status = result.status
        if result.holds:
            if self._input_quiet(now):
                return  # a filter with no input to pass: quiet until cmd_vel_in speaks
            self._publish_command(0.0, 0.0, 0.0)
            return
        self.quiet_stops = 0
        command = result.command
        self._note_latency()
        if command.passed_through is not None:  # filter mode: the input, unchanged
            self.reverse_limited += command.reverse_limited  # a BackUp cut: say so
            self._publish_command(*command.passed_through)
        elif self.controller.effective_config.diff_drive:
            self._publish_command(command.linear, 0.0, command.angular)
        else:
            self._publish_command(*world_to_body(self.own.state.heading, command.velocity), 0.0)
        if result.prediction is not None:
            self._publish_prediction(result.prediction)
        if self.marker_pub.get_subscription_count() > 0:
            perceived = result.perceived
            neighbors = perceived.neighbors[:self.controller.effective_config.max_neighbors]
            self.marker_pub.publish(markers.orca_markers(
                self._param("world_frame"), self.get_clock().now().to_msg(), self.robot,
                self.own.state, command, neighbors,
                **({"tethers": perceived.tethers, "links": perceived.links,
                    "tether_from": perceived.state.position}
                   if self.cycle.link_groups else {}),
                **({"scan_walls": self.obstacles.segments_of((f"{self.robot}/scan", 0))}
                   if self._param("scan_obstacles") else {})))

    def _input_hold(self, now: float) -> str:
        """Why the robot must hold for want of input ('' when it need not): odometry came
        but no localization yet, or, in filter mode, no fresh cmd_vel_in."""
        if self.own is None and self.odom_heard and not self.localizer.known:
            return f"no localization yet on {self._param('localization_topic')}"
        unheard = self._unheard_robots()
        if unheard:
            more = f" and {len(unheard) - 5} more" if len(unheard) > 5 else ""
            return f"waiting to hear robots {', '.join(unheard[:5])}{more}"
        if self._param("preferred_velocity") == "topic" and self.own is not None:
            timeout = self._param("cmd_vel_in_timeout")
            if self.cmd_vel_in is None:
                return "no cmd_vel_in yet"
            if now - self.cmd_vel_in[1] > timeout:
                return f"no cmd_vel_in for {now - self.cmd_vel_in[1]:.1f} s"
        return ""

    def _unheard_robots(self) -> List[str]:
        """The robots of ``fleet_robots`` heard neither by their announced state nor by
        their odometry yet."""
        heard = self.neighbor_odometry
        return [name for name in self._param("fleet_robots")
                if name and name != self.robot and name not in heard.states
                and name not in heard.odometry]

    def _input_quiet(self, now: float) -> bool:
        """Filter mode, holding, with no fresh cmd_vel_in: a filter with nothing to pass
        sends nothing, so a teleop, the docking server or another commander behind the
        same collision monitor may drive. Before the first cmd_vel_in not a word,
        whatever it waits for (odometry, localization, the fleet, the walls); once
        cmd_vel_in stops, :data:`QUIET_STOPS` stop commands and then nothing, as Nav2's
        velocity smoother does when its input times out. With fresh cmd_vel_in a hold
        sends stop commands: the input cannot be vetted, so it must not pass."""
        if self._param("preferred_velocity") != "topic" or (
                self.cmd_vel_in is not None
                and now - self.cmd_vel_in[1] <= self._param("cmd_vel_in_timeout")):
            self.quiet_stops = 0
            return False
        if self.cmd_vel_in is None:
            return True
        self.quiet_stops += 1
        return self.quiet_stops > QUIET_STOPS

    def _preferred(self) -> Optional[Preferred]:
        """Filter mode: cmd_vel_in turned into the shared frame with the robot's heading."""
        if self._param("preferred_velocity") != "topic" or self.own is None:
            return None
        twist = self.cmd_vel_in[0]
        return Preferred(body_to_world(self.own.state.heading, twist), twist)

    def _control_3d(self, now_ns: int, readings: Dict[str, NeighborReading]) -> None:
        """One control cycle of an aerial robot (``dimensions`` 3): the velocity sent in
        the body frame (x, y turned by the yaw; z up)."""
        if self.aerial is None:
            result = CycleResult(Status(GoalState.HOLDING, self.aerial_error))
        else:
            result = self.aerial.step(now_ns * 1e-9, self.own, self.position3, self.velocity3,
                                      readings)
        self.status = result.status
        if result.holds:
            self._publish_command(0.0, 0.0, 0.0)
            return
        self._note_latency()
        vx, vy, vz = result.command.velocity  # x, y into the body frame (turned about z)
        self._publish_command(*world_to_body(self.own.state.heading, (vx, vy)), 0.0, vz)

    def _note_latency(self) -> None:
        """Count this cycle's odom->cmd_vel wall time, and its CPU time if its own
        odometry's callback ran it (a watchdog cycle has no odometry of its own)."""
        self.latencies_s.append((time.perf_counter_ns() - self.odom_wall_ns) * 1e-9)
        if self.cycle_cpu_start_ns is not None:
            self.cycle_cpu_s.append((time.thread_time_ns() - self.cycle_cpu_start_ns) * 1e-9)

    # --- outputs -------------------------------------------------------------------------

    def destroy_node(self) -> None:
        """Leave the process's neighbour odometry first: its subscriptions, if this node
        holds them, pass to another orca_node of the process."""
        if hasattr(self, "neighbor_odometry"):  # not when its constructor refused first
            self.neighbor_odometry.leave(self)
        super().destroy_node()

    def callback_failed(self, name: str) -> None:
        """A callback raised (a bug, logged once with its traceback): the robot is told to
        stop, since what it was handling (its odometry, a scan, the cycle) may be missing
        from its next command; the diagnostics say ERROR naming the callback until the
        node restarts. Not for the diagnostics' own timer."""
        if name != "_publish_diagnostics":
            self._publish_command(0.0, 0.0, 0.0)

    commanding = True  # a managed orca_node (orca_lifecycle_node): only while active

    def _publish_command(self, linear_x: float, linear_y: float, angular_z: float,
                         linear_z: float = 0.0) -> None:
        if not self.commanding:
            return
        now = self.get_clock().now()
        msg = twist_message(linear_x, linear_y, angular_z, self.stamped, now.to_msg(),
                            f"{self.robot}/base_link", linear_z)
        self.cmd_pub.publish(msg)

    def _publish_prediction(self, prediction: SharedPrediction) -> None:
        msg = Odometry()
        stamp_ns = int(round(prediction.time * 1e9))
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
        msg.header.frame_id = self._param("world_frame")
        msg.child_frame_id = f"{self.robot}/base_link"
        msg.pose.pose.position.x, msg.pose.pose.position.y = prediction.position
        msg.pose.pose.orientation = quaternion_from_yaw(prediction.heading)
        variance = prediction.uncertainty * prediction.uncertainty
        msg.pose.covariance[0] = msg.pose.covariance[7] = variance
        msg.twist.twist.linear.x = float(prediction.linear)
        msg.twist.twist.angular.z = float(prediction.angular)
        self.prediction_pub.publish(msg)

    def _publish_diagnostics(self) -> None:
        now_ns = self._now_ns()
        neighbors_seen = self._neighbors(now_ns)
        stale = sorted(n for n, s in neighbors_seen.items()
                       if now_ns * 1e-9 - s.stamp > self._param("neighbor_timeout"))
        shared = self.neighbor_odometry
        cycle = self.cycle
        command = cycle.last_command
        fallback = bool(command and command.output and command.output.used_fallback)
        if self.dimensions == 3:
            command3d = self.aerial.last_command if self.aerial is not None else None
            fallback = bool(command3d and command3d.output and command3d.output.used_fallback)
        level = LEVEL_OK
        message = self.goal_state
        if self.status.warns:
            level = LEVEL_WARN
        if self.rejected:
            level = max(level, LEVEL_WARN)
            message = f"{self.goal_state}; rejected input: {self.last_problem}"
        commanders = self.count_publishers(self.cmd_pub.topic_name)
        if commanders > 1:
            level = max(level, LEVEL_WARN)
            message = (f"{message}; {commanders - 1} other publisher(s) on "
                       f"{self.cmd_pub.topic_name}: the robot is commanded by another node "
                       f"too")
        if self.reverse_limited:
            level = max(level, LEVEL_WARN)
            message = (f"{message}; cmd_vel_in reversed faster than max_reverse_speed "
                       f"{self._param('max_reverse_speed'):g} m/s allows, cut to it "
                       f"{self.reverse_limited} times (-1: up to max_speed)")
        if cycle.links_error:
            level = LEVEL_ERROR
            message = f"{message}; parameter {cycle.links_error}"
        if self.aerial_error:
            level = LEVEL_ERROR
        failed = self.callback_errors
        if failed:
            level = LEVEL_ERROR
            message = (f"{message}; internal error in {', '.join(sorted(failed))} (a bug, its "
                       f"traceback logged once; the robot was stopped each time)")
        group = group_of(cycle.link_groups, self.robot)
        speed_limit = cycle.speed_limit
        values = {
            "robot": self.robot, "goal": self.goal, "goal_state": self.goal_state,
            "neighbors_seen": len(neighbors_seen),
            "neighbors_followed": len(self.followed),
            # Neighbours' odometry taken in by this node's process, and by how many
            # orca_nodes it is shared (NeighborOdometry): the process took in
            # neighbor_messages; each node's share is neighbor_messages / shared_by.
            "neighbor_messages": shared.messages,
            "neighbor_messages_shared_by": len(shared.nodes),
            "stale_neighbors": ",".join(stale), "lp_fallback_used": fallback,
            "non_reciprocating_neighbors": ",".join(cycle.reciprocity.flagged),
            # Neighbours whose orca/prediction (share_predictions) is held, not yet stale:
            # this robot plans with each where it is surer than the odometry.
            "neighbor_predictions": ",".join(sorted(
                n for n, p in cycle.predictions.items()
                if abs(now_ns * 1e-9 - p.time) <= self._param("neighbor_timeout"))),
            "own_odom_age_s": round(now_ns * 1e-9 - self.own.stamp, 3)
            if self.own is not None else "",
            "obstacle_edges": len(self.edges), "method": cycle.config.method,
            "dimensions": self.dimensions,
            "rejected_messages": sum(self.rejected.values()),
            "last_rejection": self.last_problem,
            "supervisor_speed_limit": speed_limit[0] if speed_limit else "",
            "supervisor_detour": bool(cycle.detour),
            "control_cycles": self.cycles, "late_control_cycles": self.late_cycles,
            "internal_errors": sum(failed.values()),
            "reverse_limited": self.reverse_limited,
            "cmd_vel_publishers": commanders,
            # links: this robot's group, its partners left out (and the robot held)
            # for want of fresh odometry, and other groups' links it kept off last cycle.
            "link_group": ",".join(group.agents) if group is not None else "",
            "link_groups": len(cycle.link_groups),
            "link_partners_missing": ",".join(cycle.link_missing),
            "link_partners_stale": ",".join(cycle.link_stale),
            "links_seen": cycle.links_seen, "links_error": cycle.links_error,
            # the pose in the shared frame: where it comes from, and the localization's
            "pose_source": self.localizer.source,
            "localization_fixes": self.localizer.fixes,
            "localization_jumps": self.localizer.jumps,
            "pose_uncertainty_m": round(self.localizer.uncertainty, 4),
            "neighbors_announced": sum(1 for n in neighbors_seen.values() if n.announced),
            # announced robots whose orca_node left: kept standing where they stop
            "departed_robots": ",".join(sorted(self.departed)),
            "cmd_vel_in_age_s": round(now_ns * 1e-9 - self.cmd_vel_in[1], 3)
            if self.cmd_vel_in is not None else "",
            **_percentiles_ms(self.latencies_s),
            **_percentiles_ms(self.cycle_cpu_s, "odom_to_cmd_cpu_ms"),
        }
        if self._param("scan_obstacles"):  # the laser: scans, rays left out, walls, cost
            scans = self.scan_figures
            values.update({
                "scans": scans["scans"], "scan_rays_ignored": scans["rays_ignored"],
                "scan_rays_not_finite": scans["rays_not_finite"],
                "scan_segments": scans["segments"],
                "scan_ms_median": round(sorted(scans["ms"])[len(scans["ms"]) // 2], 3)
                if scans["ms"] else ""})
        self.diag_pub.publish(diagnostic_array(
            self.get_clock().now().to_msg(),
            [diagnostic_status(f"orca_node: {self.robot}", level, message, values, self.robot)]))


def _percentiles_ms(latencies_s, key: str = "odom_to_cmd_ms") -> Dict[str, object]:
    """Wall time from the odometry used to the command sent, p50 and p99 (ms; '' before
    the first command): what ``orca_ros.launch_run`` reports per fleet. With ``key``
    ``odom_to_cmd_cpu_ms``: the CPU time of the cycles its odometry ran."""
    if not latencies_s:
        return {f"{key}_p50": "", f"{key}_p99": ""}
    ordered = sorted(latencies_s)

    def at(q: float) -> float:
        return round(1e3 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)
    return {f"{key}_p50": at(0.5), f"{key}_p99": at(0.99)}


def main(args=None) -> None:
    run_node(OrcaNode, args)


if __name__ == "__main__":
    main(sys.argv)
