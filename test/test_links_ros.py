"""Linked robots through ROS: orca_node's ``links`` parameter, its markers, the fleet
plan and the observer's link accounting.

The node tests run real rclpy nodes over DDS (skipped without rclpy, through the
``ros`` fixture); the plan, parameter and observer-accounting tests are pure.
"""

import math

import pytest
import yaml

from orca_ros.core.robot.links import LinkParameterError, links_text, parse_links
from orca_ros.core.methods import (AvoidanceMethod, MethodOutput, MethodSpec, register_method,
                                   unregister_method)
from orca_ros.core.scenario.loader import LinkSpec, parse_scenario

LINKED = "[{agents: [me, partner], max_length: 1.2}, {agents: [c0, c1], max_length: 1.0}]"


# --- the parameter (pure) -------------------------------------------------------------------

def test_parse_links_reads_yaml_or_json_and_checks_the_scenario_rules():
    assert parse_links("") == () and parse_links("  ") == () and parse_links("[]") == ()
    links = parse_links("[{agents: [a0, /a1], max_length: 1.2, rest_length: 1.0},"
                        " {agents: [b0, b1, b2], max_length: 0.8}]")
    assert links == (LinkSpec(("a0", "a1"), 1.2, 1.0), LinkSpec(("b0", "b1", "b2"), 0.8))
    assert parse_links(links_text(links)) == links  # the fleet plan's text reads back
    assert parse_links('[{"agents": ["a", "b"], "max_length": 2}]') == \
        (LinkSpec(("a", "b"), 2.0),)
    bad = {
        "{{{": "not valid YAML",
        "a0-a1": "expected",
        "{agents: [a, b], max_length: 1}": "expected",
        "[{agents: [a, b, c, d], max_length: 1}]": "2 or 3",
        "[{agents: [a], max_length: 1}]": "2 or 3",
        "[{agents: [a, a], max_length: 1}]": "twice",
        "[{agents: [a, b], max_length: 1}, {agents: [b, c], max_length: 1}]": "one group",
        "[{agents: [a, b], max_length: -1.0}]": "max_length must be positive",
        "[{agents: [a, b], max_length: 0}]": "max_length must be positive",
        "[{agents: [a, b], max_length: .nan}]": "max_length must be finite",
        "[{agents: [a, b], max_length: far}]": "max_length must be a number",
        "[{agents: [a, b]}]": "missing 'max_length'",
        "[{agents: [a, b], max_length: 1, rest_length: 2}]": "exceeds max_length",
        "[{agents: [a, b], max_length: 1, stiffness: 3}]": "unknown key",
        "[[a, b]]": "must be a mapping",
    }
    for text, reason in bad.items():
        with pytest.raises(LinkParameterError, match=reason) as error:
            parse_links(text, "links")
        assert str(error.value).startswith("links"), text


# --- the fleet plan (pure) ------------------------------------------------------------------

def _linked_scenario(tmp_path):
    path = tmp_path / "linked.yaml"
    path.write_text(
        "name: linked\ntime_step: 0.1\nmax_time: 30\n"
        "defaults: {radius: 0.2, max_speed: 0.5}\nagents:\n"
        "  - {name: a0, start: [-3, 0.4], goal: [3, 0.4]}\n"
        "  - {name: a1, start: [-3, -0.4], goal: [3, -0.4]}\n"
        "  - {name: b0, start: [0.4, -3], goal: [0.4, 3]}\n"
        "  - {name: b1, start: [-0.4, -3], goal: [-0.4, 3]}\n"
        "  - {name: solo, start: [3, 3], goal: [-3, -3]}\n"
        "links:\n"
        "  - {agents: [a0, a1], max_length: 1.2, rest_length: 0.8}\n"
        "  - {agents: [b0, b1], max_length: 1.0}\n")
    return path


def test_fleet_plan_gives_every_orca_node_the_scenarios_links(tmp_path):
    from orca_ros.fleet.plan import FleetOptions, fleet_plan, process_plan

    path = _linked_scenario(tmp_path)
    scenario = parse_scenario(yaml.safe_load(path.read_text()), str(path))
    plan = fleet_plan(str(path), FleetOptions())
    robots = [spec for spec in plan if spec.executable == "orca_node"]
    assert [r.namespace for r in robots] == ["a0", "a1", "b0", "b1", "solo"]
    for robot in robots:  # all groups: its own partners, and the links to keep off
        assert isinstance(robot.parameters["links"], str)
        assert parse_links(robot.parameters["links"]) == scenario.links
    # orca_robots hosts take parameters from a YAML file: the text stays a string there.
    [host] = [p for p in process_plan(plan, 10) if p.hosted]
    read_back = yaml.safe_load(yaml.safe_dump(host.parameters_file()))
    assert parse_links(read_back["/a0/orca_node"]["ros__parameters"]["links"]) == \
        scenario.links
    # A scenario without links: no links parameter at all.
    plain = [s for s in fleet_plan("crossing_4") if s.executable == "orca_node"]
    assert plain and all("links" not in s.parameters for s in plain)


