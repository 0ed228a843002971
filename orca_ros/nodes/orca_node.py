"""orca_node: one robot's decentralized collision avoidance.

Subscribes (in the robot's namespace): ``odom`` (own), every neighbour's ``odom`` (the
``neighbors`` parameter, or discovery of ``*/odom`` topics), ``/obstacles`` (LINE_LIST
markers of any number of sources, kept by ns and id, as RViz keeps markers),
``goal_pose``, optionally ``plan``, and the supervisor's ``supervisor/speed_limit`` and
``supervisor/detour``. Publishes ``cmd_vel`` at ``control_rate`` (``control_trigger``: on
a timer, or as its own odometry arrives), ``orca/markers`` (when watched) and
``/diagnostics``. With ``links`` (robots joined by a tether or a carried load, in the
scenario format) the robot keeps within reach of its partners, off the other groups'
links, and holds still while a partner's odometry is missing or stale. With
``share_predictions`` (toio cubes) a unicycle also publishes ``orca/prediction``
(nav_msgs/Odometry stamped with the time its command starts to act: the pose it will
have then, the command's twist, the pose covariance its uncertainty squared) and uses its
neighbours'. With ``neighbor_cell_size`` (neighbour cells, :mod:`orca_ros.core.robot.cells`)
it takes neighbours' odometry from the ``/orca/cells/...`` topics of the floor's squares
near its robot instead of every ``/<other>/odom``, and publishes its own there.

The node converts and wires: messages become the inputs of the robot's control
(:class:`orca_ros.core.robot.control.RobotControl`: its cycle, inputs, timing, walls and
goal; the cycle, :class:`~orca_ros.core.robot.cycle.RobotCycle`, is the one the simulated
world runs), and each control period's outcome becomes ``cmd_vel``, markers and
diagnostics. Its parameters are one table (:mod:`orca_ros.nodes.params.orca_node`,
``doc/parameters.md``).

With ``dimensions: 3`` it flies an aerial robot (holonomic; the method's 3D version,
:class:`orca_ros.core.robot.cycle.AerialCycle`): it reads the height and climb rate from
every ``odom`` (``pose.position.z``, ``twist.linear.z``), goals and plans in 3D, and
publishes ``cmd_vel.linear.z``. Walls, links, the supervisor's directives, the
reciprocity monitor and the ORCA markers are 2D only and play no part there (a neighbour
named in ``non_reciprocating`` still gets the whole avoidance).
"""

from __future__ import annotations

import sys
from operator import attrgetter
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

from ..core.geometry.frames import Pose2
from ..core.models.drive import drive_model
from ..core.robot import settings
from ..core.robot.cells import CellGrid
from ..core.robot.control import RobotControl
from ..core.robot.inputs import robots_publishing_odometry
from ..core.robot.link_groups import linked_names
from ..core.robot.localization import UNCERTAINTY_DEVIATIONS
from ..core.robot.obstacle_registry import ObstacleUpdateError
from ..core.robot.perception import NeighborReading
from . import markers
from .neighbor_odometry import FOOTPRINTS_TOPIC, STATES_TOPIC, NeighborOdometry
from .params import check_start, check_values, declare_table, removed_problem
from .params.orca_node import (ODOM_TRIGGER_SPACING, PARAMETERS, REMOVED, declare_method,
                               unknown_parameters)
from .ros_common import (LATCHED, LATEST, OBSTACLES_SUBSCRIPTION, RELIABLE_10, BadMessage,
                         GuardedCallbacks, NodeParameters, announced_state, catch_up_clock,
                         deliver_waiting, diagnostics_cdr, localization_fix,
                         obstacle_update, odometry_on_cells, on_sim_time, own_odometry,
                         path_points, prediction_message, run_node, shared_prediction,
                         twist_cdr, twist_of)

FOOTPRINT_SIDES = 16  # the announced footprint: a polygon round the robot's disc
COMMANDERS_EVERY = 5  # diagnostics: publishers on cmd_vel counted every this many


def _of(path: str, doc: Optional[str] = None) -> property:
    """An attribute of the node's :class:`RobotControl` (``path``: dotted, through its
    parts), read and set through the node."""
    owner, _, name = f"core.{path}".rpartition(".")
    return property(attrgetter(f"core.{path}"), doc=doc,
                    fset=lambda self, value: setattr(attrgetter(owner)(self), name, value))


