"""The supervisor through real nodes: the public cocoon cases, bad input, and directive expiry."""

import math

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy

from geometry_msgs.msg import PoseStamped  # noqa: E402
from nav_msgs.msg import Odometry, Path  # noqa: E402
from std_msgs.msg import Float64  # noqa: E402

from orca_ros.core.scenario.loader import load_scenario, public_scenario_dir  # noqa: E402
from orca_ros.fleet.plan import FleetOptions  # noqa: E402
from orca_ros.fleet.runner import run_in_process  # noqa: E402
from orca_ros.nodes.orca_node import OrcaNode  # noqa: E402
from orca_ros.nodes.ros_common import RELIABLE_10, quaternion_from_yaw  # noqa: E402
from orca_ros.nodes.supervisor_node import SupervisorNode  # noqa: E402

pytestmark = pytest.mark.ros


@pytest.mark.slow
@pytest.mark.parametrize("odom_frame", ["shared", "per_robot"])
def test_public_cocoon_cases_through_real_nodes(odom_frame):
    """Every public cocoon case, with odometry in the shared frame and in each robot's
    own drifting frame (the supervisor then judges on the states the robots announce)."""
    for path in sorted((public_scenario_dir() / "cocoon").glob("*.yaml")):
        scenario = load_scenario(path)
        run = run_in_process(str(path), FleetOptions(method="direct", supervisor=True,
                                                     speed_factor=2.0, odom_frame=odom_frame))
        summary, expected = run.summary, scenario.expected
        assert summary["collisions"] == 0, path.name
        assert summary["reached"] == len(scenario.agents), path.name
        actions = [(c["priority"], c["yielding"], c["resolution"]) for c in summary["conflicts"]]
        if expected["resolution"] == "none":
            assert actions == [], path.name
        else:
            assert actions[0] == (expected["priority"], expected["yielding"],
                                  expected["resolution"]), path.name
        for event in expected.get("events", []):
            assert (event["priority"], event["yielding"], event["resolution"]) in actions


def test_unknown_priority_order_names_are_rejected_at_start_up(ros):
    with pytest.raises(ValueError, match="priority_order names unknown robots.*'ghost'"):
        SupervisorNode(context=ros.context, parameter_overrides=params(
            robots=["a", "b"], priority_order=["a", "ghost"]))


def odom(x, y):
    msg = Odometry()
    msg.header.frame_id = "world"  # the shared frame
    msg.pose.pose.position.x, msg.pose.pose.position.y = float(x), float(y)
    msg.pose.pose.orientation = quaternion_from_yaw(0.0)
    return msg


def test_supervisor_ignores_a_nan_pose_and_treats_a_robot_without_goal_as_standing(ros):
    node = ros.add(SupervisorNode(context=ros.context, parameter_overrides=params(
        robots=["a", "b"], robot_radius=0.25, robot_speed=0.5)))
    tester = ros.node("sup_tester")
    pub_a = tester.create_publisher(Odometry, "/a/odom", RELIABLE_10)
    pub_b = tester.create_publisher(Odometry, "/b/odom", RELIABLE_10)
    goal_b = tester.create_publisher(PoseStamped, "/b/goal_pose", RELIABLE_10)
    limits = []
    tester.create_subscription(Float64, "/b/supervisor/speed_limit", limits.append, RELIABLE_10)
    detours = []
    tester.create_subscription(Path, "/b/supervisor/detour", detours.append, RELIABLE_10)
    ros.spin_until(lambda: pub_a.get_subscription_count() and goal_b.get_subscription_count())
    pub_a.publish(odom(math.nan, 0.0))
    # Odometry is taken latest-only: the NaN is seen if nothing newer came first.
    assert ros.spin_until(lambda: node.rejected == 1, 5.0)
    goal = PoseStamped()
    goal.pose.position.x = 5.0
    goal_b.publish(goal)
    for _ in range(20):
        pub_a.publish(odom(1.0, 0.0))  # a: no goal, standing in b's way
        pub_b.publish(odom(0.2, 0.0))
        ros.spin_for(0.05)
    assert node.rejected == 1 and "non-finite" in node.last_problem
    tracks = {t.name: t for t in node.tracks()}
    assert tracks["a"].goal is None
    # b must go round the standing a: a detour, never a stop in front of it.
    assert node.supervisor.actions[0].priority == "a"
    assert detours and len(detours[-1].poses) == 2 and not limits


