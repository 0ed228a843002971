"""orca_node's parameters (one robot's avoidance), and its chosen method's.

``orca_robots`` hosts several orca_nodes in one process; each is declared with this
same table. The method's own parameters are ``<method>.<field>``, one per field of
the method's parameter dataclass that orca_node has no parameter for already; only the
chosen method's are declared (:func:`method_parameters`), when the node starts and
when ``method`` changes.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Iterable, List, Optional, Tuple

from ...core.methods import (TRACKING, built_in_method_names, is_method, method_names,
                              method_spec, method_summary)
from ...core.models.bodies import FLEET_SIM_LIMITS, KINEMATICS
from ...core.models.drive import DRIVE_MODELS
from ...core.robot.settings import method_parameter_defaults
from ...core.robot.localization import POSE_SOURCES
from . import Param, Removed, declare_table, table_by_name

SAFETY_FILTER = ("method", "on", "off")
CONTROL_TRIGGERS = ("timer", "odom")
ODOM_TRIGGER_SPACING = 0.9  # control periods between cycles started by odometry, at least

PARAMETERS: Tuple[Param, ...] = (
    Param('radius', 0.2, 'robot radius (m)', range=(0.001, 10.0)),
    Param('max_speed', 0.5, 'hard speed cap of the command (m/s)', range=(0.0, 20.0)),
    Param('pref_speed', 0.4, 'cruise speed towards the goal (m/s)', range=(0.0, 20.0)),
    Param('neighbor_dist', 5.0, 'neighbours closer than this count (m)', range=(0.0, 1000.0)),
    Param('max_neighbors', 10, 'at most this many nearest neighbours', range=(0, 1000)),
    Param('time_horizon', 2.0, 'ORCA time horizon for robots (s)', range=(0.01, 100.0)),
    Param('time_horizon_obst', 1.0, 'ORCA time horizon for obstacles (s)', range=(0.01, 100.0)),
    Param('control_rate', 10.0, 'cmd_vel rate (Hz, node clock)', range=(0.5, 1000.0)),
    Param('control_trigger', 'timer',
          ("when a command is computed: 'timer' (every 1/control_rate on the node clock) or "
          "'odom' (as the robot's own odometry arrives, at most at control_rate: at least "
          '0.9/control_rate apart; the timer then only stands in when odometry stops). '
          "'odom' plans from fresh odometry when it comes at about control_rate, as from "
          'fleet_sim'), choices=tuple(CONTROL_TRIGGERS)),
    Param('kinematics', 'holonomic', 'robot kinematics', choices=tuple(KINEMATICS)),
    Param('dimensions', 2,
          ("2: a robot on a floor; 3: an aerial robot (holonomic): odometry's z and "
          'twist.linear.z are read, goals are 3D, cmd_vel.linear.z is published, and the '
          "method's 3D version plans"), range=(2, 3)),
    Param('method', 'orca',
          lambda: "avoidance method: " + "; ".join(
              f"{name}: {method_summary(name)}" for name in built_in_method_names()) +
          "; or a method another package registers (entry point group orca_ros.methods)",
          choices=lambda: method_names(ros=True), accepts=is_method),
    Param('safety_margin_ratio', 0.1, 'soft margin, fraction of the radius', range=(0.0, 2.0)),
    Param('margin_speed_ratio', 0.0,
          ("the soft margin grows with a pair's relative speed, full at this fraction of "
          'max_speed (0: full at any speed)'), range=(0.0, 10.0)),
    Param('keep_right_deg', 8.0,
          'turn of the preferred velocity to the right (deg)', range=(0.0, 45.0)),
    Param('stall_escape_deg', 75.0,
          'a stalled robot turns its preferred velocity right by up to this (deg)',
          range=(0.0, 120.0)),
    Param('stall_escape_time', 3.0,
          '... reached after stalling this long (s); the count starts over after twice this',
          range=(0.0, 600.0)),
    Param('stall_detour_time', 0.5,
          ('stalled this long, head round the robots standing between the robot and its '
          'target (s); 0 = never'), range=(0.0, 600.0)),
    Param('progress_escape_time', 3.0,
          ('moving this long without getting a radius nearer the target counts as stalled '
          'for detours and the margin release (s); 0 = never'), range=(0.0, 600.0)),
    Param('goal_tolerance', 0.1, 'goal reached within this distance (m)', range=(0.001, 100.0)),
    Param('lookahead', 0.5, 'plan/detour look-ahead distance (m)', range=(0.01, 100.0)),
    Param('neighbors', [''],
          ("robots whose odom topics this robot follows besides the robots that announce "
           "themselves on /orca/states (robots without orca_node: another fleet, a "
           "tracked person); [''] = every */odom topic found, with discover_odometry")),
    Param('fleet_robots', [''],
          ("the other robots of the fleet, by name: until each has been heard once (its "
           "announced state, or its odometry), this robot holds still and says so "
           "('holding: waiting to hear robots ...'), for a robot not heard yet (its "
           "subscriptions not matched yet, its localization not there yet) is not free "
           "space; [''] = moves without")),
    Param('discover_odometry', True,
          ("with neighbors [''], follow every */odom topic found in the graph (in the shared "
           "frame); false: only the robots that announce themselves")),
    Param('announce', True,
          ("publish this robot's state in the shared frame on /orca/states and its "
           "footprint on /orca/footprints, and take robots known only from their odometry "
           "as not reciprocating"), read_only=True),
    Param('state_batches', True,
          ("with other robots in its process (orca_robots), announce this robot's state "
           "with theirs, one std_msgs/UInt8MultiArray a period on /orca/state_batches, "
           "instead of alone on /orca/states (a tenth of the messages for the fleet to "
           "take); a robot alone in its process always announces on /orca/states"),
          read_only=True),
    Param('links', '',
          ("robots joined by a tether or a carried load, as a scenario's links: YAML/JSON "
          'text of a list like [{agents: [a0, a1], max_length: 1.2, rest_length: 1.0}] '
          '(groups of 2 or 3 robot names, a robot in one group at most, lengths in m, '
          "rest_length optional); '' = none. The robot keeps within max_length of its "
          "partners and off the other groups' links; it holds still while a partner's "
          'odometry is missing or older than neighbor_timeout')),
    Param('obstacle_sources', [''],
          ("namespaces of /obstacles markers (their ns: obstacle_server's is its node name) "
          'this robot must have heard before it moves: until each has published once, the '
          "robot holds still and says so ('holding: waiting for obstacles from ...'), for "
          "no walls heard is not free space; [''] = moves without")),
    Param('scan_obstacles', False,
          ('read the laser on scan_topic: returns no known neighbour explains become short-'
           'lived walls (clustered, fitted as segments) in the shared frame'), read_only=True),
    Param('scan_topic', 'scan', 'sensor_msgs/LaserScan of this robot (sensor-data QoS)',
          read_only=True),
    Param('scan_pose', [0.0, 0.0, 0.0],
          ("the laser's x, y (m) and yaw (rad) on the robot, in its body frame: what the "
           "static transform base_link -> the scan's frame says (a URDF's fixed joint; "
           "not read from TF)"), read_only=True, length=3),
    Param('scan_obstacle_lifetime', 1.0,
          "s a scan's walls last unless a newer scan replaces them", range=(0.05, 60.0)),
    Param('scan_cluster_gap', 0.2,
          'm between consecutive returns that splits them into separate walls',
          range=(0.001, 10.0)),
    Param('scan_tolerance', 0.05,
          'm a scan wall may stray from the returns it is fitted to', range=(0.0, 1.0)),
    Param('discovery_period', 1.0,
          'graph scan period for */odom (s)', range=(0.05, 60.0), read_only=True),
    Param('neighbor_timeout', 1.0,
          ('a neighbour silent this long is reported stale; it is still avoided, as a disc '
          'growing at neighbor_max_speed (s)'), range=(0.01, 60.0)),
    Param('neighbor_forget_after', 10.0,
          ('forget a neighbour known only by its odometry once silent this long (s); a robot '
           'that runs orca_node is never forgotten: while its node is up its disc grows, '
           'once its node has left it stands where its driver stops it'),
          range=(0.01, 3600.0)),
    Param('clock_offset_warn', 0.1,
          ("diagnostics warn, naming it, of a neighbour (or the own odometry's driver) "
          'whose clock is off from this one by more than this, as its messages show '
          '(s; 0 = never); its data is aged from arrival whatever its clock says'),
          range=(0.0, 3600.0)),
    Param('no_progress_warn', 8.0,
          ('diagnostics warn when the robot has driven this long without getting nearer '
          'its goal, naming the nearest neighbour or wall (s; 0 = never)'),
          range=(0.0, 3600.0)),
    Param('neighbor_max_speed', 0.0,
          'how fast neighbours can move, for data that is old (m/s); 0 = max_speed',
          range=(0.0, 100.0)),
    Param('neighbor_cell_size', 0.0,
          ('neighbour cells (read at start): the robot publishes its odometry on the topics '
          "of the floor's squares of this side near it (/orca/cells/...), and its process "
          'hears neighbours from the squares within neighbor_dist of its robots, not every '
          "robot's odom (m); 0 = follow each neighbour's odom topic"),
          range=(0.0, 10000.0), read_only=True),
    Param('neighbor_cell_match_time', 0.5,
          ('how long a new cell subscription or publisher may take to connect; the cells '
          'reach that much travel further (s)'), range=(0.0, 60.0)),
    Param('odom_timeout', 0.5, 'own odometry older than this: stop (s)', range=(0.01, 60.0)),
    Param('command_validity', 0.0,
          ('a command acts at most this long after its stamp, then the robot brakes; the '
          "safety half-planes plan over it (s); 0 = 2 control periods. Give the robot's "
          'driver the same (fleet_sim: command_validity)'), range=(0.0, 10.0)),
    Param('non_reciprocating', [''],
          "robots that do not avoid us (another fleet, people): we take ORCA's whole u"),
    Param('detect_non_reciprocating', True,
          ('treat a neighbour whose velocity keeps violating its reciprocal half-plane as '
          'non-reciprocating')),
    Param('neighbor_radius', 0.2, 'default neighbour radius (m)', range=(0.0, 10.0)),
    Param('neighbor_radii', [-1.0],
          ("radius of each robot in 'neighbors', in the same order (m); [-1.0] = all "
          'neighbor_radius')),
    Param('enable_stamped_cmd_vel', False, "publish TwistStamped (Nav2's name)", read_only=True),
    Param('share_predictions', False,
          ('a unicycle publishes orca/prediction (its pose when its command acts, the '
          "command's twist) and plans with its neighbours' where that is surer than their "
          'odom (toio cubes: their 0.14 s lag)')),
    Param('world_frame', 'world',
          ("the shared frame: of goals, plans, walls, markers, every robot's announced state "
           "(map on real robots)"), read_only=True),
    Param('pose_source', 'odom',
          ("where the robot's pose in the shared frame comes from: odom (odometry already "
           "in it), odom_origin (odometry in the robot's own odom frame, whose pose in the "
           "shared frame is odom_origin: a Gazebo spawn pose), localization (odometry in "
           "its own frame, placed by the localization on localization_topic, as TF's "
           "map -> odom)"), choices=tuple(POSE_SOURCES), read_only=True),
    Param('odom_frame', '',
          ("the frame odom's poses must be in ('' = world_frame); another is refused, "
           "naming both"), read_only=True),
    Param('odom_origin', [0.0, 0.0, 0.0],
          "pose_source odom_origin: the odom frame's x, y (m) and yaw (rad) in the shared frame",
          read_only=True, length=3),
    Param('localization_topic', 'amcl_pose',
          ("pose_source localization: geometry_msgs/PoseWithCovarianceStamped in the "
           "shared frame (AMCL's amcl_pose, slam_toolbox's pose)"), read_only=True),
    Param('max_pose_uncertainty', 0.3,
          ("the most a localization's uncertainty (its covariance's larger axis, m) grows "
           "this robot's disc and an announcing neighbour's"), range=(0.0, 10.0)),
    Param('preferred_velocity', 'goal',
          ("goal: drive to goal_pose or along plan; topic: take the preferred velocity from "
           "cmd_vel_in (Nav2's controller behind its velocity smoother, any controller; "
           "body frame) and change it only as much as avoidance requires"),
          choices=("goal", "topic"), read_only=True),
    Param('cmd_vel_in_timeout', 0.5,
          "preferred_velocity topic: no cmd_vel_in for this long (s): stop",
          range=(0.01, 60.0)),
    Param('max_angular_speed', FLEET_SIM_LIMITS['max_angular_speed'],
          'unicycle angular speed limit (rad/s)', range=(0.01, 100.0)),
    Param('max_linear_accel', FLEET_SIM_LIMITS['max_linear_accel'],
          'linear acceleration limit (m/s^2)', range=(0.01, 1000.0)),
    Param('max_angular_accel', FLEET_SIM_LIMITS['max_angular_accel'],
          'angular acceleration limit (rad/s^2)', range=(0.01, 10000.0)),
    Param('max_reverse_speed', 0.0,
          ('how fast a diff-drive robot may back off (m/s): it reverses while avoidance '
          'sends it back (more than a right angle and 20 deg from its heading, against its '
          'preferred velocity) instead of turning round first; 0 = never reverses, -1 = '
          'max_speed'), range=(-1.0, 20.0)),
    Param('heading_time_constant', 0.0,
          'diff-drive heading error closed in at least this long (s); 0 = one control '
          'period; longer where turn commands show late (loop_delay_s)',
          range=(0.0, 10.0)),
    Param('command_lag', 0.0,
          "robot's command-to-motion lag (s): plan from the state extrapolated by it",
          range=(0.0, 2.0)),
    Param('lag_error', -1.0,
          ("m the robot may stray from the commands sent within command_lag (a unicycle's "
          'state is predicted by replaying them); -1: unknown, predict at constant velocity'
          ' and allow the worst case'), range=(-1.0, 1.0)),
    Param('drive_model', 'limits',
          ('how the commands sent within command_lag are replayed to predict a unicycle '
          '(read at start): limits, speeds move at the acceleration limits; toio, a toio '
          "cube's wheels (dead zone, saturation, time constant)"),
          choices=tuple(DRIVE_MODELS), read_only=True),
    Param('supervisor_timeout', 1.0, 'supervisor directives expire after (s)', range=(0.01, 60.0)),
    Param('tracking', 'unicycle',
          ("how a unicycle follows the method's velocity: unicycle (NH-ORCA style) or "
          "move2target (the toio SDK's CubeHandle.Move2Target, for cubes)"),
          choices=tuple(TRACKING)),
    Param('safety_filter', 'method',
          ("the one-step safety filter: 'method' = as the method says (on for orca, off for "
          "orca_strict, direct and the toio SDK's navigator methods)"),
          choices=tuple(SAFETY_FILTER)),
)

REMOVED = (
    Removed("planner", "method (planner 'direct' is method 'direct')"),
    Removed("strict_rvo2", "method: orca_strict"),
    Removed("neighbor_radius_overrides", "neighbors with neighbor_radii (one radius per name)"),
)


def method_parameters(method: str) -> Tuple[Param, ...]:
    """The chosen method's parameters, ``<method>.<field>``, as orca_node declares them,
    each described as its field says (:func:`~orca_ros.core.methods.base.parameter`);
    their values are checked by the method's own parameter dataclass."""
    from ...core.methods.base import parameter_doc

    docs = {f.name: parameter_doc(f) for f in dataclasses.fields(method_spec(method).parameters)}
    return tuple(Param(f"{method}.{name}", default,
                       docs[name] or f"{method}'s {name}")
                 for name, default in method_parameter_defaults(method).items())


