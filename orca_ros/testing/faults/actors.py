"""Stand-in nodes the injector adds to a run: the second ``/obstacles`` publisher of
``bad_obstacles`` (``fault_intruder``) and the drivers of ``foreign`` robots
(``/<robot>/foreign_driver``), which do not reciprocate."""

from __future__ import annotations

import math
from typing import Optional, Tuple

JITTER_SPEED = 1e9  # m/s, alternating sign; the simulator clamps it to the robot's limits
INTRUDER_NS = "intruder"


def _plain_node(name: str, context, namespace: Optional[str], use_sim_time: bool):
    from rclpy.node import Node
    from rclpy.parameter import Parameter

    return Node(name, namespace=namespace, context=context,
                parameter_overrides=[Parameter("use_sim_time", value=use_sim_time)])


class _Intruder:
    """A second ``/obstacles`` publisher: every ``period`` s a LINE_LIST of 3 points, one NaN."""

    def __init__(self, context, scenario, period: float, use_sim_time: bool) -> None:
        from visualization_msgs.msg import Marker

        from ...nodes.ros_common import LATCHED

        self.node = _plain_node("fault_intruder", context, None, use_sim_time)
        self.publisher = self.node.create_publisher(Marker, "/obstacles", LATCHED)
        points = [a.start for a in scenario.agents] + [a.goal for a in scenario.agents]
        self.centre = (sum(p[0] for p in points) / len(points),
                       sum(p[1] for p in points) / len(points))
        self.published = 0
        self.node.create_timer(period, self.publish)

    def marker(self):
        from geometry_msgs.msg import Point
        from visualization_msgs.msg import Marker

        cx, cy = self.centre
        marker = Marker()
        marker.header.frame_id = "world"
        marker.header.stamp = self.node.get_clock().now().to_msg()
        marker.ns = INTRUDER_NS
        marker.id = 0
        marker.type = Marker.LINE_LIST
        marker.action = Marker.ADD
        marker.pose.orientation.w = 1.0
        marker.scale.x = 0.03
        marker.color.r = marker.color.a = 1.0
        marker.points = [Point(x=cx, y=cy, z=0.0), Point(x=math.nan, y=cy, z=0.0),
                         Point(x=cx + 0.5, y=cy + 0.5, z=0.0)]
        return marker

    def publish(self) -> None:
        self.publisher.publish(self.marker())
        self.published += 1


class _ForeignDriver:
    """Drives one robot in place of its orca_node, without reciprocating.

    ``straight``: at the scenario goal at the robot's max speed, ignoring
    everyone, stopping within the goal tolerance. ``jitter``: forward speed
    alternating between +1e9 and -1e9 m/s every control period (the simulator
    clamps it). Listens on ``goal_pose`` and ``plan`` as the orca_node would, so
    the simulator's goal sender counts it, but drives to the scenario goal.
    """

    def __init__(self, context, agent, scenario, mode: str, kinematics: str, stamped: bool,
                 use_sim_time: bool) -> None:
        from geometry_msgs.msg import PoseStamped, Twist, TwistStamped
        from nav_msgs.msg import Odometry, Path

        from ...nodes.ros_common import RELIABLE_10

        self.agent, self.mode, self.kinematics, self.stamped = agent, mode, kinematics, stamped
        self.dt = scenario.time_step
        self.tolerance = scenario.goal_tolerance_of(agent)
        self.node = _plain_node("foreign_driver", context, agent.name, use_sim_time)
        self.publisher = self.node.create_publisher(TwistStamped if stamped else Twist, "cmd_vel",
                                                    RELIABLE_10)
        self.pose: Optional[Tuple[float, float, float]] = None
        self.node.create_subscription(Odometry, "odom", self._on_odom, RELIABLE_10)
        self.node.create_subscription(PoseStamped, "goal_pose", lambda msg: None, RELIABLE_10)
        self.node.create_subscription(Path, "plan", lambda msg: None, RELIABLE_10)
        self.node.create_timer(self.dt, self.tick)
        self.published = 0
        self.sign = 1.0

    def _on_odom(self, msg) -> None:
        from ...nodes.ros_common import yaw_from_quaternion

        p = msg.pose.pose.position
        self.pose = (p.x, p.y, yaw_from_quaternion(msg.pose.pose.orientation))

    def command(self) -> Tuple[float, float, float]:
        """Body-frame ``(vx, vy, omega)`` for this tick."""
        if self.mode == "jitter":
            self.sign = -self.sign
            return (-self.sign * JITTER_SPEED, 0.0, 0.0)
        x, y, yaw = self.pose
        gx, gy = self.agent.goal
        dx, dy = gx - x, gy - y
        distance = math.hypot(dx, dy)
        if distance <= self.tolerance:
            return (0.0, 0.0, 0.0)
        speed = min(self.agent.max_speed, distance / self.dt)
        if self.kinematics == "diff_drive":
            turn = math.atan2(dy, dx) - yaw
            error = math.atan2(math.sin(turn), math.cos(turn))
            return (speed * max(0.0, math.cos(error)), 0.0, error / self.dt)
        wx, wy = speed * dx / distance, speed * dy / distance
        c, s = math.cos(yaw), math.sin(yaw)
        return (c * wx + s * wy, -s * wx + c * wy, 0.0)

    def tick(self) -> None:
        from ...nodes.ros_common import twist_message

        if self.pose is None:
            return
        vx, vy, omega = self.command()
        self.publisher.publish(twist_message(vx, vy, omega, self.stamped,
                                             self.node.get_clock().now().to_msg(),
                                             f"{self.agent.name}/base_link"))
        self.published += 1