# --- the observer's link accounting (pure) --------------------------------------------------

def test_observer_counts_link_crossings_and_overstretches_at_shared_stamps(tmp_path):
    from orca_ros.testing.observer import audit_for, summary_line

    path = _linked_scenario(tmp_path)
    audit = audit_for(parse_scenario(yaml.safe_load(path.read_text()), str(path)))
    far = {"a0": (-3.0, 0.4), "a1": (-3.0, -0.4), "b0": (0.4, -3.0), "b1": (-0.4, -3.0),
           "solo": (3.0, 3.0)}
    frames = [
        far,
        # solo (r 0.2) 0.1 m from the a-link's middle: a crossing; a0-a1 1.0 m <= 1.2.
        dict(far, a0=(0.0, 0.5), a1=(0.0, -0.5), solo=(0.1, 0.0)),
        # b0 rides through the a-link (b-group robot, another group): a crossing;
        # b0-b1 are 1.005 m apart (> 1.0 + 1 mm): over-stretched.
        dict(far, a0=(0.0, 0.5), a1=(0.0, -0.5), b0=(0.0, 0.0), b1=(-1.005, 0.0)),
        # a0 and a1 1.2005 m apart: within the 1 mm slack, not over-stretched.
        dict(far, a0=(0.0, 0.6), a1=(0.0, -0.6005)),
        # b1 missing at this stamp: the b-link is not judged, nor b1's crossings.
        {k: v for k, v in dict(far, b0=(5.0, 5.0)).items() if k != "b1"},
    ]
    for sec, frame in enumerate(frames, start=1):
        for name, (x, y) in frame.items():
            audit.add(name, sec * 1_000_000_000, x, y)
    audit.flush()
    report = audit.report()
    assert report["stamps_compared"] == 5
    assert report["link_crossings"] == 2
    assert [(e["robot"], e["a"], e["b"]) for e in report["link_crossing_events"]] == \
        [("b0", "a0", "a1"), ("solo", "a0", "a1")]
    solo = report["link_crossing_events"][1]
    assert solo["first_stamp"] == pytest.approx(2.0) and solo["worst_m"] == pytest.approx(0.1)
    assert report["link_overstretches"] == 1
    [stretch] = report["link_overstretch_events"]
    assert (stretch["a"], stretch["b"], stretch["stamps"]) == ("b0", "b1", 1)
    assert stretch["worst_m"] == pytest.approx(0.005)
    assert report["max_link_stretch"] == pytest.approx(1.005)  # b0-b1: 1.005 m of 1.0 m
    assert report["colliding_pairs"] == 0  # b0 is 0.5 m from each end of the a-link
    line = summary_line(dict(report, odom_rate_hz_mean=10.0))
    assert "link crossings 2" in line and "over-stretched links 1" in line
    # Without links the report still has the keys (zero), and the line is as it was.
    from orca_ros.core.scenario.loader import load_scenario, resolve_scenario

    plain = audit_for(load_scenario(resolve_scenario("crossing_4"))).report()
    assert (plain["link_crossings"], plain["link_overstretches"]) == (0, 0)
    assert "link" not in summary_line(dict(plain, odom_rate_hz_mean=10.0))


# --- orca_node over DDS ---------------------------------------------------------------------

class LinkSpy(AvoidanceMethod):
    """Test method: drives at the preferred velocity and keeps every view it was given."""

    views = []

    def compute_velocity(self, view):
        LinkSpy.views.append(view)
        return MethodOutput(view.pref_velocity)


@pytest.fixture
def link_spy():
    LinkSpy.views = []
    spec = register_method(MethodSpec("test_link_spy", "test: records tethers and links",
                                      LinkSpy))
    yield LinkSpy
    unregister_method(spec.name)


