"""supervisor_node: the centralized virtual-cocoon conflict resolver.

Follows where every robot is and its ``goal_pose`` (or ``plan``; its last point is
the goal) and runs :class:`orca_ros.core.supervisor.cocoon.CocoonSupervisor` each tick.
Where a robot is comes from what its orca_node announces on ``/orca/states`` (or, for
robots that share a process, ``/orca/state_batches``: :mod:`.state_batch`) (in the
shared frame, ``world_frame``: ``map`` for a Nav2 fleet, each robot placed by its
localization); a robot that announces nothing is followed by its ``odom``, which must
then be in ``world_frame`` too. A pose in another frame is refused, naming both.
A yielding robot is told, in its namespace:

* ``supervisor/speed_limit`` (std_msgs/Float64, m/s): ``0`` = stop, ``s * v`` = slow;
* ``supervisor/detour`` (nav_msgs/Path): the side-step point, then the point
  where it rejoins its start-goal line; an empty path = no detour.

Directives are renewed every tick while they hold and expire in ``orca_node``
after its ``supervisor_timeout``: a dead supervisor leaves robots on ORCA alone.
When a directive is lifted the supervisor sends an empty detour once.
Publishes ``/supervisor/markers`` (cocoons, active conflicts) and its
decisions on ``/diagnostics``.
"""

from __future__ import annotations

import math
import sys
from typing import Dict, List, Optional, Tuple

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Point, PoseStamped
from nav_msgs.msg import Odometry, Path
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import qos_profile_system_default
from std_msgs.msg import Float64, UInt8MultiArray
from visualization_msgs.msg import Marker, MarkerArray

from ..core.supervisor.cocoon import (CocoonSupervisor, Directive, Track, config_from_scenario,
                                      positions_at_one_instant)
from ..core.scenario.loader import load_scenario, resolve_scenario
from .params import check_start, check_values, declare_table, table_by_name
from .params.supervisor_node import PARAMETERS, SCENARIO_SETTINGS
from .neighbor_odometry import STATES_TOPIC
from .state_batch import STATE_BATCHES_TOPIC, BadBatch, batch_states
from .ros_common import (CELL, GuardedCallbacks, LEVEL_OK, LEVEL_WARN, LATEST, RELIABLE_10,
                         BadMessage, diagnostics_cdr, odometry_from_cdr,
                         odometry_state, run_node)

BY_NAME = table_by_name(PARAMETERS)


