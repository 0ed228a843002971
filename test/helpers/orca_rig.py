"""An orca_node in namespace /me whose robot and neighbour the test plays (needs rclpy)."""

from helpers.ros_helpers import latest_status, params  # first: skips without rclpy

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import PoseStamped, Twist  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from visualization_msgs.msg import Marker  # noqa: E402
from orca_ros.nodes.orca_node import OrcaNode  # noqa: E402
from orca_ros.nodes.ros_common import LATCHED, RELIABLE_10, quaternion_from_yaw  # noqa: E402


def odom(x, y, yaw=0.0, vx=0.0, vy=0.0, z=0.0, vz=0.0):
    """Odometry at (x, y), and the height z and climb rate vz of an aerial robot."""
    msg = Odometry()
    msg.header.frame_id = "world"
    msg.pose.pose.position.x, msg.pose.pose.position.y = float(x), float(y)
    msg.pose.pose.position.z = float(z)
    msg.pose.pose.orientation = quaternion_from_yaw(yaw)
    msg.twist.twist.linear.x, msg.twist.twist.linear.y = float(vx), float(vy)
    msg.twist.twist.linear.z = float(vz)
    return msg


def goal(x, y, z=0.0):
    msg = PoseStamped()
    msg.header.frame_id = "world"
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = float(x), float(y), float(z)
    msg.pose.orientation.w = 1.0
    return msg


class Rig:
    """An orca_node in namespace /me with a tester that plays its robot and a neighbour."""

    def __init__(self, ros, **overrides):
        # The odometry here is played by the test, so the robot never "moves":
        # keep-right and stall escape would turn its preferred velocity.
        settings = dict(neighbors=["other"], control_rate=20.0, radius=0.3, neighbor_radius=0.3,
                        max_speed=1.0, pref_speed=1.0, time_horizon=3.0, keep_right_deg=0.0,
                        stall_escape_deg=0.0)
        settings.update(overrides)
        self.ros = ros
        self.node = ros.add(OrcaNode(context=ros.context, namespace="me",
                                     parameter_overrides=params(**settings)))
        self.tester = ros.node("tester")
        self.own = self.tester.create_publisher(Odometry, "/me/odom", RELIABLE_10)
        self.other = self.tester.create_publisher(Odometry, "/other/odom", RELIABLE_10)
        self.goal = self.tester.create_publisher(PoseStamped, "/me/goal_pose", RELIABLE_10)
        self.obstacles = self.tester.create_publisher(Marker, "/obstacles", LATCHED)
        self.commands = []
        self.diagnostics = []
        self.tester.create_subscription(Twist, "/me/cmd_vel", self.commands.append, RELIABLE_10)
        self.tester.create_subscription(DiagnosticArray, "/diagnostics",
                                        self.diagnostics.append, 10)
        ros.spin_until(lambda: self.own.get_subscription_count() > 0
                       and self.other.get_subscription_count() > 0
                       and self.goal.get_subscription_count() > 0, 10.0)

    def drive(self, seconds, own, other=None):
        """Keep publishing the given odometry for a while; returns the last command."""
        end = len(self.commands)
        for _ in range(int(seconds / 0.05)):
            self.own.publish(own)
            if other is not None:
                self.other.publish(other)
            self.ros.spin_for(0.05)
        assert len(self.commands) > end, "orca_node published no cmd_vel"
        return self.commands[-1]

    def my_status(self):
        return latest_status(self.diagnostics, "orca_node: me")
