"""A neighbour whose clock lags: orca_node ages its announced states from their arrival,
is not held back by it, and names it in /diagnostics. In-process rclpy over real DDS."""

import math

from helpers.ros_helpers import latest_status, params  # first: skips without rclpy

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import PoseStamped, Twist  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.nodes.orca_node import OrcaNode  # noqa: E402
from orca_ros.nodes.ros_common import RELIABLE_10, quaternion_from_yaw  # noqa: E402

LAG_NS = 1_500_000_000  # the neighbour's clock is 1.5 s behind the node's
GOAL = (2.0, 0.0)
PARKED = (2.0, 0.8)  # the neighbour, parked beside the goal: 0.2 m between the discs


def odometry(x, y, yaw, stamp_ns, child=""):
    msg = Odometry()
    msg.header.frame_id = "world"
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
    msg.child_frame_id = child
    msg.pose.pose.position.x, msg.pose.pose.position.y = float(x), float(y)
    msg.pose.pose.orientation = quaternion_from_yaw(yaw)
    return msg


def test_a_parked_neighbour_whose_clock_lags_neither_holds_the_robot_back_nor_goes_unsaid(ros):
    node = ros.add(OrcaNode(context=ros.context, namespace="me", parameter_overrides=params(
        neighbors=[""], discover_odometry=False, control_rate=20.0, radius=0.3,
        neighbor_radius=0.3, max_speed=1.0, pref_speed=0.5, keep_right_deg=0.0,
        stall_escape_deg=0.0, goal_tolerance=0.1)))
    tester = ros.node("tester")
    own = tester.create_publisher(Odometry, "/me/odom", RELIABLE_10)
    states = tester.create_publisher(Odometry, "/orca/states", RELIABLE_10)
    goal = tester.create_publisher(PoseStamped, "/me/goal_pose", RELIABLE_10)
    commands, diagnostics = [], []
    tester.create_subscription(Twist, "/me/cmd_vel", commands.append, RELIABLE_10)
    tester.create_subscription(DiagnosticArray, "/diagnostics", diagnostics.append, 10)
    assert ros.spin_until(lambda: own.get_subscription_count() > 0
                          and states.get_subscription_count() > 0
                          and goal.get_subscription_count() > 0, 10.0)
    msg = PoseStamped()
    msg.header.frame_id = "world"
    msg.pose.position.x, msg.pose.position.y = GOAL
    msg.pose.orientation.w = 1.0
    goal.publish(msg)

    # The test plays the robot (it moves as commanded, its odometry stamped by the
    # node's clock) and the parked neighbour (its states stamped by its own clock).
    pose = [0.0, 0.0, 0.0]
    clock = tester.get_clock()
    for _ in range(400):  # at most 20 s of 50 ms steps; it ends on arrival
        if commands:
            c = commands[-1]
            heading = pose[2]
            pose[0] += 0.05 * (c.linear.x * math.cos(heading) - c.linear.y * math.sin(heading))
            pose[1] += 0.05 * (c.linear.x * math.sin(heading) + c.linear.y * math.cos(heading))
            pose[2] += 0.05 * c.angular.z
        now_ns = clock.now().nanoseconds
        own.publish(odometry(*pose, now_ns))
        states.publish(odometry(*PARKED, 0.0, now_ns - LAG_NS, child="other"))
        ros.spin_for(0.05)
        if node.goal_state == "goal reached":
            break
    assert node.goal_state == "goal reached"
    assert math.dist(pose[:2], GOAL) <= 0.1 + 1e-9
    assert math.dist(pose[:2], PARKED) >= 0.6  # beside the neighbour, not into it
    # Its states were timed on the node's clock, not taken 1.5 s old at face value.
    reading = node.neighbors["other"]
    assert reading.sent is not None and reading.stamp - reading.sent > 1.0

    def warned():
        status, values = latest_status(diagnostics, "orca_node: me")
        return status is not None and "other +1.5" in status.message and values.get(
            "clock_offsets", "").startswith("other:+1.5")
    assert ros.spin_until(warned, 5.0)
    status, values = latest_status(diagnostics, "orca_node: me")
    assert status.level == b"\x01" or status.level == 1  # WARN
    assert "chrony" in status.message and "PTP" in status.message
    assert values["neighbor_ages_s"].startswith("other:")