class SupervisorNode(GuardedCallbacks, Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("supervisor", **kwargs)
        declare_table(self, PARAMETERS)
        problem = check_start(self, BY_NAME)
        if problem is not None:
            raise ValueError(problem)
        self.add_on_set_parameters_callback(self._check_parameters)
        defaults = {name: BY_NAME[name].default for name in SCENARIO_SETTINGS}

        self.radius: Dict[str, float] = {}
        self.speed: Dict[str, float] = {}
        self.tolerance: Dict[str, float] = {}
        scenario_path = self.get_parameter("scenario").value
        block = {}
        listed = [n.strip("/") for n in self.get_parameter("robots").value if n]
        if scenario_path:
            scenario = load_scenario(resolve_scenario(scenario_path))
            block = dict(scenario.supervisor)
            for agent in scenario.agents:
                self.radius[agent.name] = agent.radius
                self.speed[agent.name] = agent.pref_speed
                self.tolerance[agent.name] = scenario.goal_tolerance_of(agent)
            listed = listed or [a.name for a in scenario.agents]
        # The scenario's supervisor: block, then any parameter set to other than its default.
        settings = dict(block)
        for name, default in defaults.items():
            value = self.get_parameter(name).value
            if value != default:
                settings[name] = value
        order = [n for n in self.get_parameter("priority_order").value if n]
        if order:
            settings["priority_order"] = order
        if self.get_parameter("max_wait").value > 0.0:
            settings["max_wait"] = self.get_parameter("max_wait").value
        self.config = config_from_scenario(settings, f"{scenario_path or 'parameters'}: supervisor",
                                           with_orca=bool(self.get_parameter("with_orca").value))
        if listed:
            self.config.check_names(listed)  # unknown names: refuse to start, saying which
        self.supervisor = CocoonSupervisor(self.config)

        self.poses: Dict[str, Tuple[float, float]] = {}
        # each robot's latest odometry: its stamp (s) and world velocity, so that every
        # robot is judged where it is at one instant (tracks)
        self.stamps: Dict[str, float] = {}
        self.velocities: Dict[str, Tuple[float, float]] = {}
        self.goals: Dict[str, Optional[Tuple[float, float]]] = {}
        self.subscribed: Dict[str, list] = {}
        self.speed_pubs: Dict[str, object] = {}
        self.detour_pubs: Dict[str, object] = {}
        self.directed: Dict[str, Directive] = {}
        self.rejected = 0
        self.last_problem = ""
        self.marker_pub = self.create_publisher(MarkerArray, "/supervisor/markers", 1)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics",
                                              qos_profile_system_default)
        self.listed = listed
        self.world_frame = self.get_parameter("world_frame").value
        self.announced: set = set()  # robots heard on /orca/states: their odom is not used
        # Many robots on one topic: a queue deep enough for each one's latest (CELL).
        self.create_subscription(Odometry, STATES_TOPIC, self._on_state, CELL, raw=True)
        self.create_subscription(UInt8MultiArray, STATE_BATCHES_TOPIC, self._on_batch, CELL,
                                 raw=True)
        self._discover()
        self.create_timer(self.get_parameter("discovery_period").value, self._discover)
        self.create_timer(1.0 / self.get_parameter("rate").value, self.tick)
        self.create_timer(1.0, self._publish_diagnostics)

    @staticmethod
    def _check_parameters(params) -> SetParametersResult:
        reason = check_values(BY_NAME, {p.name: p.value for p in params})
        return SetParametersResult(successful=reason is None, reason=reason or "")

    @property
    def decisions(self) -> List[Dict[str, object]]:
        """Every action taken so far, as the `orca-ros sim` JSON lists them."""
        return [d.as_dict() for d in self.supervisor.actions]

    def _discover(self) -> None:
        names = list(self.listed)
        if not names:
            for topic, types in self.get_topic_names_and_types():
                if topic.endswith("/odom") and "nav_msgs/msg/Odometry" in types:
                    name = topic[:-len("/odom")].strip("/")
                    if name:
                        names.append(name)
        for name in names:
            self._follow(name)

    def _follow(self, name: str) -> None:
        """Subscribe a robot's goal and plan (and its odom, unless it announces itself),
        and make its directive publishers, once."""
        if name in self.subscribed:
            return
        odometry = [] if name in self.announced else [
            self.create_subscription(Odometry, f"/{name}/odom",
                                     lambda m, n=name: self._on_odom(n, m), LATEST)]
        self.subscribed[name] = odometry + [
            self.create_subscription(PoseStamped, f"/{name}/goal_pose",
                                     lambda m, n=name: self._on_goal(n, m), RELIABLE_10),
            self.create_subscription(Path, f"/{name}/plan",
                                     lambda m, n=name: self._on_plan(n, m), RELIABLE_10)]
        self.speed_pubs[name] = self.create_publisher(
            Float64, f"/{name}/supervisor/speed_limit", RELIABLE_10)
        self.detour_pubs[name] = self.create_publisher(
            Path, f"/{name}/supervisor/detour", RELIABLE_10)

    def _reject(self, what: str, reason: str) -> None:
        self.rejected += 1
        self.last_problem = f"{what}: {reason}"
        self.get_logger().warning(f"ignored {self.last_problem}", throttle_duration_sec=2.0)

    def _on_batch(self, raw) -> None:
        """Several robots' states in one message (orca_robots): each as if alone."""
        try:
            states = batch_states(raw)
        except BadBatch as error:
            self._reject(STATE_BATCHES_TOPIC, str(error))
            return
        for _, state in states:
            self._on_state(state)

    def _on_state(self, raw) -> None:
        """A robot's announced state: where it is in the shared frame. Its odom, followed
        until now, is no longer needed (in a Nav2 fleet it is in a frame of its own)."""
        try:
            msg = odometry_from_cdr(bytes(raw))
            name = msg.child_frame_id.strip("/")
            if not name:
                raise BadMessage("no robot named in child_frame_id")
        except BadMessage as error:
            self._reject(STATES_TOPIC, str(error))
            return
        if self.listed and name not in self.listed:
            return  # not one of the robots this supervisor was given
        if name not in self.announced:
            self.announced.add(name)
            for sub in self.subscribed.get(name, []):
                if sub.topic_name == f"/{name}/odom":
                    self.destroy_subscription(sub)
                    self.subscribed[name].remove(sub)
            self._follow(name)
        self._take(f"state of {name}", name, msg)

    def _on_odom(self, name: str, msg: Odometry) -> None:
        if name not in self.announced:
            self._take(f"odom of {name}", name, msg)

    def _take(self, what: str, name: str, msg) -> None:
        try:
            frame = msg.header.frame_id
            if frame != self.world_frame:
                raise BadMessage(f"in frame {frame!r}, not the shared frame "
                                 f"{self.world_frame!r}")
            position, velocity, _, _, _ = odometry_state(msg)
        except BadMessage as error:
            self._reject(what, str(error))
            return
        self.poses[name] = position
        self.velocities[name] = velocity
        self.stamps[name] = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9

    def _on_goal(self, name: str, msg: PoseStamped) -> None:
        goal = (msg.pose.position.x, msg.pose.position.y)
        if not all(math.isfinite(c) for c in goal):
            self._reject(f"goal_pose of {name}", f"non-finite goal {goal}")
            return
        self.goals[name] = goal

    def _on_plan(self, name: str, msg: Path) -> None:
        if msg.poses:
            self._on_goal(name, msg.poses[-1])

    def tracks(self) -> List[Track]:
        """Every robot heard, where it is at the newest odometry stamp among them
        (:func:`~orca_ros.core.supervisor.cocoon.positions_at_one_instant`), with its
        size, speed and goal (none once within its goal tolerance: standing)."""
        tracks = []
        default_radius = self.get_parameter("robot_radius").value
        default_speed = self.get_parameter("robot_speed").value
        default_tolerance = self.get_parameter("goal_tolerance").value
        positions = positions_at_one_instant({
            name: (seen, self.velocities.get(name, (0.0, 0.0)), self.stamps.get(name))
            for name, seen in self.poses.items()})
        for name, position in positions.items():
            goal = self.goals.get(name)  # no goal: standing
            if goal is not None and math.dist(position, goal) <= \
                    self.tolerance.get(name, default_tolerance):
                goal = None  # arrived: standing
            tracks.append(Track(name, position, self.radius.get(name, default_radius),
                                self.speed.get(name, default_speed), goal))
        return tracks

    def tick(self) -> None:
        t = self.get_clock().now().nanoseconds * 1e-9
        tracks = self.tracks()
        directives = self.supervisor.update(t, tracks)
        for name, directive in directives.items():
            if directive.resolution == "side_step":
                self.detour_pubs[name].publish(self._path(directive.detour))
            else:
                speed = directive.speed_limit(self.speed.get(
                    name, self.get_parameter("robot_speed").value))
                self.speed_pubs[name].publish(Float64(data=float(speed)))
        for name in set(self.directed) - set(directives):
            self.detour_pubs[name].publish(self._path(()))  # lifted: no detour any more
        self.directed = directives
        if self.marker_pub.get_subscription_count() > 0:
            self.marker_pub.publish(self._markers(tracks, directives))

    def _path(self, points) -> Path:
        path = Path()
        path.header.frame_id = self.world_frame
        path.header.stamp = self.get_clock().now().to_msg()
        for x, y in points:
            pose = PoseStamped()
            pose.header = path.header
            pose.pose.position.x, pose.pose.position.y = float(x), float(y)
            pose.pose.orientation.w = 1.0
            path.poses.append(pose)
        return path

    def _markers(self, tracks: List[Track], directives: Dict[str, Directive]) -> MarkerArray:
        array = MarkerArray()
        stamp = self.get_clock().now().to_msg()
        positions = {t.name: t.position for t in tracks}
        for k, track in enumerate(tracks):
            ring = Marker()
            ring.header.frame_id, ring.header.stamp = self.world_frame, stamp
            ring.ns, ring.id, ring.type = "cocoons", k, Marker.LINE_STRIP
            ring.pose.orientation.w = 1.0
            ring.scale.x = 0.02
            ring.color.a, ring.color.g, ring.color.b = 0.8, 0.7, 1.0
            if track.name in directives:
                ring.color.r, ring.color.g, ring.color.b = 1.0, 0.3, 0.1
            radius = self.supervisor.cocoon_radius(track)
            ring.points = [Point(x=track.position[0] + radius * math.cos(a * math.pi / 16),
                                 y=track.position[1] + radius * math.sin(a * math.pi / 16))
                           for a in range(33)]
            array.markers.append(ring)
        link = Marker()
        link.header.frame_id, link.header.stamp = self.world_frame, stamp
        link.ns, link.type = "conflicts", Marker.LINE_LIST
        link.pose.orientation.w = 1.0
        link.scale.x = 0.03
        link.color.r, link.color.a = 1.0, 1.0
        for name, directive in directives.items():
            if name in positions and directive.priority in positions:
                for who in (name, directive.priority):
                    link.points.append(Point(x=positions[who][0], y=positions[who][1]))
        array.markers.append(link)
        return array

    def _publish_diagnostics(self) -> None:
        actions = self.supervisor.actions
        values = {"robots": len(self.poses), "robots_announced": len(self.announced),
                  "active_directives": ", ".join(
            f"{n}:{d.resolution}" for n, d in sorted(self.directed.items())),
            "decisions": len(actions), "rejected_messages": self.rejected,
            "last_rejection": self.last_problem}
        for k, decision in enumerate(actions[-5:]):
            values[f"decision_{k}"] = decision.as_dict()
        level = LEVEL_WARN if self.rejected else LEVEL_OK
        message = f"{len(self.directed)} robots yielding" if self.directed else "no conflicts"
        self.diag_pub.publish(diagnostics_cdr(self.get_clock().now().nanoseconds, [
            ("supervisor", level, message, "", values)]))


def main(args=None) -> None:
    run_node(SupervisorNode, args)


if __name__ == "__main__":
    main(sys.argv)