class LinkRig:
    """orca_node in /me, linked to /partner; the tester plays both, and c0-c1 (another
    group), and listens to cmd_vel, the markers and the diagnostics."""

    def __init__(self, ros, **overrides):
        from diagnostic_msgs.msg import DiagnosticArray
        from geometry_msgs.msg import PoseStamped, Twist
        from nav_msgs.msg import Odometry
        from visualization_msgs.msg import MarkerArray

        from orca_ros.nodes.orca_node import OrcaNode
        from orca_ros.nodes.ros_common import RELIABLE_10
        from ros_helpers import params

        settings = dict(neighbors=["partner", "c0", "c1"], links=LINKED, control_rate=20.0,
                        radius=0.3, neighbor_radius=0.3, max_speed=1.0, pref_speed=1.0,
                        time_horizon=3.0, keep_right_deg=0.0, stall_escape_deg=0.0,
                        neighbor_timeout=0.4)
        settings.update(overrides)
        self.ros = ros
        self.node = ros.add(OrcaNode(context=ros.context, namespace="me",
                                     parameter_overrides=params(**settings)))
        self.tester = ros.node("link_tester")
        self.odom = {name: self.tester.create_publisher(Odometry, f"/{name}/odom", RELIABLE_10)
                     for name in ("me", "partner", "c0", "c1")}
        self.goal = self.tester.create_publisher(PoseStamped, "/me/goal_pose", RELIABLE_10)
        self.commands, self.markers, self.diagnostics = [], [], []
        self.tester.create_subscription(Twist, "/me/cmd_vel", self.commands.append, RELIABLE_10)
        self.tester.create_subscription(MarkerArray, "/me/orca/markers", self.markers.append, 10)
        self.tester.create_subscription(DiagnosticArray, "/diagnostics",
                                        self.diagnostics.append, 10)
        assert ros.spin_until(lambda: all(p.get_subscription_count() > 0
                                          for p in self.odom.values())
                              and self.goal.get_subscription_count() > 0
                              and self.node.marker_pub.get_subscription_count() > 0, 10.0)

    def send_goal(self, x, y):
        from test_nodes import goal

        self.goal.publish(goal(x, y))

    def drive(self, seconds, poses):
        """Publish ``poses`` (name -> (x, y)) every 50 ms for a while; the last command."""
        from test_nodes import odom

        end = len(self.commands)
        for _ in range(int(seconds / 0.05)):
            for name, (x, y) in poses.items():
                self.odom[name].publish(odom(x, y))
            self.ros.spin_for(0.05)
        assert len(self.commands) > end, "orca_node published no cmd_vel"
        return self.commands[-1]

    def link_markers(self):
        for array in reversed(self.markers):
            found = {m.id: m for m in array.markers if m.ns == "me/links"}
            if found:
                return found
        return {}

    def my_status(self):
        from ros_helpers import latest_status

        return latest_status(self.diagnostics, "orca_node: me")


def _points(marker):
    return [(round(p.x, 6), round(p.y, 6)) for p in marker.points]


def test_orca_node_hands_its_method_its_tether_and_other_groups_links_and_draws_them(
        ros, link_spy):
    rig = LinkRig(ros, method="test_link_spy")
    rig.send_goal(6.0, 0.0)
    # The partner trails at max_length, opposite to the goal; c0-c1 is a link 2 m ahead
    # (inside neighbor_dist 5 m).
    poses = {"me": (0.0, 0.0), "partner": (-1.2, 0.0), "c0": (2.0, -0.5), "c1": (2.0, 0.5)}
    rig.drive(0.6, poses)
    view = link_spy.views[-1]
    [tether] = view.tethers
    assert (tether.key, tether.max_length, tether.rest_length) == ("partner", 1.2, None)
    assert tether.position == pytest.approx((-1.2, 0.0)) and tether.radius == 0.3
    [link] = view.links
    assert link.keys == ("c0", "c1")
    assert link.a == pytest.approx((2.0, -0.5)) and link.b == pytest.approx((2.0, 0.5))
    assert rig.ros.spin_until(lambda: len(rig.link_markers()) == 2, 3.0)
    markers = rig.link_markers()
    assert all(m.type == m.LINE_LIST for m in markers.values())
    assert _points(markers[0]) == [(0.0, 0.0), (-1.2, 0.0)]  # the tether
    assert _points(markers[1]) == [(2.0, -0.5), (2.0, 0.5)]  # the other group's link
    assert (markers[0].color.r, markers[0].color.g, markers[0].color.b) != \
        (markers[1].color.r, markers[1].color.g, markers[1].color.b)
    assert rig.ros.spin_until(lambda: rig.my_status()[1].get("links_seen") == "1", 3.0)
    values = rig.my_status()[1]
    assert values["link_group"] == "me,partner" and values["link_partners_missing"] == ""
    # c1 far away: its link is beyond neighbor_dist, and is left out.
    rig.drive(0.3, dict(poses, c0=(20.0, 0.0), c1=(20.0, 0.9)))
    assert link_spy.views[-1].links == ()


