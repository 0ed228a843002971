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

What is not conversion lives in :mod:`orca_ros.core.robot`: ``settings`` (from the
parameters), ``inputs`` (readiness, neighbours), ``walls``, ``timing`` and ``report``.
"""

from __future__ import annotations

import math
import sys
from typing import Dict, Optional, Tuple

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

from ..core.geometry.frames import Pose2, world_to_body
from ..core.models.drive import drive_model
from ..core.robot import settings
from ..core.robot.cells import CellGrid
from ..core.robot.cycle import AerialCycle, CycleResult, GoalState, RobotCycle, Status
from ..core.robot.inputs import RobotInputs, command_twist, robots_publishing_odometry
from ..core.robot.links import linked_names
from ..core.robot.localization import UNCERTAINTY_DEVIATIONS
from ..core.robot.obstacle_registry import ObstacleUpdateError
from ..core.robot.perception import NeighborReading
from ..core.robot.report import RobotSnapshot, robot_report
from ..core.robot.timing import CycleTiming
from ..core.robot.walls import RobotWalls, scan_problem
from . import markers
from .neighbor_odometry import FOOTPRINTS_TOPIC, STATES_TOPIC, NeighborOdometry
from .params import check_start, check_values, declare_table, removed_problem, table_by_name
from .params.orca_node import ODOM_TRIGGER_SPACING, PARAMETERS, REMOVED, method_parameters
from .ros_common import (LATCHED, LATEST, OBSTACLES_SUBSCRIPTION, RELIABLE_10, BadMessage,
                         GuardedCallbacks, NodeParameters, announced_state, diagnostic_array,
                         diagnostic_status, header_seconds, localization_fix, obstacle_update,
                         odometry_height, odometry_state, path_points, prediction_message,
                         run_node, shared_prediction, twist_message, twist_of)

FOOTPRINT_SIDES = 16  # the announced footprint: a polygon round the robot's disc
WATCHDOG_PERIODS = 1.25  # control periods without a cycle before the timer starts one


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
        self.params = NodeParameters(self)
        self.add_on_set_parameters_callback(self._validate_parameters)
        self._config_dirty = False
        self.scan_mount = Pose2(*(float(v) for v in self._param("scan_pose")))
        self.announcing = bool(self._param("announce"))
        self.inputs = RobotInputs(self.robot, self.params, self.announcing)
        self.timing = CycleTiming()  # cycles, late cycles, odom -> cmd_vel latencies
        # Neighbours' odometry: the process's, one subscription per robot for all its nodes.
        self.neighbor_odometry = neighbor_odometry or NeighborOdometry()
        self.neighbor_odometry.join(self)
        # Neighbour cells (neighbor_cell_size): publishers of the own odometry, by cell.
        self.cell_publishers: Dict[Tuple[int, int], object] = {}
        if self._param("neighbor_cell_size") > 0.0:
            self.neighbor_odometry.use_cells(CellGrid(self._param("neighbor_cell_size")))
        if self.announcing:
            self.neighbor_odometry.use_states()
        self.prediction_subscriptions: Dict[str, object] = {}
        self.obstacle_expiry_timer = None  # made when a marker with a lifetime comes
        self.goal: Optional[Tuple[float, ...]] = None
        self.plan = []
        self.rejected: Dict[str, int] = {}
        self.last_problem = ""
        self.status = Status(GoalState.NO_GOAL)  # what the robot is doing, from its cycle
        self.last_result: Optional[CycleResult] = None
        self.reverse_limited = 0  # filter mode: cmd_vel_in reversing faster than allowed
        self.dimensions = int(self._param("dimensions"))
        self.cycle = RobotCycle(settings.controller_config(self.params), key=self.robot,
                                perception=settings.perception_settings(self.params),
                                radius_of=self._neighbor_radius,
                                drive=drive_model(self._param("drive_model")))
        # Every source's walls, by (ns, id); their union is self.edges.
        self.walls = RobotWalls(self.robot, self.controller.roadmaps)
        self.obstacles = self.walls.registry
        self._configure_cycle()
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

    # --- parameters: the table, and the settings made of them (core.robot.settings) -----

    def _param(self, name):
        return self.get_parameter(name).value

    def _validate_parameters(self, params) -> SetParametersResult:
        values = {p.name: p.value for p in params}
        problem = check_values(self.table, values)
        if problem is None:
            problem = settings.cross_check(values, self.params)
        if problem is not None:
            return SetParametersResult(successful=False, reason=problem)
        if "control_rate" in values and self._param("control_rate") != \
                values["control_rate"] and hasattr(self, "control_timer"):
            self.control_timer.timer_period_ns = int(1e9 / values["control_rate"])
        self._config_dirty = True
        return SetParametersResult(successful=True)

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

    def _neighbor_radius(self, name: str) -> float:
        """A neighbour's radius: listed in neighbor_radii, else as its footprint says,
        else neighbor_radius."""
        listed = self.radius_of.get(name)
        if listed is not None:
            return listed
        return self.neighbor_odometry.radii.get(name, self._param("neighbor_radius"))

    def _configure_cycle(self) -> None:
        """The cycle takes the settings (it keeps its path); a bad ``links`` (one the node
        started with: the parameter callback checks only later changes) holds the robot."""
        self.radius_of = settings.neighbor_radii(self.params)  # once per change, not per cycle
        self.cycle.reconfigure(settings.controller_config(self.params),
                               settings.perception_settings(self.params),
                               self._param("supervisor_timeout"))
        error = self.cycle.set_links(self._param("links"))
        if error:
            self.get_logger().error(f"parameter {error}; holding the robot until a valid "
                                    "'links' is set")

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
        self._configure_cycle()
        self._discover()  # follow robots named in new links at once
        changed = int(self._param("dimensions")) != self.dimensions
        self.dimensions = int(self._param("dimensions"))
        self.aerial, self.aerial_error = self._aerial_cycle()
        if changed:  # a goal of the other kind means nothing now; positions neither
            self.goal, self.plan = None, []
            self.inputs.restart_3d()
        if self.aerial is not None:
            self._update_path()

    shared_frame = property(lambda self: self._param("world_frame"),
                            doc="The frame every robot plans in (``world_frame``).")
    odom_frame = property(lambda self: self._param("odom_frame") or self.shared_frame,
                          doc="The frame the robot's own odometry must be in.")
    controller = property(lambda self: self.cycle.controller,
                          doc="The robot's controller (path, method, tracking), in its cycle.")
    goal_state = property(lambda self: str(self.status),
                          doc="What the robot is doing, as its diagnostics say it.")
    own = property(lambda self: self.inputs.own,
                   doc="The own odometry in the shared frame (OwnReading), None until then.")
    state = property(lambda self: self.own.state if self.own is not None else None,
                     doc="The robot's own state as its odometry last said.")
    odometry_gate = property(lambda self: self.inputs.gate)
    edges = property(lambda self: self.walls.edges, doc="Every source's walls, as edges.")
    predictions = property(lambda self: self.cycle.predictions,
                           doc="What the neighbours said they will do (``orca/prediction``).")

    @property
    def cmd_vel_in(self):
        """Filter mode's latest ``cmd_vel_in``: ((vx, vy, omega), received s), or None."""
        return self.inputs.cmd_vel_in

    @cmd_vel_in.setter
    def cmd_vel_in(self, value) -> None:
        self.inputs.cmd_vel_in = value

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
        if self.inputs.older(stamp_ns * 1e-9):
            return  # older than what we have
        problem = self.inputs.odometry(
            stamp_ns * 1e-9, header_seconds(msg), Pose2(position[0], position[1], yaw),
            velocity, v, omega, odometry_height(msg) if self.dimensions == 3 else None)
        if problem is not None:
            self._reject("own odom", problem)
            return
        shared, state = self.inputs.shared_pose, None
        if shared is not None:
            state = announced_state(msg, self.shared_frame, self.robot, shared,
                                    self.inputs.localizer.uncertainty / UNCERTAINTY_DEVIATIONS
                                    ) if self.announcing else msg
        self.timing.odometry_heard()
        if self._param("control_trigger") == "odom" and self.timing.odometry_starts(
                stamp_ns, ODOM_TRIGGER_SPACING * 1e9 / self._param("control_rate")):
            with self.timing.cpu():  # spaced by the odometry's own stamps
                self._control()
        # After the command, not in its latency: this robot's state for the others.
        if state is not None and self.neighbor_odometry.grid is not None:
            self.neighbor_odometry.share(self, state, shared.position,
                                        self._param("neighbor_dist"), max(
                                            self._param("max_speed"),
                                            self.cycle.neighbor_max_speed),
                                        self._param("neighbor_cell_match_time"))
        elif state is not None and self.state_pub is not None:
            self.state_pub.publish(state)

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
            fix = localization_fix(msg, self.shared_frame)
        except BadMessage as error:
            self._reject(self._param("localization_topic"), str(error))
            return
        report = self.inputs.localizer.fix(*fix)
        if report is not None:
            self.get_logger().warning(report, throttle_duration_sec=1.0)

    def _on_cmd_vel_in(self, msg) -> None:
        """The preferred velocity from outside (preferred_velocity: topic), body frame."""
        try:
            twist = twist_of(msg)
        except BadMessage as error:
            self._reject("cmd_vel_in", str(error))
            return
        self.inputs.command_in((twist.linear.x, twist.linear.y, twist.angular.z),
                               self._now_ns() * 1e-9)

    def _on_control_timer(self) -> None:
        """Every cycle under control_trigger 'timer'; under 'odom' only when no odometry
        started one for WATCHDOG_PERIODS periods (it stopped, or comes too slowly): the
        cycle then brakes or stops the robot as its odometry ages."""
        if self._param("control_trigger") == "timer" or self.timing.due(
                self._now_ns(), WATCHDOG_PERIODS, 1e9 / self._param("control_rate")):
            self._control()

    def report_bad_neighbor_odometry(self, name: str, reason: str) -> None:
        """A message of ``/<name>/odom`` was refused (:class:`NeighborOdometry`)."""
        self._reject(f"odom of {name}", reason)

    @property
    def neighbors(self) -> Dict[str, NeighborReading]:
        """The followed robots' latest odometry now (see :meth:`_neighbors`)."""
        return self._neighbors(self._now_ns())

    def _neighbors(self, now_ns: int) -> Dict[str, NeighborReading]:
        """The neighbours that count (:meth:`RobotInputs.neighbors`)."""
        shared = self.neighbor_odometry
        return self.inputs.neighbors(now_ns * 1e-9, shared.latest, shared.states,
                                     shared.grid is not None, self.cycle.neighbor_max_speed)

    def _on_neighbor_prediction(self, name: str, msg: Odometry) -> None:
        """A neighbour's :class:`SharedPrediction` (stamped when its command acts: the future)."""
        try:
            prediction = shared_prediction(msg, self.inputs.gate.max_coordinate,
                                           self._now_ns(), self._param("neighbor_timeout"))
        except BadMessage as error:
            self._reject(f"prediction of {name}", str(error))
            return
        self.cycle.share(name, prediction)

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
            self.walls.apply(obstacle_update(msg), now_s)
        except (BadMessage, ObstacleUpdateError) as error:
            self._reject("/obstacles", str(error))
            return
        self._arm_obstacle_expiry()

    def _on_scan(self, msg) -> None:
        """The laser's returns that no known neighbour explains as this robot's walls
        (:class:`~orca_ros.core.robot.walls.RobotWalls`), from its latest pose in the
        shared frame and the laser's on the robot (``scan_pose``)."""
        if self.own is None:
            return
        topic = self._param("scan_topic")
        problem = scan_problem(msg.header.frame_id, (self.shared_frame,
                                                     self._param("odom_frame")),
                               msg.angle_min, msg.angle_increment, msg.range_min,
                               msg.range_max)
        if problem is not None:
            self._reject(topic, problem)
            return
        now_ns = self._now_ns()

        def discs():
            return [(r.position[0], r.position[1], self._neighbor_radius(name) + r.uncertainty)
                    for name, r in self._neighbors(now_ns).items()]
        try:
            self.walls.scan(msg.ranges, msg.angle_min, msg.angle_increment, msg.range_min,
                            msg.range_max, self.own.state, self.scan_mount, discs,
                            self._param("scan_cluster_gap"), self._param("scan_tolerance"),
                            self._param("scan_obstacle_lifetime"), now_ns * 1e-9)
        except ObstacleUpdateError as error:  # a degenerate fit: this scan adds nothing
            self._reject(topic, str(error))
            return
        self._arm_obstacle_expiry()

    def _arm_obstacle_expiry(self) -> None:
        if self.obstacles.next_expiry is not None:
            if self.obstacle_expiry_timer is None:
                self.obstacle_expiry_timer = self.create_timer(0.1, self._expire_obstacles)
            elif self.obstacle_expiry_timer.is_canceled():
                self.obstacle_expiry_timer.reset()

    def _expire_obstacles(self) -> None:
        """Drop obstacles whose marker lifetime ran out (node clock, checked every 0.1 s)."""
        self.walls.expire(self._now_ns() * 1e-9)
        if self.obstacles.next_expiry is None:
            self.obstacle_expiry_timer.cancel()

    def _on_goal(self, msg: PoseStamped) -> None:
        if msg.header.frame_id not in ("", self.shared_frame):
            self._reject("goal_pose", f"goal in frame {msg.header.frame_id!r}, expected the "
                         f"shared frame {self.shared_frame!r}")
            return
        x, y, z = msg.pose.position.x, msg.pose.position.y, msg.pose.position.z
        if not all(map(math.isfinite, (x, y, z))):
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
        try:
            points = path_points(msg, self.dimensions)
        except BadMessage as error:
            self._reject("plan", str(error))
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
        try:
            points = path_points(msg, what="detour")
        except BadMessage as error:
            self._reject("supervisor/detour", str(error))
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
        """Follow the odom of every other robot: listed, or found in the graph
        (:meth:`RobotInputs.to_follow`)."""
        shared = self.neighbor_odometry
        if self.announcing:  # present: a node named as this one, in the robot's namespace
            self.inputs.departures(shared.states, {
                namespace.strip("/") for node, namespace
                in self.get_node_names_and_namespaces() if node == self.get_name()})
        for name in self.inputs.to_follow(
                lambda: robots_publishing_odometry(self.get_topic_names_and_types()),
                shared.latest, shared.grid is not None, linked_names(self.cycle.link_groups)):
            shared.follow(name, self)
        if self._param("share_predictions"):
            for name in self.inputs.followed:
                if name not in self.prediction_subscriptions:
                    self.prediction_subscriptions[name] = self.create_subscription(
                        Odometry, f"/{name}/orca/prediction",
                        lambda msg, name=name: self._on_neighbor_prediction(name, msg), LATEST)

    # --- control: the cycle, fed from messages --------------------------------------------

    def _input_hold(self, now: float) -> str:
        """Why the robot must hold for want of input (:meth:`RobotInputs.hold`)."""
        heard = self.neighbor_odometry
        return self.inputs.hold(now, lambda n: n in heard.states or n in heard.odometry)

    def _control(self) -> None:
        now_ns = self._now_ns()
        self.timing.start(now_ns, 1e9 / self._param("control_rate"), self.own is not None)
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
                                     self.inputs.preferred())
        self.last_result = result
        self.status = result.status
        if result.holds:
            if not self.inputs.quiet(now):  # a filter with no input to pass stays quiet
                self._publish_command(0.0, 0.0, 0.0)
            return
        self.inputs.quiet_stops = 0
        command = result.command
        self.timing.command_sent()
        self.reverse_limited += command.reverse_limited if command.passed_through is not None else 0
        self._publish_command(*command_twist(
            command, self.own.state.heading, self.controller.effective_config.diff_drive))
        if result.prediction is not None:
            self.prediction_pub.publish(prediction_message(
                result.prediction, self._param("world_frame"), self.robot))
        if self.marker_pub.get_subscription_count() > 0:
            perceived = result.perceived
            neighbors = perceived.neighbors[:self.controller.effective_config.max_neighbors]
            self.marker_pub.publish(markers.orca_markers(
                self._param("world_frame"), self.get_clock().now().to_msg(), self.robot,
                self.own.state, command, neighbors,
                **({"tethers": perceived.tethers, "links": perceived.links,
                    "tether_from": perceived.state.position}
                   if self.cycle.link_groups else {}),
                **({"scan_walls": self.obstacles.segments_of(self.walls.scan_key)}
                   if self._param("scan_obstacles") else {})))

    def _control_3d(self, now_ns: int, readings: Dict[str, NeighborReading]) -> None:
        """One control cycle of an aerial robot (``dimensions`` 3): the velocity sent in
        the body frame (x, y turned by the yaw; z up)."""
        if self.aerial is None:
            result = CycleResult(Status(GoalState.HOLDING, self.aerial_error))
        else:
            result = self.aerial.step(now_ns * 1e-9, self.own, self.inputs.position3,
                                      self.inputs.velocity3, readings)
        self.status = result.status
        if result.holds:
            self._publish_command(0.0, 0.0, 0.0)
            return
        self.timing.command_sent()
        vx, vy, vz = result.command.velocity  # world frame -> body frame (turned about z)
        self._publish_command(*world_to_body(self.own.state.heading, (vx, vy)), 0.0, vz)

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

    def _publish_diagnostics(self) -> None:
        """The robot's diagnostics (:func:`~orca_ros.core.robot.report.robot_report`)."""
        now_ns, shared = self._now_ns(), self.neighbor_odometry
        level, message, values = robot_report(RobotSnapshot(
            self.robot, now_ns * 1e-9, self.status, self.goal, self.dimensions, self.cycle,
            self.aerial, self.aerial_error, self.inputs, self.timing, self._neighbors(now_ns),
            self._param("neighbor_timeout"), shared.messages, len(shared.nodes),
            len(self.edges), self.rejected, self.last_problem,
            self.count_publishers(self.cmd_pub.topic_name), self.cmd_pub.topic_name,
            self.reverse_limited, self._param("max_reverse_speed"), self.callback_errors,
            self.walls.scan_report() if self._param("scan_obstacles") else None))
        self.diag_pub.publish(diagnostic_array(
            self.get_clock().now().to_msg(),
            [diagnostic_status(f"orca_node: {self.robot}", level, message, values, self.robot)]))


def main(args=None) -> None:
    run_node(OrcaNode, args)


if __name__ == "__main__":
    main(sys.argv)