ROS_PARAMETERS = ("use_sim_time", "start_type_description_service")
"""Parameters rclpy declares on every node."""


def unknown_parameters(names: Iterable[str], declared: Iterable[str] = ()) -> List[str]:
    """Those of ``names`` that orca_node has no parameter for, whatever its method: not in
    :data:`PARAMETERS`, not ``<method>.<field>`` of a method orca_node runs, not removed
    (:data:`REMOVED` says what replaced those) and not one rclpy declares (``use_sim_time``,
    ``qos_overrides.*``). ``declared``: names known already (a node's table), which spares
    importing the other methods when every name is among them."""
    known = set(declared) | set(ROS_PARAMETERS) | {r.name for r in REMOVED}
    left = [n for n in names if n not in known and not n.startswith("qos_overrides.")]
    if not left:
        return []
    known |= {p.name for p in PARAMETERS}
    known |= {p.name for m in method_names(ros=True) for p in method_parameters(m)}
    return [n for n in left if n not in known]


def declare_method(node, method: str, declared: Optional[str] = None) -> Dict[str, Param]:
    """Declare ``method``'s parameters on an orca_node, first undeclaring those of the
    method ``declared`` before (``method`` changed): only the chosen method's are
    declared. Returns the table the node's values are then checked with."""
    if declared is not None:
        for param in method_parameters(declared):
            if node.has_parameter(param.name):
                node.undeclare_parameter(param.name)
    declare_table(node, method_parameters(method))
    return table_by_name(PARAMETERS + method_parameters(method))
