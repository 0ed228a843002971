"""orca_node: one robot's decentralized collision avoidance.

Subscribes (in the robot's namespace): ``odom`` (own), every neighbour's
``odom`` (the ``neighbors`` parameter, or discovery of ``*/odom`` topics),
``/obstacles`` (LINE_LIST markers of any number of sources, kept by ns and id, as RViz
keeps markers), ``goal_pose``, optionally ``plan``, and the
supervisor's ``supervisor/speed_limit`` and ``supervisor/detour``. Publishes
``cmd_vel`` at ``control_rate`` (``control_trigger``: on a timer, or as its own
odometry arrives), ``orca/markers`` (when watched) and
``/diagnostics``. With ``links`` (robots joined by a tether or a carried load, in
the scenario format) it hands the method its own group's partners and the other
groups' links near it, draws them, and holds the robot while a partner's
odometry is missing or stale. With ``share_predictions`` (toio cubes) a unicycle also
publishes ``orca/prediction`` (nav_msgs/Odometry stamped with the time its
command starts to act: the pose it will have then, the command's twist, the
pose covariance its uncertainty squared) and uses its neighbours'. With
``neighbor_cell_size`` (neighbour cells, :mod:`orca_ros.core.robot.cells`) it takes
neighbours' odometry from the ``/orca/cells/...`` topics of the floor's squares near
its robot instead of every ``/<other>/odom``, and publishes its own there. The
avoidance itself is
:class:`orca_ros.core.robot.controller.RobotController`.

With ``dimensions: 3`` it flies an aerial robot (holonomic; the method's 3D
version, :class:`orca_ros.core.robot.aerial.AerialController`): it reads the
height and climb rate from every ``odom`` (``pose.position.z``,
``twist.linear.z``), goals and plans in 3D, and publishes ``cmd_vel.linear.z``.
Walls, links, the supervisor's directives, the reciprocity monitor and the
ORCA markers are 2D only and play no part there (a neighbour named in
``non_reciprocating`` still gets the whole avoidance).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import sys
import time
from typing import Dict, List, Optional, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped, Twist, TwistStamped
from nav_msgs.msg import Odometry, Path
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import qos_profile_system_default
from std_msgs.msg import Float64
from visualization_msgs.msg import Marker, MarkerArray

from ..core.robot.state import Command, Neighbor, RobotState, predict_state
from ..core.robot.config import ControllerConfig
from ..core.robot.controller import RobotController
from ..core.robot.cells import CellGrid, cell_topic, publication_reach, subscription_reach
from ..core.robot.aerial import AerialController, Neighbor3D, perceive_neighbor_3d
from ..core.models.toio_cube import DRIVE_MODELS, drive_model
from ..core.models.bodies import KINEMATICS
from ..core.robot.links import group_of, linked_names, linked_views, parse_links
from ..core.methods import TRACKING, LinkView, TetherView, method_names, method_spec
from ..core.robot.perception import (OdometryGate, ReciprocityMonitor, SentCommands,
                                     SharedPrediction, beyond_reach, perceive_neighbor_best,
                                     select_neighbors)
from ..core.robot.obstacle_registry import ObstacleRegistry, ObstacleUpdateError
from . import markers
from .neighbor_odometry import NeighborOdometry, Seen
from .ros_common import (LEVEL_ERROR, LEVEL_OK, LEVEL_WARN, OBSTACLES_SUBSCRIPTION, CELL, LATEST,
                         RELIABLE_10, BadMessage, check_choices, described, diagnostic_array,
                         diagnostic_status, float_param, int_param, obstacle_update,
                         odometry_height, odometry_state, quaternion_from_yaw, run_node,
                         twist_message)



SAFETY_FILTER = ("method", "on", "off")


CONTROL_TRIGGERS = ("timer", "odom")
ODOM_TRIGGER_SPACING = 0.9  # control periods between cycles started by odometry, at least
WATCHDOG_PERIODS = 1.25  # control periods without a cycle before the timer starts one


def method_parameter_defaults(method: str) -> dict:
    """A method's own parameters and their defaults as ROS parameter values (``[""]`` for
    an empty list), leaving out those orca_node has already (``time_horizon``, ...)."""
    robot = {f.name for f in dataclasses.fields(ControllerConfig)}
    defaults = {}
    for field in dataclasses.fields(method_spec(method).parameters):
        if field.name in robot:
            continue
        default = field.default if field.default is not dataclasses.MISSING \
            else field.default_factory()
        if isinstance(default, tuple):
            default = list(default) or [""]
        defaults[field.name] = default
    return defaults


class OrcaNode(Node):
    def __init__(self, neighbor_odometry: Optional[NeighborOdometry] = None, **kwargs) -> None:
        """``neighbor_odometry``: the process's shared neighbours' odometry (orca_robots
        passes one to all its nodes); None: this node's own."""
        super().__init__("orca_node", **kwargs)
        self._declare_parameters()
        self.robot = self.get_namespace().strip("/") or self.get_name()
        self.add_on_set_parameters_callback(self._validate_parameters)
        self._config_dirty = False
        self._warned_deprecated = False

        self.state: Optional[RobotState] = None
        self.state_stamp_ns = 0  # when the own odometry was measured (node clock)
        self.odometry_gate = OdometryGate(max(self._param("max_speed"), 1e-3))
        self.reciprocity = self._reciprocity_monitor()
        # Neighbours' odometry: the process's, one subscription per robot for all its nodes.
        self.neighbor_odometry = neighbor_odometry or NeighborOdometry()
        self.neighbor_odometry.join(self)
        # Neighbour cells (neighbor_cell_size): publishers of the own odometry, by cell.
        self.cell_publishers: Dict[Tuple[int, int], object] = {}
        if self._param("neighbor_cell_size") > 0.0:
            self.neighbor_odometry.use_cells(CellGrid(self._param("neighbor_cell_size")))
        self.followed: List[str] = []  # the robots this node follows (order of discovery)
        self.observed_ns: Dict[str, int] = {}  # stamp last handed to the reciprocity monitor
        self.predictions: Dict[str, SharedPrediction] = {}  # what neighbours said they will do
        self.prediction_subscriptions: Dict[str, object] = {}
        # Obstacles from every /obstacles source, by (ns, id); self.edges is their union.
        self.obstacles = ObstacleRegistry()
        self.obstacle_expiry_timer = None  # made when a marker with a lifetime comes
        self.edges = self.obstacles.edges
        self.goal: Optional[Tuple[float, float]] = None
        self.plan: List[Tuple[float, float]] = []
        self.speed_limit: Optional[Tuple[float, int]] = None  # (m/s, received ns)
        self.detour: Optional[Tuple[List[Tuple[float, float]], int]] = None
        self.rejected: Dict[str, int] = {}
        self.last_problem = ""
        self.last_command: Optional[Command] = None
        self.goal_state = "no goal"
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

        self.base_config = self._controller_config()
        self.radius_of = self._neighbor_radii()
        # Linked robots (``links``): the groups, and what the last cycle made of them.
        self.link_groups, self.links_error = self._initial_links()
        self.link_missing: List[str] = []  # own partners without odometry
        self.link_stale: List[str] = []  # own partners whose odometry is stale
        self.links_seen = 0  # other groups' links handed to the method last cycle
        self.controller = RobotController(self.base_config, key=self.robot)
        # Aerial robots (dimensions: 3): their controller, position and velocity in 3D.
        self.dimensions = int(self._param("dimensions"))
        self.aerial, self.aerial_error = self._aerial_controller()
        self.position3: Optional[Tuple[float, float, float]] = None
        self.velocity3: Tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.last_command3d = None
        self.sent = self._sent_commands()
        self.stamped = bool(self.get_parameter("enable_stamped_cmd_vel").value)
        self.cmd_pub = self.create_publisher(TwistStamped if self.stamped else Twist, "cmd_vel",
                                             RELIABLE_10)
        self.marker_pub = self.create_publisher(MarkerArray, "orca/markers", 1)
        self.prediction_pub = self.create_publisher(Odometry, "orca/prediction", RELIABLE_10)
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

        self.control_timer = self.create_timer(1.0 / self.get_parameter("control_rate").value,
                                               self._on_control_timer)
        self.create_timer(self.get_parameter("discovery_period").value, self._discover)
        self.create_timer(1.0, self._publish_diagnostics)
        self._discover()

    # --- parameters -------------------------------------------------------------

    def _declare_parameters(self) -> None:
        d = self.declare_parameter
        d("radius", 0.2, float_param("robot radius (m)", 0.001, 10.0))
        d("max_speed", 0.5, float_param("hard speed cap of the command (m/s)", 0.0, 20.0))
        d("pref_speed", 0.4, float_param("cruise speed towards the goal (m/s)", 0.0, 20.0))
        d("neighbor_dist", 5.0, float_param("neighbours closer than this count (m)", 0.0, 1000.0))
        d("max_neighbors", 10, int_param("at most this many nearest neighbours", 0, 1000))
        d("time_horizon", 2.0, float_param("ORCA time horizon for robots (s)", 0.01, 100.0))
        d("time_horizon_obst", 1.0, float_param("ORCA time horizon for obstacles (s)", 0.01, 100.0))
        d("control_rate", 10.0, float_param("cmd_vel rate (Hz, node clock)", 0.5, 1000.0))
        d("control_trigger", "timer", described(
            "when a command is computed: 'timer' (every 1/control_rate on the node clock) or "
            "'odom' (as the robot's own odometry arrives, at most at control_rate: at least "
            f"{ODOM_TRIGGER_SPACING}/control_rate apart; the timer then only stands in when "
            "odometry stops). 'odom' plans from fresh odometry when it comes at about "
            "control_rate, as from fleet_sim", CONTROL_TRIGGERS))
        d("kinematics", "holonomic", described("robot kinematics", KINEMATICS))
        d("dimensions", 2, int_param(
            "2: a robot on a floor; 3: an aerial robot (holonomic): odometry's z and "
            "twist.linear.z are read, goals are 3D, cmd_vel.linear.z is published, and the "
            "method's 3D version plans (orca, orca_strict, direct)", 2, 3))
        d("method", "orca", described(
            "avoidance method: " + "; ".join(f"{name}: {method_spec(name).summary}"
                                             for name in method_names(ros=True)),
            method_names(ros=True)))
        d("planner", "", described("deprecated: planner 'direct' is method 'direct'",
                                   ("", "orca", "direct")))
        d("strict_rvo2", False, described("deprecated: true is method 'orca_strict'"))
        d("safety_margin_ratio", 0.1, float_param("soft margin, fraction of the radius", 0.0, 2.0))
        d("margin_speed_ratio", 0.0, float_param(
            "the soft margin grows with a pair's relative speed, full at this fraction of "
            "max_speed (0: full at any speed)", 0.0, 10.0))
        d("keep_right_deg", 8.0, float_param("turn of the preferred velocity to the right (deg)",
                                             0.0, 45.0))
        d("stall_escape_deg", 75.0, float_param("a stalled robot turns its preferred velocity "
                                                "right by up to this (deg)", 0.0, 120.0))
        d("stall_escape_time", 3.0, float_param(
            "... reached after stalling this long (s); the count starts over after twice "
            "this", 0.0, 600.0))
        d("stall_detour_time", 0.5, float_param(
            "stalled this long, head round the robots standing between the robot and its "
            "target (s); 0 = never", 0.0, 600.0))
        d("progress_escape_time", 3.0, float_param(
            "moving this long without getting a radius nearer the target counts as stalled "
            "for detours and the margin release near the goal (s); 0 = never", 0.0, 600.0))
        d("goal_tolerance", 0.1, float_param("goal reached within this distance (m)", 0.001, 100.0))
        d("lookahead", 0.5, float_param("plan/detour look-ahead distance (m)", 0.01, 100.0))
        d("neighbors", [""], described("odom topics' robot names to follow; [''] = discover"))
        d("links", "", described(
            "robots joined by a tether or a carried load, as a scenario's links: YAML/JSON "
            "text of a list like [{agents: [a0, a1], max_length: 1.2, rest_length: 1.0}] "
            "(groups of 2 or 3 robot names, a robot in one group at most, lengths in m, "
            "rest_length optional); '' = none. The robot keeps within max_length of its "
            "partners and off the other groups' links; it holds still while a partner's "
            "odometry is missing or older than neighbor_timeout"))
        d("obstacle_sources", [""], described(
            "namespaces of /obstacles markers (their ns: obstacle_server's is its node "
            "name) this robot must have heard before it moves: until each has published "
            "once, the robot holds still and says so ('holding: waiting for obstacles "
            "from ...'), for no walls heard is not free space; [''] = moves without"))
        d("discovery_period", 1.0, float_param("graph scan period for */odom (s)", 0.05, 60.0))
        d("neighbor_timeout", 1.0, float_param(
            "a neighbour silent this long is reported stale; it is still avoided, as a disc "
            "growing at neighbor_max_speed (s)", 0.01, 60.0))
        d("neighbor_forget_after", 10.0, float_param(
            "forget a neighbour silent this long (s)", 0.01, 3600.0))
        d("neighbor_max_speed", 0.0, float_param(
            "how fast neighbours can move, for data that is old (m/s); 0 = max_speed",
            0.0, 100.0))
        d("neighbor_cell_size", 0.0, float_param(
            "neighbour cells (read at start): the robot publishes its odometry on the "
            "topics of the floor's squares of this side near it (/orca/cells/...), and its "
            "process hears neighbours from the squares within neighbor_dist of its robots, "
            "not every robot's odom (m); 0 = follow each neighbour's odom topic", 0.0, 1e4))
        d("neighbor_cell_match_time", 0.5, float_param(
            "how long a new cell subscription or publisher may take to connect; the cells "
            "reach that much travel further (s)", 0.0, 60.0))
        d("odom_timeout", 0.5, float_param("own odometry older than this: stop (s)", 0.01, 60.0))
        d("command_validity", 0.0, float_param(
            "a command acts at most this long after its stamp, then the robot brakes; the "
            "safety half-planes plan over it (s); 0 = 2 control periods. Give the robot's "
            "driver the same (fleet_sim: command_validity)", 0.0, 10.0))
        d("non_reciprocating", [""], described(
            "robots that do not avoid us (another fleet, people): we take ORCA's whole u"))
        d("detect_non_reciprocating", True, described(
            "treat a neighbour whose velocity keeps violating its reciprocal half-plane as "
            "non-reciprocating"))
        d("neighbor_radius", 0.2, float_param("default neighbour radius (m)", 0.0, 10.0))
        d("neighbor_radii", [-1.0], described(
            "radius of each robot in 'neighbors', in the same order (m); [-1.0] = all "
            "neighbor_radius"))
        d("neighbor_radius_overrides", [""],
          described("deprecated (use neighbors + neighbor_radii): 'name=radius' entries"))
        d("enable_stamped_cmd_vel", False, described("publish TwistStamped (Nav2's name)"))
        d("share_predictions", False, described(
            "a unicycle publishes orca/prediction (its pose when its command acts, the "
            "command's twist) and plans with its neighbours' where that is surer than their "
            "odom (toio cubes: their 0.14 s lag)"))
        d("world_frame", "world", described("frame of poses and markers"))
        d("max_angular_speed", 3.0, float_param("unicycle angular speed limit (rad/s)",
                                                0.01, 100.0))
        d("max_linear_accel", 4.0, float_param("linear acceleration limit (m/s^2)", 0.01, 1000.0))
        d("max_angular_accel", 20.0, float_param("angular acceleration limit (rad/s^2)", 0.01, 1e4))
        d("max_reverse_speed", 0.0, float_param(
            "how fast a diff-drive robot may back off (m/s): it reverses while avoidance "
            "sends it back (more than a right angle and 20 deg from its heading, against "
            "its preferred velocity) instead of turning round first; 0 = never reverses, "
            "-1 = max_speed", -1.0, 20.0))
        d("heading_time_constant", 0.0, float_param("diff-drive heading error closed in this "
                                                    "long (s); 0 = one control period", 0.0, 10.0))
        d("command_lag", 0.0, float_param("robot's command-to-motion lag (s): plan from the "
                                          "state extrapolated by it", 0.0, 2.0))
        d("lag_error", -1.0, float_param("m the robot may stray from the commands sent within "
                                         "command_lag (a unicycle's state is predicted by "
                                         "replaying them); -1: unknown, predict at constant "
                                         "velocity and allow the worst case", -1.0, 1.0))
        d("drive_model", "limits", described(
            "how the commands sent within command_lag are replayed to predict a unicycle "
            "(read at start): limits, speeds move at the acceleration limits; toio, a toio "
            "cube's wheels (dead zone, saturation, time constant)", DRIVE_MODELS))
        d("supervisor_timeout", 1.0, float_param("supervisor directives expire after (s)",
                                                 0.01, 60.0))
        d("tracking", "unicycle", described(
            "how a unicycle follows the method's velocity: unicycle (NH-ORCA style) or "
            "move2target (the toio SDK's CubeHandle.Move2Target, for cubes)", TRACKING))
        d("safety_filter", "method", described(
            "the one-step safety filter: 'method' = as the method says (on for orca, off for "
            "orca_strict, direct and the toio SDK's navigator methods)", SAFETY_FILTER))
        for name in method_names(ros=True):
            for field, default in method_parameter_defaults(name).items():
                d(f"{name}.{field}", default,
                  described(f"{name}'s parameter {field} (see its MethodSpec's parameters)"))

    def _validate_parameters(self, params) -> SetParametersResult:
        result = check_choices(params, {"kinematics": KINEMATICS,
                                        "method": method_names(ros=True),
                                        "planner": ("", "orca", "direct"),
                                        "safety_filter": SAFETY_FILTER,
                                        "tracking": TRACKING,
                                        "drive_model": DRIVE_MODELS,
                                        "control_trigger": CONTROL_TRIGGERS})
        if not result.successful:
            return result
        values = {p.name: p.value for p in params}
        if values.get("dimensions", self._param_or("dimensions", 2)) == 3:
            kinematics = values.get("kinematics", self._param_or("kinematics", "holonomic"))
            method = values.get("method", self._param_or("method", "orca"))
            if kinematics != "holonomic":
                return SetParametersResult(successful=False, reason=(
                    f"dimensions 3 (an aerial robot) is holonomic, not kinematics {kinematics}"))
            if method not in method_names(ros=True, dimensions=3):
                return SetParametersResult(successful=False, reason=(
                    f"method {method} has no 3D version; with dimensions 3: "
                    f"{', '.join(method_names(ros=True, dimensions=3))}"))
        for name in {n.partition(".")[0] for n in values if "." in n}:
            if name in method_names():
                try:
                    method_spec(name).create(**self._method_arguments(name, values))
                except (TypeError, ValueError) as error:
                    return SetParametersResult(successful=False,
                                               reason=f"{name} parameters: {error}")
        radii = list(values.get("neighbor_radii", self._param_or("neighbor_radii", [-1.0])))
        if radii != [-1.0]:
            names = [n for n in values.get("neighbors", self._param_or("neighbors", [""])) if n]
            if len(radii) != len(names) or not all(math.isfinite(r) and r >= 0 for r in radii):
                return SetParametersResult(successful=False, reason=(
                    f"neighbor_radii {radii} must be one radius >= 0 (m) per entry of "
                    f"neighbors {names}, or [-1.0]"))
        if "links" in values:
            try:
                parse_links(values["links"], "links")
            except ValueError as error:
                return SetParametersResult(successful=False, reason=str(error))
        for entry in values.get("neighbor_radius_overrides", []) or []:
            if entry and not _parse_override(entry):
                return SetParametersResult(successful=False, reason=(
                    f"neighbor_radius_overrides entry {entry!r} is not 'name=radius' "
                    "with radius >= 0"))
        if "control_rate" in values and self.get_parameter("control_rate").value != \
                values["control_rate"] and hasattr(self, "control_timer"):
            self.control_timer.timer_period_ns = int(1e9 / values["control_rate"])
        self._config_dirty = True
        return SetParametersResult(successful=True)

    def _param(self, name):
        return self.get_parameter(name).value

    def _controller_config(self) -> ControllerConfig:
        return ControllerConfig(
            radius=self._param("radius"), max_speed=max(self._param("max_speed"), 1e-6),
            pref_speed=max(self._param("pref_speed"), 1e-6),
            time_step=1.0 / self._param("control_rate"),
            neighbor_dist=self._param("neighbor_dist"),
            max_neighbors=self._param("max_neighbors"),
            time_horizon=self._param("time_horizon"),
            time_horizon_obst=self._param("time_horizon_obst"),
            kinematics=self._param("kinematics"), method=self._method_name(),
            method_parameters=tuple(self._method_arguments(self._method_name()).items()),
            one_step_safety={"method": None, "on": True, "off": False}[
                self._param("safety_filter")],
            safety_margin_ratio=self._param("safety_margin_ratio"),
            margin_speed_ratio=self._param("margin_speed_ratio"),
            keep_right_deg=self._param("keep_right_deg"),
            stall_escape_deg=self._param("stall_escape_deg"),
            stall_escape_time=self._param("stall_escape_time"),
            stall_detour_time=self._param("stall_detour_time"),
            progress_escape_time=self._param("progress_escape_time"),
            goal_tolerance=self._param("goal_tolerance"),
            waypoint_tolerance=self._param("lookahead"),
            max_angular_speed=self._param("max_angular_speed"),
            max_linear_accel=self._param("max_linear_accel"),
            max_angular_accel=self._param("max_angular_accel"),
            heading_time_constant=self._param("heading_time_constant"),
            max_reverse_speed=None if self._param("max_reverse_speed") < 0 else
            self._param("max_reverse_speed"),
            tracking=self._param("tracking"),
            command_lag=self._param("command_lag"),
            lag_error=None if self._param("lag_error") < 0 else self._param("lag_error"),
            command_validity=self._param("command_validity") or 2.0 / self._param("control_rate"),
            accel_limited=True)

    def _aerial_controller(self) -> Tuple[Optional[AerialController], str]:
        """With ``dimensions`` 3, the aerial robot's controller (and ''), or, when the
        settings it started with cannot fly (a method without a 3D version, a unicycle),
        None and why: the node then holds the robot and reports it."""
        if self._param("dimensions") != 3:
            return None, ""
        try:
            return AerialController(self.base_config, key=self.robot), ""
        except ValueError as error:
            self.get_logger().error(f"dimensions 3: {error}; holding the robot")
            return None, f"dimensions 3: {error}"

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

    def _method_name(self) -> str:
        """``method``, or what the deprecated ``planner`` / ``strict_rvo2`` ask for."""
        method = self._param("method")
        if self._param("planner") == "direct":
            method = "direct"
        elif self._param("strict_rvo2") and method == "orca":
            method = "orca_strict"
        if method != self._param("method") and not self._warned_deprecated:
            self._warned_deprecated = True
            self.get_logger().warning(f"parameters 'planner' and 'strict_rvo2' are "
                                      f"deprecated: use method: {method}")
        return method

    def _reciprocity_monitor(self) -> ReciprocityMonitor:
        declared = frozenset(n.strip("/") for n in self._param("non_reciprocating") or [] if n)
        return ReciprocityMonitor(tolerance=0.1 * self._neighbor_max_speed(), declared=declared)

    def _follow_prediction(self, name: str):
        return self.create_subscription(
            Odometry, f"/{name}/orca/prediction",
            lambda msg, name=name: self._on_neighbor_prediction(name, msg), LATEST)

    def _neighbor_max_speed(self) -> float:
        return self._param("neighbor_max_speed") or self._param("max_speed")

    def _param_or(self, name, default):
        return self.get_parameter(name).value if self.has_parameter(name) else default

    def _neighbor_radii(self) -> Dict[str, float]:
        """Each listed neighbour's radius (m), from ``neighbor_radii`` (and the deprecated
        ``neighbor_radius_overrides``): read once per parameter change, not per cycle."""
        radii = {}
        for entry in self._param("neighbor_radius_overrides") or []:
            parsed = _parse_override(entry) if entry else None
            if parsed:
                radii[parsed[0]] = parsed[1]
        values = list(self._param("neighbor_radii"))
        if values != [-1.0]:
            names = [n.strip("/") for n in self._param("neighbors") if n]
            radii.update(zip(names, (float(r) for r in values)))
        return radii

    def _neighbor_radius(self, name: str) -> float:
        return self.radius_of.get(name, self._param("neighbor_radius"))

    def _initial_links(self):
        """``links`` read: its groups and '', or, for a bad value (one the node started
        with: the parameter callback checks only later changes), no groups and the
        error; the node then reports it and holds the robot until a valid value is set."""
        try:
            return parse_links(self._param("links"), "links"), ""
        except ValueError as error:
            self.get_logger().error(f"parameter {error}; holding the robot until a valid "
                                    "'links' is set")
            return (), str(error)

    # --- inputs -----------------------------------------------------------------

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
            position, velocity, yaw, v, omega = odometry_state(msg)
        except BadMessage as error:
            self._reject("own odom", str(error))
            return
        stamp_ns = self.measured_ns(msg)
        if stamp_ns < self.state_stamp_ns:
            return  # older than what we have
        problem = self.odometry_gate.check(
            stamp_ns * 1e-9, position if self.dimensions != 3 else
            position + (odometry_height(msg)[0],))
        if problem is not None:
            self._reject("own odom", problem)
            return
        self.state = RobotState(position, velocity, yaw, v, omega)
        self.state_stamp_ns = stamp_ns
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
        if self.neighbor_odometry.grid is not None:  # after the command: not in its latency
            self._share_in_cells(msg, position)

    def _share_in_cells(self, msg: Odometry, position: Tuple[float, float]) -> None:
        """Publish the own odometry, named by ``child_frame_id``, on the topic of the
        cell the robot stands in, with publishers made ahead for every cell within the
        publication reach (so each is connected before the robot enters its cell), and
        subscribe the process to the cells within the subscription reach
        (:mod:`orca_ros.core.robot.cells`)."""
        shared = self.neighbor_odometry
        grid = shared.grid
        match_time = self._param("neighbor_cell_match_time")
        fastest = max(self._param("max_speed"), self._neighbor_max_speed())
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
    def neighbors(self) -> Dict[str, Seen]:
        """The followed robots' latest odometry now (see :meth:`_neighbors`)."""
        return self._neighbors(self._now_ns())

    def _neighbors(self, now_ns: int) -> Dict[str, Seen]:
        """The followed robots' latest odometry, none silent for neighbor_forget_after."""
        forget_ns = self._param("neighbor_forget_after") * 1e9
        latest = self.neighbor_odometry.latest
        names = self.followed
        if self.neighbor_odometry.grid is not None and not any(self._param("neighbors")):
            # With cells, whoever is heard in them: a robot met for the first time counts
            # at once, not at the next discovery scan.
            names = [n for n in latest if n != self.robot]
        seen = {}
        for name in names:
            s = latest.get(name)
            if s is not None and now_ns - s.stamp_ns <= forget_ns:
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
        self.predictions[name] = SharedPrediction(stamp_ns * 1e-9, position, yaw, v, omega,
                                                  math.sqrt(variance))

    def _on_obstacles(self, msg: Marker) -> None:
        """One source's marker into the obstacle registry (RViz semantics, keyed by ns and id).

        A bad marker is dropped whole with a diagnostic and changes no obstacle.
        """
        now_s = self._now_ns() * 1e-9
        try:
            changed = self.obstacles.apply(obstacle_update(msg), now_s)
        except (BadMessage, ObstacleUpdateError) as error:
            self._reject("/obstacles", str(error))
            return
        if changed:
            self._obstacles_changed()
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
        self.edges = self.obstacles.edges
        # The controller caches guidance roadmaps by (clearance, len(edges), id(edges[0])).
        # The address of a freed edge list is often reused by the next one, so a
        # moved obstacle could otherwise meet the old roadmap.
        self.controller.roadmaps.clear()

    def _on_goal(self, msg: PoseStamped) -> None:
        x, y, z = msg.pose.position.x, msg.pose.position.y, msg.pose.position.z
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            self._reject("goal_pose", f"non-finite goal ({x}, {y}, {z})")
            return
        self.goal = (x, y, z) if self.dimensions == 3 else (x, y)
        self.plan = []
        self._update_path()

    def _on_plan(self, msg: Path) -> None:
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
        self.speed_limit = (msg.data, self._now_ns())

    def _on_detour(self, msg: Path) -> None:
        points = [(p.pose.position.x, p.pose.position.y) for p in msg.poses]
        if not all(math.isfinite(c) for point in points for c in point):
            self._reject("supervisor/detour", "non-finite point in detour")
            return
        self.detour = (points, self._now_ns()) if points else None

    def _update_path(self) -> None:
        path = list(self.plan) if self.plan else ([self.goal] if self.goal else [])
        if self.dimensions == 3:
            if self.aerial is not None:
                self.aerial.set_path(path)
        else:
            self.controller.set_path(path)
        self.goal_state = "driving" if path else "no goal"

    def _discover(self) -> None:
        """Follow the odom of every other robot: listed, or found in the graph."""
        listed = [n for n in self._param("neighbors") if n]
        if listed:
            names = [n.strip("/") for n in listed]
        else:
            names = []
            for topic, types in self.get_topic_names_and_types():
                if topic.endswith("/odom") and "nav_msgs/msg/Odometry" in types:
                    name = topic[:-len("/odom")].strip("/")
                    if name:
                        names.append(name)
        if not listed and self.neighbor_odometry.grid is not None:
            names += [n for n in self.neighbor_odometry.latest if n not in names]
        names += [n for n in linked_names(self.link_groups) if n not in names]
        for name in names:
            if name == self.robot or name in self.followed:
                continue
            self.neighbor_odometry.follow(name, self)
            self.followed.append(name)
        if self._param("share_predictions"):
            for name in self.followed:
                if name not in self.prediction_subscriptions:
                    self.prediction_subscriptions[name] = self._follow_prediction(name)

    # --- control ------------------------------------------------------------------

    def _apply_directives(self, now_ns: int) -> None:
        """Hand the supervisor's unexpired directives to the controller.

        Directives expire ``supervisor_timeout`` after their last message, so a
        dead supervisor leaves the robot running on ORCA alone.
        """
        timeout_ns = int(self._param("supervisor_timeout") * 1e9)
        if self.speed_limit and now_ns - self.speed_limit[1] > timeout_ns:
            self.speed_limit = None
        if self.detour and now_ns - self.detour[1] > timeout_ns:
            self.detour = None
        self.controller.set_directive(self.speed_limit[0] if self.speed_limit else None,
                                      self.detour[0] if self.detour else ())

    def _control(self) -> None:
        self.cycles += 1
        now_ns = self._now_ns()
        period_ns = 1e9 / self._param("control_rate")
        if self.last_cycle_ns is not None and now_ns - self.last_cycle_ns > 1.5 * period_ns \
                and self.state is not None:  # not while it waits for its first odometry
            self.late_cycles += 1
        self.last_cycle_ns = now_ns
        if self._config_dirty:
            self._config_dirty = False
            self.base_config = self._controller_config()
            self.radius_of = self._neighbor_radii()
            self.reciprocity = self._reciprocity_monitor()
            self.sent.lag = self.base_config.command_lag
            self.sent.validity = self.base_config.command_horizon
            self.link_groups, self.links_error = self._initial_links()
            self._discover()  # follow robots named in new links at once
            changed = int(self._param("dimensions")) != self.dimensions
            self.dimensions = int(self._param("dimensions"))
            self.aerial, self.aerial_error = self._aerial_controller()
            if changed:  # a goal of the other kind means nothing now; positions neither
                self.goal, self.plan, self.position3 = None, [], None
                self.odometry_gate = OdometryGate(max(self._param("max_speed"), 1e-3))
            if self.aerial is not None:
                self._update_path()
        if self.state is None or now_ns - self.state_stamp_ns > self._param("odom_timeout") * 1e9:
            self.goal_state = "waiting for odom" if self.state is None else "own odom stale"
            self._publish_command(0.0, 0.0, 0.0)
            return
        neighbors_seen = self._neighbors(now_ns)
        for name in [n for n in self.observed_ns if n not in neighbors_seen]:
            del self.observed_ns[name]  # silent far too long: forgotten
            self.predictions.pop(name, None)
            self.reciprocity.forget(name)
        if self.dimensions == 3:
            self._control_3d(now_ns, neighbors_seen)
            return
        if not self.controller.waypoints:
            self.goal_state = "no goal"
            self._publish_command(0.0, 0.0, 0.0)
            return
        awaited = self.obstacles.missing_sources(
            [n for n in self._param("obstacle_sources") if n])
        if awaited:
            self.goal_state = f"holding: waiting for obstacles from {', '.join(awaited)}"
            self._publish_command(0.0, 0.0, 0.0)
            return

        self.controller.config = self.base_config
        self._apply_directives(now_ns)
        config = self.controller.effective_config
        # Plan for when the command acts: the own state and every neighbour are
        # carried forward from when they were measured, and grow by what that
        # guess may miss (see orca_ros.core.robot.perception).
        own_age = (now_ns - self.state_stamp_ns) * 1e-9
        if config.diff_drive and config.lag_error is not None and config.command_lag > 0.0:
            state = self.sent.predict(self.state, self.state_stamp_ns * 1e-9,
                                      now_ns * 1e-9 + config.command_lag, config.limits)
        else:
            state = predict_state(self.state, own_age + config.command_lag,
                                  unicycle=config.diff_drive)
        own_uncertainty = 0.5 * config.max_linear_accel * own_age * own_age
        tethers, links = self._link_views(config, state, now_ns, neighbors_seen)
        hold = self._link_hold()
        if hold:
            self.goal_state = hold
            self._publish_command(0.0, 0.0, 0.0)
            return
        seen = self._perceived_neighbors(config, state, now_ns, neighbors_seen)
        # ORCA reasons about the nearest max_neighbors; the hard safety
        # half-planes cover every robot within reach, however many.
        neighbors = seen[:config.max_neighbors]
        command = self.controller.compute(state, neighbors, self.edges, close=seen,
                                          own_uncertainty=own_uncertainty,
                                          tethers=tethers, links=links)
        self.last_command = command
        self._expect_reciprocity(command, state, neighbors, neighbors_seen)
        # At its goal a robot keeps avoiding, as in the world: it steps aside for
        # others and comes back (one that stopped dead would be a wall to them).
        self.goal_state = "goal reached" if self.controller.at_goal(self.state.position) \
            else "driving"
        self._note_latency()
        if config.diff_drive:
            self._publish_command(command.linear, 0.0, command.angular)
            if self._param("share_predictions"):
                # Until the sent commands reach back over the lag (just started), the
                # prediction is partly a constant-velocity guess: say so.
                guess = 0.0 if self.sent.covers(self.state_stamp_ns * 1e-9) \
                    else config.lag_guess_error
                self._publish_prediction(SharedPrediction(
                    now_ns * 1e-9 + config.command_lag, state.position, state.heading,
                    command.linear, command.angular, own_uncertainty + guess))
        else:
            yaw = self.state.heading
            c, s = math.cos(yaw), math.sin(yaw)
            vx, vy = command.velocity  # world frame -> body frame
            self._publish_command(c * vx + s * vy, -s * vx + c * vy, 0.0)
        if self.marker_pub.get_subscription_count() > 0:
            self.marker_pub.publish(markers.orca_markers(
                self._param("world_frame"), self.get_clock().now().to_msg(), self.robot,
                self.state, command, neighbors,
                **({"tethers": tethers, "links": links, "tether_from": state.position}
                   if self.link_groups else {})))

    def _note_latency(self) -> None:
        """Count this cycle's odom->cmd_vel wall time, and its CPU time if its own
        odometry's callback ran it (a watchdog cycle has no odometry of its own)."""
        self.latencies_s.append((time.perf_counter_ns() - self.odom_wall_ns) * 1e-9)
        if self.cycle_cpu_start_ns is not None:
            self.cycle_cpu_s.append((time.thread_time_ns() - self.cycle_cpu_start_ns) * 1e-9)

    def _control_3d(self, now_ns: int, neighbors_seen: Dict[str, Seen]) -> None:
        """One control cycle of an aerial robot (``dimensions`` 3): its own state and its
        neighbours carried forward to now (at their velocity; each neighbour's sphere
        grown by what that guess may miss, ``perceive_neighbor_3d``), then
        :meth:`AerialController.compute`, the velocity sent in the body frame (x, y
        turned by the yaw; z up)."""
        if self.aerial is None:
            self.goal_state = f"holding: {self.aerial_error}"
            self._publish_command(0.0, 0.0, 0.0)
            return
        if not self.aerial.waypoints or self.position3 is None:
            self.goal_state = "no goal"
            self._publish_command(0.0, 0.0, 0.0)
            return
        config = self.aerial.config
        own_age = (now_ns - self.state_stamp_ns) * 1e-9
        position = tuple(p + v * own_age for p, v in zip(self.position3, self.velocity3))
        own_uncertainty = 0.5 * config.max_linear_accel * own_age * own_age
        max_speed = self._neighbor_max_speed()
        extrapolate = self._param("neighbor_timeout")
        declared = self.reciprocity.declared
        perceived = []
        for name, s in neighbors_seen.items():
            seen_as = Neighbor3D((s.position[0], s.position[1], s.z),
                                 (s.velocity[0], s.velocity[1], s.vz),
                                 self._neighbor_radius(name), name,
                                 reciprocates=name not in declared)
            perceived.append(perceive_neighbor_3d(seen_as, (now_ns - s.stamp_ns) * 1e-9,
                                                  max_speed, config.max_linear_accel,
                                                  extrapolate))
        close = select_neighbors(position, perceived, config.neighbor_dist)
        command = self.aerial.compute(position, self.velocity3, close[:config.max_neighbors],
                                      close=close, own_uncertainty=own_uncertainty)
        self.last_command3d = command
        self.goal_state = "goal reached" if self.aerial.at_goal(self.position3) else "driving"
        self._note_latency()
        yaw = self.state.heading
        c, s = math.cos(yaw), math.sin(yaw)
        vx, vy, vz = command.velocity  # world frame -> body frame (turned about z)
        self._publish_command(c * vx + s * vy, -s * vx + c * vy, 0.0, vz)

    def _link_views(self, config: ControllerConfig, state: RobotState, now_ns: int,
                    neighbors_seen: Dict[str, Seen]
                    ) -> Tuple[List[TetherView], List[LinkView]]:
        """This robot's partners and the other groups' links near it
        (:func:`~orca_ros.core.robot.links.linked_views`); the partners it cannot see
        are noted for :meth:`_link_hold`."""
        observed = {name: (seen.position, seen.velocity, (now_ns - seen.stamp_ns) * 1e-9)
                    for name, seen in neighbors_seen.items()}
        views = linked_views(self.robot, self.link_groups, observed, self._neighbor_radius,
                             config.command_lag, self._param("neighbor_timeout"),
                             state.position, config.neighbor_dist)
        self.link_missing, self.link_stale = views.missing, views.stale
        self.links_seen = len(views.links)
        return views.tethers, views.links

    def _link_hold(self) -> str:
        """Why the robot must hold still for its links ('' when it need not): the
        ``links`` value it started with is invalid, or a partner's odometry is missing
        or stale (see :meth:`_link_views`)."""
        if self.links_error:
            return "holding: invalid links parameter"
        reasons = []
        if self.link_missing:
            reasons.append(f"no odometry of link partner(s) {', '.join(self.link_missing)}")
        if self.link_stale:
            reasons.append(f"stale odometry of link partner(s) {', '.join(self.link_stale)}")
        return "holding: " + "; ".join(reasons) if reasons else ""

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

    def _perceived_neighbors(self, config: ControllerConfig, state: RobotState,
                             now_ns: int, neighbors_seen: Optional[Dict[str, Seen]] = None
                             ) -> List[Neighbor]:
        """Neighbours as they may be when the command acts, nearest first (all of them
        that may be inside ``neighbor_dist``).

        From its odometry, or, where that is surer, from what it said it would
        do (its :class:`SharedPrediction`, with ``share_predictions``). A
        neighbour that cannot be within reach, wherever it went since its odometry,
        is passed over before that (:func:`~orca_ros.core.robot.perception.beyond_reach`);
        the reciprocity monitor sees each new odometry of the others."""
        max_speed = self._neighbor_max_speed()
        extrapolate = self._param("neighbor_timeout")
        detect = bool(self._param("detect_non_reciprocating"))
        now_s = now_ns * 1e-9
        perceived = []
        if neighbors_seen is None:
            neighbors_seen = self._neighbors(now_ns)
        for name, s in neighbors_seen.items():
            age = (now_ns - s.stamp_ns) * 1e-9 + config.command_lag
            if name not in self.predictions and beyond_reach(
                    state.position, s.position, s.velocity, age, max_speed,
                    config.neighbor_dist):
                continue
            if self.observed_ns.get(name) != s.stamp_ns:
                self.observed_ns[name] = s.stamp_ns
                self.reciprocity.observe(name, s.stamp_ns * 1e-9, s.velocity)
            reciprocates = self.reciprocity.reciprocates(name, now_s) if detect \
                else name not in self.reciprocity.declared
            seen_as = Neighbor(s.position, s.velocity, self._neighbor_radius(name), name,
                               reciprocates=reciprocates)
            neighbor = perceive_neighbor_best(
                seen_as, age, max_speed,
                config.max_linear_accel, extrapolate, self.predictions.get(name),
                now_s + config.command_lag, config.max_angular_speed)
            perceived.append(neighbor)
        return select_neighbors(state.position, perceived, config.neighbor_dist)

    def _expect_reciprocity(self, command: Command, state: RobotState,
                            neighbors: List[Neighbor], neighbors_seen: Dict[str, Seen]) -> None:
        """Hand this period's half-plane against each neighbour to the reciprocity monitor."""
        lines = command.output.neighbor_half_planes if command.output is not None else ()
        if not neighbors or len(lines) != len(neighbors):
            return
        for neighbor, line in zip(neighbors, lines):
            self.reciprocity.expect(neighbor.key, neighbors_seen[neighbor.key].stamp_ns * 1e-9,
                                    line, state.velocity, neighbor.velocity)

    def _publish_command(self, linear_x: float, linear_y: float, angular_z: float,
                         linear_z: float = 0.0) -> None:
        now = self.get_clock().now()
        msg = twist_message(linear_x, linear_y, angular_z, self.stamped, now.to_msg(),
                            f"{self.robot}/base_link", linear_z)
        self.cmd_pub.publish(msg)
        self.sent.record(now.nanoseconds * 1e-9, linear_x, angular_z)

    def _sent_commands(self) -> SentCommands:
        """The commands of the last seconds, replayed to predict a lagging unicycle."""
        config = self.base_config
        return SentCommands(config.command_lag, config.command_horizon,
                            drive=drive_model(self._param("drive_model")))

    def _publish_diagnostics(self) -> None:
        now_ns = self._now_ns()
        neighbors_seen = self._neighbors(now_ns)
        stale = sorted(n for n, s in neighbors_seen.items()
                       if now_ns - s.stamp_ns > self._param("neighbor_timeout") * 1e9)
        shared = self.neighbor_odometry
        command = self.last_command
        fallback = bool(command and command.output and command.output.used_fallback)
        if self.dimensions == 3:
            command3d = self.last_command3d
            fallback = bool(command3d and command3d.output and command3d.output.used_fallback)
        level = LEVEL_OK
        message = self.goal_state
        if self.goal_state in ("own odom stale", "waiting for odom"):
            level = LEVEL_WARN
        if self.rejected:
            level = max(level, LEVEL_WARN)
            message = f"{self.goal_state}; rejected input: {self.last_problem}"
        if self.goal_state.startswith("holding: "):
            level = max(level, LEVEL_WARN)
        if self.links_error:
            level = LEVEL_ERROR
            message = f"{message}; parameter {self.links_error}"
        if self.aerial_error:
            level = LEVEL_ERROR
        group = group_of(self.link_groups, self.robot)
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
            "non_reciprocating_neighbors": ",".join(self.reciprocity.flagged),
            # Neighbours whose orca/prediction (share_predictions) is held, not yet stale:
            # this robot plans with each where it is surer than the odometry.
            "neighbor_predictions": ",".join(sorted(
                n for n, p in self.predictions.items()
                if abs(now_ns * 1e-9 - p.time) <= self._param("neighbor_timeout"))),
            "own_odom_age_s": round((now_ns - self.state_stamp_ns) * 1e-9, 3)
            if self.state is not None else "",
            "obstacle_edges": len(self.edges), "method": self.base_config.method,
            "dimensions": self.dimensions,
            "rejected_messages": sum(self.rejected.values()),
            "last_rejection": self.last_problem,
            "supervisor_speed_limit": self.speed_limit[0] if self.speed_limit else "",
            "supervisor_detour": bool(self.detour),
            "control_cycles": self.cycles, "late_control_cycles": self.late_cycles,
            # links: this robot's group, its partners left out (and the robot held)
            # for want of fresh odometry, and other groups' links it kept off last cycle.
            "link_group": ",".join(group.agents) if group is not None else "",
            "link_groups": len(self.link_groups),
            "link_partners_missing": ",".join(self.link_missing),
            "link_partners_stale": ",".join(self.link_stale),
            "links_seen": self.links_seen, "links_error": self.links_error,
            **_percentiles_ms(self.latencies_s),
            **_percentiles_ms(self.cycle_cpu_s, "odom_to_cmd_cpu_ms"),
        }
        self.diag_pub.publish(diagnostic_array(
            self.get_clock().now().to_msg(),
            [diagnostic_status(f"orca_node: {self.robot}", level, message, values, self.robot)]))


def _percentiles_ms(latencies_s, key: str = "odom_to_cmd_ms") -> Dict[str, object]:
    """Wall time from the odometry used to the command sent, p50 and p99 (ms; '' before
    the first command): what ``orca_ros.testing.launch_run`` reports per fleet. With ``key``
    ``odom_to_cmd_cpu_ms``: the CPU time of the cycles its odometry ran."""
    if not latencies_s:
        return {f"{key}_p50": "", f"{key}_p99": ""}
    ordered = sorted(latencies_s)

    def at(q: float) -> float:
        return round(1e3 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)
    return {f"{key}_p50": at(0.5), f"{key}_p99": at(0.99)}


def _parse_override(entry: str) -> Optional[Tuple[str, float]]:
    name, sep, value = entry.partition("=")
    try:
        radius = float(value)
    except ValueError:
        return None
    if not sep or not name.strip() or not math.isfinite(radius) or radius < 0:
        return None
    return name.strip().strip("/"), radius


def main(args=None) -> None:
    run_node(OrcaNode, args)


if __name__ == "__main__":
    main(sys.argv)
