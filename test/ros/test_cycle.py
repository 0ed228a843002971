"""One robot cycle for node and world: the world (``ros_timing``) and an orca_node, fed
the same recorded inputs, send the same commands.

The world runs a scenario with every robot's cycle timed as the ROS path times it
and records what robot ``a`` received each period (its own state, its neighbour's
reading and their stamps) and the command it sent. Then a real orca_node with the
parameters the fleet plan gives robot ``a`` gets those very inputs as messages
(``/clock``, the neighbour's odometry, its own odometry: it plans as its own arrives)
and must publish, period after period, the command the world's cycle sent (in its
body frame, as a robot gets it). Its history matters: the stall count, the margins
and the path carry over from period to period on both sides.
"""

import math

import pytest

from helpers.ros_helpers import params

from orca_ros.core.robot.cycle import GoalState, RobotCycle
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.world import World, WorldOptions
from orca_ros.fleet.plan import FleetOptions, robot_parameters

pytestmark = pytest.mark.ros

SCENARIO = {
    "name": "two_meet", "time_step": 0.1, "max_time": 20.0,
    "defaults": {"radius": 0.2, "max_speed": 0.5, "pref_speed": 0.4, "neighbor_dist": 4.0,
                 "time_horizon": 2.0, "time_horizon_obst": 1.0},
    "agents": [{"name": "a", "start": [-2.0, 0.05], "goal": [2.0, 0.05]},
               {"name": "b", "start": [2.0, -0.05], "goal": [-2.0, -0.05]}],
    "obstacles": [],
}
PERIODS = 30


def _recorded_run(kinematics):
    """The world's inputs to robot a's cycle and its commands, period by period."""
    world = World(parse_scenario(SCENARIO), WorldOptions(kinematics=kinematics,
                                                         ros_timing=True))
    cycle = world.cycles[0]
    record = []
    step = RobotCycle.step

    def recording(now, own, neighbors, edges=(), awaited=()):
        result = step(cycle, now, own, neighbors, edges, awaited)
        record.append((now, own, dict(neighbors), result))
        return result

    cycle.step = recording
    for _ in range(PERIODS):
        world.step()
    return world, record


def _odometry(stamp, position, velocity_body, heading, omega, frame="world"):
    from nav_msgs.msg import Odometry

    from orca_ros.nodes.ros_common import quaternion_from_yaw

    msg = Odometry()
    msg.header.frame_id = frame
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(int(round(stamp * 1e9)),
                                                            1_000_000_000)
    msg.pose.pose.position.x, msg.pose.pose.position.y = position
    msg.pose.pose.orientation = quaternion_from_yaw(heading)
    msg.twist.twist.linear.x, msg.twist.twist.linear.y = velocity_body
    msg.twist.twist.angular.z = omega
    return msg


@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_orca_node_sends_the_commands_the_worlds_cycle_sent_from_the_same_inputs(ros,
                                                                                kinematics):
    from geometry_msgs.msg import PoseStamped, TwistStamped
    from nav_msgs.msg import Odometry
    from rosgraph_msgs.msg import Clock

    from orca_ros.nodes.orca_node import OrcaNode
    from orca_ros.nodes.ros_common import RELIABLE_10

    world, record = _recorded_run(kinematics)
    assert [r[3].status.state for r in record][-1] is GoalState.DRIVING
    parameters = robot_parameters(world.scenario, "a", FleetOptions(kinematics=kinematics))
    parameters.update(control_trigger="odom")
    node = ros.add(OrcaNode(context=ros.context, namespace="a",
                            parameter_overrides=params(**parameters)))
    tester = ros.node("replayer")
    clock = tester.create_publisher(Clock, "/clock", 10)
    own = tester.create_publisher(Odometry, "/a/odom", RELIABLE_10)
    other = tester.create_publisher(Odometry, "/orca/states", RELIABLE_10)  # b announces
    goal = tester.create_publisher(PoseStamped, "/a/goal_pose", RELIABLE_10)
    commands = []
    tester.create_subscription(TwistStamped, "/a/cmd_vel", commands.append, RELIABLE_10)
    assert ros.spin_until(lambda: own.get_subscription_count() and other.get_subscription_count()
                          and goal.get_subscription_count(), 10.0)
    assert node.announcing  # as the fleet plan starts it: it hears b's state
    clock.publish(Clock())
    target = PoseStamped()
    target.pose.position.x, target.pose.position.y = world.scenario.agents[0].goal
    goal.publish(target)
    assert ros.spin_until(lambda: node.goal is not None, 5.0)

    for now, own_reading, neighbors, result in record:
        stamp = Clock()
        stamp.clock.sec, stamp.clock.nanosec = divmod(int(round(now * 1e9)), 1_000_000_000)
        clock.publish(stamp)
        assert ros.spin_until(lambda now=now: abs(node.get_clock().now().nanoseconds * 1e-9
                                                  - now) < 1e-6, 5.0)
        b = neighbors["b"]
        # b's announced state: a world-frame velocity given with a zero heading, which
        # the node reads back as is
        state = _odometry(b.stamp, b.position, b.velocity, 0.0, 0.0)
        state.child_frame_id = "b"
        other.publish(state)
        assert ros.spin_until(lambda b=b: "b" in node.neighbors and
                              abs(node.neighbors["b"].stamp - b.stamp) < 1e-6, 5.0)
        assert node.neighbors["b"].announced
        state = own_reading.state
        c, s = math.cos(state.heading), math.sin(state.heading)
        vx, vy = state.velocity
        body = (c * vx + s * vy, -s * vx + c * vy)
        sent = len(commands)
        own.publish(_odometry(own_reading.stamp, state.position, body, state.heading,
                              state.angular_speed))
        assert ros.spin_until(lambda sent=sent: len(commands) > sent, 5.0), \
            f"no command at {now:.1f} s"
        got = commands[-1].twist
        command = result.command
        if kinematics == "diff_drive":
            expected = (command.linear, 0.0, command.angular)
        else:
            wx, wy = command.velocity
            expected = (c * wx + s * wy, -s * wx + c * wy, 0.0)
        assert (got.linear.x, got.linear.y, got.angular.z) == pytest.approx(expected, abs=1e-6), \
            f"at {now:.1f} s"
    assert node.goal_state == GoalState.DRIVING.value
    assert max(abs(r[3].command.linear) for r in record) > 0.2  # the robot did drive
