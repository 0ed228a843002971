"""toio_bridge with simulated cubes over DDS: watchdog, lift-off, reconnection, bad bytes,
end to end. (The simulated cube itself: test/unit/toio/test_simulated_cube.py.)"""

import math

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy

from geometry_msgs.msg import Twist  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.nodes.ros_common import RELIABLE_10  # noqa: E402
from orca_ros.nodes.toio_bridge import ToioBridge  # noqa: E402
from orca_ros.toio import protocol as p  # noqa: E402

pytestmark = pytest.mark.ros


def bridge_rig(ros, **overrides):
    settings = dict(cubes=["c1=sim:0.34,-0.34,0.0"], mat="collection_ring", command_validity=0.3)
    settings.update(overrides)
    bridge = ros.add(ToioBridge(context=ros.context, parameter_overrides=params(**settings)))
    tester = ros.node("toio_tester")
    odoms = []
    tester.create_subscription(Odometry, "/c1/odom", odoms.append, RELIABLE_10)
    cmd = tester.create_publisher(Twist, "/c1/cmd_vel", RELIABLE_10)
    ros.spin_until(lambda: cmd.get_subscription_count() > 0 and odoms, 10.0)
    return bridge, bridge.cubes["c1"], cmd, odoms


def test_bridge_drives_a_cube_and_stops_it_when_cmd_vel_stops(ros):
    bridge, cube, cmd, odoms = bridge_rig(ros)
    start = cube.link.world_pose()
    twist = Twist()
    twist.linear.x = 0.1
    for _ in range(20):
        cmd.publish(twist)
        ros.spin_for(0.05)
    moved = math.dist(start[:2], cube.link.world_pose()[:2])
    assert moved > 0.03
    assert odoms[-1].pose.pose.position.x > start[0] + 0.02  # odom follows the cube
    ros.spin_for(1.0)  # no more cmd_vel
    assert cube.link.body.left == pytest.approx(0.0, abs=1e-3)
    assert isinstance(cube.link.writes[-1], (p.MotorBasic, p.MotorTimed))


def test_a_cmd_vel_goes_to_the_cube_when_it_arrives_not_at_the_next_tick(ros):
    """The controller compensates the cube's own 0.14 s lag from when it publishes; a
    command held for the bridge's next periodic send acted up to one period later."""
    bridge, cube, cmd, odoms = bridge_rig(ros, command_rate=1.0, command_validity=2.0)
    before = len(cube.link.writes)
    twist = Twist()
    twist.linear.x = 0.1
    bridge._on_cmd(cube, twist)  # the subscription's callback, called as rclpy would
    assert cube.sent_at == bridge.now()  # written in the callback, not at a later tick
    ros.spin_until(lambda: len(cube.link.writes) > before, 5.0)  # the BLE thread delivers it
    written = cube.link.writes[before]
    assert isinstance(written, p.MotorTimed) and written.left == written.right > 0


def test_motor_commands_end_when_the_commands_validity_does(ros):
    from geometry_msgs.msg import TwistStamped
    from rclpy.time import Time

    bridge = ros.add(ToioBridge(context=ros.context, parameter_overrides=params(
        cubes=["c1=sim:0.34,-0.34,0.0"], mat="collection_ring", enable_stamped_cmd_vel=True,
        command_validity=0.3)))
    cube = bridge.cubes["c1"]
    tester = ros.node("stamped_tester")
    cmd = tester.create_publisher(TwistStamped, "/c1/cmd_vel", RELIABLE_10)
    ros.spin_until(lambda: cmd.get_subscription_count() > 0 and bridge.now() > 1.0, 10.0)

    def command(age):
        msg = TwistStamped()
        msg.header.stamp = Time(nanoseconds=int((bridge.now() - age) * 1e9)).to_msg()
        msg.twist.linear.x = 0.1
        return msg

    writes = len(cube.link.writes)
    for _ in range(6):  # computed from data older than its validity: never sent to the cube
        cmd.publish(command(0.5))
        ros.spin_for(0.05)
    assert not any(isinstance(w, p.MotorTimed) for w in cube.link.writes[writes:])
    cmd.publish(command(0.15))  # 0.15 s of its 0.3 s left
    assert ros.spin_until(lambda: any(isinstance(w, p.MotorTimed)
                                      for w in cube.link.writes[writes:]), 2.0)
    timed = [w for w in cube.link.writes[writes:] if isinstance(w, p.MotorTimed)]
    assert 10 <= timed[0].duration_ms <= 150


def test_a_lifted_cube_is_stopped_reported_and_resumes_when_put_back(ros):
    bridge, cube, cmd, odoms = bridge_rig(ros)
    cube.link.lift()
    assert ros.spin_until(lambda: not cube.on_mat, 3.0)
    ros.spin_for(0.2)
    assert cube.link.writes[-1] == p.MotorBasic(0, 0)
    assert cube.problems.get("position missed") == 1
    assert odoms[-1].pose.covariance[0] >= 1e5  # marked stale
    cube.link.place()
    assert ros.spin_until(lambda: cube.on_mat and odoms[-1].pose.covariance[0] < 1.0, 3.0)


def test_a_dropped_link_is_reported_and_re_established(ros):
    bridge, cube, cmd, odoms = bridge_rig(ros)
    cube.link.cut_connection()
    assert ros.spin_until(lambda: cube.link.connected, 5.0)
    assert cube.last_problem == "connected"


def test_malformed_bytes_from_a_cube_become_a_diagnostic(ros):
    bridge, cube, cmd, odoms = bridge_rig(ros)
    bridge.inbox.append(("c1", p.ID_INFORMATION, b"\x01\x02"))
    count = len(odoms)
    ros.spin_for(0.3)
    assert cube.problems.get("malformed") == 1 and "expected 13 bytes" in cube.last_problem
    assert len(odoms) > count  # still publishing


def test_six_simulated_cubes_swap_places_through_the_bridge_and_orca():
    from orca_ros.fleet.plan import FleetOptions
    from orca_ros.fleet.runner import run_in_process

    # Real cubes run on wall time: speed factor 1, as they would.
    run = run_in_process("toio_ring_swap_6", FleetOptions(backend="toio-sim", speed_factor=1.0))
    assert run.summary["collisions"] == 0, run.summary
    assert run.summary["reached"] == 6, run.summary


def test_the_observer_judges_a_lone_cube_against_the_wall_and_sees_it_arrive():
    """toio_v_wall through the bridge: one cube rounding a V-shaped wall. The observer
    compared no stamp with a single robot, so it never judged the cube against the wall,
    and the run ended the moment the simulated truth arrived, before the cube's late
    position report of it: the observer counted 0 of 1 at the goal."""
    from orca_ros.fleet.plan import FleetOptions
    from orca_ros.tools.harness import run_fleet

    run = run_fleet("toio_v_wall", FleetOptions(backend="toio-sim", speed_factor=1.0),
                    observer=True)
    summary, observed = run.summary, run.summary["observer"]
    assert summary["reached"] == 1 and summary["collisions"] == 0, summary
    assert observed["colliding_pairs"] == 0, observed
    assert observed["stamps_single"] > 0 and observed["min_obstacle_gap"] is not None, observed
    assert 0.0 <= observed["min_obstacle_gap"] < 0.05, observed  # it passes the wall's tip
    assert observed["reached"] == observed["arrived"] == 1, observed