class OrcaNode(GuardedCallbacks, Node):
    def __init__(self, neighbor_odometry: Optional[NeighborOdometry] = None, **kwargs) -> None:
        """``neighbor_odometry``: the process's shared neighbours' odometry (orca_robots
        passes one to all its nodes); None: this node's own."""
        super().__init__("orca_node", **kwargs)
        gone = removed_problem(REMOVED, getattr(self, "_parameter_overrides", {}))
        if gone:
            raise ValueError(gone)
        declare_table(self, PARAMETERS)
        self.params = NodeParameters(self)
        self.method_declared = self._param("method")
        self.table = declare_method(self, self.method_declared)
        problem = check_start(self, self.table)
        if problem:
            raise ValueError(problem)
        unknown = unknown_parameters(getattr(self, "_parameter_overrides", {}), self.table)
        if unknown:  # a misspelt name would otherwise be ignored without a word
            self.get_logger().warning(
                f"orca_node has no parameter {', '.join(sorted(unknown))}: ignored")
        self.robot = self.get_namespace().strip("/") or self.get_name()
        self.add_on_set_parameters_callback(self._validate_parameters)
        self._config_dirty = False
        self.announcing = bool(self._param("announce"))
        self.core = RobotControl(self.robot, self.params, self.announcing,
                                 lambda: self.neighbor_odometry.radii,
                                 drive_model(self._param("drive_model")))
        # Neighbours' odometry: the process's, one subscription per robot for all its nodes.
        self.neighbor_odometry = neighbor_odometry or NeighborOdometry()
        self.neighbor_odometry.join(self)
        # On a simulated clock every stamp is of that one clock: none is corrected by an
        # estimated offset (:mod:`~orca_ros.core.robot.clocks`, "One clock"); a process's
        # nodes share that setting.
        one_clock = on_sim_time(self)
        self.core.own_clock.one_clock = one_clock
        clocks = self.neighbor_odometry.clocks
        if len(self.neighbor_odometry.nodes) > 1 and clocks.one_clock != one_clock:
            self.get_logger().warning(
                f"use_sim_time is {one_clock} here but not on another orca_node of this "
                "process: its nodes share how neighbours' stamps are read, now as "
                f"use_sim_time {one_clock} says; run them all on one clock")
        clocks.one_clock = one_clock
        # Neighbour cells (neighbor_cell_size): publishers of the own odometry, by cell.
        self.cell_publishers: Dict[Tuple[int, int], object] = {}
        if self._param("neighbor_cell_size") > 0.0:
            self.neighbor_odometry.use_cells(CellGrid(self._param("neighbor_cell_size")))
        if self.announcing:
            self.neighbor_odometry.use_states()
        # Its state goes with the process's batch (:mod:`.state_batch`).
        self.batched = self.announcing and self.neighbor_odometry.batching and \
            bool(self._param("state_batches"))
        self.prediction_subscriptions: Dict[str, object] = {}
        self.obstacle_expiry_timer = None  # made when a marker with a lifetime comes
        self.rejected: Dict[str, int] = {}
        self.last_problem = ""
        self.obstacles = self.walls.registry
        for problem in self.core.problems():  # each holds the robot
            self.get_logger().error(problem)
        self.stamped = bool(self._param("enable_stamped_cmd_vel"))
        self.cmd_pub = self.create_publisher(TwistStamped if self.stamped else Twist, "cmd_vel",
                                             RELIABLE_10)
        self.marker_pub = self.create_publisher(MarkerArray, "orca/markers", 1)
        self.footprint_view_pub = self.create_publisher(PolygonStamped, "orca/footprint", 1)
        self.prediction_pub = self.create_publisher(Odometry, "orca/prediction", RELIABLE_10)
        self.state_pub = self.footprint_pub = None
        if self.announcing:
            # With cells: on the cell topics; in a batch: the process publishes them.
            if self.neighbor_odometry.grid is None and not self.batched:
                # Reliable: RViz, rqt and Foxglove (reliable readers) can show it; the
                # fleet's readers are best effort, and a reliable writer serves those
                # without acknowledgements.
                self.state_pub = self.create_publisher(Odometry, STATES_TOPIC, RELIABLE_10)
            self.footprint_pub = self.create_publisher(PolygonStamped, FOOTPRINTS_TOPIC, LATCHED)
            self._publish_footprint()
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics",
                                              qos_profile_system_default)
        self.own_odom_sub = self.create_subscription(Odometry, "odom", self._on_own_odom,
                                                     LATEST, raw=True)
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

        self.control_timer = self.create_timer(self.core.timer_period_ns() * 1e-9,
                                               self._on_control_timer)
        self.create_timer(self._param("discovery_period"), self._discover)
        self.create_timer(1.0, self._publish_diagnostics)
        self._discover()

    # --- parameters: the table, and the settings made of them (core.robot.settings) -----

    def _param(self, name):
        return self.params[name]

    def _validate_parameters(self, params) -> SetParametersResult:
        values = {p.name: p.value for p in params}
        problem = check_values(self.table, values) or settings.cross_check(values, self.params)
        if problem is not None:
            return SetParametersResult(successful=False, reason=problem)
        self._config_dirty = True
        return SetParametersResult(successful=True)

    def _configure(self) -> None:
        """Parameters changed: the cycle takes the new settings (it keeps its path)."""
        self._config_dirty = False
        method = self._param("method")
        if method != self.method_declared:  # declare the chosen method's parameters only
            self.table = declare_method(self, method, self.method_declared)
            self.method_declared = method
        if self.footprint_pub is not None:
            self._publish_footprint()  # the radius may have changed
        self.core.configure()
        self.control_timer.timer_period_ns = self.core.timer_period_ns()  # rate, trigger
        self._discover()  # follow robots named in new links at once
        self.core.redimension()
        for problem in self.core.problems():  # each holds the robot
            self.get_logger().error(problem)

    shared_frame = property(lambda self: self._param("world_frame"),
                            doc="The frame every robot plans in (``world_frame``).")
    odom_frame = property(lambda self: self._param("odom_frame") or self.shared_frame,
                          doc="The frame the robot's own odometry must be in.")
    cycle, inputs, timing, walls, aerial, aerial_error, dimensions, radius_of, scan_mount = map(
        _of, ("cycle", "inputs", "timing", "walls", "aerial", "aerial_error", "dimensions",
              "radius_of", "scan_mount"))
    goal, plan, status, last_result, reverse_limited = map(
        _of, ("goal", "plan", "status", "last_result", "reverse_limited"))
    _neighbor_radius = _of("radii", "A neighbour's radius by name (NeighborRadii).")
    controller = _of("cycle.controller", "The robot's controller (path, method, tracking).")
    goal_state = property(lambda self: str(self.status),
                          doc="What the robot is doing, as its diagnostics say it.")
    own = _of("inputs.own", "The own odometry in the shared frame (OwnReading), None until then.")
    state = property(lambda self: self.own.state if self.own is not None else None,
                     doc="The robot's own state as its odometry last said.")
    odometry_gate = _of("inputs.gate")
    edges = _of("walls.edges", "Every source's walls, as edges.")
    predictions = _of("cycle.predictions", "What the neighbours said they will do.")
    cmd_vel_in = _of("inputs.cmd_vel_in", "Filter mode's latest ``cmd_vel_in``: ((vx, vy, "
                     "omega), received s), or None.")

    # --- inputs -------------------------------------------------------------------------

    def _reject(self, what: str, reason: str) -> None:
        self.rejected[what] = self.rejected.get(what, 0) + 1
        self.last_problem = f"{what}: {reason}"
        self.get_logger().warning(f"dropped {what}: {reason}", throttle_duration_sec=2.0)

    def _now_ns(self) -> int:
        return self.get_clock().now().nanoseconds

    def _on_own_odom(self, raw) -> None:
        """The own odometry, serialized (a raw subscription: the fields read without
        building the message, :func:`~.ros_common.odometry_fields`) or a message. A
        ``/clock`` message left waiting is taken first, whatever the odometry's stamp:
        the odometry is timed on the node's clock (:meth:`RobotControl.measured_ns`)."""
        catch_up_clock(self)
        try:
            msg, position, velocity, yaw, v, omega = own_odometry(raw, self.odom_frame)
        except BadMessage as error:
            self._reject("own odom", str(error))
            return
        # When it was measured (:meth:`RobotControl.measured_ns`).
        stamp_ns = self.core.measured_ns(msg.sec * 1_000_000_000 + msg.nanosec,
                                         self._now_ns())
        problem = self.core.odometry(stamp_ns, msg.sec + msg.nanosec * 1e-9, Pose2(
            position[0], position[1], yaw), velocity, v, omega, lambda: (msg.pz, msg.vz))
        if problem is not None:  # '': older than what we have
            if problem:
                self._reject("own odom", problem)
            return
        shared, state = self.inputs.shared_pose, None
        if shared is not None:
            if self.announcing:
                state = announced_state(
                    msg, self.shared_frame, self.robot, shared,
                    self.inputs.localizer.uncertainty / UNCERTAINTY_DEVIATIONS, stamp_ns)
            elif self.neighbor_odometry.grid is not None:
                state = odometry_on_cells(msg, self.robot)
        self.timing.odometry_heard()
        if self.core.rearms_timer:  # the timer a watchdog only (RobotControl.timer_period_ns)
            self.control_timer.reset()
        if self.core.odometry_starts(stamp_ns, ODOM_TRIGGER_SPACING):
            with self.timing.cpu():  # spaced by the odometry's own stamps
                self._control()
        # After the command, not in its latency: this robot's state for the others.
        if state is not None and self.neighbor_odometry.grid is not None:
            reach = max(self._param("max_speed"), self.cycle.neighbor_max_speed)
            self.neighbor_odometry.share(self, state, shared.position, self._param(
                "neighbor_dist"), reach, self._param("neighbor_cell_match_time"))
        elif state is not None and self.state_pub is not None:
            self.state_pub.publish(state)
        elif state is not None and self.batched:
            self.neighbor_odometry.batch.put(self.robot, state)

    def _publish_footprint(self) -> None:
        """This robot's footprint, latched on /orca/footprints: a polygon round its disc
        in its base frame (its farthest point is its radius; the frame names the robot)."""
        self.footprint_pub.publish(markers.footprint(
            f"{self.robot}/base_link", None, (0.0, 0.0), self._param("radius"),
            FOOTPRINT_SIDES))

    def _show_footprint(self) -> None:
        """The footprint where the robot is, in the shared frame, on ``orca/footprint``
        (as Nav2's costmaps publish ``published_footprint``): what RViz draws in ``map``
        with no TF of the robot's. Sent only while someone listens, and not in 3D."""
        if self.dimensions == 3 or self.own is None or \
                self.footprint_view_pub.get_subscription_count() == 0:
            return
        self.footprint_view_pub.publish(markers.footprint(
            self.shared_frame, self.get_clock().now().to_msg(), self.own.state.position,
            self._param("radius"), FOOTPRINT_SIDES))

    def _on_localization(self, msg: PoseWithCovarianceStamped) -> None:
        """A localization fix (the pose in the shared frame), as AMCL publishes it."""
        try:
            report = self.inputs.localizer.fix(*localization_fix(msg, self.shared_frame))
        except BadMessage as error:
            self._reject(self._param("localization_topic"), str(error))
            return
        if report is not None:
            self.get_logger().warning(report, throttle_duration_sec=1.0)

    def _on_cmd_vel_in(self, msg) -> None:
        """The preferred velocity from outside (preferred_velocity: topic), body frame."""
        try:
            twist = twist_of(msg)
            self.inputs.command_in((twist.linear.x, twist.linear.y, twist.angular.z),
                                   self._now_ns() * 1e-9)
        except BadMessage as error:
            self._reject("cmd_vel_in", str(error))

    def _on_control_timer(self) -> None:
        """Every cycle under control_trigger 'timer'; under 'odom' only as a watchdog
        (:meth:`RobotControl.timer_starts`). First the own odometry that came but was not
        handed over (:func:`~.ros_common.deliver_waiting`): under 'odom' it starts its
        cycle here, a period late at most, rather than the robot braking on stale
        odometry. Only when the odometry is overdue (:meth:`RobotControl.odometry_overdue`):
        otherwise the executor hands it over in time, and the clock was caught up with it."""
        if self.core.odometry_overdue():
            catch_up_clock(self)
            deliver_waiting(self.own_odom_sub)
        if self.core.timer_starts(self._now_ns()):
            self._control()

    def report_bad_neighbor_odometry(self, name: str, reason: str) -> None:
        """A message of ``/<name>/odom`` was refused (:class:`NeighborOdometry`)."""
        self._reject(f"odom of {name}", reason)

    neighbors = property(lambda self: self._neighbors(self._now_ns()),
                         doc="The neighbours that count now (see :meth:`_neighbors`).")

    def _neighbors(self, now_ns: int) -> Dict[str, NeighborReading]:
        """The neighbours that count (:meth:`RobotInputs.neighbors`)."""
        shared = self.neighbor_odometry
        return self.inputs.neighbors(now_ns * 1e-9, shared.latest, shared.states,
                                     shared.grid is not None, self.cycle.neighbor_max_speed)

    def _on_neighbor_prediction(self, name: str, msg: Odometry) -> None:
        """A neighbour's :class:`SharedPrediction` (stamped when its command acts: the future)."""
        try:
            self.cycle.share(name, shared_prediction(  # stamped by its sender's clock
                msg, self.inputs.gate.max_coordinate, self._now_ns(),
                self._param("neighbor_timeout"), self.neighbor_odometry.clocks.offset(name) or 0.0))
        except BadMessage as error:
            self._reject(f"prediction of {name}", str(error))

    def _on_obstacles(self, msg: Marker) -> None:
        """One source's marker into the obstacle registry (RViz semantics, keyed by ns and id).

        A bad marker is dropped whole with a diagnostic and changes no obstacle; so is
        one that adds walls in a frame other than the shared one (``world_frame``): its
        points would be taken as coordinates of a frame they are not in.
        """
        frame, shared = msg.header.frame_id, self._param("world_frame")
        try:
            if msg.action == Marker.ADD and frame != shared:
                raise BadMessage(f"obstacles ns {msg.ns!r} id {msg.id}: in frame {frame!r}, "
                                 f"not the shared frame {shared!r}")
            self.walls.apply(obstacle_update(msg), self._now_ns() * 1e-9)
        except (BadMessage, ObstacleUpdateError) as error:
            self._reject("/obstacles", str(error))
            return
        self._arm_obstacle_expiry()

    def _on_scan(self, msg) -> None:
        """The laser's returns that no known neighbour explains as this robot's walls
        (:meth:`RobotControl.scan`), from its latest pose and ``scan_pose``."""
        if self.own is None:
            return
        now_ns = self._now_ns()
        problem = self.core.scan(msg.header.frame_id, msg.ranges, msg.angle_min,
                                 msg.angle_increment, msg.range_min, msg.range_max,
                                 now_ns * 1e-9, lambda: self._neighbors(now_ns))
        if problem is not None:
            self._reject(self._param("scan_topic"), problem)
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
        p = msg.pose.position
        problem = self.core.set_goal(msg.header.frame_id, (p.x, p.y, p.z))
        if problem is not None:
            self._reject("goal_pose", problem)

    def _on_plan(self, msg: Path) -> None:
        try:
            problem = self.core.frame_problem("plan", msg.header.frame_id)
            if problem is None:
                self.core.set_plan(path_points(msg, self.dimensions))
        except BadMessage as error:
            problem = str(error)
        if problem is not None:
            self._reject("plan", problem)

    def _on_speed_limit(self, msg: Float64) -> None:
        problem = self.core.set_speed_limit(msg.data, self._now_ns() * 1e-9)
        if problem is not None:
            self._reject("supervisor/speed_limit", problem)

    def _on_detour(self, msg: Path) -> None:
        try:
            self.cycle.set_detour(path_points(msg, what="detour"), self._now_ns() * 1e-9)
        except BadMessage as error:
            self._reject("supervisor/detour", str(error))

    def _discover(self) -> None:
        """Follow the odom of every other robot: listed, or found in the graph
        (:meth:`RobotInputs.to_follow`)."""
        shared = self.neighbor_odometry
        if self.announcing:  # present: a node named as this one, in the robot's namespace
            # A fresh look: an older one would count as departed a robot whose node came
            # since, and its odometry would be followed for good.
            me = self.get_name()
            self.inputs.departures(shared.states, {
                namespace.strip("/") for node, namespace
                in self.get_node_names_and_namespaces() if node == me})
        for name in self.inputs.to_follow(
                lambda: shared.robots_publishing_odometry(lambda: tuple(
                    robots_publishing_odometry(self.get_topic_names_and_types()))),
                shared.latest, shared.grid is not None, linked_names(self.cycle.link_groups)):
            shared.follow(name, self)
        for name in self.inputs.followed if self._param("share_predictions") else ():
            if name not in self.prediction_subscriptions:
                self.prediction_subscriptions[name] = self.create_subscription(
                    Odometry, f"/{name}/orca/prediction",
                    lambda msg, name=name: self._on_neighbor_prediction(name, msg), LATEST)

    # --- control: the cycle, fed from messages --------------------------------------------

    def _control(self) -> None:
        """One control period (:meth:`RobotControl.control`), its outcome sent."""
        now_ns = self._now_ns()
        self.core.start(now_ns)
        if self._config_dirty:
            self._configure()
        readings = self._neighbors(now_ns)
        self.last_readings = (now_ns, readings)
        self._show_footprint()
        outcome = self.core.control(now_ns * 1e-9, readings, self.neighbor_odometry.heard)
        if outcome.twist is not None:
            self._publish_command(*outcome.twist, stamp_ns=now_ns)
        if outcome.prediction is not None:
            self.prediction_pub.publish(prediction_message(
                outcome.prediction, self._param("world_frame"), self.robot))
        if self.dimensions != 3 and not outcome.result.holds and \
                self.marker_pub.get_subscription_count() > 0:
            self._publish_markers(outcome.result)

    def _publish_markers(self, result) -> None:
        seen, linked = result.perceived, bool(self.cycle.link_groups)
        self.marker_pub.publish(markers.orca_markers(
            self._param("world_frame"), self.get_clock().now().to_msg(), self.robot,
            self.own.state, result.command,
            seen.neighbors[:self.controller.effective_config.max_neighbors],
            *((seen.tethers, seen.links, seen.state.position) if linked else (None,) * 3),
            self.obstacles.segments_of(self.walls.scan_key)
            if self._param("scan_obstacles") else None))

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
    diagnostics_sent = 0
    last_readings = (-(1 << 62), {})  # (node clock ns, the readings) of the last cycle
    commanders = 1  # publishers on cmd_vel, this node's included, as last counted

    def _publish_command(self, linear_x: float, linear_y: float, angular_z: float,
                         linear_z: float = 0.0, stamp_ns: Optional[int] = None) -> None:
        """A command on ``cmd_vel``. A TwistStamped carries the time the cycle decided it
        (``stamp_ns``: what it perceived was predicted to then), not the time it went
        out: a cycle held up between deciding and sending (a busy CPU) leaves a command
        that a driver counting its validity from the stamp (fleet_sim's
        ``command_validity``) expires that much sooner."""
        if self.commanding:
            self.cmd_pub.publish(twist_cdr(
                linear_x, linear_y, angular_z, self.stamped,
                self._now_ns() if stamp_ns is None else stamp_ns, f"{self.robot}/base_link",
                linear_z))

    def _publish_diagnostics(self) -> None:
        """The robot's diagnostics (:func:`~orca_ros.core.robot.report.robot_report`).
        The publishers on ``cmd_vel`` are counted every :data:`COMMANDERS_EVERY`
        diagnostics: a count goes over the whole ROS graph (about 0.3 ms a robot at 100
        robots, a third of its diagnostics)."""
        now_ns, shared, topic = self._now_ns(), self.neighbor_odometry, self.cmd_pub.topic_name
        if self.diagnostics_sent % COMMANDERS_EVERY == 0:
            self.commanders = self.count_publishers(topic)
        self.diagnostics_sent += 1
        taken_ns, readings = self.last_readings
        if now_ns - taken_ns > self.core.period_ns:  # no cycle this period: read afresh
            readings = self._neighbors(now_ns)
        level, message, values = self.core.report(
            now_ns * 1e-9, readings, shared.messages, len(shared.nodes),
            self.rejected, self.last_problem, self.commanders, topic,
            self.callback_errors, shared.clocks)
        self.diag_pub.publish(diagnostics_cdr(
            now_ns, [(f"orca_node: {self.robot}", level, message, self.robot, values)]))


def main(args=None) -> None:
    run_node(OrcaNode, args)


if __name__ == "__main__":
    main(sys.argv)