def test_a_silent_partner_holds_the_robot_and_is_reported(ros, link_spy):
    rig = LinkRig(ros, method="test_link_spy")
    rig.send_goal(6.0, 0.0)
    cmd = rig.drive(0.5, {"me": (0.0, 0.0)})  # the partner never spoke
    assert (cmd.linear.x, cmd.linear.y) == (0.0, 0.0)
    assert rig.node.goal_state == "holding: no odometry of link partner(s) partner"
    assert rig.ros.spin_until(
        lambda: rig.my_status()[1].get("link_partners_missing") == "partner", 3.0)
    assert rig.my_status()[0].level == bytes([1])  # WARN
    cmd = rig.drive(0.5, {"me": (0.0, 0.0), "partner": (-1.0, 0.0)})
    assert cmd.linear.x == pytest.approx(1.0)  # it heard from it: drives
    cmd = rig.drive(0.8, {"me": (0.0, 0.0)})  # silent past neighbor_timeout (0.4 s)
    assert (cmd.linear.x, cmd.linear.y) == (0.0, 0.0)
    assert rig.node.goal_state == "holding: stale odometry of link partner(s) partner"
    assert rig.ros.spin_until(
        lambda: rig.my_status()[1].get("link_partners_stale") == "partner", 3.0)


@pytest.mark.parametrize("bad, reason", [
    ("a0 and a1, 1.2 m", "expected"),
    ("[{agents: [me, partner, c0, c1], max_length: 1.2}]", "2 or 3"),
    ("[{agents: [me, partner], max_length: -1.2}]", "max_length must be positive"),
], ids=["format", "group of 4", "negative max_length"])
def test_a_bad_links_value_is_rejected_by_name_and_the_node_keeps_driving(ros, link_spy,
                                                                        bad, reason):
    from ros_helpers import params

    rig = LinkRig(ros, method="test_link_spy")
    rig.send_goal(6.0, 0.0)
    poses = {"me": (0.0, 0.0), "partner": (-1.2, 0.0)}
    rig.drive(0.3, poses)
    [result] = rig.node.set_parameters(params(links=bad))
    assert not result.successful
    assert result.reason.startswith("links") and reason in result.reason
    assert rig.node.get_parameter("links").value == LINKED  # the old value stays
    cmd = rig.drive(0.3, poses)
    assert cmd.linear.x == pytest.approx(1.0)
    assert [t.key for t in link_spy.views[-1].tethers] == ["partner"]


def test_a_node_started_with_bad_links_says_so_and_holds_until_they_are_fixed(ros, link_spy):
    from ros_helpers import params

    rig = LinkRig(ros, method="test_link_spy",
                  links="[{agents: [me, partner], max_length: -1.0}]")
    rig.send_goal(6.0, 0.0)
    poses = {"me": (0.0, 0.0), "partner": (-1.2, 0.0)}
    cmd = rig.drive(0.4, poses)  # it still answers: zero
    assert (cmd.linear.x, cmd.linear.y) == (0.0, 0.0)
    assert rig.node.goal_state == "holding: invalid links parameter"
    assert rig.ros.spin_until(lambda: "links" in rig.my_status()[1].get("links_error", ""), 3.0)
    status, _ = rig.my_status()
    assert status.level == bytes([2]) and "links" in status.message  # ERROR, named
    [result] = rig.node.set_parameters(params(links=LINKED))
    assert result.successful
    cmd = rig.drive(0.4, poses)
    assert cmd.linear.x == pytest.approx(1.0) and rig.node.cycle.links_error == ""
    assert [t.key for t in link_spy.views[-1].tethers] == ["partner"]


def test_links_can_be_cleared_and_set_at_run_time(ros, link_spy):
    from ros_helpers import params

    rig = LinkRig(ros, method="test_link_spy", links="", neighbors=[""])
    rig.send_goal(6.0, 0.0)
    poses = {"me": (0.0, 0.0), "partner": (-1.2, 0.0), "c0": (2.0, -0.5), "c1": (2.0, 0.5)}
    rig.drive(0.3, poses)
    assert link_spy.views[-1].tethers == () and link_spy.views[-1].links == ()
    assert rig.node.set_parameters(params(links=LINKED))[0].successful
    rig.drive(0.5, poses)  # linked robots are followed even when not in 'neighbors'
    assert [t.key for t in link_spy.views[-1].tethers] == ["partner"]
    assert [v.keys for v in link_spy.views[-1].links] == [("c0", "c1")]


