"""The multi-host harness without hosts: clock offsets, the plan by host, the faked
clock's environment (orca_ros.testing.hosts; the run itself: test/system/test_hosts.py)."""

import pytest

from orca_ros.core.errors import InputError
from orca_ros.fleet.plan import FleetOptions, fleet_plan
from orca_ros.testing import hosts

ROBOTS = ["a", "b", "c", "d", "e", "f"]


def test_a_spread_sets_the_first_robots_alternately_ahead_and_behind():
    assert hosts.parse_clock_offsets("2:4", ROBOTS) == {
        "a": 2.0, "b": -2.0, "c": 2.0, "d": -2.0, "e": 0.0, "f": 0.0}
    assert hosts.parse_clock_offsets("0.5", ROBOTS[:2]) == {"a": 0.5, "b": -0.5}
    assert hosts.parse_clock_offsets("", ROBOTS[:2]) == {"a": 0.0, "b": 0.0}


def test_offsets_by_name_leave_the_others_true():
    assert hosts.parse_clock_offsets("b=-0.25, d=1", ROBOTS[:4]) == {
        "a": 0.0, "b": -0.25, "c": 0.0, "d": 1.0}


@pytest.mark.parametrize("text, named", [("x=1", "x=1"), ("a=fast", "fast"),
                                         ("0.5:9", "9 robots"), ("half", "S:N")])
def test_bad_offsets_are_refused_naming_them(text, named):
    with pytest.raises(InputError, match=named):
        hosts.parse_clock_offsets(text, ROBOTS)


def test_every_robot_gets_a_host_with_its_driver_and_the_world_one_of_its_own():
    options = hosts.wall_time_options(FleetOptions(kinematics="diff_drive"))
    plan = hosts.host_plan(fleet_plan("corridor_wall", options))
    assert list(plan) == ["sim", "left0", "left1", "left2", "right0", "right1", "right2"]
    assert [n["executable"] for n in plan["sim"]] == ["fleet_sim", "obstacle_server"]
    robot, driver = plan["left1"]
    assert (robot["executable"], robot["namespace"]) == ("orca_node", "left1")
    assert robot["remappings"] == []  # the driver's odometry, on the host's clock
    assert ["/left1/odom", "/left1/world_odom"] in plan["sim"][0]["remappings"]
    assert robot["parameters"]["use_sim_time"] is False  # each host's own clock
    assert (driver["executable"], driver["namespace"]) == (hosts.DRIVER, "left1")
    sim = plan["sim"][0]["parameters"]
    assert sim["speed_factor"] == 1.0  # the world at real time, as the hosts' clocks run


def test_a_faked_clock_leaves_the_monotonic_clock_alone(monkeypatch):
    monkeypatch.setattr(hosts, "_faketime_library", lambda: "/lib/libfaketimeMT.so.1")
    env = hosts.faketime_env(-0.5)
    assert env["FAKETIME"] == "-0.500000"
    assert env["FAKETIME_DONT_FAKE_MONOTONIC"] == "1"
    assert env["LD_PRELOAD"] == "/lib/libfaketimeMT.so.1"
    assert hosts.faketime_env(0.0) == {}


def test_host_processes_talk_udp_only(monkeypatch):
    monkeypatch.setenv("ROS_LOCALHOST_ONLY", "1")
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    env = hosts.host_environment(0.0)
    assert env["FASTDDS_BUILTIN_TRANSPORTS"] == "UDPv4"  # no shared memory across hosts
    assert env["ROS_AUTOMATIC_DISCOVERY_RANGE"] == "SUBNET"
    assert "ROS_LOCALHOST_ONLY" not in env


def test_hosts_inject_only_what_acts_on_their_own_deliveries():
    spec = hosts.check_host_faults("drop_odom=a:0.1,delay=0.2,seed=3", ROBOTS)
    assert spec.value("drop_odom", "a") == 0.1 and spec.value("delay", "f") == 0.2
    with pytest.raises(InputError, match="faults starve=0.5: the hosts inject only"):
        hosts.check_host_faults("starve=0.5", ROBOTS)
