"""What the nodes share: QoS profiles, message <-> core conversion, parameter descriptors."""

from __future__ import annotations

import math
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Point, Quaternion, Twist, TwistStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    SetParametersResult,
)
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from ..core.drive import wrap_angle
from ..core.types import Segment

# cmd_vel and odom interoperate with Gazebo bridges and diff_drive_controller.
RELIABLE_10 = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.VOLATILE, history=HistoryPolicy.KEEP_LAST)
# Latched data (obstacles): late joiners get the last message.
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL, history=HistoryPolicy.KEEP_LAST)


class BadMessage(ValueError):
    """A message that cannot be used, with the reason (goes into a diagnostic)."""


def yaw_from_quaternion(q: Quaternion) -> float:
    """Rotation about z (rad, in (-pi, pi]) of a quaternion; any tilt is ignored."""
    return wrap_angle(math.atan2(2.0 * (q.w * q.z + q.x * q.y),
                                 1.0 - 2.0 * (q.y * q.y + q.z * q.z)))


def quaternion_from_yaw(yaw: float) -> Quaternion:
    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2.0), w=math.cos(yaw / 2.0))


def odometry_state(msg: Odometry) -> Tuple[Tuple[float, float], Tuple[float, float], float,
                                            float, float]:
    """``(position, world velocity, yaw, v, omega)`` of an Odometry message.

    The pose is in the common world frame; the twist is in the child (body)
    frame, as Gazebo and diff_drive_controller publish it, so it is rotated by
    the yaw into the world frame. Raises :class:`BadMessage` on NaN/infinite
    numbers or a zero quaternion.
    """
    p = msg.pose.pose.position
    q = msg.pose.pose.orientation
    t = msg.twist.twist
    numbers = (p.x, p.y, q.x, q.y, q.z, q.w, t.linear.x, t.linear.y, t.angular.z)
    if not all(math.isfinite(n) for n in numbers):
        raise BadMessage(f"non-finite number in odometry: position ({p.x}, {p.y}), "
                         f"orientation ({q.x}, {q.y}, {q.z}, {q.w}), twist "
                         f"({t.linear.x}, {t.linear.y}, {t.angular.z})")
    if q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w < 1e-12:
        raise BadMessage("odometry orientation is a zero quaternion")
    yaw = yaw_from_quaternion(q)
    c, s = math.cos(yaw), math.sin(yaw)
    world_velocity = (c * t.linear.x - s * t.linear.y, s * t.linear.x + c * t.linear.y)
    return (p.x, p.y), world_velocity, yaw, t.linear.x, t.angular.z


def twist_message(linear_x: float, linear_y: float, angular_z: float, stamped: bool,
                  stamp=None, frame_id: str = "") -> "Twist | TwistStamped":
    twist = Twist()
    twist.linear.x = float(linear_x)
    twist.linear.y = float(linear_y)
    twist.angular.z = float(angular_z)
    if not stamped:
        return twist
    msg = TwistStamped()
    if stamp is not None:
        msg.header.stamp = stamp
    msg.header.frame_id = frame_id
    msg.twist = twist
    return msg


def twist_of(msg) -> Twist:
    """The Twist inside a Twist or TwistStamped, checked for finite numbers."""
    twist = msg.twist if isinstance(msg, TwistStamped) else msg
    numbers = (twist.linear.x, twist.linear.y, twist.angular.z)
    if not all(math.isfinite(n) for n in numbers):
        raise BadMessage(f"non-finite number in cmd_vel: {numbers}")
    return twist


def segments_from_points(points: Sequence[Point]) -> Tuple[List[Segment], List[str]]:
    """A LINE_LIST's point pairs as segments; bad pairs are skipped with a reason each."""
    segments: List[Segment] = []
    problems: List[str] = []
    if len(points) % 2:
        problems.append(f"LINE_LIST has an odd number of points ({len(points)}): last one ignored")
    for k in range(0, len(points) - 1, 2):
        a, b = points[k], points[k + 1]
        try:
            segments.append(Segment((a.x, a.y), (b.x, b.y)))
        except ValueError as error:
            problems.append(f"segment {k // 2}: {error}")
    return segments, problems