def _core_keeps_tethers() -> bool:
    """Whether the avoidance math already keeps a tether (the core controller, no ROS):
    with the partner at max_length behind it, ORCA does not head on for the goal."""
    from orca_ros.core.robot.config import ControllerConfig
    from orca_ros.core.robot.controller import RobotController
    from orca_ros.core.robot.state import RobotState
    from orca_ros.core.methods import TetherView

    controller = RobotController(ControllerConfig(
        radius=0.3, max_speed=1.0, pref_speed=1.0, time_step=0.05, time_horizon=3.0,
        keep_right_deg=0.0, stall_escape_deg=0.0), key="me")
    controller.set_path([(6.0, 0.0)])
    command = controller.compute(RobotState((0.0, 0.0)), [], (), tethers=[
        TetherView("partner", (-1.2, 0.0), (0.0, 0.0), 0.3, 1.2)])
    return command.velocity[0] <= 1e-3


def test_orca_node_does_not_pull_its_tether_past_max_length(ros):
    """Partner at max_length behind, goal ahead: ORCA through the node must not command
    a velocity that lengthens the tether (once the core math keeps tethers: until then
    the wiring tests above cover the node)."""
    if not _core_keeps_tethers():
        pytest.skip("the avoidance math does not keep tethers yet (core controller)")
    rig = LinkRig(ros, links="[{agents: [me, partner], max_length: 1.2}]")
    rig.send_goal(6.0, 0.0)
    poses = {"me": (0.0, 0.0), "partner": (-1.2, 0.0)}
    cmd = rig.drive(0.6, poses)
    # Body frame = world frame (yaw 0); away from the partner is +x.
    assert cmd.linear.x <= 1e-3, (cmd.linear.x, cmd.linear.y)
    assert rig.ros.spin_until(lambda: len(rig.link_markers()) == 2, 3.0)
    assert _points(rig.link_markers()[0]) == [(0.0, 0.0), (-1.2, 0.0)]
    assert math.isfinite(cmd.linear.y)


@pytest.mark.parametrize("method", ["orca", "rvo_sampling", "hrvo"])
def test_each_linked_method_runs_a_linked_scenario_through_real_nodes(method):
    """fleet_sim, four orca_nodes with the scenario's links, and the independent observer:
    every robot arrives, no contact and no link crossed, by the observer's count; ORCA's
    tethers also never stretch past max_length (the other two have no tether term)."""
    from orca_ros.fleet.plan import FleetOptions
    from orca_ros.tools.harness import run_fleet

    run = run_fleet("linked_pairs_crossing", FleetOptions(method=method, speed_factor=2.0),
                    observer=True)
    seen = run.summary["observer"]
    assert seen["arrived"] == seen["robots"] == 4, seen
    assert seen["colliding_pairs"] == 0, seen["collisions"]
    assert seen["link_crossings"] == 0, seen
    if method == "orca":
        assert seen["link_overstretches"] == 0, seen


def test_linked_views_carry_partners_forward_and_list_the_unseen_and_stale():
    """The pure core of orca_node's link handling (``core.link_params.linked_views``)."""
    from orca_ros.core.robot.links import linked_views

    groups = parse_links("[{agents: [me, p1, p2], max_length: 1.5},"
                         " {agents: [b0, b1], max_length: 1.0},"
                         " {agents: [far0, far1], max_length: 1.0}]")
    observed = {"p1": ((1.0, 0.0), (0.5, 0.0), 0.2),  # 0.2 s old, lag 0.1 -> +0.15 m
                "b0": ((0.0, 2.0), (0.0, 0.0), 0.0), "b1": ((1.0, 2.0), (0.0, 0.0), 5.0),
                "far0": ((50.0, 0.0), (0.0, 0.0), 0.0), "far1": ((51.0, 0.0), (0.0, 0.0), 0.0)}
    views = linked_views("me", groups, observed, lambda name: 0.2, lag=0.1, timeout=1.0,
                         position=(0.0, 0.0), reach=10.0)
    assert [t.key for t in views.tethers] == ["p1"]
    assert views.tethers[0].position == pytest.approx((1.15, 0.0))
    assert views.tethers[0].max_length == 1.5
    assert views.missing == ["p2"] and views.stale == []
    # another group's link: known once both ends were seen, carried at most `timeout`;
    # the one 50 m away is beyond reach
    assert [link.keys for link in views.links] == [("b0", "b1")]
    observed["p2"] = ((0.0, 1.0), (0.0, 0.0), 1.5)
    assert linked_views("me", groups, observed, lambda name: 0.2, 0.1, 1.0, (0.0, 0.0),
                        10.0).stale == ["p2"]