def test_orca_node_obeys_a_speed_limit_until_it_expires(ros):
    node = ros.add(OrcaNode(context=ros.context, namespace="me", parameter_overrides=params(
        neighbors=["nobody"], control_rate=20.0, max_speed=1.0, pref_speed=1.0,
        keep_right_deg=0.0, stall_escape_deg=0.0, supervisor_timeout=0.5)))
    tester = ros.node("limit_tester")
    own = tester.create_publisher(Odometry, "/me/odom", RELIABLE_10)
    goal = tester.create_publisher(PoseStamped, "/me/goal_pose", RELIABLE_10)
    limit = tester.create_publisher(Float64, "/me/supervisor/speed_limit", RELIABLE_10)
    from geometry_msgs.msg import Twist

    commands = []
    tester.create_subscription(Twist, "/me/cmd_vel", commands.append, RELIABLE_10)
    ros.spin_until(lambda: limit.get_subscription_count() and goal.get_subscription_count())
    target = PoseStamped()
    target.pose.position.x = 10.0
    goal.publish(target)
    for _ in range(10):
        own.publish(odom(0.0, 0.0))
        limit.publish(Float64(data=0.0))  # stop
        ros.spin_for(0.05)
    assert commands[-1].linear.x == pytest.approx(0.0, abs=1e-5)
    for _ in range(20):  # the supervisor goes silent: the limit expires
        own.publish(odom(0.0, 0.0))
        ros.spin_for(0.05)
    assert commands[-1].linear.x == pytest.approx(1.0)
    assert node.cycle.speed_limit is None


def test_the_supervisor_judges_every_robot_where_it_is_at_one_instant(ros):
    """Two odometries of different steps (one robot's message of the newest step not taken
    yet): the older robot is carried forward at its velocity to the newer stamp, so two
    robots equally far from a crossing stay a tie (decided by priority_order), not by
    which message came first."""
    supervisor = ros.add(SupervisorNode(context=ros.context, parameter_overrides=params(
        robots=["r1", "r2"])))

    def odom_at(stamp_s, x, y, vx, vy):
        msg = Odometry()
        msg.header.frame_id = "world"
        msg.header.stamp.sec, msg.header.stamp.nanosec = int(stamp_s), \
            int(round((stamp_s % 1) * 1e9))
        msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
        yaw = math.atan2(vy, vx)
        msg.pose.pose.orientation = quaternion_from_yaw(yaw)
        msg.twist.twist.linear.x = math.hypot(vx, vy)  # body frame: straight ahead
        return msg

    supervisor._on_odom("r1", odom_at(10.00, 1.50, 0.0, -0.5, 0.0))  # a step behind
    supervisor._on_odom("r2", odom_at(10.02, 0.0, -1.49, 0.0, 0.5))
    tracks = {t.name: t for t in supervisor.tracks()}
    assert tracks["r1"].position == pytest.approx((1.49, 0.0))  # carried 0.02 s
    assert tracks["r2"].position == pytest.approx((0.0, -1.49))


def test_a_nav2_fleets_supervisor_works_in_map_on_what_the_robots_announce(ros):
    """Robots whose odometry is in frames of their own (Nav2: robot/odom) announce their
    pose in map on /orca/states: the supervisor judges them there, names a pose in
    another frame, and stops following a robot's odom once it announces itself."""
    from orca_ros.nodes.neighbor_odometry import STATES_TOPIC

    node = ros.add(SupervisorNode(context=ros.context, parameter_overrides=params(
        robots=["a", "b"], world_frame="map", robot_radius=0.25, robot_speed=0.5)))
    tester = ros.node("map_tester")
    states = tester.create_publisher(Odometry, STATES_TOPIC, RELIABLE_10)
    odom_a = tester.create_publisher(Odometry, "/a/odom", RELIABLE_10)
    goal_b = tester.create_publisher(PoseStamped, "/b/goal_pose", RELIABLE_10)
    detours = []
    tester.create_subscription(Path, "/b/supervisor/detour", detours.append, RELIABLE_10)
    ros.spin_until(lambda: odom_a.get_subscription_count() and goal_b.get_subscription_count()
                   and states.get_subscription_count())

    def at(x, y, frame, child=""):
        msg = odom(x, y)
        msg.header.frame_id, msg.child_frame_id = frame, child
        return msg

    odom_a.publish(at(0.0, 0.0, "a/odom"))  # at its own origin: not where it is
    assert ros.spin_until(lambda: node.rejected >= 1, 5.0)
    assert "'a/odom'" in node.last_problem and "'map'" in node.last_problem
    assert "a" not in node.poses
    goal = PoseStamped()
    goal.pose.position.x = 5.0
    goal_b.publish(goal)
    for _ in range(20):
        states.publish(at(1.0, 0.0, "map", "a"))  # a stands in b's way, in map
        states.publish(at(0.2, 0.0, "map", "b"))
        ros.spin_for(0.05)
    assert "a" in node.poses, (node.last_problem, node.callback_errors, node.announced)
    assert node.poses["a"] == pytest.approx((1.0, 0.0))
    assert node.announced == {"a", "b"}
    assert all(s.topic_name != "/a/odom" for s in node.subscribed["a"])
    assert node.supervisor.actions and node.supervisor.actions[0].priority == "a"
    assert detours and detours[-1].header.frame_id == "map"
