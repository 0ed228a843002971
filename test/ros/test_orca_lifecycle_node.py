"""orca_lifecycle_node (orca_ros/nodes/orca_lifecycle_node.py) driven through its
lifecycle services over DDS, as Nav2's lifecycle_manager drives it: silent until
active, commanding while active, one stop and silence when deactivated, its goal
forgotten at cleanup; announcing its state throughout."""

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy

from geometry_msgs.msg import PoseStamped, Twist  # noqa: E402
from lifecycle_msgs.msg import State, Transition  # noqa: E402
from lifecycle_msgs.srv import ChangeState, GetState  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.nodes.orca_lifecycle_node import OrcaLifecycleNode  # noqa: E402
from orca_ros.nodes.ros_common import RELIABLE_10, quaternion_from_yaw  # noqa: E402

pytestmark = pytest.mark.ros


def test_the_managed_node_commands_only_while_active(ros):
    node = ros.add(OrcaLifecycleNode(context=ros.context, namespace="me",
                                     parameter_overrides=params(
                                         control_rate=20.0, max_speed=1.0, pref_speed=1.0,
                                         keep_right_deg=0.0, stall_escape_deg=0.0)))
    tester = ros.node("lifecycle_tester")
    own = tester.create_publisher(Odometry, "/me/odom", RELIABLE_10)
    goal = tester.create_publisher(PoseStamped, "/me/goal_pose", RELIABLE_10)
    commands, states = [], []
    tester.create_subscription(Twist, "/me/cmd_vel", commands.append, RELIABLE_10)
    tester.create_subscription(Odometry, "/orca/states", states.append, 10)
    change = tester.create_client(ChangeState, "/me/orca_node/change_state")
    get = tester.create_client(GetState, "/me/orca_node/get_state")
    assert ros.spin_until(lambda: change.service_is_ready() and get.service_is_ready()
                          and own.get_subscription_count() and goal.get_subscription_count())

    def call(client, request):
        future = client.call_async(request)
        assert ros.spin_until(future.done, 5.0)
        return future.result()

    def transition(id_):
        assert call(change, ChangeState.Request(transition=Transition(id=id_))).success

    def state():
        return call(get, GetState.Request()).current_state.id

    def play(seconds):
        start = len(commands)
        msg = Odometry()
        msg.header.frame_id = "world"
        msg.pose.pose.orientation = quaternion_from_yaw(0.0)
        for _ in range(int(seconds / 0.05)):
            own.publish(msg)
            ros.spin_for(0.05)
        return commands[start:]

    target = PoseStamped()
    target.pose.position.x = 10.0
    goal.publish(target)
    assert state() == State.PRIMARY_STATE_UNCONFIGURED
    assert play(0.5) == [] and states  # silent, but it announces itself
    transition(Transition.TRANSITION_CONFIGURE)
    assert state() == State.PRIMARY_STATE_INACTIVE and play(0.5) == []
    transition(Transition.TRANSITION_ACTIVATE)
    assert state() == State.PRIMARY_STATE_ACTIVE
    driving = play(0.5)
    assert driving and driving[-1].linear.x > 0.5  # on its way to the goal
    transition(Transition.TRANSITION_DEACTIVATE)
    ros.spin_for(0.1)
    assert (commands[-1].linear.x, commands[-1].angular.z) == (0.0, 0.0)  # one stop
    assert play(0.5) == []  # then silence
    transition(Transition.TRANSITION_CLEANUP)
    assert state() == State.PRIMARY_STATE_UNCONFIGURED and node.goal is None
    transition(Transition.TRANSITION_CONFIGURE)
    transition(Transition.TRANSITION_ACTIVATE)
    after = play(0.5)
    assert after and after[-1].linear.x == 0.0  # no goal any more: it stands
    transition(Transition.TRANSITION_ACTIVE_SHUTDOWN)
    assert state() == State.PRIMARY_STATE_FINALIZED and play(0.3) == []
