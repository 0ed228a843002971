"""Aerial robots (dimensions: 3) through the ROS 2 nodes: orca_node's 3D mode, fleet_sim in
3D, the observer in 3D, and a 3D scenario through real nodes end to end."""

import math

import pytest

from helpers.ros_helpers import latest_status, params  # first: skips without rclpy
from helpers.orca_rig import Rig, goal, odom  # noqa: E402

from geometry_msgs.msg import Twist  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.testing.audit import StampAudit, overlaps_at_stamp  # noqa: E402
from orca_ros.nodes.fleet_sim import FleetSim  # noqa: E402
from orca_ros.nodes.ros_common import RELIABLE_10  # noqa: E402

pytestmark = pytest.mark.ros


def aerial_rig(ros, **overrides):
    """The orca_node Rig (helpers.orca_rig) in 3D mode: the test plays its robot and a neighbour."""
    return Rig(ros, dimensions=3, **overrides)


def test_orca_node_in_3d_climbs_to_a_goal_above_and_dodges_one_coming_down(ros):
    rig = aerial_rig(ros)
    rig.goal.publish(goal(0.0, 0.0, 6.0))
    free = rig.drive(0.6, odom(0.0, 0.0))
    assert free.linear.z == pytest.approx(1.0, abs=1e-6)  # straight up at the goal
    assert math.hypot(free.linear.x, free.linear.y) < 1e-6
    # A neighbour 2 m above, coming straight down at 1 m/s: turn off the vertical.
    cmd = rig.drive(0.6, odom(0.0, 0.0), odom(0.0, 0.0, z=2.0, vz=-1.0))
    sideways = math.hypot(cmd.linear.x, cmd.linear.y)
    assert math.atan2(sideways, cmd.linear.z) > math.radians(10), \
        f"command ({cmd.linear.x:.3f}, {cmd.linear.y:.3f}, {cmd.linear.z:.3f}) does not turn"
    _, values = latest_status(rig.diagnostics, "orca_node: me")
    assert values.get("dimensions") == "3"


def test_orca_node_refuses_3d_settings_it_cannot_fly(ros):
    rig = aerial_rig(ros)
    results = rig.node.set_parameters(params(kinematics="diff_drive"))
    assert not results[0].successful and "holonomic" in results[0].reason
    results = rig.node.set_parameters(params(method="hlavoid"))
    assert not results[0].successful and "no 3D version" in results[0].reason
    results = rig.node.set_parameters(params(method="orca_strict"))
    assert results[0].successful


def test_fleet_sim_flies_3d_bodies_on_cmd_vel_linear_z(ros):
    sim = ros.add(FleetSim(context=ros.context, parameter_overrides=params(
        scenario="octahedron_swap_3d", speed_factor=1.0, command_validity=0.5)))
    seen = []
    tester = ros.node("sim_tester")
    cmd = tester.create_publisher(Twist, "/nz/cmd_vel", RELIABLE_10)
    tester.create_subscription(Odometry, "/nz/odom", seen.append, RELIABLE_10)
    ros.spin_until(lambda: cmd.get_subscription_count() > 0 and seen)
    k = sim.names.index("nz")
    start_z = sim.bodies[k].z
    assert seen[-1].pose.pose.position.z == pytest.approx(start_z)
    twist = Twist()
    twist.linear.z = 0.5  # up
    steps_before = sim.record.steps
    for _ in range(20):
        cmd.publish(twist)
        ros.spin_for(0.05)
    steps = sim.record.steps - steps_before
    climbed = sim.bodies[k].z - start_z
    assert climbed == pytest.approx(0.5 * 0.1 * steps, abs=0.5 * 0.1 * 2)
    assert (sim.bodies[k].x, sim.bodies[k].y) == pytest.approx((0.0, 0.0))
    ros.spin_until(lambda: seen[-1].pose.pose.position.z > start_z + 0.05)
    assert seen[-1].twist.twist.linear.z > 0.0
    assert sim.record.trajectory[-1].shape == (6, 3)


def test_fleet_sim_refuses_unicycles_for_a_3d_scenario(ros):
    with pytest.raises(ValueError, match="holonomic"):
        FleetSim(context=ros.context, parameter_overrides=params(
            scenario="octahedron_swap_3d", kinematics="diff_drive"))


def test_the_observers_audit_judges_spheres_in_3d():
    radii = {"a": 0.3, "b": 0.3, "c": 0.3}
    # All three share x, y: a and b 0.5 m apart in height overlap; c, 0.7 m above b and
    # 1.2 m above a, is clear of both (in 2D all three would overlap).
    gaps = overlaps_at_stamp({"a": (0.0, 0.0, 0.0), "b": (0.0, 0.0, 0.5),
                              "c": (0.0, 0.0, 1.2)}, radii)
    assert [(a, b) for a, b, _ in gaps.contacts] == [("a", "b")]
    audit = StampAudit(radii, {n: (0.0, 0.0, 0.0) for n in radii}, {n: 0.1 for n in radii})
    audit.add("a", 1, 0.0, 0.0, 0.0)
    audit.add("b", 1, 0.0, 0.0, 0.7)
    audit.add("c", 1, 3.0, 0.0, 0.0)
    assert audit.report()["colliding_pairs"] == 0  # in 2D, a and b would overlap


def test_sim_refuses_what_a_3d_scenario_cannot_run(capsys):
    from orca_ros.tools.cli import main

    assert main(["sim", "octahedron_swap_3d", "--kinematics", "diff_drive",
                 "--no-progress"]) == 2
    assert "holonomic only" in capsys.readouterr().err
    assert main(["sim", "octahedron_swap_3d", "--supervisor", "--no-progress"]) == 2
    assert "supervisor is 2D only" in capsys.readouterr().err
    assert main(["sim", "octahedron_swap_3d", "--backend", "toio-sim", "--no-progress"]) == 2
    assert "fleet_sim" in capsys.readouterr().err


def test_a_3d_scenario_through_real_nodes_arrives_without_contact():
    """octahedron_swap_3d (six aerial robots meeting at the centre) through fleet_sim,
    obstacle_server and one orca_node per robot over DDS, judged by the independent
    observer process (same-stamp odometry, spheres in 3D)."""
    from orca_ros.fleet.plan import FleetOptions
    from orca_ros.tools.harness import run_fleet

    run = run_fleet("octahedron_swap_3d", FleetOptions(speed_factor=4.0), observer=True)
    summary = run.summary
    assert summary["reached"] == 6, summary
    assert summary["collisions"] == 0, summary
    assert summary["min_separation"] >= 0.0
    observed = summary["observer"]
    assert observed.get("colliding_pairs") == 0, observed
    assert observed.get("stamps_compared", 0) > 10
    assert observed["min_separation"] >= 0.0
    assert run.trajectory.shape[1:] == (6, 3)