def diagnostic_status(name: str, level: int, message: str, values: Dict[str, object],
                      hardware_id: str = "") -> DiagnosticStatus:
    status = DiagnosticStatus()
    status.level = bytes([level]) if isinstance(DiagnosticStatus.OK, bytes) else level
    status.name = name
    status.message = message
    status.hardware_id = hardware_id
    status.values = [KeyValue(key=str(k), value=str(v)) for k, v in values.items()]
    return status


def diagnostic_array(stamp, statuses: Iterable[DiagnosticStatus]) -> DiagnosticArray:
    array = DiagnosticArray()
    array.header.stamp = stamp
    array.status = list(statuses)
    return array


LEVEL_OK = 0
LEVEL_WARN = 1
LEVEL_ERROR = 2


def float_param(description: str, low: float, high: float, step: float = 0.0) -> ParameterDescriptor:
    return ParameterDescriptor(description=description, floating_point_range=[
        FloatingPointRange(from_value=float(low), to_value=float(high), step=float(step))])


def int_param(description: str, low: int, high: int) -> ParameterDescriptor:
    return ParameterDescriptor(description=description,
                               integer_range=[IntegerRange(from_value=low, to_value=high, step=1)])


def described(description: str, choices: Optional[Sequence[str]] = None) -> ParameterDescriptor:
    if choices:
        description = f"{description} (one of: {', '.join(choices)})"
    return ParameterDescriptor(description=description)


def check_choices(params, choices: Dict[str, Sequence[str]]) -> SetParametersResult:
    """Reject string parameters outside their allowed set, naming the parameter."""
    for param in params:
        allowed = choices.get(param.name)
        if allowed is not None and param.value not in allowed:
            return SetParametersResult(
                successful=False,
                reason=f"{param.name} must be one of {list(allowed)}, got {param.value!r}")
    return SetParametersResult(successful=True)


def run_node(node_class, args=None) -> None:
    """The executables' ``main``: init, spin one node until Ctrl-C or shutdown, clean up.

    A node that refuses its configuration (a parameter out of its range, unknown
    robot names, an unreadable scenario) exits with status 2 and the reason.
    """
    import sys

    import rclpy
    from rclpy.executors import ExternalShutdownException

    from rclpy.exceptions import ParameterException

    rclpy.init(args=args)
    try:
        node = node_class()
    except (ValueError, ParameterException) as error:
        print(f"{node_class.__name__}: {error}", file=sys.stderr)
        rclpy.try_shutdown()
        sys.exit(2)
    try:
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


class GoalSender:
    """Sends each scenario robot its goal once (``goal_pose``, or ``plan`` when it has
    waypoints), as soon as ``subscribers`` nodes listen, as a user would in RViz.

    Used by the simulators when they run a scenario (``send_goals``)."""

    def __init__(self, node, scenario, subscribers: int, frame: str) -> None:
        from geometry_msgs.msg import PoseStamped
        from nav_msgs.msg import Path

        self.node, self.scenario, self.subscribers, self.frame = node, scenario, subscribers, frame
        self.sent = set()
        self.publishers = {}
        for agent in scenario.agents:
            topic, kind = ("plan", Path) if len(agent.waypoints) > 1 else ("goal_pose", PoseStamped)
            self.publishers[agent.name] = node.create_publisher(kind, f"/{agent.name}/{topic}",
                                                                RELIABLE_10)

    def send(self, stamp) -> None:
        from geometry_msgs.msg import PoseStamped
        from nav_msgs.msg import Path

        for agent in self.scenario.agents:
            publisher = self.publishers[agent.name]
            if agent.name in self.sent or publisher.get_subscription_count() < self.subscribers:
                continue
            poses = []
            for x, y in agent.waypoints:
                pose = PoseStamped()
                pose.header.frame_id = self.frame
                pose.header.stamp = stamp
                pose.pose.position.x, pose.pose.position.y = float(x), float(y)
                pose.pose.orientation.w = 1.0
                poses.append(pose)
            if len(poses) > 1:
                plan = Path()
                plan.header = poses[0].header
                plan.poses = poses
                publisher.publish(plan)
            else:
                publisher.publish(poses[0])
            self.sent.add(agent.name)
