"""Shared predictions through orca_node over DDS: a cube's orca_node tells where it will be
when its command acts (orca/prediction), and its neighbours plan with that instead of
guessing over the lag. (Without ROS: test/unit/robot/test_shared_predictions.py.)"""

import math

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import Twist  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.nodes.orca_node import OrcaNode  # noqa: E402
from orca_ros.nodes.ros_common import RELIABLE_10, quaternion_from_yaw  # noqa: E402

pytestmark = pytest.mark.ros

A, V_MAX, OMEGA_MAX, LAG = 1.0, 0.12, 4.0, 0.14  # a cube's settings


class CubeRig:
    """A cube's orca_node in /me, with a tester that plays its odometry and a neighbour's."""

    def __init__(self, ros):
        self.ros = ros
        self.node = ros.add(OrcaNode(context=ros.context, namespace="me",
                                     parameter_overrides=params(
            neighbors=["other"], control_rate=20.0, radius=0.023, neighbor_radius=0.023,
            max_speed=V_MAX, pref_speed=0.1, kinematics="diff_drive", command_lag=LAG,
            lag_error=0.0065, max_linear_accel=A, max_angular_speed=OMEGA_MAX,
            share_predictions=True, goal_tolerance=0.01,
            detect_non_reciprocating=False,  # the played neighbour never gives way
            announce=False)))  # it plays a neighbour by its odometry alone
        self.tester = ros.node("tester")
        self.own = self.tester.create_publisher(Odometry, "/me/odom", RELIABLE_10)
        self.other = self.tester.create_publisher(Odometry, "/other/odom", RELIABLE_10)
        self.other_said = self.tester.create_publisher(Odometry, "/other/orca/prediction",
                                                       RELIABLE_10)
        self.said = []
        self.tester.create_subscription(Odometry, "/me/orca/prediction", self.said.append,
                                        RELIABLE_10)
        self.commands = []
        self.tester.create_subscription(Twist, "/me/cmd_vel", self.commands.append, RELIABLE_10)
        ros.spin_until(lambda: self.own.get_subscription_count() > 0
                       and self.other_said.get_subscription_count() > 0, 10.0)

    def now_ns(self):
        return self.node.get_clock().now().nanoseconds

    def odom(self, x, y):
        msg = Odometry()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.header.frame_id = "world"  # the shared frame
        msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
        msg.pose.pose.orientation = quaternion_from_yaw(0.0)
        return msg

    def prediction(self, x, y, variance=0.0):
        msg = self.odom(x, y)
        stamp = self.now_ns() + int(LAG * 1e9)
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, 1_000_000_000)
        msg.pose.covariance[0] = variance
        return msg

    def play(self, seconds, prediction=None):
        for _ in range(int(seconds / 0.05)):
            self.own.publish(self.odom(0.2, -0.3))
            self.other.publish(self.odom(0.3, -0.3))
            if prediction is not None:
                self.other_said.publish(prediction())
            self.ros.spin_for(0.05)

    def other_as_seen(self):
        node = self.node
        config = node.controller.effective_config
        seen = node.cycle._perceived_neighbors(config, node.state, self.now_ns() * 1e-9,
                                               node.neighbors)
        return next(n for n in seen if n.key == "other")


def test_orca_node_publishes_its_prediction_and_plans_with_its_neighbours(ros):
    rig = CubeRig(ros)
    rig.node.controller.set_path([(0.4, -0.3)])
    rig.play(0.6)
    assert ros.spin_until(lambda: rig.said and "other" in rig.node.neighbors, 5.0), \
        "no orca/prediction published, or no odometry of the neighbour"
    rig.play(0.1)
    assert rig.other_as_seen().uncertainty > 0.0095  # odometry alone: at least a lag**2 / 2
    said = rig.said[-1]
    ahead = (said.header.stamp.sec * 1e9 + said.header.stamp.nanosec - rig.now_ns()) * 1e-9
    assert 0.04 < ahead <= LAG + 1e-3  # stamped when its command acts
    # Where its commands already sent take it (its odometry, played here, stands still):
    # towards its goal, by at most v_max over the lag (keep-right may bend it a little
    # off the line, as the neighbour stands on it).
    x, y = said.pose.pose.position.x, said.pose.pose.position.y
    assert x > 0.2 and math.hypot(x - 0.2, y + 0.3) <= V_MAX * LAG + 1e-6
    assert abs(y + 0.3) < x - 0.2  # mostly ahead, within 45 degrees of the goal's line
    # ... and the twist of the command it sent with it (the messages may cross in flight)
    assert ros.spin_until(lambda: any(abs(c.linear.x - said.twist.twist.linear.x) < 1e-12
                                      for c in rig.commands), 2.0)
    assert said.twist.twist.linear.x > 0.0
    rig.play(0.6, prediction=lambda: rig.prediction(0.3, -0.3))
    assert ros.spin_until(lambda: "other" in rig.node.predictions, 5.0)
    assert rig.other_as_seen().uncertainty < 0.003
    # ... and says so on /diagnostics, for rqt_robot_monitor
    diagnostics = []
    rig.tester.create_subscription(DiagnosticArray, "/diagnostics", diagnostics.append, 10)
    rig.play(1.2, prediction=lambda: rig.prediction(0.3, -0.3))
    values = [{kv.key: kv.value for kv in status.values} for array in diagnostics
              for status in array.status if status.name == "orca_node: me"]
    assert values and values[-1]["neighbor_predictions"] == "other"


def test_a_bad_prediction_is_refused_with_a_diagnostic_and_the_odometry_still_counts(ros):
    rig = CubeRig(ros)
    rig.play(0.3)
    assert ros.spin_until(lambda: "other" in rig.node.neighbors, 5.0)
    rig.play(0.3, prediction=lambda: rig.prediction(0.3, -0.3, variance=math.nan))
    assert "other" not in rig.node.predictions
    assert rig.node.rejected.get("prediction of other", 0) >= 1
    assert "variance" in rig.node.last_problem
    assert rig.other_as_seen().position == pytest.approx((0.3, -0.3), abs=1e-6)
    rig.play(0.3, prediction=lambda: rig.prediction(0.3, -0.3))
    assert rig.other_as_seen().uncertainty < 0.003  # good ones are taken again


def test_a_cubes_orca_node_takes_every_cube_setting_and_replays_the_cube_drive(ros):
    """The launch plan gives a cube's orca_node TOIO_ROBOT; a setting orca_node did not
    declare would be dropped without a word. With drive_model ``toio`` it replays the
    commands sent over the lag through the cube's wheel model, as the world does; a
    drive it does not know is refused, naming the parameter."""
    from orca_ros.core.models.toio_cube import CubeDrive
    from orca_ros.fleet.plan import TOIO_ROBOT

    node = ros.add(OrcaNode(context=ros.context, namespace="cube",
                            parameter_overrides=params(**TOIO_ROBOT)))
    missing = [name for name in TOIO_ROBOT if not node.has_parameter(name)]
    assert not missing
    assert node.get_parameter("lag_error").value == TOIO_ROBOT["lag_error"]
    assert isinstance(node.cycle.sent.drive, CubeDrive)
    result = node.set_parameters(params(drive_model="bicycle"))[0]
    assert not result.successful and "drive_model" in result.reason
